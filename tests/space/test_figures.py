"""Figure builders: grouped bars, differences, escaping, error figures."""

from __future__ import annotations

from dataclasses import replace

from respondeoqa_eval.scoring.aggregate import Difference
from respondeoqa_space.paper import PAPER_ROWS
from respondeoqa_space.views import figures

from .helpers import make_report

PAPER = [figures.Series(p.model, p.report, None) for p in PAPER_ROWS]


def test_grouped_bars_by_content_and_pair() -> None:
    fig = figures.grouped_bars(PAPER, "by_content")
    published = ": published number, no interval"
    assert [t.name for t in fig.data] == [f"{p.model}{published}" for p in PAPER_ROWS]
    assert len(fig.data[0].y) == 10
    llama = dict(zip(fig.data[0].y, fig.data[0].x, strict=True))
    assert round(llama["Scansion"], 6) == 13.1  # PROTOCOL 6
    assert fig.layout.barmode == "group"
    assert all(t.marker.pattern.shape == "/" for t in fig.data)  # hatched: published
    assert all(c[0] == " (items not published)" for c in fig.data[0].customdata)
    pairs = figures.grouped_bars(PAPER, "by_language_pair")
    o3 = dict(zip(pairs.data[2].y, pairs.data[2].x, strict=True))
    assert round(o3["Latin \u2192 English"], 6) == 93.1


def test_grouped_bars_only_groups_present_with_their_counts() -> None:
    report = make_report(0.5, content={"grammar": 0.5})
    fig = figures.grouped_bars([figures.Series("a", report, 3)], "by_content")
    # the group's item count is under its name when every entry rests on the same items
    assert list(fig.data[0].y) == ["Grammar (n=10)"] and list(fig.data[0].x) == [50.0]
    # ... and the hover does not say it twice ("Grammar (n=10): 50.0% (n=10)")
    assert fig.data[0].customdata[0][0] == ""
    hover = fig.data[0].hovertemplate.replace("%{y}", "Grammar (n=10)")
    hover = hover.replace("%{customdata[2]}", "50.0").replace("%{customdata[0]}", "")
    assert hover.count("n=10") == 1
    # two entries on different items there: the label has no n, each bar's hover says its own
    other = make_report(0.5, content={"grammar": 0.5}, n=20)
    g = other.accuracy.breakdowns["by_content"]["grammar"]
    other = replace(
        other,
        accuracy=replace(
            other.accuracy,
            breakdowns={
                **other.accuracy.breakdowns,
                "by_content": {"grammar": replace(g, n=12)},
            },
        ),
    )
    two = figures.grouped_bars(
        [figures.Series("a", report, 3), figures.Series("b", other, 4)], "by_content"
    )
    assert list(two.data[0].y) == ["Grammar"]
    assert [t.customdata[0][0] for t in two.data] == [" (n=10)", " (n=12)"]


def test_colours_follow_the_entry_not_the_pick_order() -> None:
    a, b, c = (figures.Series(m, make_report(0.5), n) for m, n in (("a", 3), ("b", 12), ("c", 11)))
    one = dict(zip("ab", figures.colours([a, b]), strict=True))
    other = dict(zip("ba", figures.colours([b, a]), strict=True))
    assert one == other  # the same colours whichever is picked first
    assert one["a"] == figures.PALETTE[3]
    # #11 and #3 would share a colour (both 3 mod 8): the later takes the next free one
    shared = figures.colours([a, c])
    assert shared[0] != shared[1] and set(shared) <= set(figures.PALETTE)
    # no red/green pair: Okabe-Ito's colours, the paper's rows grey
    assert figures.colours(PAPER) == list(figures.PAPER_GREYS)


def test_size_chart_one_point_per_entry_on_a_log_axis() -> None:
    points = [
        figures.SizePoint("small <b>", 0.5, 40.0, "public", False),
        figures.SizePoint("LLaMa 3.3 70B", 70.0, 71.9, "all sources", True),
    ]
    fig = figures.size_scatter(points, without_size=2)
    assert fig.layout.xaxis.type == "log"
    assert {t.name for t in fig.data} == {"public", "all sources"}
    paper = next(t for t in fig.data if t.name == "all sources")
    assert list(paper.marker.symbol) == ["diamond"] and list(paper.y) == [71.9]
    assert "&lt;b&gt;" in next(t for t in fig.data if t.name == "public").customdata[0][0]
    assert "2 entries give no size" in fig.layout.title.text
    # every point named beside it (escaped), not only on hover
    assert all("text" in t.mode for t in fig.data)
    assert list(paper.text) == ["LLaMa 3.3 70B"]
    assert list(next(t for t in fig.data if t.name == "public").text) == ["small &lt;b&gt;"]
    # the subtitle in short lines, each fitting a phone-wide chart (about 50 characters)
    sub = fig.layout.title.text.split("<sup>")[1].removesuffix("</sup>")
    assert all(len(line) <= 50 for line in sub.split("<br>")), sub
    empty = figures.size_scatter([], without_size=3)
    assert "No entry states its parameter count yet (3 entries" in empty.layout.annotations[0].text


def test_user_labels_are_escaped() -> None:
    hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
    fig = figures.grouped_bars([figures.Series(hostile, make_report(0.5), 1)], "by_content")
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
    series = [figures.Series("a", make_report(0.5), 1)]
    fig = figures.safe_figure(figures.grouped_bars, series, "no-such-grouping")
    assert "Could not draw" in fig.layout.annotations[0].text


def test_the_legend_mentions_hatching_only_beside_a_hatched_bar() -> None:
    """The bars' subtitle explains the hatching of a published row only when one is drawn."""
    entries = [figures.Series("a", make_report(0.5), 1), figures.Series("b", make_report(0.6), 2)]
    for dim in ("by_content", "by_language_pair"):
        alone = figures.grouped_bars(entries, dim)
        assert "hatched" not in alone.layout.title.text
        assert not any(t.marker.pattern.shape for t in alone.data)
        mixed = figures.grouped_bars([*entries, PAPER[0]], dim)
        assert "hatched: published, no interval" in mixed.layout.title.text


def test_difference_figure_names_each_row_above_its_bar() -> None:
    """Each group's name is written above its bar across the plot (not an axis label beside
    it, which took a phone's chart): one name per row, each above its own bar, no tick labels."""
    diffs = [
        Difference("overall", "overall", 797, 0.6, 0.5, 0.1, (0.05, 0.2)),
        Difference("by_language_pair", "english-english", 266, 0.5, 0.6, -0.1, (-0.3, 0.05)),
        Difference("by_content", "history", 1, 1.0, 1.0, 0.0, (0.0, 0.0)),
    ]
    fig = figures.difference_figure(diffs, "A", "B")
    names = [a.text for a in fig.layout.annotations]
    assert names == [figures.difference_label(d) for d in diffs]
    assert names[1] == "Language pair: English \u2192 English (n=266)"
    assert fig.layout.yaxis.showticklabels is False
    bar = fig.data[0]
    for row, (name, centre) in enumerate(zip(fig.layout.annotations, bar.y, strict=True)):
        # the name in the upper part of its row (the axis runs downwards): above its bar's top
        # edge, below the row above
        assert row - 0.5 < name.y < centre - bar.width / 2, (row, name.y, centre)
        assert name.xref == "paper" and name.x == 0 and name.xanchor == "left"
    assert [c[0] for c in bar.customdata] == names  # the hover names the row too
