"""The small abstract base every per-item metric implements (after sacreBLEU's `metrics/`)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from .._version import __version__
from .signature import Signature


def package_version() -> str:
    """The respondeoqa-eval version, for metric signatures (the same in a checkout and a wheel)."""
    return __version__


class Metric(ABC):
    """A per-item accuracy metric: a score in [0, 1] for one prediction against the gold answers."""

    name: str = ""

    @property
    @abstractmethod
    def options(self) -> tuple[str, ...]:
        """The normalisation steps, as signature fields (e.g. "lc", "punct:ascii")."""

    @property
    def signature(self) -> Signature:
        """A reproducibility signature, e.g. "exact_match|lc|punct:ascii|version:0.1.0"."""
        fields = [(k, v if sep else None) for k, sep, v in (o.partition(":") for o in self.options)]
        return Signature((*fields, ("version", package_version())), self.name)

    @abstractmethod
    def score(self, answers: list[str], answer_language: str, prediction: str | None) -> float:
        """Score one prediction; a None or empty prediction scores 0."""

    @abstractmethod
    def key(self, prediction: str | None, answer_language: str) -> str:
        """The normalised form this metric compares: two predictions with the same key get the
        same score against any gold ("" for no prediction). Item analysis groups answers by it."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.signature)!r})"
