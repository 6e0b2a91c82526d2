"""Aggregates (PROTOCOL section 5) on tiny hand-made item lists, with hand-computed values.

Only the public surface is used: `accuracy(items, Bootstrap(...))`, `bleu(items, Bootstrap(...))`
and the report dict shape of docs/report.md.
"""

from __future__ import annotations

import math

import pytest
from respondeoqa_eval.data.records import Record, category_of
from respondeoqa_eval.scoring.aggregate import Bootstrap, accuracy, bleu
from respondeoqa_eval.scoring.per_item import ItemScore

# PROTOCOL 5, written out here (not imported): the content types of each category
KNOWLEDGE = {"mythology", "history", "literature", "geography", "vocabulary"}
SKILL = {"grammar", "literary_devices", "reading_comprehension", "scansion", "translation"}
NO_CI = Bootstrap(resamples=0)

_counter = iter(range(10**6))


def rec(
    task: str = "short_answer",
    content: str = "grammar",
    *,
    q_lang: str = "english",
    a_lang: str = "english",
    source: str = "jun-schol",
    fmt: str | None = None,
    difficulty: str = "unknown",
    multihop: bool | None = None,
    constrained: bool | None = None,
    answers: list[str] | None = None,
) -> Record:
    n = next(_counter)
    if fmt is None:
        fmt = "multiple_choice" if task == "multiple_choice" else "short_answer"
    return Record(
        id=f"item-{n}",
        question_id=f"item-{n}",
        question_language=q_lang,
        answer_language=a_lang,
        source=source,
        source_name="test",
        source_year=2000,
        task=task,
        question_format=fmt,
        question_content=content,
        category="knowledge" if content in KNOWLEDGE else "skill",
        difficulty=difficulty,
        question="q",
        answers=answers or ["a"],
        multihop=multihop if task == "short_answer" else None,
        constrained=constrained if task == "translation" else None,
    )


def item(record: Record, score: float | None, *, missing: bool = False, sensitive=None):
    extracted = None if missing else "x"
    if record.task == "short_answer" and sensitive is None:
        sensitive = score
    return ItemScore(record, extracted, score, missing, sensitive)


def translation(target: str, hypothesis: str, refs: list[str], constrained=None) -> ItemScore:
    r = rec(
        "translation",
        "translation",
        q_lang="english" if target == "latin" else "latin",
        a_lang=target,
        constrained=constrained,
        answers=refs,
    )
    return ItemScore(r, hypothesis, None, False)


def group(score: float, n: int) -> dict:
    return {"score": pytest.approx(score, abs=1e-12), "n": n}


def test_category_of_follows_protocol_5():
    for content in KNOWLEDGE:
        assert category_of(content) == "knowledge"
    for content in SKILL:
        assert category_of(content) == "skill"


def test_overall_is_the_mean_item_score_over_non_translation_items():
    items = [
        item(rec("multiple_choice", "history", source="certamen"), 1.0),
        item(rec("short_answer", "grammar"), 0.0),
        item(rec("feet", "scansion", source="lat-pros"), 0.5),
        item(rec("meter", "scansion", source="lat-pros"), 1.0),
        translation("english", "anything at all here", ["the reference text is here"]),
    ]
    acc, _ = accuracy(items, NO_CI)
    # (1 + 0 + 0.5 + 1) / 4: the translation item is not counted
    assert acc["overall"] == group(2.5 / 4, 4)
    assert acc["by_task"] == {
        "multiple_choice": group(1.0, 1),
        "short_answer": group(0.0, 1),
        "feet": group(0.5, 1),
        "meter": group(1.0, 1),
    }


def test_a_missing_item_scores_zero_and_still_counts():
    items = [item(rec(), 1.0), item(rec(), 0.0, missing=True), item(rec(), 1.0)]
    acc, _ = accuracy(items, NO_CI)
    assert acc["overall"] == group(2 / 3, 3)


def test_knowledge_and_skill_split_by_content():
    items = [
        item(rec(content="history"), 1.0),
        item(rec(content="vocabulary"), 0.0),
        item(rec(content="mythology"), 1.0),
        item(rec(content="grammar"), 1.0),
        item(rec("feet", "scansion"), 0.25),
    ]
    acc, _ = accuracy(items, NO_CI)
    assert acc["by_category"] == {"knowledge": group(2 / 3, 3), "skill": group(1.25 / 2, 2)}
    assert acc["by_content"] == {
        "history": group(1.0, 1),
        "vocabulary": group(0.0, 1),
        "mythology": group(1.0, 1),
        "grammar": group(1.0, 1),
        "scansion": group(0.25, 1),
    }


