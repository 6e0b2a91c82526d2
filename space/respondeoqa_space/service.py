"""What the Space does, without any UI: the composition of gold, store, record, intake and
read model, and the user-facing workflows (submit, withdraw, compare, entry detail) with their
plain-words messages. `web/app.py` wires these methods to Gradio components.

Constructing a `Space` loads the gold and opens the store, nothing more: the record's sync
thread and the scoring warm-up start with `start()` (called by `web.app.launch`).
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
import traceback
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from respondeoqa_eval import InputError, jsonl
from respondeoqa_eval.analysis import COLUMNS as ITEM_COLUMNS
from respondeoqa_eval.analysis import ItemAnalysis
from respondeoqa_eval.data import DIMENSIONS, PRIVATE_SOURCES, GoldSet, load_gold
from respondeoqa_eval.predictions import OpaqueIdsError, Predictions, load_predictions
from respondeoqa_eval.report import SMALL_GROUP, SMALL_MARK, Report, percent_text
from respondeoqa_eval.scoring import Bootstrap

from . import privacy
from .analyst import Analysed, Analyst, BoardAnalysis, Postponed, analyse_entries, apart
from .config import ENV_GOLD_REPO, ENV_GOLD_TOKEN, ENV_SPACE_ID, HUB_URL, SpaceConfig
from .details import DetailsPlan, details_repo, sync_store
from .metadata import clean_metadata, clean_model_info, suggested_fields
from .readmodel import ReadModel, Snapshot
from .requests.desk import RequestDesk
from .requests.ledger import RequestLedger
from .rows import coverage_label, is_scored, key_of, parse_entry_id, short_label
from .store import Entry, Store
from .store.database import disk_problem
from .store.hub import HubRepo, HubUnavailable, refused_access
from .store.models import NewEntry
from .store.sync import DIVERGED, OFF, RecordStatus, StoredElsewhere, Syncer, WriteRefused
from .submission import Intake, NeedsConfirmation, uploaded_files
from .views import compare, figures
from .views import items as item_views
from .views.columns import percent
from .views.detail import EntryDetail, compare_shape, coverage_warning, entry_detail
from .views.entry import breakdown_frame
from .views.frames import ALL_COVERAGES, to_csv
from .views.legend import legend_html
from .without import Excluded, Rescored, Variant, Variants, label_html, rescore_entries, wanted

log = logging.getLogger(__name__)


def answer_counts(report: Report) -> str:
    """How many items have no answer, counted as the board counts them: the accuracy items
    (the board's No ans. column, of the same n as the accuracy) and the translations apart."""
    fc = report.format_compliance
    if fc is None or not fc.overall.n:  # a record from before the format counts
        return (
            f"{report.missing} covered items had no prediction, {report.unanswered} (with "
            "the translations) had no extractable answer."
        )
    acc = fc.overall
    text = (
        f"Of those {acc.n}, {acc.n - acc.answered} ({percent_text(1 - acc.answered / acc.n)}, "
        f"the board's No ans.) have no answer: {acc.missing} no prediction, {acc.unanswered} "
        "none the paper's rules could extract."
        if acc.answered < acc.n
        else f"All {acc.n} have an answer the paper's rules could extract."
    )
    tr = fc.by_task.get("translation")
    if tr is not None and tr.n:
        text += (
            f" Of the {tr.n} translations (scored by BLEU), {tr.missing} have no prediction "
            f"and {tr.unanswered} no extractable answer."
        )
    return text


@dataclass
class SubmitOutcome:
    """What the submitter sees: a plain-text message and, when stored, the breakdown."""

    ok: bool
    message: str
    breakdown: pd.DataFrame
    entry: Entry | None = None
    needs_confirmation: bool = False  # most answers unreadable: stored only if confirmed


@dataclass
class ItemsOutcome:
    message: str  # what the table shows
    table: pd.DataFrame
    difficulty: go.Figure
    terms: str = ""  # what its columns and flags mean
    fresh: bool = True  # of the current data version (else a newer one is being made)


@dataclass
class CompareOutcome:
    message: str
    by_content: go.Figure
    by_pair: go.Figure
    difference: go.Figure | None
    differences: pd.DataFrame
    disagreements: pd.DataFrame
    warning: str = ""
    drawn: bool = False  # the charts
    paired: bool = False  # the paired difference and the disagreements
    format_gaps: pd.DataFrame = field(default_factory=lambda: compare.format_gap_frame([]))
    keys: tuple[str, ...] = ()  # the paired entries' keys (the disagreements' answers links)
    without: str = ""  # the switch's label, HTML escaped ("" when it is off)


def without_label(variant: Variant | None, making: bool) -> str:
    """The switch's label as HTML (`without.label_html`): "" when it is off."""
    if variant is not None:
        return str(label_html(variant.excluded, variant.unscored))
    return str(label_html(Excluded(()), being_made=True)) if making else ""


ANALYSIS_SETTLE = 5.0
"""Seconds after a write before its item analysis starts (the pages it changed are built
first; writes in a burst make one analysis)."""
DETAILS_SETTLE = 60.0
"""Seconds after a write before the details dataset is synced (writes in a burst: one sync)."""
DETAILS_RETRY = 600.0
"""Seconds before a details sync that could not be made (the record not read yet, a Hub fault)
is tried again."""
ANALYSIS_WAIT = 30.0
"""Seconds a download or the answers page's flagged walk waits for the current item analysis
(then the last one made)."""
EMPTY_BREAKDOWN = pd.DataFrame(columns=["Group", "Key", "Metric", "Score", "95% CI", "Items"])
SUBMIT_REFUSED = "Not accepted"  # how every refused submission's message starts
STORED_AS = re.compile(r"(?:Already stored|Stored) as entry #(\d+)\b")
"""How the message of a stored submission starts (`Space.submit`), with its entry's number."""


YOUR_ENTRY = re.compile(r"\balready your entry #(\d+)\b")
"""How a refusal names the submitter's own entry that holds the same predictions
(`Intake._earlier`: sent again under another name)."""


def stored_entry(message: str | None) -> int | None:
    """The entry a submission's message says it is stored as (None when it was not): the
    Submit page links to it."""
    found = STORED_AS.match(message or "")
    return int(found.group(1)) if found else None


def own_entry(message: str | None) -> int | None:
    """The submitter's own entry a refusal names (None when it names none): the Submit page
    links to it too."""
    found = YOUR_ENTRY.search(message or "")
    return int(found.group(1)) if found else None


NOT_STORED = "Not stored"  # accepted and scored, but it could not be stored
WITHDRAW_REFUSED = "Not withdrawn"  # how every refused withdrawal's message starts


def _refused(prefix: str, reason: str) -> SubmitOutcome:
    return SubmitOutcome(False, f"{prefix}: {reason}", EMPTY_BREAKDOWN)


def _without_folders(message: str, paths: list[Path]) -> str:
    """A message without the server folders of the uploaded files (only their names stay)."""
    for folder in {str(p.parent) for p in paths}:
        message = message.replace(folder + "/", "").replace(folder, "")
    return message


class GoldAccessError(InputError):
    """The gold repo's token cannot read it (a mis-scoped token: the operator's fault)."""


def _gold_of(config: SpaceConfig) -> GoldSet:
    """The Space's gold: given, or the public files plus the operator's private ones (a local
    folder, or the private gold repo downloaded into a folder no route serves)."""
    if config.gold is not None:
        return config.gold
    data_dir = config.data_dir
    if data_dir is None and config.gold_repo:
        data_dir = Path(tempfile.mkdtemp(prefix="respondeoqa-gold-"))
        token = config.gold_token or config.hub_token
        repo = HubRepo(config.gold_repo, token=token, endpoint=config.hub_endpoint)
        try:
            fetched = repo.download_folder(data_dir, ["*.json", "*.jsonl"])
        except HubUnavailable as exc:
            status = refused_access(exc)
            if status is not None:  # the token's scope: the operator's to fix
                which = ENV_GOLD_TOKEN if config.gold_token else "HF_TOKEN"
                raise GoldAccessError(
                    f"${which} has no read access to the gold repo {config.gold_repo} (the Hub "
                    f"answered HTTP {status})"
                ) from None
            raise InputError(f"${ENV_GOLD_REPO}: cannot download the gold ({exc})") from None
        log.info("private gold: %d files from %r", len(fetched), repo)
    return load_gold(data_dir, with_public=True)


class Space:
    """The leaderboard's state and workflows (see the module docstring)."""

    def __init__(self, config: SpaceConfig) -> None:
        self.config = config
        self.limits = config.limits
        self.gold = _gold_of(config)
        self.gold_fingerprint = self.gold.fingerprint()
        self.store = Store(config.db)
        self.intake = Intake(
            self.store,
            self.gold,
            limits=self.limits,
            bootstrap=config.bootstrap,
            min_coverage=config.min_coverage,
        )
        self.syncer: Syncer | None = None
        if config.mirror_repo:
            repo = HubRepo(config.mirror_repo, token=config.hub_token, endpoint=config.hub_endpoint)
            self.syncer = Syncer(
                self.store,
                repo,
                verify=self.intake.verify,
                limits=self.limits,
                push_interval=config.sync_interval,
                pull_interval=config.pull_interval,
                commit_window=config.commit_window,
            )
        # evaluation requests live in the record too (requests/), read at every pull
        self.requests: RequestDesk | None = None
        if self.syncer is not None:
            self.requests = RequestDesk(
                RequestLedger(self.syncer.repo),
                self.limits,
                closed=self._closed,
                hub_token=config.hub_token,
                hub_endpoint=config.hub_endpoint,
            )
            self.syncer.readers.append(self.requests.read)
        self._public_by_files: dict[tuple[tuple[str, ...], frozenset[str]], Counter] = {}
        self.nesting = privacy.nesting(self.gold.records)
        self.reads = ReadModel(
            self.store,
            shown=self._shown,
            is_stale=self.is_stale,
            status=lambda: self.record_status().message(),
            legend=lambda view: legend_html(view, self.limits.min_private_items),
            cache_bytes=self.limits.compare_cache_mb * 1024 * 1024,
        )
        # the item analysis takes tens of seconds: made in the background, served as last made
        self.analyst: Analyst[BoardAnalysis] = Analyst(
            self._analyse, self.store.data_version, settle=ANALYSIS_SETTLE
        )
        # every shown number without the suspected gold errors: made in the background too
        self.without = Variants(self, self._rescore_without)
        log.info(
            "gold: %d items from %d files (private sources: %s); db: %s",
            len(self.gold),
            len(self.gold.files),
            self.gold.has_private,
            config.db,
        )
        # the public details dataset, synced after writes (DETAILS_SETTLE) when one is named
        self.details_repo = details_repo(config) if config.details_repo else None
        self.details_sync: Analyst[DetailsPlan] = Analyst(
            self._sync_details,
            self.store.data_version,
            settle=DETAILS_SETTLE,
            what="details dataset sync",
            retry=DETAILS_RETRY,
        )
        if self.gold.has_private:
            log.info(
                "what probing can learn: at most %.1f bits about private answers per stored "
                "entry and set of flagged items (%.1f of the paper's numbers alone; k = %d; "
                "docs/leaderboard-safety.md)",
                self.release_bound,
                privacy.release_bits(self.gold.records, self.limits.min_private_items),
                self.limits.min_private_items,
            )

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def syncer(self) -> Syncer | None:
        """The record's sync (None: no record, the SQLite commit is the acknowledgement)."""
        return self._syncer

    @syncer.setter
    def syncer(self, value: Syncer | None) -> None:
        # "Stored" means in the record: a new entry is committed there before it is kept
        self._syncer = value
        keep = self.intake._keep_here if value is None else value.land_entries
        self.intake.keep = self._acknowledged(keep)

    def _acknowledged(self, keep: Callable[[NewEntry], Entry]) -> Callable[[NewEntry], Entry]:
        """`keep`, then the main page's board built again: a new entry is told stored only
        once every reader after that is served a board that holds it."""

        def kept(new: NewEntry) -> Entry:
            entry = keep(new)
            self._written()
            return entry

        return kept

    def _written(self) -> None:
        """A write made here is about to be acknowledged: the main page shows it first, and
        no board older than it is served after (ReadModel.written; a failure there only
        leaves the building to the readers)."""
        reads = getattr(self, "reads", None)
        if reads is None:  # still being made (a write before the read model exists)
            return
        try:
            reads.written()
        except Exception:
            log.exception("the boards were not built again after a write")

    @property
    def clock(self) -> Callable[[], float]:
        """The quota clock (tests set their own)."""
        return self.intake.clock

    @clock.setter
    def clock(self, value: Callable[[], float]) -> None:
        self.intake.clock = value

    def start(self) -> None:
        """Start the record's sync (read, then push and pull) and warm the scoring caches."""
        if self.syncer is not None:
            try:
                self.syncer.repo.create(private=True)
            except HubUnavailable as exc:  # the sync loop keeps trying to read
                log.warning("cannot create the record repo (%s)", exc)
            self.syncer.start()
        # what every submission reuses (each item's prepared references, the bootstrap's
        # resample matrices) is made now, in the background, not by the first submitter
        threading.Thread(target=self._warm_up, name="scoring-warm-up", daemon=True).start()

    def analyse_after_writes(self) -> None:
        """From now on a new data version (a write here or elsewhere, once read) asks for a new
        item analysis in the background; and one now (the server, once its boards are built)."""
        self.reads.listeners.append(lambda snap: self.analyst.request())
        self.analyst.request()

    def publish_details_after_writes(self) -> None:
        """With a details dataset (`RESPONDEOQA_SPACE_DETAILS`): from now on a new data
        version syncs it in the background (details.py: only what changed goes up), and one
        sync now."""
        if self.details_repo is None:
            return
        self.reads.listeners.append(lambda snap: self.details_sync.request())
        self.details_sync.request()

    def _sync_details(self) -> tuple[int, DetailsPlan]:
        """One sync of the details dataset with the shown entries. Never before the record is
        read (an empty copy would delete every entry's config) or while it is diverged."""
        assert self.details_repo is not None
        version = self.store.data_version()  # before the entries: a write meanwhile syncs again
        status = self.record_status()
        if self.syncer is not None and (not self.syncer.ready or not status.writable):
            raise Postponed(f"the record is {status.state}")
        space_id = os.environ.get(ENV_SPACE_ID, "").strip()
        hub = (self.config.hub_endpoint or HUB_URL).rstrip("/")
        board = f"{hub}/spaces/{space_id}" if space_id else ""
        try:
            plan = sync_store(self.details_repo, self.store, self.gold, board_url=board)
        except HubUnavailable as exc:
            raise Postponed(str(exc)) from None
        log.info("details %s: %s", self.details_repo.repo_id, plan.summary())
        return version, plan

    def _warm_up(self) -> None:
        """Score "no predictions" on every gold item, for the caches only (result dropped)."""
        from respondeoqa_eval import evaluate  # the evaluator's public API

        try:
            evaluate(Predictions(origin="warm-up"), self.gold, bootstrap=self.config.bootstrap)
        except Exception as exc:  # only the first submission is slower
            log.warning("scoring warm-up failed (%s)", type(exc).__name__)

    def read_record(self) -> None:
        """Read the record now, in the caller's thread (operator tools, tests)."""
        if self.syncer is not None:
            self.syncer.read()

    def close(self) -> None:
        """Stop the record's sync and push what is waiting (shutdown)."""
        if self.syncer is not None:
            self.syncer.stop()

    def resolve_record(self, choice: str) -> tuple[bool, str]:
        """The operator's answer when the record diverged: "repush" commits every entry this
        Space holds into the record as it is now; "accept" takes the record as it is (entries
        it lacks leave the board). (done, one line saying what happened)."""
        if self.syncer is None:
            return False, "this Space keeps no record"
        try:
            if choice == "repush":
                n = self.syncer.repush()
                return True, f"re-pushed: {n} entry files committed into the record"
            if choice == "accept":
                result = self.syncer.accept_record()
                return True, f"accepted the record: {result.removed} entries removed here"
        except HubUnavailable as exc:
            return False, f"not done: {exc}"
        return False, f"unknown choice {choice[:20]!r} (repush or accept)"

    def record_status(self) -> RecordStatus:
        return RecordStatus(OFF) if self.syncer is None else self.syncer.status

    # -- reads -----------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        return self.reads.snapshot()

    @cached_property
    def release_bound(self) -> float:
        """The most a stored entry's released values can say about this gold's private
        answers, in bits, whatever its coverage: the paper's numbers and, for one set of
        flagged items, the switch's without them, which leaves out flagged private items too
        (privacy.release_bits, `switched`)."""
        return privacy.release_bits(self.gold.records, self.limits.min_private_items, switched=True)

    def _shown(self, entry: Entry, without: frozenset[str] = frozenset()) -> Entry:
        """The entry as every view shows it: values resting on private items released as
        privacy.release says (stepped, hidden or coarsened), from the public records of the
        files it covers (less the public items `without` names, when its report was computed
        without them); values on public items only are exact."""
        if not any(s in PRIVATE_SOURCES for s in entry.sources):
            return entry
        files = tuple(sorted(entry.report.gold.files))
        key = (files or tuple(sorted(entry.sources)), without)
        public = self._public_by_files.get(key)
        if public is None:
            public = privacy.public_cell_counts(
                r
                for r in self.gold.records
                if not r.is_private
                and r.id not in without
                and (r.file in files if files else r.source in entry.sources)
            )
            self._public_by_files[key] = public
        k = self.limits.min_private_items
        released = privacy.release(entry.report, public, entry.private_points, k, self.nesting)
        return replace(entry, report=released)

    def is_stale(self, entry: Entry) -> bool:
        """Scored by another evaluator version, or against other gold than this Space's (a
        corrected gold file): marked on the board until `respondeoqa-space admin rescore`. An entry stored
        before fingerprints were kept (none recorded) counts by its version only."""
        other_gold = (
            bool(entry.gold_fingerprint) and entry.gold_fingerprint != self.gold_fingerprint
        )
        return entry.stale or other_gold

    def table(self, view: str = "Overview", coverage: str = ALL_COVERAGES) -> pd.DataFrame:
        """A copy of the leaderboard frame of a view (the kept one is shared by every read);
        every coverage unless one is named."""
        snap = self.snapshot()
        return snap.frame(view, snap.coverage_of(coverage)).copy()

    def detail(self, key: object, variant: Variant | None = None) -> EntryDetail | None:
        """The detail of the shown row `key` names (None when there is none: unknown, hidden,
        withdrawn); of `variant`'s board (its numbers without the excluded items, and its
        per-item results without them) when given."""
        snap = self.snapshot() if variant is None else variant.snapshot
        row = snap.resolve(key)
        if row is None:
            return None
        stale = is_scored(row) and row.id in snap.stale
        gone = frozenset() if variant is None else variant.excluded.ids

        def build() -> EntryDetail:
            items = None
            if is_scored(row):
                kept = self.store.item_scores(row.id)
                items = {i: it for i, it in kept.items() if i not in gone}
            return entry_detail(row, items, stale=stale)

        digest = "" if variant is None else variant.excluded.digest
        return self.reads.cached(snap, ("detail", key, digest), build)

    @cached_property
    def _example(self) -> bytes:
        from respondeoqa_eval.predictions import example_predictions

        public = [r for r in self.gold.records if not r.is_private]
        return jsonl.encode(example_predictions(public, accuracy=0.6, seed=0)).encode("utf-8")

    def example_jsonl(self) -> bytes:
        """An example submission on the public items (synthetic responses, about 60% right)."""
        return self._example

    def size_figure(self) -> go.Figure:
        """Overall accuracy against parameter count, every shown row that states its size."""
        snap = self.snapshot()

        def build() -> go.Figure:
            points, without = [], 0
            for row in snap.rows:
                info = getattr(row, "info", None)
                accuracy = percent(row.report.accuracy.overall)
                if accuracy is None:
                    continue
                if info is None or info.params_b is None:
                    without += 1
                    continue
                points.append(
                    figures.SizePoint(
                        row.model,
                        info.params_b,
                        accuracy,
                        coverage_label(row.sources),
                        not is_scored(row),
                    )
                )
            return figures.safe_figure(figures.size_scatter, points, without, what="size chart")

        return self.reads.cached(snap, "size", build)

    def _analyse(self) -> tuple[int, BoardAnalysis]:
        """The item analysis of the entries on the board's first page of each coverage (the
        best BOARD_MAX_ROWS of each: what the board shows before anyone pages or searches):
        over their public items (the Items page's; private items only counted), and the
        private items the analysis of every item flags (`analyse_entries`), made in a process
        of its own (`analyst.apart`). (The data version it is of, it.)"""
        snap = self.snapshot()
        shown = snap.first_keys()
        ids = [entry.id for entry in snap.entries if key_of(entry) in shown]
        analysis, peak = apart(analyse_entries, str(self.store.path), ids, self.gold)
        log.info("item analysis of %d entries: %.0f MB at its peak", len(ids), peak)
        return snap.version[0], analysis

    def _rescore_without(
        self, ids: Sequence[int], excluded: Excluded
    ) -> dict[int, Rescored | None]:
        """The stored entries `ids` that hold an excluded item, their reports and private
        points computed without them (`without.rescore_entries`, in a process of its own:
        `analyst.apart`)."""
        gone = sorted(excluded.ids)
        reports, peak = apart(rescore_entries, str(self.store.path), list(ids), gone, self.gold)
        log.info("%d entries scored again without items: %.0f MB at its peak", len(ids), peak)
        return reports

    def variant(self, without: object) -> tuple[Snapshot, Variant | None, bool]:
        """The snapshot a read with the switch `without` (a client's value) is served from:
        the paper's (switch off, or its variant still being made: the bool says so) or the
        current variant's; and the variant (None when off or being made)."""
        if not wanted(without):
            return self.snapshot(), None, False
        found = self.without.current()
        if found is None:
            return self.snapshot(), None, True
        return found.snapshot, found, False

    def item_analysis(self, wait: bool | float = True) -> ItemAnalysis:
        """The item analysis of the board's entries (`_analyse`): of the current data version,
        waited for (a number: that many seconds at most, then the last one made); not `wait`,
        the last one made (none yet: an empty one), never waiting (a page: `items_view`)."""
        found = self._analysed(wait)
        return found.value.public if found is not None else ItemAnalysis(items=(), entries=())

    def _analysed(self, wait: bool | float) -> Analysed[BoardAnalysis] | None:
        """`wait` True: the current version's analysis (an error when it cannot be made); a
        number: it, waited for that many seconds at most, else the last one; False: the last
        one, and the current one asked for in the background."""
        if wait is True:
            found = self.analyst.current()
            if found is None:
                raise RuntimeError("the item analysis could not be made (see the log)")
            return found
        if wait is False:
            self.analyst.request()
            return self.analyst.latest()
        return self.analyst.current(timeout=float(wait))

    def items_view(
        self,
        picks: Sequence[object] = (),
        flagged_only: object = False,
        chart: object = None,
        wait: bool = True,
    ) -> ItemsOutcome:
        """The Items view: the public items the filters keep (`picks`, one per
        `item_views.FILTERS`: a group key or ANY), hardest first, and the difficulty chart
        by `chart` (a key of `item_views.CHART_DIMENSIONS`, else content). Not `wait` (the
        page): the last analysis made, with its age, never waiting for one."""
        found = self._analysed(wait)
        analysis = found.value.public if found is not None else ItemAnalysis(items=(), entries=())
        picked = [str(p or item_views.ANY) for p in picks]
        kept = item_views.select(analysis, picked, bool(flagged_only))
        key = chart if chart in item_views.CHART_DIMENSIONS else item_views.CHART_DIMENSIONS[0]
        figure = figures.safe_figure(
            figures.difficulty_figure,
            item_views.difficulty_by(kept, key),
            DIMENSIONS[key].name,
            what="difficulty chart",
        )
        fresh = found is not None and found.version == self.store.data_version()
        message, terms = item_views.BEING_MADE, ""
        if found is not None:
            message, terms = item_views.summary(analysis, len(kept))
            if not wait:
                message += " " + item_views.age_text(found.age(), fresh)
        table = item_views.item_table(kept)
        return ItemsOutcome(message, table, figure, terms=terms, fresh=fresh)

    def item_analysis_csv(self) -> tuple[str, bytes]:
        """(file name, bytes) of the current data version's item analysis of the public items,
        every column of `respondeoqa-eval items` (docs/item-analysis.md)."""
        found = self.item_analysis_download(True)
        assert found is not None  # waited for: made, or an error raised
        return found[:2]

    def item_analysis_download(
        self, wait: bool | float
    ) -> tuple[str, bytes, Analysed[BoardAnalysis]] | None:
        """`item_analysis_csv` and the analysis it is of, waited for `wait` seconds at most
        (True: as long as it takes), else the last one made; None when none is made yet."""
        found = self._analysed(wait)
        if found is None:
            return None

        def build() -> bytes:
            rows = found.value.public.rows()  # public items only
            return to_csv(pd.DataFrame(rows, columns=list(ITEM_COLUMNS))).encode("utf-8")

        data = found.memo.get("csv") or found.memo.setdefault("csv", build())
        return "respondeoqa-item-analysis-public.csv", data, found

    def items_csv(self, key: object) -> tuple[str, bytes] | None:
        """(file name, bytes) of a shown entry's public per-item results, decided at request
        time: a hidden or withdrawn entry's download is refused (None)."""
        found = self.detail(key)
        if found is None or found.items_csv is None:
            return None
        entry_id = self.snapshot().resolve(key).id  # type: ignore[union-attr]  # detail(key) found it: it resolves
        return f"respondeoqa-entry-{entry_id}-public-items.csv", found.items_csv

    # -- writes ----------------------------------------------------------------------------

    def _closed(self) -> str | None:
        """Why writes are refused now (the record is not read yet, or not the one this Space
        read), or None."""
        status = self.record_status()
        if status.writable:
            return None
        if status.state == DIVERGED:
            return (
                "the leaderboard's record on the Hub is not the one this Space read, and the "
                "operator has been asked what to keep; nothing was stored or counted."
            )
        return (
            "the leaderboard is still reading its record from the Hub"
            if status.state == "reading"
            else "the leaderboard's record on the Hub cannot be read right now"
        ) + "; nothing was stored or counted, please try again in a few minutes."

    def submit(
        self,
        files: str | Path | list[Any] | None,
        model: Any,
        link: Any = "",
        params: Any = "",
        note: Any = "",
        client: str = "",
        submitter: str = "",
        *,
        weights: Any = "",
        reasoning: Any = None,
        hub_model: Any = "",
        confirmed: bool = True,
    ) -> SubmitOutcome:
        """Validate, score, store; every failure becomes a plain-words message.

        `files`: one predictions file, or several that make one submission (a harness run's
        logs, a .zip of them). `client` is the quota key (hashed address, or "hf:<user>" when
        logged in); `submitter` the Hugging Face username shown on the entry ("" when not
        logged in). Not `confirmed`: mostly unreadable answers are not stored (the outcome
        says so and asks for a confirmation).
        """
        paths = [Path(f) for f in (files if isinstance(files, list) else [files]) if f]
        try:
            closed = self._closed()
            if closed:
                raise InputError(closed)
            if self.config.oauth and not submitter:
                raise InputError("please log in with Hugging Face (button above) to submit")
            if not paths:
                raise InputError(
                    "no file: upload a predictions file (.jsonl, .csv, .json, a harness log: "
                    "lm-eval samples .jsonl, lighteval details .parquet, or a .zip of them)"
                )
            for path in paths:
                if path.name.startswith("."):
                    raise InputError(
                        f"{path.name}: file names beginning with a dot are not accepted; "
                        "rename the file, e.g. predictions.jsonl"
                    )
            meta = clean_metadata(model, link, params, note, self.limits)
            info = clean_model_info(params, weights, reasoning, hub_model)
            accepted = self.intake.submit(
                paths,
                meta,
                client=client,
                submitter=submitter,
                info=info,
                confirmed=confirmed,
            )
        except NeedsConfirmation as exc:
            text = _without_folders(str(exc), paths)
            return SubmitOutcome(
                False, f"{SUBMIT_REFUSED}: {text}", EMPTY_BREAKDOWN, needs_confirmation=True
            )
        except InputError as exc:
            return _refused(SUBMIT_REFUSED, _without_folders(str(exc), paths))
        except WriteRefused as exc:
            return _refused(
                NOT_STORED,
                f"the leaderboard's record on the Hub cannot be written ({exc.reason}), so "
                "nothing was stored; please try again later.",
            )
        except StoredElsewhere as exc:
            return SubmitOutcome(
                True,
                f"Stored as entry #{exc.entry_id} in the leaderboard's record; "
                f"{disk_problem(exc.cause) or 'this Space could not keep a copy'} here, so the "
                "board shows it once the Space reads its record again.",
                EMPTY_BREAKDOWN,
            )
        except Exception as exc:  # never show a traceback (or anything it may quote)
            disk = disk_problem(exc)
            if disk is not None:
                log.error("submission not stored: %s (%s)", disk, type(exc).__name__)
                return _refused(NOT_STORED, disk[0].upper() + disk[1:] + ".")
            # where it failed, but not the message: it could quote a private gold string
            frames = traceback.extract_tb(exc.__traceback__)[-4:]
            where = " <- ".join(
                f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames)
            )
            log.error("submission failed with %s at %s", type(exc).__name__, where)
            return _refused(
                SUBMIT_REFUSED,
                "the file could not be scored because of an internal error; please report it "
                "to the Space's maintainers.",
            )
        entry = self._shown(accepted.entry)
        if not accepted.earlier:
            log.info("stored entry #%d (%d items)", entry.id, entry.n_items)
        report = entry.report
        overall = report.accuracy.overall
        message = (
            f"Already stored as entry #{entry.id} ({entry.model}): an earlier try of yours "
            "stored these predictions; they were not stored again. "
            if accepted.earlier
            else f"Stored as entry #{entry.id}: {entry.model}. "
        ) + (
            f"Overall accuracy {percent_text(overall.score)} on the {overall.n} non-translation "
            f"items of its coverage, {coverage_label(entry.sources)}. {answer_counts(report)}"
        )
        if privacy.withheld_cells(report) or report.has_private:
            message += " " + privacy.note(self.limits.min_private_items)
        return SubmitOutcome(True, message, breakdown_frame(report), entry)

    def suggest(self, files: Any) -> dict[str, str]:
        """Form fields an uploaded file's own record of its run suggests (model name, Hub id,
        size, a note), or {} when it records nothing or cannot be read (the submission says
        why)."""
        paths = [Path(f) for f in (files if isinstance(files, list) else [files]) if f]
        if not paths:
            return {}
        try:
            with uploaded_files(paths, self.limits.max_file_bytes) as (found, _, _):
                provenance = load_predictions(
                    found, self.gold, opaque=self.intake.opaque
                ).provenance
        except OpaqueIdsError as exc:  # the same suggestion whether private ids are valid
            provenance = exc.provenance
        except InputError:
            return {}
        return suggested_fields(provenance)

    def withdraw(self, entry_id: Any, username: str) -> SubmitOutcome:
        """Delete an entry on behalf of the logged-in Hugging Face user who submitted it.

        Audited with the user as actor. With a record, the entry is removed from the record
        first (one commit), then from this copy: the withdrawal is told done only when the
        record no longer holds the entry; when the record cannot be written, nothing changes
        and the answer says so.
        """
        if not username:
            return _refused(
                WITHDRAW_REFUSED,
                "log in with Hugging Face (button above) to withdraw your entries.",
            )
        closed = self._closed()
        if closed:
            return _refused(WITHDRAW_REFUSED, closed)
        number = parse_entry_id(entry_id)
        if number is None:
            return _refused(
                WITHDRAW_REFUSED,
                "give the number of your entry as the Entry column shows it, e.g. #12.",
            )
        entry = self.store.get(number)
        # another user's entry reads like a missing one: no hint about who submitted what
        if entry is None or entry.submitter != username:
            return _refused(
                WITHDRAW_REFUSED,
                f"entry #{number} is not one of your entries (logged in as {username}); "
                "you can withdraw only entries you submitted while logged in.",
            )
        done = f"Entry #{entry.id} ({entry.model}) was withdrawn: it is off the leaderboard, Compare and the CSV"
        try:
            if self.syncer is None:
                self.store.delete(entry.id)
            else:  # out of the record first: a withdrawal is told done only once it is
                self.syncer.withdraw(entry)
                done += ", and removed from the record"
            self.store.audit(f"hf:{username}", "withdraw", entry.id, entry.model)
            self._written()
        except WriteRefused as exc:
            return _refused(
                WITHDRAW_REFUSED,
                f"the leaderboard's record on the Hub cannot be written ({exc.reason}); "
                f"entry #{entry.id} stays as it is, please try again later.",
            )
        except Exception as exc:
            disk = disk_problem(exc)
            if disk is None:
                raise
            return _refused(WITHDRAW_REFUSED, disk.replace("nothing was stored", "nothing changed"))
        log.info("entry #%d withdrawn by its submitter", entry.id)
        return SubmitOutcome(True, f"{done}.", EMPTY_BREAKDOWN, entry)

    # -- compare -----------------------------------------------------------------------

    def compare(self, keys: list[str] | None, without: object = None) -> CompareOutcome:
        """Charts for two or more entries; bootstrap and disagreements for two scored ones.
        Picks are de-duplicated and capped before any work; results are kept in the read
        model's byte-bounded cache. `without` (`?without=flagged`): every number without the
        suspected gold errors (`variant`)."""
        snap, variant, making = self.variant(without)
        limit = self.limits.compare_max_entries
        picked = snap.canonical(keys or [], limit)
        if picked is None:
            return self._compare_message(f"Pick at most {limit} different entries to compare.")
        digest = "" if variant is None else variant.excluded.digest
        out = self.reads.cached(
            snap, ("compare", picked, digest), lambda: self._compare(snap, picked, variant)
        )
        label = without_label(variant, making)
        return replace(out, without=label) if label else out

    @staticmethod
    def _compare_message(message: str) -> CompareOutcome:
        err = figures.error_figure(message)
        empty_dis = pd.DataFrame(columns=compare.DISAGREEMENT_COLUMNS)
        return CompareOutcome(message, err, err, None, compare.differences_frame([]), empty_dis)

    def _compare(
        self, snap: Snapshot, keys: tuple[str, ...], variant: Variant | None = None
    ) -> CompareOutcome:
        picked = [snap.resolve(k) for k in keys]
        rows = [r for r in picked if r is not None]
        if len(rows) < 2:
            return self._compare_message("Pick two or more entries to compare.")
        labels = [short_label(r) for r in rows]
        series = [
            figures.Series(label, r.report, r.id if is_scored(r) else None)
            for label, r in zip(labels, rows, strict=True)
        ]
        by_content = figures.safe_figure(figures.grouped_bars, series, "by_content", what="chart")
        by_pair = figures.safe_figure(
            figures.grouped_bars, series, "by_language_pair", what="chart"
        )
        drawn, paired = compare_shape(rows)
        warning = coverage_warning(rows)
        gaps = compare.format_gap_frame(
            [(lb, r.report) for lb, r in zip(labels, rows, strict=True)]
        )
        empty_diff = compare.differences_frame([])
        empty_dis = pd.DataFrame(columns=compare.DISAGREEMENT_COLUMNS)
        if not paired:
            msg = (
                f"Comparing {len(rows)} entries. The paired bootstrap and the disagreement "
                "table need exactly two scored submissions (paper rows have no per-item scores)."
            )
            return CompareOutcome(
                msg, by_content, by_pair, None, empty_diff, empty_dis, warning, drawn, paired, gaps
            )
        a, b = rows
        # public items only: a paired statistic over private items would release what the
        # entries' own (stepped) values do not (privacy.py)
        # the rows compared are stored entries (compare picks no paper row)
        a_items = self.store.item_scores(a.id)  # type: ignore[attr-defined]  # (see above)
        b_items = self.store.item_scores(b.id)  # type: ignore[attr-defined]  # (see above)
        if variant is not None:  # the variant's items only
            gone = variant.excluded.ids
            a_items = {i: it for i, it in a_items.items() if i not in gone}
            b_items = {i: it for i, it in b_items.items() if i not in gone}
        diffs = compare.paired(a_items, b_items, Bootstrap(resamples=self.config.bootstrap))
        diff_fig = figures.safe_figure(
            figures.difference_figure, diffs, labels[0], labels[1], what="difference chart"
        )
        dis = compare.disagreements(a_items, b_items, self.gold)
        n = diffs[0].n if diffs else 0
        tested = sum(1 for d in diffs if d.ci is not None)
        msg = (
            f"A = {labels[0]}; B = {labels[1]}. Paired bootstrap over the {n} public scored "
            "items both were scored on (Certamen and NLE items never enter a comparison); "
            f"{len(dis)} public items where they disagree are listed below. "
            f"{tested} differences are tested at once: even with no real difference, about one "
            'in 20 of their 95% intervals excludes 0 by chance, so read a lone "yes" with '
            f"care; groups of fewer than {SMALL_GROUP} items are marked {SMALL_MARK}."
        )
        return CompareOutcome(
            msg,
            by_content,
            by_pair,
            diff_fig,
            compare.differences_frame(diffs),
            dis,
            warning,
            drawn,
            paired,
            gaps,
            (key_of(a), key_of(b)),
        )
