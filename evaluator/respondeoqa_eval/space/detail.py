"""One entry in full (breakdown, metadata, provenance, public per-item results) and the
coverage check of a comparison. Reads the Space's store; builds tables with `table`.

Private items never leave: the per-item download reads `item_scores(public_only=True)` and holds
no gold answers; the metadata lists only what the submitter gave and what the evaluator recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..io import write_text_atomic
from . import table


@dataclass
class EntryDetail:
    """What the Entry detail panel shows; `items_csv` is None for paper rows."""

    message: str
    metadata: pd.DataFrame
    breakdown: pd.DataFrame
    items_csv: Path | None


def entry_detail(space: Any, key: str | None, folder: Path) -> EntryDetail | None:
    """The detail of the entry `key` (a `Space.choices()` value), None when there is none.

    The per-item CSV (public items only) is written into `folder`.
    """
    row = space._resolve(key) if key else None
    if row is None or getattr(row, "hidden", False):
        return None
    report = row.report
    provenance = report.provenance.to_dict() if report.provenance is not None else None
    stale = row.kind == table.SCORED_LABEL and space.is_stale(row)
    metadata = table.metadata_frame(row, provenance, stale=stale)
    breakdown = table.breakdown_frame(report)
    if row.kind != table.SCORED_LABEL:
        message = (
            f"{row.model}: the paper's published numbers (no per-item results, item counts "
            "or intervals were published)."
        )
        return EntryDetail(message, metadata, breakdown, None)
    items = space.store.item_scores(row.id, public_only=True)
    frame = table.items_frame(items)
    digest = hashlib.sha256(f"{row.id}".encode()).hexdigest()[:8]
    path = folder / f"respondeoqa-entry-{row.id}-public-items-{digest}.csv"
    write_text_atomic(path, table.to_csv(frame))
    message = (
        f"Entry #{row.id}, scored on {table.coverage_label(row.sources)}. The download "
        f"holds its {len(frame)} per-item results on public items (no gold answers; private "
        "items are never shown)."
    )
    return EntryDetail(message, metadata, breakdown, path)


def coverage_warning(space: Any, keys: Sequence[str] | None) -> str:
    """A warning when the picked entries were scored on different sources ("" otherwise)."""
    rows = [r for r in (space._resolve(k) for k in (keys or [])) if r is not None]
    coverages = {table.coverage_label(r.sources) for r in rows}
    if len(rows) < 2 or len(coverages) < 2:
        return ""
    parts = "; ".join(
        f"{f'{r.model} (paper)' if r.kind != table.SCORED_LABEL else f'#{r.id} {r.model}'}: "
        f"{table.coverage_label(r.sources)}"
        for r in rows
    )
    return (
        f"Different coverage: these entries were scored on different sources ({parts}). "
        "Their bars rest on different items and are not directly comparable; the paired "
        "difference below uses only the items both were scored on."
    )


def compare_shape(space: Any, keys: Sequence[str] | None) -> tuple[bool, bool]:
    """(charts drawn, paired difference shown) for a comparison of `keys`, as Space.compare
    decides: charts for two or more entries, the paired part for exactly two scored ones."""
    rows = [r for r in (space._resolve(k) for k in (keys or [])) if r is not None]
    scored = [r for r in rows if r.kind == table.SCORED_LABEL]
    return len(rows) >= 2, len(rows) == 2 and len(scored) == 2
