"""The paper's three models as leaderboard rows "reported in paper" (`published.PUBLISHED`):
`kind="paper"` keeps them apart from scored submissions, every view treats them like any row."""

from __future__ import annotations

from dataclasses import dataclass, field

from respondeoqa_eval.data import SOURCES
from respondeoqa_eval.report import PUBLISHED, Report

from .metadata import ModelInfo
from .rows import PAPER


@dataclass(frozen=True)
class PaperRow:
    """One published model as a leaderboard row."""

    key: str
    model: str
    report: Report = field(repr=False)
    note: str = ""
    info: ModelInfo = field(default_factory=ModelInfo)
    kind: str = PAPER
    sources: tuple[str, ...] = SOURCES


PAPER_ROWS: tuple[PaperRow, ...] = tuple(
    PaperRow(
        key=p.key,
        model=p.model,
        report=p.report,
        note=p.note,
        info=ModelInfo(p.params_b, p.weights, p.reasoning, p.hub_model),
    )
    for p in PUBLISHED
)
