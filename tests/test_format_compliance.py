"""Format compliance beside the paper's numbers (docs/format-compliance.md).

Hand-made items with planted format failures, whose paper and lenient scores are worked out
by hand below; each lenient rule on responses written for it; the gold format rule on planted
gold errors and on every public item; old reports without the format part still read; and the
paper's numbers of a fixed, messy submission hashed before format compliance existed.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from lenient_variants import SEED, measure, shipped_records, variants
from respondeoqa_eval import evaluate
from respondeoqa_eval.data.gold import GoldSet, read_folder
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.report.model import Report
from respondeoqa_eval.scoring.answer_format import gold_format_problem, well_formed
from respondeoqa_eval.scoring.lenient import PAPER, lenient_answer
from respondeoqa_eval.scoring.per_item import score_one
from synthetic import write_private

OPTIONS = ["A: Mars", "B: Venus", "C: Jupiter", "D: Juno"]
FEET_Q = "What is the name of each foot in the following line of poetry?\nIntĕ|gēr vī"
METER_Q = "Form the following line into verse.\nIpse dei *imâ* tollitur"


def rec(qid: str, task: str, answers: list[str], **kw) -> Record:
    fmt = "multiple_choice" if task == "multiple_choice" else "short_answer"
    content = {"translation": "translation", "feet": "scansion", "meter": "scansion"}
    lang = kw.pop("answer_language", "latin")
    return Record(
        id=qid,
        question_id=qid,
        question_language=kw.pop("question_language", "english"),
        answer_language=lang,
        source=kw.pop("source", "jun-schol"),
        source_name="test",
        source_year=1900,
        task=task,
        question_format=fmt,
        question_content=content.get(task, "vocabulary"),
        category="skill" if task in content else "knowledge",
        difficulty="unknown",
        question=kw.pop("question", "q"),
        multiple_choice_options=kw.pop("options", []),
        answers=answers,
        **kw,
    )


GOLD = GoldSet(
    [
        rec("mc", "multiple_choice", ["B: Venus"], options=OPTIONS, answer_language="english"),
        rec("sa-planted", "short_answer", ["Roma"]),
        rec("sa-right", "short_answer", ["Roma"]),
        rec("sa-wrong", "short_answer", ["Roma"]),
        rec("feet", "feet", ["Trochee, Spondee"], question=FEET_Q, answer_language="english"),
        rec("meter", "meter", ["Ipse dei tollitur imâ"], question=METER_Q),
        rec("tr", "translation", ["Rome is a city."], answer_language="english"),
    ]
)
RESPONSES = {
    # the colon fallback reads "r" from the first line; the letter is on the last one
    "mc": "Step 1: read the options\nThe answer must be this one.\n(B)",
    # a trailing newline: the paper reads only the (empty) last line
    "sa-planted": "Thinking.\nAnswer: Rōma\n",
    "sa-right": "Thinking.\nAnswer: Roma",
    # a lowercase marker, and a wrong answer: a format failure that stays wrong
    "sa-wrong": "answer: Athenae",
    # read by the paper, but not a comma-separated list: 0 of 2 feet
    "feet": "Answer: trochee spondee",
    # no marker at all
    "meter": 'I would write:\n"Ipse dei tollitur imâ"',
    # the marker on the first line, which the paper's translation rule never reads
    "tr": "Answer: Roma est urbs.\nThat is a fine translation.",
}


@pytest.fixture(scope="module")
def planted() -> Report:
    rows = [{"id": k, "response": v} for k, v in RESPONSES.items()]
    return evaluate(rows, GOLD, bootstrap=0)


def test_planted_format_failures_are_read_by_the_lenient_rules_only(planted):
    items = {it.id: it for it in planted.items}
    # the paper's protocol, by hand: only sa-right scores, 1 of the 6 accuracy items
    assert planted.accuracy.overall.score == 1 / 6 and planted.accuracy.overall.n == 6
    assert {k: items[k].score for k in RESPONSES if k != "tr"} == {
        "mc": 0.0,
        "sa-planted": 0.0,
        "sa-right": 1.0,
        "sa-wrong": 0.0,
        "feet": 0.0,
        "meter": 0.0,
    }
    assert [items[k].extracted for k in ("mc", "sa-planted", "feet", "meter", "tr")] == [
        "r",
        None,
        "trochee spondee",
        None,
        "",
    ]
    lenient = {k: (it.lenient.answer, it.lenient.rule, it.lenient.score) for k, it in items.items()}
    assert lenient == {
        "mc": ("B", "mc:letter-line", 1.0),
        "sa-planted": ("Rōma", "short:marker", 1.0),
        "sa-right": ("Roma", PAPER, 1.0),
        "sa-wrong": ("Athenae", "short:marker", 0.0),
        "feet": ("trochee, spondee", "feet:names", 1.0),
        "meter": ("Ipse dei tollitur imâ", "meter:rearranged", 1.0),
        "tr": ("Roma est urbs.", "translation:marker", None),
    }
    assert [it.answered for it in planted.items] == [True, False, True, False, True, False, False]


def test_planted_format_failures_are_counted(planted):
    fc = planted.format_compliance
    assert fc.accuracy_lenient.overall.score == 5 / 6
    assert planted.lenient_gap() == pytest.approx(4 / 6)
    assert fc.overall.to_dict() == {
        "n": 6,
        "missing": 0,
        "answered": 3,
        "failures": 5,
        "right": 4.0,
    }
    assert {k: v.to_dict() for k, v in fc.by_task.items()} == {
        "multiple_choice": {"n": 1, "missing": 0, "answered": 1, "failures": 1, "right": 1.0},
        "short_answer": {"n": 3, "missing": 0, "answered": 1, "failures": 2, "right": 1.0},
        "translation": {"n": 1, "missing": 0, "answered": 0, "failures": 1, "right": None},
        "feet": {"n": 1, "missing": 0, "answered": 1, "failures": 1, "right": 1.0},
        "meter": {"n": 1, "missing": 0, "answered": 0, "failures": 1, "right": 1.0},
    }
    assert {k: v.to_dict() for k, v in fc.by_rule.items()} == {
        "mc:letter-line": {"failures": 1, "right": 1.0},
        "short:marker": {"failures": 2, "right": 1.0},
        "meter:rearranged": {"failures": 1, "right": 1.0},
        "feet:names": {"failures": 1, "right": 1.0},
        "translation:marker": {"failures": 1, "right": None},
    }
    # every breakdown of the paper has its lenient twin: short answers 1/3 -> 2/3
    assert fc.accuracy_lenient.group("by_task", "short_answer").score == 2 / 3
    assert planted.group("by_task", "short_answer").score == 1 / 3
    assert set(fc.accuracy_lenient.breakdowns) == set(planted.accuracy.breakdowns)


def test_items_without_a_prediction_are_counted_apart():
    rows = [{"id": k, "response": v} for k, v in RESPONSES.items() if k != "sa-right"]
    report = evaluate(rows, GOLD, bootstrap=0)
    assert report.format_compliance.overall.to_dict() == {
        "n": 6,
        "missing": 1,
        "answered": 2,
        "failures": 5,
        "right": 4.0,
    }
    assert report.format_compliance.overall.unanswered == 3
    missing = next(it for it in report.items if it.id == "sa-right")
    assert missing.lenient.to_dict() == {"answer": None, "rule": None, "score": 0.0}


def test_the_summary_has_a_labelled_format_section(planted):
    text = planted.summary()
    at = text.index("Format (beyond the paper): how much of the error is the answer format")
    assert text.index("Accuracy (%)") < at
    section = text[at:]
    lines = [" ".join(line.split()) for line in section.splitlines()]
    assert "All non-translation items 6 0 3 5 4 16.7 83.3 +66.7" in lines
    assert "Short answer 3 0 1 2 1 33.3 66.7 +33.3" in lines
    assert "Translation 1 0 0 1 — — — —" in lines
    assert "short:marker 2 (worth 1 point)" in " ".join(lines)
    assert "it is not the paper's number" in " ".join(lines)


@pytest.mark.parametrize(
    ("task", "response", "expected"),
    [
        ("multiple_choice", "Thinking.\nAnswer:B", ("B", "mc:marker")),
        ("multiple_choice", "So the **final answer** is (c).", ("C", "mc:marker")),
        ("multiple_choice", "Answer: Venus", ("B", "mc:option-text")),
        ("multiple_choice", "It is Jupiter, I think.\njupiter", ("C", "mc:option-text")),
        ("multiple_choice", "Option D fits, not B.\n**(B).**", ("B", "mc:letter-line")),
        ("multiple_choice", "Thinking.\nOption C", ("C", "mc:letter-line")),
        # a letter is read only standing alone on the last line: not the article "A", not a
        # compass letter, not the last option of an option-by-option walkthrough
        ("multiple_choice", "Options C or D.\nA goddess, I believe", (None, None)),
        ("multiple_choice", "B.\nThe town lies E of the river.", (None, None)),
        ("multiple_choice", "A: Mars - no.\nB: Venus - yes.\nD: Juno - no.", (None, None)),
        ("multiple_choice", "I choose B; D is a distractor.", (None, None)),
        ("multiple_choice", "No idea at all.", (None, None)),
        ("short_answer", "Answer: Roma\n\n", ("Roma", "short:marker")),
        ("short_answer", "**Answer:**\n**Roma**", ("Roma", "short:marker")),
        ("short_answer", "Responsum: Roma", ("Roma", "short:marker")),
        ("short_answer", "I am sure of it.\n*Roma.*", ("Roma", "short:word-line")),
        # the last word of a sentence is not read: it is as often the explanation's
        ("short_answer", "The word is surely Roma.", (None, None)),
        ("short_answer", "", (None, None)),
        (
            "meter",
            "Final answer - Ipse dei tollitur imâ",
            ("Ipse dei tollitur imâ", "meter:marker"),
        ),
        (
            "meter",
            "Here:\n«Ipse dei tollitur imâ»\n",
            ("Ipse dei tollitur imâ", "meter:rearranged"),
        ),
        # the last line that rearranges the question line's words, not an explanation after it
        (
            "meter",
            "Ipse dei tollitur imâ\nThe spondee now falls last.",
            ("Ipse dei tollitur imâ", "meter:rearranged"),
        ),
        ("meter", "Ipse dei tollitur urbe", (None, None)),
        ("feet", "answer: trochee, spondee", ("trochee, spondee", "feet:marker")),
        ("feet", "Answer: Trochees and a spondee.", ("trochee, spondee", "feet:names")),
        # the line marks 2 feet: the run of lines naming feet, which has 2
        ("feet", "First a great  ionic,\nthen dactyls", ("great ionic, dactyl", "feet:names")),
        ("feet", "1. Trochee\n2. Spondee", ("trochee, spondee", "feet:names")),
        # unlisted feet are feet: kept in their position
        ("feet", "answer: cretic, spondee", ("cretic, spondee", "feet:marker")),
        ("feet", "A cretic, then a spondee.", ("cretic, spondee", "feet:names")),
        ("feet", "I cannot scan this.", (None, None)),
        (
            "translation",
            "Translation: Rome is a city.\nExplanation: ...",
            ("Rome is a city.", "translation:marker"),
        ),
        # no rule reads a translation's last line: as often an explanation as the translation
        ("translation", "Let me think.\n\nRome is a city.\n", (None, None)),
    ],
)
def test_each_lenient_rule(task, response, expected):
    options = OPTIONS if task == "multiple_choice" else []
    question = {"feet": FEET_Q, "meter": METER_Q}.get(task, "q")
    record = rec("x", task, ["gold"], options=options, question=question)
    assert lenient_answer(record, response, None) == expected


FEET5_Q = "What is the name of each foot?\nIntĕ|gēr vī|tæ, scĕlĕ|rīsquĕ | pūrŭs,"
FEET5 = "Trochee, Spondee, Dactyl, Trochee, Trochee"


@pytest.mark.parametrize(
    "response",
    [
        "Answer: cretic, spondee, dactyl, trochee, trochee",  # the paper's answer, kept
        "answer: cretic, spondee, dactyl, trochee, trochee",  # feet:marker
        "The feet: a cretic, a spondee, a dactyl, a trochee, a trochee.\nThat is all.",
        "Answer: Molossus - spondee - dactyl - trochee - trochee",  # feet:names
    ],
)
def test_an_unlisted_foot_is_a_wrong_foot_in_its_position(response):
    # issue 29: "cretic" then the gold's feet 2-5 scores 0.8 under the paper's rule; the
    # lenient reading used to drop the cretic, shifting every later foot (0.2)
    record = rec("f", "feet", [FEET5], question=FEET5_Q, answer_language="english")
    item = score_one(record, response, extracted=False)
    assert item.lenient.score == pytest.approx(0.8)
    assert item.score in (0.0, pytest.approx(0.8))


def test_a_lenient_reading_that_scores_less_is_not_taken():
    # a misspelt first foot: the paper's answer is not a list of feet but gets 4 of 5
    # positions; the foot names in it are 4, shifted one place (1 of 5): the paper's is kept
    record = rec("f", "feet", [FEET5], question=FEET5_Q, answer_language="english")
    response = "Thinking.\nAnswer: Trohee, Spondee, Dactyl, Trochee, Trochee"
    item = score_one(record, response, extracted=False)
    assert item.score == pytest.approx(0.8)  # the paper's zip: 4 of 5 positions
    assert (item.lenient.rule, item.lenient.score) == (PAPER, pytest.approx(0.8))
    assert item.lenient.answer == item.extracted


def _adversarial(r: Record, rng) -> str:
    """A response stitched from pieces that tempt a reader: the gold, other answers, foot
    names the prompt does not list, option letters, markers, compass letters, explanations."""
    gold = r.answers[0]
    pieces = [gold, gold.lower(), "Answer:", "answer -", "The answer is", "**", "E", "B", "(C)"]
    pieces += ["cretic", "molossus", "tetrabrach", "bacchius", "trochee", "spondee", "Roma"]
    pieces += ["Explanation: because.", "A: Mars", "D: Juno", ",", "\n", "\n", " "]
    if r.task == "feet":
        names = [n.strip() for n in gold.split(",")]
        names[rng.randrange(len(names))] = rng.choice(["cretic", "molossus", "bacchius"])
        pieces += [", ".join(names), ", ".join(names[1:]), "Answer: " + ", ".join(names)]
    return "".join(
        rng.choice(pieces) + rng.choice(["", " ", "\n"]) for _ in range(rng.randint(1, 9))
    )


def test_lenient_is_never_below_the_paper_on_any_item(public_gold):
    records = [r for r in shipped_records(public_gold.records) if r.task != "translation"]
    # real-shaped responses (the rules' benchmark) and synthetic ones, for every item
    cases = [(v.record, v.text) for v in variants(records)]
    for r in records:
        rng = random.Random(f"{SEED}:adversarial:{r.id}")
        cases += [(r, _adversarial(r, rng)) for _ in range(8)]
    lower = higher = 0
    for record, text in cases:
        item = score_one(record, text, extracted=False)
        lower += item.lenient.score < item.score
        higher += item.lenient.score > item.score
    assert lower == 0
    assert higher > 1000  # the test reads something: format failures are recovered


def test_each_kept_rule_reads_the_intended_answer_95_percent_of_the_time(public_gold):
    # the generator's variants (benchmarks/bench_lenient.py prints the figures
    # docs/format-compliance.md states): every rule reads some of them, and at 95% or more the intended answer
    from respondeoqa_eval.scoring.lenient import RULES

    figures = measure(variants(shipped_records(public_gold.records)))
    rules = [name for _, names in RULES.values() for name in names]
    assert sorted(figures) == sorted(rules)
    low = {f.rule: round(f.precision, 3) for f in figures.values() if f.precision < 0.95}
    assert low == {}
    assert all(f.read >= 100 for f in figures.values())


def test_the_docs_document_every_rule():
    from respondeoqa_eval.scoring.lenient import RULES

    page = (Path(__file__).parents[1] / "docs" / "format-compliance.md").read_text(encoding="utf-8")
    section = page[page.index("## The rules and their precision") :].split("\n## ", 1)[0]
    for _, names in RULES.values():
        for name in names:
            assert f"| `{name}` |" in section, name


def test_a_well_formed_paper_answer_is_kept_whatever_follows():
    record = rec("x", "multiple_choice", ["B: Venus"], options=OPTIONS)
    assert lenient_answer(record, "Answer: C\nor maybe B", "C") == ("C", PAPER)
    # the paper's answer is kept even where a lenient rule would read another one
    sa = rec("y", "short_answer", ["Roma"])
    assert lenient_answer(sa, "Answer: Athenae\nAnswer: Roma", "Athenae") == ("Athenae", PAPER)
    assert not well_formed(record, "r") and well_formed(record, "B")
    # without options, A-E count as letters (PROTOCOL 1: options may be missing)
    assert well_formed(rec("z", "multiple_choice", ["E"]), "E")


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        (rec("a", "multiple_choice", ["E: Ceres"], options=OPTIONS), "not one of the options"),
        (rec("b", "multiple_choice", ["A: Mars"]), "lists no options"),
        (rec("c", "short_answer", ["Roma aeterna"]), "has 2 words"),
        (
            rec("d", "feet", ["Trochee, Spondee, Dactyl"], question=FEET_Q),
            "has 3 feet; the line marks 2",
        ),
        (rec("e", "feet", ["Trochee, Sponge"], question=FEET_Q), "not one of the listed feet"),
        (rec("f", "meter", ["Ipse dei tollitur urbe"], question=METER_Q), "not the question line"),
        (rec("g", "short_answer", [" "]), "empty"),
    ],
)
def test_planted_gold_errors_break_their_format_rule(record, problem):
    found = gold_format_problem(record)
    assert found is not None and problem in found
    assert record.answers[0].strip() == "" or record.answers[0] not in found  # never quoted


def test_every_public_gold_keeps_its_format_rule(public_gold):
    # measured on the pinned upstream files: 675 short answers of one word, 40 feet lists as
    # long as their lines, 82 meter lines that rearrange the question's words
    assert [r.id for r in public_gold.records if gold_format_problem(r)] == []
    assert all(gold_format_problem(r) is None for r in GOLD.records)


def test_old_reports_without_the_format_part_still_read(planted):
    data = planted.to_dict()
    del data["format_compliance"]
    for it in data["items"]:
        del it["lenient"], it["answered"]
    old = Report.from_dict(data)
    assert old.format_compliance is None and all(it.lenient is None for it in old.items)
    assert old.lenient_gap() is None
    assert "Format (beyond the paper)" not in old.summary()
    assert old.accuracy == planted.accuracy and old.summary() != planted.summary()
    assert Report.from_dict(json.loads(planted.to_json())) == planted  # round trip


# -- the paper's numbers are unchanged ------------------------------------------------------


def _bucket(key: str, n: int) -> int:
    return int(hashlib.sha256(key.encode()).hexdigest(), 16) % n


def _messy(r: Record) -> str:
    """A response in one of twelve shapes, well-formed or not, picked by the item's id."""
    a = r.answers[0][:1] if r.task == "multiple_choice" else r.answers[0]
    return [
        f"Thinking.\nAnswer: {a}",
        f"Thinking.\n**Answer: {a}**",
        f"Answer: {a}\nExplanation: because.",
        f"The answer is {a}.",
        f"Thinking.\nAnswer:{a}",
        f"Reasoning: hmm\n{a}",
        "",
        f"I choose ({a}).\nFinal: {a}",
        f"answer: {a}",
        f"Answer: nescio\nOn reflection\nAnswer: {a}",
        f"Some text\n\nAnswer: {a}\n",
        f"**{a}**",
    ][_bucket(r.id, 12)]


