"""Small private groups and their complements (pure functions of space/privacy.py)."""

from __future__ import annotations

import math

from respondeoqa_eval.aggregate import Difference
from respondeoqa_eval.report import Accuracy, ItemResult, Report, Score
from respondeoqa_eval.space import privacy

K = 10


def _report(groups: dict[str, int]) -> Report:
    """A report of private items only, one content group per entry of `groups` (its size)."""
    total = sum(groups.values())
    by_content = {g: Score(0.5, n) for g, n in groups.items()}
    return Report(accuracy=Accuracy(Score(0.5, total), {"by_content": by_content}))


def _hidden(report: Report) -> set[str]:
    return {g for g, s in report.accuracy.breakdowns["by_content"].items() if math.isnan(s.score)}


def test_a_lone_small_group_takes_the_next_smallest_with_it() -> None:
    # history (1 private item) alone hidden: overall and the others would give it away
    shown = privacy.suppress(_report({"history": 1, "grammar": 50, "literature": 20}), [], K)
    assert _hidden(shown) == {"history", "literature"}
    assert not math.isnan(shown.accuracy.overall.score)


def test_small_groups_that_together_reach_k_stay_as_they_are() -> None:
    shown = privacy.suppress(_report({"history": 4, "geography": 6, "grammar": 50}), [], K)
    assert _hidden(shown) == {"history", "geography"}  # 4 + 6 private items: not resolvable below k


def test_no_small_group_nothing_hidden() -> None:
    shown = privacy.suppress(_report({"history": 10, "grammar": 50}), [], K)
    assert _hidden(shown) == set()


def test_complete_rule() -> None:
    private = {"a": 1, "b": 30, "c": 12, "d": 0}
    assert privacy.complete(private, ["a"], K) == {"a", "c"}
    assert privacy.complete(private, [], K) == set()
    assert privacy.complete({"a": 1, "b": 2}, ["a"], K) == {"a", "b"}  # all small: all hidden


def _item(i: int, content: str) -> ItemResult:
    groups = {"by_content": content, "by_language_pair": "english-english"}
    return ItemResult(
        f"c{i}", f"c{i}", "english", "short_answer", "certamen", content, "x", 1.0, False, groups
    )


def test_compare_rows_close_complements_too() -> None:
    items = [_item(0, "history")] + [_item(i, "grammar") for i in range(1, 40)]
    items += [_item(i, "literature") for i in range(40, 60)]
    a = b = {it.id: it for it in items}
    diffs = [
        Difference("overall", "overall", 60, 0.5, 0.4, 0.1, (0.0, 0.2)),
        Difference("by_content", "history", 1, 1.0, 0.0, 1.0, (1.0, 1.0)),
        Difference("by_content", "grammar", 39, 0.5, 0.4, 0.1, (0.0, 0.2)),
        Difference("by_content", "literature", 20, 0.5, 0.4, 0.1, (0.0, 0.2)),
    ]
    out = privacy.suppress_differences(diffs, a, b, K)
    hidden = {d.group for d in out if math.isnan(d.diff)}
    assert hidden == {"history", "literature"}
