"""Item analysis across entries (docs/item-analysis.md) on hand-made results whose statistics
are worked out by hand here: a planted gold error is flagged, a hard but sound item is not,
the discrimination is Pearson's r computed by `statistics.correlation`, private items stay
out of a public analysis; and `respondeoqa-eval items` end to end on real reports.
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli as _cli
from respondeoqa_eval import evaluate
from respondeoqa_eval.analysis.items import (
    AGREE,
    COLUMNS,
    GOLD_FORMAT,
    _log_partition_keyed,
    analyze_items,
)
from respondeoqa_eval.data.breakdowns import groups_of
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.metrics import METRICS
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


N_EASY = 8
RECORDS = {
    r.id: r
    for r in [
        *(_record(f"easy-{i}") for i in range(N_EASY)),
        _record("planted"),  # gold "Roma"; the four strongest entries say "Athenae"
        _record("hard"),  # nobody right, but no agreement
        _record("lure"),  # the four strongest right; the four weakest share one wrong answer
        _record(
            "bad-letter",
            "multiple_choice",
            options=["A: Mars", "B: Venus", "C: Ceres", "D: Juno"],
            answers=["E: Vesta"],
            answer_language="english",
        ),
        _record("secret", source="certamen"),  # planted like "planted"
    ]
}
# eight entries of graded strength: entry-e gets the first KNOWS[e] easy items right and gives
# its own wrong answer (OWN[e]) to the rest, so wrong answers agree only where planted
KNOWS = (8, 7, 6, 5, 3, 2, 1, 0)
OWN = ("Sparta", "Troia", "Carthago", "Corinthus", "Thebae", "Delphi", "Ostia", "Capua")
# the planted answer: "Athenae" from entries 0-3 (spelled two ways, one answer under the
# short-answer normalisation), the gold from entry-4, each weaker entry's own wrong answer
PLANTED = ("Athenae", "athenae.", "Athenae", "Athenae", "Roma")


def _answers(e: int) -> dict[str, str | None]:
    """entry-e's extracted answers (None: nothing extracted); scores follow from the gold."""
    planted = PLANTED[e] if e < len(PLANTED) else OWN[e]
    return {
        **{f"easy-{i}": "Roma" if i < KNOWS[e] else OWN[e] for i in range(N_EASY)},
        "planted": planted,
        "hard": None if e % 3 == 0 else OWN[(e + 1) % len(OWN)],
        "lure": "Roma" if e < 4 else "Sparta",
        "bad-letter": "ABCD"[e % 4],
        "secret": planted,
    }


ANSWERS = {f"entry-{e}": _answers(e) for e in range(len(KNOWS))}


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
    # by hand, over the 13 items: entry-e gets KNOWS[e] easy items; entries 0-3 also "lure";
    # entry-4 also "planted" and "secret". Nobody gets "hard" or "bad-letter" (no option's).
    assert [(e.name, e.score, e.strong) for e in analysis.entries] == [
        ("entry-0", 9 / 13, True),
        ("entry-1", 8 / 13, True),
        ("entry-2", 7 / 13, True),
        ("entry-3", 6 / 13, True),
        ("entry-4", 5 / 13, False),
        ("entry-5", 2 / 13, False),
        ("entry-6", 1 / 13, False),
        ("entry-7", 0 / 13, False),
    ]


