"""Fixtures for the Space tests: gold sets, report dicts, and a real server on a free port.

The server is the real CLI (`python -m respondeoqa_space serve`) in a subprocess, with the
synthetic private files plus the public ones as gold, so every end-to-end and browser test also
checks that private gold never reaches a response. Its stdout/stderr go to a log file that the
leak test searches.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ for `synthetic`
# (tests/conftest.py does this too, and provides `public_dir`, `public_gold`, `file_server`)

from kit.space_server import start_server
from respondeoqa_eval.data.gold import GoldSet, read_folder
from synthetic import write_private


@pytest.fixture(scope="session")
def private_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Synthetic private files plus a copy of the public ones (no download needed)."""
    return write_private(tmp_path_factory.mktemp("private-gold"), with_public=True)


@pytest.fixture(scope="session")
def private_gold(private_dir: Path) -> GoldSet:
    return read_folder(private_dir)


@pytest.fixture(scope="session")
def server(private_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """One real Space for the session: synthetic private + public gold, fresh SQLite file."""
    srv = start_server(private_dir, tmp_path_factory.mktemp("space-server"))
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium through playwright (a failure under CI=true when either is missing)."""
    from conftest import require, require_chromium
    from kit.browser import CHROMIUM, CHROMIUM_ARGS

    sync_api = require("playwright.sync_api")
    executable = require_chromium(CHROMIUM)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    folder = Path(os.environ.get("SCREENSHOT_DIR") or "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The loopback Hub stand-in (tests/kit/hubstub.py), with HF_ENDPOINT / HF_TOKEN pointing
    at it for code that reads them; huggingface_hub's own backoff between retries is skipped
    (its `time.sleep`), so an outage costs no wall-clock time in-process."""
    import types

    import huggingface_hub.constants
    import huggingface_hub.utils._http as hf_http
    from kit.hubstub import TOKEN, HubStub

    # the suite runs with HF_HUB_OFFLINE=1 (tests/conftest.py); these tests reach 127.0.0.1 only
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_http, "time", types.SimpleNamespace(sleep=lambda seconds: None))
    stub = HubStub(tmp_path / "hub", token=TOKEN).start()
    monkeypatch.setenv("HF_ENDPOINT", stub.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    yield stub
    stub.stop()


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random Llama and its tokenizer in a folder (tests/runner/tiny_model.py)."""
    from conftest import require

    require("torch")
    from runner.tiny_model import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"))


@pytest.fixture(scope="module")
def flagged_server(private_dir: Path, private_gold: GoldSet, tmp_path_factory):
    """A real Space whose item analysis flags a planted gold error, with its numbers without it
    made (tests/space/withoutkit.py)."""
    from .withoutkit import start_flagged

    flagged = start_flagged(private_dir, tmp_path_factory.mktemp("flagged-server"), private_gold)
    yield flagged
    flagged.server.stop()
