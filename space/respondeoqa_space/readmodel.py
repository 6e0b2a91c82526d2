"""What every read serves, built once per data version: the read side of the Space.

A `Snapshot` holds the shown entries of one data version of the store (with values resting on
too few private items already suppressed) and, made on first use and kept with it, everything
derived from them: each view's frame, the board's HTML, the CSV bytes, the API records, the
pickers' choices. A write to the store (in any process) moves the data version, and the next
read builds a new snapshot, decoding only the entries that changed.

Nothing a read or a write does costs more than n log n in the entries (issue 40):

- a new snapshot decodes only the entries whose (version, file hash) moved (one query of every
  entry's pair, a pass over them, the coverages' counts and the stale marks kept as rows come
  and go);
- each view's unranked records (`frames.record_table`) are kept across data versions and only
  the rows that changed are read again (`_Tables`); ranking a coverage sorts it, and its rank
  ranges bisect sorted interval ends (`frames.rank_ranges`);
- the boards served are kept per request (`ReadModel.board`). A write made here
  (`ReadModel.written`, called before the write is acknowledged) builds the main page's board
  at once, so the page shows it to every reader after the acknowledgement without making one
  wait; another board is built by its first reader after the write (about 0.1 s at 10,000
  entries): no board older than a write made here is served once the write is
  acknowledged. After a write this process did not make (another process, the record's
  sync), a reader is served the last board built while the new one is built in the
  background, as long as the new version only adds rows (or moves the record's status); a
  version that hides, withdraws or changes a row that board shows is built for the reader at
  once: what must disappear never shows after its write committed.

A board shows a coverage a page of `BOARD_MAX_ROWS` rows at a time; search runs over every
row of the coverage (`Snapshot.board(query=...)`) and each match keeps its rank.

Reads that depend on a client's choice of entries (Compare, an entry's detail, a board page
beyond the first) are kept in one LRU cache bounded in bytes (cachetools), keyed by data
version and canonical keys, never by a client's string.

A variant of every shown number (issue 42: scores without the suspected gold errors,
`without.py`) is a `Snapshot` of its own (its `without` tag), made in the background from the
same data version's entries with their reports recomputed: its tables, boards and CSVs are
its own, and nothing here changes.
"""

from __future__ import annotations

import hashlib
import logging
import math
import sys
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, TypeVar

import cachetools
import numpy as np
import pandas as pd

from .paper import PAPER_ROWS
from .rows import (
    Row,
    coverage_label,
    is_scored,
    key_of,
    parse_entry_id,
    parse_key,
    picker_label,
)
from .store import Entry, Store
from .views import frames
from .views.board import best_columns, best_keys, board_html
from .views.columns import OVERVIEW, view_of

log = logging.getLogger(__name__)

T = TypeVar("T")

BOARD_MAX_ROWS = 300
"""Rows of a coverage on one page of the board (a page of 10,000 entries would send and render
megabytes); the board pages through the rest, search reaches every row, the CSV holds all."""
BOARD_LABEL = "Leaderboard"
MAX_PICKS_SENT = 200  # more keys than any picker offers: refused before they are read
MAX_QUERY = 100  # characters of a search a board reads (a longer one is cut)
FIND_LIMIT = 50  # choices the Compare picker offers for what is typed
KEPT_BOARDS = 64  # boards (first pages) whose last build is kept to be served meanwhile
BOARD_ROUTE, CSV_ROUTE = "board", "board.csv"  # GET ?view=...&coverage=... (web/routes.py)
SEARCHED = ("Model", "Submitter", "Entry", "Coverage", "Type", "Made with")
"""The columns a board search reads (each row shows them as text)."""

Version = tuple[int, str]
"""A snapshot's data version: the store's change counter and the record's status message."""
EntryKey = tuple[int, str]
"""What an entry's decoded copy is of: its (version, file hash) in the store."""


def board_query(view: str, coverage: str, verified: bool = False, without: str = "") -> str:
    query = {"view": view, "coverage": coverage} | ({"verified": "1"} if verified else {})
    return urllib.parse.urlencode(query | ({"without": without} if without else {}))


def search_text(value: object) -> str:
    """A client's search as the board reads it: trimmed, lower case, at most MAX_QUERY
    characters."""
    return str(value or "").strip().lower()[:MAX_QUERY]


