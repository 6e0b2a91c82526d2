"""The fast loop's guard: a test that starts a process is marked `slow` (a pytest plugin that
tests/conftest.py installs).

The fast loop is `pytest -m "not slow"`: every test that runs in pytest's own process (scoring,
data, report, views, store, and the Space's service in-process). A test that starts a
process (a server, a CLI command, a browser, a pip install, a model engine), directly or
through a fixture, takes seconds and belongs to the full run: it must be marked `slow` (its
module's `pytestmark`, or the test). Python's audit events see every process start
(`subprocess.Popen`, `os.posix_spawn`, `os.fork`, ...); a test not marked `slow` that starts
one, in its body or in a fixture it sets up, fails and names the command. A session fixture
that started one (the Space server) is remembered, so a later unmarked test that uses it,
after a marked one set it up, fails too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator
from typing import Any

import pytest

MARK = "slow"
PROCESS_STARTS = frozenset(
    {"subprocess.Popen", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.exec",
     "os.system"}
)  # fmt: skip

PROBES = frozenset({"ldconfig", "uname", "gcc", "cc", "ld", "objdump"})
"""Programs libraries run once to look at the system, in whichever test first imports them
(ctypes' `find_library`: ldconfig, gcc, ld, objdump; `platform`: uname): not a test's own."""


def _program(event: str, args: tuple[Any, ...]) -> str:
    """The started program's file name (an audit event's arguments)."""
    if event in ("subprocess.Popen", "os.posix_spawn", "os.exec"):
        executable, argv = args[0], args[1]
        first = argv.split()[0] if isinstance(argv, str) and argv else (argv or [""])[0]
        return os.path.basename(os.fsdecode(executable or first))
    return ""


def _command(event: str, args: tuple[Any, ...]) -> str:
    """The started program and its arguments, short (an audit event's arguments)."""
    if event in ("subprocess.Popen", "os.posix_spawn", "os.exec"):
        shown = args[1]
    elif event == "os.spawn":
        shown = args[2]
    else:
        shown = args
    if isinstance(shown, (list, tuple)):
        shown = " ".join(str(a) for a in shown)
    return f"{event}: {str(shown)[:160]}"


class ProcessWatch:
    """Records process starts while a test not marked `slow` runs, and which fixtures start
    one whenever they are set up."""

    def __init__(self) -> None:
        self.watching = False  # the running test is not marked slow
        self.started: list[str] = []
        self.fixtures: list[str] = []  # the fixtures being set up now (innermost last)
        self.starting_fixtures: dict[str, str] = {}  # fixture -> a command it started

    def audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in PROCESS_STARTS or _program(event, args) in PROBES:
            return
        command = _command(event, args)
        for name in self.fixtures:
            self.starting_fixtures.setdefault(name, command)
        if self.watching:
            self.started.append(command)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.watching = item.get_closest_marker(MARK) is None
        self.started = []

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef) -> Generator[None, Any, Any]:
        self.fixtures.append(fixturedef.argname)
        try:
            return (yield)
        finally:
            self.fixtures.pop()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "teardown":
            self.watching = False
            return report
        if not self.watching or report.failed:
            return report
        used = sorted(set(getattr(item, "fixturenames", ())) & set(self.starting_fixtures))
        why = self.started or [f"fixture {n!r}: {self.starting_fixtures[n]}" for n in used]
        if why:
            report.outcome = "failed"
            report.longrepr = (
                f"starts a process but is not marked {MARK!r} (mark the test, or its module: "
                f'pytestmark = pytest.mark.{MARK}; the fast loop, pytest -m "not {MARK}", '
                "runs only what runs in its own process)\n  " + "\n  ".join(why)
            )
            self.started = []
        return report


def install(config: pytest.Config) -> None:
    """Watch this pytest process's tests (tests/conftest.py calls it at configure time)."""
    watch = ProcessWatch()
    sys.addaudithook(watch.audit)  # for the life of the process: hooks cannot be removed
    config.pluginmanager.register(watch, "respondeoqa-process-watch")
