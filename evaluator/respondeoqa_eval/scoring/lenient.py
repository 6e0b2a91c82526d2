"""Lenient answer extraction, beside the paper's (extract.py), never instead of it.

The paper's answer is kept when it is well-formed for the item's task
(`answer_format.well_formed`; rule "paper"). Otherwise the task's lenient rules are tried in
order, and the first that reads an answer gives it; None when none does. The rule names are
stable (reports carry them) and each is documented in docs/format-compliance.md.

`read_leniently` scores the reading, and never takes one that scores less than the paper's
answer: per item the lenient score is at least the paper's, by construction (the reading is
taken only where the paper's answer is not well-formed, and kept only if it scores as much).

- marker: the last line with an answer marker, in any case, with `*` removed: "answer",
  "final answer", Latin "responsum" / "responsio", followed by `:`, `-`, `=` or "is"
  ("Answer:B", "**Final answer**: Roma", "The answer is (C)"); the text after it, else the
  next non-empty line. Every task tries it first.
- multiple choice: `mc:marker` an option letter right after the marker; `mc:option-text` the
  marker's text (else the last non-empty line) is exactly one option's text ("Answer: Mars");
  `mc:letter-line` the last non-empty line is an option letter alone ("B", "(B)", "Option B").
- short answer: `short:marker`; `short:word-line` the last non-empty line when it is one word.
- meter: `meter:marker`; `meter:rearranged` the last non-empty line, without quotes, whose
  words are the question line's words rearranged.
- feet: `feet:marker` when the marker's text is a list of feet (unlisted feet included:
  `answer_format.ANY_FOOT`); `feet:names` the foot names, in order, of the marker's text, the
  last line that names a foot, or the run of lines naming feet that ends there: the first with
  as many feet as the question line marks with "|".
- translation: `translation:marker` (also "translation:", and on the first line, which the
  paper skips).

Each rule reads the intended answer of 95% or more of the realistic variants of
benchmarks/bench_lenient.py (docs/format-compliance.md); version 1's last-letter, last-word
and last-line rules did not, and were tightened or dropped.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..data.records import Record
from ..metrics import score_item
from ..metrics.meter import words
from .answer_format import ANY_FOOT, is_feet_list, option_letters, verse_line, well_formed

PAPER = "paper"
"""The rule name of an item whose paper answer is kept."""

LENIENT_VERSION = "2"
"""Bump when a rule below changes what it reads (reports carry it in their signature)."""

_MARKER = re.compile(
    r"\b(?:final\s+)?(?:answer|responsum|responsio)\b\s*(?:[:=\-\u2013\u2014]|is\b)\s*", re.I
)
_TRANSLATION_MARKER = re.compile(
    r"\b(?:final\s+)?(?:answer|translation|responsum|responsio)\b\s*(?:[:=\-\u2013\u2014]|is\b)\s*",
    re.I,
)
_LETTER_PREFIX = re.compile(r"^\(?[A-Za-z]\)?\s*[:.)]\s+")
_LEADING_LETTER = re.compile(r"\(?([A-Za-z])\)?(?![A-Za-z0-9])")
_LETTER_LINE = re.compile(r"(?:(?i:option|choice|letter)\s+)?\(?([A-Z])\)?\.?")
_WORD = re.compile(r"[\w'\u2019-]+")
_QUOTES = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb"
_FOOT = re.compile(
    r"\b("
    + "|".join(sorted((re.escape(n).replace(r"\ ", r"\s+") for n in ANY_FOOT), key=len)[::-1])
    + r")(?:e?s)?\b",
    re.I,
)
_PUNCT = str.maketrans("", "", string.punctuation)


@dataclass(frozen=True)
class Lenient:
    """An item's lenient reading: the answer, the rule that gave it (PAPER: the paper's answer,
    kept; None: nothing read) and its score (None for translation items)."""

    answer: str | None
    rule: str | None
    score: float | None

    @property
    def recovered(self) -> bool:
        """A format failure read: the paper's answer was missing or not well-formed, and a
        lenient rule read one."""
        return self.rule not in (None, PAPER)

    def to_dict(self) -> dict[str, Any]:
        return {"answer": self.answer, "rule": self.rule, "score": self.score}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Lenient:
        answer, rule, score = data.get("answer"), data.get("rule"), data.get("score")
        return cls(
            None if answer is None else str(answer),
            None if rule is None else str(rule),
            None if score is None else float(score),
        )


def _lines(text: str) -> list[str]:
    return [line.replace("*", "").strip() for line in text.split("\n")]


def _after_marker(text: str, marker: re.Pattern[str] = _MARKER) -> str | None:
    """The text after the first marker of the last line that has one with something after it
    (or a non-empty line below it)."""
    lines = _lines(text)
    for i in range(len(lines) - 1, -1, -1):
        found = marker.search(lines[i])
        if found is None:
            continue
        rest = lines[i][found.end() :].strip()
        if rest:
            return rest
        below = next((line for line in lines[i + 1 :] if line), None)
        if below:
            return below
    return None


def _last_line(text: str) -> str | None:
    return next((line for line in reversed(_lines(text)) if line), None)


def _plain(text: str) -> str:
    return " ".join(text.lower().translate(_PUNCT).split())


def _option_by_text(record: Record, text: str) -> str | None:
    """The letter of the one option whose text (after "B:", "B." or "(B)") equals `text`,
    ignoring case, punctuation and spacing; a leading "B:" or "(B)" of `text` is ignored."""
    wanted = _plain(_LETTER_PREFIX.sub("", text))
    if not wanted:
        return None
    hits = [
        o.strip()[:1]
        for o in record.multiple_choice_options
        if _plain(_LETTER_PREFIX.sub("", o.strip())) == wanted
    ]
    return hits[0] if len(hits) == 1 else None


def _multiple_choice(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    letters = option_letters(record)
    after = _after_marker(text)
    if after:
        lead = _LEADING_LETTER.match(after)
        if lead and lead.group(1).upper() in letters:
            yield "mc:marker", lead.group(1).upper()
    last = _last_line(text)
    yield "mc:option-text", _option_by_text(record, after or last or "")
    alone = _LETTER_LINE.fullmatch(last or "")
    yield "mc:letter-line", alone.group(1) if alone and alone.group(1) in letters else None


def _short_answer(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    yield "short:marker", _after_marker(text)
    found = _WORD.findall((_last_line(text) or "").strip(_QUOTES + ".!?;:"))
    yield "short:word-line", found[0].strip("'\u2019-") if len(found) == 1 else None


def _meter(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    yield "meter:marker", _after_marker(text)
    wanted = sorted(words(verse_line(record)))
    lines = (line.strip(_QUOTES).strip() for line in reversed(_lines(text)))
    yield "meter:rearranged", next((x for x in lines if x and sorted(words(x)) == wanted), None)


def _feet_names(text: str) -> list[str]:
    return [" ".join(m.group(1).lower().split()) for m in _FOOT.finditer(text)]


def _feet(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    after = _after_marker(text)
    if after and is_feet_list(after):
        yield "feet:marker", after
    lines = [line for line in _lines(text) if line]
    naming = [bool(_feet_names(line)) for line in lines]
    last = max((i for i, named in enumerate(naming) if named), default=None)
    candidates = [_feet_names(after)] if after else []
    candidates += [_feet_names(line) for line in reversed(lines)]
    if last is not None:  # the run of lines naming feet that ends with the last such line
        first = last
        while first > 0 and naming[first - 1]:
            first -= 1
        candidates.append([n for line in lines[first : last + 1] for n in _feet_names(line)])
    candidates = [c for c in candidates if c]
    # the line marks its feet with "|": the first reading with as many names (PROTOCOL 1)
    marked = verse_line(record).count("|") + 1 if "|" in verse_line(record) else None
    fitting = [c for c in candidates if len(c) == marked] or candidates[:1]
    yield "feet:names", ", ".join(fitting[0]) if fitting else None


def _translation(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    yield "translation:marker", _after_marker(text, _TRANSLATION_MARKER)


RuleSet = Callable[[Record, str], Iterator[tuple[str, str | None]]]
RULES: dict[str, tuple[RuleSet, tuple[str, ...]]] = {
    "multiple_choice": (_multiple_choice, ("mc:marker", "mc:option-text", "mc:letter-line")),
    "short_answer": (_short_answer, ("short:marker", "short:word-line")),
    "meter": (_meter, ("meter:marker", "meter:rearranged")),
    "feet": (_feet, ("feet:marker", "feet:names")),
    "translation": (_translation, ("translation:marker",)),
}
"""Each task's lenient rules (the reader, and its rule names in the order they are tried)."""