def test_a_planted_gold_error_is_flagged(analysis):
    by_id = {it.id: it for it in analysis.items}
    planted = by_id["planted"]
    assert planted.reasons == (AGREE,) and planted.suspected_gold_error
    assert (planted.strong_entries, planted.strong_agree) == (4, 4)
    assert planted.strong_answer == "Athenae"  # shown in its most common spelling
    assert (planted.wrong_answer, planted.wrong_count) == ("Athenae", 4)
    assert (planted.right, planted.entries, planted.share_right) == (1, 8, 0.125)
    # 4 strong entries agree, one weaker gives the key's string: 0.72 at key_weight 0.1
    assert planted.agreement_posterior >= 0.7 and planted.agreement_ratio > 1
    # each entry's share right on the task's other items, Laplace-smoothed, by hand: of the
    # 11 other short answers, entries 0-3 get KNOWS[e] easy ones and "lure" right, entry-4
    # 3 easy ones and "secret", entries 5-7 KNOWS[e]: (r + 1) / (11 + 2)
    assert planted.agreeing_accuracy == pytest.approx((10 + 9 + 8 + 7) / 4 / 13)
    assert planted.other_accuracy == pytest.approx((5 + 3 + 2 + 1) / 4 / 13)
    assert planted.agreement.startswith(
        "4 of 8 entries answer 'Athenae' (they average 65% right on the task, the others 21%)"
    )
    assert re.search(
        r"; [1-9][\d,]* times likelier if the gold is wrong; chance the gold is wrong: 0\.\d\d$",
        planted.agreement,
    )
    # as many entries agree on "lure", but they are the weakest: a distractor, not suspect
    lure = by_id["lure"]
    assert (lure.wrong_answer, lure.wrong_count) == ("Sparta", 4)
    assert lure.agreement_posterior < 0.01 and not lure.suspected_gold_error
    assert lure.agreeing_accuracy < lure.other_accuracy
    # nobody gets "hard" right, but nobody agrees either: hard, not suspect (and not tested)
    hard = by_id["hard"]
    assert hard.share_right == 0.0 and not hard.suspected_gold_error
    assert (hard.unanswered, hard.wrong_count) == (3, 1) and hard.agreement == ""
    # the gold letter E is not among the options A-D: flagged whatever the entries say
    assert by_id["bad-letter"].reasons == (GOLD_FORMAT,)
    assert "not one of the options" in by_id["bad-letter"].gold_problem
    assert {it.id for it in analysis.flagged} == {"planted", "bad-letter", "secret"}


def test_items_are_sorted_hardest_first(analysis):
    shares = [it.share_right for it in analysis.items]
    assert shares == sorted(shares)
    assert analysis.items[0].share_right == 0.0 and analysis.items[-1].share_right == 7 / 8


def test_discrimination_is_the_item_rest_correlation(analysis):
    by_id = {it.id: it for it in analysis.items}
    # easy-1: right for entries 0-5; the entries' scores on the 12 other items (their score
    # above less easy-1): 8, 7, 6, 5, 4, 1, 1, 0 of 12
    rest = [8 / 12, 7 / 12, 6 / 12, 5 / 12, 4 / 12, 1 / 12, 1 / 12, 0 / 12]
    expected = statistics.correlation([1, 1, 1, 1, 1, 1, 0, 0], rest)
    assert by_id["easy-1"].discrimination == pytest.approx(expected)
    # planted: only entry-4 right; rest scores 9, 8, 7, 6, 4, 2, 1, 0 of 12: negative
    rest = [9 / 12, 8 / 12, 7 / 12, 6 / 12, 4 / 12, 2 / 12, 1 / 12, 0 / 12]
    expected = statistics.correlation([0, 0, 0, 0, 1, 0, 0, 0], rest)
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
    two = analyze_items({k: ENTRIES[k] for k in ("entry-0", "entry-4")})
    assert all(it.discrimination is None for it in two.items)
    assert not any(AGREE in it.reasons for it in two.items)


def test_fewer_than_five_entries_are_never_flagged_by_agreement():
    five = ("entry-0", "entry-1", "entry-2", "entry-5", "entry-7")
    flagged = analyze_items({k: ENTRIES[k] for k in five}, RECORDS)
    by_id = {it.id: it for it in flagged.items}
    assert by_id["planted"].reasons == (AGREE,)  # five entries: the evidence is enough
    # entry-4 in entry-5's place gives the key's own string: evidence that the key is right
    # (a wrong key's exact string is rarely given), so the posterior is lower
    keyed = analyze_items({k: ENTRIES[k] for k in (*five[:3], "entry-4", "entry-7")}, RECORDS)
    posterior = {it.id: it.agreement_posterior for it in keyed.items}["planted"]
    assert posterior < by_id["planted"].agreement_posterior
    # the same entries less the weakest: 3 of 4 answer "Athenae", but 4 entries are not tested
    four = analyze_items({k: ENTRIES[k] for k in five[:4]}, RECORDS)
    assert all(it.agreement_posterior is None and it.agreement == "" for it in four.items)
    by_id = {it.id: it for it in four.items}
    assert (by_id["planted"].wrong_count, by_id["planted"].entries) == (3, 4)
    # only the gold format rule flags
    assert [(it.id, it.reasons) for it in four.flagged] == [("bad-letter", (GOLD_FORMAT,))]


