"""Lenient answer extraction, beside the paper's (extract.py), never instead of it.

The paper's answer is kept when it is well-formed for the item's task
(`answer_format.well_formed`; rule "paper"). Otherwise the task's lenient rules are tried in
order, and the first that reads an answer gives it; None when none does. The rule names are
stable (reports carry them) and each is documented in the README's "Format compliance".

- marker: the last line with an answer marker, in any case, with `*` removed: "answer",
  "final answer", Latin "responsum" / "responsio", followed by `:`, `-`, `=` or "is"
  ("Answer:B", "**Final answer**: Roma", "The answer is (C)"); the text after it, else the
  next non-empty line. Every task tries it first.
- multiple choice: `mc:marker` an option letter right after the marker; `mc:option-text` the
  marker's text (else the last non-empty line) is exactly one option's text ("Answer: Mars");
  `mc:last-letter` the last option letter standing alone in the response ("A" and "I" not when
  a lowercase word follows: the article, the pronoun).
- short answer: `short:marker`; `short:last-word` the last word of the last non-empty line.
- meter: `meter:marker`; `meter:last-line` the last non-empty line, without quotes.
- feet: `feet:marker` when the marker's text is a list of feet; `feet:names` the foot names,
  in order, of the marker's text or else of the last line that names a foot.
- translation: `translation:marker` (also "translation:", and on the first line, which the
  paper skips); `translation:last-line` the last non-empty line.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..data.records import Record
from ..metrics.feet import FOOT_NAMES
from .answer_format import is_feet_list, option_letters, well_formed

PAPER = "paper"
"""The rule name of an item whose paper answer is kept."""

LENIENT_VERSION = "1"
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
_LONE_LETTER = re.compile(r"(?<![A-Za-z0-9'\u2019])\(?([A-Z])\)?(?![A-Za-z0-9'\u2019-])")
_LOWER_WORD = re.compile(r"\s+[a-z]")
_WORD = re.compile(r"[\w'\u2019-]+")
_QUOTES = "\"'\u201c\u201d\u2018\u2019\u00ab\u00bb"
_FOOT = re.compile(
    r"\b("
    + "|".join(sorted((re.escape(n).replace(r"\ ", r"\s+") for n in FOOT_NAMES), key=len)[::-1])
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
    lone, plain = None, text.replace("*", "")
    for found in _LONE_LETTER.finditer(plain):
        letter = found.group(1)
        if letter not in letters:
            continue
        if letter in "AI" and _LOWER_WORD.match(plain, found.end()):
            continue  # the article "A", the pronoun "I"
        lone = letter
    yield "mc:last-letter", lone


def _short_answer(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    yield "short:marker", _after_marker(text)
    last = _last_line(text) or ""
    found = _WORD.findall(last)
    yield "short:last-word", found[-1].strip("'\u2019-") if found else None


def _meter(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    yield "meter:marker", _after_marker(text)
    last = _last_line(text)
    yield "meter:last-line", last.strip(_QUOTES).strip() if last else None


def _feet_names(text: str) -> str | None:
    names = [" ".join(m.group(1).lower().split()) for m in _FOOT.finditer(text)]
    return ", ".join(names) or None


def _feet(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    after = _after_marker(text)
    if after and is_feet_list(after):
        yield "feet:marker", after
    lines = [after] if after else []
    lines += [line for line in reversed(_lines(text)) if line]
    yield "feet:names", next((n for n in map(_feet_names, lines) if n), None)


def _translation(record: Record, text: str) -> Iterator[tuple[str, str | None]]:
    yield "translation:marker", _after_marker(text, _TRANSLATION_MARKER)
    yield "translation:last-line", _last_line(text)


RuleSet = Callable[[Record, str], Iterator[tuple[str, str | None]]]
RULES: dict[str, tuple[RuleSet, tuple[str, ...]]] = {
    "multiple_choice": (_multiple_choice, ("mc:marker", "mc:option-text", "mc:last-letter")),
    "short_answer": (_short_answer, ("short:marker", "short:last-word")),
    "meter": (_meter, ("meter:marker", "meter:last-line")),
    "feet": (_feet, ("feet:marker", "feet:names")),
    "translation": (_translation, ("translation:marker", "translation:last-line")),
}
"""Each task's lenient rules (the reader, and its rule names in the order they are tried)."""


def signature() -> str:
    """The rules in order: "lenient|keep:well-formed|mc:marker>option-text>last-letter|...|version:1"."""
    parts = []
    for _, names in RULES.values():
        prefix = names[0].split(":")[0]
        parts.append(f"{prefix}:" + ">".join(name.split(":", 1)[1] for name in names))
    return "|".join(["lenient", "keep:well-formed", *parts, f"version:{LENIENT_VERSION}"])


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
