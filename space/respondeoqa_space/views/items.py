"""The Items view: the item analysis of the board's entries (`items.analyze_items`, public
items only) as the page's table, its filters and its summary. Pure: the caller runs the
analysis and reads the store.

Only public items are ever listed: their questions and gold answers are the published ones.
Private items (Certamen, NLE) appear only as a count; the operator reviews them with
`respondeoqa-space admin items`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
from pandas.io.formats.style import Styler
from respondeoqa_eval.analysis import ItemAnalysis, ItemStats
from respondeoqa_eval.data import DIMENSIONS
from respondeoqa_eval.report import MISSING, round1, score_text

from .answers import link_formatters
from .cells import ColumnType, Width
from .html import gold_markdown

ANY = "any"
"""The filters' choice that keeps every item."""
FILTERS = ("by_source", "by_content", "by_language_pair")
"""The breakdowns the view filters by, in the order of its dropdowns."""
CHART_DIMENSIONS = ("by_content", "by_language_pair", "by_task", "by_source", "by_difficulty")
QUESTION_CHARS = 160

COLUMNS = [
    "Question",
    "Gold",
    "Right %",
    "Entries",
    "Discrimination",
    "Most common wrong answer",
    "Given by",
    "Suspected gold error",
    "Source",
    "Task",
    "Content",
    "Language pair",
    "Item",
]
DATATYPES: list[ColumnType] = [
    "markdown",  # the question's own emphasis in italics (html.gold_markdown)
    "markdown",  # and the gold's (upstream writes *Fas*)
    "number",
    "number",
    "number",
    "str",
    "number",
    "str",
    "str",
    "str",
    "str",
    "str",
    "markdown",  # the item's id, a link to its answers
]
# pixels: on a phone the table scrolls sideways instead of squeezing the question; each
# column as wide as its longest word (the browser tests check that no word breaks)
WIDTHS: list[Width] = [
    "300px",
    "120px",
    "70px",
    "76px",
    "130px",  # "Discrimination" whole
    "140px",
    "70px",
    "220px",
    "150px",  # "Scholarship" whole
    "110px",
    "130px",  # "comprehension" whole
    "110px",
    "200px",
]


def group_of(it: ItemStats, key: str) -> str:
    """The item's group in a breakdown (its source and task always, as they are no group of
    the by_task breakdown for translation)."""
    if key == "by_source":
        return it.source
    if key == "by_task":
        return it.task
    return it.groups.get(key, "")


def filter_choices(analysis: ItemAnalysis, key: str) -> list[tuple[str, str]]:
    """A filter's (label, group) choices: ANY, then the groups the analysed items have."""
    dim = DIMENSIONS[key]
    present = {group_of(it, key) for it in analysis.items} - {""}
    return [(ANY, ANY), *((dim.label(g), g) for g in sorted(present, key=dim.order))]


def _short(text: str | None) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= QUESTION_CHARS else text[: QUESTION_CHARS - 1] + "\u2026"


def select(
    analysis: ItemAnalysis, picks: Sequence[str] = (), flagged_only: bool = False
) -> list[ItemStats]:
    """The public items the filters keep (`picks`: one group or ANY per `FILTERS`), hardest
    first. A pick the breakdown does not know keeps nothing."""
    wanted = dict(zip(FILTERS, picks, strict=False))
    return [
        it
        for it in analysis.items
        if not it.is_private
        and (not flagged_only or it.suspected_gold_error)
        and all(g in (ANY, None, "") or group_of(it, k) == g for k, g in wanted.items())
    ]


def item_table(items: Sequence[ItemStats]) -> pd.DataFrame:
    """The items as the page's table: display names, the share right in percent (one
    decimal), the discrimination with two decimals, "" where undefined."""
    rows = [
        {
            "Item": it.id,
            "Question": _short(it.question),
            "Gold": it.gold or "",
            "Source": DIMENSIONS["by_source"].label(it.source),
            "Task": DIMENSIONS["by_task"].label(it.task),
            "Content": DIMENSIONS["by_content"].label(it.groups.get("by_content", "")),
            "Language pair": DIMENSIONS["by_language_pair"].label(
                it.groups.get("by_language_pair", "")
            ),
            "Right %": round1(it.share_right * 100),
            "Entries": it.entries,
            "Discrimination": None if it.discrimination is None else round(it.discrimination, 2),
            "Most common wrong answer": it.wrong_answer or "",
            "Given by": it.wrong_count or None,
            "Suspected gold error": it.why,
        }
        for it in items
    ]
    df = pd.DataFrame(rows, columns=COLUMNS)
    for col in ("Entries", "Given by"):
        df[col] = pd.array(df[col].tolist(), dtype="Int64")
    return df


