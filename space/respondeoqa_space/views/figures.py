"""Pure functions from report dicts to plotly figures; a failing builder yields an error figure.

Plotly renders a few HTML-like tags in trace names and labels, so every user string goes through
`plot_text`, which escapes it: plotly then shows `<script>` as the literal text.
"""

from __future__ import annotations

import html
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
from respondeoqa_eval.data import DIMENSIONS
from respondeoqa_eval.report import Report, interval_text, score_text, signed_text
from respondeoqa_eval.scoring import Difference

from .items import Difficulty

log = logging.getLogger(__name__)


def plot_text(text: str, limit: int = 60) -> str:
    """A user string made safe and short for a plotly label."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return html.escape(text, quote=False)


def _node(report: Report, dim: str, group: str):
    node = report.group(dim, group)
    if node is None or node.score is None or math.isnan(node.score):
        return None
    return node


def _count(n: int | None) -> str:
    return "n not reported" if n is None else f"n={n}"


PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
"""Okabe and Ito's colours, told apart with every common colour-vision deficiency."""
PAPER_GREYS = ("#7f7f7f", "#a6a6a6", "#555555")
PUBLISHED = "published number, no interval"


@dataclass(frozen=True)
class Series:
    """One entry in a chart: its label (a user string, escaped here), its report, and who it
    is: a stable number (an entry's id) gives it the same colour in every comparison; None
    marks one of the paper's published rows."""

    label: str
    report: Report
    number: int | None


def colours(series: Sequence[Series]) -> list[str]:
    """A colour per series that depends on the entry, not on the pick order: entry n takes
    PALETTE[n mod 8], the next free one when two picked entries would share it; the paper's
    rows take greys."""
    taken: set[str] = set()
    out: list[str] = []
    for index, s in enumerate(series):
        if s.number is None:
            out.append(PAPER_GREYS[index % len(PAPER_GREYS)])
            continue
        start = s.number % len(PALETTE)
        colour = next(
            PALETTE[(start + k) % len(PALETTE)]
            for k in range(len(PALETTE))
            if PALETTE[(start + k) % len(PALETTE)] not in taken or k == len(PALETTE) - 1
        )
        taken.add(colour)
        out.append(colour)
    return out


def grouped_bars(series: Sequence[Series], dim: str) -> go.Figure:
    """Grouped bar chart: one bar group per group of a breakdown dimension, one bar per entry.

    Every bar says its item count and 95% interval on hover; a group's count is in its axis
    label when every entry rests on the same items there. The paper's rows are hatched grey
    bars: published numbers, no interval and no count.
    """
    dimension = DIMENSIONS[dim]
    present = [
        g for g in dimension.groups if any(_node(s.report, dim, g) is not None for s in series)
    ]
    names: list[str] = []
    named: list[bool] = []  # the axis label says the group's n: the hover does not again
    for g in present:
        counts = {
            node.n
            for s in series
            if s.number is not None and (node := _node(s.report, dim, g)) is not None
        }
        label = dimension.label(g)
        named.append(len(counts) == 1)
        names.append(f"{label} (n={counts.pop()})" if named[-1] else label)
    fig = go.Figure()
    for s, colour in zip(series, colours(series), strict=True):
        nodes = [_node(s.report, dim, g) for g in present]
        ys = [None if n is None else n.score * 100.0 for n in nodes]
        sizes = [None if n is None else n.n for n in nodes]
        up = [
            0.0 if n is None or n.ci is None else max(0.0, (n.ci[1] - n.score) * 100) for n in nodes
        ]
        down = [
            0.0 if n is None or n.ci is None else max(0.0, (n.score - n.ci[0]) * 100) for n in nodes
        ]
        has_ci = any(n is not None and n.ci is not None for n in nodes)
        ci_text = [
            f"<br>{PUBLISHED}"
            if s.number is None
            else ""
            if n is None or n.ci is None
            else f"<br>95% CI {interval_text(n.ci[0] * 100, n.ci[1] * 100)}"
            for n in nodes
        ]
        shown = [None if y is None else score_text(y) for y in ys]
        paper = s.number is None
        fig.add_trace(
            go.Bar(
                name=plot_text(f"{s.label}: {PUBLISHED}" if paper else s.label),
                # horizontal: group names read whole at any width, a phone's too
                orientation="h",
                y=names,
                x=ys,
                marker={
                    "color": colour,
                    "pattern": {
                        "shape": "/" if paper else "",
                        "fgcolor": "#ffffff",
                        "solidity": 0.3,
                    },
                },
                customdata=[
                    [
                        " (items not published)" if paper else "" if has_n else f" ({_count(c)})",
                        t,
                        v,
                    ]
                    for c, t, v, has_n in zip(sizes, ci_text, shown, named, strict=True)
                ],
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": up,
                    "arrayminus": down,
                    "visible": has_ci,
                    "thickness": 1.2,
                    "width": 3,
                    "color": "#333333",
                },
                hovertemplate="%{y}: %{customdata[2]}%%{customdata[0]}%{customdata[1]}"
                "<extra>%{fullData.name}</extra>",
            )
        )
    # the hatching explained only when a published row is drawn hatched
    hatched = "<br>hatched: published, no interval" if any(s.number is None for s in series) else ""
    fig.update_layout(
        # short lines: the title must fit a phone-wide chart too
        title=f"Accuracy by {dimension.name.lower()} (%)<br><sup>bars: 95% interval{hatched}</sup>",
        barmode="group",
        # no axis title: the legend below the axis would sit on it (the title says "%")
        xaxis={"range": [0, 105]},
        yaxis={"automargin": True, "autorange": "reversed"},
        legend={"orientation": "h", "y": -0.08, "yanchor": "top"},
        margin={"l": 10, "r": 10, "t": 80, "b": 40},
        height=max(320, 120 + len(present) * (14 + 10 * len(series))),
    )
    return fig


