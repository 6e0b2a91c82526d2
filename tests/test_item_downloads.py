"""Per-item results carry every group and the question's language, in the CLI's report and in
the leaderboard's per-item CSV (read back from a real SQLite store, also an old one).

Expected values come from the gold records' own fields, written out here (display names by
hand), never from the breakdown registry under test.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from conftest import require
from respondeoqa_eval import evaluate
from respondeoqa_eval.predictions.example import example_predictions

require("pandas")
from respondeoqa_space.store import Store, Submission, sha256_bytes  # noqa: E402
from respondeoqa_space.views.entry import items_frame  # noqa: E402

LANGUAGE = {"english": "English", "latin": "Latin"}
FORMAT = {"multiple_choice": "Options given", "short_answer": "Open answer"}
GROUPS = ("content", "language_pair", "category", "format", "difficulty", "multihop")


def _expected_row(r) -> dict[str, str]:
    return {
        "question_id": r.question_id,
        "question_language": r.question_language,
        "content": r.question_content.replace("_", " ").capitalize(),
        "language_pair": f"{LANGUAGE[r.question_language]} \u2192 {LANGUAGE[r.answer_language]}",
        "category": r.category.capitalize(),
        "format": FORMAT[r.question_format],
        "difficulty": r.difficulty.capitalize(),
        "multihop": ("Multihop" if r.multihop else "Regular") if r.task == "short_answer" else "",
    }


def test_the_cli_report_items_carry_every_group(public_gold):
    report = evaluate(example_predictions(public_gold.records), public_gold, bootstrap=0)
    for it, r in zip(report.items, public_gold.records, strict=True):
        assert (it.id, it.question_id, it.question_language) == (
            r.id,
            r.question_id,
            r.question_language,
        )
        expected = {"by_content", "by_language_pair", "by_category", "by_format", "by_source"}
        expected |= {"by_difficulty"} | ({"by_task"} if r.task != "translation" else set())
        expected |= {"by_multihop"} if r.task == "short_answer" else set()
        assert set(it.groups) == expected
        assert it.groups["by_language_pair"] == f"{r.question_language}-{r.answer_language}"


def test_the_per_item_download_has_every_group_column_and_the_language(tmp_path, public_gold):
    report = evaluate(example_predictions(public_gold.records), public_gold, bootstrap=0)
    store = Store(tmp_path / "lb.sqlite3")
    entry = store.add(Submission("m", sha256_bytes(b"items")), report)
    frame = items_frame(Store(tmp_path / "lb.sqlite3").item_scores(entry.id))
    assert list(frame.columns) == [
        "id",
        "question_id",
        "question_language",
        "source",
        "task",
        *GROUPS,
        "extracted_answer",
        "score",
        "no_prediction",
    ]
    assert len(frame) == len(public_gold) == 1147
    rows = {row["id"]: row for row in frame.to_dict("records")}
    for r in public_gold.records:
        row = rows[r.id]
        assert {k: row[k] for k in _expected_row(r)} == _expected_row(r), r.id
    # the prosody questions exist in both languages: one question id, two languages
    pair = [row for row in rows.values() if row["question_id"] == "prosody_app.I.1.1"]
    assert sorted((row["id"], row["question_language"]) for row in pair) == [
        ("prosody_app.I.1.1-en", "english"),
        ("prosody_app.I.1.1-la", "latin"),
    ]
    assert all(row["question_language"] for row in rows.values())


V2_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '2');
CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL,
  model TEXT NOT NULL, link TEXT NOT NULL DEFAULT '', params TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '', file_name TEXT NOT NULL DEFAULT '',
  file_sha256 TEXT NOT NULL UNIQUE, client TEXT NOT NULL DEFAULT '', overall REAL,
  n_items INTEGER NOT NULL, sources TEXT NOT NULL, report TEXT NOT NULL);
CREATE TABLE item_scores (submission_id INTEGER NOT NULL, item_id TEXT NOT NULL,
  source TEXT NOT NULL, task TEXT NOT NULL, score REAL, extracted TEXT,
  missing INTEGER NOT NULL DEFAULT 0, groups TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (submission_id, item_id)) WITHOUT ROWID;
CREATE TABLE attempts (client TEXT NOT NULL, ts REAL NOT NULL, ok INTEGER NOT NULL);
"""


def test_an_old_database_gets_the_language_too(tmp_path: Path, public_gold):
    """A schema-2 database (items with their groups, one row each, stored before this
    change): read and migrated, its items get their question id and language."""
    records = [r for r in public_gold.records if r.task == "feet"][:3]
    report = evaluate([{"id": r.id, "answer": r.answers[0]} for r in records], public_gold)
    path = tmp_path / "v2.sqlite3"
    with sqlite3.connect(path) as con:
        con.executescript(V2_SCHEMA)
        con.execute(
            "INSERT INTO submissions (created, model, file_sha256, overall, n_items, sources, report)"
            " VALUES ('2026-01-01T00:00:00+00:00', 'old', 'ab', 0.1, 3, 'lat-pros', ?)",
            (report.without_items().to_json(indent=None),),
        )
        for it in report.items[:3]:
            con.execute(
                "INSERT INTO item_scores VALUES (1, ?, ?, ?, ?, ?, 0, ?)",
                (it.id, it.source, it.task, it.score, it.extracted, json.dumps(dict(it.groups))),
            )
    rows = items_frame(Store(path).item_scores(1)).to_dict("records")
    by_id = {r.id: r for r in public_gold.records}
    assert len(rows) == 3
    for row in rows:
        r = by_id[row["id"]]
        assert {k: row[k] for k in _expected_row(r)} == _expected_row(r)
