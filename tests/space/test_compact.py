"""Compact entry storage: shared item sets, item and prediction blobs, compressed reports, and
the migration of older databases (schemas 1 and 3) to them."""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import replace
from pathlib import Path

from respondeoqa_eval.report.model import ItemResult
from respondeoqa_space.store import Store, Submission, sha256_bytes

from .helpers import make_report

GROUPS = {"by_task": "short_answer", "by_content": "grammar", "by_source": "jun-schol"}
ITEMS = (
    ItemResult(
        "pub-b", "pub-b", "latin", "short_answer", "jun-schol", "grammar", "amo", 1.0, False, GROUPS
    ),
    ItemResult(
        "pub-a", "pub-a", "latin", "short_answer", "jun-schol", "grammar", None, 0.0, True, GROUPS
    ),
    ItemResult(
        "priv-1",
        "priv-1",
        "latin",
        "short_answer",
        "certamen",
        "history",
        "SECRET",
        1.0,
        False,
        {"by_task": "short_answer", "by_content": "history", "by_source": "certamen"},
    ),
)
# a response with the characters str.splitlines() splits on but JSON leaves raw
ROWS = [
    {"id": "pub-b", "response": "x\u2028y\u2029z\x85\nAnswer: amo"},
    {"id": "priv-1", "answer": "SECRET"},
]


def v3_predictions(rows: list[dict[str, str]]) -> bytes:
    """Kept predictions as schema 3 stored them: zlib'd canonical JSONL, line breaks raw."""
    lines = [
        json.dumps(r, ensure_ascii=False, separators=(",", ":"))
        for r in sorted(rows, key=lambda r: r["id"])
    ]
    return zlib.compress("\n".join(lines).encode("utf-8"), 9)


def test_items_predictions_and_report_round_trip(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite3")
    report = replace(make_report(0.5), items=ITEMS)
    sub = Submission("m", sha256_bytes(b"1"), rows=tuple(ROWS))
    entry = store.add(sub, report)
    again = Store(tmp_path / "lb.sqlite3")  # a new handle: nothing from the writer's memory
    items = again.item_scores(entry.id, public_only=False)
    assert set(items) == {"pub-a", "pub-b", "priv-1"}
    for want in ITEMS:
        got = items[want.id]
        assert (got.score, got.missing, dict(got.groups), got.source, got.task) == (
            want.score,
            want.missing,
            dict(want.groups),
            want.source,
            want.task,
        )
    assert items["pub-b"].extracted == "amo"
    assert items["priv-1"].extracted is None  # never shown; the kept predictions hold it
    assert set(again.item_scores(entry.id)) == {"pub-a", "pub-b"}  # public only by default
    assert again.predictions(entry.id) == sorted(ROWS, key=lambda r: r["id"])
    assert again.get(entry.id).report == report.without_items()


def test_entries_of_one_coverage_share_an_item_set(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite3")
    for i in range(3):
        store.add(
            Submission("m", sha256_bytes(f"{i}".encode())), replace(make_report(0.5), items=ITEMS)
        )
    with sqlite3.connect(tmp_path / "lb.sqlite3") as con:
        assert con.execute("SELECT COUNT(*) FROM item_sets").fetchone()[0] == 1
    # an item whose groups change (a corrected gold file) makes another item set
    moved = replace(ITEMS[0], groups={**GROUPS, "by_content": "vocabulary"})
    entry = store.add(
        Submission("m", sha256_bytes(b"moved")), replace(make_report(0.5), items=(moved,))
    )
    assert store.item_scores(entry.id)["pub-b"].groups["by_content"] == "vocabulary"
    assert store.item_scores(1)["pub-b"].groups["by_content"] == "grammar"


V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1');
CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL,
  model TEXT NOT NULL, link TEXT NOT NULL DEFAULT '', params TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '', file_name TEXT NOT NULL DEFAULT '',
  file_sha256 TEXT NOT NULL UNIQUE, client TEXT NOT NULL DEFAULT '', overall REAL,
  n_items INTEGER NOT NULL, sources TEXT NOT NULL, report TEXT NOT NULL);
CREATE TABLE item_scores (submission_id INTEGER NOT NULL, item_id TEXT NOT NULL,
  source TEXT NOT NULL, task TEXT NOT NULL, score REAL, extracted TEXT,
  missing INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (submission_id, item_id)) WITHOUT ROWID;
CREATE TABLE attempts (client TEXT NOT NULL, ts REAL NOT NULL, ok INTEGER NOT NULL);
"""


def test_a_version_1_database_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    report = make_report(0.25).without_items()
    with sqlite3.connect(path) as con:
        con.executescript(V1_SCHEMA)
        con.execute(
            "INSERT INTO submissions (created, model, file_sha256, overall, n_items, sources, report)"
            " VALUES ('2026-01-01T00:00:00+00:00', 'old model', 'ab', 0.25, 100, 'jun-schol,lat-pros', ?)",
            (report.to_json(indent=None),),
        )
        con.execute(
            "INSERT INTO item_scores VALUES (1, 'pub-b', 'jun-schol', 'short_answer', 1.0, 'amo', 0)"
        )
    store = Store(path)
    (entry,) = store.entries()
    assert entry.model == "old model" and entry.report == report
    item = store.item_scores(entry.id)["pub-b"]
    assert (item.score, item.extracted, item.missing) == (1.0, "amo", False)
    assert store.integrity_ok()


def test_a_version_3_database_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "v3.sqlite3"
    store = Store(path)
    report = replace(make_report(0.5), items=ITEMS)
    entry = store.add(Submission("m", sha256_bytes(b"v3")), report)
    # rewrite it the way schema 3 stored it: text report, a blob of columns with ids,
    # predictions as zlib'd canonical JSONL
    cols = {
        "id": [i.id for i in ITEMS],
        "source": [i.source for i in ITEMS],
        "task": [i.task for i in ITEMS],
        "score": [i.score for i in ITEMS],
        "extracted": [i.extracted for i in ITEMS],
        "missing": [int(i.missing) for i in ITEMS],
        "groups": [dict(i.groups) for i in ITEMS],
    }
    with sqlite3.connect(path) as con:
        con.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
        con.execute("DELETE FROM item_sets")
        con.execute("UPDATE entry_items SET data = ?", (zlib.compress(json.dumps(cols).encode()),))
        con.execute(
            "UPDATE submissions SET report = ?, predictions = ?, private_points = '{}'",
            (report.without_items().to_json(indent=None), v3_predictions(ROWS)),
        )
    migrated = Store(path)
    # version 7: the private item's point, in every cell it counts in (no lenient reading)
    assert migrated.get(entry.id).private_points == {
        "accuracy|overall|": 1.0,
        "accuracy|by_task|short_answer": 1.0,
        "accuracy|by_content|history": 1.0,
        "accuracy|by_source|certamen": 1.0,
    }
    assert migrated.get(entry.id).report == report.without_items()
    assert migrated.item_scores(entry.id)["pub-b"].extracted == "amo"
    assert migrated.predictions(entry.id) == sorted(ROWS, key=lambda r: r["id"])
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
            "7",
        )
