"""Per-item scores (PROTOCOL section 4) and corpus BLEU (section 5), one metric per module."""

from __future__ import annotations

from .base import Metric
from .bleu import BleuResult, bleu_from_stats, bleu_signature, bleu_stats, corpus_bleu, preprocess
from .exact_match import ExactMatch
from .feet import Feet
from .meter import Meter
from .multiple_choice import MultipleChoice

MULTIPLE_CHOICE = MultipleChoice()
EXACT_MATCH = ExactMatch(ignore_macrons=True)
EXACT_MATCH_MACRONS = ExactMatch(ignore_macrons=False)
METER = Meter()
FEET = Feet()

METRICS: dict[str, Metric] = {
    "multiple_choice": MULTIPLE_CHOICE,
    "short_answer": EXACT_MATCH,
    "feet": FEET,
    "meter": METER,
}
"""The headline metric of each accuracy task."""


def score_item(
    task: str, answers: list[str], answer_language: str, prediction: str | None
) -> float:
    """The per-item score in [0, 1] of an accuracy task; None/empty prediction scores 0."""
    if task == "translation":
        raise ValueError("translation items are scored by corpus BLEU, not per item")
    try:
        metric = METRICS[task]
    except KeyError:
        raise ValueError(f"unknown task {task!r}; expected one of {sorted(METRICS)}") from None
    return metric.score(answers, answer_language, prediction)


def short_answer_macron_sensitive(
    answers: list[str], answer_language: str, prediction: str | None
) -> float:
    """The short-answer exact match without unidecode (the paper's macron-sensitive variant)."""
    return EXACT_MATCH_MACRONS.score(answers, answer_language, prediction)


__all__ = [
    "EXACT_MATCH",
    "EXACT_MATCH_MACRONS",
    "FEET",
    "METER",
    "METRICS",
    "MULTIPLE_CHOICE",
    "BleuResult",
    "ExactMatch",
    "Feet",
    "Meter",
    "Metric",
    "MultipleChoice",
    "bleu_from_stats",
    "bleu_signature",
    "bleu_stats",
    "corpus_bleu",
    "preprocess",
    "score_item",
    "short_answer_macron_sensitive",
]
