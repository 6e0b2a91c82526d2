"""One entry's own tables: its full breakdown, what is known about it, its per-item results.

Pure functions; every user string stays text (Dataframe "str" cells). Accuracy in percent,
BLEU and chrF in points, one decimal (`numbers`); the paper's padded BLEU is always listed
beside BLEU without padding.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from ...breakdowns import (
    BLEU_SPLIT_LABELS,
    BLEU_SPLITS,
    BLEU_TARGETS,
    DIMENSIONS,
    EXTRA_LABELS,
    LANGUAGE_LABELS,
    SOURCE_LABELS,
    TASK_LABELS,
)
from ...numbers import count_text, interval_text, round1, score_text
from ...report import ItemResult, Report, Score
from ...sources import PUBLIC_SOURCES
from ..rows import PAPER_LABEL, SCORED, Row, coverage_label
from .columns import BLEU_PAPER, BLEU_PLAIN, CI_HEADER, CI_HIGH, CI_LOW, percent
from .frames import STALE_MARK, type_label
from .verified import evaluation_fields

BREAKDOWN_COLUMNS = ["Breakdown", "Group", "Metric", "Score", CI_LOW, CI_HIGH, "Items"]
ACCURACY = "accuracy %"
METRIC_NAMES = {
    "score": f"BLEU ({BLEU_PAPER})",
    "variable_refs": f"BLEU ({BLEU_PLAIN})",
    "chrf": "chrF",
}


def breakdown_frame(report: Report) -> pd.DataFrame:
    """The full breakdown of one report: one row per group and metric, with display names.

    Accuracy in percent, BLEU and chrF in points, all with one decimal; the interval as two
    numeric columns. The paper's padded BLEU is always listed beside BLEU without padding.
    """
    rows: list[dict[str, Any]] = []

    def add(
        breakdown: str, group: str, metric: str, value: float | None, ci: Any, n: int | None
    ) -> None:
        rows.append(
            {
                "Breakdown": breakdown,
                "Group": group,
                "Metric": metric,
                "Score": round1(value),
                CI_LOW: math.nan if ci is None else round1(ci[0]),
                CI_HIGH: math.nan if ci is None else round1(ci[1]),
                "Items": n,
            }
        )

    def add_acc(breakdown: str, group: str, node: Score | None) -> None:
        if node is not None:
            ci = None if node.ci is None else (node.ci[0] * 100, node.ci[1] * 100)
            add(breakdown, group, ACCURACY, percent(node), ci, node.n)

    acc = report.accuracy
    add_acc("Overall", "all scored items", acc.overall)
    for key, dim in DIMENSIONS.items():
        groups = acc.breakdowns.get(key, {})
        for group in sorted(groups, key=dim.order):
            add_acc(dim.name, dim.label(group), groups[group])
    add_acc(
        "Extra",
        EXTRA_LABELS["short_answer_macron_sensitive"],
        report.extra.get("short_answer_macron_sensitive"),
    )
    for target in BLEU_TARGETS:
        for split in BLEU_SPLITS:
            node = report.bleu_score(target, split)
            if node is None:
                continue
            name = f"Translation \u2192 {LANGUAGE_LABELS[target]}"
            for field, metric in METRIC_NAMES.items():
                ci = node.ci if field == "score" else None  # the interval is of the paper's BLEU
                add(name, BLEU_SPLIT_LABELS[split], metric, getattr(node, field), ci, node.n)
    df = pd.DataFrame(rows, columns=BREAKDOWN_COLUMNS)
    df["Items"] = pd.array(df["Items"].tolist(), dtype="Int64")
    return df


def breakdown_display(df: pd.DataFrame) -> Styler:
    """`breakdown_frame` as the page shows it (one decimal, "—", the interval as one cell)."""
    shown = df.drop(columns=[CI_LOW, CI_HIGH])
    shown.insert(
        shown.columns.get_loc("Score") + 1,
        CI_HEADER,
        [interval_text(lo, hi) for lo, hi in zip(df[CI_LOW], df[CI_HIGH], strict=True)],
    )
    shown["Items"] = [None if pd.isna(v) else int(v) for v in df["Items"]]
    styler = shown.style.format(score_text, subset=["Score"])
    return styler.format(count_text, subset=["Items"])


BREAKDOWN_DATATYPES = ["str", "str", "str", "number", "str", "number"]


def metadata_frame(
    row: Row, provenance: Mapping[str, Any] | None = None, stale: bool | None = None
) -> pd.DataFrame:
    """What is known about one entry, as (field, value) text rows: user strings stay text.
    `stale` (None: the entry's own version check) adds the re-score note."""
    report = row.report
    fields: list[tuple[str, Any]] = [("Model", row.model)]
    if row.kind == SCORED:
        fields += [("Entry", f"#{row.id}"), ("Type", type_label(row))]
        evaluation = getattr(row, "evaluation", None)
        if evaluation is not None:  # a verified entry: the leaderboard's own run, first
            fields += evaluation_fields(evaluation)
        fields.append(("Submitted", getattr(row, "created", "")))
        for attr, name in (
            ("submitter", "Submitter"),
            ("link", "Link"),
            ("params", "Parameters"),
            ("note", "How produced"),
            ("file_name", "File"),
            ("file_sha256", "File SHA-256"),
            ("scored_with", "Scored with evaluator"),
            ("gold_fingerprint", "Gold fingerprint"),
        ):
            value = getattr(row, attr, None)
            if value not in (None, ""):
                fields.append((name, value))
        if getattr(row, "stale", False) if stale is None else stale:
            fields.append(("Note", f"scored with an {STALE_MARK}"))
    else:
        fields += [("Type", PAPER_LABEL), ("Note", getattr(row, "note", ""))]
    fields.append(("Coverage", coverage_label(row.sources)))
    if report.evaluator.version:
        fields.append(("Evaluator", f"{report.evaluator.name} {report.evaluator.version}"))
    if row.kind == SCORED:
        fields += [
            ("Items scored", report.n_items),
            ("Covered items without a prediction", report.missing),
            ("Items without an extractable answer", report.unanswered),
        ]
    for key, value in _flatten(provenance or {}, "Provenance"):
        fields.append((key, value))
    return pd.DataFrame(
        [{"Field": k, "Value": "" if v is None else str(v)} for k, v in fields],
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


ITEM_COLUMNS = ["id", "question_id", "question_language", "source", "task", "content"]


def items_frame(items: Mapping[str, ItemResult]) -> pd.DataFrame:
    """Per-item results of one entry (the caller passes public items only): no gold answers."""
    rows = [
        {
            "id": it.id,
            "question_id": it.question_id,
            "question_language": it.question_language,
            "source": SOURCE_LABELS.get(it.source, it.source),
            "task": TASK_LABELS.get(it.task, it.task),
            "content": DIMENSIONS["by_content"].label(it.question_content),
            "extracted_answer": it.extracted,
            "score": it.score,
            "no_prediction": bool(it.missing),
        }
        for it in items.values()
        if it.source in PUBLIC_SOURCES
    ]
    cols = [*ITEM_COLUMNS, "extracted_answer", "score", "no_prediction"]
    return pd.DataFrame(rows, columns=cols)
