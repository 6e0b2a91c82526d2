"""The leaderboard as tables: pure functions from rows (stored entries and the paper's rows).

`leaderboard_frame` is the data (numbers as numbers, the interval as two numeric columns, Rank
and Items integers, indexed by row key); the CSV (`to_csv`) and the API (`records`) are made
from it, and `display_frame` is what the page shows (one decimal, the interval as one "55.6 to
62.3" cell, "—" for a missing value).
"""

from __future__ import annotations

import io
import math
from collections.abc import Collection, Iterable, Sequence
from typing import Any

import pandas as pd

from ...numbers import interval_text, round1
from ..rows import (
    ALL_SOURCES,
    PAPER_LABEL,
    SCORED,
    SELF_REPORTED_LABEL,
    VERIFIED_LABEL,
    Row,
    coverage_label,
    entry_cell,
    is_verified,
    key_of,
)
from .columns import CI_HEADER, CI_HIGH, CI_LOW, SUBMITTER, VIEWS, columns, percent

STALE_MARK = "older version/gold: will be re-scored"
"""Beside the Type of an entry scored with an older evaluator version or against other gold
than the running Space's (`Space.is_stale`), until `space admin rescore`."""
ALL_COVERAGES = "all coverages"


def _has_submitter(rows: Sequence[Row]) -> bool:
    return any(getattr(r, "submitter", "") for r in rows)


def type_label(row: Row, stale: bool = False) -> str:
    """The Type cell: "reported in paper", "verified" (evaluated by the leaderboard itself),
    "self-reported" (uploaded predictions); either of the last two with ", <stale mark>"."""
    if row.kind != SCORED:
        return PAPER_LABEL
    label = VERIFIED_LABEL if is_verified(row) else SELF_REPORTED_LABEL
    return f"{label}, {STALE_MARK}" if stale else label


def _row(row: Row, view: str, submitter: bool, stale: bool = False) -> dict[str, Any]:
    scored = row.kind == SCORED
    overall = row.report.accuracy.overall
    ci = overall.ci
    out: dict[str, Any] = {
        "Rank": 0,
        "Model": row.model,
        "Overall": round1(percent(overall)),
        CI_LOW: math.nan if ci is None else round1(ci[0] * 100.0),
        CI_HIGH: math.nan if ci is None else round1(ci[1] * 100.0),
        "_score": percent(overall),  # unrounded, for the rank
        "_key": key_of(row),
    }
    for col in VIEWS[view]:
        out[col.header] = round1(col.read(row.report))
    if submitter:
        out[SUBMITTER] = str(getattr(row, "submitter", "") or "")
    out["Coverage"] = coverage_label(row.sources)
    out["Items"] = overall.n
    out["Type"] = type_label(row, stale)
    out["Date"] = str(getattr(row, "created", ""))[:10] if scored else "2026 (paper)"
    out["Params"] = str(getattr(row, "params", "")) if scored else ""
    out["Link"] = str(getattr(row, "link", "")) if scored else ""
    out["Entry"] = entry_cell(row)
    return out