def items_display(df: pd.DataFrame) -> Styler:
    """`item_table` as the page shows it: the question and the gold as escaped Markdown (their
    emphasis in italics), the question and the item's id as links to the item's answers, one
    decimal for the share right, two for the discrimination with its sign, "—" where it is
    undefined."""
    question, item = link_formatters(list(df["Question"]), list(df["Item"]))
    return (
        df.style.format(question, subset=["Question"])
        .format(gold_markdown, subset=["Gold"])
        .format(item, subset=["Item"])
        .format(score_text, subset=["Right %"])
        .format(
            lambda v: MISSING if v is None or pd.isna(v) else f"{v:+.2f}",
            subset=["Discrimination"],
        )
        .format(lambda v: "" if v is None or pd.isna(v) else str(v), subset=["Given by"])
    )


@dataclass(frozen=True)
class Difficulty:
    """One bar of the difficulty chart: a group, its items, their mean share right (0-1)."""

    label: str
    items: int
    share_right: float
    flagged: int


def difficulty_by(items: Sequence[ItemStats], key: str) -> list[Difficulty]:
    """Per group of a breakdown, in its display order: how hard its items are on average."""
    dim = DIMENSIONS[key]
    groups: dict[str, list[ItemStats]] = {}
    for it in items:
        group = group_of(it, key)
        if group:
            groups.setdefault(group, []).append(it)
    return [
        Difficulty(
            dim.label(g),
            len(groups[g]),
            sum(it.share_right for it in groups[g]) / len(groups[g]),
            sum(it.suspected_gold_error for it in groups[g]),
        )
        for g in sorted(groups, key=dim.order)
    ]


def summary(analysis: ItemAnalysis, shown: int) -> tuple[str, str]:
    """What the table shows, in a sentence or two above it, and what its columns and flags
    mean (the page folds that part: on a phone the table then starts on the first screen);
    our own text and counts only."""
    public = [it for it in analysis.items if not it.is_private]
    if not public:
        return (
            "No public item has a per-item score from two or more entries yet: the analysis "
            "needs entries scored on the public sources (translation is scored as a corpus).",
            "",
        )
    measured = sum(it.discrimination is not None for it in public)
    flagged = sum(it.suspected_gold_error for it in public)
    entries = len(analysis.entries)
    text = (
        f"Item analysis of the {entries} entr{'y' if entries == 1 else 'ies'} on the board over "
        f"{len(public):,} public items with a per-item score (translation is scored as a "
        f"corpus); {shown:,} shown, hardest first; {flagged:,} suspected gold "
        f"error{'' if flagged == 1 else 's'}."
    )
    if analysis.private_items:
        text += (
            f" {analysis.private_items:,} private (Certamen, NLE) items are counted, never "
            "listed: the operator reviews them."
        )
    terms = (
        "Right %: the share of entries that get the item right. Discrimination: how well the "
        "item separates strong entries from weak ones (point-biserial, "
        f"{MISSING if not measured else f'{measured:,} items'}: it needs "
        f"{analysis.thresholds.min_entries} entries with the item and some spread). Suspected "
        "gold error: more entries agree on one other answer, and stronger ones, than chance "
        "explains (for feet also on one foot or, strong ones, on a line one foot off the gold; "
        "the posterior that the gold is wrong reaches "
        f"{analysis.thresholds.flag_posterior:g}; items with "
        f"{analysis.thresholds.flag_min_entries} or more entries), or the gold breaks the "
        "item's own answer format."
    )
    return text, terms


BEING_MADE = (
    "The item analysis of the board is being made (with many entries it takes a minute or "
    "two); open this page again to see it."
)
"""What the Items page says before the first analysis is made (it never waits for one)."""


def age_text(seconds: float, fresh: bool) -> str:
    """When the analysis shown was made, and whether a newer one is coming."""
    minutes = int(seconds // 60)
    when = (
        "less than a minute ago"
        if minutes < 1
        else f"{minutes} minute{'' if minutes == 1 else 's'} ago"
        if minutes < 120
        else f"{minutes // 60} hours ago"
    )
    text = f"Made {when}"
    if fresh:
        return text + ", from the board as it is now."
    return (
        text + ", from the board as it was then; an analysis of the board as it is now is "
        "being made."
    )
