"""Servers on loopback: a free port, waiting until one answers, stopping it."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_http(
    url: str, proc: subprocess.Popen, log: Callable[[], str], *, tries: int = 240
) -> tuple[int, str]:
    """Poll `url` until it answers (at most about `tries` / 2 seconds); its status and body.
    Fails with the server log when the process exits or never answers."""
    for _ in range(tries):
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}:\n{log()}")
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                return resp.status, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            return exc.code, ""
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.5)
    raise AssertionError(f"no answer from {url}:\n{log()}")


def stop(proc: subprocess.Popen) -> None:
    """Terminate a server process (kill it if it does not leave within 15 s)."""
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)
