"""Under CI=true a missing package or browser fails the run; locally it is a visible skip.

Each case runs pytest in a subprocess on a tiny test file, with tests/conftest.py loaded as a
plugin, and looks at the exit status.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parent

CASES = {
    "module": 'from conftest import require\nrequire("no_such_module_respondeoqa")\n\n'
    "def test_x():\n    pass\n",
    "browser": "from conftest import require_chromium\n\n"
    'def test_x():\n    require_chromium("/nonexistent/chromium")\n',
    # a skip that bypasses the helpers is still caught by the session-end check
    "bare": "import pytest\n\ndef test_x():\n    pytest.skip('no reason')\n",
}


def run_cases(tmp_path: Path, names: list[str], ci: str | None) -> subprocess.CompletedProcess:
    return run_suite(tmp_path, {name: CASES[name] for name in names}, ci)


def run_suite(
    tmp_path: Path, cases: dict[str, str], ci: str | None, report: str = "-rs"
) -> subprocess.CompletedProcess:
    """pytest in a subprocess on `cases` (name -> a test file's text), with tests/conftest.py
    loaded as a plugin, CI=`ci` (unset: None), its summary lines `report`."""
    for name, text in cases.items():
        (tmp_path / f"test_{name}.py").write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            report,
            "-p",
            "no:cacheprovider",
            "-p",
            "conftest",
            "--continue-on-collection-errors",
            "--rootdir",
            str(tmp_path),
            "-c",
            os.devnull,
            *(str(tmp_path / f"test_{name}.py") for name in cases),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def test_skips_locally(tmp_path):
    proc = run_cases(tmp_path, sorted(CASES), ci=None)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 skipped" in proc.stdout


def test_missing_module_or_browser_fails_under_ci(tmp_path):
    proc = run_cases(tmp_path, ["module", "browser"], ci="true")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "1 failed, 1 error in" in out
    assert out.count("CI=true: required, not skipped") == 2


def test_any_other_skip_fails_under_ci(tmp_path):
    proc = run_cases(tmp_path, ["bare"], ci="true")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "CI=true: skipped" in out and "no reason" in out
