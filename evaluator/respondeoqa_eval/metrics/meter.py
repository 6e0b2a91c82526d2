"""Meter manipulation: word-by-word identity of the rearranged line (PROTOCOL section 4)."""

from __future__ import annotations

import re

from unidecode import unidecode

from .base import Metric

_NON_WORD = re.compile(r"[^\w\s]")


def words(text: str) -> list[str]:
    """unidecode, lowercase, strip, delete non-word non-space characters, split on whitespace."""
    return _NON_WORD.sub("", unidecode(text).lower().strip()).split()


class Meter(Metric):
    """1 if the prediction's word list equals the gold line's word list, else 0."""

    name = "meter"

    @property
    def options(self) -> tuple[str, ...]:
        return ("unidecode", "lc", "strip", "del:[^\\w\\s]", "split:ws", "match:all-words")

    def score(self, answers: list[str], answer_language: str, prediction: str | None) -> float:
        """Score one rearranged line against `answers[0]`."""
        if not prediction or not answers:
            return 0.0
        return 1.0 if words(answers[0]) == words(prediction) else 0.0

    def key(self, prediction: str | None, answer_language: str) -> str:
        return " ".join(words(prediction)) if prediction else ""
