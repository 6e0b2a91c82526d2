"""How predictions become an entry, in one place: the submit form, the operator's `admin add`
and `admin rescore`, the worker's verified runs, and every entry read back from the record go
through `Intake`.

A submission: the quota reservation (form only), the file's size, its predictions, the
duplicate checks (same bytes, same content), the coverage rule, scoring, and one store
transaction that keeps the entry with its attempt. A record entry: its kept predictions are
scored again here, so no number on the board is taken on trust (`Intake.verify`).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .._version import __version__
from ..errors import InputError
from ..gold import GoldSet
from ..predictions import Predictions, load_predictions
from ..report import Report
from .config import Limits
from .metadata import Metadata
from .store import (
    DuplicateContentError,
    DuplicateSubmissionError,
    Entry,
    Store,
    Submission,
    entry_path,
    sha256_bytes,
)
from .store.evaluation import Evaluation
from .store.quota import content_key
from .store.record import RecordEntry, RecordError


def check_coverage(preds: Predictions, gold: GoldSet, min_share: float) -> None:
    """InputError unless the predictions answer at least `min_share` of the items of every
    upstream file they touch (the message gives the per-file counts)."""
    have = Counter(gold.by_id[i].file for i in preds.by_id if i in gold.by_id)
    total = Counter(r.file for r in gold.records)
    short = [
        f"{name}: {have[name]} of {total[name]} items"
        for name in sorted(have)
        if have[name] < min_share * total[name]
    ]
    if short:
        raise InputError(
            f"too few predictions: a submission must answer at least {min_share:.0%} of the "
            f"items of every upstream file it covers; {'; '.join(short)}"
        )


def score_for_board(
    preds: Predictions, gold: GoldSet, bootstrap: int, min_coverage: float | None = None
) -> Report:
    """A leaderboard entry's report: scored on the upstream files the predictions cover, after
    the coverage rule (`check_coverage`) when `min_coverage` is given."""
    from .. import evaluate  # the evaluator's public API

    if min_coverage is not None:
        check_coverage(preds, gold, min_coverage)
    return evaluate(preds, gold, restrict_to_covered=True, bootstrap=bootstrap)


def rescored(new: Report, old: Report) -> Report:
    """A re-scored report keeps what only the original file knew: its name and provenance
    (kept predictions are rows, without the harness log around them)."""
    return replace(new, predictions=old.predictions, provenance=old.provenance)


_UNCHECKED = frozenset({"ci", "signature"})  # intervals are resampled, signatures describe


def _points(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _points(v) for k, v in value.items() if k not in _UNCHECKED}
    if isinstance(value, list):
        return [_points(v) for v in value]
    if isinstance(value, float):
        return round(value, 9)
    return value


def point_values(report: Report) -> dict[str, Any]:
    """What a report claims that its kept predictions decide: every score and count (not the
    intervals, which are resampled, nor the run's description)."""
    data = report.without_items().to_dict()
    keys = ("n_items", "missing", "unanswered", "accuracy", "extra", "bleu")
    return _points({k: data[k] for k in keys} | {"files": sorted(data["gold"]["files"])})


@dataclass(frozen=True)
class Accepted:
    """A stored entry, and whether an earlier try of the same client had stored it."""

    entry: Entry
    earlier: bool = False


class Intake:
    """Scores predictions for the board and stores them (see the module docstring)."""

    def __init__(
        self,
        store: Store,
        gold: GoldSet,
        *,
        limits: Limits,
        bootstrap: int = 1000,
        min_coverage: float = 0.9,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.gold = gold
        self.limits = limits
        self.bootstrap = bootstrap
        self.min_coverage = min_coverage
        self.clock = clock
        self.gold_fingerprint = gold.fingerprint()
        # scoring is CPU-bound: one process-wide limit for every route (queued or direct API)
        self._scoring = threading.BoundedSemaphore(limits.submit_concurrency)

    def submit(
        self,
        path: Path,
        meta: Metadata,
        *,
        client: str | None,
        submitter: str = "",
        evaluation: Evaluation | None = None,
    ) -> Accepted:
        """Score and store the predictions file at `path` (InputError with the reason).

        `client` is the quota key (a hashed address, "hf:<user>"), None for the operator: no
        quota and no size limit then; the duplicate checks and the coverage rule always apply.
        `evaluation` (the operator's worker only) makes the entry a verified one.
        """
        if evaluation is not None and client is not None:
            raise ValueError("only the operator's worker stores verified entries")
        # the attempt is counted (and the limit checked) in one transaction before scoring:
        # concurrent requests of one client cannot all pass the check
        reservation = (
            None if client is None else self.store.reserve(client, self.limits, self.clock())
        )
        entry: Entry | None = None
        try:
            with self._scoring:
                try:
                    size = path.stat().st_size
                    if path.is_dir():
                        raise InputError(f"{path.name}: is a folder, not a predictions file")
                    if client is not None and size > self.limits.max_file_bytes:
                        raise InputError(
                            f"{path.name}: {size / 1e6:.1f} MB is over the "
                            f"{self.limits.max_file_mb} MB limit"
                        )
                    digest = sha256_bytes(path.read_bytes())
                except OSError as exc:
                    raise InputError(f"{path.name}: cannot read ({exc.strerror})") from None
                if self.store.record_problem(entry_path(digest)) is not None:
                    raise InputError(
                        "the leaderboard's record holds these predictions in a file it could "
                        "not read; the operator has been told, so they were not stored again"
                    )
                preds = load_predictions(path, self.gold)
                key = content_key(preds)
                existing = self.store.duplicate_of(digest, key)
                if existing is not None:
                    return Accepted(self._earlier(existing, digest, client), True)
                report = score_for_board(preds, self.gold, self.bootstrap, self.min_coverage)
                report = replace(report, predictions=path.name)  # no server folder
                sub = Submission.of(
                    preds,
                    model=meta.model,
                    file_sha256=digest,
                    link=meta.link,
                    params=meta.params,
                    note=meta.note,
                    file_name=path.name,
                    submitter=submitter,
                    gold_fingerprint=self.gold_fingerprint,
                    evaluation=evaluation,
                )
                try:
                    entry = self.store.add(sub, report, reservation=reservation, content_key=key)
                except DuplicateSubmissionError as exc:  # stored meanwhile by a concurrent try
                    return Accepted(self._earlier(exc.existing, digest, client), True)
        finally:
            if entry is None and reservation is not None:
                self.store.release(reservation)
        return Accepted(entry)

    def _earlier(self, existing: Entry, digest: str, client: str | None) -> Entry:
        """A resend of predictions already stored: the entry when this client stored it (a
        retry after a lost reply), else the duplicate error naming the entry."""
        if client is not None and self.store.stored_by(existing.id, client):
            return existing
        if existing.file_sha256 == digest:
            raise DuplicateSubmissionError(existing)
        raise DuplicateContentError(existing)

    def rescore(self, entry: Entry) -> Report | None:
        """The entry's kept predictions scored with this evaluator and gold (None when it kept
        none); the coverage rule is not applied again to a stored entry."""
        rows = self.store.predictions(entry.id)
        if rows is None:
            return None
        with self._scoring:
            preds = load_predictions(rows, self.gold)
            return rescored(score_for_board(preds, self.gold, self.bootstrap), entry.report)

    def verify(self, rec: RecordEntry) -> tuple[Report, str]:
        """A record entry's report, items included, checked against its kept predictions; and
        the gold fingerprint it now rests on (RecordError when it cannot be trusted).

        Scored by this evaluator version on this gold: every score and count must come out
        the same again (a forged or corrupted file does not), and the record's intervals are
        kept. Scored by another version or on other gold: scored anew here.
        """
        try:
            preds = load_predictions(list(rec.rows), self.gold)
        except InputError as exc:
            raise RecordError(f"predictions do not fit this Space's gold ({exc})") from None
        current = (
            rec.report.evaluator.version == __version__
            and rec.gold_fingerprint == self.gold_fingerprint
        )
        with self._scoring:
            if not current:
                fresh = score_for_board(preds, self.gold, self.bootstrap)
                return rescored(fresh, rec.report), self.gold_fingerprint
            check = score_for_board(preds, self.gold, bootstrap=0)
        if point_values(check) != point_values(rec.report):
            raise RecordError("its scores are not those of its kept predictions")
        return replace(rec.report, items=check.items), self.gold_fingerprint