def leaderboard_frame(
    rows: Sequence[Row],
    view: str = "Overview",
    coverage: str | None = None,
    stale: Collection[int] = (),
    verified_only: bool = False,
) -> pd.DataFrame:
    """One table row per entry, ranked by overall accuracy within each coverage, indexed by
    row key (`rows.key_of`).

    Entries scored on different sources are not comparable: `Rank` counts only within the same
    coverage (ties share the best rank), and the table lists the largest coverage first.
    `coverage` (a `coverage_label`) keeps only that coverage; None or ALL_COVERAGES keeps all.
    Scores are in percent (BLEU and chrF in points) with one decimal; NaN where missing.
    Entries whose id is in `stale` are marked in their Type cell (STALE_MARK). `verified_only`
    keeps only the entries the leaderboard evaluated itself.
    """
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; one of {', '.join(VIEWS)}")
    if verified_only:
        rows = [r for r in rows if is_verified(r)]
    submitter = _has_submitter(rows)
    records = [
        _row(r, view, submitter, r.kind == SCORED and getattr(r, "id", None) in stale) for r in rows
    ]
    if coverage and coverage != ALL_COVERAGES:
        records = [r for r in records if r["Coverage"] == coverage]
    cols = columns(view, submitter)
    df = pd.DataFrame(records, columns=[*cols, "_score", "_key"])
    if df.empty:
        empty = df[cols].astype({"Rank": "int64", "Items": "Int64"})
        return empty.set_axis(pd.Index([], name="key", dtype=object))
    df["Rank"] = df.groupby("Coverage")["_score"].rank(method="min", ascending=False)
    size = df.groupby("Coverage")["Model"].transform("size")
    order = df.assign(_size=size, _cov=df["Coverage"] != ALL_SOURCES)
    order = order.sort_values(
        ["_cov", "_size", "Coverage", "_score", "Type"],
        ascending=[True, False, True, False, True],
        na_position="last",
        kind="stable",
    )
    keys = pd.Index(df.loc[order.index, "_key"].tolist(), name="key")
    df = df.loc[order.index, cols].set_axis(keys)
    df["Rank"] = df["Rank"].fillna(0).astype("int64")
    df["Items"] = pd.array(df["Items"].tolist(), dtype="Int64")
    return df


def display_frame(df: pd.DataFrame) -> pd.DataFrame:
    """The data frame as the page shows it: the interval as one text cell after Overall."""
    out = df.drop(columns=[CI_LOW, CI_HIGH])
    ci = [interval_text(lo, hi) for lo, hi in zip(df[CI_LOW], df[CI_HIGH], strict=True)]
    out.insert(out.columns.get_loc("Overall") + 1, CI_HEADER, ci)
    out["Items"] = [None if pd.isna(v) else int(v) for v in df["Items"]]
    out["Rank"] = out["Rank"].astype("int64")
    return out


def best_mask(df: pd.DataFrame, columns_: Iterable[str], group: str = "Coverage") -> pd.DataFrame:
    """True where a value is the best of its column among rows of the same `group` (ties all
    count); a group with fewer than two values in a column has no best there."""
    mask = pd.DataFrame(False, index=df.index, columns=df.columns)
    positions = pd.RangeIndex(len(df))
    for col in columns_:
        if col not in df.columns:
            continue
        values = pd.Series(pd.to_numeric(df[col], errors="coerce").to_numpy(), index=positions)
        at = mask.columns.get_loc(col)
        for _, idx in values.groupby(df[group].to_numpy()).groups.items():
            part = values.loc[idx].dropna()
            if len(part) >= 2 and part.nunique() > 1:
                mask.iloc[part.index[part == part.max()], at] = True
    return mask


def records(df: pd.DataFrame) -> dict[str, list[Any]]:
    """A leaderboard frame as JSON-ready data: {"headers", "data"}, numbers as numbers and
    None where a value is missing (what the API returns; the CSV holds the same)."""
    data = [
        [None if not isinstance(v, str) and pd.isna(v) else _plain(v) for v in row]
        for row in df.itertuples(index=False, name=None)
    ]
    return {"headers": [str(c) for c in df.columns], "data": data}


def _plain(value: Any) -> Any:
    # numpy scalars (int64, float64) as the built-in numbers JSON knows
    return value.item() if hasattr(value, "item") else value


def coverage_choices(rows: Sequence[Row]) -> list[str]:
    """The coverage filter's choices: all, then each coverage present."""
    seen: list[str] = []
    for r in rows:
        label = coverage_label(r.sources)
        if label not in seen:
            seen.append(label)
    return [ALL_COVERAGES, *sorted(seen, key=lambda s: (s != ALL_SOURCES, s))]


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    # a spreadsheet opening the CSV would run a cell starting with = + - @ as a formula
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(df: pd.DataFrame) -> str:
    """A table as CSV text, with user strings neutralised against formula injection.

    Numbers stay numbers: scores with one decimal, integers as integers, missing values empty.
    """
    safe = df.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].map(_csv_cell)
    buf = io.StringIO()
    safe.to_csv(buf, index=False)
    return buf.getvalue()
