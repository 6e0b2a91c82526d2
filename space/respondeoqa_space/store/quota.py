"""Submission quotas as reservations: an attempt is counted, in the same transaction that checks
the limit, before any scoring starts; storing the entry marks its attempt ok in the transaction
that stores the entry. Concurrent requests (any route, any process) cannot both pass the check,
and a crash after storing cannot leave an entry that does not count.

The quota key is a string: `store.client_key(address)` for address-based quotas, `"hf:<user>"`
for logged-in users. These functions run on a connection inside the store's open
`BEGIN IMMEDIATE` transaction (`Store.reserve`, `Store.add`, `Store.release`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from respondeoqa_eval import InputError
from respondeoqa_eval.predictions import Predictions

DAY = 24 * 3600.0
PENDING_TTL = 15 * 60.0
"""A reservation not settled within this time (its process died while scoring) no longer holds
a stored-submission slot; it still counts as an attempt."""

_COLUMNS = (("pending", "INTEGER NOT NULL DEFAULT 0"), ("entry_id", "INTEGER"))


class QuotaLimits(Protocol):
    """What a reservation checks (limits.Limits has these)."""

    @property
    def submissions_per_day(self) -> int: ...
    @property
    def attempts_per_day(self) -> int: ...


class RateLimitError(InputError):
    """A client reached its daily limit."""


@dataclass(frozen=True)
class Reservation:
    """One counted attempt of a quota key, waiting for its entry (or its failure)."""

    id: int  # the attempt's rowid
    key: str
    ts: float


def migrate(con: sqlite3.Connection) -> None:
    """Add the reservation columns to `attempts` and the content-key table (idempotent)."""
    columns = {r[1] for r in con.execute("PRAGMA table_info(attempts)")}
    for name, decl in _COLUMNS:
        if name not in columns:
            con.execute(f"ALTER TABLE attempts ADD COLUMN {name} {decl}")
    con.execute(
        "CREATE TABLE IF NOT EXISTS content_keys ("
        " key TEXT PRIMARY KEY,"
        " submission_id INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE)"
    )


def reserve(con: sqlite3.Connection, key: str, limits: QuotaLimits, now: float) -> Reservation:
    """Count one attempt of `key` unless a daily limit is reached (then RateLimitError).

    Stored entries and reservations still being scored both use a stored-submission slot.
    """
    since = now - DAY
    per = "per Hugging Face user" if key.startswith("hf:") else "per address"  # see app.py
    used = con.execute(
        "SELECT COUNT(*) FROM attempts WHERE client = ? AND ts >= ?"
        " AND (ok = 1 OR (pending = 1 AND ts >= ?))",
        (key, since, now - PENDING_TTL),
    ).fetchone()[0]
    if used >= limits.submissions_per_day:
        raise RateLimitError(
            f"daily limit reached: at most {limits.submissions_per_day} stored submissions "
            f"{per} in 24 hours; please try again tomorrow"
        )
    tried = con.execute(
        "SELECT COUNT(*) FROM attempts WHERE client = ? AND ts >= ?", (key, since)
    ).fetchone()[0]
    if tried >= limits.attempts_per_day:
        raise RateLimitError(
            f"daily limit reached: at most {limits.attempts_per_day} submission attempts "
            f"{per} in 24 hours; please try again tomorrow"
        )
    cur = con.execute(
        "INSERT INTO attempts (client, ts, ok, pending) VALUES (?, ?, 0, 1)", (key, now)
    )
    assert cur.lastrowid is not None  # an INSERT's row id
    return Reservation(cur.lastrowid, key, now)


def settle(con: sqlite3.Connection, reservation: Reservation, entry_id: int) -> None:
    """Mark a reservation as a stored entry (inside the transaction that stores it)."""
    cur = con.execute(
        "UPDATE attempts SET ok = 1, pending = 0, entry_id = ? WHERE rowid = ? AND client = ?",
        (entry_id, reservation.id, reservation.key),
    )
    if cur.rowcount != 1:  # a reservation of another database: store nothing
        raise RuntimeError(f"no such reservation: {reservation.id}")


def release(con: sqlite3.Connection, reservation: Reservation) -> None:
    """A reservation that stored nothing: it stays an attempt, and frees its entry slot."""
    con.execute(
        "UPDATE attempts SET pending = 0 WHERE rowid = ? AND client = ? AND ok = 0",
        (reservation.id, reservation.key),
    )


def stored_by(con: sqlite3.Connection, entry_id: int, key: str) -> bool:
    """Whether `key`'s own attempt stored entry `entry_id` (a retry, not someone's copy)."""
    row = con.execute(
        "SELECT 1 FROM attempts WHERE entry_id = ? AND client = ? AND ok = 1", (entry_id, key)
    ).fetchone()
    return row is not None


def add_content_key(con: sqlite3.Connection, key: str, entry_id: int) -> None:
    con.execute("INSERT INTO content_keys (key, submission_id) VALUES (?, ?)", (key, entry_id))


def entry_with_content(con: sqlite3.Connection, key: str) -> int | None:
    """The id of the entry stored with this content key, or None."""
    row = con.execute("SELECT submission_id FROM content_keys WHERE key = ?", (key,)).fetchone()
    return None if row is None else int(row[0])


def content_key_of_rows(rows: Iterable[Mapping[str, str]]) -> str:
    """The duplicate key of kept prediction rows ({id, response} or {id, answer}): sha256 of
    item id -> (kind, its text with whitespace trimmed at both ends), sorted by id. Row order,
    file format, spacing around values and line endings do not change it."""
    canonical = sorted(
        (
            row["id"],
            "answer" if "answer" in row else "response",
            str(row.get("answer", row.get("response", ""))).strip(),
        )
        for row in rows
    )
    data = json.dumps(canonical, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return "c:" + hashlib.sha256(data).hexdigest()


def content_key(preds: Predictions) -> str:
    """The duplicate key of predictions (`content_key_of_rows` of their rows)."""
    return content_key_of_rows(
        {"id": i, ("answer" if p.extracted else "response"): p.text} for i, p in preds.by_id.items()
    )
