"""Pure functions from report dicts to plotly figures; a failing builder yields an error figure.

Plotly renders a few HTML-like tags in trace names and labels, so every user string goes through
`plot_text`, which escapes it: plotly then shows `<script>` as the literal text.
"""

from __future__ import annotations

import html
import logging
import math
from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go

from ...aggregate import Difference
from ...breakdowns import DIMENSIONS
from ...numbers import interval_text, score_text, signed_text
from ...report import Report

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


def grouped_bars(entries: Sequence[tuple[str, Report]], dim: str) -> go.Figure:
    """Grouped bar chart: one bar group per group of a breakdown dimension, one bar per entry.

    Each bar carries its item count (label and hover) and, when the report has one, its 95%
    bootstrap interval as an error bar. `entries` are (label, report) pairs; labels are user
    strings and get escaped.
    """
    dimension = DIMENSIONS[dim]
    present = [g for g in dimension.groups if any(_node(r, dim, g) is not None for _, r in entries)]
    names = [dimension.label(g) for g in present]
    fig = go.Figure()
    for label, report in entries:
        nodes = [_node(report, dim, g) for g in present]
        ys = [None if n is None else n.score * 100.0 for n in nodes]
        counts = [None if n is None else n.n for n in nodes]
        up = [
            0.0 if n is None or n.ci is None else max(0.0, (n.ci[1] - n.score) * 100) for n in nodes
        ]
        down = [
            0.0 if n is None or n.ci is None else max(0.0, (n.score - n.ci[0]) * 100) for n in nodes
        ]
        has_ci = any(n is not None and n.ci is not None for n in nodes)
        ci_text = [
            ""
            if n is None or n.ci is None
            else f"<br>95% CI {interval_text(n.ci[0] * 100, n.ci[1] * 100)}"
            for n in nodes
        ]
        shown = [None if y is None else score_text(y) for y in ys]
        fig.add_trace(
            go.Bar(
                name=plot_text(label),
                x=names,
                y=ys,
                text=[
                    "" if n is None else ("" if c is None else f"n={c}")
                    for n, c in zip(nodes, counts, strict=True)
                ],
                textposition="inside",
                insidetextanchor="start",
                textangle=-90,
                customdata=[
                    [_count(c), t, v] for c, t, v in zip(counts, ci_text, shown, strict=True)
                ],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": up,
                    "arrayminus": down,
                    "visible": has_ci,
                    "thickness": 1.2,
                    "width": 3,
                },
                hovertemplate="%{x}: %{customdata[2]}% (%{customdata[0]})%{customdata[1]}"
                "<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(
        # short lines: the title must fit a phone-wide chart too
        title=f"Accuracy by {dimension.name.lower()}<br><sup>bars: 95% interval; n: items</sup>",
        barmode="group",
        yaxis={"title": "accuracy (%)", "range": [0, 105]},
        legend={"orientation": "h", "y": -0.3},
        margin={"l": 50, "r": 20, "t": 50, "b": 40},
        uniformtext={"minsize": 8, "mode": "hide"},
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


def difference_figure(diffs: Sequence[Difference], label_a: str, label_b: str) -> go.Figure:
    """Horizontal bars of A - B (points) per group, with the paired bootstrap interval."""
    if not diffs:
        return error_figure("These two entries have no scored items in common.")
    names = [difference_label(d) for d in diffs]
    lo = [d.diff if d.ci is None else d.ci[0] for d in diffs]
    hi = [d.diff if d.ci is None else d.ci[1] for d in diffs]
    fig = go.Figure(
        go.Bar(
            y=names,
            x=[d.diff * 100 for d in diffs],
            orientation="h",
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [(h - d.diff) * 100 for d, h in zip(diffs, hi, strict=True)],
                "arrayminus": [(d.diff - low) * 100 for d, low in zip(diffs, lo, strict=True)],
            },
            marker={"color": ["#2a7" if d.diff >= 0 else "#c44" for d in diffs]},
            customdata=[
                [signed_text(d.diff * 100), interval_text(low * 100, h * 100)]
                for d, low, h in zip(diffs, lo, hi, strict=True)
            ],
            hovertemplate="%{y}: %{customdata[0]} points (95% CI %{customdata[1]})<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"A minus B (accuracy points)<br><sup>95% paired bootstrap; A = "
        f"{plot_text(label_a, 30)}; B = {plot_text(label_b, 30)}</sup>",
        xaxis={"title": "A \u2212 B (accuracy points)", "zeroline": True},
        yaxis={"autorange": "reversed", "automargin": True},
        height=max(320, 26 * len(diffs) + 140),
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