def signature() -> str:
    """The rules in order: "lenient|keep:well-formed|floor:paper|mc:marker>...|version:2"."""
    parts = []
    for _, names in RULES.values():
        prefix = names[0].split(":")[0]
        parts.append(f"{prefix}:" + ">".join(name.split(":", 1)[1] for name in names))
    # floor:paper: a reading that scores less than the paper's answer is not taken
    return "|".join(
        ["lenient", "keep:well-formed", "floor:paper", *parts, f"version:{LENIENT_VERSION}"]
    )


def lenient_answer(
    record: Record, text: str, paper_answer: str | None
) -> tuple[str | None, str | None]:
    """(answer, rule) of the lenient extraction from `text` (a raw response, or an answer given
    as is), when the paper's rules read `paper_answer` from it."""
    if well_formed(record, paper_answer):
        return paper_answer, PAPER
    reader, _ = RULES[record.task]
    for rule, answer in reader(record, text):
        if answer and answer.strip():
            return answer.strip(), rule
    return None, None


def read_leniently(
    record: Record, text: str | None, paper_answer: str | None, paper_score: float | None
) -> Lenient:
    """The item's lenient reading of `text` (None: no prediction), whose paper answer
    `paper_answer` scored `paper_score` (None: translation, scored as a corpus).

    A reading that scores less than the paper's answer is not taken: the paper's answer is kept
    (rule PAPER), so the lenient score is never below the paper's.
    """
    if text is None:  # no prediction: nothing to read, and it scores 0 like the paper's
        return Lenient(None, None, paper_score)
    read, rule = lenient_answer(record, text, paper_answer)
    if paper_score is None or rule == PAPER:  # translation, or the paper's answer kept
        return Lenient(read, rule, paper_score)
    points = score_item(record.task, record.answers, record.answer_language, read) if read else 0.0
    if points < paper_score:
        return Lenient(paper_answer, PAPER, paper_score)
    return Lenient(read, rule, points)
