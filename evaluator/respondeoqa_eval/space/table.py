"""Pure functions from stored entries (and the paper's rows) to pandas tables.

Every user-supplied string (model name, link, parameter count) goes into a plain-text cell; the
app declares those columns with datatype "str", never "html" or "markdown".
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd

from ..breakdowns import BLEU_SPLITS, BLEU_TARGETS, DIMENSIONS, LANGUAGE_LABELS
from ..report import BleuScore, Report, Score
from ..sources import PUBLIC_SOURCES, SOURCES
from .paper import PAPER_LABEL

SCORED_LABEL = "scored"
ALL_COVERAGES = "all coverages"


class Row(Protocol):
    """What a leaderboard row needs: a stored Entry or a paper.PaperRow."""

    model: str
    report: Report
    sources: tuple[str, ...]
    kind: str


@dataclass(frozen=True)
class Column:
    """A breakdown column: its header and how to read its value from a report."""

    header: str
    read: Callable[[Report], Score | BleuScore | None]
    percent: bool = True  # accuracy (a fraction, shown x100) or BLEU (0-100 already)


def _acc(dim: str, group: str, header: str | None = None) -> Column:
    return Column(header or DIMENSIONS[dim].label(group), lambda r: r.group(dim, group))


def _bleu(target: str, split: str) -> Column:
    header = f"BLEU to {LANGUAGE_LABELS[target]}"
    if split != "overall":
        header += f" {split}"
    return Column(header, lambda r: r.bleu_score(target, split), percent=False)


_OVERVIEW = [
    _acc("by_task", "multiple_choice", "MC"),
    _acc("by_task", "short_answer"),
    _acc("by_content", "scansion"),
    _acc("by_category", "knowledge"),
    _acc("by_category", "skill"),
    _bleu("latin", "overall"),
    _bleu("english", "overall"),
]

VIEWS: dict[str, list[Column]] = {
    "Overview": _OVERVIEW,
    **{
        dim.name: [_acc(key, g) for g in dim.groups]
        for key, dim in DIMENSIONS.items()
        if key not in ("by_category", "by_multihop")
    },
    "Translation (BLEU)": [_bleu(t, s) for t in BLEU_TARGETS for s in BLEU_SPLITS],
}
"""View name -> breakdown columns (one view per breakdown dimension of the registry)."""

# the numeric columns of every view besides its breakdown
LEAD_COLUMNS = ["Rank", "Model", "Type", "Coverage", "Overall", "95% CI"]
TAIL_COLUMNS = ["Items", "Date", "Params", "Link", "Entry"]
NUMBER_COLUMNS = {"Rank", "Overall", "Items"}


def columns(view: str) -> list[str]:
    """The column headers of a view, in order."""
    return LEAD_COLUMNS + [c.header for c in VIEWS[view]] + TAIL_COLUMNS


def datatypes(view: str) -> list[str]:
    """Gradio datatypes for `columns(view)`: numbers for scores, plain "str" for the rest."""
    breakdown = {c.header for c in VIEWS[view]}
    return ["number" if c in NUMBER_COLUMNS or c in breakdown else "str" for c in columns(view)]


def coverage_label(sources: Iterable[str]) -> str:
    """A readable name for the set of sources an entry was scored on."""
    s = set(sources)
    if s >= set(SOURCES):
        return "all sources"
    if s == set(PUBLIC_SOURCES):
        return "public (jun-schol + lat-pros)"
    return " + ".join(x for x in SOURCES if x in s) or "none"


def _value(node: Score | BleuScore | None, percent: bool = True) -> float:
    """A group's score as shown: accuracy in percent, BLEU as is; NaN when absent."""
    if node is None or math.isnan(node.score):
        return math.nan
    return round(node.score * 100.0, 2) if percent else round(node.score, 2)


def _ci_text(node: Score | BleuScore | None, scale: float = 100.0) -> str:
    if node is None or node.ci is None:
        return ""
    return f"{node.ci[0] * scale:.1f} to {node.ci[1] * scale:.1f}"


