"""The breakdown registry: every dimension the report breaks accuracy down by, stated once.

A `Dimension` says under which report key it lives (`accuracy.by_content`), what a reader calls
it, how a gold record maps to its group, the order of the groups and their display names.
Aggregation, the report and its summary, the leaderboard table, Compare and the figures all read
this registry; display names live only here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from .records import (
    CONTENTS,
    DIFFICULTIES,
    FORMATS,
    KNOWLEDGE_CONTENTS,
    LANGUAGE_PAIRS,
    LANGUAGES,
    SKILL_CONTENTS,
    TASKS,
    Record,
)
from .sources import SOURCE_INFO, SOURCES


@dataclass(frozen=True)
class Dimension:
    """One way of grouping items (a report key under `accuracy`)."""

    key: str  # report key, e.g. "by_content"
    name: str  # what a reader calls it, e.g. "Content type"
    group_of: Callable[[Record], str | None] = field(repr=False)  # None: not in this breakdown
    groups: tuple[str, ...]  # every group key, in display order
    labels: Mapping[str, str] = field(default_factory=dict, repr=False)
    description: str = ""  # one sentence for legends and tooltips
    shorts: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Short names for narrow table headers (the display name where there is none)."""
    unknown: str | None = None
    """The group of items whose source gives no value (a breakdown of only this group says
    nothing: `says_nothing`)."""

    @property
    def column(self) -> str:
        """The column of this breakdown's group in per-item tables: "language_pair" for
        `by_language_pair` (the Space's per-item CSV, the item analysis)."""
        return self.key.removeprefix("by_")

    def label(self, group: str) -> str:
        """The display name of a group (the key itself for an unknown group)."""
        return self.labels.get(group, group)

    def short(self, group: str) -> str:
        """A group's name for a narrow column header."""
        return self.shorts.get(group, self.label(group))

    def says_nothing(self, groups: Collection[str]) -> bool:
        """The breakdown has only the unknown group (no item has a value): one row "Unknown"
        the size of the whole table would say nothing, so the `score` summary and the entry
        detail show one line, NOT_GIVEN, instead."""
        return self.unknown is not None and set(groups) == {self.unknown}

    def order(self, group: str) -> int:
        """Sort key of a group: its place in `groups`, unknown groups last."""
        return self.groups.index(group) if group in self.groups else len(self.groups)


NOT_GIVEN = "not given for any of these items"
"""What a breakdown that says nothing (`Dimension.says_nothing`) shows instead of its groups."""

TASK_LABELS = {
    "multiple_choice": "Multiple choice",
    "short_answer": "Short answer",
    "translation": "Translation",
    "feet": "Feet identification",
    "meter": "Meter manipulation",
}
LANGUAGE_LABELS = {"english": "English", "latin": "Latin"}
LANGUAGE_SHORTS = {"english": "En", "latin": "La"}
"""Languages in narrow headers: "En\u2192La" (language pair), "BLEU\u2192La" (target)."""
CONTENT_LABELS = {c: c.replace("_", " ").capitalize() for c in CONTENTS}
PAIR_LABELS = {
    f"{q}-{a}": f"{LANGUAGE_LABELS[q]} \u2192 {LANGUAGE_LABELS[a]}"
    for q in LANGUAGES
    for a in LANGUAGES
}
SOURCE_LABELS = {k: s.display_name for k, s in SOURCE_INFO.items()}


def _multihop(r: Record) -> str | None:
    # PROTOCOL 5: multihop vs regular is reported over short-answer items, the only ones flagged
    if r.task != "short_answer" or r.multihop is None:
        return None
    return "multihop" if r.multihop else "regular"


def _accuracy_task(r: Record) -> str | None:
    return None if r.task == "translation" else r.task


