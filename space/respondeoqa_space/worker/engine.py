"""The serving engine a worker evaluates on: one it starts per request, or the operator's own.

- `ServeCommand`: the operator's `--serve-command` template, e.g. `vllm serve {model} --revision
  {revision} --tensor-parallel-size 4 --port {port}`. It is split like a shell would split it,
  then each placeholder is replaced inside its argument: the model id and commit come from a
  request (checked against the Hub's syntax when it was made) and never pass through a shell.
- `StartedEngine`: that command for one request, its output in a log file of the request's
  folder; ready once `GET /v1/models` answers; stopped (its whole process group) afterwards,
  and killed with the worker even on kill -9 (`procs.py`). The engine check's start may be
  kept up (`serve_model(keep=True)`) for a request on the same model and revision: one start
  serves both (a Job's worker checks the requested model itself).
- `Endpoint`: `--api-base URL`, an engine the operator runs (vLLM, TGI, an Inference Endpoint):
  it serves the models it lists, so the worker takes only requests for those.

An engine's name and version are asked of the engine (vLLM's `/version`, TGI's `/info`), else
read from the installed package that provides the command (`transformers serve`: transformers).
What goes wrong is an `EngineError` whose `reason` is plain words safe to publish (no engine
output: it may quote a prompt), and whose `side` is the operator's or the model's; the engine's
own words stay in its log for the operator (which is read for one thing only: out of memory).
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from respondeoqa_eval import InputError

from ..requests.model import Request
from . import procs

log = logging.getLogger(__name__)

PLACEHOLDERS = ("model", "revision", "port")
CHECK_MODEL = "HuggingFaceTB/SmolLM2-135M-Instruct"
"""The engine check's default reference model: small, public, served by every engine."""
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


OPERATOR, MODEL_SIDE = "operator", "model"


class EngineError(Exception):
    """The engine could not serve a request; `reason` is for the record, plain and public.
    `side` says whose fault it is: the operator's (the engine is missing, cannot start, runs
    out of GPU memory, never answers: the request goes back to the queue) or the model's (it
    does not load: the request fails)."""

    def __init__(self, reason: str, side: str = MODEL_SIDE) -> None:
        super().__init__(reason)
        self.reason = reason
        self.side = side


_OUT_OF_MEMORY = re.compile(
    rb"CUDA out of memory|OutOfMemoryError|out of memory|HIP out of memory|"
    rb"No available memory for the cache blocks|insufficient memory",
    re.IGNORECASE,
)


def out_of_memory(log_path: Path) -> bool:
    """Whether the engine's log (its last 256 KB) says it ran out of (GPU) memory."""
    try:
        with log_path.open("rb") as f:
            f.seek(max(0, log_path.stat().st_size - 256 * 1024))
            return _OUT_OF_MEMORY.search(f.read()) is not None
    except OSError:
        return False


@dataclass(frozen=True)
class Served:
    """A ready engine: where to send chat completions and under which model name."""

    api_base: str  # ".../v1"
    model: str  # the name the engine serves the model under
    engine: str
    version: str
    started: bool  # the worker started it at the request's revision (else: the operator's)


def _root(api_base: str) -> str:
    base = api_base.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _get_json(url: str, timeout: float = 10.0, headers: dict[str, str] | None = None) -> Any:
    import httpx

    try:
        resp = httpx.get(url, timeout=timeout, headers=headers or {})
    except httpx.HTTPError:
        return None
    if resp.status_code != 200:
        return None
    try:
        return resp.json()
    except ValueError:
        return None


def served_models(api_base: str, headers: dict[str, str] | None = None) -> list[str] | None:
    """The model ids an OpenAI-compatible server lists (None when it does not answer)."""
    data = _get_json(api_base.rstrip("/") + "/models", headers=headers)
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        return None
    return [str(m["id"]) for m in data["data"] if isinstance(m, dict) and m.get("id")]


def package_of(executable: str) -> tuple[str, str] | None:
    """(distribution, version) of the installed package whose console script is
    `executable` (by name), if any."""
    name = Path(executable).name
    for ep in metadata.entry_points(group="console_scripts"):
        if ep.name == name and ep.dist is not None:
            return ep.dist.metadata["Name"], ep.dist.version
    return None


