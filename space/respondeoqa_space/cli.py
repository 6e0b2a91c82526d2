"""`respondeoqa-space`: the leaderboard's one command (also `python -m respondeoqa_space`).

- `serve`: start the leaderboard on its settings (the Hub Space runs it through `app.py`);
- `admin`: the operator's tools on the database and its record;
- `worker` (worker/cli.py): the operator's evaluation worker;
- `dispatch` (jobs/cli.py): the evaluation requests on Hugging Face Jobs;
- `deploy` (deploy.py): upload the Space repository (`space/`) to a Hub Space.

Every `InputError` is one line on stderr and exit status 2 (a missing gold ends with
`--data-dir DIR`, the way to pass a folder here); so is a bad argument.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import NoReturn

from respondeoqa_eval import InputError, run_command

from . import __version__
from .config import url_option
from .notify import notify_space
from .rows import parse_entry_id

PROG = "respondeoqa-space"
DATA_DIR_OPTION = "--data-dir DIR"
"""How a folder is passed here (the end of a missing-gold message)."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line (`--help` shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command."""
    from .deploy import register as register_deploy
    from .jobs.cli import register as register_dispatch
    from .worker.cli import register as register_worker

    parser = _Parser(
        prog=PROG,
        description="Serve, operate and deploy the RespondeoQA leaderboard Space.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(
        dest="command", metavar="{serve,admin,worker,dispatch,deploy}", parser_class=_Parser
    )
    _register_serve(sub)
    _register_admin(sub)
    register_worker(sub)
    register_dispatch(sub)
    register_deploy(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `respondeoqa-space ARGV`; the exit status."""
    parser = build_parser()
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return run_command(args.func, args, prog=PROG, option=DATA_DIR_OPTION)


def _register_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="start the leaderboard Space (Gradio) on http://127.0.0.1:7860",
        description=(
            "Start the leaderboard: SQLite store, public gold (plus the private files of "
            "--data-dir), the paper's rows. Every setting is also an environment variable "
            "(docs/leaderboard-operating.md)."
        ),
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="folder with upstream files (e.g. the private Certamen/NLE files); the public files "
        "it lacks are downloaded and verified (default: $RESPONDEOQA_DATA_DIR, else public only)",
    )
    p.add_argument(
        "--db",
        type=Path,
        default=None,
        help="SQLite file, created when missing (default: $RESPONDEOQA_SPACE_DB, else "
        "space_data/leaderboard.sqlite3)",
    )
    p.add_argument("--port", type=int, help="default: $GRADIO_SERVER_PORT, else 7860")
    p.add_argument("--host", help="default: $GRADIO_SERVER_NAME, else 127.0.0.1")
    p.add_argument(
        "--mirror",
        default=None,
        help="Hub dataset repo of record (default: $RESPONDEOQA_SPACE_MIRROR; off)",
    )
    p.set_defaults(func=run)


def _entry_number(text: str) -> int:
    number = parse_entry_id(text)
    if number is None:
        raise argparse.ArgumentTypeError(f"not an entry number: {text[:40]!r}")
    return number


def _register_admin(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "admin",
        help="operator tools: list, add, hide, unhide, flag, unflag, delete, rescore, items, "
        "export, details, requests",
        description="Act on the leaderboard database (and its record on the Hub when one is "
        "configured: read first, each change pushed at once). Every action is written to the "
        "audit log.",
    )
    a.add_argument("--db", type=Path, default=None, help="default: $RESPONDEOQA_SPACE_DB")
    a.add_argument(
        "--create",
        action="store_true",
        help="create --db when it does not exist (with --repo it is created and filled from "
        "the record anyway)",
    )
    a.add_argument("--data-dir", type=Path, default=None, help="gold folder (add, rescore)")
    a.add_argument(
        "--repo",
        default=None,
        help="Hub dataset repo of record (default: $RESPONDEOQA_SPACE_MIRROR)",
    )
    a.add_argument(
        "--space-url",
        default=None,
        type=url_option,
        help="after a change, ask this running Space (e.g. https://org-name.hf.space) to read "
        "the record at once (it does every $RESPONDEOQA_SPACE_PULL_SECONDS anyway)",
    )
    a.add_argument("--actor", default=None, help="name written to the audit log (default: $USER)")
    acts = a.add_subparsers(dest="action", required=True)
    acts.add_parser("list", help="every entry, hidden ones included, and unreadable record files")
    add = acts.add_parser("add", help="score and store prediction files")
    add.add_argument("predictions", nargs="+", type=Path)
    add.add_argument("--model", default=None, help="default: each file's name")
    for name in ("hide", "unhide", "delete"):
        act = acts.add_parser(name, help=f"{name} an entry")
        act.add_argument("entry", type=_entry_number)
    flag = acts.add_parser("flag", help="flag an entry publicly, with a reason on its row")
    flag.add_argument("entry", type=_entry_number)
    flag.add_argument("--reason", required=True, help="shown to every visitor (plain text)")
    unflag = acts.add_parser("unflag", help="clear an entry's public flag")
    unflag.add_argument("entry", type=_entry_number)
    acts.add_parser("rescore", help="re-score every entry with the current evaluator and gold")
    items = acts.add_parser(
        "items",
        help="item analysis of the shown entries over every item, private ones included (CSV)",
    )
    items.add_argument("--output", type=Path, required=True, help="the CSV to write")
    items.add_argument("--top", type=int, default=None, help="items listed in the summary (10)")
    exp = acts.add_parser("export", help="every entry as JSONL")
    exp.add_argument("--output", type=Path, required=True)
    det = acts.add_parser(
        "details",
        help="write every shown entry's public per-item results, raw responses included, to "
        "the public details dataset (one config per entry; only what changed goes up)",
    )
    det.add_argument(
        "--details-repo",
        default=None,
        help="the details dataset, ORG/NAME (default: $RESPONDEOQA_SPACE_DETAILS)",
    )
    det.add_argument(
        "--dry-run",
        action="store_true",
        help="say what would be uploaded and deleted; write nothing",
    )
    det.add_argument(
        "--board-url",
        default=None,
        type=url_option,
        help="the leaderboard's address, named in the dataset card",
    )
    rec = acts.add_parser(
        "record",
        help="when the record diverged (deleted and made again, force-pushed, another repo): "
        "show it, re-push this copy's entries into it, or accept it as it is",
        description="A copy never applies a record that is not a later state of the one it read: "
        "it keeps its entries and refuses writes until the operator chooses. With --space-url "
        "the running Space chooses; else this --db copy with --repo.",
    )
    rec.add_argument("choice", choices=("status", "repush", "accept"))
    req = acts.add_parser("requests", help="the record's evaluation requests: list, reopen")
    req_acts = req.add_subparsers(dest="request_action", required=True)
    req_acts.add_parser("list", help="every request with its status")
    reopen = req_acts.add_parser("reopen", help="a failed request pending again")
    reopen.add_argument("request", help="the request id (12 hex digits)")
    a.set_defaults(func=run_admin)


def run_admin(args: argparse.Namespace) -> int:
    """`respondeoqa-space admin ACTION`."""
    import getpass

    from .admin import Admin
    from .config import SpaceConfig
    from .details import details_repo
    from .service import _gold_of
    from .store import Store
    from .store.hub import HubRepo, HubUnavailable
    from .store.sync import RecordDiverged, Syncer
    from .submission import Intake

    config = SpaceConfig.from_env(
        db=args.db,
        data_dir=args.data_dir,
        mirror_repo=args.repo,
        details_repo=getattr(args, "details_repo", None),
    )
    if args.action == "requests":
        return _run_requests(args, config)
    if not config.db.exists() and not (args.create or config.mirror_repo):
        raise InputError(
            f"--db {config.db}: no such database (a typo?); add --create to make a new one, "
            "or --repo to make it from the record"
        )
    store = Store(config.db)

    def make_intake() -> Intake:
        intake = Intake(
            store,
            _gold_of(config),
            limits=config.limits,
            bootstrap=config.bootstrap,
            min_coverage=config.min_coverage,
        )
        if syncer is not None:  # `admin add` is stored once the record holds it
            intake.keep = syncer.land_entries
        return intake

    syncer = None
    admin = Admin(
        store,
        make_intake,
        actor=f"operator:{args.actor or getpass.getuser()}",
        limits=config.limits,
    )
    if config.mirror_repo:
        repo = HubRepo(config.mirror_repo, token=config.hub_token, endpoint=config.hub_endpoint)
        syncer = admin.syncer = Syncer(
            store, repo, verify=lambda rec: admin.intake.verify(rec), limits=config.limits
        )
        # the record is the truth: an operator's local copy first reads it whole
        try:
            syncer.read()
        except RecordDiverged as exc:
            if args.action != "record":
                raise InputError(
                    f"the record is not the one this copy read: {exc}; choose with "
                    "`respondeoqa-space admin record repush` (keep this copy's entries) or `record accept`"
                ) from None
        except HubUnavailable as exc:
            raise InputError(f"cannot read the record: {exc}") from None
    note = ""
    if args.action == "record":
        print(_record_choice(args, config.hub_token, syncer))
        return 0
    if args.action == "list":
        print("\n".join(admin.list()) or "no entries")
    elif args.action == "add":
        added, note = admin.add(args.predictions, args.model)
        for entry in added:
            print(
                f"stored entry #{entry.id}: {entry.model} ({entry.report.accuracy.overall.n} items)"
            )
    elif args.action in ("hide", "unhide"):
        entry, note = admin.hide(args.entry, args.action == "hide")
        print(f"entry #{entry.id} ({entry.model}): {args.action}")
    elif args.action == "delete":
        entry, note = admin.delete(args.entry)
        print(f"entry #{entry.id} ({entry.model}) deleted")
    elif args.action in ("flag", "unflag"):
        reason = args.reason if args.action == "flag" else ""
        if args.action == "flag" and not reason.strip():
            raise InputError("--reason: say why the entry is flagged")
        entry, note = admin.flag(args.entry, reason)
        print(f"entry #{entry.id} ({entry.model}): {'flagged' if reason else 'unflagged'}")
    elif args.action == "rescore":
        done, skipped, note = admin.rescore()
        print(
            f"re-scored {len(done)} entries"
            + (f"; no kept predictions: {skipped}" if skipped else "")
        )
    elif args.action == "items":
        if args.top is not None and args.top < 0:
            raise InputError(f"--top {args.top}: give a number of items, 0 or more")
        print(admin.items(args.output, args.top))
    elif args.action == "export":
        print(f"exported {admin.export(args.output)} entries to {args.output}")
    elif args.action == "details":
        print(
            admin.details(
                details_repo(config), dry_run=args.dry_run, board_url=args.board_url or ""
            )
        )
    if args.space_url and args.action not in ("list", "items", "export", "details"):
        note += notify_space(args.space_url, config.hub_token)
    if note:
        print(note.lstrip("; ").strip())
    return 0


def _record_choice(args: argparse.Namespace, token: str | None, syncer) -> str:
    """`admin record status|repush|accept`: on the running Space (--space-url), else on
    this copy (--repo)."""
    from .store.hub import HubUnavailable

    if args.space_url:
        if args.choice == "status":
            return "the Space's page says how its record stands"
        return notify_space(args.space_url, token, args.choice).lstrip("; ")
    if syncer is None:
        raise InputError("record: give --space-url (a running Space) or --repo (this copy)")
    status = syncer.status
    if args.choice == "status":
        return f"record: {status.state}" + (f" ({status.detail})" if status.detail else "")
    try:
        if args.choice == "repush":
            return f"re-pushed: {syncer.repush()} entry files committed into the record"
        return f"accepted the record: {syncer.accept_record().removed} entries removed here"
    except HubUnavailable as exc:
        raise InputError(f"record {args.choice}: {exc}") from None


def _run_requests(args: argparse.Namespace, config) -> int:
    """`admin requests list|reopen ID`: on the record's requests only (no database)."""
    import getpass

    from .admin import reopen_request, request_lines
    from .requests.ledger import RequestLedger
    from .store.hub import HubRepo, HubUnavailable

    if not config.mirror_repo:
        raise InputError("requests live in the record: give --repo (or $RESPONDEOQA_SPACE_MIRROR)")
    repo = HubRepo(config.mirror_repo, token=config.hub_token, endpoint=config.hub_endpoint)
    ledger = RequestLedger(repo)
    try:
        if args.request_action == "list":
            print("\n".join(request_lines(ledger)) or "no requests")
        else:
            actor = f"operator:{args.actor or getpass.getuser()}"
            print(reopen_request(ledger, args.request.strip(), actor))
    except HubUnavailable as exc:
        raise InputError(f"cannot read the record: {exc}") from None
    if args.space_url and args.request_action == "reopen":
        note = notify_space(args.space_url, config.hub_token)
        if note:
            print(note.lstrip("; ").strip())
    return 0


def run(args: argparse.Namespace) -> int:
    import os

    from .config import ENV_PORT, SpaceConfig

    # every setting checked before Gradio is imported (it reads $GRADIO_SERVER_PORT itself)
    config = SpaceConfig.from_env(
        data_dir=args.data_dir,
        db=args.db,
        host=args.host,
        port=args.port,
        mirror_repo=args.mirror or None,
    )
    config.check_host()
    os.environ[ENV_PORT] = str(config.port)
    try:
        from .service import Space
        from .web.app import launch
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in {"gradio", "pandas", "plotly", "cachetools"}:
            raise InputError(
                f"respondeoqa-space serve needs {exc.name}: pip install respondeoqa-space (or, in a "
                "checkout, pip install -e ./space)"
            ) from None
        raise

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    space = Space(config)  # the gold is loaded (or its absence reported) before the address
    print(f"RespondeoQA leaderboard on http://{config.host}:{config.port} (database {config.db})")
    launch(space)
    return 0


def serve() -> int:
    """The Hub Space's entry point (`space/app.py`): settings from the environment only; a bad
    setting is one line and exit status 2, like every command."""
    return main(["serve"])
