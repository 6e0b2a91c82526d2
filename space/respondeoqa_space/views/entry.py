"""One entry's own tables: its full breakdown, what is known about it, its per-item results.

Pure functions; every user string stays text (Dataframe "str" cells). Accuracy in percent,
BLEU and chrF in points, one decimal (`numbers`); the paper's padded BLEU is always listed
beside BLEU without padding.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler
from respondeoqa_eval.data import (
    BLEU_SPLIT_LABELS,
    BLEU_SPLITS,
    BLEU_TARGETS,
    DIMENSIONS,
    EXTRA_LABELS,
    LANGUAGE_LABELS,
    NOT_GIVEN,
    PUBLIC_SOURCES,
    SOURCE_LABELS,
    TASK_LABELS,
)
from respondeoqa_eval.report import (
    SMALL_MARK,
    ItemResult,
    Report,
    Score,
    count_text,
    interval_text,
    is_small,
    round1,
    score_text,
)

from ..metadata import WEIGHTS, ModelInfo, params_text
from ..rows import PAPER_LABEL, SCORED, Row, coverage_label, is_scored
from .cells import ColumnType, Width
from .columns import (
    BLEU_PAPER,
    BLEU_PLAIN,
    CI_HIGH,
    CI_LOW,
    Cell,
    accuracy_cell,
    lenient_gap_cell,
    unanswered_cell,
)
from .frames import STALE_MARK, made_with, type_label
from .verified import evaluation_fields

CI_HEADER = "95% CI"
BREAKDOWN_COLUMNS = ["Breakdown", "Group", "Score", CI_LOW, CI_HIGH, "Items"]
METRIC_NAMES = {
    "variable_refs": f"BLEU ({BLEU_PLAIN})",
    "score": f"BLEU ({BLEU_PAPER})",
    "chrf": "chrF",
}


def breakdown_frame(report: Report) -> pd.DataFrame:
    """The full breakdown of one report: one row per group (and per BLEU number), with display
    names. Accuracy rows in percent, translation rows (BLEU, chrF) in points, one decimal; the
    interval as two numeric columns. The paper's padded BLEU is listed beside BLEU without
    padding."""
    rows: list[dict[str, Any]] = []

    def add(breakdown: str, group: str, cell: Cell) -> None:
        rows.append(
            {
                "Breakdown": breakdown,
                "Group": group,
                "Score": round1(cell.value),
                CI_LOW: round1(cell.low),
                CI_HIGH: round1(cell.high),
                "Items": cell.n,
            }
        )

    def add_acc(breakdown: str, group: str, node: Score | None) -> None:
        if node is not None:
            add(breakdown, group, accuracy_cell(node))

    acc = report.accuracy
    add_acc("Overall accuracy", "all scored items (not translation)", acc.overall)
    for key, dim in DIMENSIONS.items():
        groups = acc.breakdowns.get(key, {})
        if dim.says_nothing(groups):  # as the `score` summary: one line, no "Unknown" row
            add(dim.name, NOT_GIVEN, Cell(None))
            continue
        for group in sorted(groups, key=dim.order):
            add_acc(dim.name, dim.label(group), groups[group])
    add_acc(
        "Beyond the paper",
        EXTRA_LABELS["short_answer_macron_sensitive"],
        report.extra.get("short_answer_macron_sensitive"),
    )
    _format_rows(report, add, add_acc)
    for target in BLEU_TARGETS:
        for split in BLEU_SPLITS:
            node = report.bleu_score(target, split)
            if node is None:
                continue
            name = f"Translation \u2192 {LANGUAGE_LABELS[target]} (points)"
            for field, metric in METRIC_NAMES.items():
                ci = node.ci if field == "score" else None  # the interval is of the paper's BLEU
                value = getattr(node, field)
                add(
                    name,
                    f"{BLEU_SPLIT_LABELS[split]}: {metric}",
                    Cell(value, node.n, *(ci if ci else (None, None))),
                )
    df = pd.DataFrame(rows, columns=BREAKDOWN_COLUMNS)
    df["Items"] = pd.array(df["Items"].tolist(), dtype="Int64")
    return df


FORMAT_BREAKDOWN = "Answer format (beyond the paper)"


def _format_rows(
    report: Report,
    add: Callable[[str, str, Cell], None],
    add_acc: Callable[[str, str, Score | None], None],
) -> None:
    """How much of the error is the answer format (docs/format-compliance.md): the unanswered
    share, the format failures a lenient rule reads, the lenient accuracy and its gap to the
    paper's, overall and per task; nothing for a report without that part (the paper's rows)."""
    fc = report.format_compliance
    if fc is None or not fc.overall.n:
        return
    counts = fc.overall
    add(FORMAT_BREAKDOWN, "no answer the paper's rules read (% of items)", unanswered_cell(report))
    add(
        FORMAT_BREAKDOWN,
        "format failures a lenient rule reads (% of items)",
        Cell(100.0 * counts.failures / counts.n, counts.n),
    )
    add_acc(FORMAT_BREAKDOWN, "lenient accuracy, all scored items", fc.accuracy_lenient.overall)
    add(FORMAT_BREAKDOWN, "lenient minus paper accuracy (points)", lenient_gap_cell(report))
    tasks = DIMENSIONS["by_task"]
    for task in sorted(fc.accuracy_lenient.breakdowns.get("by_task", {}), key=tasks.order):
        gap = report.lenient_gap("by_task", task)
        node = report.group("by_task", task)
        if gap is not None and node is not None:
            add(
                FORMAT_BREAKDOWN,
                f"lenient minus paper, {tasks.label(task)} (points)",
                Cell(gap * 100.0, node.n),
            )


def breakdown_display(df: pd.DataFrame) -> Styler:
    """`breakdown_frame` as the Submit page's table shows it (`breakdown_text`, the item
    counts formatted)."""
    return breakdown_text(df).style.format(count_text, subset=["Items"])


def breakdown_text(df: pd.DataFrame) -> pd.DataFrame:
    """`breakdown_frame` as the page shows it (one decimal, "—", the interval as one cell,
    scores on fewer than SMALL_GROUP items marked; item counts as integers or None)."""
    shown = df.drop(columns=[CI_LOW, CI_HIGH])
    shown.insert(
        shown.columns.get_loc("Score") + 1,
        CI_HEADER,
        [interval_text(lo, hi) for lo, hi in zip(df[CI_LOW], df[CI_HIGH], strict=True)],
    )
    shown["Items"] = [None if pd.isna(v) else int(v) for v in df["Items"]]
    shown["Score"] = [
        score_text(v) + (SMALL_MARK if is_small(n) and not pd.isna(v) else "")
        for v, n in zip(df["Score"], shown["Items"], strict=True)
    ]
    return shown


BREAKDOWN_DATATYPES: list[ColumnType] = ["str", "str", "str", "str", "number"]
BREAKDOWN_WIDTHS: list[Width] = ["24%", "28%", "16%", "19%", "13%"]
"""Shares of the table's width: on a phone every column, the scores too, in view at once
(the group's name wraps; no score does)."""


def metadata_frame(
    row: Row, provenance: Mapping[str, Any] | None = None, stale: bool | None = None
) -> pd.DataFrame:
    """What is known about one entry, as (field, value) text rows, each said once and only
    when known: user strings stay text. `stale` (None: the entry's own version check) adds the
    re-score note."""
    report = row.report
    info: ModelInfo = getattr(row, "info", None) or ModelInfo()
    fields: list[tuple[str, Any]] = [("Model", row.model)]
    if info.hub_model:
        fields.append(("On the Hub", info.hub_url))
    fields += [
        ("Parameters", params_text(info.params_b) or getattr(row, "params", "")),
        ("Weights", WEIGHTS.get(info.weights, "")),
        ("Reasoning model", "" if info.reasoning is None else ("yes" if info.reasoning else "no")),
    ]
    if is_scored(row):
        flag = getattr(row, "flag", "")
        if flag:
            fields.append(("Flagged by the operator", flag))
        fields += [("Entry", f"#{row.id}"), ("Type", type_label(row))]
        evaluation = getattr(row, "evaluation", None)
        if evaluation is not None:  # a verified entry: the leaderboard's own run, first
            fields += evaluation_fields(evaluation)
        fields += [
            ("Submitted", getattr(row, "created", "")),
            ("Submitter", getattr(row, "submitter", "")),
            ("Link", getattr(row, "link", "")),
            ("How produced", getattr(row, "note", "")),
            ("Made with", made_with(row)),
            ("File", getattr(row, "file_name", "")),
            ("File SHA-256", getattr(row, "file_sha256", "")),
            ("Gold fingerprint", getattr(row, "gold_fingerprint", "")),
        ]
        if getattr(row, "stale", False) if stale is None else stale:
            fields.append(("Note", f"scored with an {STALE_MARK}"))
    else:
        fields += [("Type", PAPER_LABEL), ("Note", getattr(row, "note", ""))]
    fields.append(("Coverage", coverage_label(row.sources)))
    if report.evaluator.version:
        fields.append(("Scored with", f"{report.evaluator.name} {report.evaluator.version}"))
    if row.kind == SCORED:
        n_acc = report.accuracy.overall.n
        fields += [
            ("Accuracy items", n_acc),
            ("Translation items", None if n_acc is None else report.n_items - n_acc),
            ("Covered items without a prediction", report.missing),
            ("Items without an extractable answer", report.unanswered),
        ]
    for key, value in _flatten(provenance or {}, "Provenance"):
        fields.append((key, value))
    return pd.DataFrame(
        [
            {"Field": k, "Value": str(v)}
            for k, v in fields
            if v is not None and str(v) not in ("", "[]", "{}")
        ],
        columns=["Field", "Value"],
    )


def _flatten(data: Any, prefix: str, depth: int = 0) -> list[tuple[str, Any]]:
    if isinstance(data, Mapping) and depth < 3:
        out: list[tuple[str, Any]] = []
        for k, v in data.items():
            out += _flatten(v, f"{prefix}: {k}", depth + 1)
        return out
    if isinstance(data, (list, tuple)):
        return [(prefix, ", ".join(str(x) for x in data))]
    return [(prefix, data)]


GROUP_COLUMNS = {k: d.column for k, d in DIMENSIONS.items() if k not in ("by_task", "by_source")}
"""The breakdown columns of the per-item CSV beside task and source (content, language_pair,
category, format, difficulty, multihop), by breakdown key."""
ITEM_COLUMNS = ["id", "question_id", "question_language", "source", "task", *GROUP_COLUMNS.values()]


def items_frame(items: Mapping[str, ItemResult]) -> pd.DataFrame:
    """Per-item results of one entry (the caller passes public items only): no gold answers.

    Every breakdown group of the item is a column, with its display name ("" where the item
    is not in that breakdown: multihop is for short-answer items only).
    """
    rows = [
        {
            "id": it.id,
            "question_id": it.question_id,
            "question_language": it.question_language,
            "source": SOURCE_LABELS.get(it.source, it.source),
            "task": TASK_LABELS.get(it.task, it.task),
            **{
                column: DIMENSIONS[key].label(it.groups[key]) if key in it.groups else ""
                for key, column in GROUP_COLUMNS.items()
            },
            "extracted_answer": it.extracted,
            "score": it.score,
            "no_prediction": bool(it.missing),
        }
        for it in items.values()
        if it.source in PUBLIC_SOURCES
    ]
    cols = [*ITEM_COLUMNS, "extracted_answer", "score", "no_prediction"]
    return pd.DataFrame(rows, columns=cols)
