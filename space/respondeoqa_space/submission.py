"""How predictions become an entry, in one place: the submit form, the operator's `admin add`
and `admin rescore`, the worker's verified runs, and every entry read back from the record go
through `Intake`.

A submission: the quota reservation (form only), the file's size, its predictions, the
duplicate checks (same bytes, same content), the coverage rule, scoring, and then `keep`: one
store transaction that keeps the entry with its attempt, or, with a record, the record's commit
first (`Syncer.land_entries`, group commit) and that transaction after it. A record entry: its kept predictions are
scored again here, so no number on the board is taken on trust (`Intake.verify`).
"""

from __future__ import annotations

import tempfile
import threading
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

from respondeoqa_eval import InputError, __version__
from respondeoqa_eval.data import FILES, PRIVATE_SOURCES, GoldSet
from respondeoqa_eval.predictions import Opaque, OpaqueIdsError, Predictions, load_predictions
from respondeoqa_eval.report import ItemResult, Report

from .config import Limits
from .metadata import Metadata, ModelInfo
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
from .store.models import NewEntry
from .store.quota import content_key
from .store.record import RecordEntry, RecordError


def opaque_ids(gold: GoldSet) -> Opaque:
    """The identifiers the leaderboard neither confirms nor denies in a refusal: every one not
    shaped like a public item's (its source's prefix, `latin-grammar-junior-scholarship_...`),
    decided from the string alone, so a refusal never tells a valid private id from a made-up
    one (docs/leaderboard-safety.md)."""
    public = {r.id.split("_", 1)[0] + "_" for r in gold.records if not r.is_private}
    private = {r.id.split("_", 1)[0] + "_" for r in gold.records if r.is_private}
    prefixes = tuple(sorted(public - private))
    return lambda key: not key.startswith(prefixes)


def private_rows_refusal(origin: str, rows: int, min_share: float) -> InputError:
    """The one refusal of rows naming non-public items (whether or not they are items)."""
    return InputError(
        f"{origin}: {rows} row(s) name items that are not public items. Certamen and NLE items are "
        "checked only as a whole, never one by one: a submission with them must answer at "
        f"least {min_share:.0%} of every Certamen / NLE file it touches, each item once by its "
        "exact id, and name no other item; otherwise leave those rows out"
    )


def check_coverage(
    preds: Predictions, gold: GoldSet, min_share: float, *, opaque: bool = False
) -> None:
    """InputError unless the predictions answer at least `min_share` of the items of every
    upstream file they touch (the message gives the per-file counts). `opaque`: files of
    private sources too short give `private_rows_refusal`, before any public file is checked
    (the reply must not depend on whether a private id was valid)."""
    have = Counter(gold.by_id[i].file for i in preds.by_id if i in gold.by_id)
    total = Counter(r.file for r in gold.records)
    short = [name for name in sorted(have) if have[name] < min_share * total[name]]
    if opaque and any(FILES[name].source in PRIVATE_SOURCES for name in short if name in FILES):
        raise private_rows_refusal(preds.origin, preds.opaque_rows, min_share)
    if short:
        counts = "; ".join(f"{name}: {have[name]} of {total[name]} items" for name in short)
        raise InputError(
            f"too few predictions: a submission must answer at least {min_share:.0%} of the "
            f"items of every upstream file it covers; {counts}"
        )


def score_for_board(
    preds: Predictions,
    gold: GoldSet,
    bootstrap: int,
    min_coverage: float | None = None,
    *,
    opaque: bool = False,
) -> Report:
    """A leaderboard entry's report: scored on the upstream files the predictions cover, after
    the coverage rule (`check_coverage`) when `min_coverage` is given."""
    from respondeoqa_eval import evaluate  # the evaluator's public API

    if min_coverage is not None:
        check_coverage(preds, gold, min_coverage, opaque=opaque)
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


def point_values(report: Report, *, formats: bool = True) -> dict[str, Any]:
    """What a report claims that its kept predictions decide: every score and count (not the
    intervals, which are resampled, nor the run's description); with `formats`, the format
    compliance numbers too."""
    data = report.without_items().to_dict()
    keys = ["n_items", "missing", "unanswered", "accuracy", "extra", "bleu"]
    if formats:
        keys.append("format_compliance")
    return _points({k: data[k] for k in keys} | {"files": sorted(data["gold"]["files"])})


MOSTLY_UNANSWERED = 0.5
"""Share of covered accuracy items without an extractable answer above which a submission is
stored only when the submitter confirms it."""


class NeedsConfirmation(InputError):
    """Most covered items have no answer the paper's extraction can read."""


