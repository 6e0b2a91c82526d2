"""Every shown number without the suspected gold errors (issue 42; beyond the paper).

The switch `?without=flagged` (the board, an entry's detail, Compare, the board's CSV) shows
every number, interval and rank computed without the items the board's item analysis
(`analyst.py`) currently flags as suspected gold errors. The paper's numbers stay the default.

What is left out: the flagged public items and the flagged private (Certamen/NLE) ones. The
background item analysis (`analyst.analyse_entries`) scores each analysed entry's private
items anew from its kept predictions and analyses every item; the ids of the private items it
flags (`BoardAnalysis.private_flagged`) stay in the server's memory: the label counts them,
nothing names them (`Excluded` keeps them out of its repr; its digest, a cache key, is salted).

How: each entry's kept predictions are scored again without intervals (the per-item results
with the lenient readings and private extracted answers the store does not keep:
`Intake.items_of`), and `rescore_without` makes its report without the flagged items: equal,
number for number and interval for interval, to scoring the predictions again against the
gold without them. An entry none of whose items is flagged keeps its report. The reports are
then released as the default ones are (`Space._shown`, privacy.py), from the public cell
counts less the public items left out and the entry's private points less those of the
private items left out (`Rescored.private_points`, from the items scored again: never from
anything a client sends); a value left on fewer than k private items is hidden.

What it releases: every value that rests on private items a second time, over its private
items less the flagged ones, stepped the same way, and the number of flagged private items.
That is more than the default numbers say, and `privacy.release_bits(..., switched=True)`
counts it (docs/leaderboard-safety.md, "The bound"): per set of flagged items, every stepped
accuracy value twice and the count once; BLEU and chrF are the same in both views (items
without a per-item score are never flagged). A new set of flagged private items is taken at
most once per `Limits.private_flags_hours` (`Variants._private_ids`): a write can move the
analysis's flags, and each new set is another release. An entry that kept no predictions keeps the
paper's numbers (its private items took no part in the analysis either).

Cost: the scoring runs in a process of its own at a lower priority (`analyst.apart`), in the
background, once per (data version, flagged set); each entry's report is kept per (its stored
version, the flagged set), so a new entry costs one entry's scoring. No read waits for it:
until the current version's variant is made, the switch says so and shows the paper's numbers
(docs/performance-scale.md has the figures).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from .readmodel import Snapshot, Version
from .views.answers import Choice, href

if TYPE_CHECKING:
    from respondeoqa_eval.report import Report

    from .service import Space

log = logging.getLogger(__name__)

WITHOUT = "without"
"""The URL parameter of the switch."""
FLAGGED = "flagged"
"""Its value: without the suspected gold errors."""
KEPT_VARIANTS = 2  # variants (data version, flagged set) kept: the current one and the last
NAMED = 12  # excluded items the label names (the answers page's flagged walk lists them all)


def wanted(value: object) -> bool:
    """Whether a client's `without` parameter asks for the switch."""
    return value == FLAGGED


_SALT = os.urandom(16)
"""This process's salt of `Excluded.digest` (a digest of private ids is of guessable names)."""


@dataclass(frozen=True)
class Excluded:
    """The items a variant leaves out: the flagged public items (named) and the flagged
    private ones (`private_ids`, in the server's memory only: counted, never named; out of
    the repr, so no log line or error quoting the value names one)."""

    public: tuple[str, ...]
    private_ids: frozenset[str] = field(default=frozenset(), repr=False)

    @property
    def private(self) -> int:
        """How many private items are left out: all that is ever shown of them."""
        return len(self.private_ids)

    @property
    def digest(self) -> str:
        """A key of the set (caches only; salted per process, never shown)."""
        text = "\n".join([*self.public, "", *sorted(self.private_ids)])
        return hashlib.sha256(_SALT + text.encode()).hexdigest()[:16]

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(self.public) | self.private_ids


@dataclass(frozen=True)
class Rescored:
    """An entry's report computed without the excluded items (its per-item results dropped)
    and its points on the private items left (`privacy.private_points`): what the switched
    board releases of it, as `Space._shown` releases any entry."""

    report: Report
    private_points: Mapping[str, float] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Variant:
    """The board of one data version without `excluded`: its snapshot (entries, tables,
    boards of their own), and how many entries kept their numbers because they kept no
    predictions (stored before predictions were kept)."""

    excluded: Excluded
    snapshot: Snapshot
    unscored: int = 0
    took: float = 0.0


