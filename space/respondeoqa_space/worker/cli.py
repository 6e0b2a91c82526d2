"""`respondeoqa-space worker`: the operator's worker on the operator's GPU machine."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import threading
from pathlib import Path

from respondeoqa_eval import InputError

from ..config import finite_number, url_option
from ..requests.model import DEFAULT_PRESET, FINISHED, PENDING, PRESETS
from .engine import CHECK_MODEL


def register(sub: argparse._SubParsersAction) -> None:
    """Add `respondeoqa-space worker`."""
    w = sub.add_parser(
        "worker",
        help="the operator's worker: run the evaluation requests on a serving engine",
        description="Claim evaluation requests from the record repo, serve each model on the "
        "operator's engine (started per request with --serve-command, or the given "
        "--api-base), answer every item of --data-dir and the public files with the paper's "
        "prompts, and store the results as verified entries. Needs $HF_TOKEN with write "
        "access to the record repo.",
    )
    w.add_argument("--repo", required=True, help="the record repo (ORG/NAME, a Hub dataset)")
    w.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="the operator's folder with the private Certamen / NLE files (their questions go "
        "only to this worker's engine); the public files are downloaded and verified",
    )
    engine = w.add_mutually_exclusive_group(required=True)
    engine.add_argument(
        "--serve-command",
        metavar="CMD",
        help="the engine started for each request, with {model}, {revision} and {port}, "
        "e.g. 'vllm serve {model} --revision {revision} --tensor-parallel-size 4 --port {port}'",
    )
    engine.add_argument(
        "--api-base",
        metavar="URL",
        help="an engine the operator runs (vLLM, TGI, an Inference Endpoint), e.g. "
        "http://gpu-host:8000/v1: only requests for the models it lists are taken",
    )
    w.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="environment variable with the engine's API key (an Inference Endpoint: HF_TOKEN)",
    )
    w.add_argument(
        "--work-dir",
        type=Path,
        default=Path("worker_data"),
        help="this worker's copy of the record, and per request its predictions, the engine's "
        "log and its own (default worker_data)",
    )
    w.add_argument("--once", action="store_true", help="run one request, then stop")
    w.add_argument(
        "--check",
        action="store_true",
        help="check the engine and stop, claiming nothing: start it on --check-model and ask a "
        "public item (with --api-base: its first model), and measure whether it samples when "
        "asked to; every start does the same check before claiming",
    )
    w.add_argument(
        "--check-model",
        metavar="ID",
        default=None,
        help=f"the reference model of the engine check (default {CHECK_MODEL})",
    )
    w.add_argument("--check-revision", default="main", help="with --check-model (default main)")
    w.add_argument(
        "--max-operator-faults",
        type=int,
        default=3,
        help="requests in a row that fail on the operator's side (the engine missing, not "
        "starting, out of memory, not answering) before the worker stops; each goes back to "
        "the queue (default 3)",
    )
    w.add_argument(
        "--model",
        metavar="ID",
        help="with --once: evaluate this Hub model as the operator (a reference entry)",
    )
    w.add_argument(
        "--request",
        metavar="ID",
        help="with --once: run this request only (one claimed under --worker-id already, as "
        "the Jobs dispatcher does, or a pending one)",
    )
    w.add_argument("--revision", default="main", help="with --model (default main)")
    w.add_argument("--preset", choices=list(PRESETS), default=DEFAULT_PRESET, help="with --model")
    w.add_argument("--reasoning", action="store_true", help="with --model: the larger budget")
    w.add_argument("--worker-id", default=None, help="default: HOSTNAME-PID")
    w.add_argument(
        "--poll",
        type=finite_number,
        default=60.0,
        help="seconds between looks when idle (default 60)",
    )
    w.add_argument(
        "--lease",
        type=finite_number,
        default=900.0,
        help="seconds a claim holds without renewal; a stopped worker's request is run again "
        "after it (default 900)",
    )
    w.add_argument(
        "--engine-timeout",
        type=finite_number,
        default=1800.0,
        help="seconds an engine may take to start (default 1800)",
    )
    w.add_argument(
        "--max-unanswered",
        type=finite_number,
        default=0.5,
        help="largest share of empty answers before a run fails (default 0.5)",
    )
    w.add_argument("--max-attempts", type=int, default=3, help="claims of one request (default 3)")
    w.add_argument("--concurrency", type=int, default=32, help="requests in flight (default 32)")
    w.add_argument(
        "--timeout",
        type=finite_number,
        default=600.0,
        help="seconds per item request (default 600)",
    )
    w.add_argument(
        "--space-url",
        default=None,
        type=url_option,
        help="ask this running Space to read the record after each request (its own "
        "$HF_TOKEN authorises it); it does every $RESPONDEOQA_SPACE_PULL_SECONDS anyway",
    )
    w.set_defaults(func=run_worker)


def _check(args: argparse.Namespace) -> None:
    if args.model and not args.once:
        raise InputError("--model needs --once (seed one reference entry, then stop)")
    if args.request is not None:
        from ..store.evaluation import REQUEST_ID

        if not args.once or args.model:
            raise InputError(
                "--request needs --once, without --model (run that request, then stop)"
            )
        args.request = args.request.strip()
        if not REQUEST_ID.fullmatch(args.request):
            raise InputError(f"--request {args.request[:40]!r}: not a request id (12 hex digits)")
    for name, low in (("poll", 1), ("lease", 30), ("engine_timeout", 1), ("timeout", 1)):
        if getattr(args, name) < low:
            raise InputError(f"--{name.replace('_', '-')} must be at least {low} seconds")
    if not 0 <= args.max_unanswered <= 1:
        raise InputError("--max-unanswered must be a share from 0 to 1")
    if args.max_attempts < 1 or args.concurrency < 1 or args.max_operator_faults < 1:
        raise InputError(
            "--max-attempts, --max-operator-faults and --concurrency must be at least 1"
        )
    if args.check and (args.once or args.model or args.request):
        raise InputError(
            "--check runs alone: it claims nothing (leave out --once, --model and --request)"
        )
    if args.check_model is not None:
        from ..requests.desk import clean_model_id

        args.check_model = clean_model_id(args.check_model)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_worker(args: argparse.Namespace) -> int:
    """Build the worker from the options and run it (see `Worker`)."""
    _check(args)
    from ..config import SpaceConfig
    from ..jobs.command import JobRun
    from ..notify import notify_space
    from ..requests.ledger import RequestLedger
    from ..service import GoldAccessError, _gold_of
    from ..store import Store
    from ..store.hub import HubRepo, HubUnavailable, refused_access
    from ..store.sync import Syncer
    from ..submission import Intake
    from .engine import Endpoint, ServeCommand, StartedEngine
    from .worker import Worker, WorkerSettings, WorkerStopped

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for chatty in ("httpx", "httpx2"):  # a line per HTTP request: thousands per run
        logging.getLogger(chatty).setLevel(logging.WARNING)
    config = SpaceConfig.from_env(data_dir=args.data_dir, mirror_repo=args.repo)
    if not config.hub_token:
        raise InputError("$HF_TOKEN: the worker needs a token that can write the record repo")
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if not api_key:
            raise InputError(f"--api-key-env {args.api_key_env}: that variable is not set")
    work = args.work_dir
    if work.exists() and not work.is_dir():
        raise InputError(f"--work-dir {work}: not a folder")
    engine = (
        Endpoint(args.api_base, api_key)
        if args.api_base
        else StartedEngine(
            ServeCommand(args.serve_command),
            timeout=args.engine_timeout,
            record=work / "engine.json",
        )
    )
    work.mkdir(parents=True, exist_ok=True)
    if isinstance(engine, StartedEngine):
        left = engine.end_leftover()
        if left:
            print(
                f"ended the engine a stopped worker left (processes {', '.join(map(str, left))})",
                flush=True,
            )
    store = Store(work / "record.sqlite3")
    if config.mirror_repo is None:
        raise InputError("--repo: give the record repo (ORG/NAME, a Hub dataset)")
    repo = HubRepo(config.mirror_repo, token=config.hub_token, endpoint=config.hub_endpoint)
    worker_id = args.worker_id or f"{socket.gethostname()}-{os.getpid()}"
    try:
        gold = _gold_of(config)
    except GoldAccessError as exc:  # a mis-scoped token: the operator's, not the requester's
        given = _give_back(repo, worker_id, args.request) if args.request else ""
        raise InputError(f"{exc}{given}") from None
    intake = Intake(
        store,
        gold,
        limits=config.limits,
        bootstrap=config.bootstrap,
        min_coverage=config.min_coverage,
    )
    settings = WorkerSettings(
        worker_id=worker_id,
        lease=args.lease,
        poll=args.poll,
        max_unanswered=args.max_unanswered,
        max_attempts=args.max_attempts,
        concurrency=args.concurrency,
        request_timeout=args.timeout,
        api_key=api_key,
        hub_endpoint=config.hub_endpoint,
        hub_token=config.hub_token,
        max_operator_faults=args.max_operator_faults,
        check_model=args.check_model or CHECK_MODEL,
        check_revision=args.check_revision,
        job=JobRun.from_env(),
        keep_engine=args.once,  # one request follows: the checked engine may serve it
    )

    def notify() -> None:
        if args.space_url:
            note = notify_space(args.space_url, config.hub_token)
            if note:
                logging.getLogger(__name__).info(note.lstrip("; "))

    worker = Worker(
        store=store,
        syncer=Syncer(store, repo, verify=intake.verify, limits=config.limits),
        intake=intake,
        ledger=RequestLedger(repo),
        gold=gold,
        engine=engine,
        settings=settings,
        work_dir=work,
        limits=config.limits,
        notify=notify,
    )
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # stopped like Ctrl-C: the request goes back
    try:
        try:
            repo.create(private=True)  # the Space makes it too, whichever starts first
            worker.start()
        except HubUnavailable as exc:
            if refused_access(exc) is not None:
                raise  # the token's scope: named below
            raise InputError(f"cannot read the record: {exc}") from None
        print(
            f"worker {settings.worker_id}: {len(gold):,} items "
            f"({'with' if gold.has_private else 'without'} private files), record {args.repo}",
            flush=True,
        )
        print(worker.preflight(probe=args.check), flush=True)  # InputError: one line, stop
        if args.check:
            return 0
        if args.once:
            only = args.request
            if args.model:
                seeded = worker.seed(args.model, args.revision, args.preset, args.reasoning)
                print(f"request {seeded.id}: {seeded.model} at {seeded.revision[:12]}", flush=True)
                if seeded.status == FINISHED:
                    print("evaluated already:", flush=True)
                    return _report(seeded)
                only = seeded.id
            ended = worker.run_once(only=only)
            if ended is None and worker.failed_now:  # the claim failed it: run too often
                return max(_report(r) for r in worker.failed_now)
            if ended is None:
                print(worker.idle_text(only), flush=True)
                return 0
            return _report(ended)
        worker.loop(threading.Event())
    except WorkerStopped as exc:
        print(f"respondeoqa-eval: worker stopped: {exc}", flush=True)
        return 3
    except HubUnavailable as exc:  # the record refused this worker's token, or an outage
        status = refused_access(exc)
        if status is None:
            raise InputError(f"the record did not answer: {exc}") from None
        access = "write" if status == 403 else "read"
        raise InputError(
            f"$HF_TOKEN has no {access} access to the record repo {args.repo} (the Hub "
            f"answered HTTP {status})"
        ) from None
    except KeyboardInterrupt:
        print("respondeoqa-eval: worker stopped; its request (if any) is pending again")
        return 130
    finally:
        if isinstance(engine, StartedEngine):
            engine.stop()  # an engine the check kept up for a request that did not come
    return 0


def _give_back(repo, worker_id: str, rid: str) -> str:
    """Release request `rid` when this worker holds it (the Jobs dispatcher's claim) after a
    fault on the operator's side before the run; how, for the operator's line."""
    from ..requests.ledger import LostClaim, RequestLedger
    from ..requests.model import RUNNING
    from ..store.hub import HubUnavailable

    why = "the operator's Job could not read the gold with the token it was given"
    ledger = RequestLedger(repo)
    try:
        held = ledger.read_now()[1].get(rid)
        if held is None or held.status != RUNNING or held.worker != worker_id:
            return ""
        ledger.release(held, worker_id, f"the operator's side: {why}", note=why)
    except (HubUnavailable, LostClaim):
        return f"; request {rid} is given back when its claim runs out"
    return f"; request {rid} is pending again"


def _report(request) -> int:
    """Say how a request ended; the exit status (0 finished, 1 not)."""
    if request.status == FINISHED:
        entries = ", ".join(f"#{e}" for e in request.entries)
        print(f"request {request.id} finished: entries {entries}", flush=True)
        return 0
    why = f": {request.reason}" if request.reason else " (see the log above)"
    if request.status == PENDING:  # given back: the operator's side failed
        why = f" again, given back{why}"
    print(f"request {request.id} {request.status}{why}", flush=True)
    return 1
