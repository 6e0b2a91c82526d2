"""The operator's worker: claims evaluation requests from the record, runs them, stores them.

One request at a time (`Worker.run_once`):

1. **Claim** the oldest claimable request (`RequestLedger.claim`: a compare-and-swap on the
   record, with a lease the worker renews while it runs; `Heartbeat`).
2. **Serve** the model: start the operator's engine at the request's exact revision, or use the
   operator's endpoint (`engine.py`).
3. **Answer** every item the operator holds, public and private, with the paper's prompts and
   the request's sampling and token budget: the runner (`runner.openai_api`), writing the
   request folder's resumable `predictions.jsonl` (a second attempt on the same machine goes on
   from where the first stopped). Private questions go only to this engine.
4. **Stop** the engine, then check the run: too many empty answers fail it.
5. **Score and store** through the Space's one path (`submission.Intake`): one verified entry
   on all the sources the run answered, and one on each combination of fewer of them, so the
   run ranks in every coverage a submitter can have. The entries, and the request marked
   finished with their numbers, go to the record in ONE commit (`Syncer.push(extra=...)`).

Before claiming anything the worker checks its engine (`preflight`, also `respondeoqa-space worker
--check` alone): started on a reference model, it must answer a public item, and is measured
for whether it samples when asked to (`sampling.py`); presets it cannot honour are declined.
With `--once` the checked engine stays up: a request on the checked model at the checked
revision (a Job's worker checks the requested model itself) runs on it, with no second start;
any other request gets an engine of its own. A check that fails claims nothing, as before.

What goes wrong is someone's fault. The **model's** (it does not load, too many empty answers,
the engine dies or refuses an item during its run) ends the request as failed with a plain
reason (nothing private: no engine output, no item). The **operator's** (the engine is missing,
does not start, runs out of memory, answers nothing before a timeout; a bug of the worker)
gives the request back, pending with that reason as its note and the attempt not counted;
this worker does not take it again (another may: a larger GPU), and after
`max_operator_faults` of them in a row the worker stops (`WorkerStopped`). The engine's
log, the worker's log and the predictions stay in the request's folder for the operator.
Stopping the worker (Ctrl-C, SIGTERM) gives the request back (pending). `seed` asks for a model
as the operator (`--once --model ID`).
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respondeoqa_eval import InputError, __version__
from respondeoqa_eval.data import SOURCES, GoldSet
from respondeoqa_eval.runner import (
    PROMPT_VERSION,
    ApiSettings,
    PredictionWriter,
    build_messages,
    run_api,
)

from ..config import Limits
from ..jobs.command import JobRun
from ..metadata import clean_metadata
from ..requests.desk import (
    clean_model_id,
    clean_revision,
    describe,
    facts_of,
    new_request,
    parameter_text,
)
from ..requests.ledger import LostClaim, RequestLedger
from ..requests.model import FAILED, FINISHED, PRESETS, RUNNING, Request, iso, seconds_of
from ..store import DuplicateSubmissionError, Store
from ..store.evaluation import Evaluation
from ..store.hub import HubUnavailable, model_info
from ..store.sync import Syncer
from ..submission import Intake
from . import sampling
from .engine import CHECK_MODEL, OPERATOR, EngineError, Served, out_of_memory

log = logging.getLogger(__name__)

HUB = "https://huggingface.co"


class RunFailed(Exception):
    """The run cannot become entries; `reason` is plain words for the record."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class WorkerSettings:
    """How the worker runs (the `respondeoqa-space worker` options)."""

    worker_id: str
    lease: float = 900.0  # seconds a claim lasts without renewal
    poll: float = 60.0  # seconds between looks at the record when nothing is pending
    max_unanswered: float = 0.5  # largest share of empty answers a run may have
    max_attempts: int = 3  # claims of one request before it fails as interrupted
    concurrency: int = 32  # requests in flight to the engine
    request_timeout: float = 600.0  # seconds per item
    max_retries: int = 8
    api_key: str | None = None  # for the engine (an Inference Endpoint takes an HF token)
    hub_endpoint: str | None = None  # for the entries' links and the model info
    hub_token: str | None = None
    max_operator_faults: int = 3  # operator-side failures in a row before the worker stops
    check_model: str = CHECK_MODEL  # the preflight's reference model (a started engine)
    check_revision: str = "main"
    job: JobRun | None = None  # inside a Hugging Face Job: its flavor, price and start
    keep_engine: bool = False  # a started engine the check passed stays up for the request


