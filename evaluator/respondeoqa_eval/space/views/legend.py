"""The legend under the board: what every column of a view means and why a cell reads "—".
Our own text only (Markdown)."""

from __future__ import annotations

from ...breakdowns import DIMENSIONS, PADDING_SENTENCE
from ...numbers import MISSING
from ..paper import PAPER_ROWS
from ..rows import PAPER_LABEL, SELF_REPORTED_LABEL, VERIFIED_LABEL
from .columns import BLEU_PAPER, BLEU_PLAIN, VIEW_DIMENSION, VIEWS
from .frames import STALE_MARK


def paper_missing(view: str) -> bool:
    """True when the paper reports none of this view's breakdown columns."""
    return all(c.read(p.report) is None for p in PAPER_ROWS for c in VIEWS[view])


def _overview_legend() -> list[str]:
    task, cat = DIMENSIONS["by_task"], DIMENSIONS["by_category"]
    return [
        f"**Multiple choice**, **Short answer**: accuracy by task. {task.description}",
        "**Scansion**: accuracy on the scansion content type.",
        f"**Knowledge**, **Skill**: {cat.description}",
    ]


def legend(view: str, min_private: int | None = None) -> str:
    """The legend under the table: what every column of `view` means and why a cell reads "—".
    Our own text only (Markdown)."""
    lines = [
        "**Rank** and **Model** stay in view when you scroll sideways. **Rank** orders entries "
        "by overall accuracy among entries scored on the same sources (**Coverage**); "
        "**bold, shaded**: the best value of a column among those entries.",
        "**Overall**: accuracy in % over every scored item except translations; **95% CI**: "
        "bootstrap interval over items (1,000 resamples). Scores in %, BLEU and chrF in "
        "points (0-100), all with one decimal; **Items**: accuracy items scored.",
    ]
    if view == "Overview":
        lines += _overview_legend()
    elif view in VIEW_DIMENSION:
        dim = DIMENSIONS[VIEW_DIMENSION[view]]
        lines.append(f"**{dim.name}**: {dim.description}")
    if any(c.header.startswith(("BLEU", "chrF")) for c in VIEWS[view]):
        lines.append(
            f"**BLEU ({BLEU_PAPER})**: the paper's corpus BLEU (sacreBLEU). {PADDING_SENTENCE} "
            f"**BLEU ({BLEU_PLAIN})**: the same BLEU with each item's own references; "
            "**chrF**: character n-gram F-score. *constrained* / *unconstrained*: translation "
            "items flagged `constrained` in the upstream files, and the rest."
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
    if paper_missing(view):
        lines.append(
            f"The paper reports no numbers for this breakdown: its rows read {MISSING} here."
        )
    lines.append(
        f"**Type**: *{PAPER_LABEL}* rows are the published numbers, never re-scored; "
        f"*{VERIFIED_LABEL}* rows were evaluated by the leaderboard itself (its operator ran the "
        "model on every item it holds, from an evaluation request); "
        f"*{SELF_REPORTED_LABEL}* rows were scored here from predictions someone uploaded; "
        f"*..., {STALE_MARK}*: scored with an older evaluator version or against gold files "
        "corrected since, shown as they were until the operator re-scores every entry. Pick a "
        "row to see the entry's detail below."
    )
    return "\n".join(f"- {line}" for line in lines)
