"""The board as the page shows it: a `leaderboard_frame` rendered into HTML from
`templates/board.html` (Jinja, autoescaped).

One section per coverage (ranks restart in each, and say so), the compact columns first (the
others behind the Columns menu, `o` cells), short headers with the full name in their tooltip,
every number's items and interval in its tooltip (the score's interval and the rank's range also
under the number), scores resting on fewer than `numbers.SMALL_GROUP` items marked and never
shaded best, the best value of each column among the section's entries shaded, and each row's
key and model facts in `data-` attributes for the entry detail and the page's filters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from respondeoqa_eval.report import (
    SMALL_GROUP,
    SMALL_MARK,
    count_text,
    interval_text,
    is_small,
    score_text,
)

from ..metadata import WEIGHTS, params_text
from ..rows import VERIFIED_LABEL
from .columns import CI_HIGH, CI_LOW, INFO_COLUMNS, N_SUFFIX, VIEWS
from .frames import RANK, RANK_HIGH, RANK_LOW
from .html import render


@dataclass(frozen=True)
class _Head:
    name: str  # the column's name in the CSV and the API
    text: str  # the header shown
    title: str  # what it holds (tooltip)
    kind: str  # "num" or "text": how the page sorts it
    optional: bool  # hidden until picked in the Columns menu


class _Cell(NamedTuple):
    """A cell as the template reads it (attributes: Jinja finds them without a failed
    lookup, which is most of a 300-row board's rendering time with dictionaries)."""

    cls: str
    text: str
    sub: str
    title: str


class _Line(NamedTuple):
    """A row as the template reads it: its key, the facts the page's filters read, its
    cells."""

    key: str
    kind: str
    made: str
    verified: str
    params: str
    weights: str
    reasoning: str
    hub: str
    cells: list[_Cell]


def _heads(view: str, empty: set[str]) -> list[_Head]:
    """The board's columns; a score column with no value in the table (`empty`: multiple
    choice on the public coverage) waits in the Columns menu like the optional ones."""
    spec = VIEWS[view]
    rank_title = "Rank within the coverage" + (
        "; under it, the ranks its interval allows" if spec.score_interval else ""
    )
    heads = [
        _Head(RANK, "Rank", rank_title, "num", False),
        _Head("Model", "Model", "Model", "text", False),
        _Head(
            spec.score_header,
            spec.score_short,
            spec.score_header
            + (", with its 95% interval" if spec.score_interval else " (no interval)"),
            "num",
            False,
        ),
    ]
    heads += [
        _Head(c.header, c.short, c.header, "num", c.optional or c.header in empty)
        for c in spec.columns
    ]
    heads += [
        _Head(name, short, name, "num" if name == "Items" else "text", not shown)
        for name, short, shown in INFO_COLUMNS
    ]
    return heads


def _missing(value: Any) -> bool:
    return value is None or (not isinstance(value, str) and pd.isna(value))


def _score_cell(value: Any, n: Any, low: Any, high: Any) -> dict[str, str]:
    """A score's text, its tooltip (items, interval) and its mark (small, or none)."""
    n = None if _missing(n) else int(n)
    if _missing(value):
        return {"text": score_text(None), "title": "" if n is None else f"n={n}", "small": ""}
    parts = [f"n={n}" if n is not None else "items not published"]
    if not (_missing(low) or _missing(high)):
        parts.append(f"95% CI {interval_text(low, high)}")
    small = is_small(n)
    if small:
        parts.append(f"fewer than {SMALL_GROUP} items")
    text = score_text(value) + (SMALL_MARK if small else "")
    return {"text": text, "title": " \u00b7 ".join(parts), "small": "s" if small else ""}


def _numbers(column: pd.Series) -> np.ndarray:
    return pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)


def _best(df: pd.DataFrame, column: str) -> set[Any]:
    """Row keys holding the best value of `column` in their coverage: two values at least, not
    all equal, and never a value resting on fewer than SMALL_GROUP items."""
    n_col = column + N_SUFFIX
    values = _numbers(df[column])
    if n_col in df:  # is_small, for a whole column at once (a missing n is not small)
        values = np.where(_numbers(df[n_col]) < SMALL_GROUP, np.nan, values)
    codes = pd.factorize(df["Coverage"])[0]
    out: set[Any] = set()
    for code in np.unique(codes):
        kept = (codes == code) & ~np.isnan(values)
        part = values[kept]
        if len(part) >= 2 and np.unique(part).size > 1:
            out |= set(df.index[kept][part == part.max()])
    return out


def best_keys(df: pd.DataFrame, view: str) -> dict[str, set[Any]]:
    """Per shaded column of `view`, the row keys holding its best value in their coverage
    (`_best`): of a whole frame, for a board that shows a page of it."""
    spec = VIEWS[view]
    return {col: _best(df, col) for col in [spec.score_header, *_shaded(spec)]}


def best_columns(view: str) -> set[str]:
    """The columns `best_keys` reads (each shaded column and its items)."""
    spec = VIEWS[view]
    shaded = [spec.score_header, *_shaded(spec)]
    return {*shaded, *(c + N_SUFFIX for c in shaded)}


