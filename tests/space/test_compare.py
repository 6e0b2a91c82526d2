"""Paired bootstrap (the evaluator's, over stored item groups) and the disagreement table."""

from __future__ import annotations

import pytest
from respondeoqa_eval.data.gold import GoldSet
from respondeoqa_eval.scoring.aggregate import Bootstrap
from respondeoqa_space.views.compare import differences_frame, disagreements, paired

from .helpers import item_result


def _items(records, score_of) -> dict:
    return {r.id: item_result(r, score_of(k, r)) for k, r in enumerate(records)}


def test_bootstrap_extremes(public_gold: GoldSet) -> None:
    recs = [r for r in public_gold.records if r.task != "translation"][:200]
    ones = _items(recs, lambda k, r: 1.0)
    zeros = _items(recs, lambda k, r: 0.0)
    d = paired(ones, zeros, Bootstrap(200))[0]
    assert (d.dimension, d.n, d.diff, d.ci) == ("overall", 200, 1.0, (1.0, 1.0))
    same = paired(ones, ones, Bootstrap(200))[0]
    assert (same.diff, same.ci) == (0.0, (0.0, 0.0))


def test_bootstrap_interval_covers_the_difference(public_gold: GoldSet) -> None:
    recs = [r for r in public_gold.records if r.task != "translation"][:400]
    # A right on every item, B right on every other item: difference 0.5, paired so the
    # resampled difference varies (unpaired items would be a different test)
    a = _items(recs, lambda k, r: 1.0)
    b = _items(recs, lambda k, r: float(k % 2))
    d = paired(a, b, Bootstrap(500, seed=1))[0]
    assert d.diff == pytest.approx(0.5)
    assert d.ci[0] < 0.5 < d.ci[1] and d.ci[1] - d.ci[0] < 0.2
    # translation items (score None) and items only one side has are left out
    b_missing = dict(list(b.items())[:100])
    translation = next(r for r in public_gold.records if r.task == "translation")
    a[translation.id] = b_missing[translation.id] = item_result(translation, None)
    assert paired(a, b_missing, Bootstrap(50))[0].n == 100


def test_bootstrap_groups_come_from_the_stored_items(public_gold: GoldSet) -> None:
    recs = [r for r in public_gold.records if r.task != "translation"]
    a = _items(recs, lambda k, r: 1.0)
    b = _items(recs, lambda k, r: 1.0 if r.question_content == "grammar" else 0.0)
    diffs = paired(a, b, Bootstrap(100))
    by = {(d.dimension, d.group): d for d in diffs}
    assert by[("by_content", "grammar")].diff == 0.0
    assert by[("by_content", "vocabulary")].diff == 1.0
    n_grammar = sum(r.question_content == "grammar" for r in recs)
    assert by[("by_content", "grammar")].n == n_grammar
    assert sum(d.n for d in diffs if d.dimension == "by_language_pair") == len(recs)
    df = differences_frame(diffs)
    assert set(df["Interval excludes 0"]) <= {"yes", "no"}
    assert "Grammar" in set(df["Group"]) and "English \u2192 Latin" in set(df["Group"])


def test_disagreements_public_only_with_gold(private_gold: GoldSet) -> None:
    pub = [r for r in private_gold.records if not r.is_private and r.task != "translation"][:3]
    priv = [r for r in private_gold.records if r.is_private and r.task != "translation"][:3]
    a, b = {}, {}
    for r in pub + priv:
        a[r.id] = item_result(r, 1.0, r.answers[0])
        b[r.id] = item_result(r, 0.0, "wrong")
    # an item both got right with the same answer is not a disagreement
    a[pub[2].id] = b[pub[2].id] = item_result(pub[2], 1.0, "x")
    df = disagreements(a, b, private_gold)
    assert list(df["Item"]) == [pub[0].id, pub[1].id]
    assert list(df["Gold"]) == [pub[0].answers[0], pub[1].answers[0]]
    assert list(df["B answer"]) == ["wrong", "wrong"]
    assert not any(r.is_private for r in private_gold.records if r.id in set(df["Item"]))
