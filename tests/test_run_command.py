"""`respondeoqa_eval.run_command`, which both command lines (`respondeoqa-eval`,
`respondeoqa-space`) run their commands through: a status, and one line for what a user can fix."""

from __future__ import annotations

import pytest
from respondeoqa_eval import InputError, run_command
from respondeoqa_eval.data import NoData


def _raise(exc: BaseException):
    def command(args: object) -> int:
        raise exc

    return command


def test_a_command_gives_its_status() -> None:
    assert run_command(lambda args: None, object(), prog="p", option="--d") == 0
    assert run_command(lambda args: 3, object(), prog="p", option="--d") == 3


def test_input_errors_and_interrupts_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_command(_raise(InputError("bad thing")), None, prog="tool", option="--d") == 2
    assert capsys.readouterr().err == "tool: error: bad thing\n"
    status = run_command(_raise(NoData("no files here")), None, prog="tool", option="--data X")
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("tool: error: no files here") and "--data X" in err
    assert err.count("\n") == 1
    assert run_command(_raise(KeyboardInterrupt()), None, prog="tool", option="--d") == 130
    assert capsys.readouterr().err == "tool: interrupted\n"


def test_other_errors_are_not_hidden() -> None:
    with pytest.raises(ZeroDivisionError):
        run_command(_raise(ZeroDivisionError()), None, prog="tool", option="--d")
