"""Feet identification: per-position credit over the gold feet (PROTOCOL section 4)."""

from __future__ import annotations

from .base import Metric

SYNONYMS: tuple[frozenset[str], ...] = (
    frozenset({"dactyl", "dactylus"}),
    frozenset({"iamb", "iambus"}),
    frozenset({"spondee", "spondaeus", "spondeus"}),
    frozenset({"trochee", "trochaeus", "trocheus"}),
    frozenset({"amphibrac", "amphibrach"}),
    frozenset({"choriamb", "choriambus"}),
    frozenset({"tribrac", "tribrach"}),
)
"""Spellings of the same foot (the paper's `mapping`)."""

LISTED_FEET = (
    "amphibrac",
    "anapest",
    "choriamb",
    "dactyl",
    "dichoree",
    "great ionic",
    "iambus",
    "pyrrhic",
    "second epitrit",
    "small ionic",
    "spondee",
    "tribrac",
    "trochee",
)
"""The feet the paper's prompt lists (PROTOCOL 2), in its order."""

_CANONICAL = {name: min(group) for group in SYNONYMS for name in group}

FOOT_NAMES = frozenset(LISTED_FEET) | frozenset(_CANONICAL)
"""Every name of a foot: the listed ones and their other spellings."""


def same_foot(gold: str, pred: str) -> bool:
    """True if the two (lowercased, stripped) names are equal or spellings of the same foot.

    A name outside every synonym set only matches itself (the paper's dict lookup would have
    raised KeyError for it; none occurred in its runs).
    """
    return gold == pred or canonical(gold) == canonical(pred)


def canonical(name: str) -> str:
    """A foot's name written one way (its synonym set's first spelling; any other name as is)."""
    return _CANONICAL.get(name, name)


def feet(text: str) -> list[str]:
    """Lowercase, split on ",", strip each name."""
    return [name.strip() for name in text.lower().split(",")]


def read_feet(prediction: str) -> list[str]:
    """A prediction's feet as the score reads them: `*` removed, then `feet`."""
    return feet(prediction.replace("*", ""))


class Feet(Metric):
    """Correct positions / number of gold feet; the two lists are walked in parallel."""

    name = "feet"

    @property
    def options(self) -> tuple[str, ...]:
        return ("lc", "del:*", "split:comma", "synonyms:7", "walk:zip", "denom:gold")

    def score(self, answers: list[str], answer_language: str, prediction: str | None) -> float:
        """Score a comma-separated list of feet against `answers[0]`."""
        if not prediction or not answers:
            return 0.0
        gold = feet(answers[0])
        pred = read_feet(prediction)
        # PROTOCOL 4: zip stops at the shorter list; extra predicted feet cost nothing, missing
        # ones count as wrong because the denominator is the number of gold feet.
        correct = sum(same_foot(g, p) for g, p in zip(gold, pred, strict=False))
        return correct / len(gold) if gold else 0.0

    def key(self, prediction: str | None, answer_language: str) -> str:
        """The feet in order, each spelling of a foot written one way."""
        if not prediction:
            return ""
        return ", ".join(canonical(n) for n in read_feet(prediction))