SIZE_TICKS = [0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000]


@dataclass(frozen=True)
class SizePoint:
    """One entry on the size chart."""

    label: str  # a user string (escaped here)
    params_b: float
    accuracy: float  # percent
    coverage: str
    published: bool  # one of the paper's rows


def size_scatter(points: Sequence[SizePoint], without_size: int = 0) -> go.Figure:
    """Overall accuracy against parameter count (log scale), one point per entry, one colour
    per coverage (entries of different coverages are not ranked together: compare within a
    colour); the paper's rows are diamonds. `without_size`: entries not drawn (no size)."""
    if not points:
        return error_figure(
            "No entry states its parameter count yet"
            + (f" ({without_size} entries without one)." if without_size else ".")
        )
    fig = go.Figure()
    # names above and below in turn, in order of size: neighbours' names do not overlap
    by_size = sorted(range(len(points)), key=lambda i: points[i].params_b)
    above = {i: rank % 2 == 0 for rank, i in enumerate(by_size)}
    coverages = sorted({p.coverage for p in points})
    for index, coverage in enumerate(coverages):
        mine = [p for p in points if p.coverage == coverage]
        places = [
            "top center" if above[i] else "bottom center"
            for i, p in enumerate(points)
            if p.coverage == coverage
        ]
        fig.add_trace(
            go.Scatter(
                name=plot_text(coverage, 80),
                x=[p.params_b for p in mine],
                y=[p.accuracy for p in mine],
                # each point named beside it: models told apart without hovering
                mode="markers+text",
                text=[plot_text(p.label, 24) for p in mine],
                textposition=places,
                textfont={"size": 11},
                cliponaxis=False,
                marker={
                    "size": 11,
                    "color": PALETTE[index % len(PALETTE)],
                    "symbol": ["diamond" if p.published else "circle" for p in mine],
                    "line": {"width": 1, "color": "#333333"},
                },
                customdata=[[plot_text(p.label), score_text(p.accuracy)] for p in mine],
                hovertemplate="%{customdata[0]}: %{customdata[1]}% at %{x:.3~g}B parameters"
                "<extra>%{fullData.name}</extra>",
            )
        )
    note = (
        f"<br>{without_size} {'entry gives' if without_size == 1 else 'entries give'} no size"
        if without_size
        else ""
    )
    sizes = [p.params_b for p in points]
    ticks = [t for t in SIZE_TICKS if min(sizes) / 3 <= t <= max(sizes) * 3] or SIZE_TICKS
    fig.update_layout(
        # short lines: the subtitle must fit a phone-wide chart too
        title="Overall accuracy against model size<br><sup>colours: coverages; diamonds: the "
        f"paper's rows{note}</sup>",
        xaxis={
            "title": "parameters (billions, log scale)",
            "type": "log",
            "automargin": True,
            "tickvals": ticks,
            "ticktext": [f"{t:g}B" for t in ticks],
        },
        yaxis={"title": "overall accuracy (%)", "range": [0, 100]},
        legend={"orientation": "h", "y": -0.25, "yanchor": "top"},
        margin={"l": 50, "r": 20, "t": 90, "b": 40},
        height=500,
    )
    return fig


def difference_label(d: Difference) -> str:
    """A readable name for one difference row: "Content type: Grammar (n=30)"."""
    if d.dimension == "overall":
        name = "Overall"
    else:
        dim = DIMENSIONS[d.dimension]
        name = f"{dim.name}: {dim.label(d.group)}"
    return f"{name} ({_count(d.n)})"


DIFF_ROW = 46
"""Pixels per group of the difference chart: its name on one line, its bar under it."""


