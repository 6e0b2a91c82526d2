"""Figure builders: grouped bars, differences, escaping, error figures."""

from __future__ import annotations

from respondeoqa_eval.aggregate import Difference
from respondeoqa_eval.space.paper import PAPER_ROWS
from respondeoqa_eval.space.views import figures

from .helpers import make_report


def test_grouped_bars_by_content_and_pair() -> None:
    entries = [(p.model, p.report) for p in PAPER_ROWS]
    fig = figures.grouped_bars(entries, "by_content")
    assert [t.name for t in fig.data] == ["LLaMa 3.3 70B", "Qwen QwQ 32B", "o3-mini"]
    assert len(fig.data[0].x) == 10
    llama = dict(zip(fig.data[0].x, fig.data[0].y, strict=True))
    assert round(llama["Scansion"], 6) == 13.1  # PROTOCOL 6
    assert fig.layout.barmode == "group"
    pairs = figures.grouped_bars(entries, "by_language_pair")
    o3 = dict(zip(pairs.data[2].x, pairs.data[2].y, strict=True))
    assert round(o3["Latin \u2192 English"], 6) == 93.1


def test_grouped_bars_only_groups_present() -> None:
    fig = figures.grouped_bars([("a", make_report(0.5, content={"grammar": 0.5}))], "by_content")
    assert list(fig.data[0].x) == ["Grammar"] and list(fig.data[0].y) == [50.0]


def test_user_labels_are_escaped() -> None:
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    fig = figures.grouped_bars([(hostile, make_report(0.5))], "by_content")
    name = fig.data[0].name
    assert "<" not in name and ">" not in name and "&lt;img" in name
    diff = figures.difference_figure(
        [Difference("overall", "overall", 5, 1, 0, 1, (1, 1))], hostile, "b"
    )
    assert "<script" not in diff.layout.title.text


def test_difference_figure_error_bars() -> None:
    diffs = [
        Difference("overall", "overall", 100, 0.6, 0.5, 0.1, (0.05, 0.2)),
        Difference("by_content", "grammar", 30, 0.4, 0.5, -0.1, (-0.3, 0.05)),
    ]
    fig = figures.difference_figure(diffs, "A", "B")
    bar = fig.data[0]
    assert list(bar.x) == [10.0, -10.0]
    assert [round(v, 6) for v in bar.error_x.array] == [10.0, 15.0]
    assert [round(v, 6) for v in bar.error_x.arrayminus] == [5.0, 20.0]


def test_safe_figure_turns_errors_into_a_message() -> None:
    def broken(*_args):
        raise KeyError("boom")

    fig = figures.safe_figure(broken, 1, what="chart")
    assert fig.layout.annotations[0].text == "Could not draw the chart."
    fig = figures.safe_figure(figures.grouped_bars, [("a", make_report(0.5))], "no-such-grouping")
    assert "Could not draw" in fig.layout.annotations[0].text