PAPER_KEYS = ("n_items", "missing", "unanswered", "accuracy", "extra", "bleu")
ITEM_KEYS = ("id", "question_id", "question_language", "task", "source", "question_content")
ITEM_KEYS += ("extracted", "score", "missing", "groups")


def _paper_digest(report: Report) -> str:
    data = report.to_dict()
    out = {k: data[k] for k in PAPER_KEYS}
    out["items"] = [[it[k] for k in ITEM_KEYS] for it in data["items"]]
    return hashlib.sha256(json.dumps(out, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


# Computed with the evaluator of main before format compliance was added (commit 85c5e9f),
# on the public files and on them plus tests/synthetic.py's private stand-ins (a change to
# those stand-ins changes the second digest, not the paper's protocol). Issue 38 changed one
# number in each, in its last bits: chrF is sacreBLEU's own F-score arithmetic now (public:
# English unconstrained chrF 48.253631117915056 -> 48.25363111791505; full: English overall
# 47.10653226522193 -> 47.10653226522194); every other number is 85c5e9f's (digests then:
# 8da291de32d3..., 6f7404a06022...).
PINNED = {
    "public": ("118d08065b887eee89228b0c32d80aaa6c17db1bbe6eef5d09edf17ed2f5d4a1", 232 / 797, 782),
    "full": ("8dae694f78b4100f8854bb7daa3857676695527f879d207ce07b2d91f98f93a1", None, 823),
}


@pytest.mark.parametrize("which", ["public", "full"])
def test_the_paper_numbers_are_those_pinned_before_format_compliance(which, public_gold, tmp_path):
    gold = public_gold
    if which == "full":
        gold = read_folder(write_private(Path(tmp_path / "data"), with_public=True))
    report = evaluate(
        [{"id": r.id, "response": _messy(r)} for r in gold.records], gold, bootstrap=0
    )
    digest, overall, unanswered = PINNED[which]
    assert report.unanswered == unanswered
    if overall is not None:
        assert report.accuracy.overall.score == overall
    assert _paper_digest(report) == digest
    # lenient readings never lower an item below its paper score on these responses
    assert all(it.lenient.score >= it.score for it in report.items if it.score is not None)
    kept = [it for it in report.items if it.lenient.rule == PAPER]
    assert kept and all(it.lenient.answer == it.extracted for it in kept)
