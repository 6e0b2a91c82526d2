"""The leaderboard as a table: pure functions from rows (stored entries and the paper's rows).

`leaderboard_frame` is the data: one row per entry, ranked within its coverage (entries scored
on different sources are never ranked together), indexed by row key. Numbers are numbers with
one decimal; every score comes with the items it rests on ("<column> n") and its interval
("<column> CI low/high") where the report has one; the rank with the range the intervals allow.
The CSV (`to_csv`) and the API (`records`) are made from it; the board's HTML (`board.py`) too.
"""

from __future__ import annotations

import functools
import io
import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from respondeoqa_eval.predictions import LIGHTEVAL, LM_EVAL, RUNNER
from respondeoqa_eval.report import round1

from ..metadata import WEIGHTS, ModelInfo
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
from .columns import CI_HIGH, CI_LOW, N_SUFFIX, VIEWS, Cell, View

STALE_MARK = "older version/gold: will be re-scored"
"""Beside the Type of an entry scored with an older evaluator version or against other gold
than the running Space's (`Space.is_stale`), until `respondeoqa-space admin rescore`."""
ALL_COVERAGES = "all coverages"
MOST_ENTRIES = "most entries"
"""The coverage choice that means: the coverage most scored entries share (the default)."""
MADE_WITH = {RUNNER: "runner", LM_EVAL: "lm-eval log", LIGHTEVAL: "lighteval log"}
"""How the predictions were made, from their provenance (a hand-made file says nothing)."""
HAND_MADE = "file"

RANK, RANK_LOW, RANK_HIGH = "Rank", "Rank low", "Rank high"
INFO = [
    "Type",
    "Made with",
    "Flag",
    "Params (B)",
    "Weights",
    "Reasoning",
    "Hub model",
    "Date",
    "Submitter",
    "Link",
    "Entry",
]


def made_with(row: Row) -> str:
    """How a row's predictions were made: runner, lm-eval log, lighteval log, file; "paper"."""
    if row.kind != SCORED:
        return PAPER_LABEL
    provenance = row.report.provenance
    tool = provenance.tool if provenance else None
    return HAND_MADE if tool is None else MADE_WITH.get(tool, HAND_MADE)


def type_label(row: Row, stale: bool = False) -> str:
    """The Type cell: "reported in paper", "verified" (evaluated by the leaderboard itself),
    "self-reported" (uploaded predictions); either of the last two with ", <stale mark>"."""
    if row.kind != SCORED:
        return PAPER_LABEL
    label = VERIFIED_LABEL if is_verified(row) else SELF_REPORTED_LABEL
    return f"{label}, {STALE_MARK}" if stale else label


def score_columns(view: View) -> list[str]:
    """The data columns of a view's score and its breakdown columns, in order."""
    out = [view.score_header, CI_LOW, CI_HIGH, "Items"]
    for col in view.columns:
        out += [col.header, col.header + N_SUFFIX]
        if col.interval:
            out += [f"{col.header} {CI_LOW}", f"{col.header} {CI_HIGH}"]
    return out


def columns(view: str) -> list[str]:
    """Every data column of a view (the CSV's and the API's), in order."""
    return [RANK, RANK_LOW, RANK_HIGH, "Model", "Coverage", *score_columns(VIEWS[view]), *INFO]


def _number(value: float | None) -> float:
    if value is None or value != value:
        return math.nan
    return _rounded(value) if value else round1(value)  # (0.0 == -0.0: not one key)


@functools.lru_cache(maxsize=1 << 16)
def _rounded(value: float) -> float:
    # scores are shares of a coverage's n items (and their intervals): thousands of entries
    # repeat a few thousand values, and round1's exact decimal rounding is the costly part
    return round1(value)


def _put(out: dict[str, Any], header: str, cell: Cell, interval: bool) -> None:
    out[header] = _number(cell.value)
    out[header + N_SUFFIX] = cell.n
    if interval:
        out[f"{header} {CI_LOW}"] = _number(cell.low)
        out[f"{header} {CI_HIGH}"] = _number(cell.high)


