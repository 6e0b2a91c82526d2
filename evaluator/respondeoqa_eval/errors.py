"""Errors that a user can fix: the CLI prints them as one message and exits with status 2."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any


class InputError(Exception):
    """Bad input (gold folder, predictions file, option). The message names the problem.

    Messages never quote gold answers: they name files, line numbers, ids and fields.
    """

    def said_as(self, option: str | None) -> str:
        """The one-line message as a front end whose way to pass a data folder is `option`
        says it (the same message here; `NoData` names the option)."""
        return str(self)


def run_command(command: Callable[[Any], Any], args: Any, *, prog: str, option: str) -> int:
    """`command(args)` as a command line runs it: its exit status; an InputError is one line
    on stderr, `prog: error: ...` (status 2, `option`: how this command takes a data folder),
    Ctrl-C one line (130), output piped into a reader that closed early (`| head`) nothing."""
    try:
        return int(command(args) or 0)
    except InputError as exc:
        print(f"{prog}: error: {exc.said_as(option)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # output piped into e.g. `head`, which closed early: not an error worth a traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


class ChecksumError(InputError):
    """A downloaded or cached upstream file does not match its pinned sha256."""