def rescore_entries(
    db: str, ids: Sequence[int], excluded: Sequence[str], gold: Any
) -> dict[int, Rescored | None]:
    """Each stored entry of `ids` that holds an item of `excluded` (public or private): its
    report (without its items) computed without them, from its kept predictions scored again,
    and its private points without them (None: it kept no predictions). Entries that hold
    none are left out of the answer. What `apart` runs."""
    from respondeoqa_eval.predictions import load_predictions
    from respondeoqa_eval.report import rescore_without

    from .privacy import private_points
    from .store import Store
    from .submission import score_for_board

    store = Store(db)
    gone = set(excluded)
    out: dict[int, Rescored | None] = {}
    for entry_id in ids:
        held = gone & store.item_scores(entry_id, public_only=False).keys()
        entry = store.get(entry_id)
        if not held or entry is None:
            continue
        rows = store.predictions(entry_id)
        if rows is None:
            out[entry_id] = None
            continue
        items = score_for_board(load_predictions(rows, gold), gold, bootstrap=0).items
        report = replace(entry.report, items=items)
        without = rescore_without(
            report, held, gold, source="suspected gold errors", name_private=False
        )
        out[entry_id] = Rescored(without.without_items(), private_points(without.items))
    return out


def label_html(excluded: Excluded, unscored: int = 0, being_made: bool = False) -> Markup:
    """What the switch says where it is on: how many items are left out, the public ones named
    (at most NAMED) with a link to the answers page's walk through them; or that the numbers
    are being made (the paper's shown meanwhile)."""
    if being_made:
        return Markup(
            '<p class="without-note" role="status" data-without="making">The numbers without '
            "the suspected gold errors are being made (a minute or two after the board "
            "changes); the paper's numbers are shown meanwhile.</p>"
        )
    n = len(excluded.public) + excluded.private
    if not n:
        return Markup(
            '<p class="without-note" role="note" data-without="0">No item is flagged as a '
            "suspected gold error now: these are the paper's numbers.</p>"
        )
    walk = href(Choice(filter=FLAGGED))
    shown = ", ".join(str(escape(i)) for i in excluded.public[:NAMED])
    more = f" and {len(excluded.public) - NAMED} more" if len(excluded.public) > NAMED else ""
    if excluded.private:  # counted, never named
        s = "s" if excluded.private != 1 else ""
        private = f"{excluded.private} private (Certamen/NLE) item{s}, counted, never named"
        shown, more = (f"{shown}{more} and {private}" if shown else private), ""
    kept = (
        f" {unscored} entries stored before predictions were kept show the paper's numbers."
        if unscored
        else ""
    )
    return Markup(
        f'<p class="without-note" role="note" data-without="{n}"><strong>Without {n} '
        f"suspected gold error{'s' if n != 1 else ''}</strong> ({len(excluded.public)} public, "
        f"{excluded.private} private): {shown}{more}. Every number, interval and rank "
        "is computed without them (beyond the paper; the paper's rows keep their published "
        f'numbers).{kept} <a class="without-list" href="{walk}">Read the excluded public items '
        "and every answer to them</a></p>"
    )


