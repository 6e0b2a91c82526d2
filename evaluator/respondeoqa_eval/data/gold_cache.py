"""The parsed and checked gold, kept between processes (issue 31; `cache.py`).

Reading upstream files is mostly checking them (`upstream._record`: every field's type and
vocabulary) and building records: about four times the JSON parse alone. The records of a set
of files are kept under a key that hashes the bytes of every file read and the reader's own
source, so the checks run once per gold version and reader; a changed file, or a changed
reader, is another key.
"""

from __future__ import annotations

import dataclasses
import hashlib
import operator
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import cache
from .records import FIELDS, Record

KIND = "gold"
KEPT = 8
"""Gold versions kept."""
_FORMAT = 1
_row = operator.attrgetter(*FIELDS)
_TEXTS = tuple(f.name for f in dataclasses.fields(Record) if f.type in ("str", "str | None"))
_LISTS = tuple(f.name for f in dataclasses.fields(Record) if f.type == "list[str]")
"""The fields whose values `_shared` shares: text (or None) and lists of text."""
_READER = tuple(Path(__file__).with_name(n) for n in ("upstream.py", "records.py", "sources.py"))
"""The modules whose source decides what records a file gives (part of every key)."""


def _key(paths: Sequence[Path]) -> str | None:
    """The key of these files' records; None when one cannot be read (the reader says why)."""
    h = hashlib.sha256(f"{_FORMAT} {FIELDS}".encode())
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


def _shared(records: list[Record]) -> list[tuple]:
    """The records as tuples of their fields, each repeated value made one object, in the
    records themselves too: marshal writes it once and loading makes it once (a vocabulary
    field, a file name, a shared passage), which makes reading the kept gold faster and the
    records smaller. The records read are the records returned, as a later read gives them:
    on the first read nothing is built twice (no records rebuilt from the kept tuples)."""
    one: dict = {}
    share = one.setdefault
    rows = []
    for record in records:
        values = vars(record)  # a frozen dataclass' fields, set in place as `_restored` does
        for name in _TEXTS:  # None shares as itself; only strings and None (True == 1)
            value = values[name]
            values[name] = share(value, value)
        for name in _LISTS:
            values[name] = [share(x, x) for x in values[name]]
        rows.append(_row(record))
    return rows


def _restored(rows: list) -> list[Record]:
    if not isinstance(rows, list) or not all(len(values) == len(FIELDS) for values in rows):
        raise TypeError("not a list of records")
    # each record's fields as `Record(*values)` sets them, in half the time: a frozen
    # dataclass' __init__ sets each of its 19 fields through object.__setattr__
    new = object.__new__
    out = []
    for values in rows:
        record = new(Record)
        vars(record).update(zip(FIELDS, values, strict=True))
        out.append(record)
    return out


def cached_records(paths: Sequence[Path], read: Callable[[], list[Record]]) -> list[Record]:
    """The records `read()` gives for the upstream files `paths` (every file it reads): kept
    when these bytes were read before, else read and kept."""
    key = _key(paths)
    if key is None:
        return read()
    found = cache.load(KIND, key)
    if found is not None:
        try:
            return _restored(found)
        except TypeError:
            pass
    records = read()
    rows = _shared(records)
    if _key(paths) == key:  # not kept when a file changed while it was being read
        cache.save(KIND, key, rows, KEPT)
    return records
