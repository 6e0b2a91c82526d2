"""`respondeoqa-space admin`: add, list, hide/unhide, delete, rescore, export, the audit log;
junk refused with per-file counts; entries from extracted answers marked."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from respondeoqa_eval._version import __version__
from respondeoqa_space.cli import main
from respondeoqa_space.store import Store

from .helpers import file_records, k_correct_predictions, write_jsonl

FEET = "prosody_feet_questions_english.json"
SHORT = "junior_scholarship_short_answer.json"


def admin(db: Path, data_dir: Path, *args: str) -> int:
    return main(
        [
            "admin",
            "--db",
            str(db),
            "--create",
            "--data-dir",
            str(data_dir),
            "--actor",
            "tester",
            *args,
        ]
    )


def test_admin_actions_and_audit(private_dir: Path, public_gold, tmp_path: Path, capsys) -> None:
    db = tmp_path / "lb.sqlite3"
    feet = file_records(public_gold, FEET)
    rows, k = k_correct_predictions(feet, 7)
    a = write_jsonl(tmp_path / "feet-model.jsonl", rows)
    b = write_jsonl(tmp_path / "other.jsonl", k_correct_predictions(feet, 3)[0])
    assert admin(db, private_dir, "add", str(a), str(b)) == 0
    store = Store(db)
    first, second = store.entries()
    assert first.model == "feet-model" and second.model == "other"  # names from the files
    assert first.answers_extracted and not first.stale and first.scored_with == __version__
    assert store.predictions(first.id) == rows and first.gold_fingerprint

    assert admin(db, private_dir, "hide", str(first.id)) == 0
    assert [e.id for e in store.entries()] == [second.id]  # hidden: off the board
    assert admin(db, private_dir, "list") == 0
    listed = capsys.readouterr().out
    assert f"#{first.id}" in listed and "hidden" in listed and "answers" in listed
    assert admin(db, private_dir, "unhide", str(first.id)) == 0
    assert [e.id for e in store.entries()] == [first.id, second.id]
    reason = "the same predictions as #9 under another name"
    assert admin(db, private_dir, "flag", str(second.id), "--reason", reason) == 0
    assert store.get(second.id).flag == reason
    assert admin(db, private_dir, "list") == 0
    assert f"flagged: {reason}" in capsys.readouterr().out
    assert admin(db, private_dir, "unflag", str(second.id)) == 0
    assert store.get(second.id).flag == ""

    # an evaluator change: the stored scores came from an older version
    old = store.get(first.id)
    items = tuple(store.item_scores(first.id, public_only=False).values())
    evaluator = replace(old.report.evaluator, version="0.0.1")
    store.replace_scores(
        first.id, replace(old.report, items=items, evaluator=evaluator), old.gold_fingerprint
    )
    assert store.get(first.id).stale
    before = store.get(first.id).overall
    assert admin(db, private_dir, "rescore") == 0
    after = store.get(first.id)
    assert not after.stale and after.overall == pytest.approx(before)
    assert len(store.item_scores(first.id)) == len(feet)

    table = tmp_path / "items.csv"
    assert admin(db, private_dir, "items", "--output", str(table), "--top", "2") == 0
    printed = capsys.readouterr().out
    assert "Item analysis: 2 entries" in printed and f"{len(feet)} rows written" in printed
    assert table.read_text(encoding="utf-8").startswith("id,question_id,")
    assert admin(db, private_dir, "items", "--output", str(tmp_path), "--top", "2") == 2
    assert admin(db, private_dir, "items", "--output", str(table), "--top", "-1") == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and "is a folder" in errors[0] and "--top -1" in errors[1]

    out = tmp_path / "export.jsonl"
    assert admin(db, private_dir, "export", "--output", str(out)) == 0
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["model"] for e in exported] == ["feet-model", "other"]

    assert admin(db, private_dir, "delete", str(second.id)) == 0
    assert store.get(second.id) is None
    actions = [(actor, action, entry) for _ts, actor, action, entry, _d in store.audit_log()]
    assert actions == [
        ("operator:tester", "add", first.id),
        ("operator:tester", "add", second.id),
        ("operator:tester", "hide", first.id),
        ("operator:tester", "unhide", first.id),
        ("operator:tester", "flag", second.id),
        ("operator:tester", "unflag", second.id),
        ("operator:tester", "rescore", first.id),
        ("operator:tester", "rescore", second.id),
        ("operator:tester", "items", None),
        ("operator:tester", "export", None),
        ("operator:tester", "delete", second.id),
    ]
    assert admin(db, private_dir, "delete", "999") == 2  # one line, exit 2
    assert "no entry #999" in capsys.readouterr().err


def test_junk_refused_with_per_file_counts(
    private_dir: Path, public_gold, tmp_path: Path, capsys
) -> None:
    short = file_records(public_gold, SHORT)
    feet = file_records(public_gold, FEET)
    rows = k_correct_predictions(feet, 2)[0] + k_correct_predictions(short[:1], 1)[0]
    path = write_jsonl(tmp_path / "junk.jsonl", rows)
    assert admin(tmp_path / "lb.sqlite3", private_dir, "add", str(path)) == 2
    err = capsys.readouterr().err
    assert f"{SHORT}: 1 of {len(short)} items" in err and "90%" in err
    assert FEET not in err  # that file is fully covered
    assert Store(tmp_path / "lb.sqlite3").count() == 0


def test_responses_are_not_marked(private_dir: Path, public_gold, tmp_path: Path) -> None:
    feet = file_records(public_gold, FEET)
    rows = [
        {"id": r["id"], "response": f"Answer: {r['answer']}"}
        for r in k_correct_predictions(feet, 4)[0]
    ]
    assert (
        admin(
            tmp_path / "lb.sqlite3",
            private_dir,
            "add",
            str(write_jsonl(tmp_path / "r.jsonl", rows)),
        )
        == 0
    )
    entry = Store(tmp_path / "lb.sqlite3").entries()[0]
    assert not entry.answers_extracted
