"""`respondeoqa-space dispatch`: run the evaluation requests on Hugging Face Jobs."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import threading

from respondeoqa_eval import InputError

from .command import IMAGE


def register(sub: argparse._SubParsersAction) -> None:
    """Add `respondeoqa-space dispatch`."""
    d = sub.add_parser(
        "dispatch",
        help="run the evaluation requests on Hugging Face Jobs (no GPU machine of one's own)",
        description="For each pending request of the record repo, claim it and launch one "
        "Hugging Face Job on the hardware its model needs (vLLM, this package at this "
        "version, `respondeoqa-space worker --once --request ID` inside); watch the Jobs, renew their "
        "leases, end the requests of Jobs that died as the worker's rules say. One round, or "
        "--loop. $HF_TOKEN: the dispatcher's token (runs Jobs in --namespace, writes the "
        "record); the Job gets the token of --job-token-env and $RESPONDEOQA_GOLD_TOKEN.",
    )
    d.add_argument("--repo", required=True, help="the record repo (ORG/NAME, a Hub dataset)")
    d.add_argument(
        "--namespace", default=None, help="the user or organisation that runs and pays the Jobs"
    )
    d.add_argument("--max-jobs", type=int, default=1, help="Jobs at once (default 1)")
    d.add_argument(
        "--daily-cap",
        type=float,
        default=20.0,
        help="US dollars the record's Jobs may cost in 24 h, a running Job counted at its "
        "timeout (default 20)",
    )
    d.add_argument(
        "--request-cap",
        type=float,
        default=10.0,
        help="US dollars all Jobs of one request may cost; a request that may cost more is "
        "refused (default 10)",
    )
    d.add_argument(
        "--max-params",
        type=float,
        default=72.0,
        help="the largest model evaluated, in billions of parameters (default 72)",
    )
    d.add_argument(
        "--job-token-env",
        metavar="VAR",
        default="HF_TOKEN",
        help="variable holding the Job's token: write access to the record repo only "
        "(default HF_TOKEN)",
    )
    d.add_argument(
        "--package",
        default=None,
        help="what the Job installs (default respondeoqa-space==this version; a wheel "
        "or git URL for a version not on PyPI)",
    )
    d.add_argument("--image", default=IMAGE, help=f"the Job's image (default {IMAGE})")
    d.add_argument(
        "--items", type=int, default=8000, help="items per run, for the timeout (default 8000)"
    )
    d.add_argument("--lease", type=float, default=900.0, help="seconds a claim holds (900)")
    d.add_argument("--max-attempts", type=int, default=3, help="Jobs per request (default 3)")
    d.add_argument("--space-url", default=None, help="the Space to ask to read the record")
    d.add_argument("--loop", action="store_true", help="a round every --poll seconds")
    d.add_argument("--poll", type=float, default=60.0, help="seconds between rounds (60)")
    d.set_defaults(func=run_dispatch)


def _check(args: argparse.Namespace) -> None:
    if args.max_jobs < 1 or args.max_attempts < 1 or args.items < 1:
        raise InputError("--max-jobs, --max-attempts and --items must be at least 1")
    for name in ("daily_cap", "request_cap", "max_params"):
        if not 0 < getattr(args, name) < 1e6:
            raise InputError(f"--{name.replace('_', '-')} must be a positive number")
    if args.lease < 30 or args.poll < 1:
        raise InputError("--lease must be at least 30 seconds and --poll at least 1")
    if args.loop and args.poll > args.lease / 3:
        raise InputError("--poll must be at most a third of --lease (the leases are renewed)")


def run_dispatch(args: argparse.Namespace) -> int:
    """Build the dispatcher from the options and run a round (or --loop)."""
    _check(args)
    from huggingface_hub import HfApi

    from ..config import SpaceConfig
    from ..requests.ledger import RequestLedger
    from ..store.hub import HubRepo, HubUnavailable
    from .dispatcher import Dispatcher, DispatchSettings

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for chatty in ("httpx", "httpx2"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    config = SpaceConfig.from_env(mirror_repo=args.repo)
    if not config.hub_token:
        raise InputError("$HF_TOKEN: the dispatcher needs a token that can run Jobs")
    job_token = os.environ.get(args.job_token_env, "").strip()
    if not job_token:
        raise InputError(f"--job-token-env {args.job_token_env}: that variable is not set")
    api = HfApi(endpoint=config.hub_endpoint, token=config.hub_token)
    try:
        namespace = args.namespace or api.whoami()["name"]
    except Exception as exc:
        raise InputError(f"$HF_TOKEN: the Hub does not know this token ({exc})") from None
    repo = HubRepo(args.repo, token=config.hub_token, endpoint=config.hub_endpoint)
    dispatcher = Dispatcher(
        RequestLedger(repo),
        api,
        DispatchSettings(
            repo=args.repo,
            namespace=namespace,
            record_token=job_token,
            max_jobs=args.max_jobs,
            daily_cap=args.daily_cap,
            request_cap=args.request_cap,
            max_params=args.max_params * 1e9,
            max_attempts=args.max_attempts,
            lease=args.lease,
            items=args.items,
            gold_repo=config.gold_repo,
            gold_token=config.gold_token,
            hub_endpoint=config.hub_endpoint,
            hub_token=config.hub_token,
            space_url=args.space_url,
            package=args.package,
            image=args.image,
        ),
    )
    try:
        if args.loop:
            stop = threading.Event()
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, lambda *_: stop.set())
            dispatcher.loop(stop, args.poll)
            return 0
        for line in dispatcher.round().lines():
            print(line, flush=True)
    except HubUnavailable as exc:
        raise InputError(f"cannot read the record: {exc}") from None
    except KeyboardInterrupt:
        return 130
    return 0
