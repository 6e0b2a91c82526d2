"""Data kept between processes under the project's cache folder (issue 31).

What is derived from the gold and the settings alone (the checked records, each translation
item's reference n-grams, the seeded resample matrices) is the same for every submission scored
against them, so a process keeps it for the next. A kept file is its length and CRC-32 (a check
against damage, not a key: the keys are sha256 hashes of what the data is derived from), then
plain data (`marshal`: strings, numbers, tuples, lists, dicts; loading it runs no code) or raw
bytes (`load_bytes`: an array's, read back without a copy). A truncated, corrupt or foreign
file is a miss (the caller computes the value again), never an error. Writing is best effort
(a read-only cache folder only costs the time; nothing is serialised for it). Files are
owner-only (Certamen / NLE gold stays the user's, on the user's disk, as in the folder it came
from); of each kind, the `KEPT` most recently used are kept. The folder is `fetch.default_cache_dir()`'s, beside the downloads.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import struct
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .data.fetch import default_cache_dir
from .io import write_bytes_atomic

KEPT = 16
"""Files of each kind kept unless the kind says (a test suite's many small gold folders would
otherwise fill the folder)."""
T = TypeVar("T")
_HEADER = struct.Struct("<QI")  # the payload's length and CRC-32


def cache_folder() -> Path:
    return default_cache_dir() / "kept"


def _path(kind: str, key: str) -> Path:
    return cache_folder() / f"{kind}-{key}.marshal"


def writable() -> bool:
    """Whether kept files can be written: the folder exists (made if need be) and can be
    written. Asked before a value is serialised, so that a cache folder that cannot be written
    costs no serialising, checksum or pruning (the first run of a gold version is the costly
    one already)."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK | os.X_OK)


def load_bytes(kind: str, key: str) -> memoryview | None:
    """The bytes kept as (kind, key) (a view of the file's, no copy), or None (none, or not
    as written)."""
    path = _path(kind, key)
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    payload = memoryview(raw)[_HEADER.size :]
    if len(raw) < _HEADER.size or _HEADER.unpack_from(raw) != (len(payload), zlib.crc32(payload)):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: kept by `save_bytes`
    return payload


def save_bytes(kind: str, key: str, *chunks: bytes | memoryview, keep: int = KEPT) -> None:
    """Keep the `chunks`, one after the other, as (kind, key), and the `keep` most recently
    used of the kind; nothing (not even the chunks joined) when the folder cannot be written."""
    if writable():
        _write(kind, key, chunks, keep)


def _write(kind: str, key: str, chunks: Sequence[bytes | memoryview], keep: int) -> None:
    path = _path(kind, key)
    crc = 0
    for chunk in chunks:
        crc = zlib.crc32(chunk, crc)
    size = sum(memoryview(chunk).nbytes for chunk in chunks)
    with contextlib.suppress(OSError):
        write_bytes_atomic(path, b"".join([_HEADER.pack(size, crc), *chunks]))  # mode 0600
        kept = sorted(
            path.parent.glob(f"{kind}-*.marshal"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in kept[keep:]:
            old.unlink(missing_ok=True)


def load(kind: str, key: str) -> Any | None:
    """The plain data kept as (kind, key), or None (none, or not readable as written)."""
    payload = load_bytes(kind, key)
    if payload is None:
        return None
    try:
        return marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None


def save(kind: str, key: str, value: Any, keep: int = KEPT) -> None:
    """Keep `value` (plain data) as (kind, key), as `save_bytes` (not serialised when the folder
    cannot be written)."""
    if writable():
        _write(kind, key, (marshal.dumps(value),), keep)


def kept(
    kind: str,
    key: str,
    compute: Callable[[], Any],
    restore: Callable[[Any], T],
    keep: int = KEPT,
) -> T:
    """`restore(load(kind, key))` when that is kept and `restore` accepts it (it raises
    ValueError, TypeError, KeyError or IndexError on data of another shape), else
    `restore(compute())`, `compute()`'s plain data kept."""
    found = load(kind, key)
    if found is not None:
        try:
            return restore(found)
        except (ValueError, TypeError, KeyError, IndexError):
            pass
    value = compute()
    save(kind, key, value, keep)
    return restore(value)