def test_language_pair_is_question_then_answer_language():
    items = [
        item(rec(q_lang="english", a_lang="latin"), 1.0),
        item(rec(q_lang="english", a_lang="latin"), 0.0),
        item(rec(q_lang="latin", a_lang="english"), 1.0),
    ]
    acc, _ = accuracy(items, NO_CI)
    assert acc["by_language_pair"] == {
        "english-latin": group(0.5, 2),
        "latin-english": group(1.0, 1),
    }


def test_format_source_and_difficulty_groups():
    items = [
        item(rec("multiple_choice", "history", source="nle", difficulty="beginner"), 1.0),
        item(rec("multiple_choice", "history", source="nle", difficulty="advanced"), 0.0),
        item(rec("short_answer", "grammar", source="certamen", difficulty="advanced"), 1.0),
        # a translation-file row in multiple-choice format is still BLEU-scored (PROTOCOL 1)
        translation("english", "some words in here", ["some words in here"]),
    ]
    acc, _ = accuracy(items, NO_CI)
    assert acc["by_format"] == {"multiple_choice": group(0.5, 2), "short_answer": group(1.0, 1)}
    assert acc["by_source"] == {"certamen": group(1.0, 1), "nle": group(0.5, 2)}
    assert acc["by_difficulty"] == {"beginner": group(1.0, 1), "advanced": group(0.5, 2)}


def test_multihop_is_over_short_answer_items_only():
    items = [
        item(rec("short_answer", multihop=True), 1.0),
        item(rec("short_answer", multihop=False), 0.0),
        item(rec("short_answer", multihop=False), 1.0),
        item(rec("multiple_choice", "history"), 1.0),
        item(rec("meter", "scansion"), 0.0),
    ]
    acc, _ = accuracy(items, NO_CI)
    assert acc["by_multihop"] == {"multihop": group(1.0, 1), "regular": group(0.5, 2)}


def test_groups_appear_only_when_they_have_items():
    acc, _ = accuracy([item(rec("feet", "scansion", source="lat-pros"), 1.0)], NO_CI)
    assert acc["by_source"] == {"lat-pros": group(1.0, 1)}
    assert acc["by_task"] == {"feet": group(1.0, 1)}
    assert acc["by_multihop"] == {}  # no short-answer item: the breakdown is empty, not zero
    for dim in (
        "by_task",
        "by_content",
        "by_language_pair",
        "by_category",
        "by_format",
        "by_source",
        "by_difficulty",
        "by_multihop",
    ):
        assert dim in acc
        assert all(g["n"] > 0 for g in acc[dim].values())


def test_order_of_items_does_not_matter():
    items = [item(rec(content=c), s) for c, s in [("history", 1.0), ("grammar", 0.0)] * 3]
    assert accuracy(items, NO_CI) == accuracy(items[::-1], NO_CI)


def test_macron_sensitive_variant_is_extra_over_short_answer_items():
    items = [
        item(rec(a_lang="latin"), 1.0, sensitive=0.0),  # right only without macrons
        item(rec(a_lang="latin"), 1.0, sensitive=1.0),
        item(rec("multiple_choice", "history"), 1.0),
    ]
    acc, extra = accuracy(items, NO_CI)
    assert acc["overall"] == group(1.0, 3)
    assert extra == {"short_answer_macron_sensitive": group(0.5, 2)}
    _, extra = accuracy([item(rec("multiple_choice", "history"), 1.0)], NO_CI)
    assert "short_answer_macron_sensitive" not in extra


def test_no_items():
    acc, extra = accuracy([], NO_CI)
    assert acc["overall"] == {"score": 0.0, "n": 0}
    assert extra == {}


def _mixed(n: int = 40) -> list[ItemScore]:
    # deterministic mix: 3 of every 5 right, two contents
    return [
        item(rec(content="history" if i % 2 else "grammar"), 1.0 if i % 5 < 3 else 0.0)
        for i in range(n)
    ]


