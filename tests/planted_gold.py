"""A planted-error benchmark for the suspected-gold-error flags (README: Item analysis;
tests/test_items.py asserts its figures, benchmarks/bench_gold_errors.py prints them).

Gold: the public short-answer, feet and meter items (the gold loader's files, read at run
time) and synthetic multiple-choice items shaped like Certamen's and NLE's (tests/synthetic.py:
multiple choice is only in the private sources). Errors are planted in a copy of it: a
multiple-choice gold becomes another option's letter, a short answer another public word of
its language, a feet gold gets one foot changed; the original gold stays the "true" answer.

Entries: ten synthetic entries of graded strength (share of items known 0.30 to 0.90, through
a logistic model with a difficulty per item, some items very hard). An entry that knows an
item gives its true answer; one that does not guesses: on multiple choice an attractive
distractor three times as often as each other option (the true one included), on short
answers one of three plausible wrong words or a word of its own or nothing, on feet the true
feet with one or two changed, on meter a shuffle of the line. So items that are hard for every
entry, with wrong answers that agree by chance, are in the benchmark without any error planted.

Deterministic: every draw comes from `random.Random` seeded with the seed.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from respondeoqa_eval.analysis.items import AGREE, ItemAnalysis, analyze_items
from respondeoqa_eval.data.breakdowns import groups_of
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.metrics import score_item
from respondeoqa_eval.metrics.feet import LISTED_FEET
from respondeoqa_eval.report.model import ItemResult
from synthetic import write_private

ENTRIES = 10
PLANTED = {"multiple_choice": 6, "short_answer": 4, "feet": 2}
"""Errors planted per task."""


def benchmark_gold(folder: Path) -> list[Record]:
    """The benchmark's items: public short answers, feet and meter, synthetic multiple choice."""
    write_private(folder, with_public=True, n_mc=240, n_sa=1, n_tr=1, n_nle=40)
    records = read_folder(folder).records
    mc = [r for r in records if r.task == "multiple_choice" and r.multiple_choice_options]
    public = [
        r for r in records if r.task in ("short_answer", "feet", "meter") and not r.is_private
    ]
    return mc + public


@dataclass(frozen=True)
class Planted:
    """A copy of the gold with errors planted: `gold` (id -> record, planted ones changed),
    `true` (id -> the answer the planted gold lacks)."""

    gold: Mapping[str, Record]
    true: Mapping[str, str]


def plant(records: list[Record], seed: int, planted: Mapping[str, int] = PLANTED) -> Planted:
    rng = random.Random(f"plant:{seed}")
    words: dict[str, list[str]] = {}
    for r in records:
        if r.task == "short_answer":
            words.setdefault(r.answer_language, []).append(r.answers[0])
    gold = {r.id: r for r in records}
    true: dict[str, str] = {}
    for task, n in planted.items():
        for r in rng.sample([r for r in records if r.task == task], n):
            old = r.answers[0]
            if task == "multiple_choice":
                new = rng.choice([o for o in r.multiple_choice_options if o[:1] != old[:1]])
            elif task == "short_answer":
                new = rng.choice([w for w in words[r.answer_language] if w.lower() != old.lower()])
            else:
                feet = [f.strip() for f in old.split(",")]
                at = rng.randrange(len(feet))
                feet[at] = rng.choice([f for f in LISTED_FEET if f != feet[at].lower()])
                new = ", ".join(feet)
            gold[r.id] = dataclasses.replace(r, answers=[new])
            true[r.id] = old
    return Planted(gold, true)


def _guess(rng: random.Random, r: Record, e: int, pool: list[str], lure: str) -> str | None:
    """What an entry that does not know item `r` answers (module docstring)."""
    gold = r.answers[0]
    if r.task == "multiple_choice":
        letters = [o[:1] for o in r.multiple_choice_options]
        return rng.choices(letters, [3 if c == lure else 1 for c in letters])[0]
    if r.task == "short_answer":
        roll = rng.random()
        if roll < 0.15:
            return None
        if roll < 0.6:
            return rng.choices(pool, [0.5, 0.3, 0.2])[0]
        return f"{gold[:3]}ix{e}{rng.randrange(3)}"
    if r.task == "feet":
        feet = [f.strip() for f in gold.split(",")]
        for _ in range(rng.choice((1, 2))):
            feet[rng.randrange(len(feet))] = rng.choice(LISTED_FEET)
        return ", ".join(feet)
    words = gold.split()
    rng.shuffle(words)
    return " ".join(words)


def simulate(records: list[Record], gold: Mapping[str, Record], seed: int) -> dict:
    """The entries' per-item results (entry name -> ItemResults) against `gold`: the entries
    answer from `records`' (true) answers."""
    rng = random.Random(f"entries:{seed}")
    words: dict[str, list[str]] = {}
    for r in records:
        if r.task == "short_answer":
            words.setdefault(r.answer_language, []).append(r.answers[0])
    abilities = [0.30 + 0.60 * e / (ENTRIES - 1) for e in range(ENTRIES)]
    entries: dict[str, list[ItemResult]] = {f"entry-{e}": [] for e in range(ENTRIES)}
    for r in records:
        hardness = rng.gauss(0.0, 1.2) + (2.5 if rng.random() < 0.1 else 0.0)
        pool = rng.sample([w for w in words.get(r.answer_language, []) if w != r.answers[0]], 3)
        letters = [o[:1] for o in r.multiple_choice_options]
        lure = rng.choice([c for c in letters if c != r.answers[0][:1]] or ["A"])
        scored = gold[r.id]
        for e, accuracy in enumerate(abilities):
            logit = math.log(accuracy / (1 - accuracy)) - hardness
            knows = rng.random() < 1 / (1 + math.exp(-logit))
            answer = r.answers[0] if knows else _guess(rng, r, e, pool, lure)
            if r.task == "multiple_choice" and answer:
                answer = answer[:1]
            score = score_item(r.task, scored.answers, r.answer_language, answer)
            entries[f"entry-{e}"].append(
                ItemResult(
                    r.id, r.question_id, r.question_language, r.task, r.source,
                    r.question_content, answer, score, False, groups_of(r),
                )
            )  # fmt: skip
    return entries


@dataclass(frozen=True)
class Outcome:
    """One run: the planted items, the items flagged by agreement, and the analysis."""

    planted: frozenset[str]
    flagged: frozenset[str]
    analysis: ItemAnalysis

    @property
    def found(self) -> int:
        return len(self.planted & self.flagged)


def run(records: list[Record], seed: int, planted: Mapping[str, int] = PLANTED) -> Outcome:
    """Plant errors (none with `planted={}`), simulate the entries, analyse."""
    copy = plant(records, seed, planted)
    analysis = analyze_items(simulate(records, copy.gold, seed), copy.gold)
    flagged = frozenset(it.id for it in analysis.items if AGREE in it.reasons)
    return Outcome(frozenset(copy.true), flagged, analysis)


def figures(outcomes: list[Outcome]) -> tuple[float, float]:
    """(precision, recall) pooled over runs."""
    found = sum(o.found for o in outcomes)
    flagged = sum(len(o.flagged) for o in outcomes)
    planted = sum(len(o.planted) for o in outcomes)
    return (found / flagged if flagged else 1.0), found / planted
