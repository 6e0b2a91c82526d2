"""Paired bootstrap (the evaluator's, over stored item groups) and the disagreement table."""

from __future__ import annotations

import pytest
from respondeoqa_eval.data.gold import GoldSet
from respondeoqa_eval.scoring.aggregate import Bootstrap, Difference
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
    # a claim either way only beside an interval: every item of vocabulary differs alike
    # (B wrong on each), an interval of no width, shown "—", and so is its claim
    pairs = zip(df["95% CI (points)"], df["Interval excludes 0"], strict=True)
    shown = dict(zip(df["Group"], pairs, strict=True))
    assert shown["Vocabulary"] == ("\u2014", "\u2014")
    for interval, claim in shown.values():
        assert (interval == "\u2014") == (claim == "\u2014"), (interval, claim)
        assert claim in {"yes", "no", "\u2014"}
    assert "Grammar" in set(df["Group"]) and "English \u2192 Latin" in set(df["Group"])


def test_no_claim_of_significance_without_its_interval() -> None:
    """ "Interval excludes 0" says yes or no only beside an interval the table shows: none
    computed, or one of no width (a group of one item: the bootstrap draws the same
    difference every time), is "—" and so is the claim."""
    rows = [
        Difference("by_content", "history", 1, 1.0, 0.0, 1.0, (1.0, 1.0)),
        Difference("by_content", "mythology", 9, 0.2, 0.2, 0.0, None),
        Difference("by_content", "grammar", 90, 0.6, 0.4, 0.2, (0.1, 0.3)),
        Difference("by_content", "scansion", 90, 0.5, 0.5, 0.0, (-0.1, 0.1)),
    ]
    df = differences_frame(rows).set_index("Group")
    got = {g: (df.loc[g, "95% CI (points)"], df.loc[g, "Interval excludes 0"]) for g in df.index}
    assert got == {
        "History*": ("\u2014", "\u2014"),
        "Mythology*": ("\u2014", "\u2014"),
        "Grammar": ("10.0 to 30.0", "yes"),
        "Scansion": ("-10.0 to 10.0", "no"),
    }


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


def test_an_item_id_may_wrap_only_between_its_parts(public_gold: GoldSet) -> None:
    """The disagreement table shows an id with a break opportunity (<wbr>) after each "_",
    "-" and a dot before a letter, and nowhere else (a number keeps its dots), escaped; its
    data (API clients, the search) is the id."""
    from respondeoqa_space.views.compare import disagreements_display
    from respondeoqa_space.views.html import breakable, breakable_markdown

    assert breakable("latin-grammar-junior-scholarship_2.4.3") == (
        "latin-<wbr>grammar-<wbr>junior-<wbr>scholarship_<wbr>2.4.3"
    )
    assert breakable("prosody_III.I.9.9-en") == "prosody_<wbr>III.<wbr>I.9.9-<wbr>en"
    assert breakable("a.b <c>/d") == "a.<wbr>b &lt;c&gt;/<wbr>d"  # escaped; none before a space
    assert breakable("window.__xss x- y") == "window.__<wbr>xss x- y"  # after a run, once
    rec = next(r for r in public_gold.records if r.task == "short_answer" and "_" in r.id)
    a, b = {rec.id: item_result(rec, 1.0, "x")}, {rec.id: item_result(rec, 0.0, "y")}
    df = disagreements(a, b, public_gold)
    assert list(df["Item"]) == [rec.id]  # the data: the id as written
    # as shown: the id, a link to the answers, wraps between its parts
    assert f"[{breakable_markdown(rec.id)}](<" in disagreements_display(df).to_html()
