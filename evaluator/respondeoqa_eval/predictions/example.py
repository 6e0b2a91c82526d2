"""A deterministic example submission, written like a model's raw responses.

Used by the Quickstart, the tests of the whole pipeline and the benchmarks. About `accuracy`
of the items get the gold answer; the rest get a plausible wrong one.
"""

from __future__ import annotations

import random

from ..data.records import Record

_FILLER = "Let me think about the grammar and the context of this question."


def _wrong(record: Record, rng: random.Random) -> str:
    gold = record.answers[0]
    if record.task == "multiple_choice":
        letters = [o[:1] for o in record.multiple_choice_options if o[:1] != gold[:1]] or ["Z"]
        return rng.choice(letters)
    if record.task == "feet":
        feet = [f.strip() for f in gold.split(",")]
        return ", ".join(reversed(feet)) if len(feet) > 1 else "dactyl"
    if record.task == "meter":
        return " ".join(reversed(gold.split()))
    if record.task == "translation":
        return " ".join(reversed(gold.split()))
    return "nescio"


def example_response(record: Record, correct: bool, rng: random.Random) -> str:
    """A raw response in the format the paper's prompts ask for."""
    if correct:
        answer = record.answers[0][:1] if record.task == "multiple_choice" else record.answers[0]
    else:
        answer = _wrong(record, rng)
    if record.task in ("short_answer", "multiple_choice"):
        answer = answer.splitlines()[0] if answer else answer
    return f"{_FILLER}\n\nAnswer: {answer}"


def example_predictions(records: list[Record], accuracy: float = 0.6, seed: int = 0) -> list[dict]:
    """JSONL-ready rows {id, response} for `records`."""
    rng = random.Random(seed)
    return [
        {"id": r.id, "response": example_response(r, rng.random() < accuracy, rng)} for r in records
    ]
