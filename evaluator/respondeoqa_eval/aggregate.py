"""Aggregates: accuracy breakdowns and corpus BLEU, each with a seeded 95% bootstrap interval.

Pure functions from per-item scores to plain dicts (the `accuracy`, `extra` and `bleu` parts
of the report, docs/report.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .metrics.bleu import CorpusStatistics, bleu_from_stats
from .records import (
    CONTENTS,
    DIFFICULTIES,
    FORMATS,
    LANGUAGE_PAIRS,
    LANGUAGES,
    SOURCES,
    TASKS,
    Record,
)
from .scoring import ItemScore

LEVEL = 0.95


@dataclass(frozen=True)
class Bootstrap:
    """Percentile bootstrap settings; `resamples=0` turns intervals off."""

    resamples: int = 1000
    seed: int = 12345
    level: float = LEVEL

    def counts(self, n: int, salt: int = 0) -> np.ndarray:
        """A (resamples, n) matrix: how often each item is drawn in each resample."""
        rng = np.random.default_rng([self.seed, salt])
        idx = rng.integers(0, n, size=(self.resamples, n))
        flat = idx + (np.arange(self.resamples) * n)[:, None]
        return np.bincount(flat.ravel(), minlength=self.resamples * n).reshape(self.resamples, n)

    def interval(self, values: np.ndarray) -> list[float]:
        tail = (1 - self.level) / 2 * 100
        lo, hi = np.nanpercentile(values, [tail, 100 - tail], axis=0)
        return [float(lo), float(hi)]


def _multihop_key(r: Record) -> str | None:
    if r.task != "short_answer" or r.multihop is None:
        return None
    return "multihop" if r.multihop else "regular"


# report key -> (group of a record (None: not in this breakdown), order of the keys)
DIMENSIONS: dict[str, tuple[Callable[[Record], str | None], tuple[str, ...]]] = {
    "by_task": (lambda r: r.task, TASKS),
    "by_content": (lambda r: r.question_content, CONTENTS),
    "by_language_pair": (lambda r: r.language_pair, LANGUAGE_PAIRS),
    "by_category": (lambda r: r.category, ("knowledge", "skill")),
    "by_format": (lambda r: r.question_format, FORMATS),
    "by_source": (lambda r: r.source, SOURCES),
    "by_difficulty": (lambda r: r.difficulty, DIFFICULTIES),
    # PROTOCOL 5: multihop vs regular is reported over short-answer items
    "by_multihop": (_multihop_key, ("multihop", "regular")),
}


def accuracy(items: list[ItemScore], boot: Bootstrap) -> tuple[dict, dict]:
    """The report's `accuracy` and `extra` parts.

    Every group's interval comes from the same resamples of the accuracy items, so one matrix
    product gives all of them (fast enough for a full-size submission).
    """
    scored = [it for it in items if it.score is not None]  # PROTOCOL 5: all but translation
    n = len(scored)
    scores = np.array([it.score for it in scored], dtype=float)
    groups: list[tuple[str, str, np.ndarray, np.ndarray]] = [("", "overall", np.ones(n), scores)]
    for dim, (key_of, order) in DIMENSIONS.items():
        keys = [key_of(it.record) for it in scored]
        for key in order:
            mask = np.array([k == key for k in keys], dtype=float)
            if mask.any():
                groups.append((dim, key, mask, scores))
    sensitive = np.array([it.macron_sensitive or 0.0 for it in scored])
    sa_mask = np.array([it.record.task == "short_answer" for it in scored], dtype=float)
    if sa_mask.any():
        groups.append(("extra", "short_answer_macron_sensitive", sa_mask, sensitive))

    result: dict = {"overall": {"score": 0.0, "n": 0}}
    extra: dict = {}
    if n == 0:
        return result, extra
    masks = np.stack([g[2] for g in groups], axis=1)
    sums = np.stack([g[2] * g[3] for g in groups], axis=1)
    if boot.resamples:
        counts = boot.counts(n).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = (counts @ sums) / (counts @ masks)
    for j, (dim, key, mask, vals) in enumerate(groups):
        entry = {"score": float((mask * vals).sum() / mask.sum()), "n": int(mask.sum())}
        if boot.resamples:
            entry["ci"] = boot.interval(resampled[:, j])
        if dim == "":
            result["overall"] = entry
        elif dim == "extra":
            extra[key] = entry
        else:
            result.setdefault(dim, {})[key] = entry
    for dim in DIMENSIONS:
        result.setdefault(dim, {})
    return result, extra


BLEU_SPLITS: dict[str, Callable[[Record], bool]] = {
    "overall": lambda r: True,
    "constrained": lambda r: r.constrained is True,
    "unconstrained": lambda r: r.constrained is not True,
}


def bleu(items: list[ItemScore], boot: Bootstrap) -> dict:
    """The report's `bleu` part: by target language, overall / constrained / unconstrained."""
    out: dict = {}
    translation = [it for it in items if it.record.task == "translation"]
    for li, lang in enumerate(LANGUAGES):
        group = [it for it in translation if it.record.answer_language == lang]
        out[lang] = dict.fromkeys(BLEU_SPLITS)
        if not group:
            continue
        # tokenise each item once; every split is a subset of these statistics
        stats = CorpusStatistics(
            [it.hypothesis for it in group], [it.record.answers for it in group], lang
        )
        for si, (split, keep) in enumerate(BLEU_SPLITS.items()):
            mask = np.array([keep(it.record) for it in group])
            if not mask.any():
                continue
            res = stats.result(mask)
            entry = {
                "score": res.score,
                "n": res.n,
                "signature": res.signature,
                "variable_refs": res.variable_refs,
                "chrf": res.chrf,
                "chrf_signature": res.chrf_signature,
            }
            if boot.resamples:
                # PROTOCOL 5: empty-reference padding to the largest count in this group
                rows = stats.paper_rows(mask)
                sampled = boot.counts(len(rows), salt=1 + 3 * li + si) @ rows
                entry["ci"] = boot.interval(np.array([bleu_from_stats(row) for row in sampled]))
            out[lang][split] = entry
    return out
