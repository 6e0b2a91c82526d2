"""`respondeoqa-eval space`: start the leaderboard; `space admin`: the operator's tools;
`space worker` (worker/cli.py): the operator's evaluation worker; `space dispatch`
(jobs/cli.py): the requests on Hugging Face Jobs; `space bundle` / `space
deploy` (deploy/bundle.py): the Hub Space repository."""

from __future__ import annotations

import argparse
import logging
import urllib.error
import urllib.request
from pathlib import Path

from ..errors import InputError
from .rows import parse_entry_id


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `space` subcommand."""
    p = subparsers.add_parser(
        "space",
        help="start the leaderboard Space (Gradio) on http://127.0.0.1:7860",
        description=(
            "Start the leaderboard: SQLite store, public gold (plus the private files of "
            "--data-dir), the paper's rows. Needs the 'space' extra: pip install "
            "'respondeoqa-eval[space]'. Every setting is also an environment variable "
            "(README, 'Leaderboard Space')."
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
    sub = p.add_subparsers(dest="space_command", metavar="{admin,worker,dispatch,bundle,deploy}")
    _register_admin(sub)
    from .deploy.bundle import register as register_bundle
    from .jobs.cli import register as register_dispatch
    from .worker.cli import register as register_worker

    register_worker(sub)
    register_dispatch(sub)
    register_bundle(sub)


def _entry_number(text: str) -> int:
    number = parse_entry_id(text)
    if number is None:
        raise argparse.ArgumentTypeError(f"not an entry number: {text[:40]!r}")
    return number


def _register_admin(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "admin",
        help="operator tools: list, add, hide, unhide, flag, unflag, delete, rescore, items, "
        "export",
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
    a.set_defaults(func=run_admin)


def _notify(url: str, token: str | None) -> str:
    """Ask a running Space to read its record now; a note on how it went."""
    if not token:
        return "; --space-url needs $HF_TOKEN (the Space's own token)"
    request = urllib.request.Request(
        url.rstrip("/") + "/record/pull", method="POST", headers={"X-Record-Token": token}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return "; the Space reads the record now" if resp.status == 202 else ""
    except (urllib.error.URLError, OSError) as exc:
        return f"; the Space did not take the request ({exc}); it reads the record within a minute"


def run_admin(args: argparse.Namespace) -> int:
    """`respondeoqa-eval space admin ACTION`."""
    import getpass

    from .admin import Admin
    from .config import SpaceConfig
    from .service import _gold_of
    from .store import Store
    from .store.hub import HubRepo, HubUnavailable
    from .store.sync import Syncer
    from .submission import Intake

    config = SpaceConfig.from_env(db=args.db, data_dir=args.data_dir, mirror_repo=args.repo)
    if not config.db.exists() and not (args.create or config.mirror_repo):
        raise InputError(
            f"--db {config.db}: no such database (a typo?); add --create to make a new one, "
            "or --repo to make it from the record"
        )
    store = Store(config.db)

    def make_intake() -> Intake:
        return Intake(
            store,
            _gold_of(config),
            limits=config.limits,
            bootstrap=config.bootstrap,
            min_coverage=config.min_coverage,
        )

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
        except HubUnavailable as exc:
            raise InputError(f"cannot read the record: {exc}") from None
    note = ""
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
    if args.space_url and args.action not in ("list", "items", "export"):
        note += _notify(args.space_url, config.hub_token)
    if note:
        print(note.lstrip("; ").strip())
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        from .service import Space
        from .web.app import launch
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in {"gradio", "pandas", "plotly", "cachetools"}:
            raise InputError(
                f"the space command needs {exc.name}: pip install 'respondeoqa-eval[space]'"
            ) from None
        raise
    from .config import SpaceConfig

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    config = SpaceConfig.from_env(
        data_dir=args.data_dir,
        db=args.db,
        host=args.host,
        port=args.port,
        mirror_repo=args.mirror or None,
    )
    space = Space(config)  # the gold is loaded (or its absence reported) before the address
    print(f"RespondeoQA leaderboard on http://{config.host}:{config.port} (database {config.db})")
    launch(space)
    return 0


def serve() -> int:
    """The Hub Space's entry point (`space/app.py`): settings from the environment only; a bad
    setting is one line and exit status 2, like every command."""
    from ..cli import main

    return main(["space"])
