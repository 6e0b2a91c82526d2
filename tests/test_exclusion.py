"""Scores without disputed items (`report.rescore_without`, `score --exclude`): every number and
interval equal, to the last bit, to scoring the predictions again against the gold without
those items; the exclusion labelled in the report, its JSON and the summary; bad lists refused
in one line."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import run_cli
from respondeoqa_eval import InputError, evaluate
from respondeoqa_eval.data.gold import GoldSet, read_folder
from respondeoqa_eval.report import Exclusion, Report, rescore_without
from synthetic import SECRET_MARKER, write_private


def _pick(key: str, n: int) -> int:
    """A stable bucket in range(n) of `key` (the same in every run)."""
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % n


def _rows(gold: GoldSet) -> list[dict[str, str]]:
    """Predictions of every kind a report holds: right and wrong in the paper's format, right
    behind a lowercase marker (a format failure the lenient reading recovers), unreadable,
    translations, and items left without a prediction."""
    rows = []
    for r in gold.records:
        kind = _pick(r.id, 6)
        gold_answer = r.answers[0] if r.task != "multiple_choice" else r.answers[0][0]
        if kind == 0:
            continue  # missing: scores 0 and still counts
        if kind == 1:
            response = f"I think so.\nanswer: {gold_answer}"  # the paper's rules read nothing
        elif kind == 2:
            response = "No idea."
        elif kind == 3:
            response = "Thinking.\nAnswer: zzqqxx"
        else:
            response = f"Thinking.\nAnswer: {gold_answer}"
        rows.append({"id": r.id, "response": response})
    return rows


def _excluded(gold: GoldSet) -> set[str]:
    """Items of every task (translation too: BLEU changes), about one in nine."""
    return {r.id for r in gold.records if _pick("x" + r.id, 9) == 0}


def _without(report: Report) -> Report:
    return replace(report, excluded=None)


@pytest.mark.parametrize(("covered", "translations"), [(False, True), (True, True), (False, False)])
def test_equal_to_a_rescore_without_the_items(public_gold, covered, translations):
    """Translations among the items left out (BLEU computed again), or not (the report's BLEU
    kept: the same numbers)."""
    rows = _rows(public_gold)
    gone = {
        i
        for i in _excluded(public_gold)
        if translations or public_gold.by_id[i].task != "translation"
    }
    full = evaluate(rows, public_gold, bootstrap=200, restrict_to_covered=covered)
    without = rescore_without(full, gone, public_gold, source="a test list")
    again = evaluate(
        [row for row in rows if row["id"] not in gone],
        public_gold.subset(lambda r: r.id not in gone),
        bootstrap=200,
        restrict_to_covered=covered,
    )
    assert _without(without) == again  # every number and interval, floats compared with ==
    assert without.to_dict() == {**again.to_dict(), "excluded": without.excluded.to_dict()}
    # and the items did change them: the test can fail
    assert without.accuracy.overall != full.accuracy.overall
    assert (without.bleu_score("latin") != full.bleu_score("latin")) is translations
    assert without.extra != full.extra
    assert without.format_compliance != full.format_compliance
    scored = {it.id for it in full.items}
    assert without.excluded == Exclusion(
        items=tuple(it.id for it in full.items if it.id in gone),
        source="a test list",
        not_scored=len(gone - scored),
    )
    assert without.excluded.n == len(gone & scored) and without.n_items == len(scored - gone)


def test_private_items_are_counted_not_named_when_asked(tmp_path):
    gold = read_folder(write_private(tmp_path / "gold", with_public=True))
    rows = _rows(gold)
    gone = _excluded(gold)
    full = evaluate(rows, gold, bootstrap=50)
    named = rescore_without(full, gone, gold)
    counted = rescore_without(full, gone, gold, name_private=False)
    assert _without(named) == _without(counted)  # the numbers are the same either way
    private = {r.id for r in gold.records if r.is_private} & gone
    assert private and set(named.excluded.items) == gone
    assert set(counted.excluded.items) == gone - private
    assert counted.excluded.unnamed == len(private) and counted.excluded.n == len(gone)
    again = evaluate(
        [row for row in rows if row["id"] not in gone],
        gold.subset(lambda r: r.id not in gone),
        bootstrap=50,
    )
    assert _without(counted) == again
    text = " ".join(counted.summary().split())
    assert f"{len(private)} Certamen / NLE items left out, counted, not named" in text
    assert not any(i in text for i in private) and SECRET_MARKER not in text


def test_the_label_is_in_the_json_only_when_items_are_left_out(public_gold):
    full = evaluate(_rows(public_gold), public_gold, bootstrap=0)
    assert "excluded" not in full.to_dict()  # the paper's report: the same JSON as before
    some = sorted(_excluded(public_gold))[:3]
    without = rescore_without(full, [*some, *some], public_gold, source="three items")
    data = json.loads(without.to_json())
    assert data["excluded"] == {
        "n": 3,
        "items": [it.id for it in full.items if it.id in some],
        "unnamed": 0,
        "source": "three items",
        "not_scored": 0,
    }
    assert Report.from_dict(data) == without
    text = without.summary()
    assert text.splitlines()[0].startswith(
        "RespondeoQA evaluation, paper protocol, without 3 items"
    )
    assert "WITHOUT 3 ITEMS (three items)" in text
    assert all(i in text for i in some)  # each id whole, never cut at a hyphen
    assert "WITHOUT" not in full.summary()


def test_reports_that_cannot_be_recomputed_are_refused(public_gold):
    full = evaluate(_rows(public_gold), public_gold, bootstrap=0)
    with pytest.raises(InputError, match="no per-item results"):
        rescore_without(full.without_items(), [], public_gold)
    old = replace(full, items=tuple(replace(it, lenient=None) for it in full.items))
    with pytest.raises(InputError, match="no lenient readings"):
        rescore_without(old, [], public_gold)
    # an older report without a format part is recomputed without one
    older = replace(old, format_compliance=None)
    assert rescore_without(older, [], public_gold).format_compliance is None
    with pytest.raises(InputError, match="not items of the gold: made-up-1, made-up-2"):
        rescore_without(full, ["made-up-2", "made-up-1", full.items[0].id], public_gold)
    other = public_gold.subset(lambda r: r.task != "meter")
    with pytest.raises(InputError, match="is not in the gold"):
        rescore_without(full, [], other)


def _analysis_csv(path: Path, flagged: list[str], others: list[str]) -> Path:
    lines = ["id,question_id,suspected_gold_error,reasons"]
    lines += [f"{i},{i},True,agree" for i in flagged] + [f"{i},{i},False," for i in others]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.slow  # the command in a process of its own
def test_cli_exclude_a_flagged_csv_and_ids(tmp_path, public_dir, public_gold):
    rows = _rows(public_gold)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    ids = sorted(_excluded(public_gold))
    flagged, listed = ids[:4], ids[4:6]
    csv_path = _analysis_csv(tmp_path / "items.csv", flagged, ids[6:12])
    out = tmp_path / "report.json"
    done = run_cli(
        "score",
        str(preds),
        "--data-dir",
        str(public_dir),
        "--bootstrap",
        "100",
        "--exclude",
        str(csv_path),
        "--exclude-ids",
        ",".join(listed),
        "--report",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    report = Report.from_dict(json.loads(out.read_text(encoding="utf-8")))
    gone = set(flagged) | set(listed)
    again = evaluate(
        [r for r in rows if r["id"] not in gone],
        public_gold.subset(lambda r: r.id not in gone),
        bootstrap=100,
    )
    assert _without(report) == replace(again, predictions=report.predictions)
    assert set(report.excluded.items) == gone
    assert report.excluded.source == (
        "the suspected gold errors of items.csv and items given on the command line"
    )
    assert "WITHOUT 6 ITEMS" in done.stdout and all(i in done.stdout for i in gone)
    # a plain list of ids, one a line, with a comment
    listing = tmp_path / "ids.txt"
    listing.write_text("# disputed\n" + "\n".join(flagged) + "\n", encoding="utf-8")
    done = run_cli(
        "score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "0",
        "--exclude", str(listing), "-q", "--report", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    excluded = json.loads(out.read_text(encoding="utf-8"))["excluded"]
    assert excluded["n"] == 4 and excluded["source"] == "the items listed in ids.txt"


@pytest.mark.slow  # the command in a process of its own
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--exclude-ids", "made-up-id"], "not items of the gold: made-up-id"),
        (["--exclude-ids", " , "], "--exclude-ids: give item ids separated by commas"),
        (["--exclude", "NOFILE"], "nothing.txt: cannot read (No such file"),
        (["--exclude", "BADCSV"], "a CSV without the item analysis's id and"),
        (
            ["--exclude-ids", "prosody_III.I.9.1-la", "--eval-results", "out"],
            "--eval-results and --eee publish the paper's numbers",
        ),
    ],
)
def test_cli_bad_exclusions_are_one_line(tmp_path, public_dir, args, message):
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"id": "prosody_III.I.9.1-la", "answer": "x"}\n', encoding="utf-8")
    (tmp_path / "bad.csv").write_text("item,score\nx,1\n", encoding="utf-8")
    args = [
        str(tmp_path / "nothing.txt")
        if a == "NOFILE"
        else str(tmp_path / "bad.csv")
        if a == "BADCSV"
        else a
        for a in args
    ]
    if "--eval-results" in args:
        args += ["--eval-dataset", "org/name"]
    done = run_cli("score", str(preds), "--data-dir", str(public_dir), *args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_a_report_of_another_version_gets_its_bleu_computed_again(public_gold):
    rows = _rows(public_gold)
    gone = {i for i in _excluded(public_gold) if public_gold.by_id[i].task != "translation"}
    full = evaluate(rows, public_gold, bootstrap=100)
    older = replace(full, evaluator=replace(full.evaluator, version="0.0.1"))
    doctored = replace(older, bleu={})  # were it kept, it would show
    without = rescore_without(doctored, gone, public_gold)
    again = evaluate(
        [row for row in rows if row["id"] not in gone],
        public_gold.subset(lambda r: r.id not in gone),
        bootstrap=100,
    )
    assert _without(without) == again and without.bleu == full.bleu
    # and this evaluator's report keeps its own (the doctored part shows it was kept)
    kept = rescore_without(replace(full, bleu={}), gone, public_gold)
    assert kept.bleu == {}