def check_answered(report: Report) -> None:
    """NeedsConfirmation when most of the report's accuracy items have no extractable answer
    (or no prediction): the message says how many and what the paper's format is."""
    n = report.accuracy.overall.n or 0
    unread = sum(
        1 for it in report.items if it.score is not None and (it.missing or it.extracted is None)
    )
    if n and unread > MOSTLY_UNANSWERED * n:
        raise NeedsConfirmation(
            f"not stored yet: {unread} of {n} covered items have no answer the paper's "
            "extraction can read. It reads the last line of a response, 'Answer: X' (multiple "
            "choice: the letter; short answer: one word; scansion and feet: the list after "
            "'Answer:'), so explanations after the answer or a missing 'Answer:' score 0. "
            "Check the format (respondeoqa-eval prompts shows the paper's prompts), or tick "
            '"Store it anyway" and submit again.'
        )


MAX_FILES = 200  # files of one submission (a harness run writes one log per task)


@contextmanager
def uploaded_files(
    paths: Sequence[Path], limit: int | None
) -> Iterator[tuple[list[Path], str, str]]:
    """The files of one submission, `.zip` archives unpacked (into a temporary folder removed
    afterwards); with their duplicate key (the sha256 of a single file's bytes, else of the
    files' hashes in name order) and a name to show. `limit`: the most bytes, unpacked."""
    with tempfile.TemporaryDirectory(prefix="respondeoqa-upload-") as tmp:
        found: list[Path] = []
        total = 0
        for path in paths:
            try:
                if path.is_dir():
                    raise InputError(f"{path.name}: is a folder, not a predictions file")
                total += path.stat().st_size
                if path.suffix.lower() == ".zip":
                    found += _unzip(path, Path(tmp) / str(len(found)), limit)
                else:
                    found.append(path)
            except OSError as exc:
                raise InputError(f"{path.name}: cannot read ({exc.strerror})") from None
        total = max(total, sum(p.stat().st_size for p in found))
        if limit is not None and total > limit:
            what = paths[0].name if len(paths) == 1 else f"{len(paths)} files"
            raise InputError(
                f"{what}: {total / 1e6:.1f} MB is over the {limit // (1024 * 1024)} MB limit"
            )
        if not found:
            raise InputError("no predictions file in the upload")
        if len(found) > MAX_FILES:
            raise InputError(f"{len(found)} files: one submission takes at most {MAX_FILES}")
        names = sorted(p.name for p in found)
        if len(set(names)) < len(names):
            raise InputError("two of the files have the same name; give each its own")
        if len(found) == 1:
            digest = sha256_bytes(found[0].read_bytes())
        else:
            parts = sorted((p.name, sha256_bytes(p.read_bytes())) for p in found)
            digest = sha256_bytes("\n".join(f"{n}\t{h}" for n, h in parts).encode("utf-8"))
        shown = names[0] if len(names) == 1 else f"{len(names)} files: " + ", ".join(names)
        yield found, digest, shown[:255]