_DIMENSIONS = (
    Dimension(
        "by_task",
        "Task",
        _accuracy_task,
        tuple(t for t in TASKS if t != "translation"),
        TASK_LABELS,
        "How an item is scored: multiple choice (letter), short answer (exact match), "
        "feet identification (share of feet right), meter manipulation (word lists equal).",
        {"multiple_choice": "MC", "short_answer": "Short", "feet": "Feet", "meter": "Meter"},
    ),
    Dimension(
        "by_content",
        "Content type",
        lambda r: r.question_content,
        CONTENTS,
        CONTENT_LABELS,
        "What the question is about (upstream question_content).",
        {
            "geography": "Geo.",
            "history": "Hist.",
            "literature": "Lit.",
            "mythology": "Myth.",
            "vocabulary": "Vocab.",
            "grammar": "Gram.",
            "literary_devices": "Lit. dev.",
            "reading_comprehension": "Read.",
            "scansion": "Scan.",
            "translation": "Transl.",
        },
    ),
    Dimension(
        "by_language_pair",
        "Language pair",
        lambda r: r.language_pair,
        LANGUAGE_PAIRS,
        PAIR_LABELS,
        "Language of the question \u2192 language of the answer.",
        {
            f"{q}-{a}": f"{LANGUAGE_SHORTS[q]}\u2192{LANGUAGE_SHORTS[a]}"
            for q in LANGUAGES
            for a in LANGUAGES
        },
    ),
    Dimension(
        "by_category",
        "Knowledge / skill",
        lambda r: r.category,
        ("knowledge", "skill"),
        {"knowledge": "Knowledge", "skill": "Skill"},
        "Knowledge: "
        + ", ".join(CONTENT_LABELS[c].lower() for c in KNOWLEDGE_CONTENTS)
        + ". Skill: "
        + ", ".join(CONTENT_LABELS[c].lower() for c in SKILL_CONTENTS)
        + " (the paper's grouping).",
    ),
    Dimension(
        "by_format",
        "Format",
        lambda r: r.question_format,
        FORMATS,
        # not "Multiple choice" / "Short answer": the open format also holds the feet and meter
        # items, so it is a larger group than the Short answer task (two rows of one name)
        {"multiple_choice": "Options given", "short_answer": "Open answer"},
        "The upstream question format: options given (answered with a letter) or an open "
        "answer written out (short answers, feet and meter items alike).",
        {"multiple_choice": "Options", "short_answer": "Open"},
    ),
    Dimension(
        "by_source",
        "Source",
        lambda r: r.source,
        SOURCES,
        SOURCE_LABELS,
        "Where the question comes from: Certamen quizbowl, the National Latin Exam, "
        "Latin Grammar and Junior Scholarship Papers, Exercises in Latin Prosody.",
        {k: s.label for k, s in SOURCE_INFO.items()},
    ),
    Dimension(
        "by_difficulty",
        "Difficulty",
        lambda r: r.difficulty,
        DIFFICULTIES,
        {d: d.capitalize() for d in DIFFICULTIES},
        "The upstream difficulty level (unknown where the source gives none).",
        {"intermediate": "Interm."},
        unknown="unknown",
    ),
    Dimension(
        "by_multihop",
        "Multihop",
        _multihop,
        ("multihop", "regular"),
        {"multihop": "Multihop", "regular": "Regular"},
        "Short-answer items only: questions that need two facts chained, and the rest.",
    ),
)

DIMENSIONS: dict[str, Dimension] = {d.key: d for d in _DIMENSIONS}
"""Every accuracy breakdown, by report key, in report order."""


def groups_of(record: Record) -> dict[str, str]:
    """The group of `record` in every dimension it belongs to (report key -> group key)."""
    out = {}
    for dim in _DIMENSIONS:
        group = dim.group_of(record)
        if group is not None:
            out[dim.key] = group
    return out


BLEU_TARGETS = LANGUAGES
"""BLEU is reported per target language (the answer language of translation items)."""

BLEU_SPLITS: dict[str, Callable[[Record], bool]] = {
    "overall": lambda r: True,
    "constrained": lambda r: r.constrained is True,
    # "unconstrained" means `constrained` is not true (docs/decisions.md)
    "unconstrained": lambda r: r.constrained is not True,
}
BLEU_SPLIT_LABELS = {
    "overall": "all",
    "constrained": "constrained",
    "unconstrained": "unconstrained",
}
BLEU_VARIANT_LABELS = {"score": "paper, padded", "variable_refs": "no padding"}
"""The two BLEU numbers: the paper's (references padded with empty ones, PROTOCOL 5) and BLEU
with each item's own references."""

PADDING_SENTENCE = (
    # readers' words: no reference to PROTOCOL, a file they do not have (its section 5)
    "The paper's scoring code pads every item's references with empty ones up to the group's "
    "largest count, so a short or empty translation costs nothing in the brevity penalty and "
    "junk answers can raise its BLEU; BLEU without padding, each item with its own references, "
    "has no such effect: read the two side by side."
)
"""What the paper's BLEU padding does, in the words every view uses."""

EXTRA_LABELS = {"short_answer_macron_sensitive": f"{TASK_LABELS['short_answer']}, macrons kept"}
"""Display names of the report's `extra` scores (beyond the paper)."""
