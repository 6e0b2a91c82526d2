"""Paired bootstrap and the disagreement table (public items only)."""

from __future__ import annotations

import pytest
from respondeoqa_eval.gold import GoldSet
from respondeoqa_eval.space.compare import differences_frame, disagreements, paired_bootstrap
from respondeoqa_eval.space.store import ItemScore


def test_bootstrap_extremes(public_gold: GoldSet) -> None:
    ids = [r.id for r in public_gold.records if r.task != "translation"][:200]
    ones = dict.fromkeys(ids, 1.0)
    zeros = dict.fromkeys(ids, 0.0)
    diffs = paired_bootstrap(ones, zeros, public_gold, ("overall",), resamples=200)
    (d,) = diffs
    assert (d.n, d.diff, d.lo, d.hi) == (200, 1.0, 1.0, 1.0)
    same = paired_bootstrap(ones, ones, public_gold, ("overall",), resamples=200)[0]
    assert (same.diff, same.lo, same.hi) == (0.0, 0.0, 0.0)


def test_bootstrap_interval_covers_the_difference(public_gold: GoldSet) -> None:
    ids = [r.id for r in public_gold.records if r.task != "translation"][:400]
    # A right on every item, B right on every other item: difference 0.5, paired so the
    # resampled difference varies (unpaired items would be a different test)
    a = dict.fromkeys(ids, 1.0)
    b = {i: float(k % 2) for k, i in enumerate(ids)}
    d = paired_bootstrap(a, b, public_gold, ("overall",), resamples=500, seed=1)[0]
    assert d.diff == pytest.approx(0.5)
    assert d.lo < 0.5 < d.hi and d.hi - d.lo < 0.2
    # translation items (score None) and items only one side has are left out
    b_missing = {i: v for i, v in list(b.items())[:100]}
    b_missing["latin-grammar-junior-scholarship_translation-x"] = None
    assert paired_bootstrap(a, b_missing, public_gold, ("overall",), resamples=50)[0].n == 100


def test_bootstrap_groups(public_gold: GoldSet) -> None:
    recs = [r for r in public_gold.records if r.task != "translation"]
    a = {r.id: 1.0 for r in recs}
    b = {r.id: 1.0 if r.question_content == "grammar" else 0.0 for r in recs}
    diffs = paired_bootstrap(a, b, public_gold, ("content", "language_pair"), resamples=100)
    by = {(d.grouping, d.group): d for d in diffs}
    assert by[("content", "grammar")].diff == 0.0
    assert by[("content", "vocabulary")].diff == 1.0
    n_grammar = sum(r.question_content == "grammar" for r in recs)
    assert by[("content", "grammar")].n == n_grammar
    assert sum(d.n for d in diffs if d.grouping == "language_pair") == len(recs)
    df = differences_frame(diffs)
    assert set(df["Significant"]) <= {"yes", "no"}


def test_disagreements_public_only_with_gold(private_gold: GoldSet) -> None:
    pub = [r for r in private_gold.records if not r.is_private and r.task != "translation"][:3]
    priv = [r for r in private_gold.records if r.is_private and r.task != "translation"][:3]
    a, b = {}, {}
    for r in pub + priv:
        a[r.id] = ItemScore(r.id, r.source, r.task, 1.0, r.answers[0], False)
        b[r.id] = ItemScore(r.id, r.source, r.task, 0.0, "wrong", False)
    # an item both got right with the same answer is not a disagreement
    a[pub[2].id] = b[pub[2].id] = ItemScore(pub[2].id, pub[2].source, pub[2].task, 1.0, "x", False)
    df = disagreements(a, b, private_gold)
    assert list(df["Item"]) == [pub[0].id, pub[1].id]
    assert list(df["Gold"]) == [pub[0].answers[0], pub[1].answers[0]]
    assert list(df["B answer"]) == ["wrong", "wrong"]
    assert not any(r.is_private for r in private_gold.records if r.id in set(df["Item"]))