class WorkerStopped(Exception):
    """The worker stops: its engine failed on the operator's side too many times in a row."""


class Heartbeat:
    """Renews a claim's lease every third of it while a run goes on; `lost` once the claim is
    gone (another worker took it after an outage longer than the lease)."""

    def __init__(self, ledger: RequestLedger, request: Request, settings: WorkerSettings) -> None:
        self.ledger, self.request, self.settings = ledger, request, settings
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lease", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def _run(self) -> None:
        while not self._stop.wait(self.settings.lease / 3):
            try:
                self.request = self.ledger.renew(
                    self.request, self.settings.worker_id, self.settings.lease
                )
            except LostClaim:
                log.error("request %s: the claim was lost", self.request.id)
                self.lost.set()
                return
            except HubUnavailable as exc:  # tried again at the next beat
                log.warning("request %s: lease not renewed (%s)", self.request.id, exc)


class AnsweringTime:
    """Seconds spent answering a request's saved predictions, summed over its attempts on this
    machine (`answering.json` beside them), saved every few seconds: a killed attempt loses at
    most that much."""

    EVERY = 5.0

    def __init__(self, path: Path, *, fresh: bool, clock: Callable[[], float] = time.monotonic):
        self.path, self.clock = path, clock
        self.before = 0.0 if fresh else self._read()
        self.began = self._saved = clock()

    def _read(self) -> float:
        try:
            value = json.loads(self.path.read_text(encoding="utf-8"))["seconds"]
        except (OSError, ValueError, KeyError, TypeError):
            return 0.0
        return float(value) if isinstance(value, (int, float)) and 0 <= value < 1e9 else 0.0

    @property
    def seconds(self) -> float:
        return self.before + self.clock() - self.began

    def save(self, force: bool = False) -> None:
        if force or self.clock() - self._saved >= self.EVERY:
            self._saved = self.clock()
            self.path.write_text(json.dumps({"seconds": round(self.seconds, 1)}), "utf-8")