def identify(
    api_base: str, executable: str | None = None, headers: dict[str, str] | None = None
) -> tuple[str, str]:
    """(engine, version) of a running engine: its own answer when it gives one, else the
    package of the command that started it; ("unknown", "") when nothing says."""
    root = _root(api_base)
    version = _get_json(root + "/version", headers=headers)  # vLLM
    if isinstance(version, dict) and isinstance(version.get("version"), str):
        return "vllm", version["version"][:40]
    info = _get_json(root + "/info", headers=headers)  # text-generation-inference
    if isinstance(info, dict) and isinstance(info.get("version"), str):
        return "text-generation-inference", info["version"][:40]
    if executable:
        found = package_of(executable)
        if found:
            return found[0].lower(), found[1]
        return Path(executable).name[:40], ""
    return "unknown", ""


class ServeCommand:
    """The operator's `--serve-command` template (see the module docstring)."""

    def __init__(self, template: str) -> None:
        try:
            parts = shlex.split(template)
        except ValueError as exc:
            raise InputError(f"--serve-command: cannot be split into words ({exc})") from None
        if not parts:
            raise InputError("--serve-command: empty")
        named = {m.group(1) for part in parts for m in _PLACEHOLDER.finditer(part)}
        unknown = sorted(named - set(PLACEHOLDERS))
        if unknown:
            raise InputError(
                f"--serve-command: unknown placeholder {{{unknown[0]}}}; the placeholders are "
                + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS)
            )
        for needed in PLACEHOLDERS:  # {revision}: the engine serves the exact commit asked for
            if needed not in named:
                raise InputError(f"--serve-command: needs {{{needed}}} (the worker fills it in)")
        self.template = template
        self.parts = parts

    @property
    def executable(self) -> str:
        return self.parts[0]

    def argv(self, model: str, revision: str, port: int) -> list[str]:
        values = {"model": model, "revision": revision, "port": str(port)}
        return [_PLACEHOLDER.sub(lambda m: values[m.group(1)], part) for part in self.parts]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class StartedEngine:
    """The serve command for one request (see the module docstring)."""

    def __init__(
        self,
        command: ServeCommand,
        *,
        timeout: float = 1800.0,
        poll: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        record: Path | None = None,
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.poll = poll
        self.clock = clock
        self.sleep = sleep
        self.record = record  # the work dir's engine.json (see procs.py)
        self.proc: subprocess.Popen | None = None
        self.log_path: Path | None = None
        self._kept: tuple[str, str, Served] | None = None  # (model, revision, served)

    def end_leftover(self) -> list[int]:
        """End the engine a dead worker of this work dir left (procs.end_leftover)."""
        return procs.end_leftover(self.record) if self.record is not None else []

    def accepts(self, request: Request) -> bool:
        return True  # it is started for whatever model the request names

    @contextmanager
    def serve(self, request: Request, folder: Path) -> Iterator[Served]:
        """The engine started for `request`, ready; stopped when the block ends. An engine the
        check kept up on the request's model at its revision serves it (one start); any other
        kept engine is stopped first."""
        kept = self._take_kept(request.model, request.revision)
        if kept is None:
            yield from self._serve(request.model, request.revision, folder)
            return
        try:
            yield kept
        finally:
            self.stop()

    @contextmanager
    def serve_model(
        self, model: str, revision: str, folder: Path, *, keep: bool = False
    ) -> Iterator[Served]:
        """The engine started for `model` at `revision` (the engine check's model); with
        `keep`, left running when the block ends without an error, for a request on that
        model at that revision (`serve`); `stop` ends it otherwise."""
        yield from self._serve(model, revision, folder, keep=keep)

    def _take_kept(self, model: str, revision: str) -> Served | None:
        """The kept engine when it serves `model` at `revision` and still answers; else None,
        any kept engine stopped."""
        kept, self._kept = self._kept, None
        if kept is None:
            return None
        if kept[:2] == (model, revision) and self.exit_status() is None:
            if served_models(kept[2].api_base) is not None:
                log.info("the engine of the check serves the request (log %s)", self.log_path)
                return kept[2]
        log.info("the engine of the check is not this request's: stopping it")
        self.stop()
        return None

    def _serve(
        self, model: str, revision: str, folder: Path, *, keep: bool = False
    ) -> Iterator[Served]:
        port = free_port()
        argv = self.command.argv(model, revision, port)
        self.log_path = log_path = folder / "engine.log"
        log.info("starting the engine: %s (log %s)", shlex.join(argv), log_path)
        self.end_leftover()  # never two engines on one GPU
        try:
            with log_path.open("ab") as out:
                self.proc = subprocess.Popen(
                    argv,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,  # its own process group: stopped as a whole
                    preexec_fn=procs.die_with_parent(os.getpid()),  # and killed with us
                )
        except OSError as exc:
            raise EngineError(
                f"the engine command could not be started ({type(exc).__name__}); the "
                "operator has to fix --serve-command",
                OPERATOR,
            ) from None
        kept = False
        try:
            if self.record is not None:
                procs.record_engine(self.record, self.proc.pid)
            api_base = f"http://127.0.0.1:{port}/v1"
            names = self._wait(api_base)
            name = names[0] if len(names) == 1 else model
            engine, version = identify(api_base, self.command.executable)
            log.info("engine ready: %s %s serving %s", engine, version or "?", name)
            served = Served(api_base, name, engine, version, started=True)
            yield served
            if keep:
                self._kept, kept = (model, revision, served), True
        finally:
            if not kept:
                self.stop()

    def _wait(self, api_base: str) -> list[str]:
        deadline = self.clock() + self.timeout
        while True:
            status = self.exit_status()
            if status is not None:
                if self.log_path is not None and out_of_memory(self.log_path):
                    raise EngineError(
                        f"the engine ran out of memory while starting (exit status {status}); "
                        "the operator's GPUs are too small or busy",
                        OPERATOR,
                    )
                raise EngineError(
                    f"the engine exited with status {status} before it answered: the model may "
                    "not fit the operator's GPUs, or not load with this engine (the operator "
                    "has the engine's log)"
                )
            names = served_models(api_base)
            if names is not None:
                return names
            if self.clock() >= deadline:
                raise EngineError(
                    f"the engine did not answer within {self.timeout:,.0f} seconds of starting "
                    "(the operator has the engine's log)",
                    OPERATOR,
                )
            self.sleep(self.poll)

    def exit_status(self) -> int | None:
        return None if self.proc is None else self.proc.poll()

    def stop(self) -> None:
        """Stop the engine's whole process group (what its leader left too): SIGTERM, then
        SIGKILL after 60 s; at once when the worker is interrupted meanwhile."""
        proc, self.proc = self.proc, None
        self._kept = None
        if proc is None:
            return
        try:
            procs.end_group(proc.pid, grace=60.0, reap=proc.poll)
        except BaseException:  # Ctrl-C while waiting: nothing of it may stay
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            raise
        finally:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=30)
            if self.record is not None:
                self.record.unlink(missing_ok=True)
        log.info("engine stopped")


class Endpoint:
    """The operator's own engine at `--api-base` (see the module docstring)."""

    def __init__(self, api_base: str, api_key: str | None = None) -> None:
        self.api_base = api_base.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        names = served_models(self.api_base, headers)
        if names is None:
            raise InputError(
                f"--api-base {api_base}: no answer from {self.api_base}/models (an "
                "OpenAI-compatible server lists its models there)"
            )
        if not names:
            raise InputError(f"--api-base {api_base}: the server lists no model")
        self.names = names
        self.engine, self.version = identify(self.api_base, headers=headers)

    def _name_for(self, request: Request) -> str | None:
        for name in self.names:
            base = name.split("@", 1)[0].lower()
            if request.model.lower() in (name.lower(), base):
                return name
        return None

    def accepts(self, request: Request) -> bool:
        """Only requests for a model this endpoint serves."""
        return self._name_for(request) is not None

    def exit_status(self) -> int | None:
        return None  # not ours to watch

    @contextmanager
    def serve(self, request: Request, folder: Path) -> Iterator[Served]:
        name = self._name_for(request)
        if name is None:
            raise EngineError(f"the operator's endpoint does not serve {request.model}", OPERATOR)
        yield Served(self.api_base, name, self.engine, self.version, started=False)
