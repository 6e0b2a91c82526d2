"""What the board releases of values resting on private items (pure functions of
space/privacy.py): exact public parts, private parts in steps of k items, small groups and
their complements hidden (also inside a coarser group), intervals from counts only, and the
bound on what the released values can say."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.report.model import Accuracy, ItemResult, Report, Score
from respondeoqa_space import privacy

K = 10
CONTENT = "by_content"


def _report(groups: dict[str, int], right: dict[str, int] | None = None) -> Report:
    """A report of private items only, one content group per entry of `groups` (its size);
    `right`: the items right in each group (half of each by default)."""
    right = right or {g: n // 2 for g, n in groups.items()}
    total = sum(groups.values())
    by_content = {g: Score(right[g] / n, n, (0.0, 1.0)) for g, n in groups.items()}
    overall = Score(sum(right.values()) / total, total, (0.0, 1.0))
    return Report(accuracy=Accuracy(overall, {CONTENT: by_content}))


def _points(groups: dict[str, int], right: dict[str, int] | None = None) -> dict[str, float]:
    right = right or {g: n // 2 for g, n in groups.items()}
    points = {f"accuracy|{CONTENT}|{g}": float(right[g]) for g in groups}
    return {"accuracy|overall|": float(sum(right.values())), **points}


def _release(groups, right=None) -> Report:
    return privacy.release(_report(groups, right), Counter(), _points(groups, right), K)


def _hidden(report: Report) -> set[str]:
    return {g for g, s in report.accuracy.breakdowns[CONTENT].items() if math.isnan(s.score)}


def test_a_lone_small_group_takes_the_next_smallest_with_it() -> None:
    # history (1 private item) alone hidden: overall and the others would give it away
    shown = _release({"history": 1, "grammar": 50, "literature": 20})
    assert _hidden(shown) == {"history", "literature"}
    assert not math.isnan(shown.accuracy.overall.score)


def test_small_groups_that_together_reach_k_stay_as_they_are() -> None:
    shown = _release({"history": 4, "geography": 6, "grammar": 50})
    assert _hidden(shown) == {"history", "geography"}  # 4 + 6 private items: not resolvable below k


def test_no_small_group_nothing_hidden() -> None:
    assert _hidden(_release({"history": 10, "grammar": 50})) == set()


def test_complete_rule() -> None:
    private = {"a": 1, "b": 30, "c": 12, "d": 0}
    assert privacy.complete(private, ["a"], K) == {"a", "c"}
    assert privacy.complete(private, [], K) == set()
    assert privacy.complete({"a": 1, "b": 2}, ["a"], K) == {"a", "b"}  # all small: all hidden


def test_complements_are_closed_inside_a_coarser_group() -> None:
    # Knowledge = history + mythology + geography; Skill = grammar. History (3 private items)
    # is hidden; mythology and geography are large, yet Knowledge minus them would give
    # history away: one more group inside Knowledge goes too (the smallest), not grammar
    nest = privacy.Nesting(
        {
            CONTENT: {
                "by_category": {
                    "history": "knowledge",
                    "mythology": "knowledge",
                    "geography": "knowledge",
                    "grammar": "skill",
                }
            }
        }
    )
    private = {CONTENT: {"history": 3, "mythology": 40, "geography": 25, "grammar": 60}}
    private["by_category"] = {"knowledge": 68, "skill": 60}
    assert privacy.hidden_groups(private, K, nest)[CONTENT] == {"history", "geography"}
    # without the nesting only the overall total counts: grammar 60 is no closer
    assert privacy.hidden_groups(private, K)[CONTENT] == {"history", "geography"}
    flat = {CONTENT: {"history": 3, "mythology": 40, "grammar": 12}}
    flat["by_category"] = {"knowledge": 43, "skill": 12}
    nested = privacy.Nesting({CONTENT: {"by_category": nest.inside[CONTENT]["by_category"]}})
    assert privacy.hidden_groups(flat, K)[CONTENT] == {"history", "grammar"}  # smallest overall
    assert privacy.hidden_groups(flat, K, nested)[CONTENT] == {"history", "grammar", "mythology"}


def test_nesting_is_read_from_the_gold(private_gold) -> None:
    nest = privacy.nesting(private_gold.records)
    content_in_category = nest.inside["by_content"]["by_category"]
    assert content_in_category["history"] == "knowledge"
    assert content_in_category["grammar"] == "skill"
    assert "by_language_pair" not in nest.inside  # pairs cut across every other breakdown


def test_one_private_item_moves_no_released_value() -> None:
    """The probe: one private item open, every other one surely wrong (0 points)."""
    groups = {"grammar": 40, "history": 30}
    wrong = privacy.release(
        _report(groups, {"grammar": 0, "history": 0}),
        Counter(),
        _points(groups, {"grammar": 0, "history": 0}),
        K,
    )
    right = privacy.release(
        _report(groups, {"grammar": 1, "history": 0}),
        Counter(),
        _points(groups, {"grammar": 1, "history": 0}),
        K,
    )
    assert wrong == right  # values and intervals alike
    # a step needs k/2 items right together: 5 of 40 is released as 10 of 40
    five = _release(groups, {"grammar": 5, "history": 0})
    assert five.accuracy.group(CONTENT, "grammar").score == pytest.approx(10 / 40)
    assert _release(groups, {"grammar": 4, "history": 0}).accuracy.group(
        CONTENT, "grammar"
    ).score == pytest.approx(0.0)


def test_the_public_part_is_exact_and_public_only_values_unchanged() -> None:
    # grammar: 30 public items (12 right) + 20 private (7 right): released 12 + 10 of 50
    report = Report(
        accuracy=Accuracy(
            Score(19 / 50, 50, (0.2, 0.5)),
            {
                CONTENT: {"grammar": Score(19 / 50, 50, (0.2, 0.5))},
                "by_source": {"jun-schol": Score(12 / 30, 30, (0.25, 0.55))},
            },
        )
    )
    public = Counter({("accuracy", "overall", ""): 30, ("accuracy", CONTENT, "grammar"): 30})
    public["accuracy", "by_source", "jun-schol"] = 30
    points = {"accuracy|overall|": 7.0, f"accuracy|{CONTENT}|grammar": 7.0}
    shown = privacy.release(report, public, points, K)
    grammar = shown.accuracy.group(CONTENT, "grammar")
    assert grammar.score == pytest.approx(22 / 50)
    assert grammar.ci == privacy.wilson(22 / 50, 50)  # from the released value and n only
    assert shown.accuracy.group("by_source", "jun-schol") == Score(12 / 30, 30, (0.25, 0.55))


def test_without_kept_private_points_values_on_private_items_are_hidden() -> None:
    shown = privacy.release(_report({"grammar": 40}), Counter(), {}, K)
    assert math.isnan(shown.accuracy.overall.score) and _hidden(shown) == {"grammar"}


def test_wilson_interval() -> None:
    # Wilson's interval for 0.5 of 100 items: 0.4038 to 0.5962 (textbook value)
    low, high = privacy.wilson(0.5, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert privacy.wilson(0.0, 10)[0] == 0.0 and privacy.wilson(1.0, 10)[1] == 1.0


def test_private_points_of_items() -> None:
    groups = {"by_task": "short_answer", "by_content": "history"}
    items = [
        ItemResult(
            "c1", "c1", "english", "short_answer", "certamen", "history", None, 1.0, False, groups
        ),
        ItemResult(
            "c2", "c2", "english", "short_answer", "certamen", "history", None, 0.5, False, groups
        ),
        ItemResult(
            "p1", "p1", "english", "short_answer", "jun-schol", "history", "x", 1.0, False, groups
        ),
        ItemResult(
            "t1", "t1", "english", "translation", "certamen", "translation", None, None, False, {}
        ),
    ]
    assert privacy.private_points(items) == {
        "accuracy|overall|": 1.5,
        "accuracy|by_task|short_answer": 1.5,
        "accuracy|by_content|history": 1.5,
    }


def _record(i: int, source: str, content: str, category: str) -> Record:
    return Record(
        id=f"{source}-{i}",
        question_id=f"{source}-{i}",
        question_language="english",
        answer_language="latin",
        source=source,
        source_name=source,
        source_year=1900,
        task="short_answer",
        question_format="short_answer",
        question_content=content,
        category=category,
        difficulty="unknown",
        question="?",
        answers=["x"],
        multihop=False,
    )


def test_release_bits_counts_each_set_of_private_items_once() -> None:
    private = [_record(i, "certamen", "grammar", "skill") for i in range(20)]
    private += [_record(i, "certamen", "history", "knowledge") for i in range(20, 35)]
    private += [_record(i, "certamen", "mythology", "knowledge") for i in range(35, 38)]
    public = [_record(i, "jun-schol", "grammar", "skill") for i in range(20)]
    # the 38 private items: overall (and task, format, source, language pair, difficulty,
    # multihop: the same 38 items, one release) 38 // 10 + 2 = 5 steps, and the lenient
    # accuracy's 5; grammar's 20 private items (Skill: the same 20) 4; mythology (3) nothing;
    # history (15; hidden on the board to close mythology's complement, counted all the
    # same) 3; Knowledge, history + mythology, 18 items: 3
    bits = privacy.release_bits([*private, *public], K)
    assert bits == pytest.approx(2 * math.log2(5) + math.log2(4) + 2 * math.log2(3))
    # fewer items never give a larger bound (every coverage is bounded by all the files)
    assert privacy.release_bits(private[:30], K) <= bits
    assert privacy.release_bits(public, K) == 0.0  # public items only: nothing


def test_the_switch_counts_every_stepped_value_again_and_the_flagged_count() -> None:
    # the switch without suspected gold errors releases every stepped accuracy value a second
    # time (over its private items less the flagged ones) and counts the flagged private items
    # (0 to 38: log2(39)); the same 38 private items as above
    private = [_record(i, "certamen", "grammar", "skill") for i in range(20)]
    private += [_record(i, "certamen", "history", "knowledge") for i in range(20, 35)]
    private += [_record(i, "certamen", "mythology", "knowledge") for i in range(35, 38)]
    public = [_record(i, "jun-schol", "grammar", "skill") for i in range(20)]
    once = 2 * math.log2(5) + math.log2(4) + 2 * math.log2(3)  # worked out above
    switched = privacy.release_bits([*private, *public], K, switched=True)
    assert switched == pytest.approx(2 * once + math.log2(39))
    assert privacy.release_bits(public, K, switched=True) == 0.0  # public items only: nothing


def test_the_space_states_the_bound_with_the_switch(private_gold, tmp_path, caplog) -> None:
    import logging

    from respondeoqa_space.service import Space, SpaceConfig

    with caplog.at_level(logging.INFO, logger="respondeoqa_space.service"):
        space = Space(SpaceConfig(db=tmp_path / "lb.sqlite3", gold=private_gold))
    alone = privacy.release_bits(private_gold.records, space.limits.min_private_items)
    assert alone > 0 and space.release_bound > alone
    line = next(r.getMessage() for r in caplog.records if "probing can learn" in r.getMessage())
    assert f"at most {space.release_bound:.1f} bits" in line and f"({alone:.1f} of" in line
