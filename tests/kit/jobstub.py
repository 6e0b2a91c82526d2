"""A loopback stand-in for Hugging Face Jobs: the endpoints `huggingface_hub.HfApi` calls for
`run_job` (POST /api/jobs/{namespace}), `inspect_job` (GET .../{id}), `list_jobs` (GET
/api/jobs/{namespace}, filtered by `label=k=v` and `stage`), `fetch_job_logs` (GET .../{id}/logs,
server-sent events) and `cancel_job` (POST .../{id}/cancel). It is mounted in the Hub stand-in
(`HubStub(jobs=JobStub(...))`): one endpoint, as on the Hub.

A Job's command runs as a local process, in its own folder (the container's working directory)
and process group, with the Job's environment and secrets as variables and nothing else of the
test's environment but PATH, PYTHONPATH and a private HF_HOME. The image maps to a folder of
executables put first on PATH (how the pinned vLLM image is stood in for):

- `pip`: the package under test is installed already; it only prints what it was asked;
- `respondeoqa-space`: this checkout's Space command, through the test's interpreter;
- `vllm`: checks `vllm serve MODEL --revision R --tensor-parallel-size N --port P` (N must be
  the flavor's GPU count), then runs the engine the test picked for the flavor (`engines`):
  `transformers` (`transformers serve MODEL@R` on the CPU: a real server on the tiny model),
  `hang` (lists the model, never answers an item: a run in progress, however slow the
  machine), `oom` (prints PyTorch's CUDA out-of-memory error and exits 1, as vLLM does).

It fails the way the Hub's Jobs do: `kill` (the machine under the Job dies: SIGKILL, stage
ERROR), `timeout_now` (the Job reaches its timeout: stopped, stage ERROR "Job timeout", its
running time the timeout), a cancelled Job stops (SIGTERM, then SIGKILL after 10 s: CANCELED),
`hold` keeps new Jobs SCHEDULING (no process) until `release_all`, and a flavor not on
huggingface_hub's list, a missing image or command is HTTP 400.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from huggingface_hub import JobHardware

GPUS = {"l4x1": 1, "l4x4": 4, "a100-large": 1, "a100x4": 4, "h200": 1, "h200x2": 2, "h200x4": 4}
IMAGE = "vllm/vllm-openai:v0.11.0"

PIP = '#!/bin/sh\necho "stand-in pip (the package under test is installed): $*"\n'
VLLM = textwrap.dedent(
    """\
    import http.server, json, os, sys, threading
    GPUS = {gpus!r}
    args = sys.argv[1:]
    if args[:1] != ["serve"] or len(args) != 8 or args[2::2] != [
        "--revision", "--tensor-parallel-size", "--port"
    ]:
        sys.exit(f"stand-in vllm: unexpected arguments {{args}}")
    model, revision, tp, port = args[1], args[3], int(args[5]), int(args[7])
    flavor = os.environ["RESPONDEOQA_JOB_FLAVOR"]
    if tp != GPUS[flavor]:
        sys.exit(f"stand-in vllm: --tensor-parallel-size {{tp}} on {{flavor}} ({{GPUS[flavor]}} GPUs)")
    engine = os.environ.get("JOBSTUB_ENGINE", "transformers")
    if engine == "oom":
        print("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", flush=True)
        sys.exit(1)
    if engine == "transformers":
        os.execvp("transformers", ["transformers", "serve", f"{{model}}@{{revision}}",
                  "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"])
    class Hang(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            body = json.dumps({{"object": "list", "data": [{{"id": model}}]}}).encode()
            self.send_response(200); self.send_header("Content-Length", str(len(body)))
            self.end_headers(); self.wfile.write(body)
        def do_POST(self):
            threading.Event().wait()
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Hang).serve_forever()
    """
)


def container_pids(job_id: str) -> list[int]:
    """The processes a Job started, its engine included (by their JOBSTUB_JOB variable)."""
    mark = f"JOBSTUB_JOB={job_id}".encode()
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if mark in (proc / "environ").read_bytes().split(b"\0"):
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return datetime.fromtimestamp(t, timezone.utc).isoformat().replace("+00:00", "Z")


@dataclass
class Job:
    id: str
    namespace: str
    spec: dict[str, Any]
    folder: Path
    created: float
    stage: str = "SCHEDULING"
    message: str | None = None
    started: float | None = None
    finished: float | None = None
    running_secs: float | None = None  # set by timeout_now
    proc: subprocess.Popen | None = None
    ending: str | None = None  # the stage a stop the stub made ends in

    @property
    def log(self) -> Path:
        return self.folder / "job.log"

    def info(self, now: float) -> dict[str, Any]:
        running = self.running_secs
        if running is None and self.started is not None:
            running = int((self.finished or now) - self.started)
        return {
            "id": self.id,
            "createdAt": _iso(self.created),
            "startedAt": _iso(self.started),
            "finishedAt": _iso(self.finished),
            "dockerImage": self.spec.get("dockerImage"),
            "command": self.spec.get("command"),
            "arguments": self.spec.get("arguments"),
            "environment": self.spec.get("environment"),
            "secrets": sorted(self.spec.get("secrets") or {}),  # names only, as the Hub
            "flavor": self.spec.get("flavor"),
            "labels": self.spec.get("labels"),
            "owner": {"id": "0" * 24, "name": self.namespace, "type": "user"},
            "status": {"stage": self.stage, "message": self.message},
            "durations": {
                "schedulingSecs": int((self.started or now) - self.created),
                "runningSecs": None if running is None else int(running),
                "totalSecs": int((self.finished or now) - self.created),
            },
        }


@dataclass
class JobStub:
    root: Path
    engines: dict[str, str] = field(default_factory=dict)  # flavor -> vllm stand-in's engine
    engine: str = "transformers"  # for the other flavors
    hold: bool = False  # new Jobs stay SCHEDULING until release_all
    jobs: dict[str, Job] = field(default_factory=dict)
    created: list[dict] = field(default_factory=list)  # every accepted spec, in order

    def __post_init__(self) -> None:
        self.bin = self.root / "image-bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        for name, text in (
            ("pip", PIP),
            (
                "respondeoqa-space",
                f'#!/bin/sh\nexec "{sys.executable}" -m respondeoqa_space "$@"\n',
            ),
            ("vllm", f"#!{sys.executable}\n" + VLLM.format(gpus=GPUS)),
        ):
            path = self.bin / name
            path.write_text(text, encoding="utf-8")
            path.chmod(0o755)
        self._lock = threading.Lock()

    # -- faults --------------------------------------------------------------------------

    def kill(self, job_id: str) -> None:
        """The machine under the Job dies: SIGKILL to its processes; the Hub says ERROR."""
        self._stop(self.jobs[job_id], signal.SIGKILL, "ERROR", "Job failed: the node was lost")

    def timeout_now(self, job_id: str) -> None:
        """The Job reaches its timeout now (its running time is its timeout)."""
        job = self.jobs[job_id]
        job.running_secs = float(job.spec.get("timeoutSeconds") or 1800)
        self._stop(job, signal.SIGKILL, "ERROR", "Job timeout")

    def release_all(self) -> None:
        self.hold = False
        for job in list(self.jobs.values()):
            if job.stage == "SCHEDULING":
                self._start(job)

    def wait(self, job_id: str, timeout: float = 600) -> Job:
        """Until the Job has ended (at most `timeout` seconds)."""
        job = self.jobs[job_id]
        deadline = time.monotonic() + timeout
        while job.finished is None:
            assert time.monotonic() < deadline, (
                f"Job {job_id} did not end:\n{self.log_text(job_id)}"
            )
            time.sleep(0.2)
        return job

    def log_text(self, job_id: str) -> str:
        path = self.jobs[job_id].log
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def stop_all(self) -> None:
        """End every Job and every process a Job started (the test is over)."""
        for job in list(self.jobs.values()):
            if job.finished is None:
                self._stop(job, signal.SIGKILL, "CANCELED", "the test ended")
            for pid in container_pids(job.id):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    # -- processes -----------------------------------------------------------------------

    def _start(self, job: Job) -> None:
        spec = job.spec
        env = {
            "PATH": f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "HOME": str(job.folder),
            "HF_HOME": str(job.folder / "hf-home"),
            "LANG": "C.UTF-8",
            "JOBSTUB_ENGINE": self.engines.get(spec["flavor"], self.engine),
            "JOBSTUB_JOB": job.id,  # every process of the "container" carries it
            **{k: str(v) for k, v in (spec.get("environment") or {}).items()},
            **{k: str(v) for k, v in (spec.get("secrets") or {}).items()},
        }
        out = job.log.open("ab")
        job.proc = subprocess.Popen(
            [*spec["command"], *(spec.get("arguments") or [])],
            cwd=job.folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        out.close()
        job.stage, job.started = "RUNNING", time.time()
        threading.Thread(target=self._reap, args=(job,), daemon=True).start()

    def _reap(self, job: Job) -> None:
        assert job.proc is not None
        code = job.proc.wait()
        with self._lock:
            if job.ending:
                job.stage = job.ending
            elif code == 0:
                job.stage, job.message = "COMPLETED", None
            else:
                job.stage, job.message = "ERROR", f"Job failed with exit code: {code}"
            job.finished = time.time()

    def _stop(self, job: Job, sig: int, stage: str, message: str) -> None:
        job.ending, job.message = stage, message
        if job.proc is None:
            job.stage, job.finished = stage, time.time()
            return
        try:
            os.killpg(job.proc.pid, sig)
        except ProcessLookupError:
            pass
        if sig == signal.SIGTERM:
            try:
                job.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(job.proc.pid, signal.SIGKILL)
        job.proc.wait(timeout=30)
        for _ in range(100):  # the reaper sets the stage
            if job.finished is not None:
                break
            time.sleep(0.05)
        for pid in container_pids(job.id):  # the engine has its own group: the container ends
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    # -- the API ---------------------------------------------------------------------------

    def route(self, hub: Any, h: Any, method: str, path: str, query: str, body: bytes) -> None:
        """Answer one request under /api/jobs/ (called by the Hub stand-in)."""
        seg = path.strip("/").split("/")[2:]  # [namespace, id?, action?]
        now = time.time()
        if method == "POST" and len(seg) == 1:
            spec = json.loads(body or b"{}")
            flavors = {f.value for f in JobHardware}
            if not spec.get("command") or not spec.get("dockerImage"):
                hub._json(h, 400, {"error": "a Job needs an image and a command"})
                return
            if spec.get("flavor") not in flavors:
                hub._json(h, 400, {"error": f"unknown flavor {spec.get('flavor')!r}"})
                return
            if spec["dockerImage"] != IMAGE:
                hub._json(h, 400, {"error": f"the stand-in has no image {spec['dockerImage']!r}"})
                return
            job_id = secrets.token_hex(12)
            folder = self.root / job_id
            folder.mkdir(parents=True)
            job = Job(job_id, seg[0], spec, folder, now)
            self.jobs[job_id] = job
            self.created.append(spec)
            if not self.hold:
                self._start(job)
            hub._json(h, 200, job.info(now))
            return
        if method == "GET" and len(seg) == 1:
            params = parse_qsl(query)
            labels = [v.split("=", 1) for k, v in params if k == "label"]
            stages = {v for k, v in params if k == "stage"}
            found = [
                j.info(now)
                for j in self.jobs.values()
                if j.namespace == seg[0]
                and all((j.spec.get("labels") or {}).get(k) == v for k, v in labels)
                and (not stages or j.stage in stages)
            ]
            hub._json(h, 200, found)
            return
        job = self.jobs.get(seg[1]) if len(seg) >= 2 else None
        if job is None or job.namespace != seg[0]:
            hub._json(h, 404, {"error": "Job not found"})
            return
        if method == "GET" and len(seg) == 2:
            hub._json(h, 200, job.info(now))
        elif method == "GET" and seg[2:] == ["logs"]:
            lines = self.log_text(job.id).splitlines()
            tail = dict(parse_qsl(query)).get("tail")
            if tail and tail.isdigit():
                lines = lines[-int(tail) :]
            stamp = _iso(job.started or job.created)
            events = [{"timestamp": stamp, "data": "===== Job started ====="}]
            events += [{"timestamp": stamp, "data": line} for line in lines]
            text = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
            hub._send(h, 200, text.encode(), Content_Type="text/event-stream")
        elif method == "POST" and seg[2:] == ["cancel"]:
            threading.Thread(
                target=self._stop, args=(job, signal.SIGTERM, "CANCELED", "canceled"), daemon=True
            ).start()
            hub._json(h, 200, {})
        else:
            hub._json(h, 404, {"error": "no such route"})
