"""The Jobs dispatcher: runs each pending evaluation request in its own Hugging Face Job.

A round (`Dispatcher.round`), from nothing but the record and the Hub's list of this record's
Jobs (labels), so that a laptop, a cron job or a scheduled Job can run it and two dispatchers
at once agree:

1. **Watch** every Job of the record. A live Job's request keeps its lease (`renew`); a Job
   whose request another worker holds now is cancelled (it must not run twice).
2. **Settle** every ended Job whose request is still claimed under its worker id (the worker
   inside died with it), as the worker's rules say: out of GPU memory (the Job's last line,
   `command.OOM_LINE`) is given back once, to run on the next flavor up, then fails; a Job that
   reached its timeout fails with a public reason naming the time allowed; any other end
   (killed, cancelled, the Hub's error) is the operator's side: the request is pending again,
   until it has had `max_attempts` Jobs. A request the Job's own worker failed because the
   engine ran out of memory is reopened for its one retry on the next flavor.
3. **Launch**, oldest request first, while fewer than `max_jobs` Jobs run: the flavor from the
   model's weights (`flavors.flavor_for`), the timeout from its size and token budget, refused
   (failed, with the reason) above `max_params`, when no flavor holds it, or when its Job
   could cost more than `request_cap`; left waiting while the day's spending (billed minutes of
   the Jobs of the last 24 h, a live Job counted at its timeout) would pass `daily_cap`. The
   claim is the worker's (`RequestLedger.claim`: compare-and-swap, lease) under a fresh
   `job-<hex>` worker id that the Job's worker adopts; the limit of `max_jobs` is checked inside
   the claim's compare-and-swap, so two dispatchers never exceed it together. A Job that cannot
   be started gives the request back.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..requests.desk import parameter_text
from ..requests.ledger import LostClaim, RequestLedger
from ..requests.model import FAILED, RUNNING, Request
from ..store.hub import HubUnavailable, describe, model_info
from .command import (
    IMAGE,
    LABEL_RECORD,
    LABEL_REQUEST,
    LABEL_WORKER,
    OOM_LINE,
    WORKER_PREFIX,
    job_spec,
    job_timeout,
    record_label,
)
from .flavors import (
    FLAVORS,
    Flavor,
    billed_cost,
    flavor_for,
    money,
    next_up,
    price_of,
    weight_bytes,
)

log = logging.getLogger(__name__)

LABEL_TIMEOUT = "respondeoqa-timeout"
LIVE = ("SCHEDULING", "RUNNING")
DAY = 24 * 3600.0


@dataclass
class DispatchSettings:
    """How the dispatcher runs (the `respondeoqa-space dispatch` options)."""

    repo: str  # the record repo
    namespace: str  # whose Jobs (and bill)
    record_token: str = field(repr=False)  # the Job's write token for the record repo
    max_jobs: int = 1
    daily_cap: float = 20.0  # US dollars per 24 h, all Jobs of this record
    request_cap: float = 10.0  # US dollars per request, all its Jobs
    max_params: float = 72e9
    max_attempts: int = 3
    lease: float = 900.0
    items: int = 8000  # items a run answers, for the timeout (RespondeoQA has about 7,800)
    gold_repo: str | None = None
    gold_token: str | None = field(default=None, repr=False)
    hub_endpoint: str | None = None
    hub_token: str | None = field(default=None, repr=False)  # model info
    space_url: str | None = None
    package: str | None = None
    image: str = IMAGE


@dataclass
class Round:
    """What one round did, as lines for the operator."""

    launched: list[str] = field(default_factory=list)
    settled: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [*self.settled, *self.launched, *self.waiting]


@dataclass(frozen=True)
class Plan:
    """A request's Job as planned: flavor, timeout, its largest cost; or why it is refused."""

    flavor: Flavor | None = None
    timeout: int = 0
    weights: int = 0
    refused: str = ""

    @property
    def max_cost(self) -> float:
        return billed_cost(self.timeout, self.flavor.price_per_hour) if self.flavor else 0.0


def stage_of(job: Any) -> str:
    return str(getattr(job.status.stage, "value", job.status.stage))


def _label(job: Any, key: str) -> str:
    return str((job.labels or {}).get(key, ""))


def _timeout_of(job: Any) -> int:
    text = _label(job, LABEL_TIMEOUT)
    return int(text) if text.isdigit() else 0