class _LogProgress:
    """The runner's progress as a log line every tenth of the items (and the time saved)."""

    def __init__(self, total: int, done: int, timer: AnsweringTime | None = None) -> None:
        self.total, self.n, self.timer = total, done, timer
        self._next = done + max(1, total // 10)

    def start(self) -> None:
        log.info("answering: %d of %d items done", self.n, self.total)

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.timer is not None:
            self.timer.save()
        if self.n >= self._next:
            log.info("answering: %d of %d items done", self.n, self.total)
            self._next += max(1, self.total // 10)

    def close(self) -> None:
        pass


def coverages(sources: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every non-empty combination of `sources`, all of them first, then fewer and fewer."""
    out = []
    for size in range(len(sources), 0, -1):
        out += [tuple(c) for c in itertools.combinations(sources, size)]
    return out


def _public_reason(exc: InputError) -> str:
    """A runner failure in words safe to publish: the HTTP status at most, never the server's
    message or the item (either may quote a private question)."""
    status = re.search(r"HTTP (\d{3})", str(exc))
    if status:
        return (
            f"the engine refused or failed an item (HTTP {status.group(1)}), often a context "
            "window smaller than a prompt plus the token budget; the operator has the logs"
        )
    if "failed after" in str(exc):
        return "the engine stopped answering (timeouts or dropped connections)"
    return "the run could not be completed; the operator has the logs"


def _job_fields(job: JobRun | None) -> dict[str, Any]:
    """A Job's flavor, price and time so far (up to the entries' commit), for the evaluation."""
    if job is None:
        return {}
    return {
        "hardware": job.flavor,
        "price_per_hour": job.price_per_hour,
        "job_seconds": round(max(0.0, time.time() - job.started), 1),
    }


def _writer(path: Path, settings: ApiSettings) -> tuple[PredictionWriter, bool]:
    """The request's predictions file, open to go on from an earlier attempt's answers; begun
    again when those were made under another engine name, prompt version or sampling (then
    True: fresh)."""

    def open_(overwrite: bool) -> PredictionWriter:
        return PredictionWriter(
            path,
            model=settings.model,
            prompt_version=PROMPT_VERSION,
            params=settings.params(),
            overwrite=overwrite,
        ).open()

    fresh = not path.exists()
    try:
        writer = open_(False)
    except InputError:  # another engine name or prompt version
        return open_(True), True
    if writer.changed:  # other sampling
        writer.close()
        return open_(True), True
    return writer, fresh


class Worker:
    """Runs evaluation requests (see the module docstring)."""

    def __init__(
        self,
        *,
        store: Store,
        syncer: Syncer,
        intake: Intake,
        ledger: RequestLedger,
        gold: GoldSet,
        engine: Any,  # engine.StartedEngine or engine.Endpoint
        settings: WorkerSettings,
        work_dir: Path,
        limits: Limits,
        notify: Callable[[], None] = lambda: None,
    ) -> None:
        self.store = store
        self.syncer = syncer
        self.intake = intake
        self.ledger = ledger
        self.gold = gold
        self.engine = engine
        self.settings = settings
        self.work_dir = Path(work_dir)
        self.limits = limits
        self.notify = notify
        self.operator_faults = 0  # operator-side failures in a row
        self.declined: dict[str, str] = {}  # preset -> why this engine cannot honour it
        self.failed_now: list[Request] = []  # failed by the last claim (interrupted too often)
        # given back on the operator's side: not claimed again by this worker, so one model
        # too large for its GPUs does not hold up the queue behind it
        self.given_back: set[str] = set()

    # -- the engine check ------------------------------------------------------------------

    def preflight(self, probe: bool = False) -> str:
        """Check the engine before claiming anything (`respondeoqa-space worker --check` alone): a started
        engine is started on the reference model, must answer a public item, and is measured
        for whether it samples (`sampling.samples`); an endpoint (`--api-base`) has listed its
        models already, and is measured with `probe`. Presets the engine cannot honour are
        declined from then on. One line on what was found; InputError when the check fails."""
        public = next(r for r in self.gold.records if not r.is_private)
        messages = build_messages(public)
        headers = (
            {"Authorization": f"Bearer {self.settings.api_key}"} if self.settings.api_key else {}
        )
        timeout = self.settings.request_timeout
        started = hasattr(self.engine, "serve_model")
        model = self.settings.check_model if started else self.engine.names[0]
        where = f"the engine check on {model}"
        folder = self.work_dir / "check"
        folder.mkdir(parents=True, exist_ok=True)
        try:
            if started:
                with self.engine.serve_model(
                    model, self.settings.check_revision, folder, keep=self.settings.keep_engine
                ) as served:
                    said = sampling.answer(
                        served.api_base, served.model, messages, headers=headers, timeout=timeout
                    )
                    samples = sampling.samples(
                        served.api_base, served.model, messages, served.engine,
                        headers=headers, timeout=timeout,
                    )  # fmt: skip
                    engine = served.engine
            else:
                engine = self.engine.engine
                said = samples = None
                if probe:
                    said = sampling.answer(
                        self.engine.api_base, model, messages, headers=headers, timeout=timeout
                    )
                    samples = sampling.samples(
                        self.engine.api_base, model, messages, engine,
                        headers=headers, timeout=timeout,
                    )  # fmt: skip
        except EngineError as exc:
            raise InputError(
                f"{where} failed: {exc.reason}; no request was claimed (the engine's log: "
                f"{folder / 'engine.log'})"
            ) from None
        if (started or probe) and (not said or not said.strip() or samples is None):
            if started:
                self.engine.stop()  # kept up for nothing
            raise InputError(
                f"{where} failed: the engine gave no answer to a public item; no request was "
                f"claimed (the engine's log: {folder / 'engine.log'})"
            )
        if samples is False:
            for name, preset in PRESETS.items():
                if preset.temperature > 0:
                    self.declined[name] = (
                        f"the engine ({engine}) ignored the temperature in the worker's check "
                        f"(the same answer as greedy at temperature {sampling.PROBE_TEMPERATURE} "
                        f"under {len(sampling.PROBE_SEEDS)} seeds): it cannot honour "
                        f"{preset.label}"
                    )
        if not started and not probe:
            return f"engine {engine} at --api-base serves {', '.join(self.engine.names)}"
        verdict = (
            "it samples when asked to"
            if samples
            else f"it ignores sampling: requests for {', '.join(self.declined)} are not taken"
        )
        return f"{where} passed: {engine} answered a public item; {verdict}"

    def accepts(self, request: Request) -> bool:
        """Whether this worker can run `request`: its engine serves the model, can honour the
        preset, and did not fail it on the operator's side already."""
        return (
            self.engine.accepts(request)
            and request.preset not in self.declined
            and request.id not in self.given_back
        )

    # -- the loop --------------------------------------------------------------------------

    def loop(self, stop: threading.Event) -> None:
        """Run requests until `stop` is set; look again every `poll` seconds when idle.
        WorkerStopped after `max_operator_faults` operator-side failures in a row."""
        while not stop.is_set():
            try:
                ran = self.run_once()
            except HubUnavailable as exc:  # an outage: look again later
                log.warning("the record cannot be read (%s); trying again later", exc)
                ran = None
            self.check_faults()
            if ran is None and not self.failed_now:
                stop.wait(self.settings.poll)

    def check_faults(self) -> None:
        """WorkerStopped once the engine failed on the operator's side too often in a row."""
        if self.operator_faults >= self.settings.max_operator_faults:
            raise WorkerStopped(
                f"the engine failed on the operator's side for {self.operator_faults} requests "
                "in a row (each is pending again); fix it, check it with `respondeoqa-space worker "
                "--check`, and start the worker again"
            )

    def run_once(self, only: str | None = None) -> Request | None:
        """Claim one request (the one with id `only`, when given) and run it; the request as
        it ended, or None when none was waiting (`failed_now` holds any request the claim
        failed instead: it had been interrupted too often; `idle_text` says why). A request
        claimed already under this worker's id (the Jobs dispatcher's claim) is adopted."""
        accept = self.accepts if only is None else lambda r: r.id == only and self.accepts(r)
        self.failed_now = []
        request = None if only is None else self._adopt(only)
        request = request or self.ledger.claim(
            self.settings.worker_id,
            self.settings.lease,
            accept=accept,
            max_attempts=self.settings.max_attempts,
            failed=self.failed_now,
        )
        if request is None:
            return None
        log.info(
            "request %s: %s at %s (%s%s), attempt %d",
            request.id,
            request.model,
            request.revision[:12],
            request.preset,
            ", reasoning" if request.reasoning else "",
            request.attempts,
        )
        return self.run(request)

    def idle_text(self, only: str | None = None) -> str:
        """Why the last `run_once` found nothing to run, in one line."""
        now = self.ledger.clock()
        requests = self.ledger.requests()
        if only is not None and only not in requests:
            return f"no request {only} in the record"
        if only is not None and requests[only].status in (FINISHED, FAILED):
            return f"request {only} {describe(requests[only], now)}; nothing to run"
        mine = [r for r in requests.values() if only is None or r.id == only]
        held = sorted(
            (r for r in mine if r.status == RUNNING and not r.lease_expired(now)),
            key=lambda r: r.lease_until,
        )
        if held:
            r = held[0]
            minutes = max(1, math.ceil((seconds_of(r.lease_until) - now) / 60))
            return (
                f"no request is waiting: request {r.id} is claimed by worker {r.worker}; if "
                f"that worker stopped, its lease frees the request in {minutes} min"
            )
        others = [r for r in mine if r.claimable(now) and not self.accepts(r)]
        if others:
            unserved = sum(1 for r in others if not self.engine.accepts(r))
            declined = [r.preset for r in others if r.preset in self.declined]
            back = sum(1 for r in others if r.id in self.given_back)
            why = [
                f"{unserved} for models its engine does not serve" if unserved else "",
                f"{len(declined)} for presets it declines ({self.declined[declined[0]]})"
                if declined
                else "",
                f"{back} given back by it on the operator's side" if back else "",
            ]
            return (
                f"no request is waiting that this worker can run: {len(others)} pending ("
                + "; ".join(w for w in why if w)
                + ")"
            )
        return "no request is waiting (nothing pending)"

    def _adopt(self, rid: str) -> Request | None:
        """Request `rid` when it is claimed already under this worker's id (the Jobs
        dispatcher claims it, then starts this worker in a Job with that id), its lease
        renewed; None otherwise."""
        current = self.ledger.read_now()[1].get(rid)
        if (
            current is None
            or current.status != RUNNING
            or current.worker != self.settings.worker_id
        ):
            return None
        try:
            return self.ledger.renew(current, self.settings.worker_id, self.settings.lease)
        except LostClaim:
            return None

    def seed(self, model: str, revision: str, preset: str, reasoning: bool) -> Request:
        """The operator's own request for a model (a reference entry): made, or reopened when
        an earlier one failed; it waits for `run_once(only=...)`. One that finished already is
        returned as it is."""
        model, revision = clean_model_id(model), clean_revision(revision)
        if preset not in PRESETS:
            raise InputError(f"--preset: one of {', '.join(PRESETS)}")
        try:
            facts = facts_of(
                model_info(
                    model,
                    revision,
                    token=self.settings.hub_token,
                    endpoint=self.settings.hub_endpoint,
                ),
                model,
            )
        except HubUnavailable as exc:
            raise InputError(f"--model {model}: the Hub did not answer ({exc})") from None
        except Exception as exc:  # ModelNotFound, or a model that cannot be evaluated
            raise InputError(f"--model {model}: {exc}") from None
        made = new_request(facts, revision, preset, reasoning, "", self.limits, self.ledger.clock())
        if preset in self.declined:
            raise InputError(f"--preset {preset}: {self.declined[preset]}")
        if not self.engine.accepts(made):
            raise InputError(
                f"--model {model}: the engine at --api-base does not serve it (it serves "
                f"{', '.join(getattr(self.engine, 'names', []))}); nothing was asked"
            )
        stored, new = self.ledger.create(made)
        if not new and stored.status == FAILED:
            stored = self.ledger.reopen(stored, "asked again by the operator")
        return stored

    # -- one request -----------------------------------------------------------------------

    def run(self, request: Request) -> Request:
        """Run a claimed request to its end (finished, failed, or given back when stopped)."""
        folder = self.work_dir / "requests" / request.id
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(folder / "worker.log", encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
        # the worker's own records and the evaluator's (the runner's) both go to the file
        packages = [logging.getLogger(name) for name in ("respondeoqa_space", "respondeoqa_eval")]
        for package in packages:
            package.addHandler(handler)
        try:
            with Heartbeat(self.ledger, request, self.settings) as beat:
                try:
                    ended = self._run(request, folder, beat)
                    self.operator_faults = 0
                except (EngineError, RunFailed) as exc:
                    if isinstance(exc, EngineError) and exc.side == OPERATOR:
                        ended = self._give_back(request, exc.reason)
                    else:
                        log.error("request %s failed: %s", request.id, exc.reason)
                        self.operator_faults = 0
                        ended = self._end(self.ledger.fail, request, exc.reason)
                except LostClaim:
                    log.error("request %s: claim lost; its results are not stored", request.id)
                    self._drop_unpushed()
                    ended = request
                except HubUnavailable as exc:
                    # the claim stays until its lease runs out, then the request is run again
                    # (on this machine from the saved answers: only the scoring is redone)
                    log.error("request %s: the Hub did not answer (%s)", request.id, exc)
                    self._drop_unpushed()
                    ended = request
                except (KeyboardInterrupt, SystemExit):
                    self._drop_unpushed()
                    self._end(self.ledger.release, request, "the worker was stopped")
                    raise
                except Exception as exc:  # a bug: the operator's, not the requester's
                    log.exception("request %s: internal error", request.id)
                    self._drop_unpushed()
                    reason = (
                        f"internal error of the worker ({type(exc).__name__}); the operator "
                        "has the logs"
                    )
                    ended = self._give_back(request, reason)
        finally:
            for package in packages:
                package.removeHandler(handler)
            handler.close()
        self.notify()
        return ended

    def _give_back(self, request: Request, reason: str) -> Request:
        """A failure on the operator's side: the request is pending again with `reason` as its
        note, the attempt not counted (the requester loses nothing)."""
        self.operator_faults += 1
        self.given_back.add(request.id)
        log.error(
            "request %s given back (operator's side, %d in a row): %s",
            request.id,
            self.operator_faults,
            reason,
        )

        def release(req: Request, worker: str, why: str) -> Request | None:
            return self.ledger.release(req, worker, f"the operator's side: {why}", note=why)

        return self._end(release, request, reason)

    def _end(self, change: Callable[..., Request | None], request: Request, why: str) -> Request:
        """Fail or release a claimed request; when the Hub does not answer, its lease runs out
        and it is claimable again."""
        try:
            return change(request, self.settings.worker_id, why) or request
        except HubUnavailable as exc:
            log.error("request %s: not changed, the Hub did not answer (%s)", request.id, exc)
            return request

    def _run(self, request: Request, folder: Path, beat: Heartbeat) -> Request:
        records = list(self.gold.records)
        path = folder / "predictions.jsonl"
        started = time.time()
        with self.engine.serve(request, folder) as served:
            sent = sampling.applied(served.engine, PRESETS[request.preset])
            settings = ApiSettings(
                api_base=served.api_base,
                model=served.model,
                api_key=self.settings.api_key,
                concurrency=self.settings.concurrency,
                timeout=self.settings.request_timeout,
                max_retries=self.settings.max_retries,
                temperature=sent.temperature,
                top_p=sent.top_p,
                seed=sent.seed,
                max_new_tokens=request.max_new_tokens,
                extra_body=sent.extra_body,
            )
            seconds = self._answer(records, path, settings, folder)
        if beat.lost.is_set():
            raise LostClaim(request.id)
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        empty = sum(1 for r in rows if not str(r.get("response") or "").strip())
        if empty > self.settings.max_unanswered * len(rows):
            raise RunFailed(
                f"too many unanswered items: {empty:,} of {len(rows):,} answers were empty "
                f"(at most {self.settings.max_unanswered:.0%} may be); a reasoning model may "
                "need the reasoning budget"
            )
        evaluation = self._evaluation(request, served, sent, rows, empty, seconds, started)
        return self._store(request, rows, folder, evaluation, sent)

    def _answer(self, records: list, path: Path, settings: ApiSettings, folder: Path) -> float:
        """Every item answered into `path` (resumed when an earlier attempt left rows); the
        seconds spent answering them, over every attempt on this machine."""
        writer, fresh = _writer(path, settings)
        timer = AnsweringTime(folder / "answering.json", fresh=fresh)
        try:
            done = len({r.id for r in records} & writer.done)
            log.info("%d items, %d answered already", len(records), done)
            try:
                run_api(records, writer, settings, _LogProgress(len(records), done, timer))
            except InputError as exc:
                status = self.engine.exit_status()
                log.error("the run stopped: %s", exc)  # the operator's log: details allowed
                log_path = getattr(self.engine, "log_path", None)
                if status is not None and log_path is not None and out_of_memory(log_path):
                    raise EngineError(
                        f"the engine ran out of memory during the run (exit status {status}); "
                        "the operator's GPUs are too small or busy",
                        OPERATOR,
                    ) from None
                if status is not None:
                    raise EngineError(
                        f"the engine stopped during the run (exit status {status}) after "
                        f"{len(writer.done):,} of {len(records):,} items; the operator has its "
                        "log"
                    ) from None
                if not writer.done and "failed after" in str(exc):
                    raise EngineError(
                        "the engine answered no item before timing out (the operator has the logs)",
                        OPERATOR,
                    ) from None
                raise RunFailed(_public_reason(exc)) from None
        finally:
            timer.save(force=True)  # first: a second Ctrl-C may cut the rest short
            writer.close()
        return timer.seconds

    def _evaluation(
        self,
        request: Request,
        served: Served,
        sent: sampling.Applied,
        rows: list[dict[str, Any]],
        empty: int,
        seconds: float,
        started: float,
    ) -> Evaluation:
        usage = [u for r in rows if isinstance(u := r.get("usage"), dict)]
        counted = len(usage) == len(rows)

        def total(key: str) -> int | None:
            if not counted:
                return None
            return sum(int(u.get(key) or 0) for u in usage)

        sources = {self.gold.by_id[r["id"]].source for r in rows if r["id"] in self.gold.by_id}
        return Evaluation(
            request=request.id,
            model=request.model,
            revision=request.revision,
            preset=request.preset,
            temperature=sent.temperature,
            top_p=sent.top_p,
            seed=sent.seed,
            max_new_tokens=request.max_new_tokens,
            reasoning=request.reasoning,
            engine=re.sub(r"[^\w.+:@/ ()-]", "", served.engine)[:80],
            engine_version=re.sub(r"[^\w.+:@/ ()-]", "", served.version)[:80],
            endpoint="started" if served.started else "given",
            prompt_version=PROMPT_VERSION,
            runner_version=__version__,
            licence=request.licence,
            parameters=request.parameters,
            run_sources=tuple(s for s in SOURCES if s in sources),
            items=len(rows),
            empty=empty,
            prompt_tokens=total("prompt_tokens"),
            completion_tokens=total("completion_tokens"),
            seconds=round(seconds, 1),
            started=iso(started),
            finished=iso(time.time()),
            **_job_fields(self.settings.job),
        )

    def _store(
        self,
        request: Request,
        rows: list[dict[str, Any]],
        folder: Path,
        evaluation: Evaluation,
        sent: sampling.Applied,
    ) -> Request:
        """The run's entries (all its sources, then each combination of fewer) and the request
        finished, in one commit."""
        self.syncer.read()  # this copy up to the record before adding to it
        link = f"{(self.settings.hub_endpoint or HUB).rstrip('/')}/{request.model}/tree/{request.revision}"
        meta = clean_metadata(
            request.model,
            link,
            parameter_text(request.parameters),
            f"Evaluated by the leaderboard (request {request.id}): "
            f"{PRESETS[request.preset].label}, up to {request.max_new_tokens:,} new tokens "
            f"per item, prompts {PROMPT_VERSION}. Sampling: {sent.how}.",
            self.limits,
        )
        shas: list[str] = []
        same: list[int] = []  # entries of other runs with exactly these answers
        full = evaluation.run_sources
        for part in coverages(full):
            path = folder / (
                "predictions.jsonl" if part == full else f"coverage-{'+'.join(part)}.jsonl"
            )
            if part != full:
                keep = [r for r in rows if self.gold.by_id[r["id"]].source in part]
                path.write_text("".join(json.dumps(r) + "\n" for r in keep), encoding="utf-8")
            try:
                entry = self.intake.submit(path, meta, client=None, evaluation=evaluation).entry
            except DuplicateSubmissionError as exc:
                entry = exc.existing
                if entry.evaluation is None or entry.evaluation.request != request.id:
                    log.warning(
                        "coverage %s: the same predictions as entry #%d; not stored again",
                        "+".join(part),
                        entry.id,
                    )
                    same.append(entry.id)
                    continue
            shas.append(entry.file_sha256)
        if not shas:
            shown = ", ".join(f"#{i}" for i in same[:3]) + (", ..." if len(same) > 3 else "")
            raise RunFailed(
                f"every answer of the run is the same as in entries already on the board "
                f"({shown}): nothing new to rank"
            )

        def stored_ids() -> list[int]:  # (after any renumbering)
            entries = [self.store.find_by_hash(sha) for sha in shas]
            return [e.id for e in entries if e is not None]  # each stored above

        def finished(head: str) -> dict[str, bytes]:
            return self.ledger.finished_files(request, self.settings.worker_id, stored_ids(), head)

        self.syncer.push(extra=finished)
        ids = stored_ids()
        tokens = (
            "not counted by the engine"
            if evaluation.prompt_tokens is None or evaluation.completion_tokens is None
            else f"{evaluation.prompt_tokens:,} prompt and {evaluation.completion_tokens:,} "
            "generated tokens"
        )
        log.info(
            "request %s finished: entries %s; %s in %.0f s of answering",
            request.id,
            ", ".join(f"#{i}" for i in ids),
            tokens,
            evaluation.seconds,
        )
        return self.ledger.read_now()[1].get(request.id) or request

    def _drop_unpushed(self) -> None:
        """Forget verified entries this copy made but never pushed (a run that did not
        finish): they must not reach the record with a later push."""
        states = {s.id: s for s in self.store.synced().values()}
        for entry in self.store.entries(include_hidden=True):
            state = states.get(entry.id)
            if entry.verified and state is not None and not state.pushed and state.dirty:
                self.store.delete(entry.id, in_record=False)
                log.info("entry #%d (not pushed) dropped", entry.id)

    def start(self) -> None:
        """Read the record, and drop what an interrupted earlier run left unpushed."""
        self.syncer.read()
        self._drop_unpushed()