class Variants:
    """The variant of the current data version and flagged set, made in the background (one
    at a time, the latest each time) and kept (`KEPT_VARIANTS`); each entry's report kept per
    (entry, stored version, flagged set)."""

    def __init__(
        self,
        space: Space,
        rescore: Callable[[Sequence[int], Excluded], Mapping[int, Rescored | None]],
    ) -> None:
        self.space = space
        self._rescore = rescore  # (entry ids, excluded) -> their reports without them
        self._made: dict[tuple[Version, str], Variant] = {}
        self._reports: dict[tuple[int, Any, str], Rescored | None] = {}
        self._lock = threading.Lock()
        self._running: threading.Thread | None = None
        self._wanted = False
        self.failures = 0
        self.clock: Callable[[], float] = time.monotonic
        self._private: tuple[frozenset[str], float] | None = None  # the set taken, and when

    def excluded(self) -> Excluded | None:
        """What the last item analysis made flags (None before the first is made): its public
        flags, and the private ones it flagged when the set was last taken."""
        found = self.space.analyst.latest()
        if found is None:
            return None
        analysis = found.value
        public = tuple(it.id for it in analysis.public.flagged if not it.is_private)
        return Excluded(public, self._private_ids(analysis.private_flagged))

    def _private_ids(self, flagged: frozenset[str]) -> frozenset[str]:
        """The flagged private items the switch leaves out: the analysis's set, taken at most
        once per `Limits.private_flags_hours`. Each new set releases every entry's switched
        values again, and a write can move the set: held, the bound on what probing can learn
        holds per period, not per write (docs/leaderboard-safety.md, "The bound")."""
        now = self.clock()
        period = self.space.limits.private_flags_hours * 3600.0
        with self._lock:
            taken = self._private
            if taken is None or (taken[0] != flagged and now - taken[1] >= period):
                self._private = taken = (flagged, now)
            return taken[0]

    def current(self) -> Variant | None:
        """The variant of the current data version and flagged set, or None while it is being
        made (asked for in the background); never waits."""
        self.space.analyst.request()
        excluded = self.excluded()
        if excluded is None:
            return None
        version = self.space.reads.version()
        with self._lock:
            made = self._made.get((version, excluded.digest))
        if made is not None:
            return made
        if not excluded.ids:  # nothing is left out: the paper's board, labelled
            return Variant(excluded, self.space.snapshot())
        self.request()
        return None

    def wait(self, timeout: float) -> Variant | None:
        """`current()`, waited for `timeout` seconds at most (tests, the operator)."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.current()
            if found is not None or time.monotonic() > deadline:
                return found
            with self._lock:
                running = self._running
            if running is not None:
                running.join(max(0.0, min(1.0, deadline - time.monotonic())))
            else:
                time.sleep(0.05)  # (the analysis is still being made)

    def request(self) -> None:
        with self._lock:
            self._wanted = True
            if self._running is None:
                self._running = threading.Thread(
                    target=self._loop, name="without-flagged", daemon=True
                )
                self._running.start()

    def _loop(self) -> None:
        while True:
            with self._lock:
                if not self._wanted:
                    self._running = None
                    return
                self._wanted = False
            try:
                self._make()
            except Exception:  # asked again by the next read; the paper's numbers meanwhile
                log.exception("the board without suspected gold errors was not made")
                with self._lock:
                    self.failures += 1
                    self._running = None
                return

    def _make(self) -> None:
        started = time.perf_counter()
        excluded = self.excluded()
        if excluded is None or not excluded.ids:
            return
        space = self.space
        snap = space.snapshot()
        key = (snap.version, excluded.digest)
        with self._lock:
            if key in self._made:
                return
        todo = [
            e.id
            for e in snap.entries
            if (e.id, snap.keys[e.id], excluded.digest) not in self._reports
        ]
        if todo:
            made = self._rescore(todo, excluded)
            for i in todo:
                self._reports[i, snap.keys[i], excluded.digest] = made.get(i, _SAME)
        entries, unscored = [], 0
        for e in snap.entries:
            report = self._reports[e.id, snap.keys[e.id], excluded.digest]
            if report is _SAME:
                entries.append(e)
            elif report is None:
                entries.append(e)
                unscored += 1
            else:
                stored = replace(e, report=report.report, private_points=report.private_points)
                entries.append(space._shown(stored, excluded.ids))
        variant_snap = Snapshot(
            snap.version,
            entries,
            snap.stale,
            snap.status,
            snap._legend,
            cached=lambda s, k, build: space.reads.cached(s, (WITHOUT, excluded.digest, k), build),
            without=FLAGGED,
        )
        variant_snap.board("Overview", variant_snap.default_coverage())  # the first read's
        took = time.perf_counter() - started
        with self._lock:
            self._made[key] = Variant(excluded, variant_snap, unscored, took)
            while len(self._made) > KEPT_VARIANTS:
                self._made.pop(next(iter(self._made)))
            live = {(e.id, snap.keys[e.id], excluded.digest) for e in snap.entries}
            self._reports = {k: v for k, v in self._reports.items() if k in live}
        log.info(
            "the board without %d suspected gold errors: %d of %d entries scored again in %.1f s",
            len(excluded.ids),
            len(todo),
            len(snap.entries),
            took,
        )


_SAME: Any = object()
"""An entry that holds no excluded item: its report as it is."""