def difference_figure(diffs: Sequence[Difference], label_a: str, label_b: str) -> go.Figure:
    """Horizontal bars of A - B (points) per group, with the paired bootstrap interval.

    Each group's name is written above its bar, across the plot, not as an axis label beside
    it: names as long as "Language pair: English -> English (n=266)" took the whole width of
    a phone's chart, leaving the bars a plot 60 px wide (and cutting the axis title). Rows at
    y = 0, 1, ...: the bar in the lower part of its row, the name in the upper part."""
    if not diffs:
        return error_figure("These two entries have no scored items in common.")
    names = [difference_label(d) for d in diffs]
    lo = [d.diff if d.ci is None else d.ci[0] for d in diffs]
    hi = [d.diff if d.ci is None else d.ci[1] for d in diffs]
    rows = list(range(len(diffs)))
    fig = go.Figure(
        go.Bar(
            y=[row + 0.18 for row in rows],
            x=[d.diff * 100 for d in diffs],
            width=0.42,
            orientation="h",
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [(h - d.diff) * 100 for d, h in zip(diffs, hi, strict=True)],
                "arrayminus": [(d.diff - low) * 100 for d, low in zip(diffs, lo, strict=True)],
            },
            # blue and orange: told apart with every common colour-vision deficiency
            marker={"color": [PALETTE[0] if d.diff >= 0 else PALETTE[1] for d in diffs]},
            customdata=[
                [name, signed_text(d.diff * 100), interval_text(low * 100, h * 100)]
                for name, d, low, h in zip(names, diffs, lo, hi, strict=True)
            ],
            hovertemplate="%{customdata[0]}: %{customdata[1]} points "
            "(95% CI %{customdata[2]})<extra></extra>",
        )
    )
    for row, name in zip(rows, names, strict=True):
        fig.add_annotation(
            text=name,  # our own words (group names, counts)
            xref="paper",
            x=0,
            xanchor="left",
            yref="y",
            y=row - 0.2,
            yanchor="middle",
            showarrow=False,
            font={"size": 12},
        )
    fig.update_layout(
        # one short line each: the subtitle must fit a phone-wide chart too
        title=f"A minus B (accuracy points)<br><sup>95% paired bootstrap<br>A = "
        f"{plot_text(label_a, 30)}<br>B = {plot_text(label_b, 30)}</sup>",
        xaxis={"title": "A \u2212 B (accuracy points)", "zeroline": True, "automargin": True},
        # the names above the bars say what each row is: no axis labels beside them
        yaxis={
            "range": [len(diffs) - 0.5, -0.5],
            "showticklabels": False,
            "showgrid": False,
            "zeroline": False,
        },
        height=DIFF_ROW * len(diffs) + 200,
        margin={"l": 12, "r": 12, "t": 140, "b": 50},  # the title and its three short lines
        showlegend=False,
    )
    return fig


def difficulty_figure(bars: Sequence[Difficulty], dimension: str) -> go.Figure:
    """Horizontal bars: per group of a breakdown, the mean share of entries that get its
    items right (lower: harder), with its item count and suspected gold errors."""
    if not bars:
        return error_figure("No public item has a per-item score yet.")
    names = [f"{plot_text(b.label)} (n={b.items})" for b in bars]
    fig = go.Figure(
        go.Bar(
            y=names,
            x=[b.share_right * 100 for b in bars],
            orientation="h",
            marker={"color": PALETTE[0]},
            customdata=[[score_text(b.share_right * 100), b.flagged] for b in bars],
            hovertemplate="%{y}: %{customdata[0]}% of entries right on average; "
            "%{customdata[1]} suspected gold errors<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"Difficulty by {plot_text(dimension).lower()}<br><sup>public items: mean share "
        "of entries right; lower is harder</sup>",
        xaxis={"title": "entries right (%, mean over items)", "range": [0, 100]},
        yaxis={"autorange": "reversed", "automargin": True},
        height=max(280, 30 * len(bars) + 140),
        margin={"l": 20, "r": 20, "t": 70, "b": 40},
    )
    return fig


def error_figure(message: str) -> go.Figure:
    """An empty figure that says what went wrong (our own message, escaped anyway)."""
    fig = go.Figure()
    fig.add_annotation(
        text=plot_text(message, 200), showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper"
    )
    fig.update_layout(xaxis={"visible": False}, yaxis={"visible": False}, height=240)
    return fig


def safe_figure(builder: Callable[..., go.Figure], *args: Any, what: str = "chart") -> go.Figure:
    """Run a figure builder; on any error log its type and return an error figure instead."""
    try:
        return builder(*args)
    except Exception as exc:  # a broken chart must not kill the whole callback
        log.warning("could not draw the %s: %s", what, type(exc).__name__)
        return error_figure(f"Could not draw the {what}.")
