"""Each task's answer format: what a well-formed answer looks like, for a prediction and for
the gold itself (docs/format-compliance.md, docs/item-analysis.md). Pure; beyond the paper, which
scores whatever its extraction reads.

- `well_formed(record, answer)`: whether an extracted answer has the task's form. The lenient
  extraction keeps the paper's answer when it does (lenient.py).
- `gold_format_problem(record)`: why the item's own gold breaks its task's rule, or None. The
  text never quotes the gold (private gold must not leave the process).
"""

from __future__ import annotations

from ..data.records import Record
from ..metrics.exact_match import normalize
from ..metrics.feet import FOOT_NAMES, feet, read_feet
from ..metrics.meter import words

DEFAULT_LETTERS = "ABCDE"
"""Option letters of a multiple-choice item whose options are missing (PROTOCOL 1: they may be
`[]`, null or absent)."""


def option_letters(record: Record) -> str:
    """The letters of the item's options ("A: Mars" -> "A"), in order; DEFAULT_LETTERS when the
    item lists none."""
    letters = [o.strip()[:1] for o in record.multiple_choice_options]
    letters = [c for c in letters if c.isascii() and c.isalpha() and c.isupper()]
    return "".join(dict.fromkeys(letters)) or DEFAULT_LETTERS


OTHER_FEET = frozenset(
    {
        "amphimacer",
        "anapaest",
        "antibacchius",
        "antispast",
        "bacchius",
        "cretic",
        "diiamb",
        "dispondee",
        "ditrochee",
        "dochmius",
        "epitrite",
        "first epitrite",
        "first paeon",
        "fourth epitrite",
        "fourth paeon",
        "greater ionic",
        "lesser ionic",
        "molossus",
        "paeon",
        "palimbacchius",
        "proceleusmatic",
        "second paeon",
        "tetrabrach",
        "third epitrite",
        "third paeon",
    }
)
"""Feet the paper's prompt does not list but models name (the classical feet of two to four
syllables, and other spellings). The lenient reading keeps them as feet, each a wrong foot in
its position (the feet metric matches a name outside the listed ones only to itself): dropping
them would shift every later foot out of its position."""

ANY_FOOT = FOOT_NAMES | OTHER_FEET
"""Every name the lenient reading takes for a foot."""


def is_feet_list(text: str, names: frozenset[str] = ANY_FOOT) -> bool:
    """A comma-separated list of foot names, each one of `names` (by default any foot, listed
    or not: `ANY_FOOT`)."""
    return all(name in names for name in read_feet(text))


def well_formed(record: Record, answer: str | None) -> bool:
    """Whether `answer` (extracted, or given as is) has the form of the item's task.

    Multiple choice: its first non-blank character is one of the item's option letters (the
    paper's colon fallback reads the first character after any colon, so "Step 1: ..." gives
    "S"). Feet: a comma-separated list of foot names (`ANY_FOOT`). Others: not empty.
    """
    if not answer or not answer.strip():
        return False
    if record.task == "multiple_choice":
        return answer.strip()[:1] in option_letters(record)
    if record.task == "feet":
        return is_feet_list(answer)
    return True


def verse_line(record: Record) -> str:
    """The verse line a prosody question ends with (the word to move marked with `*`)."""
    return record.question.strip().split("\n")[-1].replace("*", "")


def gold_format_problem(record: Record) -> str | None:
    """Why the item's gold breaks its own task's format rule, or None (also for translation,
    whose references have no rule). Never quotes the gold.

    - multiple choice: the item lists no options, or the gold's letter is not an option's;
    - short answer: the gold is not one word after the paper's normalisation (the prompt asks
      for a single word);
    - feet: a gold name is not a foot, or the gold has another number of feet than the line
      marks with `|`;
    - meter: the gold's words are not the question line's words rearranged.
    """
    gold = record.answers[0] if record.answers else ""
    if record.task == "translation":
        return None
    if not gold.strip():
        return "the gold answer is empty"
    if record.task == "multiple_choice":
        if not record.multiple_choice_options:
            return "the item lists no options, so the prompt shows none"
        if gold.strip()[:1] not in option_letters(record):
            return "the gold's letter is not one of the options' letters"
    elif record.task == "short_answer":
        n = len(normalize(gold, record.answer_language).split())
        if n != 1:
            return f"the gold has {n} words after normalisation; the prompt asks for one"
    elif record.task == "feet":
        if not is_feet_list(gold, FOOT_NAMES):
            return "the gold names something that is not one of the listed feet"
        line = verse_line(record)
        marked = line.count("|") + 1
        if "|" in line and len(feet(gold)) != marked:
            return f"the gold has {len(feet(gold))} feet; the line marks {marked}"
    elif record.task == "meter":
        if sorted(words(gold)) != sorted(words(verse_line(record))):
            return "the gold's words are not the question line's words rearranged"
    return None