def test_the_evidence_columns_are_in_the_csv_and_the_docs():
    evidence = ("agreement_ratio", "agreement_posterior", "agreeing_accuracy", "other_accuracy")
    assert set(evidence) <= set(COLUMNS)
    page = (Path(__file__).parents[1] / "docs" / "item-analysis.md").read_text(encoding="utf-8")
    section = page.split("\n## Columns\n", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("| `")]
    named = {name for line in table for name in re.findall(r"`(\w+)`", line.split("|")[1])}
    assert named == set(COLUMNS)  # every column explained, and no column the CSV lacks


def test_a_public_analysis_leaves_private_items_out_and_counts_them():
    public = analyze_items(ENTRIES, RECORDS, public_only=True)
    assert "secret" not in {it.id for it in public.items}
    assert (public.private_items, public.private_flagged) == (1, 1)
    # the entries' scores are over public items only: entry-0 gets 8 easy items and "lure"
    assert public.entries[0].score == pytest.approx(9 / 12)
    rows = public.rows()
    assert all(tuple(row) == COLUMNS for row in rows)
    planted = next(row for row in rows if row["id"] == "planted")
    assert planted["question"] == "question planted?" and planted["gold"] == "Roma"
    assert planted["language_pair"] == "english-latin" and planted["multihop"] == "regular"
    assert planted["reasons"] == AGREE and planted["suspected_gold_error"] is True
    everything = analyze_items(ENTRIES, RECORDS).rows()
    secret = next(row for row in everything if row["id"] == "secret")
    assert secret["question"] is None and secret["gold"] is None  # private text: only if asked
    asked = analyze_items(ENTRIES, RECORDS, private_text=True).rows()
    assert next(row for row in asked if row["id"] == "secret")["gold"] == "Roma"


# -- the command ----------------------------------------------------------------------------


WRONG_WORDS = ("nescio", "ignoro", "dubito", "erro", "fallor", "haereo", "taceo", "quaero")
"""Each entry's own wrong answer (by its place in `wrong`): entries' wrong answers never agree."""


def _write_reports(tmp_path: Path, gold, wrong: dict[str, set[str]], planted: str) -> list[str]:
    """One report per entry on `gold`: the gold answer everywhere except the ids in
    `wrong[name]` (the entry's own word of `WRONG_WORDS`), and the strong entries (names
    starting "strong") answer "Athenae" on the `planted` item."""
    paths = []
    for name, word in zip(wrong, WRONG_WORDS, strict=False):
        rows = []
        for r in gold.records:
            answer = r.answers[0]
            if r.id in wrong[name]:
                answer = word
            if r.id == planted and name.startswith("strong"):
                answer = "Athenae"
            rows.append({"id": r.id, "answer": answer})
        path = tmp_path / f"{name}.json"
        path.write_text(evaluate(rows, gold, bootstrap=0).to_json(), encoding="utf-8")
        paths.append(str(path))
    return paths


# graded strength: an entry with stride w is wrong on the short answers i with i % 20 < w
STRIDES = {
    **{f"strong-{c}": w for c, w in zip("abcd", (1, 2, 3, 4), strict=True)},
    **{f"weak-{c}": w for c, w in zip("abcd", (6, 9, 12, 15), strict=True)},
}


