"""What each leaderboard view shows: its score columns, how each reads a report, and the
board's other columns.

One view per breakdown dimension of the registry (`breakdowns.DIMENSIONS`), an Overview of the
headline groups, and a Translation view ranked by BLEU without padding, where the paper's
padded BLEU always stands beside it and chrF (never alone: PROTOCOL 5, the padding quirk).
Every score column reads a `Cell`: the value as shown (percent or points), the items it rests
on and its 95% interval, so every view can show each number's n and uncertainty.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from respondeoqa_eval.data import (
    BLEU_SPLIT_LABELS,
    BLEU_SPLITS,
    BLEU_TARGETS,
    BLEU_VARIANT_LABELS,
    DIMENSIONS,
    LANGUAGE_LABELS,
    LANGUAGE_SHORTS,
)
from respondeoqa_eval.report import BleuScore, Report, Score


@dataclass(frozen=True)
class Cell:
    """One number of the board: value (percent or points), its items, its interval."""

    value: float | None
    n: int | None = None
    low: float | None = None
    high: float | None = None


EMPTY = Cell(None)


def accuracy_cell(node: Score | None) -> Cell:
    """An accuracy node in percent (EMPTY when missing or suppressed)."""
    if node is None or node.score is None or math.isnan(node.score):
        return Cell(None, None if node is None else node.n)
    low, high = (None, None) if node.ci is None else (node.ci[0] * 100, node.ci[1] * 100)
    return Cell(node.score * 100.0, node.n, low, high)


def percent(node: Score | None) -> float | None:
    """An accuracy node in percent (None when missing or suppressed)."""
    return accuracy_cell(node).value


@dataclass(frozen=True)
class Column:
    """A score column: its full name (CSV, API, tooltip, legend), its header on the board,
    how it reads a report, and whether the board shows it before a reader picks it."""

    header: str
    short: str
    read: Callable[[Report], Cell]
    optional: bool = False
    interval: bool = True  # whether the report has an interval for it
    shade: bool = True  # whether its best value is shaded (not for the format columns)


def _acc(dim: str, group: str) -> Column:
    d = DIMENSIONS[dim]
    return Column(d.label(group), d.short(group), lambda r: accuracy_cell(r.group(dim, group)))


BLEU_PAPER = BLEU_VARIANT_LABELS["score"]
BLEU_PLAIN = BLEU_VARIANT_LABELS["variable_refs"]
_SPLIT_SHORT = {"overall": "", "constrained": " c.", "unconstrained": " u."}


def _bleu_cell(node: BleuScore | None, field: str) -> Cell:
    value = None if node is None else getattr(node, field)
    if node is None or value is None or math.isnan(value):
        return Cell(None, None if node is None else node.n)
    # the report's BLEU interval is that of the paper's (padded) BLEU
    ci = node.ci if field == "score" else None
    return Cell(float(value), node.n, *(ci if ci else (None, None)))


def _bleu_column(metric: str, target: str, split: str, field: str, optional: bool) -> Column:
    header = f"{metric} \u2192 {LANGUAGE_LABELS[target]}"
    if split != "overall":
        header += f", {BLEU_SPLIT_LABELS[split]}"
    short = f"{metric}\u2192{LANGUAGE_SHORTS[target]}{_SPLIT_SHORT[split]}"
    if metric == "BLEU":
        variant = BLEU_PAPER if field == "score" else BLEU_PLAIN
        header += f" ({variant})"
        short += " pad" if field == "score" else ""
    read = lambda r: _bleu_cell(r.bleu_score(target, split), field)  # noqa: E731
    return Column(header, short, read, optional, interval=field == "score")


def bleu_columns(
    target: str, split: str, chrf: bool = True, optional: bool = False
) -> list[Column]:
    """BLEU without padding, the paper's padded BLEU beside it and (optionally) chrF."""
    cols = [
        _bleu_column("BLEU", target, split, "variable_refs", optional),
        _bleu_column("BLEU", target, split, "score", optional),
    ]
    if chrf:
        cols.append(_bleu_column("chrF", target, split, "chrf", optional))
    return cols


def translation_score(report: Report) -> Cell:
    """The Translation view's ranking score: BLEU without padding, the mean over the target
    languages the entry was scored on (entries of one coverage share them)."""
    nodes = [report.bleu_score(t, "overall") for t in BLEU_TARGETS]
    values = [n.variable_refs for n in nodes if n is not None and n.variable_refs is not None]
    values = [v for v in values if not math.isnan(v)]
    if not values:
        return EMPTY
    return Cell(sum(values) / len(values), sum(n.n for n in nodes if n is not None and n.n))


