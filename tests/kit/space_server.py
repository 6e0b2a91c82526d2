"""The real leaderboard in a subprocess: `respondeoqa-space serve` on a free port, its output in
a log file that the leak tests search."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from kit.net import free_port


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
    """Start `respondeoqa-space serve` (or `cmd`) on a free port and wait until it answers."""
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
        "respondeoqa_space",
        "serve",
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