@pytest.mark.slow
def test_the_command_flags_a_planted_gold_error_on_real_reports(tmp_path, public_dir, public_gold):
    short = [r.id for r in public_gold.records if r.task == "short_answer"]
    planted = short[7]  # wrong for the four weaker weak entries, right for weak-a
    wrong = {name: {q for i, q in enumerate(short) if i % 20 < w} for name, w in STRIDES.items()}
    paths = _write_reports(tmp_path, public_gold, wrong, planted)
    out = tmp_path / "items.csv"
    r = _cli("items", *paths, "--data-dir", str(public_dir), "-o", str(out), "--top", "3")
    assert r.returncode == 0, r.stderr
    assert "Suspected gold errors: 1 (1 where more entries agree on one wrong answer" in r.stdout

    # by hand: each entry's Laplace-smoothed share right on the other short answers,
    # (right + 1) / (others + 2); "Athenae" is wrong for the strong ones, the gold right for
    # weak-a, its own word wrong for the other weak entries (7 % 20 < their stride)
    def share(name: str) -> float:
        right = sum(1 for i in range(len(short)) if i != 7 and i % 20 >= STRIDES[name])
        return (right + 1) / (len(short) - 1 + 2)

    agreeing = statistics.mean(share(n) for n in STRIDES if n.startswith("strong"))
    others = statistics.mean(share(n) for n in STRIDES if n.startswith("weak"))
    assert (
        f"{planted}  4 of 8 entries answer 'Athenae' (they average {agreeing:.0%} right on the "
        f"task, the others {others:.0%}); "
    ) in r.stdout
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 797  # every accuracy item, no translation
    flagged = [row for row in rows if row["suspected_gold_error"] == "True"]
    assert [row["id"] for row in flagged] == [planted]
    gold = public_gold.by_id[planted]
    assert flagged[0]["gold"] == gold.answers[0] and flagged[0]["question"] == gold.question
    assert flagged[0]["wrong_answer"] == "Athenae" and flagged[0]["wrong_count"] == "4"
    assert flagged[0]["question_language"] == gold.question_language
    assert float(flagged[0]["agreement_posterior"]) >= 0.8
    assert float(flagged[0]["agreeing_accuracy"]) == pytest.approx(agreeing)
    assert float(flagged[0]["other_accuracy"]) == pytest.approx(others)


@pytest.mark.slow
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


@pytest.mark.slow
@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"a.json": "{}", "b.json": "{}"}, "a.json: not a report written by"),
        ({"a.json": "[1, 2]", "b.json": "{}"}, "a.json: not a report written by"),
        ({"a.json": "{not json", "b.json": "{}"}, "a.json: line 1, column 2: malformed JSON"),
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