def _yes_no(value: bool | None) -> str:
    return "" if value is None else ("yes" if value else "no")


def _row(row: Row, view: View, stale: bool) -> dict[str, Any]:
    scored = row.kind == SCORED
    score = view.score(row.report)
    info: ModelInfo = getattr(row, "info", None) or ModelInfo()
    out: dict[str, Any] = {
        "Model": row.model,
        "Coverage": coverage_label(row.sources),
        view.score_header: _number(score.value),
        CI_LOW: _number(score.low),
        CI_HIGH: _number(score.high),
        "Items": score.n,
        "_score": score.value,  # unrounded, for the rank
        "_low": score.low,
        "_high": score.high,
        "_key": key_of(row),
    }
    for col in view.columns:
        _put(out, col.header, col.read(row.report), col.interval)
    out |= {
        "Type": type_label(row, stale),
        "Made with": made_with(row),
        "Flag": str(getattr(row, "flag", "") or ""),
        "Params (B)": info.params_b,
        "Weights": WEIGHTS.get(info.weights, ""),
        "Reasoning": _yes_no(info.reasoning),
        "Hub model": info.hub_model,
        "Date": str(getattr(row, "created", ""))[:10] if scored else "2026 (paper)",
        "Submitter": str(getattr(row, "submitter", "") or ""),
        "Link": str(getattr(row, "link", "")) if scored else "",
        "Entry": entry_cell(row),
    }
    return out


