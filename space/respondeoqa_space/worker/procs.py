"""An engine process that lives and dies with its worker.

Three guards, each for a way a worker can end:

- **Every exit the worker sees** (a run ends, fails, Ctrl-C, SIGTERM): the engine runs in its
  own session, so its process group is ended as a whole (`end_group`: SIGTERM, then SIGKILL).
- **kill -9 of the worker** (or a crash it never sees): on Linux the engine is started with
  `prctl(PR_SET_PDEATHSIG, SIGKILL)` (`die_with_parent`, the Popen's `preexec_fn`), so the
  kernel kills it when the worker dies. The signal follows the *thread* that started it: the
  worker starts its engine from the thread that runs the request (the main thread).
- **Whatever that leaves** (an engine's own children, such as vLLM's tensor-parallel workers,
  which the kernel does not kill with it; a system without prctl): the engine's pid, process
  group and start time are written to the worker's work dir (`EngineRecord`), and a worker
  that starts there ends what is left of that group before it starts its own engine, unless
  the worker that recorded it is still alive. Start times keep a reused pid from being hit.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()  # looked up once here: the child of a fork must not load libraries
PDEATHSIG = _PRCTL is not None
"""Whether engines die with their worker on kill -9 on this system."""


def die_with_parent(parent: int) -> Callable[[], None] | None:
    """A `preexec_fn` that makes the child get SIGKILL when its parent (pid `parent`) dies;
    None where the system cannot (the recorded process group is the fallback)."""
    if _PRCTL is None:
        return None
    prctl = _PRCTL

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return preexec


def _stat(pid: int | str) -> list[str] | None:
    """The fields of `/proc/<pid>/stat` after the command name (state first); None for a
    process that does not exist or has exited (a zombie waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # the name, in parentheses, may hold spaces
    return None if len(fields) < 20 or fields[0] in ("Z", "X") else fields


def started_at(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks since boot (Linux `/proc`); None when it
    does not run or cannot be read."""
    fields = _stat(pid)
    return int(fields[19]) if fields else None


def group_members(pgid: int, since: int | None) -> list[int]:
    """Pids in process group `pgid` started no earlier than `since` (ticks), from `/proc`."""
    members = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        fields = _stat(entry.name) if entry.name.isdigit() else None
        if fields and int(fields[2]) == pgid and (since is None or int(fields[19]) >= since):
            members.append(int(entry.name))
    return members


def alive(pid: int, start: int | None) -> bool:
    """Whether process `pid` runs and (when known) is the one started at `start`."""
    if Path("/proc").is_dir():
        now = started_at(pid)
        return now is not None and (start is None or now == start)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def end_group(
    pgid: int,
    *,
    grace: float = 60.0,
    reap: Callable[[], object] = lambda: None,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """SIGTERM to process group `pgid`, SIGKILL to what is left after `grace` seconds.
    `reap` collects the leader when it is this process's child (a zombie stays in its group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
        waited = 0.0
        while waited < grace:
            reap()
            if not _group_runs(pgid):
                return
            sleep(0.1)
            waited += 0.1
        os.killpg(pgid, signal.SIGKILL)


def _group_runs(pgid: int) -> bool:
    """Whether a process of group `pgid` still runs (zombies do not count: where nothing
    reaps orphans, the dead stay listed)."""
    if Path("/proc").is_dir():
        return bool(group_members(pgid, None))
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@dataclass(frozen=True)
class EngineRecord:
    """A started engine as its worker's work dir records it (`engine.json`)."""

    pid: int
    pgid: int
    started: int | None  # the engine's start time (ticks), against pid reuse
    worker_pid: int
    worker_started: int | None

    def save(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self)), encoding="utf-8")
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> EngineRecord | None:
        """The record at `path`; None when there is none or it cannot be read."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(**{k: data[k] for k in cls.__dataclass_fields__})
        except (OSError, ValueError, KeyError, TypeError):
            return None


def record_engine(path: Path, pid: int) -> None:
    """Write the record of the engine `pid` this process just started (its own group)."""
    me = os.getpid()
    EngineRecord(pid, pid, started_at(pid), me, started_at(me)).save(path)


def end_leftover(path: Path, *, grace: float = 10.0) -> list[int]:
    """End what is left of the engine recorded at `path` by a worker that is gone; the pids
    that were ended. A record of a live worker (another process using this work dir) is left
    alone; the record is removed once its group is empty."""
    record = EngineRecord.load(path)
    if record is None:
        path.unlink(missing_ok=True)
        return []
    if record.worker_pid != os.getpid() and alive(record.worker_pid, record.worker_started):
        log.warning(
            "work dir in use: worker process %d is alive and owns engine %d",
            record.worker_pid,
            record.pid,
        )
        return []
    leader = started_at(record.pgid)
    if leader is not None and record.started is not None and leader != record.started:
        left = []  # the group number belongs to a new process now: ours is gone
    elif Path("/proc").is_dir():
        left = group_members(record.pgid, record.started)
    else:  # no /proc: the leader only, when it answers
        left = [record.pid] if alive(record.pid, None) else []
    if left:
        log.warning(
            "ending the engine a stopped worker left: process group %d (%s)",
            record.pgid,
            ", ".join(map(str, left)),
        )
        end_group(record.pgid, grace=grace)
    path.unlink(missing_ok=True)
    return left