def test_bootstrap_interval_is_deterministic_and_contains_the_estimate():
    items = _mixed()
    a, _ = accuracy(items, Bootstrap(resamples=300, seed=7))
    b, _ = accuracy(items, Bootstrap(resamples=300, seed=7))
    c, _ = accuracy(items, Bootstrap(resamples=300, seed=8))
    assert a == b
    assert a["overall"]["ci"] != c["overall"]["ci"]
    assert a["overall"]["score"] == pytest.approx(0.6)
    lo, hi = a["overall"]["ci"]
    assert 0.0 <= lo < 0.6 < hi <= 1.0
    # a 95% interval for a proportion of 40 items: about +-1.96 * sqrt(.6 * .4 / 40) = +-0.15
    assert 0.05 < hi - lo < 0.5
    for dim in ("by_content", "by_category", "by_task"):
        for g in a[dim].values():
            assert g["ci"][0] <= g["score"] <= g["ci"][1]


def test_bootstrap_interval_of_a_constant_score_is_a_point():
    items = [item(rec(), 1.0) for _ in range(10)] + [item(rec("meter", "scansion"), 0.0)] * 5
    acc, _ = accuracy(items, Bootstrap(resamples=100, seed=1))
    assert acc["by_task"]["short_answer"]["ci"] == [1.0, 1.0]
    assert acc["by_task"]["meter"]["ci"] == [0.0, 0.0]


def test_bootstrap_off_gives_no_interval():
    acc, extra = accuracy(_mixed(10), NO_CI)
    assert "ci" not in acc["overall"]
    assert all("ci" not in g for g in acc["by_content"].values())


# BLEU (PROTOCOL 5): corpus BLEU per target language, overall / constrained / unconstrained

CAT = "the cat sat on the mat"  # six 13a tokens


def test_bleu_identical_and_disjoint_hypotheses():
    items = [translation("english", CAT, [CAT], constrained=True)]
    items.append(translation("english", "dogs run far away quickly", [CAT], constrained=False))
    out = bleu(items, NO_CI)
    assert out["english"]["constrained"]["score"] == pytest.approx(100.0)
    assert out["english"]["constrained"]["n"] == 1
    assert out["english"]["unconstrained"]["score"] == pytest.approx(0.0)
    assert out["english"]["overall"]["n"] == 2
    # no Latin-target item: every Latin group is null
    assert out["latin"] == {"overall": None, "constrained": None, "unconstrained": None}


def test_bleu_is_lowercased_and_latin_gets_j_i_v_u_and_unidecode():
    ref = "Iulius uenit ad urbem nostram"
    hyp = "JULIUS VĒNIT AD URBEM NOSTRAM"
    latin = bleu([translation("latin", hyp, [ref])], NO_CI)
    english = bleu([translation("english", hyp, [ref])], NO_CI)
    assert latin["latin"]["overall"]["score"] == pytest.approx(100.0)
    # English targets get lowercasing only: "julius"/"venit" differ from "iulius"/"uenit"
    assert english["english"]["overall"]["score"] < 50


def test_unconstrained_means_constrained_is_not_true():
    items = [
        translation("english", CAT, [CAT], constrained=None),
        translation("english", CAT, [CAT], constrained=False),
        translation("english", CAT, [CAT], constrained=True),
    ]
    out = bleu(items, NO_CI)["english"]
    assert (out["overall"]["n"], out["constrained"]["n"], out["unconstrained"]["n"]) == (3, 1, 2)


def test_bleu_pads_references_with_empty_strings_as_the_paper_did():
    """Item A has two references, item B one: B is padded with ''. B's empty hypothesis is
    then closest to the empty reference, so the reference length is 6 (A) + 0 (B) = 6 and
    the brevity penalty is 1: paper BLEU 100. Without padding the reference length is 12 and
    BP = exp(1 - 12/6): variable-reference BLEU 100 * e**-1."""
    items = [
        translation("english", CAT, [CAT, "a cat was sitting on a mat"]),
        translation("english", "", ["caesar crossed the river rubicon today"]),
    ]
    out = bleu(items, NO_CI)["english"]["overall"]
    assert out["n"] == 2
    assert out["score"] == pytest.approx(100.0)
    assert out["variable_refs"] == pytest.approx(100 * math.exp(-1))


def test_bleu_bootstrap_is_deterministic_for_a_seed():
    items = [
        translation("english", CAT if i % 3 else "a dog ran across the field", [CAT])
        for i in range(12)
    ]
    a = bleu(items, Bootstrap(resamples=200, seed=3))["english"]["overall"]
    b = bleu(items, Bootstrap(resamples=200, seed=3))["english"]["overall"]
    assert a["ci"] == b["ci"]
    assert a["ci"][0] <= a["ci"][1]
    assert "ci" not in bleu(items, NO_CI)["english"]["overall"]
