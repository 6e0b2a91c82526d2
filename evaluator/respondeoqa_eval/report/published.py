"""The paper's published results (PROTOCOL section 6), as typed reports: one home for them.

These numbers are copied from the paper, never re-scored; they are `Report`s (fractions for
accuracy, 0-100 BLEU, no item counts or intervals, which the paper does not publish) so that the
CLI summary and the leaderboard treat them like any other report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..data.records import CONTENTS, LANGUAGE_PAIRS
from ..data.sources import SOURCES
from .model import Accuracy, BleuScore, EvaluatorInfo, GoldInfo, Report, Score

PUBLISHED_LABEL = "reported in paper"


@dataclass(frozen=True)
class PublishedModel:
    """One model of the paper: its key, name, a note on its numbers and its report."""

    key: str
    model: str
    report: Report = field(repr=False)
    note: str = ""
    params_b: float | None = None  # parameters in billions, as the model's makers state it
    weights: str = ""  # "open" or "api"
    reasoning: bool | None = None  # a reasoning ("thinking") model
    hub_model: str = ""  # its Hugging Face model id


def _g(pct: float) -> Score:
    """A group's score from a published percentage (no n and no interval are published)."""
    return Score(round(pct / 100.0, 6), None)


def _b(score: float) -> BleuScore:
    return BleuScore(score, None)


# PROTOCOL section 6: accuracy (all non-translation), MC only, knowledge, skill;
# per content type and per language pair from the paper's released evaluation;
# BLEU (Table 8) as latin / english target, unconstrained / constrained / overall.
_PUBLISHED: list[dict[str, Any]] = [
    {
        "key": "paper-llama-3.3-70b",
        "model": "LLaMa 3.3 70B",
        "params_b": 70.0,
        "weights": "open",
        "reasoning": False,
        "hub_model": "meta-llama/Llama-3.3-70B-Instruct",
        "note": "overall 71.92 as published; the paper's released notebook prints 71.29",
        "overall": 71.92,
        "mc": 90.25,
        "knowledge": 74.27,
        "skill": 64.77,
        "content": [80.8, 60.6, 80.1, 35.7, 73.1, 79.7, 94.3, 13.1, 84.0, 64.3],
        "pairs": [75.5, 69.4, 87.6, 47.5],
        "bleu": {"latin": (25.50, 20.88, 23.71), "english": (45.41, 37.46, 45.25)},
    },
    {
        "key": "paper-qwq-32b",
        "model": "Qwen QwQ 32B",
        "params_b": 32.5,
        "weights": "open",
        "reasoning": True,
        "hub_model": "Qwen/QwQ-32B",
        "note": "",
        "overall": 68.11,
        "mc": 90.86,
        "knowledge": 71.08,
        "skill": 61.63,
        "content": [79.7, 54.5, 77.8, 39.3, 61.8, 75.7, 93.8, 21.1, 86.4, 63.4],
        "pairs": [73.0, 65.6, 90.2, 44.7],
        "bleu": {"latin": (18.53, 21.52, 19.53), "english": (39.91, 17.95, 39.27)},
    },
    {
        "key": "paper-o3-mini",
        "model": "o3-mini",
        "params_b": None,  # not published by OpenAI
        "weights": "api",
        "reasoning": True,
        "hub_model": "",
        "note": "",
        "overall": 68.61,
        "mc": 91.80,
        "knowledge": 69.46,
        "skill": 66.76,
        "content": [78.0, 62.1, 73.4, 42.9, 53.0, 72.2, 94.0, 25.0, 84.6, 67.4],
        "pairs": [75.7, 64.9, 93.1, 44.7],
        "bleu": {"latin": (23.42, 27.25, 24.67), "english": (43.29, 34.68, 43.14)},
    },
]

# the order of the published per-content lists above (PROTOCOL section 6 is alphabetical)
_CONTENT_ORDER = (
    "geography",
    "grammar",
    "history",
    "literary_devices",
    "literature",
    "mythology",
    "reading_comprehension",
    "scansion",
    "translation",
    "vocabulary",
)
_PAIR_ORDER = ("english-english", "english-latin", "latin-english", "latin-latin")
assert sorted(_CONTENT_ORDER) == sorted(CONTENTS) and sorted(_PAIR_ORDER) == sorted(LANGUAGE_PAIRS)


def _report(p: dict[str, Any]) -> Report:
    bleu = {
        lang: {"overall": _b(o), "constrained": _b(c), "unconstrained": _b(u)}
        for lang, (u, c, o) in p["bleu"].items()
    }
    return Report(
        accuracy=Accuracy(
            _g(p["overall"]),
            {
                "by_task": {"multiple_choice": _g(p["mc"])},
                "by_content": dict(zip(_CONTENT_ORDER, map(_g, p["content"]), strict=True)),
                "by_language_pair": dict(zip(_PAIR_ORDER, map(_g, p["pairs"]), strict=True)),
                "by_category": {"knowledge": _g(p["knowledge"]), "skill": _g(p["skill"])},
            },
        ),
        bleu=bleu,
        gold=GoldInfo(sources=SOURCES),
        evaluator=EvaluatorInfo(name="paper", version="", protocol=PUBLISHED_LABEL),
    )


PUBLISHED: tuple[PublishedModel, ...] = tuple(
    PublishedModel(
        key=p["key"],
        model=p["model"],
        report=_report(p),
        note=p["note"],
        params_b=p["params_b"],
        weights=p["weights"],
        reasoning=p["reasoning"],
        hub_model=p["hub_model"],
    )
    for p in _PUBLISHED
)
"""The paper's three models, in the order of its tables."""
