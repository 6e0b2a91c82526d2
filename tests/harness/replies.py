"""Known responses for replaying models (lm-eval, lighteval, Inspect): partly right, partly
wrong or unanswered, a feet answer with only its first foot right, translations cut short, so
every aggregate is non-trivial. Built from the gold at test time, never committed."""

from __future__ import annotations

from collections.abc import Iterable

from respondeoqa_eval.data.records import Record


def reply(record: Record, i: int) -> str:
    """The i-th replayed response for `record` (raw: the paper's extraction applies)."""
    gold = record.answers[0]
    if record.task == "translation":
        words = gold.split()
        return "Translation:\nAnswer: " + " ".join(words[: max(1, len(words) * (i % 3) // 2)])
    if i % 4 == 0:
        return "Thinking.\nAnswer: wrong"
    if i % 4 == 1 and record.task == "feet":
        first = gold.split(",")[0]
        return f"Feet.\nAnswer: {first}, nonsense, nonsense"  # partial credit
    if i % 4 == 3:
        return "I do not know."  # unanswered
    return f"Thinking.\n**Answer: {gold}**"


def replies(records: Iterable[Record]) -> dict[str, str]:
    """{item id: response} for `records` (each task's items counted on their own, so every
    kind of response falls on every task)."""
    seen: dict[str, int] = {}
    out = {}
    for r in records:
        i = seen[r.task] = seen.get(r.task, -1) + 1
        out[r.id] = reply(r, i)
    return out
