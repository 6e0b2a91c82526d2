"""The runner's output: a resumable JSONL predictions file, safe against crashes.

Every row is one `write` of a complete line followed by flush and fsync, so a kill loses at
most the requests in flight and never leaves a half row behind it. A torn last line (power loss,
full disk) is detected on the next run and cut off. A rerun skips the ids already answered and
refuses a file made with another model or prompt version.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import IO, Any

from .. import jsonl
from .._version import __version__
from ..errors import InputError

try:  # advisory lock so two runners never append to the same file (POSIX only)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no fcntl (Windows): None says so

SETTING_KEYS = ("temperature", "top_p", "seed", "max_new_tokens")
"""Recorded settings whose change makes a resumed file mix two kinds of answers."""


def dump_row(row: dict[str, Any]) -> str:
    """One JSONL line (with its newline), through the package's codec (`jsonl.dumps`)."""
    return jsonl.dumps(row) + "\n"


def changed_settings(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, tuple]]:
    """The recorded settings that differ between an earlier row's `params` and this run's,
    as (key, (old, new)). A setting one side does not record is not compared, and top_p is
    not when either side is greedy (temperature 0), where it has no effect."""
    greedy = 0 in (old.get("temperature"), new.get("temperature"))
    return [
        (k, (old[k], new[k]))
        for k in SETTING_KEYS
        if k in old and k in new and old[k] != new[k] and not (k == "top_p" and greedy)
    ]


def make_row(
    record_id: str,
    question_id: str,
    question_language: str,
    response: str,
    *,
    model: str,
    prompt_version: str,
    params: dict[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    """One output row; `respondeoqa-eval score` reads `id` and `response` and ignores the rest."""
    row = {
        "id": record_id,
        "question_id": question_id,
        "question_language": question_language,
        "response": response,
        "model": model,
        "prompt_version": prompt_version,
        "params": params,
        "tool_version": __version__,
    }
    row.update(extra)
    return row


class PredictionWriter:
    """Append rows to a JSONL file; `done` holds the ids already answered in it.

    Use as a context manager. `write` is thread-safe.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        model: str,
        prompt_version: str,
        params: dict[str, Any] | None = None,
        overwrite: bool = False,
        warn=None,
    ) -> None:
        self.path = Path(path)
        self.model = model
        self.prompt_version = prompt_version
        self.params = params or {}
        self.overwrite = overwrite
        self.done: set[str] = set()
        self.changed: dict[str, tuple[Any, Any]] = {}  # setting -> (earlier rows', this run's)
        self.dropped_bytes = 0  # size of a torn last line that was cut off
        self.written = 0
        self._warn = warn or (
            lambda msg: print(f"respondeoqa-eval: warning: {msg}", file=sys.stderr)
        )
        self._lock = threading.Lock()
        self._fh: IO[bytes] | None = None

    # -- opening and resuming -------------------------------------------------------------

    def open(self) -> PredictionWriter:
        """Open for appending, after checking and (if needed) repairing an existing file."""
        if self.path.is_dir():
            raise InputError(f"{self.path}: is a folder; --output needs a file name")
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # unbuffered: each row goes to the OS in one write call, never split by a buffer
            fh = open(self.path, "a+b", buffering=0)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot open for writing ({exc.strerror})") from None
        if fcntl is not None:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                fh.close()
                raise InputError(f"{self.path}: another runner is writing this file") from None
        try:
            if self.overwrite:
                fh.truncate(0)
            else:
                self._resume(fh)
        except BaseException:
            fh.close()
            raise
        fh.seek(0, os.SEEK_END)
        self._fh = fh
        return self

    def _resume(self, fh: IO[bytes]) -> None:
        fh.seek(0)
        data = fh.read()
        if not data:
            return
        lines = data.split(b"\n")
        tail = lines.pop()  # text after the last newline: empty unless the last line is torn
        good_end = len(data) - len(tail)
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            self._check_line(raw, number)
        if tail.strip():
            try:
                self._check_line(tail, len(lines) + 1)
            except InputError:
                # a row is written with its newline in one call: text after the last newline
                # that does not parse is a row cut short by a crash
                self._warn(
                    f"{self.path}: line {len(lines) + 1} is incomplete (left by an interrupted "
                    f"run); dropped {len(tail)} bytes, that item will be run again"
                )
                self.dropped_bytes = len(tail)
                fh.truncate(good_end)
            else:
                fh.seek(0, os.SEEK_END)
                fh.write(b"\n")  # a complete row missing only its newline: keep it
        elif tail:
            fh.truncate(good_end)
        os.fsync(fh.fileno())

    def _check_line(self, raw: bytes, number: int) -> None:
        where = f"{self.path}: line {number}"
        try:
            row = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            # ValueError: malformed JSON or an integer too long to convert; RecursionError:
            # nesting too deep (a hostile file must not give a traceback on resume)
            raise InputError(f"{where}: not a JSON row; is this a runner output file?") from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise InputError(f"{where}: a row needs a string 'id'; is this a runner output file?")
        if "response" not in row:
            raise InputError(f"{where}: no 'response'; is this a runner output file?")
        model, version = row.get("model"), row.get("prompt_version")
        if model != self.model or version != self.prompt_version:
            raise InputError(
                f"{where}: made with model {model!r} and prompt version {version!r}, but this run "
                f"uses model {self.model!r} and prompt version {self.prompt_version!r}; "
                "choose another --output, or pass --overwrite to start it again"
            )
        old = row.get("params")
        for key, (was, now) in changed_settings(old if isinstance(old, dict) else {}, self.params):
            self.changed.setdefault(key, (was, now))
        if row["id"] in self.done:
            self._warn(f"{where}: id {row['id']!r} repeats an earlier row")
        self.done.add(row["id"])

    def settings_warning(self) -> str | None:
        """What differs between the rows already in the file and this run's settings (only
        what changed), or None. The caller says it only when something is left to run."""
        if not self.changed:
            return None
        was = ", ".join(f"{k} {v[0]}" for k, v in self.changed.items())
        now = ", ".join(f"{k} {v[1]}" for k, v in self.changed.items())
        return (
            f"{self.path}: earlier rows were made with {was}; this run uses {now}, so the file "
            "will mix both settings (--overwrite starts it again)"
        )

    # -- writing --------------------------------------------------------------------------

    def write(self, row: dict[str, Any]) -> None:
        """Append one row: a single write of the whole line, then flush and fsync."""
        line = dump_row(row).encode("utf-8")
        with self._lock:
            if self._fh is None:
                raise RuntimeError("PredictionWriter is not open")
            view = memoryview(line)
            while view:
                view = view[self._fh.write(view) :]
            os.fsync(self._fh.fileno())
            self.done.add(row["id"])
            self.written += 1

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()  # closing releases the lock
                self._fh = None

    def __enter__(self) -> PredictionWriter:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()
