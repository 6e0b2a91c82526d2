"""Per-item scores: gold records + predictions -> one ItemScore per gold item (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from .extract import extract_answer
from .metrics import score_item, short_answer_macron_sensitive
from .predictions import Predictions
from .records import Record


@dataclass(frozen=True)
class ItemScore:
    """The outcome for one gold item.

    `extracted` is the answer taken from the response (None: unanswered or missing);
    `score` is None for translation items, which are scored as a corpus (BLEU).
    """

    record: Record
    extracted: str | None
    score: float | None
    missing: bool
    macron_sensitive: float | None = None

    @property
    def hypothesis(self) -> str:
        """The translation hypothesis fed to BLEU (empty when nothing was extracted)."""
        return self.extracted or ""


def score_one(record: Record, text: str | None, extracted: bool) -> ItemScore:
    """Score one item from a raw response (`extracted=False`) or an extracted answer."""
    missing = text is None
    answer = text if extracted or missing else extract_answer(record.task, text)
    if record.task == "translation":
        return ItemScore(record, answer, None, missing)
    score = score_item(record.task, record.answers, record.answer_language, answer)
    sensitive = None
    if record.task == "short_answer":
        sensitive = short_answer_macron_sensitive(record.answers, record.answer_language, answer)
    return ItemScore(record, answer, score, missing, sensitive)


def score_items(records: list[Record], predictions: Predictions) -> list[ItemScore]:
    """Score every gold record; a record without a prediction scores 0 and is `missing`."""
    out = []
    for record in records:
        pred = predictions.by_id.get(record.id)
        if pred is None:
            out.append(score_one(record, None, True))
        else:
            out.append(score_one(record, pred.text, pred.extracted))
    return out
