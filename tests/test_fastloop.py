"""The fast loop's guard (tests/kit/fastloop.py): a test not marked slow that starts a process,
itself or through a fixture, fails and names the command; marked, it passes; a library's probe
of the system (ctypes' ldconfig) is not the test's. Each case runs pytest in a subprocess with
tests/conftest.py loaded as a plugin."""

from __future__ import annotations

from textwrap import dedent

import pytest
from test_no_silent_skips import run_suite

pytestmark = pytest.mark.slow

START = """
import subprocess, sys

import pytest


def start():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
"""
CASES = {
    "body": START + "\n\ndef test_x():\n    start()\n",
    "marked": START + "\n\n@pytest.mark.slow\ndef test_x():\n    start()\n",
    # a marked test sets the fixture up, an unmarked one uses it after
    "fixture": START
    + dedent("""

        @pytest.fixture(scope="session")
        def engine():
            start()


        @pytest.mark.slow
        def test_a_marked(engine):
            pass


        def test_b_unmarked(engine):
            pass
    """),
    "probe": "import ctypes.util\n\n\ndef test_x():\n    ctypes.util.find_library('rqa-none')\n",
}


def test_a_process_started_by_an_unmarked_test_fails_it(tmp_path):
    proc = run_suite(tmp_path, CASES, ci=None, report="-rfE")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    failed = sorted(
        line.split()[:2] for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))
    )
    # the fixture's user fails at its set-up (an error), the body's at its call
    assert failed == [
        ["ERROR", "test_fixture.py::test_b_unmarked"],
        ["FAILED", "test_body.py::test_x"],
    ], out
    assert out.count("starts a process but is not marked 'slow'") >= 2, out
    assert "fixture 'engine': subprocess.Popen: " in out, out
    assert "3 passed" in out, out  # the marked test, the fixture's marked user, the probe
