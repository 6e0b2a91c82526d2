"""`respondeoqa-eval`: one command, a subcommand per job.

Each area registers its own subcommands (`register(subparsers)` in its `cli` module; the core's
are `score.py` and `items.py` here) and sets `func(args) -> int`. Every `InputError` becomes one
line on stderr and exit status 2 (a `NoData` one ends with `--data-dir DIR` as the way to pass a
folder). `python -m respondeoqa_eval.cli` runs it too (`__main__.py`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NoReturn

from .. import __version__
from ..data.datadir import CLI_OPTION, NoData
from ..errors import InputError

# area modules that add subcommands; an area whose optional extra is not installed still
# registers, and says which extra to install when its command is run
AREAS = (
    "respondeoqa_eval.cli.score",
    "respondeoqa_eval.cli.items",
    "respondeoqa_eval.dataset.cli",
    "respondeoqa_eval.space.cli",
    "respondeoqa_eval.runner.cli",
    "respondeoqa_eval.harness.cli",
)


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line (`--help` shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="respondeoqa-eval",
        description="Score, build, serve and run the RespondeoQA Latin-English QA benchmark.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in AREAS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("respondeoqa_eval"):
                continue  # area not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except NoData as exc:
        print(f"respondeoqa-eval: error: {exc.said_as(CLI_OPTION)}", file=sys.stderr)
        return 2
    except InputError as exc:
        print(f"respondeoqa-eval: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("respondeoqa-eval: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # output piped into e.g. `head`, which closed early: not an error worth a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
