"""A progress bar with rate and ETA (tqdm), started
only when the answering does (after a local model has loaded), so its clock and rate are the
answering's."""

from __future__ import annotations

from typing import Any


class _Silent:
    def __init__(self, total: int, initial: int) -> None:
        self.total, self.n = total, initial

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        pass


def progress_bar(total: int, initial: int = 0, desc: str = "items", enabled: bool = True) -> Any:
    """A bar over `total` items, `initial` of them already done (resumed runs)."""
    if not enabled:
        return _Silent(total, initial)
    from tqdm.auto import tqdm  # the runner's extras ([api], [run]) install it

    return tqdm(total=total, initial=initial, desc=desc, unit="item", dynamic_ncols=True)


class Progress:
    """A bar that appears on `start()` (or the first `update`): the runner starts it once its
    model is loaded, so loading time neither shows as 0 items/s nor skews the ETA."""

    def __init__(self, total: int, initial: int = 0, desc: str = "items", enabled: bool = True):
        self.total, self.initial, self.desc, self.enabled = total, initial, desc, enabled
        self._bar: Any = None

    @property
    def started(self) -> bool:
        return self._bar is not None

    def start(self) -> None:
        if self._bar is None:
            self._bar = progress_bar(self.total, self.initial, self.desc, self.enabled)

    def update(self, n: int = 1) -> None:
        self.start()
        self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
