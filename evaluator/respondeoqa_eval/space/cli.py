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


def run(args: argparse.Namespace) -> int:
    try:
        from .app import launch
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
    print(f"RespondeoQA leaderboard on http://{config.host}:{config.port} (database {config.db})")
    launch(config)
    return 0