def _row(row: Row, view: str) -> dict[str, Any]:
    scored = row.kind == SCORED_LABEL
    out: dict[str, Any] = {
        "Rank": math.nan,
        "Model": row.model,
        "Type": SCORED_LABEL if scored else PAPER_LABEL,
        "Coverage": coverage_label(row.sources),
        "Overall": _value(row.report.accuracy.overall),
        "95% CI": _ci_text(row.report.accuracy.overall),
    }
    for col in VIEWS[view]:
        out[col.header] = _value(col.read(row.report), col.percent)
    n = row.report.accuracy.overall.n
    out["Items"] = math.nan if n is None else float(n)
    out["Date"] = str(getattr(row, "created", ""))[:10] if scored else "2026 (paper)"
    out["Params"] = str(getattr(row, "params", "")) if scored else ""
    out["Link"] = str(getattr(row, "link", "")) if scored else ""
    out["Entry"] = f"#{row.id}" if scored else "paper"
    return out


def leaderboard_frame(
    rows: Sequence[Row],
    view: str = "Overview",
    coverage: str | None = None,
) -> pd.DataFrame:
    """One table row per entry, ranked by overall accuracy within each coverage.

    Entries scored on different sources are not comparable: `Rank` counts only within the same
    coverage (ties share the best rank), and the table lists the largest coverage first.
    `coverage` (a `coverage_label`) keeps only that coverage; None or ALL_COVERAGES keeps all.
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; one of {', '.join(VIEWS)}")
    records = [_row(r, view) for r in rows]
    if coverage and coverage != ALL_COVERAGES:
        records = [r for r in records if r["Coverage"] == coverage]
    df = pd.DataFrame(records, columns=columns(view))
    if df.empty:
        return df
    df["Rank"] = df.groupby("Coverage")["Overall"].rank(method="min", ascending=False)
    size = df.groupby("Coverage")["Model"].transform("size")
    order = df.assign(_size=size, _cov=df["Coverage"] != "all sources")
    order = order.sort_values(
        ["_cov", "_size", "Coverage", "Overall", "Type"],
        ascending=[True, False, True, False, True],
        na_position="last",
        kind="stable",
    )
    return df.loc[order.index].reset_index(drop=True)


def coverage_choices(rows: Sequence[Row]) -> list[str]:
    """The coverage filter's choices: all, then each coverage present."""
    seen: list[str] = []
    for r in rows:
        label = coverage_label(r.sources)
        if label not in seen:
            seen.append(label)
    return [ALL_COVERAGES, *sorted(seen, key=lambda s: (s != "all sources", s))]


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    # a spreadsheet opening the CSV would run a cell starting with = + - @ as a formula
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(df: pd.DataFrame) -> str:
    """The table as CSV text, with user strings neutralised against formula injection."""
    safe = df.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].map(_csv_cell)
    buf = io.StringIO()
    safe.to_csv(buf, index=False)
    return buf.getvalue()


def breakdown_frame(report: Report) -> pd.DataFrame:
    """The full breakdown of one report: one row per group (accuracy in %, BLEU 0-100)."""
    rows: list[dict[str, Any]] = []

    def add(group: str, key: str, node: Score | BleuScore | None, percent: bool, metric: str):
        if node is None:
            return
        rows.append(
            {
                "Group": group,
                "Key": key,
                "Metric": metric,
                "Score": _value(node, percent),
                "95% CI": _ci_text(node, 100.0 if percent else 1.0),
                "Items": math.nan if node.n is None else node.n,
            }
        )

    acc = report.accuracy
    add("Overall", "accuracy", acc.overall, True, "accuracy %")
    for key, dim in DIMENSIONS.items():
        for group, node in acc.breakdowns.get(key, {}).items():
            add(dim.name, dim.label(group), node, True, "accuracy %")
    add(
        "Extra",
        "short answer, macron-sensitive",
        report.extra.get("short_answer_macron_sensitive"),
        True,
        "accuracy %",
    )
    for target in BLEU_TARGETS:
        for split in BLEU_SPLITS:
            node = report.bleu_score(target, split)
            name = f"BLEU to {LANGUAGE_LABELS[target]}"
            add(name, split, node, False, "BLEU")
            if node is not None and node.variable_refs is not None:
                add(
                    name,
                    f"{split}, variable refs",
                    Score(node.variable_refs, node.n),
                    False,
                    "BLEU",
                )
    return pd.DataFrame(rows, columns=["Group", "Key", "Metric", "Score", "95% CI", "Items"])