def rank_ranges(
    coverage: Sequence[object],
    score: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    rank: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The ranks each row could take given the 95% intervals, within its coverage: a row ranks
    surely below another only when their intervals do not overlap. A row without an interval
    (the paper's published numbers) counts as its value alone, and gets its rank itself (`rank`,
    as do rows without a score, which count for nothing).

    For each row with an interval [lo, hi]: 1 + the other rows whose low end is above hi
    (surely above it), and 1 + those whose high end reaches lo (maybe above it). Each
    coverage's ends are sorted once and each row's counts found by bisection: n log n, not
    the n^2 of comparing every pair (issue 40)."""
    out_low, out_high = rank.copy(), rank.copy()
    scored = ~np.isnan(score)
    has_ci = scored & ~np.isnan(low) & ~np.isnan(high)
    lo = np.where(has_ci, low, score)
    hi = np.where(has_ci, high, score)
    for rows in pd.Series(range(len(score))).groupby(list(coverage)).indices.values():
        rows = rows[scored[rows]]
        lows, highs = np.sort(lo[rows]), np.sort(hi[rows])
        at = rows[has_ci[rows]]
        n = len(rows)
        # a row is not above itself: its own ends are in the sorted arrays too
        surely = n - np.searchsorted(lows, hi[at], side="right") - (lo[at] > hi[at])
        maybe = n - np.searchsorted(highs, lo[at], side="left") - (hi[at] >= lo[at])
        out_low[at], out_high[at] = 1 + surely, 1 + maybe
    return out_low, out_high


ORDER = "_order"
"""A record table's column of each row's place among the rows (ties in score keep it)."""
_RANKING = ["_score", "_low", "_high", "_verified", ORDER]
"""A record table's own columns beside a view's data columns (what `ranked` ranks by)."""


def _counts(cols: Sequence[str]) -> list[str]:
    return [c for c in cols if c == "Items" or c.endswith(N_SUFFIX)]


def record_table(
    rows: Sequence[Row],
    view: str,
    stale: Collection[int] = (),
    order: Sequence[int] | None = None,
) -> pd.DataFrame:
    """One unranked record per row of a view (`_row`), indexed by row key: the data columns
    typed as the board's frame has them, and the ranking's own (`_RANKING`; `order` gives each
    row's place, by default its position in `rows`). What `ranked` ranks; a reader keeps it
    across data versions and re-reads only the rows that changed (`updated_table`)."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; one of {', '.join(VIEWS)}")
    spec = VIEWS[view]
    records = [_row(r, spec, r.kind == SCORED and getattr(r, "id", None) in stale) for r in rows]
    cols = columns(view)
    df = pd.DataFrame(records, columns=[*cols, "_score", "_low", "_high", "_key"])
    df["_verified"] = np.array([is_verified(r) for r in rows], dtype=bool)
    df[ORDER] = np.arange(len(rows)) if order is None else np.asarray(order, dtype=np.int64)
    for col in ("_score", "_low", "_high", "Params (B)"):
        df[col] = pd.to_numeric(df[col], errors="coerce").astype("float64")
    for col in _counts(cols):
        df[col] = pd.array(df[col].tolist(), dtype="Int64")
    keys = pd.Index(df["_key"].tolist(), name="key")
    return df.drop(columns=["_key", RANK, RANK_LOW, RANK_HIGH]).set_axis(keys)


def updated_table(
    table: pd.DataFrame,
    drop: Collection[str],
    rows: Sequence[Row],
    view: str,
    stale: Collection[int] = (),
    order: Sequence[int] | None = None,
) -> pd.DataFrame:
    """`table` (a `record_table` of `view`) without the rows whose keys are in `drop`, with the
    records of `rows` added (their `order` given): the next data version's table at the cost
    of the rows that changed."""
    kept = table.drop(index=list(drop)) if drop else table
    if not rows:
        return kept
    return pd.concat([kept, record_table(rows, view, stale, order)])


@dataclass(frozen=True)
class Ranking:
    """A board's rows in their order, as positions into a record table, with each row's
    rank and rank range (`ranked` says what they are): what a page of the board takes rows
    from, without copying the table's every column for every row."""

    order: np.ndarray  # positions into the table, best first (coverage by coverage)
    rank: np.ndarray
    low: np.ndarray
    high: np.ndarray
    coverage: np.ndarray  # each row's coverage, in the same order

    def __len__(self) -> int:
        return len(self.order)


def ranking(
    table: pd.DataFrame, coverage: str | None = None, verified_only: bool = False
) -> Ranking:
    """Where the rows of a record table rank (`ranked`), of one coverage (None or
    ALL_COVERAGES: all) and only verified entries when asked."""
    keep = np.ones(len(table), dtype=bool)
    if verified_only:
        keep &= table["_verified"].to_numpy(dtype=bool)
    if coverage and coverage != ALL_COVERAGES:
        keep &= (table["Coverage"] == coverage).to_numpy(dtype=bool)
    at = np.flatnonzero(keep)
    names = table["Coverage"].to_numpy(dtype=object)[at]
    score = table["_score"].to_numpy(dtype=float)[at]
    rank = pd.Series(score).groupby(names, sort=False).rank(method="min", ascending=False)
    # coverages with more rows first, then more submitted entries, then by name; within one,
    # by score (none last), the paper's rows first among equals, then each row's place
    codes, uniques = pd.factorize(names)
    paper = (table["Type"].to_numpy(dtype=object)[at] == PAPER_LABEL).astype(bool)
    by_name = np.argsort(np.argsort(np.asarray(uniques, dtype=object), kind="stable"))
    keys = (
        table[ORDER].to_numpy()[at],
        ~paper,
        np.where(np.isnan(score), np.inf, -score),
        by_name[codes],
        -np.bincount(codes, weights=~paper, minlength=len(uniques))[codes],
        -np.bincount(codes, minlength=len(uniques))[codes],
    )
    sort = np.lexsort(keys) if len(at) else np.array([], dtype=np.int64)
    names, score = names[sort], score[sort]
    ranks = rank.to_numpy()[sort]
    ranks = np.where(np.isnan(ranks), 0, ranks).astype(np.int64)
    low, high = rank_ranges(
        names,
        score,
        table["_low"].to_numpy(dtype=float)[at][sort],
        table["_high"].to_numpy(dtype=float)[at][sort],
        ranks,
    )
    unscored = np.isnan(score)  # nothing to rank by
    zero = lambda v: np.where(unscored, 0, v).astype(np.int64)  # noqa: E731
    return Ranking(at[sort], zero(ranks), zero(low), zero(high), names)


def rows_of(table: pd.DataFrame, view: str, ranked_rows: Ranking, at: Any = None) -> pd.DataFrame:
    """The rows of a ranking (`at`: a slice or positions of it; default all) as the leaderboard
    frame has them (`ranked`)."""
    cols = columns(view)
    if not len(ranked_rows):
        empty = pd.DataFrame([], columns=cols).astype({RANK: "int64", "Items": "Int64"})
        return empty.set_axis(pd.Index([], name="key", dtype=object))
    at = slice(None) if at is None else at
    part = table.iloc[ranked_rows.order[at]]
    data = {
        RANK: ranked_rows.rank[at],
        RANK_LOW: ranked_rows.low[at],
        RANK_HIGH: ranked_rows.high[at],
    }
    return part.assign(**data)[cols]


def ranked(
    table: pd.DataFrame, view: str, coverage: str | None = None, verified_only: bool = False
) -> pd.DataFrame:
    """The leaderboard frame of a record table (`leaderboard_frame` says what it holds)."""
    return rows_of(table, view, ranking(table, coverage, verified_only))


def leaderboard_frame(
    rows: Sequence[Row],
    view: str = "Overview",
    coverage: str | None = None,
    stale: Collection[int] = (),
    verified_only: bool = False,
) -> pd.DataFrame:
    """One table row per entry, ranked by the view's score within each coverage, indexed by row
    key (`rows.key_of`).

    Entries scored on different sources are not comparable: `Rank` counts only within the same
    coverage (ties share the best rank), with the range its interval allows (`Rank low/high`);
    coverages with more rows come first, then more submitted entries (the default coverage
    first: `default_coverage`). `coverage` (a `coverage_label`) keeps only that coverage; None
    or ALL_COVERAGES keeps all. Scores in
    percent (BLEU and chrF in points), one decimal, NaN where missing. Entries whose id is in
    `stale` are marked in their Type. `verified_only` keeps only the entries the leaderboard
    evaluated itself (ranked among themselves).
    """
    return ranked(record_table(rows, view, stale), view, coverage, verified_only)


Sources = Counter[tuple[tuple[str, ...], bool]]
"""How many rows have each (sources, submitted) pair, in the order first seen (`by_sources`)."""


def by_sources(rows: Sequence[Row]) -> Sources:
    """The rows counted by (sources, submitted): one pass over the rows, then a handful of
    coverages (a reader keeps it across data versions, counting only the rows that change)."""
    return Counter((tuple(r.sources), r.kind == SCORED) for r in rows)


def default_coverage(rows: Sequence[Row]) -> str:
    """The coverage most entries share, the paper's rows counted (ties: more submitted
    entries, then more sources, then by name); all sources when there are no rows.

    The paper's rows count as entries: what the board shows first, with the caption "the
    coverage most entries share", has the most rows, so one early public upload does not
    hide the paper's three rows behind a section of one entry."""
    return default_coverage_of(by_sources(rows))


def default_coverage_of(counted: Sources) -> str:
    """`default_coverage` of rows counted by `by_sources`."""
    counts: Counter[str] = Counter()
    submitted: Counter[str] = Counter()
    sizes: dict[str, int] = {}
    for (sources, scored), n in counted.items():
        if n <= 0:
            continue
        label = coverage_label(sources)
        counts[label] += n
        submitted[label] += n if scored else 0
        sizes[label] = len(sources)
    if not counts:
        return ALL_SOURCES
    return min(counts, key=lambda c: (-counts[c], -submitted[c], -sizes.get(c, 0), c))


def coverage_choices(rows: Sequence[Row]) -> list[str]:
    """The coverage filter's choices: the default, all, then each coverage present."""
    return coverage_choices_of(by_sources(rows))


def coverage_choices_of(counted: Sources) -> list[str]:
    """`coverage_choices` of rows counted by `by_sources`."""
    seen = dict.fromkeys(coverage_label(sources) for (sources, _), n in counted.items() if n > 0)
    return [MOST_ENTRIES, ALL_COVERAGES, *sorted(seen, key=lambda s: (s != ALL_SOURCES, s))]


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
