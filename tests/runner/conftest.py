"""Shared fixtures for the runner tests: the repo root on sys.path, the public data folder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # `tests.synthetic` and `tests.runner.tiny_model`

from tests.synthetic import PUBLIC_DIR  # noqa: E402


@pytest.fixture(scope="session")
def public_dir() -> Path:
    if not PUBLIC_DIR.is_dir():
        pytest.skip(f"public upstream files not found at {PUBLIC_DIR}")
    return PUBLIC_DIR
