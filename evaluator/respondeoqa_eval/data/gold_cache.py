"""The parsed and checked gold, kept under the project's cache (issue 31).

Reading upstream files is mostly checking them (`upstream._record`: every field's type and
vocabulary) and building records: about four times the JSON parse alone. The records of a set
of files are kept in the cache folder (`fetch.default_cache_dir()`, as the downloads) under a
key that hashes the bytes of every file read and the reader's own source, so the checks run once
per gold version and reader; a changed file, or a changed reader, is a new key.

A cache file is plain data (`marshal`: strings, numbers, lists; loading it runs no code) after
the sha256 of that data: a truncated, corrupt or foreign file is a miss, read again from the
upstream files, never an error. Writing is best effort (a read-only cache folder only costs the
time). Files are written with owner-only permissions (Certamen / NLE gold stays the user's, on
the user's disk, as in the folder it came from); the `KEPT` most recently used are kept.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import marshal
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from ..io import write_bytes_atomic
from .fetch import default_cache_dir
from .records import Record

KEPT = 8
"""Gold versions kept (a test suite's many small folders would otherwise fill the cache)."""
_FORMAT = 1
_FIELDS = tuple(f.name for f in dataclasses.fields(Record))
_READER = tuple(Path(__file__).with_name(n) for n in ("upstream.py", "records.py", "sources.py"))
"""The modules whose source decides what records a file gives (part of every key)."""


def cache_folder() -> Path:
    return default_cache_dir() / "gold"


def _key(paths: Sequence[Path]) -> str | None:
    """The key of these files' records; None when one cannot be read (the reader says why)."""
    h = hashlib.sha256(f"{_FORMAT} {_FIELDS}".encode())
    try:
        for module in _READER:
            h.update(module.read_bytes())
        for path in paths:
            data = path.read_bytes()
            h.update(f"\0{path.name}\0{len(data)}\0".encode())
            h.update(data)
    except OSError:
        return None
    return h.hexdigest()


def _load(path: Path) -> list[Record] | None:
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    payload = memoryview(raw)[32:]
    if hashlib.sha256(payload).digest() != raw[:32]:
        return None
    try:
        fmt, fields, rows = marshal.loads(payload)
        if fmt != _FORMAT or tuple(fields) != _FIELDS:
            return None
        records = [Record(*values) for values in rows]
    except (EOFError, ValueError, TypeError):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: kept by `_prune`
    return records


def _save(path: Path, records: list[Record]) -> None:
    payload = marshal.dumps(
        (_FORMAT, list(_FIELDS), [tuple(getattr(r, f) for f in _FIELDS) for r in records])
    )
    with contextlib.suppress(OSError):
        write_bytes_atomic(path, hashlib.sha256(payload).digest() + payload)  # mode 0600
        _prune(path.parent)


def _prune(folder: Path) -> None:
    kept = sorted(folder.glob("*.marshal"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[KEPT:]:
        old.unlink(missing_ok=True)


def cached_records(paths: Sequence[Path], read: Callable[[], list[Record]]) -> list[Record]:
    """The records `read()` gives for the upstream files `paths` (every file it reads): from
    the cache when these bytes were read before, else read and kept."""
    key = _key(paths)
    if key is None:
        return read()
    path = cache_folder() / f"{key}.marshal"
    found = _load(path)
    if found is not None:
        return found
    records = read()
    if _key(paths) == key:  # not kept when a file changed while it was being read
        _save(path, records)
    return records
