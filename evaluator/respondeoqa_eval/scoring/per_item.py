"""Per-item scores: gold records + predictions -> one ItemScore per gold item (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from ..data.records import Record
from ..metrics import score_item, short_answer_macron_sensitive
from ..predictions.load import Predictions
from .extract import extract_answer
from .lenient import Lenient, read_leniently


def is_answered(missing: bool, extracted: str | None) -> bool:
    """The item has a prediction and the paper's rules extracted an answer from it (the report's
    `unanswered` counts predictions where they did not)."""
    return not missing and extracted not in (None, "")


@dataclass(frozen=True)
class ItemScore:
    """The outcome for one gold item.

    `extracted` is the answer taken from the response (None: unanswered or missing);
    `score` is None for translation items, which are scored as a corpus (BLEU). `lenient` is
    the lenient reading beside it (lenient.py: its score is never below `score`), never used by
    the paper's numbers.
    """

    record: Record
    extracted: str | None
    score: float | None
    missing: bool
    macron_sensitive: float | None = None
    lenient: Lenient | None = None

    @property
    def answered(self) -> bool:
        return is_answered(self.missing, self.extracted)

    @property
    def lenient_score(self) -> float | None:
        """The lenient reading's score (the paper's when there is no lenient reading)."""
        return self.score if self.lenient is None else self.lenient.score

    @property
    def hypothesis(self) -> str:
        """The translation hypothesis fed to BLEU (empty when nothing was extracted)."""
        return self.extracted or ""


def score_one(record: Record, text: str | None, extracted: bool) -> ItemScore:
    """Score one item from a raw response (`extracted=False`) or an extracted answer."""
    missing = text is None
    answer = text if extracted or text is None else extract_answer(record.task, text)
    if record.task == "translation":
        return ItemScore(
            record, answer, None, missing, lenient=read_leniently(record, text, answer, None)
        )
    score = score_item(record.task, record.answers, record.answer_language, answer)
    sensitive = None
    if record.task == "short_answer":
        sensitive = short_answer_macron_sensitive(record.answers, record.answer_language, answer)
    return ItemScore(
        record, answer, score, missing, sensitive, read_leniently(record, text, answer, score)
    )


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
