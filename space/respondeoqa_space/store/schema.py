"""The leaderboard database's tables, and the migrations from every earlier schema.

1: one row per item (`item_scores`); 2: items carry their groups; 3: kept predictions, entry item
blobs, outbox, audit; 4: shared item sets, compact item and prediction blobs, compressed
reports; 5: the record's bookkeeping (each entry's record file identity, unreadable record
files, the largest id the record gave out), and the never-read `overall` / `client` columns
dropped; 6: what is known about the model (`model_info`, JSON) and the operator's public flag;
7: each entry's points on private items per cell (`private_points`, JSON: what the board
releases in steps, privacy.py), filled from the stored items for older entries, and the
leaderboard's own evaluation of a verified entry (`evaluation`, JSON).

`migrate` runs inside the store's opening `BEGIN IMMEDIATE` transaction: a database is either
fully migrated or left as it was.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from respondeoqa_eval import jsonl
from respondeoqa_eval.report import ItemResult, Report

from ..privacy import private_points
from . import compact, quota
from .evaluation import Evaluation

VERSION = 7

TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    model TEXT NOT NULL,
    link TEXT NOT NULL DEFAULT '',
    params TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    file_name TEXT NOT NULL DEFAULT '',
    file_sha256 TEXT NOT NULL UNIQUE,
    n_items INTEGER NOT NULL,
    sources TEXT NOT NULL,
    report BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS entry_items (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS item_sets (
    number INTEGER PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS hub_deletes (path TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS record_problems (
    path TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    entry_id INTEGER,
    reason TEXT NOT NULL,
    seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    ts TEXT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    entry_id INTEGER,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS attempts (
    client TEXT NOT NULL,
    ts REAL NOT NULL,
    ok INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_client_ts ON attempts (client, ts);
"""

# columns of `submissions` added after version 2 (name, declaration)
ADDED_COLUMNS = (
    ("submitter", "TEXT NOT NULL DEFAULT ''"),  # Hugging Face username; the only personal datum
    ("hidden", "INTEGER NOT NULL DEFAULT 0"),
    ("answers_extracted", "INTEGER NOT NULL DEFAULT 0"),  # rows gave `answer`, not `response`
    ("evaluator_version", "TEXT NOT NULL DEFAULT ''"),
    ("gold_fingerprint", "TEXT NOT NULL DEFAULT ''"),
    ("predictions", "BLOB"),  # compact.encode_predictions; NULL for entries stored before v3
    ("version", "INTEGER NOT NULL DEFAULT 1"),  # bumped by every change to the entry
    ("pushed_version", "INTEGER NOT NULL DEFAULT 0"),  # the version the Hub repo holds
    ("record_identity", "TEXT"),  # the identity of its record file when last read or written
    ("model_info", "TEXT NOT NULL DEFAULT '{}'"),  # metadata.ModelInfo as JSON
    ("flag", "TEXT NOT NULL DEFAULT ''"),  # the operator's public note ("" when not flagged)
    ("private_points", "TEXT NOT NULL DEFAULT '{}'"),  # privacy.private_points as JSON
    ("evaluation", "TEXT NOT NULL DEFAULT ''"),  # evaluation.Evaluation as JSON; '' self-reported
)
DROPPED_COLUMNS = ("overall", "client")  # written by versions 1-4, never read

ENTRY_COLUMNS = (
    "id, created, model, link, params, note, file_name, file_sha256, n_items, sources, report,"
    " submitter, hidden, answers_extracted, evaluator_version, gold_fingerprint, model_info, flag,"
    " private_points, evaluation"
)


def pack_report(report: Report) -> bytes:
    return zlib.compress(report.to_json(indent=None).encode("utf-8"), 9)


def pack_evaluation(evaluation: Evaluation | None) -> str:
    return "" if evaluation is None else json.dumps(evaluation.to_dict(), sort_keys=True)


def unpack_evaluation(value: str) -> Evaluation | None:
    return Evaluation.from_dict(json.loads(value)) if value else None


def unpack_report(value: bytes | str) -> Report:
    # reports stored before schema 4 are plain JSON text
    text = zlib.decompress(value).decode("utf-8") if isinstance(value, bytes) else value
    return Report.from_dict(json.loads(text))


def _item(row: Sequence[Any]) -> ItemResult:
    """An item row of a schema 1-3 database."""
    item_id, source, task, score, extracted, missing, groups = row
    groups = json.loads(groups) if isinstance(groups, str) else groups
    return compact.item_result(item_id, source, task, groups, score, extracted, bool(missing))


