"""What each leaderboard view shows: its breakdown columns and how each reads a report.

One view per breakdown dimension of the registry (`breakdowns.DIMENSIONS`), an Overview of the
headline groups, and a Translation view where the paper's padded BLEU always stands beside BLEU
without padding and chrF (never alone: PROTOCOL 5, the padding quirk).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ...breakdowns import (
    BLEU_SPLIT_LABELS,
    BLEU_SPLITS,
    BLEU_TARGETS,
    BLEU_VARIANT_LABELS,
    DIMENSIONS,
    LANGUAGE_LABELS,
)
from ...report import Report, Score


@dataclass(frozen=True)
class Column:
    """A breakdown column: its header and how to read its value from a report."""

    header: str
    read: Callable[[Report], float | None]  # the value as shown (percent or BLEU points)


def percent(node: Score | None) -> float | None:
    """An accuracy node in percent (None when missing or suppressed)."""
    if node is None or node.score is None or math.isnan(node.score):
        return None
    return node.score * 100.0


def _acc(dim: str, group: str, header: str | None = None) -> Column:
    return Column(header or DIMENSIONS[dim].label(group), lambda r: percent(r.group(dim, group)))


BLEU_PAPER = BLEU_VARIANT_LABELS["score"]
BLEU_PLAIN = BLEU_VARIANT_LABELS["variable_refs"]


def _bleu_header(metric: str, target: str, split: str, variant: str = "") -> str:
    header = f"{metric} \u2192 {LANGUAGE_LABELS[target]}"
    if split != "overall":
        header += f", {BLEU_SPLIT_LABELS[split]}"
    return f"{header} ({variant})" if variant else header


def _bleu_read(target: str, split: str, field: str) -> Callable[[Report], float | None]:
    def read(r: Report) -> float | None:
        node = r.bleu_score(target, split)
        value = None if node is None else getattr(node, field)
        return None if value is None or math.isnan(value) else float(value)

    return read


def bleu_columns(target: str, split: str, chrf: bool = True) -> list[Column]:
    """The paper's padded BLEU, BLEU without padding and (optionally) chrF: never one alone."""
    cols = [
        Column(_bleu_header("BLEU", target, split, BLEU_PAPER), _bleu_read(target, split, "score")),
        Column(
            _bleu_header("BLEU", target, split, BLEU_PLAIN),
            _bleu_read(target, split, "variable_refs"),
        ),
    ]
    if chrf:
        cols.append(Column(_bleu_header("chrF", target, split), _bleu_read(target, split, "chrf")))
    return cols


_OVERVIEW = [
    _acc("by_task", "multiple_choice"),
    _acc("by_task", "short_answer"),
    _acc("by_content", "scansion"),
    _acc("by_category", "knowledge"),
    _acc("by_category", "skill"),
    *(c for t in BLEU_TARGETS for c in bleu_columns(t, "overall", chrf=False)),
]

OVERVIEW = "Overview"
TRANSLATION_VIEW = "Translation (BLEU, chrF)"

VIEWS: dict[str, list[Column]] = {
    OVERVIEW: _OVERVIEW,
    **{
        dim.name: [_acc(key, g) for g in dim.groups]
        for key, dim in DIMENSIONS.items()
        if key not in ("by_category", "by_multihop")
    },
    TRANSLATION_VIEW: [
        c
        for t in BLEU_TARGETS
        for s in BLEU_SPLITS
        for c in bleu_columns(t, s, chrf=s == "overall")
    ],
}
"""View name -> breakdown columns (one view per breakdown dimension of the registry)."""

VIEW_DIMENSION = {dim.name: key for key, dim in DIMENSIONS.items()}


def view_of(value: object) -> str:
    """A view the board knows (else the Overview): a client-sent name never reaches a cache."""
    return value if isinstance(value, str) and value in VIEWS else OVERVIEW


# every view: Rank and Model (pinned), the overall score, the view's columns, then the rest
LEAD_COLUMNS = ["Rank", "Model", "Overall"]
TAIL_COLUMNS = ["Coverage", "Items", "Type", "Date", "Params", "Link", "Entry"]
SUBMITTER = "Submitter"
CI_HEADER = "95% CI"
CI_LOW, CI_HIGH = "CI low", "CI high"

SCORE_COLUMNS = {"Overall", *(c.header for cols in VIEWS.values() for c in cols)}
INTEGER_COLUMNS = {"Rank", "Items"}


def columns(view: str, submitter: bool = False) -> list[str]:
    """The data columns of a view, in order (the interval as two numeric columns)."""
    tail = [SUBMITTER, *TAIL_COLUMNS] if submitter else TAIL_COLUMNS
    return [*LEAD_COLUMNS, CI_LOW, CI_HIGH, *(c.header for c in VIEWS[view]), *tail]


def display_columns(view: str, submitter: bool = False) -> list[str]:
    """The columns the page shows: the interval as one text column after Overall."""
    tail = [SUBMITTER, *TAIL_COLUMNS] if submitter else TAIL_COLUMNS
    return [*LEAD_COLUMNS, CI_HEADER, *(c.header for c in VIEWS[view]), *tail]


def column_widths(view: str, submitter: bool = False) -> list[str]:
    """Minimum widths of the board's columns (Rank and Model are pinned at fixed offsets by the
    board's stylesheet)."""
    widths = {"Rank": "64px", "Model": "220px", CI_HEADER: "120px", "Coverage": "330px"}
    widths |= {"Date": "120px", "Link": "220px", "Entry": "80px", "Type": "170px"}
    other = "150px" if view == TRANSLATION_VIEW else "118px"
    return [widths.get(c, other) for c in display_columns(view, submitter)]
