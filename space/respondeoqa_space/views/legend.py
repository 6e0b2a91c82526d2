"""The legend under the board: what every column of a view means and why a cell reads "—".
Our own text only (Markdown)."""

from __future__ import annotations

from functools import cache

from markupsafe import Markup
from respondeoqa_eval.data import DIMENSIONS, PADDING_SENTENCE
from respondeoqa_eval.report import MISSING, SMALL_GROUP, SMALL_MARK

from ..paper import PAPER_ROWS
from ..rows import PAPER_LABEL, SELF_REPORTED_LABEL, VERIFIED_LABEL
from .columns import (
    BLEU_PAPER,
    BLEU_PLAIN,
    FORMAT_COLUMNS,
    TRANSLATION_VIEW,
    VIEW_DIMENSION,
    VIEWS,
)
from .frames import HAND_MADE, MADE_WITH, STALE_MARK
from .html import own_markdown


def paper_missing(view: str) -> bool:
    """True when the paper reports none of this view's breakdown columns."""
    return all(c.read(p.report).value is None for p in PAPER_ROWS for c in VIEWS[view].columns)


def legend(view: str, min_private: int | None = None) -> str:
    """The legend under the table: what every column of `view` means and why a cell reads "—".
    Our own text only (Markdown)."""
    spec = VIEWS[view]
    ranked_by = (
        "BLEU without padding (the mean over the target languages an entry was scored on)"
        if view == TRANSLATION_VIEW
        else "overall accuracy"
    )
    ranges = (
        " Under a rank, the ranks its 95% interval allows: an entry is surely above another "
        "only when their intervals do not overlap."
        if spec.score_interval
        else ""
    )
    interval = (
        "under it, its 95% bootstrap interval over items (1,000 resamples)"
        if spec.score_interval
        else "a mean, with no interval of its own (each language's padded BLEU, in the "
        "**Columns** menu, has one)"
    )
    lines = [
        f"**Rank** orders entries by {ranked_by} among entries scored on the same sources: one "
        f"section per coverage, ranks restart in each.{ranges} "
        "**Rank** and **Model** stay in view when you scroll sideways; ↗ opens the model on "
        "the Hugging Face Hub.",
        f"**{spec.score_short}**: {spec.score_header}"
        + (
            " in %, over every scored item except translations"
            if view != TRANSLATION_VIEW
            else ", in points"
        )
        + f"; {interval}. Scores in %, BLEU and chrF in points (0-100), all with one decimal. "
        "**Items**: what the score rests on. Hover any number for its items and interval.",
        f"**bold, shaded**: the best value of a column among the section's entries; "
        f"**\\{SMALL_MARK}** (grey, italic): it rests on fewer than {SMALL_GROUP} items, so one or "
        "two items move it a lot: it is never shaded best.",
        "Columns: "
        + "; ".join(f"**{c.short}** {c.header}" for c in spec.columns if c.short != c.header)
        + ". More columns (model size, weights, reasoning, how the predictions were made, "
        "date, link, entry number) are in the **Columns** menu; **Filters** keep the rows "
        "you want (size, open weights or API, reasoning models, the paper's rows).",
    ]
    if view in VIEW_DIMENSION:
        dim = DIMENSIONS[VIEW_DIMENSION[view]]
        lines.append(f"**{dim.name}**: {dim.description}")
    elif view != TRANSLATION_VIEW:
        task, cat = DIMENSIONS["by_task"], DIMENSIONS["by_category"]
        lines.append(f"Tasks: {task.description} **Knowledge**, **Skill**: {cat.description}")
    if any(c.header.startswith(("BLEU", "chrF")) for c in spec.columns):
        lines.append(
            f"**BLEU** ({BLEU_PLAIN}): corpus BLEU (sacreBLEU) with each item's own "
            f"references. **pad** ({BLEU_PAPER}): the paper's number. {PADDING_SENTENCE} "
            "**chrF**: character n-gram F-score. *c.* / *u.*: translation items flagged "
            "`constrained` in the upstream files, and the rest."
        )
    if any(c in spec.columns for c in FORMAT_COLUMNS):
        unanswered, gap, lenient = FORMAT_COLUMNS
        lines.append(
            f"How much of the error is the answer format (beyond the paper, never ranked by): "
            f"**{unanswered.short}**: the share of scored items from which the paper's "
            "extraction read no answer (no prediction, or nothing in the required format); "
            f"**{gap.short}**: the accuracy points a lenient extraction (an answer marker in any "
            "case, the last option letter mentioned, the last word of the last line: "
            "docs/format-compliance.md) adds, "
            f"what the format alone cost; **{lenient.short}** (Columns menu): that lenient "
            "accuracy. The paper's rows publish neither."
        )
    hidden = (
        f"hidden because it rests on fewer than {min_private} private (Certamen, NLE) items"
        if min_private
        else "hidden because it rests on too few private (Certamen, NLE) items"
    )
    lines.append(
        f"**{MISSING}**: not reported in the paper (paper rows have no item counts, intervals, "
        f"or BLEU without padding), not covered by the entry's sources, or {hidden}."
    )
    step = min_private or "k"
    lines.append(
        "Values that rest on Certamen or NLE items (never shown item by item) are released "
        f"with their private part in steps of {step} items and a Wilson interval from their "
        "counts, so that no probe reads single private answers off the board "
        "(docs/leaderboard-safety.md); "
        "values on public items only are exact."
    )
    if paper_missing(view):
        lines.append(
            f"The paper reports no numbers for this breakdown: its rows read {MISSING} here."
        )
    made = ", ".join(f"*{name}*" for name in MADE_WITH.values())
    lines.append(
        f"**Type**: *{PAPER_LABEL}*: the published numbers, never re-scored; "
        f"*{VERIFIED_LABEL}*: evaluated by the leaderboard itself (its operator ran the model on "
        "every item it holds, from an evaluation request; **Filters** keep these only); "
        f"*{SELF_REPORTED_LABEL}*: scored here from predictions someone uploaded; "
        f"*{STALE_MARK}*: scored with an older evaluator version or against gold files "
        "corrected since, until the operator re-scores it; ⚑: flagged by the operator (hover "
        f"for the reason). **Made with**: {made} (from what the file records), or *{HAND_MADE}* "
        "when it records nothing. Pick a row to see the entry's detail below."
    )
    return "\n".join(f"- {line}" for line in lines)


@cache
def legend_html(view: str, min_private: int | None = None) -> Markup:
    """`legend` as the board's HTML carries it."""
    return own_markdown(legend(view, min_private))