def page_number(value: object) -> int:
    """A client's page number (1 for anything that is not a positive number)."""
    text = str(value or "")
    return int(text) if text.isdigit() and 0 < len(text) < 7 and int(text) > 0 else 1


def _order_of(row: Row) -> int:
    """A row's place on the board among equal scores: the paper's rows first, then entries by
    number (a snapshot's rows are in this order)."""
    paper = len(PAPER_ROWS)
    return paper + row.id if is_scored(row) else PAPER_ROWS.index(row)  # a PaperRow


class _Tables:
    """Each view's record table (`frames.record_table`) as last built, with the entry keys it
    was built from: the next snapshot's table re-reads only the rows whose key moved."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[Mapping[int, EntryKey], pd.DataFrame]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def table(self, snap: Snapshot, view: str) -> pd.DataFrame:
        with self._lock:
            lock = self._locks.setdefault(view, threading.Lock())
        with lock:
            last = self._last.get(view)
            if last is None:
                table = frames.record_table(
                    snap.rows, view, snap.stale, [_order_of(r) for r in snap.rows]
                )
            else:
                keys, before = last
                drop = [f"e:{i}" for i, k in keys.items() if snap.keys.get(i) != k]
                new = [snap.by_id[i] for i, k in snap.keys.items() if keys.get(i) != k]
                table = frames.updated_table(
                    before, drop, new, view, snap.stale, [_order_of(r) for r in new]
                )
            self._last[view] = (snap.keys, table)
            return table


class Snapshot:
    """The shown rows of one data version, and everything derived from them (lazily, once)."""

    def __init__(
        self,
        version: Version,
        entries: list[Entry],
        stale: frozenset[int],
        status: str,
        legend: Callable[[str], str] = lambda view: "",
        *,
        keys: Mapping[int, EntryKey] | None = None,
        tables: _Tables | None = None,
        cached: Callable[[Snapshot, Hashable, Callable[[], Any]], Any] | None = None,
        counted: frames.Sources | None = None,
        without: str = "",
    ) -> None:
        self.version = version
        self.without = without
        """The variant's URL value (`?without=flagged`: its numbers leave items out), or ""
        (the paper's numbers): its CSV link and file name say so."""
        self._legend = legend
        self.entries = entries
        self.by_id = {e.id: e for e in entries}
        self.keys: Mapping[int, EntryKey] = (
            keys if keys is not None else {e.id: (0, e.file_sha256) for e in entries}
        )
        self.stale = stale
        self.status = status
        self.rows: tuple[Row, ...] = (*PAPER_ROWS, *entries)
        self._counted = counted if counted is not None else frames.by_sources(self.rows)
        self._tables = tables or _Tables()
        self._cached = cached or (lambda snap, key, build: build())
        self._memo: dict[Hashable, Any] = {}
        self._locks: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def _once(self, key: Hashable, build: Callable[[], T]) -> T:
        # fifty page loads right after a write wait for one rendering, not fifty
        with self._lock:
            if key in self._memo:
                return self._memo[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._memo:
                value = build()
                with self._lock:
                    self._memo[key] = value
            return self._memo[key]

    def has(self, key: Hashable) -> bool:
        """Whether what `key` names is built already (a read of it waits for nothing)."""
        with self._lock:
            return key in self._memo

    def adds_to(self, version: Version, keys: Mapping[int, EntryKey]) -> bool:
        """Whether every entry of `keys` (the snapshot of `version`'s) is here unchanged: this
        version only adds entries to that one (or moves the record's status). Once per
        version asked about."""

        def check() -> bool:
            mine = self.keys
            return len(mine) >= len(keys) and all(mine.get(i) == k for i, k in keys.items())

        return self._once(("adds to", version), check)

    # -- rows ----------------------------------------------------------------------------

    def resolve(self, key: object) -> Row | None:
        """The shown row a key names ("e:12", "p:..."), or None: unknown, hidden, malformed."""
        parsed = parse_key(key)
        if parsed is None:
            return None
        kind, ident = parsed
        if kind == "e":
            return self.by_id.get(int(ident))
        return next((p for p in PAPER_ROWS if p.key == ident), None)

    def canonical(self, keys: object, limit: int) -> tuple[str, ...] | None:
        """The keys of the shown rows that `keys` name, each once, in the given order; None
        when they name more than `limit` distinct rows (or are more than a page could send)."""
        if not isinstance(keys, (list, tuple)):
            return ()
        if len(keys) > MAX_PICKS_SENT:
            return None
        seen: list[str] = []
        for key in keys:
            row = self.resolve(key)
            if row is not None and key_of(row) not in seen:
                seen.append(key_of(row))
                if len(seen) > limit:
                    return None
        return tuple(seen)

    def coverages(self) -> list[str]:
        return self._once("coverages", lambda: frames.coverage_choices_of(self._counted))

    def default_coverage(self) -> str:
        return self._once("default coverage", lambda: frames.default_coverage_of(self._counted))

    def coverage_options(self) -> list[tuple[str, str]]:
        """The board's coverage picker: (value, label), every coverage by its name alone (the
        caption under it says which one most entries share: a suffix on the longest name
        would not fit a phone's picker)."""
        return [(c, c) for c in self.coverages() if c != frames.MOST_ENTRIES]

    def coverage_of(self, value: object) -> str:
        """The coverage a choice names (`MOST_ENTRIES`, and anything the board does not know,
        is the default one): a client's string never becomes a cache key."""
        if value == frames.ALL_COVERAGES or (
            value in self.coverages() and value != frames.MOST_ENTRIES
        ):
            return value
        return self.default_coverage()

    # -- tables ----------------------------------------------------------------------------

    def table(self, view: str) -> pd.DataFrame:
        """The unranked records of a view (every row; `frames.record_table`)."""
        return self._once(("table", view), lambda: self._tables.table(self, view))

    def ranking(self, view: str, coverage: str, verified: bool = False) -> frames.Ranking:
        """Where the rows of a view and coverage rank (`frames.ranking`)."""
        return self._once(
            ("ranking", view, coverage, verified),
            lambda: frames.ranking(self.table(view), coverage, verified),
        )

    def frame(self, view: str, coverage: str, verified: bool = False) -> pd.DataFrame:
        """The leaderboard frame of a view and coverage, of verified entries only when asked
        (kept: callers must not change it)."""
        return self._once(
            ("frame", view, coverage, verified),
            lambda: frames.rows_of(self.table(view), view, self.ranking(view, coverage, verified)),
        )

    def _rows(self, view: str, coverage: str, verified: bool, at: Any) -> pd.DataFrame:
        """Some rows of a ranking (`at`: a slice or positions), as the frame has them."""
        return frames.rows_of(self.table(view), view, self.ranking(view, coverage, verified), at)

    def _first(self, view: str, coverage: str, verified: bool = False) -> np.ndarray:
        """The positions in a ranking of the rows each coverage shows on the board's first
        page."""
        names = self.ranking(view, coverage, verified).coverage
        within = pd.Series(names).groupby(names, sort=False).cumcount().to_numpy()
        return np.flatnonzero(within < BOARD_MAX_ROWS)

    def _haystack(self, view: str, coverage: str, verified: bool) -> pd.Series:
        """Each row's searched text (SEARCHED), lower case, in the ranking's order."""

        def build() -> pd.Series:
            order = self.ranking(view, coverage, verified).order
            df = self.table(view)[list(SEARCHED)].iloc[order]
            text = df[SEARCHED[0]].astype(str)
            for col in SEARCHED[1:]:
                text = text + "\n" + df[col].astype(str)
            return text.str.lower()

        return self._once(("haystack", view, coverage, verified), build)

    def board(
        self,
        view: object,
        coverage: object,
        verified: object = False,
        page: object = 1,
        query: object = "",
        entry: object = None,
    ) -> str:
        """The board's HTML (its CSV link, caption, pager, record notice and table): a page
        of the rows of a coverage, or of the rows `query` finds in it (model, submitter,
        entry number, type: `SEARCHED`), each with its rank in its coverage. Every coverage:
        the first page of each, a section each. `entry` (a row's key, no `query`): the page
        of the coverage that holds its row, instead of `page`."""
        view, coverage, verified = view_of(view), self.coverage_of(coverage), verified is True
        text, number = search_text(query), page_number(page)
        if entry and not text and coverage != frames.ALL_COVERAGES:
            number = self.page_of(view, coverage, verified, str(entry)) or number
        if text:  # a client's string: built for this request only
            return self._board(view, coverage, verified, number, text)
        if coverage == frames.ALL_COVERAGES:
            number = 1
        number = min(number, self.pages(view, coverage, verified))
        build = lambda: self._board(view, coverage, verified, number, "")  # noqa: E731
        if number == 1:
            return self._once(("board", view, coverage, verified), build)
        return self._cached(self, ("board", view, coverage, verified, number), build)

    def page_of(self, view: str, coverage: str, verified: bool, key: str) -> int | None:
        """The page of a coverage's board that holds the row of `key` (None: none does)."""
        ranked = self.ranking(view, coverage, verified)
        keys = self.table(view).index.to_numpy()[ranked.order]
        at = np.flatnonzero(keys == key)
        return int(at[0]) // BOARD_MAX_ROWS + 1 if len(at) else None

    def pages(self, view: str, coverage: str, verified: bool = False) -> int:
        """How many pages of BOARD_MAX_ROWS rows the board of a coverage has (at least 1)."""
        return max(1, math.ceil(len(self.ranking(view, coverage, verified)) / BOARD_MAX_ROWS))

    def _board(self, view: str, coverage: str, verified: bool, page: int, text: str) -> str:
        ranked = self.ranking(view, coverage, verified)
        every = coverage == frames.ALL_COVERAGES
        shown = (
            "every coverage, one section each"
            if every
            else f"{coverage}"
            + (" (the coverage most entries share)" if coverage == self.default_coverage() else "")
        )
        caption = f"{BOARD_LABEL}: {shown}."
        rows = np.arange(len(ranked))  # the rows of the ranking this board pages through
        if text:
            found = self._haystack(view, coverage, verified).str.contains(text, regex=False)
            rows = np.flatnonzero(found.to_numpy())
            caption += (
                f" Search \u201c{text}\u201d (model, submitter, entry number, type): "
                f"{len(rows):,} of {len(ranked):,} rows match, each with its rank in its "
                "coverage."
            )
        pages = max(1, math.ceil(len(rows) / BOARD_MAX_ROWS))
        if every and not text:
            top = self._first(view, coverage, verified)
            if len(top) < len(ranked):
                caption += (
                    f" The best {BOARD_MAX_ROWS} rows of each coverage ({len(top):,} of "
                    f"{len(ranked):,}); pick a coverage to page through it, or search."
                )
            part, pager = self._rows(view, coverage, verified, top), None
        else:
            page = min(page, pages)
            start = (page - 1) * BOARD_MAX_ROWS
            shown_rows = rows[start : start + BOARD_MAX_ROWS]
            part = self._rows(view, coverage, verified, shown_rows)
            pager = (
                Pager(page, pages, start + 1, start + len(part), len(rows)) if pages > 1 else None
            )
        totals = pd.Series(ranked.coverage).value_counts(sort=False).to_dict()
        best = self._once(("best", view, coverage, verified), lambda: self._best(view, ranked))
        return board_html(
            part,
            view,
            caption,
            csv_href=f"{CSV_ROUTE}?{board_query(view, coverage, verified, self.without)}",
            status=self.status,
            coverage=coverage,
            coverages=self.coverage_options(),
            legend=self._legend(view),
            pager=pager,
            totals=totals,
            query=text,
            best=best,
        )

    def _best(self, view: str, ranked: frames.Ranking) -> dict[str, set[Any]]:
        """The keys holding each shaded column's best value in their coverage (the columns
        it reads, of the ranking's rows)."""
        needed = ["Coverage", *(c for c in self.table(view).columns if c in best_columns(view))]
        return best_keys(self.table(view)[needed].iloc[ranked.order], view)

    def csv(self, view: object, coverage: object, verified: object = False) -> tuple[str, bytes]:
        """(file name, bytes) of the CSV of a view and coverage: every entry (verified ones
        only when asked)."""
        view, coverage, verified = view_of(view), self.coverage_of(coverage), verified is True

        def build() -> tuple[str, bytes]:
            what = f"{view} {coverage}" + (" verified" if verified else "")
            what += " without suspected gold errors" if self.without else ""
            slug = "-".join("".join(c if c.isalnum() else " " for c in what.lower()).split())
            data = frames.to_csv(self.frame(view, coverage, verified)).encode("utf-8")
            return f"respondeoqa-leaderboard-{slug}.csv", data

        return self._once(("csv", view, coverage, verified), build)

    def api(self, view: object, coverage: object) -> dict[str, Any]:
        """Every row of a view and coverage as data: {"view", "coverage", "headers", "data"}."""
        view, coverage = view_of(view), self.coverage_of(coverage)
        return self._once(
            ("api", view, coverage),
            lambda: {
                "view": view,
                "coverage": coverage,
                **frames.records(self.frame(view, coverage)),
            },
        )

    def first_keys(self) -> frozenset[str]:
        """The keys of the rows on the first page of each coverage (the best BOARD_MAX_ROWS of
        each): what the board shows before anyone pages or searches."""

        def build() -> frozenset[str]:
            order = self.ranking(OVERVIEW, frames.ALL_COVERAGES).order
            top = order[self._first(OVERVIEW, frames.ALL_COVERAGES)]
            return frozenset(self.table(OVERVIEW).index[top])

        return self._once("first keys", build)

    def choices(self) -> list[tuple[str, str]]:
        """The Compare picker's (label, key) choices before anything is typed: the rows on the
        first page of each coverage (thousands of options cost the browser seconds; typing
        finds any row: `find`)."""

        def build() -> list[tuple[str, str]]:
            shown = self.first_keys()
            return [(picker_label(r), key_of(r)) for r in self.rows if key_of(r) in shown]

        return self._once("choices", build)

    def find(self, typed: object, limit: int = FIND_LIMIT) -> list[tuple[str, str]]:
        """The Compare picker's (label, key) choices for what is typed: every row whose label
        (number, model, coverage) holds it, best first in each coverage, at most `limit`."""
        text = search_text(typed)
        if not text:
            return self.choices()
        labels = self._once("labels", self._labels)
        # the entry a number names first ("#12" is also in "#120 ...", "#1203 ...")
        number = parse_entry_id(text)
        named = self.by_id.get(number) if number is not None else None
        out = [(picker_label(named), key_of(named))] if named is not None else []
        for label, key, lower in labels:
            if text in lower and (not out or key != out[0][1]):
                out.append((label, key))
                if len(out) >= limit:
                    break
        return out

    def _labels(self) -> list[tuple[str, str, str]]:
        """(label, key, label in lower case) of every row, in the Overview's order."""
        order = self.table(OVERVIEW).index[self.ranking(OVERVIEW, frames.ALL_COVERAGES).order]
        rows = {key_of(r): r for r in self.rows}
        labels = [(picker_label(rows[k]), k) for k in order if k in rows]
        return [(label, key, label.lower()) for label, key in labels]


@dataclass(frozen=True)
class Pager:
    """Where a board page is among the pages of its rows."""

    page: int
    pages: int
    first: int  # the first row shown (1-based)
    last: int
    rows: int


def approx_size(value: Any, depth: int = 0) -> int:
    """About how many bytes `value` keeps alive (for the byte-bounded cache): frames by their
    memory use, figures by their JSON, containers by their parts."""
    if depth > 4:
        return sys.getsizeof(value)
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(deep=True).sum())
    if hasattr(value, "to_plotly_json"):
        return len(value.to_json())
    if hasattr(value, "data") and isinstance(getattr(value, "data", None), pd.DataFrame):
        return approx_size(value.data, depth + 1)  # a Styler
    if isinstance(value, (bytes, str)):
        return len(value)
    if is_dataclass(value) and not isinstance(value, type):
        return sum(approx_size(getattr(value, f.name), depth + 1) for f in fields(value))
    if isinstance(value, (list, tuple)):
        return sum(approx_size(v, depth + 1) for v in value) + 64
    return sys.getsizeof(value)


BoardKey = tuple[str, str, bool]
"""A board as the first page of a request: (view, coverage, verified)."""


@dataclass(frozen=True)
class _Built:
    """A board as last built: its HTML and the snapshot it is of."""

    html: str
    version: Version
    keys: Mapping[int, EntryKey]


class ReadModel:
    """The current snapshot of a store, the boards served, and a byte-bounded cache for
    picked-entry reads."""

    def __init__(
        self,
        store: Store,
        *,
        shown: Callable[[Entry], Entry],
        is_stale: Callable[[Entry], bool],
        status: Callable[[], str] = lambda: "",
        legend: Callable[[str], str] = lambda view: "",
        cache_bytes: int = 64 * 1024 * 1024,
    ) -> None:
        self.store = store
        self._legend = legend
        self._shown = shown
        self._is_stale = is_stale
        self._status = status
        self._lock = threading.Lock()
        self._snapshot: Snapshot | None = None
        # decoded, shown entries by id with the (version, hash) they were read at: a write
        # costs one decode (the changed row), not one per stored entry
        self._decoded: dict[int, tuple[EntryKey, Entry]] = {}
        # and what they count (the coverages' sizes) and which are stale, kept the same way
        self._counted = frames.by_sources(PAPER_ROWS)
        self._stale: set[int] = set()
        self._tables = _Tables()
        self._cache: cachetools.LRUCache = cachetools.LRUCache(
            maxsize=cache_bytes, getsizeof=approx_size
        )
        self._cache_lock = threading.Lock()
        # the boards served (first pages) as last built, most recently read last
        self._built: OrderedDict[BoardKey, _Built] = OrderedDict()
        self._built_lock = threading.Lock()
        self._refresher_lock = threading.Lock()
        self._acknowledged = 0  # the data version of the last write made here and told done
        self._pending: set[BoardKey] = set()  # boards to build in the background
        self._refresher: threading.Thread | None = None
        self.warmers: list[Callable[[Snapshot], None]] = []
        """Called with each snapshot `refresh` built (the main page renders itself)."""
        self.listeners: list[Callable[[Snapshot], None]] = []
        """Called with each new snapshot, outside any lock (the item analysis's trigger)."""

    def content_key(self, *extra: str) -> str:
        """A digest of what the boards show: every shown entry's (id, version, file hash) and
        the record's status, with `extra` (what else a page rests on: the code's versions,
        the gold, the limits). Equal digests, equal boards (a page kept across a restart)."""
        digest = hashlib.sha256()
        for part in (self._status(), *extra):
            digest.update(part.encode("utf-8") + b"\0")
        for i, (version, sha) in self.store.entry_versions().items():
            digest.update(f"{i},{version},{sha};".encode())
        return digest.hexdigest()

    def version(self) -> Version:
        """The store's current data version and the record's status: what a snapshot is of
        (one small query, no snapshot built)."""
        return self.store.data_version(), self._status()

    def snapshot(self) -> Snapshot:
        """The snapshot of the store's current data version (built when it moved: the entries
        that changed decoded; its tables and boards are made when first read)."""
        version = self.version()
        with self._lock:
            if self._snapshot is not None and self._snapshot.version == version:
                return self._snapshot
            keys = self.store.entry_versions()
            changed = [i for i, k in keys.items() if self._decoded.get(i, (None,))[0] != k]
            fresh = {e.id: e for e in self.store.entries(ids=changed)} if changed else {}
            decoded: dict[int, tuple[EntryKey, Entry]] = {}
            for i, k in keys.items():
                if i in fresh:
                    decoded[i] = (k, self._shown(fresh[i]))
                elif i in self._decoded and i not in fresh and self._decoded[i][0] == k:
                    decoded[i] = self._decoded[i]
                # else: hidden or deleted between the two reads; the next version has it
            # what the rows that left or changed counted, out; what the new ones count, in
            for i in (self._decoded.keys() - decoded.keys()) | (
                fresh.keys() & self._decoded.keys()
            ):
                self._counted[tuple(self._decoded[i][1].sources), True] -= 1
                self._stale.discard(i)
            for i in fresh:
                if i in decoded:
                    entry = decoded[i][1]
                    self._counted[tuple(entry.sources), True] += 1
                    if self._is_stale(entry):
                        self._stale.add(i)
            self._decoded = decoded
            snap = Snapshot(
                version,
                [e for _, e in decoded.values()],
                frozenset(self._stale),
                version[1],
                self._legend,
                keys={i: k for i, (k, _) in decoded.items()},
                tables=self._tables,
                cached=self.cached,
                counted=frames.Sources(self._counted),
            )
            self._snapshot = snap
        for listener in self.listeners:
            listener(snap)
        return snap

    # -- the boards served -------------------------------------------------------------------

    def board(self, *request: Any, **named: Any) -> str:
        """The board's HTML for a request (`served_board`)."""
        return self.served_board(*request, **named)[1]

    def served_board(
        self,
        view: object = None,
        coverage: object = None,
        verified: object = False,
        page: object = 1,
        query: object = "",
        entry: object = None,
    ) -> tuple[Version, str]:
        """The board's HTML for a request (`Snapshot.board`), and the data version it is of.
        A first page without a search is the current version's when it is built; else the
        last one built for the same board, while the current one is built in the background,
        when the current version only adds rows to that one; else the current one, built now
        (module docstring)."""
        snap = self.snapshot()
        if search_text(query) or page_number(page) > 1 or entry:
            return snap.version, snap.board(view, coverage, verified, page, query, entry)
        key = (view_of(view), snap.coverage_of(coverage), verified is True)
        if not snap.has(("board", *key)):
            with self._built_lock:
                last = self._built.get(key)
            if (
                last is not None
                and last.version != snap.version
                and last.version[0] >= self._acknowledged
                and snap.adds_to(last.version, last.keys)
            ):
                self._mark(key, last)
                self._wake(key)
                return last.version, last.html
        return snap.version, self._build(snap, key)

    def _build(self, snap: Snapshot, key: BoardKey) -> str:
        html = snap.board(*key)
        self._mark(key, _Built(html, snap.version, snap.keys))
        return html

    def _mark(self, key: BoardKey, built: _Built) -> None:
        """`key` read now; `built` its newest board (an older one never replaces it)."""
        with self._built_lock:
            held = self._built.get(key)
            if held is None or held.version[0] <= built.version[0]:
                self._built[key] = built
            self._built.move_to_end(key)
            while len(self._built) > KEPT_BOARDS:  # the others are built when read
                self._built.popitem(last=False)

    def refresh(self) -> Snapshot:
        """Build the current version's snapshot and the main page's board, and run the
        warmers (the main page renders itself). A board another caller is building for the
        same version is waited for, not built twice."""
        snap = self.snapshot()
        self._build(snap, (OVERVIEW, snap.default_coverage(), False))
        for warm in self.warmers:
            warm(snap)
        return snap

    def written(self) -> Snapshot:
        """A write made here is about to be acknowledged: the main page's board is built now,
        and no board older than this write is served after it (a reader of another board
        not built since builds it, or waits for the build under way)."""
        snap = self.refresh()
        with self._built_lock:
            self._acknowledged = max(self._acknowledged, snap.version[0])
        return snap

    def _wake(self, key: BoardKey) -> None:
        """Build `key`'s board of the current version in the background (one thread; keys
        asked for while it runs are built in its next pass)."""
        with self._refresher_lock:
            self._pending.add(key)
            if self._refresher is None:
                self._refresher = threading.Thread(
                    target=self._refresh_loop, name="board-refresh", daemon=True
                )
                self._refresher.start()

    def _refresh_loop(self) -> None:
        while True:
            with self._refresher_lock:
                keys, self._pending = self._pending, set()
                if not keys:
                    self._refresher = None
                    return
            started = time.perf_counter()
            try:
                snap = self.snapshot()
                main = (OVERVIEW, snap.default_coverage(), False)
                for key in keys:
                    self._build(snap, key)
                if main in keys:
                    for warm in self.warmers:
                        warm(snap)
            except Exception:  # a read builds what it needs itself
                log.exception("the background build of the boards failed")
                continue
            log.info(
                "%d board(s) of data version %d built in the background in %.2f s",
                len(keys),
                snap.version[0],
                time.perf_counter() - started,
            )

    def cached(self, snapshot: Snapshot, key: Hashable, build: Callable[[], T]) -> T:
        """`build()` for `key` in this snapshot, from the byte-bounded cache when it is there
        (a value larger than the whole cache is built and not kept)."""
        full = (snapshot.version, key)
        with self._cache_lock:
            if full in self._cache:
                return self._cache[full]
        value = build()
        with self._cache_lock:
            try:
                self._cache[full] = value
            except ValueError:  # larger than the cache
                log.info("not cached: %s is larger than the cache", type(value).__name__)
        return value


__all__ = ["BOARD_MAX_ROWS", "ReadModel", "Snapshot", "coverage_label"]
