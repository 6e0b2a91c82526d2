"""Shared fixtures: the public upstream folder, its GoldSet, a local HTTP file server; and the
one way a test may give up for lack of a package or a browser (`require`, `require_chromium`).

The public files are found at start-up (`synthetic.public_dir`: `$RESPONDEOQA_DATA_DIR`, else
the sibling `../shared/upstream/final_dataset`, else the pinned download); without them the run
stops with one line saying what to set. `$RESPONDEOQA_DATA_DIR` is then removed from the
environment, so that no test (nor any process it starts) reads it by accident.
"""

from __future__ import annotations

import functools
import http.server
import importlib
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# benchmarks/planted_gold.py: the planted-error simulation, run one seed at a time here
sys.path.insert(1, str(Path(__file__).parents[1] / "benchmarks"))

import synthetic
from kit import fastloop
from respondeoqa_eval.data.datadir import ENV_DATA_DIR, NoData
from respondeoqa_eval.errors import InputError

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


# Under CI every test must run: a missing package or browser is a failure there, never a skip.
CI = os.environ.get("CI") == "true"


def unavailable(reason: str) -> NoReturn:
    """Skip the calling test (or module) for `reason`; under CI=true fail it instead."""
    if CI:
        pytest.fail(f"{reason} (CI=true: required, not skipped)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require(module: str) -> ModuleType:
    """Import `module`, or give up through `unavailable` (fails under CI=true)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        unavailable(f"{module} is not importable ({exc})")


def require_chromium(path: str | Path) -> Path:
    """The browser executable at `path`, or give up through `unavailable`."""
    path = Path(path)
    if not (path.is_file() and os.access(path, os.X_OK)):
        unavailable(f"no browser at {path} (Debian: apt-get install chromium)")
    return path


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float = 300,
    module: str = "respondeoqa_eval.cli",
) -> subprocess.CompletedProcess:
    """`respondeoqa-eval ARGS...` (or `python -m MODULE ARGS...`: `respondeoqa_space` is the
    Space's command) in a new process of this Python, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
    )


def pytest_configure(config: pytest.Config) -> None:
    """Find the public files before anything is collected; one line if they cannot be had."""
    try:
        synthetic.public_dir()
    except NoData as exc:  # the variable is the one way to name a folder for the suite
        raise pytest.UsageError(exc.said_as(None)) from None
    except InputError as exc:
        raise pytest.UsageError(str(exc)) from None
    os.environ.pop(ENV_DATA_DIR, None)
    fastloop.install(config)  # a test that starts a process must be marked slow


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (.ci/run: `-n auto --dist loadgroup`) a module's tests run on one
    worker, so its module fixtures are made once; modules that share a costly session fixture
    name one group (`pytest.mark.xdist_group`: the wheel's venv)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Safety net under CI=true: any skip (however it was raised) fails the run."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if not (CI and skipped):
        return
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        print(f"\nCI=true: skipped {report.nodeid}: {reason}", file=sys.stderr)
    if exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def public_dir() -> Path:
    """The six public upstream files, verified (read-only)."""
    return synthetic.public_dir()


@pytest.fixture(scope="session")
def public_gold(public_dir):
    from respondeoqa_eval.data.gold import read_folder

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


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The package's wheel, built once per session from a copy of the source (tests/wheelkit.py)."""
    import wheelkit

    return wheelkit.build_wheel(
        tmp_path_factory.mktemp("wheel-src"), tmp_path_factory.mktemp("dist")
    )


@pytest.fixture(scope="session")
def space_wheel(tmp_path_factory) -> Path:
    """The Space's wheel (space/pyproject.toml), built once per session (tests/wheelkit.py)."""
    import wheelkit

    return wheelkit.build_space_wheel(
        tmp_path_factory.mktemp("space-wheel-src"), tmp_path_factory.mktemp("space-dist")
    )


@pytest.fixture(scope="session")
def venv(wheel, space_wheel, tmp_path_factory) -> Path:
    """One fresh venv per session (no system site-packages) with the evaluator's wheel and its
    dataset extra, and the Space's wheel; the wheel smoke test and the Space deploy test both
    run in it."""
    import wheelkit

    return wheelkit.make_venv(tmp_path_factory.mktemp("venv") / "env", wheel, space_wheel)


@pytest.fixture(scope="session")
def core_venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv with the evaluator's wheel alone (no extra, no Space, so no gradio): what a
    researcher installs to score a file."""
    import wheelkit

    return wheelkit.make_venv(tmp_path_factory.mktemp("core-venv") / "env", wheel, extras="")
