"""Item analysis across entries (README: Item analysis) on hand-made results whose statistics
are worked out by hand here: a planted gold error is flagged, a hard but sound item is not,
the discrimination is Pearson's r computed by `statistics.correlation`, private items stay
out of a public analysis; and `respondeoqa-eval items` end to end on real reports.
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest
from conftest import run_cli as _cli
from respondeoqa_eval import evaluate
from respondeoqa_eval.analysis.items import COLUMNS, GOLD_FORMAT, STRONG_AGREE, analyze_items
from respondeoqa_eval.data.breakdowns import groups_of
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.report.model import ItemResult
from synthetic import SECRET_MARKER, write_private


def _record(qid: str, task: str = "short_answer", source: str = "jun-schol", **kw) -> Record:
    return Record(
        id=qid,
        question_id=qid,
        question_language="english",
        answer_language=kw.pop("answer_language", "latin"),
        source=source,
        source_name="test",
        source_year=1900,
        task=task,
        question_format="multiple_choice" if task == "multiple_choice" else "short_answer",
        question_content="vocabulary",
        category="knowledge",
        difficulty="unknown",
        question=f"question {qid}?",
        multiple_choice_options=kw.pop("options", []),
        answers=kw.pop("answers", ["Roma"]),
        multihop=False if task == "short_answer" else None,
    )


RECORDS = {
    r.id: r
    for r in [
        *(_record(f"easy-{i}") for i in range(4)),
        _record("planted"),  # gold "Roma"; the strong entries say "Athenae"
        _record("hard"),  # nobody right, but no agreement
        _record(
            "bad-letter",
            "multiple_choice",
            options=["A: Mars", "B: Venus", "C: Ceres", "D: Juno"],
            answers=["E: Vesta"],
            answer_language="english",
        ),
        _record("secret", source="certamen"),
    ]
}
# entry -> item -> extracted answer (None: nothing extracted); scores follow from the gold
ANSWERS = {
    "strong-1": {
        **{f"easy-{i}": "Roma" for i in range(4)},
        "planted": "Athenae",
        "hard": "Carthago",
        "bad-letter": "A",
        "secret": "Athenae",
    },
    "strong-2": {
        **{f"easy-{i}": "Roma" for i in range(4)},
        "planted": "athenae.",  # the same answer under the short-answer normalisation
        "hard": "Corinthus",
        "bad-letter": "B",
        "secret": "Athenae",
    },
    "weak-1": {
        "easy-0": "Roma",
        "easy-1": "Sparta",
        "easy-2": None,
        "easy-3": "Sparta",
        "planted": "Roma",
        "hard": "Sparta",
        "bad-letter": "C",
        "secret": "Roma",
    },
    "weak-2": {
        "easy-0": "Sparta",
        "easy-1": "Roma",
        "easy-2": "Sparta",
        "easy-3": "Sparta",
        "planted": "Sparta",
        "hard": None,
        "bad-letter": "A",
        "secret": "Sparta",
    },
}


def _results(answers: dict[str, str | None]) -> list[ItemResult]:
    out = []
    for item_id, answer in answers.items():
        r = RECORDS[item_id]
        if r.task == "multiple_choice":
            score = float(answer is not None and answer[:1] == r.answers[0][:1])
        else:
            score = float(answer is not None and answer.lower().strip(".") == r.answers[0].lower())
        out.append(
            ItemResult(
                r.id, r.question_id, "english", r.task, r.source, r.question_content,
                answer, score, False, groups_of(r),
            )
        )  # fmt: skip
    return out


ENTRIES = {name: _results(a) for name, a in ANSWERS.items()}


@pytest.fixture(scope="module")
def analysis():
    return analyze_items(ENTRIES, RECORDS)


def test_entries_are_ranked_and_the_better_half_is_strong(analysis):
    # by hand: the strong entries get the four easy items (4/8); weak-1 easy-0, planted and
    # secret (3/8); weak-2 easy-1 (1/8). Nobody gets bad-letter, whose gold is no option.
    assert [(e.name, e.score, e.strong) for e in analysis.entries] == [
        ("strong-1", 4 / 8, True),
        ("strong-2", 4 / 8, True),
        ("weak-1", 3 / 8, False),
        ("weak-2", 1 / 8, False),
    ]


def test_a_planted_gold_error_is_flagged(analysis):
    by_id = {it.id: it for it in analysis.items}
    planted = by_id["planted"]
    assert planted.reasons == (STRONG_AGREE,) and planted.suspected_gold_error
    assert (planted.strong_entries, planted.strong_agree) == (2, 2)
    assert planted.strong_answer == "Athenae"  # shown as the first entry spelled it
    assert (planted.wrong_answer, planted.wrong_count) == ("Athenae", 2)
    assert (planted.right, planted.entries, planted.share_right) == (1, 4, 0.25)
    # nobody gets "hard" right, but the strong entries disagree: hard, not suspect
    hard = by_id["hard"]
    assert hard.share_right == 0.0 and not hard.suspected_gold_error
    assert (hard.unanswered, hard.wrong_count) == (1, 1)
    # the gold letter E is not among the options A-D: flagged whatever the entries say
    assert by_id["bad-letter"].reasons == (GOLD_FORMAT,)
    assert "not one of the options" in by_id["bad-letter"].gold_problem
    assert {it.id for it in analysis.flagged} == {"planted", "bad-letter", "secret"}


def test_items_are_sorted_hardest_first(analysis):
    shares = [it.share_right for it in analysis.items]
    assert shares == sorted(shares)
    assert analysis.items[0].share_right == 0.0 and analysis.items[-1].share_right == 0.75


def test_discrimination_is_the_item_rest_correlation(analysis):
    by_id = {it.id: it for it in analysis.items}
    # easy-1: right for strong-1, strong-2, weak-2; the entries' scores on the 7 other items:
    # strong-1 3/7, strong-2 3/7, weak-1 3/7, weak-2 0/7
    expected = statistics.correlation([1, 1, 0, 1], [3 / 7, 3 / 7, 3 / 7, 0 / 7])
    assert by_id["easy-1"].discrimination == pytest.approx(expected)
    # planted: only weak-1 right; rest scores 4/7, 4/7, 2/7, 1/7: negative
    expected = statistics.correlation([0, 0, 1, 0], [4 / 7, 4 / 7, 2 / 7, 1 / 7])
    assert expected < 0 and by_id["planted"].discrimination == pytest.approx(expected)
    assert by_id["hard"].discrimination is None  # nobody right: no spread


def test_partial_credit_without_spread_has_no_discrimination():
    feet = _record("f", "feet", answers=["Trochee, Spondee, Dactyl, Trochee, Trochee"])
    entries = {}
    for e, answers in enumerate([(1, 1, 1), (1, 0, 1), (0, 0, 1), (0, 0, 0)]):
        results = _results({f"easy-{i}": "Roma" if a else "Sparta" for i, a in enumerate(answers)})
        # one foot of five right for everyone: 0.2 each, which is not exact in floating point
        results.append(
            ItemResult(
                "f", "f", "english", "feet", "jun-schol", "scansion", "trochee", 0.2, False,
                groups_of(feet),
            )
        )  # fmt: skip
        entries[f"entry-{e}"] = results
    by_id = {it.id: it for it in analyze_items(entries).items}
    assert by_id["f"].discrimination is None and by_id["f"].mean_score == pytest.approx(0.2)
    assert by_id["f"].share_right == 0.0 and by_id["easy-0"].discrimination is not None


def test_too_few_entries_give_no_discrimination_and_no_agreement_flag():
    two = analyze_items({k: ENTRIES[k] for k in ("strong-1", "weak-1")})
    assert all(it.discrimination is None for it in two.items)
    # one strong entry is never "strong entries agree"
    assert not any(STRONG_AGREE in it.reasons for it in two.items)


def test_a_public_analysis_leaves_private_items_out_and_counts_them():
    public = analyze_items(ENTRIES, RECORDS, public_only=True)
    assert "secret" not in {it.id for it in public.items}
    assert (public.private_items, public.private_flagged) == (1, 1)
    # the entries' scores are over public items only: 4/7 for the strong ones
    assert public.entries[0].score == pytest.approx(4 / 7)
    rows = public.rows()
    assert all(tuple(row) == COLUMNS for row in rows)
    planted = next(row for row in rows if row["id"] == "planted")
    assert planted["question"] == "question planted?" and planted["gold"] == "Roma"
    assert planted["language_pair"] == "english-latin" and planted["multihop"] == "regular"
    assert planted["reasons"] == STRONG_AGREE and planted["suspected_gold_error"] is True
    everything = analyze_items(ENTRIES, RECORDS).rows()
    secret = next(row for row in everything if row["id"] == "secret")
    assert secret["question"] is None and secret["gold"] is None  # private text: only if asked
    asked = analyze_items(ENTRIES, RECORDS, private_text=True).rows()
    assert next(row for row in asked if row["id"] == "secret")["gold"] == "Roma"


# -- the command ----------------------------------------------------------------------------


def _write_reports(tmp_path: Path, gold, wrong: dict[str, set[str]], planted: str) -> list[str]:
    """One report per entry on `gold`: the gold answer everywhere except the ids in
    `wrong[name]` ("nescio"), and the strong entries (names starting "strong") answer
    "Athenae" on the `planted` item."""
    paths = []
    for name, bad in wrong.items():
        rows = []
        for r in gold.records:
            answer = r.answers[0]
            if r.id in bad:
                answer = "nescio"
            if r.id == planted and name.startswith("strong"):
                answer = "Athenae"
            rows.append({"id": r.id, "answer": answer})
        path = tmp_path / f"{name}.json"
        path.write_text(evaluate(rows, gold, bootstrap=0).to_json(), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_the_command_flags_a_planted_gold_error_on_real_reports(tmp_path, public_dir, public_gold):
    short = [r.id for r in public_gold.records if r.task == "short_answer"]
    planted = short[7]
    wrong = {
        "strong-a": set(short[100:110]),
        "strong-b": set(short[110:120]),
        "weak-a": set(short[::2]),
        "weak-b": set(short[1::2]),
    }
    paths = _write_reports(tmp_path, public_gold, wrong, planted)
    out = tmp_path / "items.csv"
    r = _cli("items", *paths, "--data-dir", str(public_dir), "-o", str(out), "--top", "3")
    assert r.returncode == 0, r.stderr
    assert "Suspected gold errors: 1 (1 where strong entries agree on one wrong answer" in r.stdout
    assert f"{planted}  2 of 2 strong entries answer 'Athenae'" in r.stdout
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 797  # every accuracy item, no translation
    flagged = [row for row in rows if row["suspected_gold_error"] == "True"]
    assert [row["id"] for row in flagged] == [planted]
    gold = public_gold.by_id[planted]
    assert flagged[0]["gold"] == gold.answers[0] and flagged[0]["question"] == gold.question
    assert flagged[0]["wrong_answer"] == "Athenae" and flagged[0]["wrong_count"] == "2"
    assert flagged[0]["question_language"] == gold.question_language


def test_the_command_keeps_private_text_out_unless_asked(tmp_path):
    data = write_private(tmp_path / "data", with_public=True)
    gold = read_folder(data)
    certamen = [r.id for r in gold.records if r.source == "certamen" and r.task == "short_answer"]
    wrong = {"strong-a": set(), "strong-b": set(certamen[:2]), "weak-a": set(certamen)}
    paths = _write_reports(tmp_path, gold, wrong, certamen[5])
    out = tmp_path / "items.csv"
    r = _cli("items", *paths, "--data-dir", str(data), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert certamen[5] in r.stdout  # the user's own report: the id is shown
    assert SECRET_MARKER not in out.read_text(encoding="utf-8") + r.stdout + r.stderr
    r = _cli("items", *paths, "--data-dir", str(data), "-o", str(out), "--private-text")
    assert r.returncode == 0 and SECRET_MARKER in out.read_text(encoding="utf-8")
    r = _cli("items", *paths, "--data-dir", str(data), "-o", str(out), "--public-only")
    assert r.returncode == 0 and certamen[5] not in out.read_text(encoding="utf-8")
    assert "Private items left out:" in r.stdout


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.json": "{}", "b.json": "{}"}, "a.json: not a report written by"),
        ({"a.json": "[1, 2]", "b.json": "{}"}, "a.json: not a report written by"),
        ({"a.json": "{not json", "b.json": "{}"}, "a.json: line 1: malformed JSON"),
        ({"a.json": None}, "items needs at least two reports"),
    ],
)
def test_the_command_refuses_bad_reports_in_one_line(tmp_path, files, message):
    paths = []
    for name, text in files.items():
        if text is not None:
            (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    r = _cli("items", *paths, "--no-gold", "-o", str(tmp_path / "out.csv"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr
    assert not (tmp_path / "out.csv").exists()


def test_the_command_refuses_reports_without_per_item_scores(tmp_path, public_gold):
    translation = [r for r in public_gold.records if r.task == "translation"][:3]
    rows = [{"id": r.id, "answer": r.answers[0]} for r in translation]
    for name in ("a", "b"):
        report = evaluate(rows, public_gold.subset(lambda r: r in translation), bootstrap=0)
        (tmp_path / f"{name}.json").write_text(report.to_json(), encoding="utf-8")
    r = _cli("items", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--no-gold")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "the reports hold no item with a per-item score" in r.stderr


def test_the_command_refuses_a_report_without_items_and_a_missing_file(tmp_path, public_gold):
    rows = [{"id": r.id, "answer": r.answers[0]} for r in public_gold.records]
    report = evaluate(rows, public_gold, bootstrap=0)
    (tmp_path / "full.json").write_text(report.to_json(), encoding="utf-8")
    (tmp_path / "slim.json").write_text(report.without_items().to_json(), encoding="utf-8")
    full, slim, gone = (str(tmp_path / n) for n in ("full.json", "slim.json", "gone.json"))
    r = _cli("items", full, slim, "--no-gold")
    assert r.returncode == 2 and "slim.json: the report has no per-item results" in r.stderr
    r = _cli("items", full, gone, "--no-gold")
    assert r.returncode == 2 and "gone.json: cannot read" in r.stderr
    r = _cli("items", full, full, "--no-gold")
    assert r.returncode == 2 and "the same report is given twice" in r.stderr
    data = json.loads(report.to_json())
    assert data["items"]  # the full report itself is fine
