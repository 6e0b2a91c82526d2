"""What every read serves, built once per data version: the read side of the Space.

A `Snapshot` holds the shown entries of one data version of the store (with values resting on
too few private items already suppressed) and, made on first use and kept with it, everything
derived from them: each view's frame, the board's HTML, the CSV bytes, the API records, the
pickers' choices. A write to the store (in any process) moves the data version, and the next
read builds a new snapshot, decoding only the entries that changed.

Reads that depend on a client's choice of entries (Compare, an entry's detail) are kept in one
LRU cache bounded in bytes (cachetools), keyed by data version and canonical row keys, never by
a client's string.
"""

from __future__ import annotations

import logging
import sys
import threading
import urllib.parse
from collections.abc import Callable, Hashable
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

import cachetools
import pandas as pd

from .paper import PAPER_ROWS
from .rows import Row, coverage_label, key_of, parse_key, picker_label
from .store import Entry, Store
from .views import frames
from .views.board import board_html
from .views.columns import OVERVIEW, view_of

log = logging.getLogger(__name__)

T = TypeVar("T")

BOARD_MAX_ROWS = 300
"""The board (and the pickers) show this many best rows of each coverage, the CSV every entry:
a page of 10,000 entries would send and render megabytes."""
BOARD_LABEL = "Leaderboard"
MAX_PICKS_SENT = 200  # more keys than any picker offers: refused before they are read
BOARD_ROUTE, CSV_ROUTE = "board", "board.csv"  # GET ?view=...&coverage=... (web/routes.py)


def board_query(view: str, coverage: str, verified: bool = False) -> str:
    query = {"view": view, "coverage": coverage} | ({"verified": "1"} if verified else {})
    return urllib.parse.urlencode(query)


class Snapshot:
    """The shown rows of one data version, and everything derived from them (lazily, once)."""

    def __init__(
        self,
        version: tuple[int, str],
        entries: list[Entry],
        stale: frozenset[int],
        status: str,
        legend: Callable[[str], str] = lambda view: "",
    ) -> None:
        self.version = version
        self._legend = legend
        self.entries = entries
        self.by_id = {e.id: e for e in entries}
        self.stale = stale
        self.status = status
        self.rows: tuple[Row, ...] = (*PAPER_ROWS, *entries)
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
        return self._once("coverages", lambda: frames.coverage_choices(self.rows))

    def default_coverage(self) -> str:
        return self._once("default coverage", lambda: frames.default_coverage(self.rows))

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

    def frame(self, view: str, coverage: str, verified: bool = False) -> pd.DataFrame:
        """The leaderboard frame of a view and coverage, of verified entries only when asked
        (kept: callers must not change it)."""
        return self._once(
            ("frame", view, coverage, verified),
            lambda: frames.leaderboard_frame(
                self.rows, view, coverage, self.stale, verified_only=verified
            ),
        )

    def _top(self, view: str, coverage: str, verified: bool = False) -> pd.DataFrame:
        df = self.frame(view, coverage, verified)
        return df.groupby("Coverage", sort=False).head(BOARD_MAX_ROWS)

    def board(self, view: object, coverage: object, verified: object = False) -> str:
        """The board's HTML (its CSV link, caption, record notice and table)."""
        view, coverage, verified = view_of(view), self.coverage_of(coverage), verified is True

        def build() -> str:
            df = self.frame(view, coverage, verified)
            top = self._top(view, coverage, verified)
            shown = (
                "every coverage, one section each"
                if coverage == frames.ALL_COVERAGES
                else f"{coverage}"
                + (
                    " (the coverage most entries share)"
                    if coverage == self.default_coverage()
                    else ""
                )
            )
            caption = f"{BOARD_LABEL}: {shown}."
            if len(top) < len(df):
                caption += (
                    f" The best {BOARD_MAX_ROWS} rows of each coverage ({len(top):,} of "
                    f"{len(df):,}; the CSV holds every entry)."
                )
            return board_html(
                top,
                view,
                caption,
                csv_href=f"{CSV_ROUTE}?{board_query(view, coverage, verified)}",
                status=self.status,
                coverage=coverage,
                coverages=self.coverage_options(),
                legend=self._legend(view),
            )

        return self._once(("board", view, coverage, verified), build)

    def csv(self, view: object, coverage: object, verified: object = False) -> tuple[str, bytes]:
        """(file name, bytes) of the CSV of a view and coverage: every entry (verified ones
        only when asked)."""
        view, coverage, verified = view_of(view), self.coverage_of(coverage), verified is True

        def build() -> tuple[str, bytes]:
            what = f"{view} {coverage}" + (" verified" if verified else "")
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

    def choices(self) -> list[tuple[str, str]]:
        """The Compare picker's (label, key) choices: every shown row, or on a board
        too long to show whole, the rows it shows (thousands of options cost the browser
        seconds)."""

        def build() -> list[tuple[str, str]]:
            shown = set(self._top(OVERVIEW, frames.ALL_COVERAGES).index)
            return [(picker_label(r), key_of(r)) for r in self.rows if key_of(r) in shown]

        return self._once("choices", build)


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


class ReadModel:
    """The current snapshot of a store, and a byte-bounded cache for picked-entry reads."""

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
        self._decoded: dict[int, tuple[tuple[int, str], Entry]] = {}
        self._cache: cachetools.LRUCache = cachetools.LRUCache(
            maxsize=cache_bytes, getsizeof=approx_size
        )
        self._cache_lock = threading.Lock()

    def version(self) -> tuple[int, str]:
        """The store's current data version and the record's status: what a snapshot is of
        (one small query, no snapshot built)."""
        return self.store.data_version(), self._status()

    def snapshot(self) -> Snapshot:
        """The snapshot of the store's current data version (built when it moved)."""
        version = self.version()
        with self._lock:
            if self._snapshot is not None and self._snapshot.version == version:
                return self._snapshot
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
            entries = [e for _, e in decoded.values()]
            stale = frozenset(e.id for e in entries if self._is_stale(e))
            self._snapshot = Snapshot(version, entries, stale, version[1], self._legend)
            return self._snapshot

    def peek(self, snapshot: Snapshot, key: Hashable) -> Any:
        """What `cached` keeps for `key` in this snapshot, or None: never built here (a page
        that can do without a costly value does not wait for it)."""
        with self._cache_lock:
            return self._cache.get((snapshot.version, key))

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
