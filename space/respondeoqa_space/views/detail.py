"""One entry in full (breakdown, metadata, provenance, public per-item results) and what a
comparison of picked rows can show. Pure: the caller resolves the rows and reads the items.

Private items never leave: the per-item CSV is made from public items only and holds no gold
answers; the metadata lists only what the submitter gave and what the evaluator recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd
from respondeoqa_eval.report import ItemResult, count_text

from ..rows import Row, coverage_label, is_scored, key_of, short_label
from .entry import breakdown_frame, breakdown_text, items_frame, metadata_frame
from .frames import to_csv
from .html import render


@dataclass(frozen=True)
class EntryDetail:
    """What the Entry detail panel shows; `items_csv` is None for paper rows."""

    message: str
    metadata: pd.DataFrame
    breakdown: pd.DataFrame
    items_csv: bytes | None


def entry_detail(
    row: Row, public_items: Mapping[str, ItemResult] | None, *, stale: bool
) -> EntryDetail:
    """The detail of `row`; `public_items` are its per-item results on public items (None for
    a paper row)."""
    report = row.report
    provenance = report.provenance.to_dict() if report.provenance is not None else None
    metadata = metadata_frame(row, provenance, stale=is_scored(row) and stale)
    breakdown = breakdown_frame(report)
    if not is_scored(row) or public_items is None:
        message = (
            f"{row.model}: the paper's published numbers (no per-item results, item counts "
            "or intervals were published)."
        )
        return EntryDetail(message, metadata, breakdown, None)
    frame = items_frame(public_items)
    message = (
        f"Entry #{row.id}, scored on {coverage_label(row.sources)}. The download "
        f"holds its {len(frame)} per-item results on public items (no gold answers; private "
        "items are never shown)."
    )
    return EntryDetail(message, metadata, breakdown, to_csv(frame).encode("utf-8"))


def detail_html(
    found: EntryDetail | None, csv_href: str = "", answers_href: str = "", row: Row | None = None
) -> str:
    """The entry detail panel's HTML (templates/detail.html): its message, its metadata, its
    full breakdown and, when `csv_href` is given, the link to its public per-item results (and
    `answers_href`, to its answers page); for None (no such shown entry) one line saying so.
    `row`: the board's row of the entry (its key and coverage name its row on the board)."""
    if found is None:
        return render("detail.html", found=False)
    shown = breakdown_text(found.breakdown)
    shown["Items"] = [count_text(v) for v in shown["Items"]]
    return render(
        "detail.html",
        found=True,
        message=found.message,
        metadata=[tuple(map(str, r)) for r in found.metadata.itertuples(index=False)],
        headers=list(shown.columns),
        rows=[tuple("" if v is None else str(v) for v in r) for r in shown.itertuples(index=False)],
        csv_href=csv_href,
        answers_href=answers_href,
        key="" if row is None else key_of(row),
        coverage="" if row is None else coverage_label(row.sources),
    )


def coverage_warning(rows: Sequence[Row]) -> str:
    """A warning when the picked rows were scored on different sources ("" otherwise)."""
    coverages = {coverage_label(r.sources) for r in rows}
    if len(rows) < 2 or len(coverages) < 2:
        return ""
    parts = "; ".join(f"{short_label(r)}: {coverage_label(r.sources)}" for r in rows)
    paired = compare_shape(rows)[1]
    return (
        f"Different coverage: these entries were scored on different sources ({parts}). "
        "Their bars rest on different items and are not directly comparable"
        + (
            "; the paired difference below uses only the items both were scored on."
            if paired
            else "."
        )
    )


def compare_shape(rows: Sequence[Row]) -> tuple[bool, bool]:
    """(charts drawn, paired difference shown) for a comparison of `rows`: charts for two or
    more rows, the paired part for exactly two scored ones."""
    scored = [r for r in rows if is_scored(r)]
    return len(rows) >= 2, len(rows) == 2 and len(scored) == 2