@pytest.mark.slow
def test_the_command_refuses_reports_without_per_item_scores(tmp_path, public_gold):
    translation = [r for r in public_gold.records if r.task == "translation"][:3]
    rows = [{"id": r.id, "answer": r.answers[0]} for r in translation]
    for name in ("a", "b"):
        report = evaluate(rows, public_gold.subset(lambda r: r in translation), bootstrap=0)
        (tmp_path / f"{name}.json").write_text(report.to_json(), encoding="utf-8")
    r = _cli("items", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--no-gold")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "the reports hold no item with a per-item score" in r.stderr


@pytest.mark.slow
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


def test_a_wrong_keys_string_is_a_table_laid_beforehand():
    # by hand, the sequential process: "a" opens a table (2 / (2 + 1)), "a" joins it
    # (1 / (2 + 1 + 1)), one entry gives the key's string (1 / (2 + 1 + 2)): 1/30
    assert math.exp(_log_partition_keyed([2], 1, 2.0, 1.0)) == pytest.approx(1 / 30)
    # nobody gives the key's string: "a" opens a table (2/3), "b" another (2/4)
    assert math.exp(_log_partition_keyed([1, 1], 0, 2.0, 1.0)) == pytest.approx(1 / 3)


# -- a changed foot in one position ----------------------------------------------------------

FEET_LINES = [
    ["dactyl", "spondee", "dactyl", "spondee"],
    ["spondee", "dactyl", "spondee", "dactyl"],
    ["iambus", "iambus", "spondee", "iambus"],
    ["trochee", "spondee", "dactyl", "trochee"],
    ["anapest", "iambus", "anapest", "iambus"],
    ["dactyl", "dactyl", "spondee", "spondee"],
    ["choriamb", "choriamb", "iambus", "iambus"],
    ["spondee", "spondee", "dactyl", "dactyl"],
]
"""The sound feet items' golds."""
PLANTED_LINE = ["spondee", "dactyl", "spondee", "spondee"]  # the gold's foot 3 is wrong
TRUE_LINE = ["spondee", "dactyl", "dactyl", "spondee"]
FEET_ENTRIES = 8


def _near_miss(line: list[str], at: int) -> str:
    """`line` with the foot at `at` changed (to one no gold has there)."""
    changed = list(line)
    changed[at] = "tribrac"
    return ", ".join(changed)


def _feet_answers(e: int) -> dict[str, str]:
    """entry-e on the feet items: the sound lines right but for a near miss on every third
    (a different position each time, so no position gathers them); on the planted line the six
    strongest give the true foot 3 (written two ways), each with another foot of the true line
    missed, so no two whole answers agree; the two weakest are far off."""
    answers = {}
    for i, line in enumerate(FEET_LINES):
        right = (i + e) % 3 != 0
        answers[f"line-{i}"] = ", ".join(line) if right else _near_miss(line, (i + e) % 4)
    if e < 6:
        line = list(TRUE_LINE)
        line[2] = "dactylus" if e == 5 else "dactyl"
        answers["planted"] = _near_miss(line, (0, 1, 3)[e % 3]) if e >= 3 else ", ".join(line)
    else:
        answers["planted"] = "iambus, iambus, iambus, iambus"
    return answers


def _feet_board(
    sound_lines: list[list[str]], answer: Callable[[int, str, list[str]], str]
) -> dict[str, Any]:
    """The analysis of FEET_ENTRIES entries on feet items: the `sound_lines` ("line-i") and
    "planted" (gold PLANTED_LINE); entry-e answers item `item_id` of gold `line` with
    `answer(e, item_id, line)`."""
    golds = {f"line-{i}": line for i, line in enumerate(sound_lines)} | {"planted": PLANTED_LINE}
    records = {
        item_id: _record(item_id, "feet", answers=[", ".join(line)], answer_language="english")
        for item_id, line in golds.items()
    }
    metric = METRICS["feet"]
    entries = {}
    for e in range(FEET_ENTRIES):
        results = []
        for item_id, gold in golds.items():
            given = answer(e, item_id, gold)
            r = records[item_id]
            results.append(
                ItemResult(
                    r.id, r.question_id, "english", "feet", r.source, "scansion", given,
                    metric.score(r.answers, "english", given), False, groups_of(r),
                )
            )  # fmt: skip
        entries[f"entry-{e}"] = results
    return {it.id: it for it in analyze_items(entries, records).items}


def test_a_changed_foot_is_found_in_its_position():
    by_id = _feet_board(FEET_LINES, lambda e, item_id, _: _feet_answers(e)[item_id])
    planted = by_id["planted"]
    # only the three strongest give the true line whole (0.49 from whole answers alone, under
    # the cut-off); foot 3's agreement is what tells
    assert planted.reasons == (AGREE,) and planted.agreement_foot == 3
    # six of eight write foot 3 as a dactyl, five of them "dactyl": shown in that spelling
    assert (planted.agreement_answer, planted.agreement_count) == ("dactyl", 6)
    assert planted.agreement.startswith("at foot 3, 6 of 8 entries answer 'dactyl' (they average")
    # the sound lines' near misses are spread over the positions: none is suspect
    assert not any(by_id[f"line-{i}"].suspected_gold_error for i in range(len(FEET_LINES)))


FAR = (
    "tribrac",
    "anapest",
    "choriamb",
    "amphibrac",
    "dichoree",
    "great ionic",
    "pyrrhic",
    "trochee",
)
"""Each entry's foot for the lines it does not know (the golds have none of these)."""
SOUND_LINES = [
    [("dactyl", "spondee", "iambus")[(i >> k) % 3] for k in range(4)] for i in range(3, 43)
]
"""40 sound feet items (as many as the public ones): lines of dactyls, spondees and iambs."""


def _line_board(near_misses: bool) -> dict[str, Any]:
    """Eight entries on the sound lines (entry-e knows line i unless (i + e) % 4 == 0) and the
    planted line, which only entry-0, the strongest, gives: as its true feet. An entry that
    does not know a line writes its own foot everywhere, or (`near_misses`, on the sound
    lines) in one place of the gold's line only."""

    def answer(e: int, item_id: str, gold: list[str]) -> str:
        knows = (e == 0) if item_id == "planted" else (int(item_id[5:]) + e) % 4 != 0
        line = list(TRUE_LINE if item_id == "planted" else gold)
        if not knows and near_misses and item_id != "planted":
            line[(e + len(item_id)) % 4] = FAR[e]
        elif not knows:
            line = [FAR[e]] * 4
        return ", ".join(line)

    return _feet_board(SOUND_LINES, answer)


def test_one_strong_line_one_foot_off_the_gold_tells_where_wrong_lines_are_far_off():
    by_id = _line_board(near_misses=False)
    planted = by_id["planted"]
    # one entry only, and its foot 3 given by nobody else: no whole answer or foot position
    # is given twice, only the line one foot off the gold can tell
    assert planted.reasons == (AGREE,) and planted.agreement_foot == 3
    assert planted.agreement_answer == "spondee, dactyl, dactyl, spondee"
    assert planted.agreement_count == 1 and planted.agreement_posterior >= 0.7
    assert planted.agreement.startswith(
        "1 of 8 entries answer 'spondee, dactyl, dactyl, spondee', the gold's feet but foot 3 ("
    )
    assert not any(by_id[f"line-{i}"].suspected_gold_error for i in range(len(SOUND_LINES)))
    # where the entries' wrong lines to sound items are near misses of the gold, one such
    # line to the planted item proves nothing
    near = _line_board(near_misses=True)
    assert not near["planted"].suspected_gold_error
    assert not any(near[f"line-{i}"].suspected_gold_error for i in range(len(SOUND_LINES)))


def _planted_board(public_gold, n_entries: int) -> dict[str, list[ItemResult]]:
    """Entries of the planted-error benchmark (tests/planted_gold.py) on two public files:
    short answers and feet, with planted gold errors among them."""
    from planted_gold import plant, simulate

    files = ("junior_scholarship_short_answer.json", "prosody_feet_questions_latin.json")
    items = [r for r in public_gold.records if r.file in files]
    planted = plant(items, 7, {"short_answer": 4, "feet": 3}, ())
    return simulate([planted.gold[r.id] for r in items], public_gold.by_id, 7, False, n_entries)


def test_items_taken_a_few_at_a_time_give_the_same_numbers(public_gold, monkeypatch):
    """The difficulty fit takes items a chunk at a time (issue 40: memory bounded however many
    entries); each item's numbers are those of the whole pool at once, to the last bit."""
    from respondeoqa_eval.analysis import items as items_module

    entries = _planted_board(public_gold, 40)
    whole = analyze_items(entries, public_gold.by_id)  # every item in one chunk
    assert whole.flagged and len(whole.entries) == 40
    for cells in (1, 40 * 81 * 7):  # one item a chunk; seven
        monkeypatch.setattr(items_module, "_CHUNK_CELLS", cells)
        again = analyze_items(entries, public_gold.by_id)
        assert again.entries == whole.entries
        assert again.items == whole.items


def test_the_difficulty_fit_holds_a_bounded_chunk_whatever_the_entries(monkeypatch):
    """The fit's memory does not grow with items x entries x grid: 200 items of 200 entries
    (3.2 million cells, 26 MB per float array at once) in chunks of 64 K cells (512 KB)."""
    import tracemalloc

    import numpy as np
    from respondeoqa_eval.analysis import items as items_module

    monkeypatch.setattr(items_module, "_CHUNK_CELLS", 1 << 16)
    rng = np.random.default_rng(0)
    pool = [(rng.normal(0.0, 1.0, 200), (rng.random(200) < 0.5).astype(float)) for _ in range(200)]
    tracemalloc.start()
    try:
        items_module._fit_difficulty(pool, guessed=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # a few chunks, the padded item x entry arrays and the tables: not one 26 MB array
    assert peak < 8e6, f"{peak / 1e6:.1f} MB at its peak"
