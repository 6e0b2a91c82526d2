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

from ..records import CONTENTS, LANGUAGE_PAIRS
from .compare import Difference

log = logging.getLogger(__name__)

GROUPINGS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "content": ("by_content", "Accuracy by content type", CONTENTS),
    "language_pair": (
        "by_language_pair",
        "Accuracy by language pair (question-answer)",
        LANGUAGE_PAIRS,
    ),
}


def plot_text(text: str, limit: int = 60) -> str:
    """A user string made safe and short for a plotly label."""
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return html.escape(text, quote=False)


def _score(report: dict[str, Any], key: str, group: str) -> float | None:
    node = ((report.get("accuracy") or {}).get(key) or {}).get(group)
    score = node.get("score") if isinstance(node, dict) else None
    if isinstance(score, (int, float)) and not isinstance(score, bool) and not math.isnan(score):
        return score * 100.0
    return None


def grouped_bars(entries: Sequence[tuple[str, dict[str, Any]]], grouping: str) -> go.Figure:
    """Grouped bar chart: one bar group per content type (or language pair), one bar per entry.

    `entries` are (label, report dict) pairs; labels are user strings and get escaped.
    """
    key, title, groups = GROUPINGS[grouping]
    present = [g for g in groups if any(_score(r, key, g) is not None for _, r in entries)]
    fig = go.Figure()
    for label, report in entries:
        ys = [_score(report, key, g) for g in present]
        fig.add_trace(
            go.Bar(
                name=plot_text(label),
                x=[g.replace("_", " ") for g in present],
                y=ys,
                hovertemplate="%{x}: %{y:.1f}%<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(
        title=title,
        barmode="group",
        yaxis={"title": "accuracy (%)", "range": [0, 100]},
        legend={"orientation": "h", "y": -0.25},
        margin={"l": 50, "r": 20, "t": 50, "b": 40},
    )
    return fig


def difference_figure(diffs: Sequence[Difference], label_a: str, label_b: str) -> go.Figure:
    """Horizontal bars of A - B (points) per group, with the paired bootstrap interval."""
    names = [f"{d.grouping.replace('_', ' ')}: {d.group.replace('_', ' ')}" for d in diffs]
    fig = go.Figure(
        go.Bar(
            y=names,
            x=[d.diff * 100 for d in diffs],
            orientation="h",
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [(d.hi - d.diff) * 100 for d in diffs],
                "arrayminus": [(d.diff - d.lo) * 100 for d in diffs],
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
