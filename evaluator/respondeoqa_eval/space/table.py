"""Pure functions from stored entries (and the paper's rows) to pandas tables.

Every user-supplied string (model name, link, parameter count) goes into a plain-text cell; the
app declares those columns with datatype "str", never "html" or "markdown".
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import pandas as pd

from ..records import (
    ACCURACY_TASKS,
    CONTENTS,
    DIFFICULTIES,
    FORMATS,
    LANGUAGE_PAIRS,
    PUBLIC_SOURCES,
    SOURCES,
)
from .paper import PAPER_LABEL

SCORED_LABEL = "scored"
ALL_COVERAGES = "all coverages"


class Row(Protocol):
    """What a leaderboard row needs: a stored Entry or a paper.PaperRow."""

    model: str
    report: dict[str, Any]
    sources: tuple[str, ...]
    kind: str


# breakdown columns of each view: (column header, path into the report)
_Col = tuple[str, tuple[str, ...]]

_OVERVIEW: list[_Col] = [
    ("MC", ("accuracy", "by_task", "multiple_choice")),
    ("Short answer", ("accuracy", "by_task", "short_answer")),
    ("Scansion", ("accuracy", "by_content", "scansion")),
    ("Knowledge", ("accuracy", "by_category", "knowledge")),
    ("Skill", ("accuracy", "by_category", "skill")),
    ("BLEU to Latin", ("bleu", "latin", "overall")),
    ("BLEU to English", ("bleu", "english", "overall")),
]


def _label(key: str) -> str:
    return key.replace("_", " ").capitalize()


VIEWS: dict[str, list[_Col]] = {
    "Overview": _OVERVIEW,
    "Content type": [(_label(c), ("accuracy", "by_content", c)) for c in CONTENTS],
    "Language pair": [
        (p.replace("-", " to "), ("accuracy", "by_language_pair", p)) for p in LANGUAGE_PAIRS
    ],
    "Source": [(s, ("accuracy", "by_source", s)) for s in SOURCES],
    "Format": [(_label(f), ("accuracy", "by_format", f)) for f in FORMATS],
    "Task": [(_label(t), ("accuracy", "by_task", t)) for t in ACCURACY_TASKS],
    "Difficulty": [(_label(d), ("accuracy", "by_difficulty", d)) for d in DIFFICULTIES],
    "Translation (BLEU)": [
        (f"BLEU to {lang.capitalize()} {part}", ("bleu", lang, part))
        for lang in ("latin", "english")
        for part in ("overall", "constrained", "unconstrained")
    ],
}
"""View name -> breakdown columns (the issue's views: content type, language pair, source, format)."""

# the numeric columns of every view besides its breakdown
LEAD_COLUMNS = ["Rank", "Model", "Type", "Coverage", "Overall", "95% CI"]
TAIL_COLUMNS = ["Items", "Date", "Params", "Link", "Entry"]
NUMBER_COLUMNS = {"Rank", "Overall", "Items"}


def columns(view: str) -> list[str]:
    """The column headers of a view, in order."""
    return LEAD_COLUMNS + [c for c, _ in VIEWS[view]] + TAIL_COLUMNS


def datatypes(view: str) -> list[str]:
    """Gradio datatypes for `columns(view)`: numbers for scores, plain "str" for the rest."""
    breakdown = {c for c, _ in VIEWS[view]}
    return ["number" if c in NUMBER_COLUMNS or c in breakdown else "str" for c in columns(view)]


def coverage_label(sources: Iterable[str]) -> str:
    """A readable name for the set of sources an entry was scored on."""
    s = set(sources)
    if s >= set(SOURCES):
        return "all sources"
    if s == set(PUBLIC_SOURCES):
        return "public (jun-schol + lat-pros)"
    return " + ".join(x for x in SOURCES if x in s) or "none"


def _get(report: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = report
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _value(report: dict[str, Any], path: tuple[str, ...]) -> float:
    """A group's score as shown: accuracy in percent, BLEU as is; NaN when absent."""
    node = _get(report, path)
    score = node.get("score") if isinstance(node, dict) else None
    if not isinstance(score, (int, float)) or isinstance(score, bool) or math.isnan(score):
        return math.nan
    return round(score * 100.0, 2) if path[0] == "accuracy" else round(float(score), 2)


def _ci(report: dict[str, Any]) -> str:
    ci = _get(report, ("accuracy", "overall", "ci"))
    if not isinstance(ci, (list, tuple)) or len(ci) != 2 or None in ci:
        return ""
    return f"{ci[0] * 100:.1f} to {ci[1] * 100:.1f}"


def _n_items(row: Row) -> float:
    n = _get(row.report, ("accuracy", "overall", "n"))
    return float(n) if isinstance(n, int) else math.nan


def _row(row: Row, view: str) -> dict[str, Any]:
    scored = row.kind == SCORED_LABEL
    out: dict[str, Any] = {
        "Rank": math.nan,
        "Model": row.model,
        "Type": SCORED_LABEL if scored else PAPER_LABEL,
        "Coverage": coverage_label(row.sources),
        "Overall": _value(row.report, ("accuracy", "overall")),
        "95% CI": _ci(row.report),
    }
    for header, path in VIEWS[view]:
        out[header] = _value(row.report, path)
    out["Items"] = _n_items(row)
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


_GROUPS: list[tuple[str, str]] = [
    ("by_task", "Task"),
    ("by_content", "Content type"),
    ("by_language_pair", "Language pair"),
    ("by_category", "Category"),
    ("by_format", "Format"),
    ("by_source", "Source"),
    ("by_difficulty", "Difficulty"),
    ("by_multihop", "Multihop (short answer)"),
]


def _ci_text(node: dict[str, Any], scale: float) -> str:
    ci = node.get("ci")
    if not isinstance(ci, (list, tuple)) or len(ci) != 2 or None in ci:
        return ""
    return f"{ci[0] * scale:.1f} to {ci[1] * scale:.1f}"


def breakdown_frame(report: dict[str, Any]) -> pd.DataFrame:
    """The full breakdown of one report: one row per group (accuracy in %, BLEU 0-100)."""
    rows: list[dict[str, Any]] = []

    def add(group: str, key: str, node: Any, scale: float, metric: str) -> None:
        if not isinstance(node, dict) or not isinstance(node.get("score"), (int, float)):
            return
        n = node.get("n")
        rows.append(
            {
                "Group": group,
                "Key": key,
                "Metric": metric,
                "Score": round(float(node["score"]) * scale, 2),
                "95% CI": _ci_text(node, scale),
                "Items": n if isinstance(n, int) else math.nan,
            }
        )

    acc = report.get("accuracy") or {}
    add("Overall", "accuracy", acc.get("overall"), 100.0, "accuracy %")
    for key, name in _GROUPS:
        for sub, node in (acc.get(key) or {}).items():
            add(name, sub, node, 100.0, "accuracy %")
    extra = report.get("extra") or {}
    add(
        "Extra",
        "short answer, macron-sensitive",
        extra.get("short_answer_macron_sensitive"),
        100.0,
        "accuracy %",
    )
    for lang, parts in (report.get("bleu") or {}).items():
        for part, node in (parts or {}).items():
            add(f"BLEU to {lang}", part, node, 1.0, "BLEU")
            if isinstance(node, dict) and isinstance(node.get("variable_refs"), (int, float)):
                add(
                    f"BLEU to {lang}",
                    f"{part}, variable refs",
                    {"score": node["variable_refs"], "n": node.get("n")},
                    1.0,
                    "BLEU",
                )
    return pd.DataFrame(rows, columns=["Group", "Key", "Metric", "Score", "95% CI", "Items"])
