"""`respondeoqa-eval`: one command, a subcommand per job.

Each area registers its own subcommands (`register(subparsers)` in its `cli` module; the core's
are `score.py` and `items.py` here) and sets `func(args) -> int`; a command imports only its own
area (`AREAS`), so `score` never loads the runner's or the harnesses' modules. The leaderboard
Space has its own command, `respondeoqa-space` (`MOVED`).
Every `InputError` becomes one line on stderr and exit status 2 (a `NoData` one ends with
`--data-dir DIR` as the way to pass a folder). `python -m respondeoqa_eval.cli` runs it too
(`__main__.py`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn

from .. import __version__
from ..data.datadir import CLI_OPTION
from ..errors import run_command

AREAS: dict[str, tuple[str, ...]] = {
    "respondeoqa_eval.cli.score": ("score", "example"),
    "respondeoqa_eval.cli.items": ("items",),
    "respondeoqa_eval.dataset.cli": ("dataset",),
    "respondeoqa_eval.runner.cli": ("prompts", "run"),
    "respondeoqa_eval.harness.cli": ("harness",),
}
"""Area modules that add subcommands, and the commands each adds (a test keeps the two in
step). An area whose optional extra is not installed still registers, and says which extra
to install when its command is run."""


MOVED: dict[str, str] = {
    "space": "respondeoqa-space serve|admin|worker|dispatch|deploy (pip install -e ./space)",
}
"""Former commands, answered for one release with the command that replaced them (CHANGELOG)."""


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line (`--help` shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _command(argv: list[str]) -> str | None:
    """The command `argv` names: its first argument that is not an option (the top level's
    options, --help and --version, take no value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or, for a known `command`, of its area's commands only."""
    parser = _Parser(
        prog="respondeoqa-eval",
        description="Score, build, serve and run the RespondeoQA Latin-English QA benchmark.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    known = any(command in commands for commands in AREAS.values())
    for name, commands in AREAS.items():
        if known and command not in commands:
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("respondeoqa_eval"):
                continue  # area not built yet
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = _command(argv)
    if command in MOVED:
        print(
            f"respondeoqa-eval: '{command}' moved to its own command: {MOVED[command]}",
            file=sys.stderr,
        )
        return 2
    parser = build_parser(command)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return run_command(args.func, args, prog="respondeoqa-eval", option=CLI_OPTION)
