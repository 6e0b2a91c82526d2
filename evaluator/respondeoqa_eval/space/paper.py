"""The paper's three models as leaderboard rows "reported in paper" (`published.PUBLISHED`):
`kind="paper"` keeps them apart from scored submissions, every view treats them like any row."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..published import PUBLISHED
from ..report import Report
from ..sources import SOURCES
from .rows import PAPER


@dataclass(frozen=True)
class PaperRow:
    """One published model as a leaderboard row."""

    key: str
    model: str
    report: Report = field(repr=False)
    note: str = ""
    kind: str = PAPER
    sources: tuple[str, ...] = SOURCES


PAPER_ROWS: tuple[PaperRow, ...] = tuple(
    PaperRow(key=p.key, model=p.model, report=p.report, note=p.note) for p in PUBLISHED
)