def _unzip(archive: Path, folder: Path, limit: int | None) -> list[Path]:
    """The files of a zip archive written into `folder`: plain names only (folders inside it
    flattened), no dot files, at most `limit` bytes unpacked; InputError on a bad archive."""
    try:
        with zipfile.ZipFile(archive) as zf:
            members = [m for m in zf.infolist() if not m.is_dir()]
            if len(members) > MAX_FILES:
                raise InputError(f"{archive.name}: more than {MAX_FILES} files")
            size = sum(m.file_size for m in members)
            if limit is not None and size > limit:
                raise InputError(
                    f"{archive.name}: unpacks to {size / 1e6:.1f} MB, over the "
                    f"{limit // (1024 * 1024)} MB limit"
                )
            folder.mkdir(parents=True)
            out = []
            for member in members:
                name = PurePosixPath(member.filename.replace("\\", "/")).name
                if not name or name.startswith(".") or name.startswith("__MACOSX"):
                    continue
                target = folder / name
                with zf.open(member) as src:
                    data = src.read(member.file_size + 1)
                if len(data) > member.file_size:
                    raise InputError(f"{archive.name}: {name} is larger than the archive says")
                target.write_bytes(data)
                out.append(target)
            return out
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError):
        raise InputError(f"{archive.name}: not a readable zip archive") from None


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
        self.keep: Callable[[NewEntry], Entry] = self._keep_here
        """Where a new entry is stored: this store (its SQLite commit is the acknowledgement),
        or through the record (`Syncer.land_entries`: only once the record holds it)."""
        self.gold_fingerprint = gold.fingerprint()
        self.opaque = opaque_ids(gold)
        # scoring is CPU-bound: one process-wide limit for every route (queued or direct API)
        self._scoring = threading.BoundedSemaphore(limits.submit_concurrency)

    def submit(
        self,
        files: Path | Sequence[Path],
        meta: Metadata,
        *,
        client: str | None,
        submitter: str = "",
        info: ModelInfo | None = None,
        confirmed: bool = True,
        evaluation: Evaluation | None = None,
    ) -> Accepted:
        """Score and store predictions (InputError with the reason): one file, or several that
        together make one submission (a harness run's logs), a `.zip` of them included.

        `client` is the quota key (a hashed address, "hf:<user>"), None for the operator: no
        quota and no size limit then; the duplicate checks and the coverage rule always apply.
        Unless `confirmed`, predictions of which most covered items have no answer the paper's
        extraction can read are not stored (NeedsConfirmation) and use no stored-entry slot.
        `evaluation` (the operator's worker only) makes the entry a verified one.
        """
        if evaluation is not None and client is not None:
            raise ValueError("only the operator's worker stores verified entries")
        paths = [Path(files)] if isinstance(files, (str, Path)) else [Path(f) for f in files]
        if not paths:
            raise InputError("no file: upload a predictions file")
        # the attempt is counted (and the limit checked) in one transaction before scoring:
        # concurrent requests of one client cannot all pass the check
        reservation = (
            None if client is None else self.store.reserve(client, self.limits, self.clock())
        )
        entry: Entry | None = None
        limit = None if client is None else self.limits.max_file_bytes
        try:
            with self._scoring, uploaded_files(paths, limit) as (found, digest, name):
                if self.store.record_problem(entry_path(digest)) is not None:
                    raise InputError(
                        "the leaderboard's record holds these predictions in a file it could "
                        "not read; the operator has been told, so they were not stored again"
                    )
                # a public submission's refusals never tell a valid private id from another
                opaque = self.opaque if client is not None else None
                try:
                    preds = load_predictions(found, self.gold, opaque=opaque)
                except OpaqueIdsError as exc:
                    raise private_rows_refusal(exc.origin, exc.rows, self.min_coverage) from None
                key = content_key(preds)
                existing = self.store.duplicate_of(digest, key)
                if existing is not None:
                    return Accepted(self._earlier(existing, digest, client, meta), True)
                report = score_for_board(
                    preds, self.gold, self.bootstrap, self.min_coverage, opaque=opaque is not None
                )
                report = replace(report, predictions=name)  # no server folder
                if not confirmed:
                    check_answered(report)
                sub = Submission.of(
                    preds,
                    model=meta.model,
                    file_sha256=digest,
                    link=meta.link,
                    params=meta.params,
                    note=meta.note,
                    file_name=name,
                    submitter=submitter,
                    gold_fingerprint=self.gold_fingerprint,
                    info=info or ModelInfo(),
                    evaluation=evaluation,
                )
                new = NewEntry(sub, report, key, reservation)
            # outside the scoring limit: submissions scored meanwhile share the record's commit
            try:
                entry = self.keep(new)
            except DuplicateSubmissionError as exc:  # stored meanwhile by a concurrent try
                return Accepted(self._earlier(exc.existing, digest, client, meta), True)
        finally:
            if entry is None and reservation is not None:
                self.store.release(reservation)
        return Accepted(entry)

    def _keep_here(self, new: NewEntry) -> Entry:
        return self.store.add(
            new.sub, new.report, reservation=new.reservation, content_key=new.content_key
        )

    def _earlier(self, existing: Entry, digest: str, client: str | None, meta: Metadata) -> Entry:
        """A resend of predictions already stored: the entry when this client stored it under
        the same name (a retry after a lost reply), else a refusal naming the entry."""
        if client is not None and self.store.stored_by(existing.id, client):
            if existing.model != meta.model:
                raise InputError(
                    f"these predictions are already your entry #{existing.id} "
                    f"({existing.model}); an entry keeps its name: to change it, withdraw the "
                    "entry and submit again"
                )
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

    def items_of(self, entry: Entry) -> tuple[ItemResult, ...] | None:
        """The entry's per-item results scored anew from its kept predictions, extracted
        answers of private items included (the store keeps none); None when it kept none.
        For the operator's item analysis only: never shown on the board."""
        rows = self.store.predictions(entry.id)
        if rows is None:
            return None
        with self._scoring:
            preds = load_predictions(rows, self.gold)
            return score_for_board(preds, self.gold, bootstrap=0).items

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
        # a record stored before reports carried format compliance gets it from the check
        # (without intervals, which the check does not resample)
        older = rec.report.format_compliance is None
        if point_values(check, formats=not older) != point_values(rec.report, formats=not older):
            raise RecordError("its scores are not those of its kept predictions")
        kept = replace(rec.report, items=check.items)
        if older:
            kept = replace(kept, format_compliance=check.format_compliance)
        return kept, self.gold_fingerprint