def _shaded(spec: Any) -> list[str]:
    return [c.header for c in spec.columns if c.shade]


def _info_text(name: str, value: Any) -> str:
    if _missing(value):
        return "" if name != "Items" else count_text(None)
    if name == "Items":
        return count_text(value)
    if name == "Params (B)":
        return params_text(float(value))
    return str(value)


def board_html(
    df: pd.DataFrame,
    view: str,
    caption: str,
    *,
    csv_href: str = "board.csv",
    status: str = "",
    coverage: str = "",
    coverages: Sequence[tuple[str, str]] = (),
    legend: str = "",
    pager: Any = None,
    totals: Mapping[str, int] | None = None,
    query: str = "",
    best: Mapping[str, set[Any]] | None = None,
) -> str:
    """`df` (a `leaderboard_frame` of `view`, or the part of one on this page) as the page's
    table, under its caption, the CSV link and `status` (a notice about the record, when there
    is one). Above it the board's own pickers: the breakdown (`view`) and the coverage
    (`coverages`: (value, label), `coverage` picked); under it `legend` (markup:
    `html.own_markdown`). `pager` (readmodel.Pager) says where this page is among the pages
    of the rows; `totals` how many rows each coverage has in all (a section showing fewer
    offers to page through them); `query` the search the rows answer; `best` the keys shaded
    best per column (`best_keys` of the whole frame; default: of `df`)."""
    spec = VIEWS[view]
    empty = {c.header for c in spec.columns if df[c.header].isna().all()}
    heads = _heads(view, empty)
    if best is None:
        best = best_keys(df, view)
    sections = []
    for section_coverage, part in df.groupby("Coverage", sort=False):
        total = (totals or {}).get(str(section_coverage), len(part))
        rows: list[_Line] = []
        # records, not iterrows: a Series per row costs milliseconds on a view of a large frame
        for key, rec in zip(part.index, part.to_dict("records"), strict=True):
            cells: list[_Cell] = []
            rank = int(rec[RANK])
            lo, hi = int(rec[RANK_LOW]), int(rec[RANK_HIGH])
            if rank:
                span = f"{lo}\u2013{hi}" if (lo, hi) != (rank, rank) else ""
                title = f"rank {rank} of {total} in this coverage" + (
                    f"; {span} possible given the 95% intervals" if span else ""
                )
                cells.append(_Cell("n", str(rank), span, title))
            else:
                cells.append(_Cell("n", score_text(None), "", ""))
            cells.append(_Cell("m", str(rec["Model"]), "", ""))
            overall = _score_cell(rec[spec.score_header], rec["Items"], rec[CI_LOW], rec[CI_HIGH])
            ci = (
                ""
                if _missing(rec[CI_LOW])
                else interval_text(rec[CI_LOW], rec[CI_HIGH], tight=True)
            )
            marks = ["n", "b" if key in best[spec.score_header] else "", overall["small"]]
            cells.append(
                _Cell(" ".join(filter(None, marks)), overall["text"], ci, overall["title"])
            )
            for col in spec.columns:
                lo_key, hi_key = f"{col.header} {CI_LOW}", f"{col.header} {CI_HIGH}"
                cell = _score_cell(
                    rec[col.header],
                    rec[col.header + N_SUFFIX],
                    rec.get(lo_key, math.nan),
                    rec.get(hi_key, math.nan),
                )
                marks = ["n", "b" if key in best.get(col.header, ()) else "", cell["small"]]
                marks.append("o" if col.optional or col.header in empty else "")
                cells.append(_Cell(" ".join(filter(None, marks)), cell["text"], "", cell["title"]))
            flag = str(rec["Flag"])
            for name, _short, shown in INFO_COLUMNS:
                source = "Params (B)" if name == "Params" else name
                text = _info_text(source, rec[source])
                title = ""
                if name == "Type" and flag:
                    text, title = f"{text} \u2691", f"flagged by the operator: {flag}"
                cls = " ".join(filter(None, ["n" if name == "Items" else "", "" if shown else "o"]))
                cells.append(_Cell(cls, text, "", title))
            params = rec["Params (B)"]
            rows.append(
                _Line(
                    key=key,
                    kind="paper" if str(rec["Entry"]) == "paper" else "scored",
                    made=str(rec["Made with"]),
                    verified="1" if str(rec["Type"]).startswith(VERIFIED_LABEL) else "",
                    params="" if _missing(params) else f"{float(params):g}",
                    weights=next((k for k, v in WEIGHTS.items() if v == rec["Weights"]), ""),
                    reasoning=str(rec["Reasoning"]),
                    hub=str(rec["Hub model"]),
                    cells=cells,
                )
            )
        sections.append(
            {
                "coverage": section_coverage,
                "count": len(part),
                "total": total,
                "more": not query and pager is None and len(part) < total,
                "rows": rows,
            }
        )
    return render(
        "board.html",
        heads=heads,
        sections=sections,
        caption=caption,
        csv_href=csv_href,
        status=status,
        view=view,
        views=list(VIEWS),
        coverage=coverage,
        coverages=coverages,
        legend=legend,
        pager=pager,
        query=query,
        weights=WEIGHTS,
        small=SMALL_GROUP,
        small_mark=SMALL_MARK,
    )
