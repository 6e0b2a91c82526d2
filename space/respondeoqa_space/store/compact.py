"""Compact per-entry blobs: an entry's items and kept predictions, about 35 KB for a full-size one.

What entries with the same coverage share (the ids, sources, tasks and breakdown groups of the
items they were scored on, in order) is stored once, as an item set in the store's `item_sets`
table; an entry names its set by number. The entry's own data is a zlib-compressed JSON of
columns: scores, missing items, extracted answers (public items only: private ones are never shown
and can be extracted again from the kept predictions), and the prediction texts with their
positions in the set (as differences, which compress to almost nothing).

Pure functions; `store.py` holds the table and calls these inside its transactions.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from respondeoqa_eval.data import PUBLIC_SOURCES, question_id_of, split_language_pair
from respondeoqa_eval.report import ItemResult

ItemKey = tuple[str, str, str, dict[str, str]]
"""What an item set holds per item: (item id, source, task, breakdown groups)."""


def _dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


def _pack(value: Any) -> bytes:
    return zlib.compress(_dump(value), 9)


def _unpack(blob: bytes) -> Any:
    return json.loads(zlib.decompress(blob))


def item_set(items: Sequence[ItemResult]) -> tuple[str, Callable[[], bytes]]:
    """(digest, blob maker) of the item set of `items`: their keys, in order; the blob is
    compressed only when called (a set is usually stored already). A repeated id is refused (as
    a primary key would), rolling back the transaction it is encoded in."""
    if len({it.id for it in items}) != len(items):
        raise sqlite3.IntegrityError("an item id appears twice in the report")
    raw = _dump([[it.id, it.source, it.task, dict(it.groups)] for it in items])
    return hashlib.sha256(raw).hexdigest(), lambda: zlib.compress(raw, 9)


def keys_of_items(items: Sequence[ItemResult]) -> list[ItemKey]:
    """The item set of `items` as `decode_item_set` gives it back (groups not copied)."""
    return [(it.id, it.source, it.task, it.groups) for it in items]  # type: ignore[misc]  # groups: a dict typed as a Mapping


def decode_item_set(blob: bytes) -> list[ItemKey]:
    return [tuple(key) for key in _unpack(blob)]


def _deltas(numbers: Sequence[int]) -> list[int]:
    return [b - a for a, b in zip([0, *numbers], numbers)]  # noqa: B905 (one shorter by design)


def _undelta(deltas: Sequence[int]) -> list[int]:
    out, total = [], 0
    for d in deltas:
        total += d
        out.append(total)
    return out


def encode_items(items: Sequence[ItemResult], set_number: int) -> bytes:
    """An entry's own item columns; its keys are item set `set_number`."""
    return _pack(
        {
            "set": set_number,
            "s": [it.score for it in items],
            "m": [i for i, it in enumerate(items) if it.missing],
            # private extracted answers are never shown; the kept predictions hold them
            "x": [it.extracted if it.source in PUBLIC_SOURCES else None for it in items],
        }
    )


def decode_items(blob: bytes, keys_of: Callable[[int], list[ItemKey]]) -> list[ItemResult]:
    """The items of `encode_items`; `keys_of(number)` reads an item set."""
    cols = _unpack(blob)
    keys = keys_of(cols["set"])
    missing = set(cols["m"])
    return [
        item_result(item_id, source, task, groups, score, extracted, i in missing)
        for i, ((item_id, source, task, groups), score, extracted) in enumerate(
            zip(keys, cols["s"], cols["x"], strict=True)
        )
    ]


def item_result(
    item_id: str,
    source: str,
    task: str,
    groups: Mapping[str, str],
    score: float | None,
    extracted: str | None,
    missing: bool,
) -> ItemResult:
    """A stored item as an ItemResult. The store keeps no question id, language or content
    type: they are derived from the id and the groups (stored since schema 2; an item of a
    schema 1 database, without groups, gets its id and no language)."""
    question_language, _ = split_language_pair(groups.get("by_language_pair", ""))
    return ItemResult(
        id=item_id,
        question_id=question_id_of(item_id, question_language, source, task),
        question_language=question_language,
        task=task,
        source=source,
        question_content=groups.get("by_content", ""),
        extracted=extracted,
        score=score,
        missing=missing,
        groups=dict(groups),
    )


def encode_predictions(
    rows: Sequence[Mapping[str, str]], keys: Sequence[ItemKey], set_number: int
) -> bytes:
    """Prediction rows ({id, response} or {id, answer}) by position in item set `set_number`
    (`keys`); an id outside the set is a ValueError."""
    position = {key[0]: i for i, key in enumerate(keys)}
    unknown = [r["id"] for r in rows if r["id"] not in position]
    if unknown:  # predictions are validated against the gold the items come from
        raise ValueError(f"{len(unknown)} predictions name items the entry was not scored on")
    ordered = sorted(rows, key=lambda r: position[r["id"]])
    return _pack(
        {
            "set": set_number,
            "k": _deltas([position[r["id"]] for r in ordered]),
            "a": [i for i, r in enumerate(ordered) if "answer" in r],
            "t": [r.get("answer", r.get("response", "")) for r in ordered],
        }
    )


def decode_predictions(
    blob: bytes, keys_of: Callable[[int], list[ItemKey]]
) -> list[dict[str, str]]:
    """The rows of `encode_predictions`, sorted by id (the canonical order)."""
    cols = _unpack(blob)
    keys = keys_of(cols["set"])
    answers = set(cols["a"])
    rows = [
        {"id": keys[at][0], ("answer" if i in answers else "response"): text}
        for i, (at, text) in enumerate(zip(_undelta(cols["k"]), cols["t"], strict=True))
    ]
    return sorted(rows, key=lambda r: r["id"])
