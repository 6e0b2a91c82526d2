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

from ..aggregate import Difference
from ..breakdowns import DIMENSIONS
from ..report import Report

log = logging.getLogger(__name__)


def plot_text(text: str, limit: int = 60) -> str:
    """A user string made safe and short for a plotly label."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return html.escape(text, quote=False)


def _score(report: Report, dim: str, group: str) -> float | None:
    node = report.group(dim, group)
    if node is None or math.isnan(node.score):
        return None
    return node.score * 100.0


def grouped_bars(entries: Sequence[tuple[str, Report]], dim: str) -> go.Figure:
    """Grouped bar chart: one bar group per group of a breakdown dimension, one bar per entry.

    `entries` are (label, report) pairs; labels are user strings and get escaped.
    """
    dimension = DIMENSIONS[dim]
    present = [
        g for g in dimension.groups if any(_score(r, dim, g) is not None for _, r in entries)
    ]
    fig = go.Figure()
    for label, report in entries:
        ys = [_score(report, dim, g) for g in present]
        fig.add_trace(
            go.Bar(
                name=plot_text(label),
                x=[dimension.label(g) for g in present],
                y=ys,
                hovertemplate="%{x}: %{y:.1f}%<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(
        title=f"Accuracy by {dimension.name.lower()}",
        barmode="group",
        yaxis={"title": "accuracy (%)", "range": [0, 100]},
        legend={"orientation": "h", "y": -0.25},
        margin={"l": 50, "r": 20, "t": 50, "b": 40},
    )
    return fig


def difference_figure(diffs: Sequence[Difference], label_a: str, label_b: str) -> go.Figure:
    """Horizontal bars of A - B (points) per group, with the paired bootstrap interval."""
    names = [
        "Overall"
        if d.dimension == "overall"
        else f"{DIMENSIONS[d.dimension].name}: {DIMENSIONS[d.dimension].label(d.group)}"
        for d in diffs
    ]
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
            hovertemplate="%{y}: %{x:.2f} points<extra></extra>",
        )
    )
    fig.update_layout(
        title=f"{plot_text(label_a, 40)} minus {plot_text(label_b, 40)} (points, 95% paired bootstrap)",
        xaxis={"title": "difference in accuracy (points)", "zeroline": True},
        yaxis={"autorange": "reversed"},
        height=max(320, 26 * len(diffs) + 120),
        margin={"l": 220, "r": 20, "t": 50, "b": 40},
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
