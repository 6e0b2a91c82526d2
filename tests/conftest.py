"""Shared fixtures: the public upstream folder, its GoldSet, a local HTTP file server."""

from __future__ import annotations

import functools
import http.server
import os
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from synthetic import PUBLIC_DIR  # noqa: E402

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


@pytest.fixture(scope="session")
def public_dir() -> Path:
    """The public upstream files (read-only, from ../shared)."""
    assert PUBLIC_DIR.is_dir(), f"missing {PUBLIC_DIR}"
    return PUBLIC_DIR


@pytest.fixture(scope="session")
def public_gold(public_dir):
    from respondeoqa_eval.upstream import read_folder

    return read_folder(public_dir)


class FileServer:
    """A real HTTP server on 127.0.0.1 serving a folder; counts the requests it answers."""

    def __init__(self, folder: Path) -> None:
        self.requests: list[str] = []
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                server.requests.append(self.path)
                super().do_GET()

        handler = functools.partial(Handler, directory=str(folder))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def file_server():
    """Start a FileServer on a folder: `file_server(folder)`; stopped after the test."""
    servers: list[FileServer] = []

    def start(folder: Path) -> FileServer:
        servers.append(FileServer(folder))
        return servers[-1]

    yield start
    for s in servers:
        s.close()