def running_seconds(job: Any) -> float:
    """Seconds the Job started or ran (what the Hub bills): its own figure, else its times."""
    durations = getattr(job, "durations", None)
    if durations is not None and durations.running_secs is not None:
        return float(durations.running_secs)
    if job.started_at is not None and job.finished_at is not None:
        return max(0.0, (job.finished_at - job.started_at).total_seconds())
    return 0.0


def job_cost(job: Any) -> float:
    """A Job's cost: billed minutes x the table's price once ended; a live Job at its timeout
    (what it may still cost)."""
    price = price_of(str(job.flavor)) or 0.0
    if stage_of(job) in LIVE:
        return billed_cost(max(_timeout_of(job), running_seconds(job)), price)
    return billed_cost(running_seconds(job), price)


class Dispatcher:
    """Evaluation requests on Hugging Face Jobs (see the module docstring)."""

    def __init__(
        self,
        ledger: RequestLedger,
        api: Any,  # huggingface_hub.HfApi: run_job, list_jobs, fetch_job_logs, cancel_job
        settings: DispatchSettings,
        *,
        lookup: Callable[..., Any] = model_info,
        clock: Callable[[], float] = time.time,
        new_worker: Callable[[], str] = lambda: WORKER_PREFIX + secrets.token_hex(6),
    ) -> None:
        self.ledger = ledger
        self.api = api
        self.settings = settings
        self.lookup = lookup
        self.clock = clock
        self.new_worker = new_worker
        self._oom: dict[str, bool] = {}  # job id -> its log's last lines say out of memory

    # -- the Hub's Jobs ------------------------------------------------------------------

    def jobs(self) -> list[Any]:
        """This record's Jobs, oldest first."""
        try:
            found = list(
                self.api.list_jobs(
                    labels={LABEL_RECORD: record_label(self.settings.repo)},
                    namespace=self.settings.namespace,
                )
            )
        except Exception as exc:  # the Hub's HTTP errors and outages: the next round
            raise HubUnavailable(f"the Jobs of {self.settings.namespace}: {describe(exc)}") from exc
        return sorted(found, key=lambda j: (j.created_at is None, j.created_at, j.id))

    def out_of_memory(self, job: Any) -> bool:
        """Whether an ended Job's log ends with the out-of-memory line (read once)."""
        if job.id not in self._oom:
            try:
                lines: Iterable[str] = self.api.fetch_job_logs(
                    job_id=job.id, namespace=self.settings.namespace, tail=20
                )
                self._oom[job.id] = any(OOM_LINE in line for line in lines)
            except Exception as exc:  # not known yet: the request is settled at a later round
                raise HubUnavailable(f"the log of Job {job.id}: {describe(exc)}") from exc
        return self._oom[job.id]

    # -- a round -------------------------------------------------------------------------

    def round(self) -> Round:
        """Watch, settle and launch once (see the module docstring)."""
        done = Round()
        jobs = self.jobs()
        by_request: dict[str, list[Any]] = {}
        for job in jobs:
            by_request.setdefault(_label(job, LABEL_REQUEST), []).append(job)
        requests = self.ledger.read_now()[1]
        for job in jobs:
            request = requests.get(_label(job, LABEL_REQUEST))
            if request is None:
                continue
            if stage_of(job) in LIVE:
                self._watch(job, request)
            else:
                line = self._settle(job, request, by_request[request.id])
                if line:
                    done.settled.append(line)
        self._launch(jobs, by_request, done)
        return done

    def loop(self, stop: threading.Event, poll: float) -> None:
        """Rounds every `poll` seconds until `stop` is set (an outage: the next round)."""
        while not stop.is_set():
            try:
                for line in self.round().lines():
                    log.info("%s", line)
            except HubUnavailable as exc:
                log.warning("the record cannot be read (%s); trying again later", exc)
            stop.wait(poll)

    def _watch(self, job: Any, request: Request) -> None:
        worker = _label(job, LABEL_WORKER)
        if request.status == RUNNING and request.worker == worker:
            try:
                self.ledger.renew(request, worker, self.settings.lease)
            except LostClaim:
                self._cancel(job, "its request is no longer claimed for it")
            except HubUnavailable as exc:
                log.warning("request %s: lease not renewed (%s)", request.id, exc)
        elif request.status == RUNNING and request.worker != worker:
            self._cancel(job, f"its request is claimed by {request.worker} now")

    def _cancel(self, job: Any, why: str) -> None:
        log.warning("Job %s cancelled: %s", job.id, why)
        try:
            self.api.cancel_job(job_id=job.id, namespace=self.settings.namespace)
        except Exception as exc:  # asked again at the next round
            log.error("Job %s not cancelled: %s", job.id, describe(exc))

    def _settle(self, job: Any, request: Request, its_jobs: list[Any]) -> str:
        """End the request of an ended Job as the rules say; a line saying how, or ""."""
        worker = _label(job, LABEL_WORKER)
        flavor = FLAVORS.get(str(job.flavor))
        where = flavor.label if flavor else str(job.flavor)
        held = request.status == RUNNING and request.worker == worker
        latest = its_jobs[-1].id == job.id
        failed_by_it = (
            request.status == FAILED
            and latest
            and any(
                h.endswith(f"claimed by {worker} (attempt {request.attempts})")
                for h in request.history
            )
        )
        if not (held or failed_by_it):
            return ""
        ooms = sum(1 for j in its_jobs if stage_of(j) not in LIVE and self.out_of_memory(j))
        if self.out_of_memory(job):
            up = next_up(str(job.flavor))
            if up is not None and ooms < 2:
                why = f"out of GPU memory on {where}: to be run on {up.label}"
                if held:
                    self.ledger.release(request, worker, why)
                else:
                    self.ledger.reopen(request, why)
                return f"request {request.id}: {why}"
            if held:
                reason = f"the model does not fit in the GPU memory of {where}, the largest hardware the operator allows"
                self.ledger.fail(request, worker, reason)
                return f"request {request.id} failed: {reason}"
            return ""
        if not held:
            return ""  # its worker failed it for the model's own reasons
        timeout = _timeout_of(job)
        message = str(job.status.message or "").lower()
        if (timeout and running_seconds(job) >= timeout - 1) or "timeout" in message:
            reason = (
                f"the evaluation did not finish within the {timeout / 60:,.0f} minutes the "
                f"operator allows on {where}"
            )
            self.ledger.fail(request, worker, reason)
            return f"request {request.id} failed: {reason}"
        if len(its_jobs) >= self.settings.max_attempts:
            reason = (
                f"its evaluation was interrupted {len(its_jobs)} times (its Job stopped each "
                "time); the operator has the logs"
            )
            self.ledger.fail(request, worker, reason)
            return f"request {request.id} failed: {reason}"
        why = f"its Job {job.id} ended ({stage_of(job).lower()}) before the run did"
        self.ledger.release(request, worker, why)
        return f"request {request.id} pending again: {why}"

    # -- launching -----------------------------------------------------------------------

    def plan(self, request: Request, its_jobs: list[Any]) -> Plan | None:
        """The Job for `request` (a refusal says why); None when the Hub did not answer."""
        s = self.settings
        if request.parameters and request.parameters > s.max_params:
            return Plan(
                refused=f"{parameter_text(request.parameters)} parameters, more than the "
                f"{parameter_text(int(s.max_params))} the operator evaluates"
            )
        try:
            info = self.lookup(
                request.model, request.revision, token=s.hub_token, endpoint=s.hub_endpoint
            )
        except HubUnavailable as exc:
            log.warning("request %s: model info failed (%s)", request.id, exc)
            return None
        except Exception:  # the model is gone, or private now
            return Plan(refused="the model cannot be read on the Hub at this revision any more")
        tensors = getattr(info, "safetensors", None)
        weights = weight_bytes(getattr(tensors, "parameters", None), request.parameters)
        if weights is None:
            return Plan(refused="its size is unknown (the Hub lists no safetensors weights)")
        flavor = flavor_for(weights)
        if flavor is None:
            return Plan(
                refused=f"its weights ({weights / 1e9:,.0f} GB) fit no hardware the operator allows"
            )
        ooms = [j for j in its_jobs if stage_of(j) not in LIVE and self.out_of_memory(j)]
        if ooms:
            up = next_up(str(ooms[-1].flavor))
            if up is None or len(ooms) >= 2:
                return Plan(
                    refused="the model does not fit in the GPU memory of the largest hardware the operator allows"
                )
            flavor = up
        timeout = job_timeout(weights, s.items, request.max_new_tokens, flavor)
        plan = Plan(flavor, timeout, weights)
        spent = sum(job_cost(j) for j in its_jobs)
        if spent + plan.max_cost > s.request_cap:
            return Plan(
                refused=f"its evaluation on {flavor.label} may cost up to "
                f"{money(spent + plan.max_cost)}, more than the {money(s.request_cap)} the "
                "operator allows per request"
            )
        return plan

    def _claims(self, now: float) -> int:
        """Requests claimed for Jobs now. Called inside the claim's compare-and-swap, where the
        ledger's requests are those of the head the claim is decided on."""
        return sum(
            1
            for r in self.ledger.requests().values()
            if r.status == RUNNING
            and r.worker.startswith(WORKER_PREFIX)
            and not r.lease_expired(now)
        )

    def _claim(
        self, request: Request, worker: str, live: int, limit: bool = True
    ) -> Request | None:
        def accept(r: Request) -> bool:
            if r.id != request.id:
                return False
            return not limit or max(live, self._claims(self.clock())) < self.settings.max_jobs

        return self.ledger.claim(
            worker, self.settings.lease, accept=accept, max_attempts=self.settings.max_attempts
        )

    def _launch(self, jobs: list[Any], by_request: dict[str, list[Any]], done: Round) -> None:
        s = self.settings
        now = self.clock()
        live = sum(1 for j in jobs if stage_of(j) in LIVE)
        spent = sum(
            job_cost(j)
            for j in jobs
            if j.created_at is None or now - j.created_at.timestamp() < DAY
        )
        waiting = sorted(
            (r for r in self.ledger.read_now()[1].values() if r.claimable(now)),
            key=lambda r: (r.created, r.id),
        )
        for request in waiting:
            if live >= s.max_jobs:
                done.waiting.append(
                    f"{len(waiting)} requests wait: {live} Jobs run (at most {s.max_jobs})"
                )
                return
            its_jobs = by_request.get(request.id, [])
            plan = self.plan(request, its_jobs)
            if plan is None:
                continue
            worker = self.new_worker()
            if plan.refused:
                claimed = self._claim(request, worker, live, limit=False)
                if claimed is not None and claimed.status == RUNNING:
                    self.ledger.fail(claimed, worker, plan.refused)
                    done.settled.append(f"request {request.id} refused: {plan.refused}")
                continue
            assert plan.flavor is not None
            if spent + plan.max_cost > s.daily_cap:
                done.waiting.append(
                    f"request {request.id} waits: its Job may cost {money(plan.max_cost)}; "
                    f"{money(spent)} of the {money(s.daily_cap)} a day are spent or reserved"
                )
                continue
            claimed = self._claim(request, worker, live)
            if claimed is None or claimed.status != RUNNING:
                continue  # another dispatcher took it, or the limit of Jobs was reached
            spec = job_spec(
                claimed, worker, plan.flavor, plan.timeout, repo=s.repo,
                record_token=s.record_token, weights=plan.weights, lease=s.lease,
                gold_repo=s.gold_repo, gold_token=s.gold_token, hub_endpoint=s.hub_endpoint,
                space_url=s.space_url, package=s.package, image=s.image,
            )  # fmt: skip
            try:
                job = self.api.run_job(
                    image=spec.image,
                    command=spec.command,
                    env=spec.env,
                    secrets=spec.secrets,
                    flavor=spec.flavor,
                    timeout=spec.timeout,
                    labels={**spec.labels, LABEL_TIMEOUT: str(spec.timeout)},
                    namespace=s.namespace,
                )
            except Exception as exc:  # no credit, a refused flavor, an outage: the operator's
                log.error("request %s: the Job could not be started (%s)", request.id, exc)
                self.ledger.release(claimed, worker, "its Job could not be started")
                done.waiting.append(
                    f"request {request.id} waits: its Job could not be started ({type(exc).__name__})"
                )
                return
            live += 1
            spent += plan.max_cost
            done.launched.append(
                f"request {request.id}: Job {job.id} on {plan.flavor.label} "
                f"({money(plan.flavor.price_per_hour)}/h, at most {plan.timeout // 60:,} min, "
                f"{money(plan.max_cost)})"
            )
