"""Venvs of other tools' own pins (lighteval, every-eval-ever), kept between test runs.

Making one is a pip install of a minute or more, so .ci/run makes them with the suite's other
packages (`python tests/harness/lightevalkit.py DIR`, `python tests/harness/eeekit.py DIR`) and
names each in a variable; a test session reuses the venv it names while that venv was made for
this checkout as it is (`kept_venv`), and makes its own when the variable is unset (a test run
alone).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _stamp(folder: Path, pins: list[str]) -> str:
    """What a kept venv was made for: its place (a venv does not move), its pins, this checkout
    (some install it editable) and its pyproject.toml as it is, this Python."""
    pyproject = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    return json.dumps([str(folder), pins, str(REPO), pyproject, sys.version])


def kept_venv(folder: Path, pins: list[str], make: Callable[[Path], Path]) -> Path:
    """The venv at `folder`, reused when it was made for `pins` and this checkout as it is
    (`_stamp`), else made anew there by `make(folder)`; returns its python. One process at a
    time (a lock file beside it: parallel test workers share it)."""
    stamp = folder / "respondeoqa-stamp.json"
    python = folder / "bin" / "python"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.with_name(folder.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if python.exists() and stamp.exists() and stamp.read_text("utf-8") == _stamp(folder, pins):
            return python
        if folder.exists():
            shutil.rmtree(folder)
        python = make(folder)
        stamp.write_text(_stamp(folder, pins), encoding="utf-8")
    return python


def session_venv(
    variable: str, pins: list[str], make: Callable[[Path], Path], scratch: Path
) -> Path:
    """A test session's venv: the kept one `$variable` names (made there if it is missing or
    stale), else one made in `scratch` for this session; returns its python."""
    kept = os.environ.get(variable)
    if kept:
        return kept_venv(Path(kept), pins, make)
    return make(scratch)
