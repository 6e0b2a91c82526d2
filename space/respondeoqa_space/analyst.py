"""The item analysis of the board, made in the background (issue 40).

An analysis of the board's entries takes tens of seconds (`analysis.analyze_items`: every item
of hundreds of entries, fitted over a grid), so no read makes it: it is made in a thread of its
own after the data version moves, one at a time, the latest version each time (writes in a
burst make one analysis, not one each), and every read is served the last one made, with when
it was made (`Analysed.made`). Only a caller that asks for the current version's analysis
(`current`: the operator's tools, the CSV download for a bounded while) waits for it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

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
"""How much lower the analysing thread's scheduling priority is than the server's: on a busy
machine the cores go to the threads answering readers first."""


def _yield_to_readers() -> None:
    """Lower the calling thread's priority (Linux: a thread is a task of its own; elsewhere,
    or when not allowed, nothing changes)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
    except (AttributeError, OSError):
        pass


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
        _yield_to_readers()
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
