"""The item analysis as text: its CSV (`csv_text`) and the short summary (`summary_text`) that
`respondeoqa-eval items` prints and the Space's operator gets from `admin items`."""

from __future__ import annotations

import csv
import io
import textwrap

from ..data.breakdowns import SOURCE_LABELS, TASK_LABELS
from ..report.numbers import percent_text
from .items import AGREE, COLUMNS, GOLD_FORMAT, ItemAnalysis, ItemStats

TOP_ITEMS = 10
"""Items the summary lists by default (hardest items, suspected gold errors)."""


def csv_text(analysis: ItemAnalysis) -> str:
    """The analysis as CSV: a row per item, the columns of `items.COLUMNS`."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in analysis.rows():
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return out.getvalue()


def _item_line(it: ItemStats) -> str:
    disc = "—" if it.discrimination is None else f"{it.discrimination:+.2f}"
    wrong = f"{it.wrong_answer!r} ({it.wrong_count})" if it.wrong_answer is not None else "—"
    return (
        f"  {it.id}  {TASK_LABELS.get(it.task, it.task)}, {SOURCE_LABELS.get(it.source, it.source)}"
        f"  right {it.right}/{it.entries}  discrimination {disc}  most common wrong answer {wrong}"
    )


def summary_text(analysis: ItemAnalysis, top: int = TOP_ITEMS) -> str:
    """The short summary `respondeoqa-eval items` prints (`top` items per list)."""
    items, entries = analysis.items, analysis.entries
    lines = [
        f"Item analysis: {len(entries)} entries, {len(items)} items with a per-item score "
        "(translation items are scored as a corpus and left out)",
        "Entries, best first (strong: the better half by score):",
    ]
    width = max(len(e.name) for e in entries)
    for e in entries:
        mark = "  strong" if e.strong else ""
        lines.append(f"  {e.name:<{width}}  {percent_text(e.score):>6}  {e.n_items} items{mark}")
    lines += ["", f"Hardest items (share of entries right, lowest first; {top} of {len(items)}):"]
    lines += [_item_line(it) for it in items[:top]]
    flagged = analysis.flagged
    agree = sum(AGREE in it.reasons for it in flagged)
    fmt = sum(GOLD_FORMAT in it.reasons for it in flagged)
    lines += [
        "",
        f"Suspected gold errors: {len(flagged)} ({agree} where more entries agree on one "
        "wrong answer than chance explains, for feet also on one foot or, strong ones, on a "
        f"line one foot off the gold; {fmt} whose gold breaks its own format rule)",
    ]
    lines += [f"  {it.id}  {it.why}" for it in flagged[:top]]
    measured = [it for it in items if it.discrimination is not None]
    negative = [it for it in measured if (it.discrimination or 0.0) < 0]
    lines += [
        "",
        f"Discrimination (point-biserial with the entries' score on the other items): "
        f"{len(measured)} items with {analysis.thresholds.min_entries} or more entries and some "
        f"spread; {len(negative)} negative (weaker entries right more often: worth a look)",
    ]
    if measured:
        mean = sum(it.discrimination or 0.0 for it in measured) / len(measured)
        lines[-1] += f"; mean {mean:+.2f}"
    lines[-1:] = textwrap.wrap(lines[-1], 96, subsequent_indent="  ")
    if analysis.private_items:
        lines.append(
            f"Private items left out: {analysis.private_items} "
            f"({analysis.private_flagged} suspected gold errors)"
        )
    return "\n".join(lines)
