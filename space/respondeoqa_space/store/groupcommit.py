"""Group commit: the submissions that arrive while one commit is being made (or within a short
window) land together in the next one, so a burst of submissions makes a handful of Hub commits
rather than one each (the Hub limits commits per repository and hour).

The first caller that finds no commit being made leads: it waits `gather` (the window), takes
every waiting item and lands them with one call of `land`; the others wait for their result.
Each caller gets its own item's result, or its exception raised in its own thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class _Slot(Generic[T]):
    item: T
    done: bool = False
    result: object = None


class GroupCommit(Generic[T, R]):
    """Batches calls of `land(items) -> results` (one result or exception per item, in order)."""

    def __init__(
        self,
        land: Callable[[Sequence[T]], Sequence[R | BaseException]],
        *,
        window: float = 0.2,
        gather: Callable[[float], None] = time.sleep,
    ) -> None:
        self.land = land
        self.window = window
        self.gather = gather
        self._cond = threading.Condition()
        self._waiting: list[_Slot[T]] = []
        self._leading = False

    def __call__(self, item: T) -> R:
        slot = _Slot(item)
        with self._cond:
            self._waiting.append(slot)
            while not slot.done and self._leading:
                self._cond.wait()
            if not slot.done:
                self._leading = True
        if not slot.done:
            self._lead()
        if isinstance(slot.result, BaseException):
            raise slot.result
        return slot.result  # type: ignore[return-value]  # the item's result, as `land` returned it

    def _lead(self) -> None:
        try:
            if self.window > 0:
                self.gather(self.window)
            with self._cond:
                batch, self._waiting = self._waiting, []
            try:
                results: Sequence[object] = self.land([s.item for s in batch])
            except BaseException as exc:  # every item of the batch gets the failure
                results = [exc] * len(batch)
            with self._cond:
                for slot, result in zip(batch, results, strict=True):
                    slot.result, slot.done = result, True
        finally:
            with self._cond:
                self._leading = False
                self._cond.notify_all()
