"""Fixtures for the Space tests: gold sets, report dicts, and a real server on a free port.

The server is the real CLI (`python -m respondeoqa_eval.cli space`) in a subprocess, with the
synthetic private files plus the public ones as gold, so every end-to-end and browser test also
checks that private gold never reaches a response. Its stdout/stderr go to a log file that the
leak test searches.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ for `synthetic`
# (tests/conftest.py does this too, and provides `public_dir`, `public_gold`, `file_server`)

from respondeoqa_eval.gold import GoldSet, read_folder  # noqa: E402
from synthetic import PUBLIC_DIR, SECRET_MARKER, write_private  # noqa: E402

__all__ = ["PUBLIC_DIR", "SECRET_MARKER"]


@pytest.fixture(scope="session")
def private_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Synthetic private files plus a copy of the public ones (no download needed)."""
    return write_private(tmp_path_factory.mktemp("private-gold"), with_public=True)


@pytest.fixture(scope="session")
def private_gold(private_dir: Path) -> GoldSet:
    return read_folder(private_dir)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    url: str
    db: Path
    log: Path
    proc: subprocess.Popen
    data_dir: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 30) -> None:
        """Terminate the server (a clean shutdown: pushes what waits), killing it if it hangs."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def start_server(
    data_dir: Path,
    workdir: Path,
    env_extra: dict[str, str] | None = None,
    cmd: list[str] | None = None,
) -> Server:
    """Start `respondeoqa-eval space` (or `cmd`) on a free port and wait until it answers."""
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "leaderboard.sqlite3"
    log = workdir / "server.log"
    env = dict(os.environ)
    env.update(
        {
            "GRADIO_ANALYTICS_ENABLED": "False",
            "RESPONDEOQA_SPACE_DAILY": "1000",
            "RESPONDEOQA_SPACE_ATTEMPTS": "1000",
            "RESPONDEOQA_SPACE_UPLOADS": "1000",
            "GRADIO_TEMP_DIR": str(workdir / "gradio-tmp"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(env_extra or {})
    env["GRADIO_SERVER_PORT"] = str(port)
    if cmd:
        cmd = [str(port) if part == "PORT" else part for part in cmd]
    cmd = cmd or [
        sys.executable,
        "-m",
        "respondeoqa_eval.cli",
        "space",
        "--data-dir",
        str(data_dir),
        "--db",
        str(db),
        "--port",
        str(port),
        "--host",
        "127.0.0.1",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=workdir, env=env)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(url + "gradio_api/info", timeout=2) as resp:
                if resp.status == 200:
                    return Server(url, db, log, proc, data_dir)
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"server did not start in 90 s:\n{log.read_text()}")


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

    from .helpers import CHROMIUM, CHROMIUM_ARGS

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