ItemSetOf = Callable[[sqlite3.Connection, Sequence[ItemResult]], int]


def create(con: sqlite3.Connection) -> int:
    """Create missing tables; the schema version the database had (VERSION when new)."""
    row = None
    if con.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
        row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    found = int(row[0]) if row else VERSION
    for stmt in filter(str.strip, TABLES.split(";")):
        con.execute(stmt)
    return found


def migrate(con: sqlite3.Connection, found: int, item_set: ItemSetOf) -> None:
    """Bring a database of schema `found` to VERSION, inside the open transaction.

    `item_set(con, items)` is the store's item-set catalogue (numbers of shared item sets).
    """
    columns = {r[1] for r in con.execute("PRAGMA table_info(submissions)")}
    for name, decl in ADDED_COLUMNS:
        if name not in columns:
            con.execute(f"ALTER TABLE submissions ADD COLUMN {name} {decl}")
    for name in DROPPED_COLUMNS:
        if name in columns:
            con.execute(f"ALTER TABLE submissions DROP COLUMN {name}")
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    by_entry: dict[int, list[ItemResult]] = {}
    if "item_scores" in tables:  # versions 1-2: one row per item
        item_cols = {r[1] for r in con.execute("PRAGMA table_info(item_scores)")}
        groups = "groups" if "groups" in item_cols else "'{}'"
        for row in con.execute(
            "SELECT submission_id, item_id, source, task, score, extracted, missing,"
            f" {groups} FROM item_scores ORDER BY submission_id, item_id"
        ):
            by_entry.setdefault(int(row[0]), []).append(_item(row[1:]))
        con.execute("DROP TABLE item_scores")
    elif found < 4:  # version 3: one blob of columns (ids included) per entry
        for sid, blob in con.execute("SELECT submission_id, data FROM entry_items").fetchall():
            cols = json.loads(zlib.decompress(blob))
            fields = ("id", "source", "task", "score", "extracted", "missing", "groups")
            rows = zip(*(cols[f] for f in fields), strict=True)
            by_entry[int(sid)] = [_item(r) for r in rows]
    for sid, items in by_entry.items():
        con.execute(
            "INSERT OR REPLACE INTO entry_items (submission_id, data) VALUES (?, ?)",
            (sid, compact.encode_items(items, item_set(con, items))),
        )
    if found < 4:  # version 3 kept predictions as zlib'd canonical JSONL; reports as text
        for sid, preds, report in con.execute(
            "SELECT id, predictions, report FROM submissions"
        ).fetchall():
            if preds is not None:
                kept = jsonl.decode(zlib.decompress(preds).decode("utf-8"), f"entry {sid}")
                preds = _encode_predictions(con, sid, kept)
            con.execute(
                "UPDATE submissions SET predictions = ?, report = ? WHERE id = ?",
                (preds, pack_report(unpack_report(report)), sid),
            )
    if found < 7:
        _fill_private_points(con)
    quota.migrate(con)
    con.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(VERSION),)
    )


def _fill_private_points(con: sqlite3.Connection) -> None:
    """Version 7: the private points of entries stored before, from their stored items (which
    keep no lenient reading: their lenient values resting on private items stay hidden until
    `respondeoqa-space admin rescore`)."""
    sets: dict[int, list[compact.ItemKey]] = {}

    def keys_of(number: int) -> list[compact.ItemKey]:
        if number not in sets:
            blob = con.execute("SELECT data FROM item_sets WHERE number = ?", (number,)).fetchone()
            sets[number] = compact.decode_item_set(blob[0])
        return sets[number]

    rows = con.execute("SELECT submission_id, data FROM entry_items").fetchall()
    for sid, blob in rows:
        points = private_points(compact.decode_items(blob, keys_of))
        if points:
            con.execute(
                "UPDATE submissions SET private_points = ? WHERE id = ?",
                (json.dumps(points, sort_keys=True), sid),
            )


def _encode_predictions(con: sqlite3.Connection, entry_id: int, rows: list[Any]) -> bytes:
    """Prediction rows as a compact blob, against the item set of entry `entry_id`."""
    data = con.execute(
        "SELECT data FROM entry_items WHERE submission_id = ?", (entry_id,)
    ).fetchone()[0]
    number = json.loads(zlib.decompress(data))["set"]
    keys = compact.decode_item_set(
        con.execute("SELECT data FROM item_sets WHERE number = ?", (number,)).fetchone()[0]
    )
    return compact.encode_predictions(rows, keys, number)
