"""Hostile predictions files get one-line InputErrors (Hub results files: test_hub_results.py)."""

from __future__ import annotations

import csv
import json

import pytest
from respondeoqa_eval.cli import main
from respondeoqa_eval.errors import InputError
from respondeoqa_eval.predictions.load import load_predictions

HUGE_INT = "1" * 50_000
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("p.json", HUGE_INT, "p.json: unreadable JSON value"),
        ("p.json", DEEP, "p.json: JSON nested too deeply"),
        (
            "p.jsonl",
            '{"id": "a", "response": "x"}\n{"id": ' + HUGE_INT + "}\n",
            "line 2: unreadable",
        ),
        ("p.jsonl", '{"id": "a", "response": ' + DEEP + "}\n", "p.jsonl: line 1: JSON nested"),
    ],
)
def test_hostile_json_is_a_clear_error(
    tmp_path, public_gold, capsys, public_dir, name, text, expected
):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=expected.replace(".", r"\.")):
        load_predictions(path, public_gold)
    assert main(["score", str(path), "--data-dir", str(public_dir), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err and len(err) < 300


def test_csv_cell_longer_than_the_csv_default_limit(tmp_path, public_gold):
    record = next(r for r in public_gold.records if r.task == "short_answer")
    path = tmp_path / "p.csv"
    long = "x" * 300_000 + "\nAnswer: " + record.answers[0]  # csv's default limit is 131072
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["id", "response"], [record.id, long]])
    preds = load_predictions(path, public_gold)
    assert preds.by_id[record.id].text == long


@pytest.mark.parametrize("name", [".jsonl", ".preds.jsonl"])
def test_file_names_beginning_with_a_dot(tmp_path, public_gold, name):
    record = public_gold.records[0]
    path = tmp_path / name
    path.write_text(json.dumps({"id": record.id, "response": "x"}) + "\n", encoding="utf-8")
    assert list(load_predictions(path, public_gold).by_id) == [record.id]


def test_hidden_files_in_a_paper_layout_folder_are_ignored(tmp_path, public_gold):
    record = next(r for r in public_gold.records if r.file.startswith("junior"))
    (tmp_path / record.file).write_text(json.dumps({record.question_id: "x"}), encoding="utf-8")
    (tmp_path / f"._{record.file}").write_bytes(b"\x00\x05\x16\x07\xff")  # macOS AppleDouble
    assert list(load_predictions(tmp_path, public_gold).by_id) == [record.id]
