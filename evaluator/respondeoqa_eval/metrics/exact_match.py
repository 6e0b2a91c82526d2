"""1-word short-answer exact match (PROTOCOL section 4)."""

from __future__ import annotations

import functools
import string

from unidecode import unidecode

from .base import Metric

_PUNCT = str.maketrans("", "", string.punctuation)


def jv_replace(text: str) -> str:
    """Latin j -> i and v -> u (lowercase only: the text is already lowercased here)."""
    return text.replace("j", "i").replace("v", "u")


def normalize(text: str, answer_language: str, ignore_macrons: bool = True) -> str:
    """The paper's short-answer normalisation, step by step in its order (PROTOCOL 4).

    lowercase, strip, delete ASCII punctuation; Latin answers then get `unidecode` (only when
    ignoring macrons) and j -> i, v -> u. The order is the paper's and matters: strip comes
    before punctuation removal, so "roma ." keeps a trailing space; punctuation is removed before
    unidecode, so a non-ASCII mark that unidecode turns into ASCII punctuation (’ -> ') survives.
    """
    text = text.lower().strip().translate(_PUNCT)
    if answer_language == "latin":
        if ignore_macrons:
            text = unidecode(text)
        text = jv_replace(text)
    return text


@functools.lru_cache(maxsize=65536)
def _normalized_gold(text: str, answer_language: str, ignore_macrons: bool) -> str:
    """`normalize` of a gold answer, kept: the same gold is normalised for every submission."""
    return normalize(text, answer_language, ignore_macrons)


class ExactMatch(Metric):
    """Exact match after normalisation; macron-insensitive (headline) or macron-sensitive."""

    name = "exact_match"

    def __init__(self, ignore_macrons: bool = True) -> None:
        self.ignore_macrons = ignore_macrons

    @property
    def options(self) -> tuple[str, ...]:
        latin = "unidecode+j>i+v>u" if self.ignore_macrons else "j>i+v>u"
        return ("lc", "strip", "punct:ascii", f"latin:{latin}")

    def score(self, answers: list[str], answer_language: str, prediction: str | None) -> float:
        """1 if the normalised prediction equals the normalised `answers[0]`, else 0."""
        if not prediction or not answers:
            return 0.0
        gold = _normalized_gold(answers[0], answer_language, self.ignore_macrons)
        pred = normalize(prediction, answer_language, self.ignore_macrons)
        return 1.0 if gold == pred else 0.0

    def key(self, prediction: str | None, answer_language: str) -> str:
        return normalize(prediction, answer_language, self.ignore_macrons) if prediction else ""
