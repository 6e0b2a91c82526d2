"""Compare two scored submissions: paired bootstrap per group, and public disagreements.

The bootstrap is the evaluator's (`aggregate.paired_differences`) over the stored per-item scores
of the items both submissions were scored on, grouped by the groups stored with each item
(private items included: only aggregate differences leave this module). The disagreement table
is built from public items only and is the one place the Space shows gold answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler
from respondeoqa_eval.data import DIMENSIONS, SOURCE_LABELS, TASK_LABELS, GoldSet
from respondeoqa_eval.report import (
    MISSING,
    SMALL_MARK,
    ItemResult,
    Report,
    interval_text,
    is_small,
    round1,
    score_text,
    signed_text,
)
from respondeoqa_eval.scoring import Bootstrap, Difference, paired_differences

from .answers import link_formatters
from .cells import ColumnType, Width
from .html import gold_markdown


def paired(
    a: Mapping[str, ItemResult], b: Mapping[str, ItemResult], boot: Bootstrap
) -> list[Difference]:
    """The evaluator's paired bootstrap over the accuracy items both entries were scored on,
    overall, by content type and by language pair; groups come from the stored items."""
    common: list[tuple[str, float, float]] = []  # (item, score of a, score of b)
    for i, it in a.items():
        other = b.get(i)
        if it.score is not None and other is not None and other.score is not None:
            common.append((i, it.score, other.score))
    return paired_differences(
        [score for _, score, _ in common],
        [score for _, _, score in common],
        [a[i].groups for i, _, _ in common],
        boot,
    )


def _label(d: Difference) -> tuple[str, str]:
    if d.dimension == "overall":
        return "Overall", "all items"
    dim = DIMENSIONS[d.dimension]
    return dim.name, dim.label(d.group)


DIFFERENCE_COLUMNS = [
    "Breakdown",
    "Group",
    "Items",
    "A %",
    "B %",
    "A - B (points)",
    "95% CI (points)",
    "Interval excludes 0",
]
DIFFERENCE_DATATYPES: list[ColumnType] = [
    "str",
    "str",
    "number",
    "number",
    "number",
    "number",
    "str",
    "str",
]


def differences_frame(diffs: list[Difference]) -> pd.DataFrame:
    """The differences as a table (points of accuracy, A minus B, one decimal)."""
    rows = []
    for d in diffs:
        interval = MISSING if d.ci is None else interval_text(d.ci[0] * 100, d.ci[1] * 100)
        rows.append(
            {
                "Breakdown": _label(d)[0],
                "Group": _label(d)[1] + (SMALL_MARK if is_small(d.n) else ""),
                "Items": d.n,
                "A %": round1(d.a * 100),
                "B %": round1(d.b * 100),
                "A - B (points)": round1(d.diff * 100),
                "95% CI (points)": interval,
                # no claim either way without an interval to rest on: one with no width (a
                # group whose items all score alike, e.g. one item) is shown as MISSING
                "Interval excludes 0": MISSING
                if interval == MISSING
                else "yes"
                if d.significant
                else "no",
            }
        )
    return pd.DataFrame(rows, columns=DIFFERENCE_COLUMNS)


def differences_display(df: pd.DataFrame) -> Styler:
    """`differences_frame` with one decimal everywhere (1.0, not 1)."""
    return df.style.format(score_text, subset=["A %", "B %", "A - B (points)"])


DISAGREEMENT_COLUMNS = [
    "Question",
    "Gold",
    "A answer",
    "B answer",
    "A score",
    "B score",
    "Source",
    "Task",
    "Content",
    "Item",
]
# pixels, not shares: on a phone the table scrolls sideways instead of squeezing each column
# to one letter a line (about the width of the page at 1400 px); each as wide as its longest
# word (the browser tests check that no word breaks)
DISAGREEMENT_WIDTHS: list[Width] = [
    "320px",
    "110px",
    "110px",
    "110px",
    "64px",
    "64px",
    "150px",  # "Scholarship" whole
    "110px",
    "130px",  # "comprehension" whole
    "170px",  # an id's last part ("scholarship_123.45.67") whole on its line
]
DISAGREEMENT_DATATYPES: list[ColumnType] = [
    "markdown",  # the question's own emphasis in italics (html.gold_markdown)
    "markdown",  # and the gold's (upstream writes *Fas*)
    "str",
    "str",
    "number",
    "number",
    "str",
    "str",
    "str",
    "markdown",  # the item's id, a link to both entries' answers
]


def _norm(text: Any) -> str:
    return " ".join(str(text or "").split()).casefold()


def disagreements(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    gold: GoldSet,
    *,
    limit: int = 500,
    question_chars: int = 160,
) -> pd.DataFrame:
    """Public accuracy items where A and B differ in score or in extracted answer.

    `a` and `b` map item id -> ItemScore (`score`, `extracted`). Only records of public sources
    are used, so the gold answers shown here are the published ones. Scores are per item, 0 to
    1 (feet identification gives partial credit).
    """
    rows: list[dict[str, Any]] = []
    for item_id, ia in a.items():
        ib = b.get(item_id)
        rec = gold.by_id.get(item_id)
        if ib is None or rec is None or rec.is_private:
            continue
        if ia.score is None or ib.score is None:
            continue  # translation: BLEU is a corpus score, no per-item verdict
        if ia.score == ib.score and _norm(ia.extracted) == _norm(ib.extracted):
            continue
        question = (
            rec.question
            if len(rec.question) <= question_chars
            else (rec.question[: question_chars - 1] + "\u2026")
        )
        rows.append(
            {
                "Question": question,
                "Gold": rec.answers[0],
                "A answer": "" if ia.extracted is None else str(ia.extracted),
                "B answer": "" if ib.extracted is None else str(ib.extracted),
                "A score": round(float(ia.score), 2),
                "B score": round(float(ib.score), 2),
                "Source": SOURCE_LABELS.get(rec.source, rec.source),
                "Task": TASK_LABELS.get(rec.task, rec.task),
                "Content": DIMENSIONS["by_content"].label(rec.question_content),
                "Item": rec.id,
            }
        )
        if len(rows) >= limit:
            break
    return pd.DataFrame(rows, columns=DISAGREEMENT_COLUMNS)


def disagreements_display(df: pd.DataFrame, entries: Sequence[str] = ()) -> Styler:
    """`disagreements` as the page shows it: the question and the gold as escaped Markdown
    (their emphasis in italics), the question and the item's id as links to the `entries`'
    answers on the item, the scores as written ("1", "0.8", not the table's "1.000000", which a
    narrow column breaks); API clients get the plain text and numbers."""
    question, item = link_formatters(list(df["Question"]), list(df["Item"]), entries)
    return (
        df.style.format(question, subset=["Question"])
        .format(gold_markdown, subset=["Gold"])
        .format(item, subset=["Item"])
        .format(lambda v: "" if pd.isna(v) else f"{v:g}", subset=["A score", "B score"])
    )


FORMAT_GAP_DIMENSIONS = ("by_task", "by_content", "by_language_pair")


def format_gap_frame(entries: Sequence[tuple[str, Report]]) -> pd.DataFrame:
    """What the answer format cost each picked entry per category: lenient minus paper
    accuracy in points (docs/format-compliance.md), with the items each rests on; one column
    per entry, "—" where it has no such group or no format part (the paper's rows)."""
    labels = [label for label, _ in entries]
    rows: list[dict[str, str]] = []

    def add(breakdown: str, group: str, dim: str | None, key: str | None) -> None:
        cells = {}
        for label, report in entries:
            gap = report.lenient_gap(dim, key)
            node = report.accuracy.overall if dim is None else report.group(dim, key or "")
            n = None if node is None else node.n
            small = SMALL_MARK if is_small(n) else ""
            cells[label] = MISSING if gap is None else f"{signed_text(gap * 100)}{small} (n={n})"
        if any(v != MISSING for v in cells.values()):
            rows.append({"Breakdown": breakdown, "Group": group, **cells})

    add("Overall", "all scored items", None, None)
    for key in FORMAT_GAP_DIMENSIONS:
        dim = DIMENSIONS[key]
        for group in dim.groups:
            add(dim.name, dim.label(group), key, group)
    return pd.DataFrame(rows, columns=["Breakdown", "Group", *labels])
