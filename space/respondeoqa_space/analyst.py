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
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import resource
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


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


def analyse_entries(db: str, ids: Sequence[int], gold: Mapping[str, Any]) -> tuple[Any, int]:
    """The item analysis (`analyze_items`) of the stored entries `ids` of the store at `db`
    over their public items, in that order, named "#<id>"; and how many private items with a
    score they hold (only counted). What `apart` runs for the Space."""
    from respondeoqa_eval.analysis import analyze_items

    from .store import Store

    store = Store(db)
    entries: dict[str, list[Any]] = {}
    private: set[str] = set()
    for entry_id in ids:
        items = store.item_scores(entry_id, public_only=False).values()
        private.update(it.id for it in items if it.is_private and it.score is not None)
        entries[f"#{entry_id}"] = [it for it in items if not it.is_private]
    return analyze_items(entries, gold), len(private)


class Analyst(Generic[T]):
    """Makes `analyse()` of the data version `version()` names in a background thread, one at
    a time, and keeps the last result (module docstring)."""

    def __init__(
        self,
        analyse: Callable[[], tuple[int, T]],
        version: Callable[[], int],
        settle: float = 0.0,
    ) -> None:
        self._analyse = analyse  # -> (the data version it analysed, the analysis)
        self._version = version
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
                    target=self._loop, args=(self.settle,), name="item-analysis", daemon=True
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
                        target=self._loop, name="item-analysis", daemon=True
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
            except Exception:  # the next write asks again; the last result stays served
                log.exception("the item analysis failed")
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
            log.info("item analysis of data version %d made in %.1f s", version, took)
