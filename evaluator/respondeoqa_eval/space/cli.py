"""`respondeoqa-eval space`: start the leaderboard Space locally."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

from ..errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the `space` subcommand."""
    p = subparsers.add_parser(
        "space",
        help="start the leaderboard Space (Gradio) on http://127.0.0.1:7860",
        description=(
            "Start the leaderboard: SQLite store, public gold (plus the private files of "
            "--data-dir), the paper's rows. Needs the 'space' extra: pip install "
            "'respondeoqa-eval[space]'."
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
        help="SQLite file (default: $RESPONDEOQA_SPACE_DB, else space_data/leaderboard.sqlite3)",
    )
    p.add_argument("--port", type=int, help="default: $GRADIO_SERVER_PORT, else 7860")
    p.add_argument("--host", help="default: $GRADIO_SERVER_NAME, else 127.0.0.1")
    p.add_argument(
        "--mirror",
        default=None,
        help="Hub dataset repo id to mirror entries to (default: $RESPONDEOQA_SPACE_MIRROR; off)",
    )
    p.set_defaults(func=run)
    sub = p.add_subparsers(dest="space_command", metavar="{admin,bundle,deploy}")
    _register_admin(sub)
    from .bundle import register as register_bundle

    register_bundle(sub)


def _register_admin(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "admin",
        help="operator tools: list, add, hide, unhide, delete, rescore, export",
        description="Act on the leaderboard database (and push to its Hub repo when one is "
        "configured). Every action is written to the audit log.",
    )
    a.add_argument("--db", type=Path, default=None, help="default: $RESPONDEOQA_SPACE_DB")
    a.add_argument("--data-dir", type=Path, default=None, help="gold folder (add, rescore)")
    a.add_argument(
        "--repo",
        default=None,
        help="Hub dataset repo of record (default: $RESPONDEOQA_SPACE_MIRROR)",
    )
    a.add_argument("--actor", default=None, help="name written to the audit log (default: $USER)")
    acts = a.add_subparsers(dest="action", required=True)
    acts.add_parser("list", help="every entry, hidden ones included")
    add = acts.add_parser("add", help="score and store prediction files")
    add.add_argument("predictions", nargs="+", type=Path)
    add.add_argument("--model", default=None, help="default: each file's name")
    for name in ("hide", "unhide", "delete"):
        act = acts.add_parser(name, help=f"{name} an entry")
        act.add_argument("entry", type=int)
    acts.add_parser("rescore", help="re-score every entry with the current evaluator and gold")
    exp = acts.add_parser("export", help="every entry as JSONL")
    exp.add_argument("--output", type=Path, required=True)
    a.set_defaults(func=run_admin)


def run_admin(args: argparse.Namespace) -> int:
    """`respondeoqa-eval space admin ACTION`."""
    import getpass

    from ..gold import load_gold
    from .admin import Admin
    from .hub import HubRepo
    from .settings import SpaceConfig
    from .store import Store
    from .sync import Syncer

    config = SpaceConfig.from_env(db=args.db, data_dir=args.data_dir, mirror_repo=args.repo)
    store = Store(config.db)
    syncer = None
    if config.mirror_repo:
        repo = HubRepo(config.mirror_repo, token=config.hub_token, endpoint=config.hub_endpoint)
        syncer = Syncer(store, repo)
        # the repo is the record of truth: an operator's local copy first takes what it lacks
        syncer.safe_push()
        try:
            syncer.restore()
        except Exception as exc:  # network, token: one line, not a traceback
            raise InputError(f"cannot read {repo!r}: {type(exc).__name__}: {exc}") from None
    admin = Admin(
        store,
        lambda: load_gold(config.data_dir, with_public=True),
        actor=f"operator:{args.actor or getpass.getuser()}",
        syncer=syncer,
        bootstrap=config.bootstrap,
        min_coverage=config.min_coverage,
    )
    from .table import percent_text

    if args.action == "list":
        print("\n".join(admin.list()) or "no entries")
    elif args.action == "add":
        for entry in admin.add(args.predictions, args.model):
            shown = percent_text(entry.overall)
            print(f"stored entry #{entry.id}: {entry.model} ({shown})")
    elif args.action in ("hide", "unhide"):
        entry = admin.hide(args.entry, args.action == "hide")
        print(f"entry #{entry.id} ({entry.model}): {args.action}")
    elif args.action == "delete":
        entry = admin.delete(args.entry)
        print(f"entry #{entry.id} ({entry.model}) deleted")
    elif args.action == "rescore":
        done, skipped = admin.rescore()
        print(
            f"re-scored {len(done)} entries"
            + (f"; no kept predictions: {skipped}" if skipped else "")
        )
    elif args.action == "export":
        print(f"exported {admin.export(args.output)} entries to {args.output}")
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        from .app import launch
        from .service import Space
        from .settings import SpaceConfig
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in {"gradio", "pandas", "plotly"}:
            raise InputError(
                f"the space command needs {exc.name}: pip install 'respondeoqa-eval[space]'"
            ) from None
        raise
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    config = SpaceConfig.from_env(
        data_dir=args.data_dir,
        db=args.db,
        host=args.host,
        port=args.port,
        mirror_repo=args.mirror or None,
    )
    space = Space(config)  # loads the gold first: no address is printed for a Space that fails
    print(f"RespondeoQA leaderboard on http://{config.host}:{config.port} (database {config.db})")
    launch(space)
    return 0
