"""The item analysis of the board, made in the background (issue 40).

An analysis of the board's entries takes tens of seconds (`analysis.analyze_items`: every item
of hundreds of entries, fitted over a grid), so no read makes it: it is made after the data
version moves, one at a time, the latest version each time (writes in a burst make one
analysis, not one each), and every read is served the last one made, with when it was made
(`Analysed.made`). Only a caller that asks for the current version's analysis (`current`: the
operator's tools, the CSV download for a bounded while) waits for it.

The analysis itself runs in a process of its own (`apart`), spawned for it at a lower
scheduling priority: it shares neither the server's interpreter lock (a page or a submission
answered meanwhile waits for none of its Python work) nor its memory (its arrays and the
entries' per-item results are freed with the process).

The same runner keeps the public details dataset current (`Space.publish_details_after_writes`):
a sync after the data version moves, one at a time; a sync that cannot be made now (`Postponed`:
the record not read yet, a Hub fault) is one log line and is tried again later.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import resource
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from respondeoqa_eval.analysis import ItemAnalysis
    from respondeoqa_eval.data import GoldSet
    from respondeoqa_eval.report import ItemResult

log = logging.getLogger(__name__)

T = TypeVar("T")


class Postponed(Exception):
    """A run that cannot be made now (one line says why): tried again `Analyst.retry` seconds
    later, or at the next write."""


@dataclass(frozen=True)
class Analysed(Generic[T]):
    """An analysis and what it is of: the data version it was made from, when it was done
    (`time.time()`) and how long it took."""

    value: T
    version: int
    made: float
    took: float
    memo: dict = field(default_factory=dict, compare=False, repr=False)
    """What is derived from it, made once (its CSV)."""

    def age(self, now: float | None = None) -> float:
        """Seconds since it was made."""
        return max(0.0, (time.time() if now is None else now) - self.made)


NICE = 10
"""How much lower the analysing process's scheduling priority is than the server's: on a busy
machine the cores go to the threads answering readers first."""


def apart(fn: Callable[..., T], *args: Any) -> tuple[T, float]:
    """`fn(*args)` in a process spawned for it, at a lower priority, and the peak memory that
    process used (MB). Its failure comes back as a RuntimeError naming the error's type only
    (a message could quote what it was working on)."""
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(
        target=_run_apart, args=(send, fn, args), name="item-analysis", daemon=True
    )
    child.start()
    send.close()
    try:
        ok, value, peak = receive.recv()
    except EOFError:
        child.join()
        raise RuntimeError(f"the analysing process ended with {child.exitcode}") from None
    finally:
        receive.close()
    child.join()
    if not ok:
        raise RuntimeError(f"the analysing process failed with {value}")
    return value, peak


def _run_apart(send: Any, fn: Callable[..., Any], args: tuple) -> None:
    try:
        os.nice(NICE)
    except (AttributeError, OSError):  # not allowed, or not here: the same priority
        pass
    try:
        value = fn(*args)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
        send.send((True, value, peak))
    except Exception as exc:
        send.send((False, type(exc).__name__, 0.0))
    finally:
        send.close()


@dataclass(frozen=True)
class BoardAnalysis:
    """The item analysis of the board's entries: `public`, over their public items, is what
    the Items page, its CSV and the answers page show; `private_flagged`, the private items
    the analysis of every item flags as suspected gold errors, is what the switch "without
    suspected gold errors" leaves out (without.py). Those ids stay in the server's memory:
    only their number is ever shown (it is left out of the repr, so no log line or error
    quoting the value names one)."""

    public: ItemAnalysis
    private_flagged: frozenset[str] = field(default=frozenset(), repr=False)


def analyse_entries(db: str, ids: Sequence[int], gold: GoldSet) -> BoardAnalysis:
    """The item analysis of the stored entries `ids` of the store at `db`, named "#<id>", in
    that order: over their public items (what the Items page shows; private items with a
    score only counted), and over every item, their private items scored anew from their kept
    predictions (the store keeps no extracted answer of a private item), for the flagged
    private items. An entry that kept no predictions takes part with its public items only.
    What `apart` runs for the Space."""
    from respondeoqa_eval.analysis import analyze_items
    from respondeoqa_eval.predictions import load_predictions

    from .store import Store
    from .submission import score_for_board

    store = Store(db)
    private_gold = gold.subset(lambda r: r.is_private)
    public: dict[str, list[ItemResult]] = {}
    every: dict[str, list[ItemResult]] = {}
    private: set[str] = set()
    for entry_id in ids:
        items = store.item_scores(entry_id, public_only=False).values()
        held = {it.id for it in items if it.is_private and it.score is not None}
        private |= held
        name = f"#{entry_id}"
        public[name] = [it for it in items if not it.is_private]
        every[name] = list(public[name])
        rows = store.predictions(entry_id) if held else None
        if rows is not None:  # its private items only: what the stored ones lack
            mine = [r for r in rows if r["id"] in private_gold.by_id]
            preds = load_predictions(mine, private_gold)
            every[name] += score_for_board(preds, private_gold, bootstrap=0).items
    analysis = replace(analyze_items(public, gold.by_id), private_items=len(private))
    if not any(len(every[n]) > len(public[n]) for n in every):
        return BoardAnalysis(analysis)
    whole = analyze_items(every, gold.by_id)
    flagged = frozenset(it.id for it in whole.flagged if it.is_private)
    return BoardAnalysis(analysis, flagged)


class Analyst(Generic[T]):
    """Makes `analyse()` of the data version `version()` names in a background thread, one at
    a time, and keeps the last result (module docstring)."""

    def __init__(
        self,
        analyse: Callable[[], tuple[int, T]],
        version: Callable[[], int],
        settle: float = 0.0,
        *,
        what: str = "item analysis",
        retry: float | None = None,
    ) -> None:
        self._analyse = analyse  # -> (the data version it analysed, the analysis)
        self._version = version
        self.what = what  # its name in the log and its thread's
        self.retry = retry  # seconds before a postponed run is asked for again (None: never)
        self.settle = settle
        """Seconds a run asked for in the background waits before it starts: the pages a
        write made are built first, and a burst of writes is one run."""
        self._latest: Analysed[T] | None = None
        self._wanted = False
        self._running: threading.Thread | None = None
        self._changed = threading.Condition()
        self.failures = 0

    def latest(self) -> Analysed[T] | None:
        """The last analysis made (None before the first is done); never waits."""
        return self._latest

    def fresh(self) -> bool:
        """Whether the last analysis is of the store's current data version."""
        latest = self._latest
        return latest is not None and latest.version == self._version()

    def running(self) -> bool:
        with self._changed:
            return self._running is not None

    def request(self) -> None:
        """Make the current version's analysis in the background unless the last one is of it
        (a request while one is being made: one more run after it, of the version then)."""
        if self.fresh():
            return
        with self._changed:
            self._wanted = True
            if self._running is None:
                self._running = threading.Thread(
                    target=self._loop,
                    args=(self.settle,),
                    name=self.what.replace(" ", "-"),
                    daemon=True,
                )
                self._running.start()

    def current(self, timeout: float | None = None) -> Analysed[T] | None:
        """The current data version's analysis, waited for (made when needed); after
        `timeout` seconds, the last one made (None when there is none yet)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        started = False
        with self._changed:
            while True:
                latest = self._latest
                if latest is not None and latest.version == self._version():
                    return latest
                if self._running is None:
                    if started:  # it failed, or a write came while it ran: the last made
                        return latest
                    started = True
                    self._wanted = True
                    self._running = threading.Thread(
                        target=self._loop, name=self.what.replace(" ", "-"), daemon=True
                    )
                    self._running.start()
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return latest
                self._changed.wait(left)

    def _loop(self, settle: float = 0.0) -> None:
        if settle:
            time.sleep(settle)  # (a thread of its own: no reader waits on it)
        while True:
            with self._changed:
                if not self._wanted:
                    self._running = None
                    self._changed.notify_all()
                    return
                self._wanted = False
            started = time.perf_counter()
            try:
                version, value = self._analyse()
            except Exception as exc:  # the last result stays served; asked for again later
                if isinstance(exc, Postponed):  # one line
                    log.warning("%s postponed: %s", self.what, exc)
                    if self.retry is not None:
                        again = threading.Timer(self.retry, self.request)
                        again.daemon = True
                        again.start()
                else:  # the next write asks again
                    log.exception("the %s failed", self.what)
                with self._changed:
                    self.failures += 1
                    self._running = None
                    self._changed.notify_all()
                return
            took = time.perf_counter() - started
            done = Analysed(value, version, time.time(), took)
            with self._changed:
                if self._latest is None or self._latest.version <= version:
                    self._latest = done
                self._changed.notify_all()
            log.info("%s of data version %d made in %.1f s", self.what, version, took)
