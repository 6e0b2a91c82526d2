"""What the store keeps: a `Submission` going in, an `Entry` coming out, and the refusals."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from respondeoqa_eval import InputError, __version__
from respondeoqa_eval.predictions import Predictions
from respondeoqa_eval.report import Report

from ..metadata import ModelInfo
from ..rows import SCORED
from .evaluation import Evaluation

PredictionRow = dict[str, str]
"""A kept prediction: {"id", "response"} or {"id", "answer"}."""


def prediction_rows(preds: Predictions) -> list[PredictionRow]:
    """Predictions as rows {id, response} or {id, answer}, in the order they were read."""
    return [
        {"id": i, ("answer" if p.extracted else "response"): p.text} for i, p in preds.by_id.items()
    ]


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of a submitted file's bytes (the duplicate key)."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Submission:
    """What a submitter provides besides the file, and what scoring learned about the file."""

    model: str
    file_sha256: str
    link: str = ""
    params: str = ""
    note: str = ""
    file_name: str = ""
    submitter: str = ""  # Hugging Face username when logged in
    answers_extracted: bool = False
    gold_fingerprint: str = ""
    info: ModelInfo = field(default_factory=ModelInfo)
    rows: tuple[PredictionRow, ...] | None = field(default=None, repr=False)
    """The kept prediction rows (None: none kept, entries stored before schema 3)."""
    evaluation: Evaluation | None = None
    """The leaderboard's own run that produced the predictions (None: self-reported)."""

    @classmethod
    def of(cls, preds: Predictions, **fields: Any) -> Submission:
        """A submission of `preds`: their kept rows and whether they gave extracted answers
        rather than raw responses; `fields` are the rest."""
        return cls(
            rows=tuple(prediction_rows(preds)),
            answers_extracted=any(p.extracted for p in preds.by_id.values()),
            **fields,
        )


@dataclass(frozen=True)
class NewEntry:
    """A scored submission on its way to the store (through the record when there is one)."""

    sub: Submission
    report: Report
    content_key: str = ""
    reservation: Any = None  # quota.Reservation of the attempt, marked stored with the entry


@dataclass(frozen=True)
class Entry:
    """A stored submission; `report` is the report without its `items`."""

    id: int
    created: str
    model: str
    link: str
    params: str
    note: str
    file_name: str
    file_sha256: str
    n_items: int
    sources: tuple[str, ...]
    report: Report = field(repr=False)  # without its items (they live in entry_items)
    submitter: str = ""
    hidden: bool = False
    answers_extracted: bool = False  # the rows gave extracted answers, not raw responses
    scored_with: str = ""  # evaluator version that produced the scores
    gold_fingerprint: str = ""
    info: ModelInfo = field(default_factory=ModelInfo)
    flag: str = ""  # the operator's public note on the entry ("" when not flagged)
    private_points: Mapping[str, float] = field(default_factory=dict, repr=False)
    """Its points on private items per cell (privacy.private_points): what the board steps."""
    evaluation: Evaluation | None = field(default=None, repr=False)

    kind = SCORED

    @property
    def verified(self) -> bool:
        """Evaluated by the leaderboard itself (its worker ran the model), not uploaded."""
        return self.evaluation is not None

    @property
    def overall(self) -> float | None:
        return self.report.accuracy.overall.score

    @property
    def stale(self) -> bool:
        """Scored by another evaluator version than the running one (until `admin rescore`)."""
        return self.scored_with != __version__


class DuplicateSubmissionError(InputError):
    """The same file was already stored; `existing` is the first entry."""

    def __init__(self, existing: Entry) -> None:
        self.existing = existing
        super().__init__(
            f"this file is identical to entry #{existing.id} ({existing.model}, submitted "
            f"{existing.created[:10]}); it was not stored again"
        )


class DuplicateContentError(DuplicateSubmissionError):
    """Predictions with the same content (`quota.content_key`) were already stored."""

    def __init__(self, existing: Entry) -> None:
        self.existing = existing
        InputError.__init__(
            self,
            f"these predictions are the same as entry #{existing.id} ({existing.model}, "
            f"submitted {existing.created[:10]}): every item has the same answer (row order, "
            "file format and spaces around values aside); they were not stored again",
        )