@dataclass(frozen=True)
class View:
    """A board view: the score it ranks by (first, with its interval) and its columns."""

    name: str
    score_header: str
    score_short: str
    score: Callable[[Report], Cell]
    columns: list[Column]
    score_interval: bool = True  # whether the ranking score has a 95% interval


UNANSWERED = "Unanswered (% of accuracy items, beyond the paper)"
LENIENT_GAP = "Lenient minus paper accuracy (points, beyond the paper)"
LENIENT = "Lenient accuracy (beyond the paper)"


def unanswered_cell(report: Report) -> Cell:
    """The share of accuracy items from which the paper's rules read no answer (no prediction,
    or nothing extractable), in percent; EMPTY for the paper's rows."""
    fc = report.format_compliance
    if fc is None or not fc.overall.n:
        return EMPTY
    counts = fc.overall
    return Cell(100.0 * (counts.n - counts.answered) / counts.n, counts.n)


def lenient_gap_cell(report: Report) -> Cell:
    """Lenient minus paper accuracy in points: what the answer format alone cost."""
    gap = report.lenient_gap()
    if gap is None or report.format_compliance is None:
        return EMPTY
    return Cell(gap * 100.0, report.format_compliance.overall.n)


def lenient_cell(report: Report) -> Cell:
    fc = report.format_compliance
    return EMPTY if fc is None else accuracy_cell(fc.accuracy_lenient.overall)


FORMAT_COLUMNS = [
    Column(UNANSWERED, "No ans.", unanswered_cell, interval=False, shade=False),
    Column(LENIENT_GAP, "Fmt gap", lenient_gap_cell, interval=False, shade=False),
    Column(LENIENT, "Lenient", lenient_cell, optional=True, shade=False),
]
"""How much of the error is the answer format (report.format_compliance;
docs/format-compliance.md): beside the paper's numbers, never shaded best, never ranked by."""

OVERVIEW = "Overview"
TRANSLATION_VIEW = "Translation (BLEU, chrF)"
ACCURACY = "Overall accuracy"


def _accuracy(report: Report) -> Cell:
    return accuracy_cell(report.accuracy.overall)


_OVERVIEW = [
    _acc("by_task", "multiple_choice"),
    _acc("by_task", "short_answer"),
    _acc("by_content", "scansion"),
    _acc("by_category", "knowledge"),
    _acc("by_category", "skill"),
    *(c for t in BLEU_TARGETS for c in bleu_columns(t, "overall", chrf=False)[:1]),
    *(c for t in BLEU_TARGETS for c in bleu_columns(t, "overall", chrf=False, optional=True)[1:]),
    *FORMAT_COLUMNS,
]

VIEWS: dict[str, View] = {
    OVERVIEW: View(OVERVIEW, ACCURACY, "Overall", _accuracy, _OVERVIEW),
    **{
        dim.name: View(dim.name, ACCURACY, "Overall", _accuracy, [_acc(key, g) for g in dim.groups])
        for key, dim in DIMENSIONS.items()
        if key not in ("by_category", "by_multihop")
    },
    TRANSLATION_VIEW: View(
        TRANSLATION_VIEW,
        "BLEU (no padding), mean over target languages",
        "BLEU",
        translation_score,
        [
            c
            for t in BLEU_TARGETS
            for s in BLEU_SPLITS
            for c in bleu_columns(t, s, chrf=s == "overall", optional=s != "overall")
        ],
        score_interval=False,  # a mean over the target languages: no bootstrap of its own
    ),
}
"""View name -> its ranking score and columns (one view per breakdown dimension)."""

VIEW_DIMENSION = {dim.name: key for key, dim in DIMENSIONS.items()}


def view_of(value: object) -> str:
    """A view the board knows (else the Overview): a client-sent name never reaches a cache."""
    return value if isinstance(value, str) and value in VIEWS else OVERVIEW


# the board's other columns: (full name, header, shown before a reader picks it)
INFO_COLUMNS = [
    ("Items", "Items", True),
    ("Type", "Type", True),
    ("Coverage", "Coverage", False),
    ("Params", "Params", False),
    ("Weights", "Weights", False),
    ("Reasoning", "Reasoning", False),
    ("Made with", "Made with", False),
    ("Date", "Date", False),
    ("Submitter", "Submitter", False),
    ("Link", "Link", False),
    ("Entry", "Entry", False),
]
CI_LOW, CI_HIGH = "CI low", "CI high"
N_SUFFIX = " n"
