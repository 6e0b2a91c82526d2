"""Responses with a known intended answer, for measuring the lenient rules
(docs/format-compliance.md; benchmarks/bench_lenient.py prints the figures,
tests/test_format_compliance.py pins them).

Built at run time from the public items only (the gold loader's files; nothing upstream is
written to the repository): each item gets an intended answer (its gold, or for multiple
choice any option) and realistic variants of a correct-format response: the marker removed or
lowercased, the answer on the line after the marker, bold markers, "The correct answer is B",
explanation lines after the answer, option-by-option walkthroughs naming every option letter,
compass letters ("E") in the reasoning, answers in prose. Multiple choice exists only in the
private sources, so multiple-choice items are made from public short answers: an item's gold
and two to four other golds as options (A-C, A-D or A-E).

Deterministic: every choice comes from `random.Random` seeded with the seed and the item's id.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from respondeoqa_eval.data.records import Record
from respondeoqa_eval.metrics import METRICS
from respondeoqa_eval.scoring.extract import extract_answer
from respondeoqa_eval.scoring.lenient import PAPER, lenient_answer

SEED = 29

_THINK = (
    "Let me think about this step by step.",
    "The question asks for one thing; I recall it from my reading.",
    "First, consider what the question means.",
    "This is a standard question; the context makes it clear.",
)
_COMPASS = (
    "The town lies to the E of the river, as Caesar says.",
    "Rome is S of the Alps and N of Naples; E of it lie the Apennines.",
)
_EXPLAIN = (
    "Explanation: this follows from the usual meaning of the words.",
    "This is because the form matches the question exactly.",
    "I am fairly confident in this.",
    "(Other readings are possible, but this one is the most common.)",
)


@dataclass(frozen=True)
class Variant:
    """One response: its item, the kind of variant, the text and the answer it intends."""

    record: Record
    kind: str
    text: str
    intended: str


def multiple_choice_items(short_answers: list[Record], seed: int = SEED) -> list[Record]:
    """Multiple-choice items made from public one-word short answers: the item's gold among
    two to four other golds of the same answer language, in an order drawn per item."""
    by_language: dict[str, list[str]] = {}
    for r in short_answers:
        by_language.setdefault(r.answer_language, []).append(r.answers[0])
    out = []
    for r in short_answers[::2]:
        rng = random.Random(f"{seed}:mc:{r.id}")
        pool = [a for a in dict.fromkeys(by_language[r.answer_language]) if a != r.answers[0]]
        k = rng.choice((3, 4, 4, 5))
        texts = [r.answers[0], *rng.sample(pool, k - 1)]
        rng.shuffle(texts)
        options = [f"{'ABCDE'[i]}: {t}" for i, t in enumerate(texts)]
        gold = options[texts.index(r.answers[0])]
        out.append(
            dataclasses.replace(
                r,
                id=f"mc-{r.id}",
                task="multiple_choice",
                question_format="multiple_choice",
                multiple_choice_options=options,
                answers=[gold],
            )
        )
    return out


def _think(rng: random.Random) -> str:
    return rng.choice(_THINK)


def _mc(rng: random.Random, r: Record) -> Iterator[tuple[str, str, str]]:
    options = [o.split(":", 1) for o in r.multiple_choice_options]
    letter, text = rng.choice(options)
    text = text.strip()
    others = [(lt, t.strip()) for lt, t in options if lt != letter]
    other = rng.choice(others)[0]
    think = _think(rng)
    walk = "\n".join(
        f"{lt}: {t.strip()} - {'this fits' if lt == letter else 'this does not fit'}."
        for lt, t in options
    )
    shapes = {
        "well-formed": f"{think}\nAnswer: {letter}",
        "no-marker": f"{think}\n{letter}",
        "no-marker-parens": f"{think}\n({letter})",
        "no-marker-option-line": f"{think}\n{letter}: {text}",
        "no-marker-option-text": f"{think}\n{text}",
        "lowercase-marker": f"{think}\nanswer: {letter}",
        "lowercase-letter": f"{think}\nanswer: {letter.lower()}",
        "no-space": f"{think}\nAnswer:{letter}",
        "next-line": f"{think}\nAnswer:\n{letter}",
        "bold-marker": f"{think}\n**Final Answer: ({letter})**",
        "correct-answer-is": f"{think} The correct answer is {letter}.",
        "answer-is-text": f"{think}\nSo the answer is {text}.",
        "explanation-after": f"{think}\nThe answer is {letter}.\n{rng.choice(_EXPLAIN)}",
        "walkthrough-marker": f"Looking at each option in turn.\n{walk}\nSo the answer is {letter}.",
        "walkthrough-bare": f"Looking at each option in turn.\n{walk}\n{letter}",
        "walkthrough-no-conclusion": f"Looking at each option in turn.\n{walk}",
        "compass": f"{rng.choice(_COMPASS)}\nThe answer is {letter}.",
        "compass-no-marker": f"{think} {rng.choice(_COMPASS)}\n{letter}",
        "rejects-other": f"Not {other}, which is a distractor.\nI choose {letter}.",
        "option-word": f"{think}\nOption {letter}",
        "choose-then-reject": f"{think}\nI choose {letter}; {other} is a distractor.",
        "letter-then-compass": f"{think}\n{letter}\n{rng.choice(_COMPASS)}",
    }
    for kind, response in shapes.items():
        yield kind, response, letter


def _short(rng: random.Random, r: Record) -> Iterator[tuple[str, str, str]]:
    a, think = r.answers[0], _think(rng)
    shapes = {
        "well-formed": f"{think}\nAnswer: {a}",
        "no-marker": f"{think}\n{a}",
        "lowercase-marker": f"{think}\nanswer: {a}",
        "no-space": f"{think}\nAnswer:{a}",
        "next-line": f"{think}\nAnswer:\n{a}",
        "trailing-newline": f"{think}\nAnswer: {a}\n",
        "bold-marker": f"{think}\n**Answer:** *{a}*",
        "answer-is": f"{think} The answer is {a}.",
        "explanation-after": f"{think}\nAnswer: {a}\n{rng.choice(_EXPLAIN)}",
        "in-prose": f"{think}\nThe word is {a}.",
        "in-prose-explained": f"{think}\nThe word is {a}.\n{rng.choice(_EXPLAIN)}",
        "compass": f"{rng.choice(_COMPASS)}\nanswer - {a}",
    }
    for kind, response in shapes.items():
        yield kind, response, a


def _feet(rng: random.Random, r: Record) -> Iterator[tuple[str, str, str]]:
    a, think = r.answers[0], _think(rng)
    names = [n.strip() for n in a.split(",")]
    shapes = {
        "well-formed": f"{think}\nAnswer: {a}",
        "no-marker": f"{think}\n{a}",
        "lowercase-marker": f"{think}\nanswer: {a.lower()}",
        "next-line": f"{think}\nAnswer:\n{a}",
        "bold-marker": f"{think}\n**Answer:** {a}",
        "dashes": f"{think}\nAnswer: {' - '.join(names)}",
        "bars": f"{think}\n{' | '.join(names)}",
        "in-prose": f"{think}\nThe feet are {', then '.join(names)}.",
        "explanation-after": f"{think}\nanswer: {a}\n{rng.choice(_EXPLAIN)}",
        "numbered": f"{think}\n" + "\n".join(f"{i + 1}. {n}" for i, n in enumerate(names)),
    }
    for kind, response in shapes.items():
        yield kind, response, a


def _meter(rng: random.Random, r: Record) -> Iterator[tuple[str, str, str]]:
    a, think = r.answers[0], _think(rng)
    shapes = {
        "well-formed": f"{think}\nAnswer: {a}",
        "no-marker": f"{think}\n{a}",
        "quoted": f'{think}\n"{a}"',
        "lowercase-marker": f"{think}\nanswer: {a}",
        "next-line": f"{think}\nAnswer:\n{a}",
        "bold-marker": f"{think}\n**Final answer:** {a}",
        "explanation-after": f"{think}\nanswer: {a}\n{rng.choice(_EXPLAIN)}",
        "no-marker-explained": f"{think}\n{a}\n{rng.choice(_EXPLAIN)}",
    }
    for kind, response in shapes.items():
        yield kind, response, a


def _translation(rng: random.Random, r: Record) -> Iterator[tuple[str, str, str]]:
    a, think = " ".join(r.answers[0].split()), _think(rng)
    shapes = {
        "well-formed": f"{think}\nAnswer: {a}",
        "first-line": f"Answer: {a}\n{rng.choice(_EXPLAIN)}",
        "translation-marker": f"{think}\nTranslation: {a}",
        "no-marker": f"{think}\n\n{a}\n",
        "lowercase-marker": f"{think}\nanswer: {a}",
        "no-marker-explained": f"{think}\n{a}\n{rng.choice(_EXPLAIN)}",
    }
    for kind, response in shapes.items():
        yield kind, response, a


_SHAPES: dict[str, Callable[[random.Random, Record], Iterator[tuple[str, str, str]]]] = {
    "multiple_choice": _mc,
    "short_answer": _short,
    "feet": _feet,
    "meter": _meter,
    "translation": _translation,
}


def variants(records: list[Record], seed: int = SEED) -> list[Variant]:
    """Every variant of every item (`records`: public items, and `multiple_choice_items`)."""
    out = []
    for r in records:
        if not r.answers or not r.answers[0].strip() or r.task not in _SHAPES:
            continue
        rng = random.Random(f"{seed}:{r.id}")
        out += [Variant(r, kind, text, a) for kind, text, a in _SHAPES[r.task](rng, r)]
    return out


def shipped_records(public: list[Record]) -> list[Record]:
    """The public items and the multiple-choice items made from their short answers."""
    short = [r for r in public if r.task == "short_answer"]
    return [*multiple_choice_items(short), *public]


@dataclass(frozen=True)
class RuleFigure:
    """How often a rule read the intended answer of the variants it read."""

    rule: str
    read: int
    intended: int

    @property
    def precision(self) -> float:
        return self.intended / self.read if self.read else float("nan")


def _same(record: Record, read: str, intended: str) -> bool:
    if record.task == "translation":
        return " ".join(read.split()) == " ".join(intended.split())
    metric = METRICS[record.task]
    lang = record.answer_language
    return metric.key(read, lang) == metric.key(intended, lang)


def measure(cases: list[Variant]) -> dict[str, RuleFigure]:
    """Per lenient rule, over the variants whose paper answer is not well-formed: how many it
    read and how many of those readings are the intended answer (by what the item's metric
    compares). The lenient reading alone, without the gold (`lenient_answer`)."""
    read: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for v in cases:
        paper = extract_answer(v.record.task, v.text)
        answer, rule = lenient_answer(v.record, v.text, paper)
        if rule in (None, PAPER) or answer is None:
            continue
        read[rule] += 1
        right[rule] += _same(v.record, answer, v.intended)
    return {rule: RuleFigure(rule, read[rule], right[rule]) for rule in read}
