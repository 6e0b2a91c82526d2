"""What the Space does, without any UI: load gold, score and store submissions, build tables,
figures and comparisons. `app.py` wires these methods to Gradio components.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import plotly.graph_objects as go

from ..aggregate import Bootstrap
from ..errors import InputError
from ..gold import GoldSet, load_gold
from ..io import write_text_atomic
from ..predictions import Predictions, load_predictions
from ..records import PRIVATE_SOURCES
from ..report import Report
from . import compare, figures, privacy, table
from .hub import HubRepo
from .limits import clean_metadata
from .paper import PAPER_ROWS, PaperRow
from .quota import content_key
from .settings import SpaceConfig
from .store import (
    DuplicateContentError,
    DuplicateSubmissionError,
    Entry,
    Store,
    Submission,
    sha256_bytes,
)
from .sync import Syncer

log = logging.getLogger(__name__)

T = TypeVar("T")
_DERIVED_MAX = 256  # cached derived values per data version (oldest dropped first)


@dataclass
class SubmitOutcome:
    """What the submitter sees: a plain-text message and, when stored, the breakdown."""

    ok: bool
    message: str
    breakdown: pd.DataFrame
    entry: Entry | None = None


@dataclass
class CompareOutcome:
    message: str
    by_content: go.Figure
    by_pair: go.Figure
    difference: go.Figure | None
    differences: pd.DataFrame
    disagreements: pd.DataFrame


_EMPTY_BREAKDOWN = pd.DataFrame(columns=["Group", "Key", "Metric", "Score", "95% CI", "Items"])


WITHDRAW_REFUSED = "Not withdrawn"  # how Space.withdraw starts every refusal


def _refused(reason: str) -> SubmitOutcome:
    return SubmitOutcome(False, f"{WITHDRAW_REFUSED}: {reason}", _EMPTY_BREAKDOWN)


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


def _without_folders(message: str, file_path: Any) -> str:
    """A message without the server folder of the uploaded file (only its name stays)."""
    if not file_path:
        return message
    folder = str(Path(file_path).parent)
    return message.replace(folder + "/", "").replace(folder, "")


GC_THRESHOLD = 20_000
"""Allocations between two young-generation collections (Python's default: 700)."""


def _settle_gc() -> None:
    """Tune the cyclic garbage collector for a server that scores large submissions.

    The gold and everything loaded so far live as long as the process: frozen, they are out of
    the collector's sight, and its full passes during scoring no longer walk them again. Scoring
    a full-size submission makes hundreds of thousands of short-lived objects; a larger first
    threshold collects them in a few passes instead of hundreds (together about 0.1 s of each
    submission). Neither changes what is freed by reference counting, which is nearly all.
    """
    gc.freeze()
    first, *older = gc.get_threshold()
    gc.set_threshold(max(first, GC_THRESHOLD), *older)


class Space:
    """The leaderboard's state: gold, store, the Hub repo of record (when configured)."""

    def __init__(self, config: SpaceConfig) -> None:
        self.config = config
        self.limits = config.limits
        data_dir = config.data_dir
        if config.gold is None and data_dir is None and config.gold_repo:
            # private gold from the operator's private dataset repo, into a temporary folder
            # outside every path Gradio serves
            data_dir = Path(tempfile.mkdtemp(prefix="respondeoqa-gold-"))
            gold_repo = HubRepo(
                config.gold_repo, token=config.hub_token, endpoint=config.hub_endpoint
            )
            fetched = gold_repo.download_to(data_dir, suffixes=(".json", ".jsonl"))
            log.info("private gold: %d files from %r", len(fetched), gold_repo)
        self.gold = (
            config.gold if config.gold is not None else load_gold(data_dir, with_public=True)
        )
        self.gold_fingerprint = self.gold.fingerprint()
        self.store = Store(config.db)
        self.syncer: Syncer | None = None
        if config.mirror_repo:
            self.syncer = Syncer(
                self.store,
                HubRepo(config.mirror_repo, token=config.hub_token, endpoint=config.hub_endpoint),
                interval=config.sync_interval,
            )
            try:
                self.syncer.repo.create(private=True)
                added = self.syncer.restore()
                log.info("restored %d entries from %r", added, self.syncer.repo)
            except Exception as exc:  # the Space still starts; pushes retry
                log.warning("restore from %r failed: %s", self.syncer.repo, type(exc).__name__)
            self.syncer.start()
        self._cache_lock = threading.Lock()
        self._cache_version: int | None = None
        self._entries: list[Entry] = []
        # decoded, suppressed entries by id with the (version, hash) they were read at: a write
        # costs one decode (the changed row), not one per stored entry
        self._decoded: dict[int, tuple[tuple[int, str], Entry]] = {}
        self._by_id: dict[int, Entry] = {}
        # everything derived from the entries (frames, rendered tables, CSVs, choices,
        # comparisons), by data version and key; emptied when the version moves
        self._derived: dict[Hashable, Any] = {}
        self._building: dict[Hashable, threading.Lock] = {}
        self._tmp = Path(tempfile.mkdtemp(prefix="respondeoqa-space-"))
        self.clock = time.time  # the quota clock (tests set their own)
        # scoring is CPU-bound: one process-wide limit for every route (queued or direct API)
        self._scoring = threading.BoundedSemaphore(self.limits.submit_concurrency)
        self._public_by_files: dict[tuple[str, ...], Counter] = {}
        log.info(
            "gold: %d items from %d files (private sources: %s); db: %s",
            len(self.gold),
            len(self.gold.files),
            self.gold.has_private,
            config.db,
        )
        _settle_gc()
        # what every submission reuses (each item's prepared references, the bootstrap's
        # resample matrices) is made now, in the background, not by the first submitter
        threading.Thread(target=self._warm_up, name="scoring-warm-up", daemon=True).start()

    def _warm_up(self) -> None:
        """Score "no predictions" on every gold item, for the caches only (result dropped)."""
        from .. import evaluate  # the evaluator's public API

        try:
            evaluate(Predictions(origin="warm-up"), self.gold, bootstrap=self.config.bootstrap)
        except Exception as exc:  # only the first submission is slower
            log.warning("scoring warm-up failed (%s)", type(exc).__name__)

    # -- leaderboard -------------------------------------------------------------------

    def close(self) -> None:
        """Stop the background push and push what is waiting (shutdown)."""
        if self.syncer is not None:
            self.syncer.stop()

    def _snapshot(self) -> tuple[int, list[Entry]]:
        """The shown entries, brought up to date when the database changed (by any process):
        only new or changed rows are decoded."""
        version = self.store.data_version()
        with self._cache_lock:
            if version != self._cache_version:
                keys = self.store.entry_versions()
                changed = [i for i, k in keys.items() if self._decoded.get(i, (None,))[0] != k]
                fresh = {e.id: e for e in self.store.entries(ids=changed)} if changed else {}
                decoded = {}
                for i, k in keys.items():
                    if i in fresh:
                        decoded[i] = (k, self._shown(fresh[i]))
                    elif i in self._decoded and i not in changed:
                        decoded[i] = self._decoded[i]
                    # else: hidden or deleted between the two reads; the next version has it
                self._decoded = decoded
                self._entries = [e for _, e in decoded.values()]
                self._by_id = {e.id: e for e in self._entries}
                self._derived = {}
                self._cache_version = version
            return version, self._entries

    def cached(self, key: Hashable, build: Callable[[], T]) -> T:
        """`build()` once per data version: every read (table, rendered board, CSV, choices,
        Compare, entry detail) is served from values rebuilt only after a write."""
        version, _ = self._snapshot()
        with self._cache_lock:
            if (version, key) in self._derived:
                return self._derived[version, key]
            building = self._building.setdefault(key, threading.Lock())
        # one build per key: fifty page loads right after a write wait for one rendering
        with building:
            with self._cache_lock:
                if (version, key) in self._derived:
                    return self._derived[version, key]
            value = build()  # outside the cache lock: other keys are served meanwhile
            with self._cache_lock:
                self._building.pop(key, None)
                if self._cache_version == version:
                    value = self._derived.setdefault((version, key), value)
                    while len(self._derived) > _DERIVED_MAX:  # many picks between two writes
                        del self._derived[next(iter(self._derived))]
        return value

    def _visible(self) -> list[Entry]:
        return self._snapshot()[1]

    def _shown(self, entry: Entry) -> Entry:
        """The entry as every view shows it: values resting on fewer than k private items
        suppressed (privacy.suppress), from the public records of the files it covers."""
        if not any(s in PRIVATE_SOURCES for s in entry.sources):
            return entry
        files = tuple(sorted(entry.report.gold.files))
        key = files or tuple(sorted(entry.sources))
        public = self._public_by_files.get(key)
        if public is None:
            public = privacy.public_cell_counts(
                r
                for r in self.gold.records
                if not r.is_private and (r.file in files if files else r.source in entry.sources)
            )
            self._public_by_files[key] = public
        k = self.limits.min_private_items
        return replace(entry, report=privacy.suppress(entry.report, (), k, public=public))

    def rows(self) -> list[Any]:
        """The paper's rows, then every shown (not hidden) entry."""
        return [*PAPER_ROWS, *self._visible()]

    def table(self, view: str = "Overview", coverage: str | None = None) -> pd.DataFrame:
        """The leaderboard frame of a view; built once per database change and view."""
        return self.cached(("frame", view, coverage), lambda: self._frame(view, coverage)).copy()

    def _frame(self, view: str, coverage: str | None) -> pd.DataFrame:
        entries = self._visible()
        stale = {e.id for e in entries if self.is_stale(e)}
        return table.leaderboard_frame([*PAPER_ROWS, *entries], view, coverage, stale)

    def is_stale(self, entry: Entry) -> bool:
        """Scored by another evaluator version, or against other gold than this Space's (a
        corrected gold file): marked on the board until `space admin rescore`. An entry stored
        before fingerprints were kept (none recorded) counts by its version only."""
        other_gold = (
            bool(entry.gold_fingerprint) and entry.gold_fingerprint != self.gold_fingerprint
        )
        return entry.stale or other_gold

    def coverage_choices(self) -> list[str]:
        return list(self.cached("coverages", lambda: table.coverage_choices(self.rows())))

    def csv_file(self, view: str = "Overview", coverage: str | None = None) -> Path:
        """The current table as a CSV file to download (one file per view and coverage,
        rewritten once per database change)."""
        return self.cached(("csv", view, coverage), lambda: self._write_csv(view, coverage))

    def _write_csv(self, view: str, coverage: str | None) -> Path:
        key = hashlib.sha256(f"{view}\0{coverage}".encode()).hexdigest()[:12]
        path = self._tmp / f"respondeoqa-leaderboard-{key}.csv"
        write_text_atomic(path, table.to_csv(self.table(view, coverage)))
        return path

    # -- submit ------------------------------------------------------------------------

    def submit(
        self,
        file_path: str | Path | None,
        model: Any,
        link: Any = "",
        params: Any = "",
        note: Any = "",
        client: str = "",
        submitter: str = "",
    ) -> SubmitOutcome:
        """Validate, score, store; every failure becomes a plain-words message.

        `client` is the quota key (hashed address, or "hf:<user>" when logged in); `submitter`
        the Hugging Face username shown on the entry ("" when not logged in).
        """
        try:
            entry, earlier = self._submit(file_path, model, link, params, note, client, submitter)
        except InputError as exc:
            text = _without_folders(str(exc), file_path)
            return SubmitOutcome(False, f"Not accepted: {text}", _EMPTY_BREAKDOWN)
        except Exception as exc:  # never show a traceback (or anything it may quote)
            # where it failed, but not the message: it could quote a private gold string
            frames = traceback.extract_tb(exc.__traceback__)[-4:]
            where = " <- ".join(
                f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames)
            )
            log.error("submission failed with %s at %s", type(exc).__name__, where)
            return SubmitOutcome(
                False,
                "Not accepted: the file could not be scored because of an internal error; "
                "please report it to the Space's maintainers.",
                _EMPTY_BREAKDOWN,
            )
        entry = self._shown(entry)
        report = entry.report
        overall = report.accuracy.overall
        score = table.percent_text(overall.score)
        message = (
            f"Already stored as entry #{entry.id} ({entry.model}): an earlier try of yours "
            "stored these predictions; they were not stored again. "
            if earlier
            else f"Stored as entry #{entry.id}: {entry.model}. "
        ) + (
            f"Overall accuracy {score} on {overall.n} items "
            f"({table.coverage_label(entry.sources)}); {report.missing} covered items had no "
            f"prediction, {report.unanswered} had no extractable answer."
        )
        if privacy.suppressed_cells(report):
            message += " " + privacy.note(self.limits.min_private_items)
        return SubmitOutcome(True, message, table.breakdown_frame(report), entry)

    def _submit(
        self,
        file_path: str | Path | None,
        model: Any,
        link: Any,
        params: Any,
        note: Any,
        client: str,
        submitter: str = "",
    ) -> tuple[Entry, bool]:
        """The stored entry, and whether an earlier try of this client had stored it."""
        if self.config.oauth and not submitter:
            raise InputError("please log in with Hugging Face (button above) to submit")
        if not file_path:
            raise InputError(
                "no file: upload a predictions file (.jsonl, .csv, .json, or a harness log: "
                "lm-eval samples .jsonl, lighteval details .parquet)"
            )
        path = Path(file_path)
        if path.name.startswith("."):
            raise InputError(
                f"{path.name}: file names beginning with a dot are not accepted; "
                "rename the file, e.g. predictions.jsonl"
            )
        meta = clean_metadata(model, link, params, note, self.limits)
        # the attempt is counted (and the limit checked) in one transaction before scoring:
        # concurrent requests of one client cannot all pass the check
        reservation = self.store.reserve(client, self.limits, self.clock())
        entry: Entry | None = None
        try:
            with self._scoring:
                size = path.stat().st_size
                if size > self.limits.max_file_bytes:
                    raise InputError(
                        f"{path.name}: {size / 1e6:.1f} MB is over the "
                        f"{self.limits.max_file_mb} MB limit"
                    )
                digest = sha256_bytes(path.read_bytes())
                preds = load_predictions(path, self.gold)
                key = content_key(preds)
                existing = self.store.duplicate_of(digest, key)
                if existing is not None:
                    return self._earlier(existing, digest, client), True
                report = score_for_board(
                    preds, self.gold, self.config.bootstrap, self.config.min_coverage
                )
                report = replace(report, predictions=path.name)  # no server folder
                try:
                    entry = self.store.add(
                        Submission.of(
                            preds,
                            model=meta.model,
                            file_sha256=digest,
                            link=meta.link,
                            params=meta.params,
                            note=meta.note,
                            file_name=path.name,
                            client=client,
                            submitter=submitter,
                            gold_fingerprint=self.gold_fingerprint,
                        ),
                        report,
                        reservation=reservation,
                        content_key=key,
                    )
                except DuplicateSubmissionError as exc:  # stored meanwhile by a concurrent try
                    return self._earlier(exc.existing, digest, client), True
        finally:
            if entry is None:
                self.store.release(reservation)
        log.info("stored entry #%d (%d items)", entry.id, entry.n_items)
        return entry, False

    def _earlier(self, existing: Entry, digest: str, client: str) -> Entry:
        """A resend of predictions already stored: the entry when this client stored it (a
        retry after a lost reply), else the duplicate error naming the entry."""
        if self.store.stored_by(existing.id, client):
            return existing
        if existing.file_sha256 == digest:
            raise DuplicateSubmissionError(existing)
        raise DuplicateContentError(existing)

    def withdraw(self, entry_id: Any, username: str) -> SubmitOutcome:
        """Delete an entry on behalf of the logged-in Hugging Face user who submitted it.

        Audited with the user as actor; the removal from the Hub repo waits in the outbox and
        goes with the next batched push (as a submission does). Refusals start "Not withdrawn".
        """
        text = str(entry_id or "").strip().lstrip("#").strip()
        if not username:
            return _refused("log in with Hugging Face (button above) to withdraw your entries.")
        if not text.isdigit() or len(text) > 12:
            return _refused("give the number of your entry as the Entry column shows it, e.g. #12.")
        entry = self.store.get(int(text))
        # another user's entry reads like a missing one: no hint about who submitted what
        if entry is None or entry.submitter != username:
            return _refused(
                f"entry #{int(text)} is not one of your entries (logged in as {username}); "
                "you can withdraw only entries you submitted while logged in."
            )
        self.store.delete(entry.id)
        self.store.audit(f"hf:{username}", "withdraw", entry.id, entry.model)
        log.info("entry #%d withdrawn by its submitter", entry.id)
        return SubmitOutcome(
            True,
            f"Entry #{entry.id} ({entry.model}) was withdrawn: it is off the leaderboard, "
            "Compare and the CSV, and will be removed from the record.",
            _EMPTY_BREAKDOWN,
            entry,
        )

    # -- compare -----------------------------------------------------------------------

    def choices(self) -> list[tuple[str, str]]:
        """(label, value) pairs for the Compare picker; labels are plain text."""
        return list(self.cached("choices", self._choices))

    def _choices(self) -> list[tuple[str, str]]:
        out = [(f"{p.model} (reported in paper)", f"p:{p.key}") for p in PAPER_ROWS]
        out += [(f"#{e.id} {e.model}", f"e:{e.id}") for e in self._visible()]
        return out

    def _resolve(self, key: str) -> Entry | PaperRow | None:
        kind, _, ident = str(key).partition(":")
        if kind == "p":
            return next((p for p in PAPER_ROWS if p.key == ident), None)
        if kind == "e" and ident.isdigit():
            self._snapshot()
            return self._by_id.get(int(ident))
        return None

    def compare(self, keys: list[str] | None) -> CompareOutcome:
        """Charts for two or more entries; bootstrap and disagreements for two scored ones
        (computed once per database change and choice of entries)."""
        picked = tuple(self.canonical(k) for k in (keys or []))
        picked = tuple(k for k in picked if k is not None)
        return self.cached(("compare", picked), lambda: self._compare(list(picked)))

    def canonical(self, key: Any) -> str | None:
        """The picker key of the row `key` names ("e:12", "p:..."), None when none: caches
        are keyed on rows, not on whatever string a client sent."""
        row = self._resolve(str(key)) if key else None
        if row is None:
            return None
        return f"p:{row.key}" if row.kind == "paper" else f"e:{row.id}"

    def _compare(self, keys: list[str]) -> CompareOutcome:
        picked = [r for r in (self._resolve(k) for k in (keys or [])) if r is not None]
        empty_diff = compare.differences_frame([])
        empty_dis = pd.DataFrame(columns=compare.DISAGREEMENT_COLUMNS)
        if len(picked) < 2:
            msg = "Pick two or more entries to compare."
            err = figures.error_figure(msg)
            return CompareOutcome(msg, err, err, None, empty_diff, empty_dis)
        labels = [
            f"{r.model} (paper)" if r.kind == "paper" else f"#{r.id} {r.model}" for r in picked
        ]
        pairs = list(zip(labels, [r.report for r in picked], strict=True))
        by_content = figures.safe_figure(figures.grouped_bars, pairs, "by_content", what="chart")
        by_pair = figures.safe_figure(figures.grouped_bars, pairs, "by_language_pair", what="chart")
        scored = [r for r in picked if r.kind == "scored"]
        if len(picked) != 2 or len(scored) != 2:
            msg = (
                f"Comparing {len(picked)} entries. The paired bootstrap and the disagreement "
                "table need exactly two scored submissions (paper rows have no per-item scores)."
            )
            return CompareOutcome(msg, by_content, by_pair, None, empty_diff, empty_dis)
        a, b = scored
        a_items = self.store.item_scores(a.id, public_only=False)
        b_items = self.store.item_scores(b.id, public_only=False)
        diffs = compare.paired(a_items, b_items, Bootstrap(resamples=self.config.bootstrap))
        diffs = privacy.suppress_differences(diffs, a_items, b_items, self.limits.min_private_items)
        diff_fig = figures.safe_figure(
            figures.difference_figure, diffs, labels[0], labels[1], what="difference chart"
        )
        dis = compare.disagreements(
            self.store.item_scores(a.id, public_only=True),
            self.store.item_scores(b.id, public_only=True),
            self.gold,
        )
        n = diffs[0].n if diffs else 0
        msg = (
            f"A = {labels[0]}; B = {labels[1]}. Paired bootstrap over the {n} scored items both "
            f"were scored on; {len(dis)} public items where they disagree are listed below."
        )
        return CompareOutcome(
            msg, by_content, by_pair, diff_fig, compare.differences_frame(diffs), dis
        )
