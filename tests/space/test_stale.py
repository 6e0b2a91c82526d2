"""Stale marking: an entry scored with an older evaluator version, or against gold files that
were corrected since (another gold fingerprint than the running Space's), is marked on the board
and in its detail until `respondeoqa-space admin rescore`; both causes, real SQLite file,
real gold folders, the real CLI."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

from respondeoqa_space.cli import main
from respondeoqa_space.rows import SELF_REPORTED_LABEL as SCORED_LABEL
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.store import Store
from respondeoqa_space.views.frames import ALL_COVERAGES, STALE_MARK

from .helpers import file_records, k_correct_predictions, write_jsonl

SHORT = "junior_scholarship_short_answer.json"
MARKED = f"{SCORED_LABEL}, {STALE_MARK}"


def space_on(data_dir: Path, db: Path) -> Space:
    return Space(SpaceConfig(db=db, data_dir=data_dir, bootstrap=50))


def type_of(space: Space, entry_id: int) -> str:
    board = space.table("Overview")
    return board.loc[board["Entry"] == f"#{entry_id}", "Type"].item()


def detail_note(space: Space, entry_id: int, folder: Path) -> list[str]:
    found = space.detail(f"e:{entry_id}")
    assert found is not None
    meta = found.metadata
    return meta.loc[meta["Field"] == "Note", "Value"].tolist()


def rescore(db: Path, data_dir: Path) -> int:
    return main(["admin", "--db", str(db), "--data-dir", str(data_dir), "--actor", "t", "rescore"])


def corrected_copy(data_dir: Path, target: Path) -> Path:
    """The gold folder with one answer of the short-answer file corrected."""
    shutil.copytree(data_dir, target)
    rows = json.loads((target / SHORT).read_text(encoding="utf-8"))
    rows[0]["answers"] = [rows[0]["answers"][0] + " (corrected)"]
    (target / SHORT).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return target


def test_corrected_gold_marks_until_rescored(private_dir: Path, public_gold, tmp_path: Path):
    db = tmp_path / "lb.sqlite3"
    preds = write_jsonl(
        tmp_path / "p.jsonl", k_correct_predictions(file_records(public_gold, SHORT), 40)[0]
    )
    first = space_on(private_dir, db)
    outcome = first.submit(preds, "gold-model", client="c1")
    assert outcome.ok, outcome.message
    entry_id = outcome.entry.id
    assert type_of(first, entry_id) == SCORED_LABEL
    assert detail_note(first, entry_id, tmp_path) == []
    store = Store(db)
    assert store.get(entry_id).gold_fingerprint == first.gold_fingerprint

    # the operator corrects a gold file and restarts the Space on it
    fixed = corrected_copy(private_dir, tmp_path / "fixed-gold")
    second = space_on(fixed, db)
    assert second.gold_fingerprint != first.gold_fingerprint
    assert type_of(second, entry_id) == MARKED
    assert detail_note(second, entry_id, tmp_path) == [f"scored with an {STALE_MARK}"]
    assert not store.get(entry_id).stale  # the evaluator version is current: the gold differs
    csv_text = second.snapshot().csv("Overview", ALL_COVERAGES)[1].decode("utf-8")
    assert MARKED in csv_text
    assert all(t != MARKED for t in second.table("Overview").query("Entry == 'paper'")["Type"])

    assert rescore(db, fixed) == 0
    assert store.get(entry_id).gold_fingerprint == second.gold_fingerprint
    assert type_of(second, entry_id) == SCORED_LABEL  # the running Space sees the re-score
    assert detail_note(second, entry_id, tmp_path) == []


def test_older_evaluator_version_marks_until_rescored(
    private_dir: Path, public_gold, tmp_path: Path
):
    db = tmp_path / "lb.sqlite3"
    preds = write_jsonl(
        tmp_path / "p.jsonl", k_correct_predictions(file_records(public_gold, SHORT), 30)[0]
    )
    space = space_on(private_dir, db)
    entry_id = space.submit(preds, "old-model", client="c1").entry.id
    store = Store(db)
    old = store.get(entry_id)
    items = tuple(store.item_scores(entry_id, public_only=False).values())
    evaluator = replace(old.report.evaluator, version="0.0.1")  # scored by an older release
    store.replace_scores(
        entry_id, replace(old.report, items=items, evaluator=evaluator), old.gold_fingerprint
    )
    assert type_of(space, entry_id) == MARKED
    assert detail_note(space, entry_id, tmp_path) == [f"scored with an {STALE_MARK}"]

    assert rescore(db, private_dir) == 0
    assert type_of(space, entry_id) == SCORED_LABEL
    assert not store.get(entry_id).stale


def test_unknown_gold_fingerprint_counts_by_version_only(
    private_dir: Path, public_gold, tmp_path: Path
):
    """An entry stored before fingerprints were kept has none; re-scoring could not clear a mark
    (such entries kept no predictions), so only its evaluator version decides."""
    db = tmp_path / "lb.sqlite3"
    preds = write_jsonl(
        tmp_path / "p.jsonl", k_correct_predictions(file_records(public_gold, SHORT), 20)[0]
    )
    space = space_on(private_dir, db)
    entry = space.submit(preds, "legacy-model", client="c1").entry
    assert not space.is_stale(replace(entry, gold_fingerprint=""))
    assert space.is_stale(replace(entry, gold_fingerprint="0" * 16))
    assert space.is_stale(replace(entry, gold_fingerprint="", scored_with="0.0.1"))
