"""Multiple-choice accuracy (PROTOCOL section 4)."""

from __future__ import annotations

from .base import Metric


class MultipleChoice(Metric):
    """1 if the predicted letter equals the first character of `answers[0]` (e.g. "B: Mars")."""

    name = "multiple_choice"

    @property
    def options(self) -> tuple[str, ...]:
        return ("letter:first-char", "case:exact")

    def score(self, answers: list[str], answer_language: str, prediction: str | None) -> float:
        """Score one MC prediction (the extracted letter, or an already-extracted answer)."""
        if not prediction or not answers or not answers[0]:
            return 0.0
        # PROTOCOL 3/4: the extracted answer is a single character; an already-extracted answer
        # ("B", "B: Mars") is reduced the same way, to its first non-blank character.
        letter = prediction.strip()[:1]
        # PROTOCOL 4: compared as is, case-sensitively ("b" does not match "B: Mars"), as in the paper.
        return 1.0 if letter and letter == answers[0][0] else 0.0

    def key(self, prediction: str | None, answer_language: str) -> str:
        """The letter `score` compares: the first non-blank character."""
        return (prediction or "").strip()[:1]
