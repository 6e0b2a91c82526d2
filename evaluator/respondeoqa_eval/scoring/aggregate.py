"""Aggregates: accuracy breakdowns and corpus BLEU, each with a seeded 95% bootstrap interval.

Pure functions from per-item scores to plain dicts (the `accuracy`, `extra` and `bleu` parts
of the report, docs/report.md; `report.Report` types them), and the paired bootstrap of two
entries' differences that the leaderboard's Compare shows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..data.breakdowns import BLEU_SPLITS, BLEU_TARGETS, DIMENSIONS, groups_of
from ..data.records import TASKS
from ..metrics.bleu import PAD_TO_GROUP_MAX, CorpusStatistics, bleu_of_rows
from .lenient import RULES, signature
from .per_item import ItemScore

LEVEL = 0.95
_COUNTS_CACHE_BYTES = 256 * 2**20
"""Resample matrices kept for reuse (a full-size accuracy matrix is about 52 MB): the Space
scores every submission of the same coverage with the same resamples."""


class _CountsCache:
    """Recently drawn resample matrices (read-only), least recently used dropped first."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple, np.ndarray] = OrderedDict()

    def get(self, key: tuple, draw: Callable[[], np.ndarray]) -> np.ndarray:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = draw()
        value.setflags(write=False)
        with self._lock:
            self._items[key] = value
            while sum(v.nbytes for v in self._items.values()) > self.max_bytes:
                self._items.popitem(last=False)
        return value


_COUNTS = _CountsCache(_COUNTS_CACHE_BYTES)


@dataclass(frozen=True)
class Bootstrap:
    """Percentile bootstrap settings; `resamples=0` turns intervals off."""

    resamples: int = 1000
    seed: int = 12345
    level: float = LEVEL

    def counts(self, n: int, salt: int = 0, dtype: type = np.int64) -> np.ndarray:
        """A read-only (resamples, n) matrix of `dtype`: how often each item is drawn in each
        resample (drawn once per process for each setting, `_COUNTS`)."""
        key = (self.resamples, self.seed, salt, n, np.dtype(dtype).str)
        return _COUNTS.get(key, lambda: self._draw(n, salt, dtype))

    def _draw(self, n: int, salt: int, dtype: type) -> np.ndarray:
        rng = np.random.default_rng([self.seed, salt])
        idx = rng.integers(0, n, size=(self.resamples, n))
        out = np.empty((self.resamples, n), dtype=dtype)
        for row, drawn in zip(out, idx, strict=True):  # row by row: no matrix-sized temporaries
            row[:] = np.bincount(drawn, minlength=n)
        return out

    def interval(self, values: np.ndarray) -> list[float]:
        tail = (1 - self.level) / 2 * 100
        lo, hi = np.nanpercentile(values, [tail, 100 - tail], axis=0)
        return [float(lo), float(hi)]


def group_means(masks: np.ndarray, values: np.ndarray, boot: Bootstrap) -> list[dict]:
    """Per column j: the mean of `values[:, j]` over the items where `masks[:, j]` is 1, its
    item count and (when `boot.resamples`) a percentile interval.

    All columns share one resample matrix of the items, so a single matrix product gives every
    group's resampled means (fast enough for a full-size submission).
    """
    sums = masks * values
    if boot.resamples:
        counts = boot.counts(masks.shape[0], dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = (counts @ sums) / (counts @ masks)
    out = []
    for j in range(masks.shape[1]):
        n = masks[:, j].sum()
        entry = {"score": float(sums[:, j].sum() / n), "n": int(n)}
        if boot.resamples:
            entry["ci"] = boot.interval(resampled[:, j])
        out.append(entry)
    return out


def accuracy(
    items: list[ItemScore],
    boot: Bootstrap,
    groups: Sequence[Mapping[str, str]] | None = None,
    *,
    lenient: bool = False,
) -> tuple[dict, dict]:
    """The report's `accuracy` and `extra` parts.

    Every group's interval comes from the same resamples of the accuracy items (`group_means`).
    `groups[i]` is `breakdowns.groups_of(items[i].record)` when the caller has it already.
    With `lenient`, each item counts with its lenient reading's score (`format_compliance`)
    and there is no `extra`.
    """
    at = [i for i, it in enumerate(items) if it.score is not None]  # PROTOCOL 5: not translation
    scored = [items[i] for i in at]
    item_groups = (
        [groups_of(it.record) for it in scored] if groups is None else [groups[i] for i in at]
    )
    n = len(scored)
    values = [it.lenient_score for it in scored] if lenient else [it.score for it in scored]
    scores = np.array(values, dtype=float)
    columns: list[tuple[str, str, np.ndarray, np.ndarray]] = [("", "overall", np.ones(n), scores)]
    for dim, dimension in DIMENSIONS.items():
        members: dict[str, list[int]] = {}
        for j, item_group in enumerate(item_groups):
            key = item_group.get(dim)
            if key is not None:
                members.setdefault(key, []).append(j)
        for key in dimension.groups:
            if key in members:
                mask = np.zeros(n)
                mask[members[key]] = 1.0
                columns.append((dim, key, mask, scores))
    sensitive = np.array([it.macron_sensitive or 0.0 for it in scored])
    sa_mask = np.array([it.record.task == "short_answer" for it in scored], dtype=float)
    if sa_mask.any() and not lenient:
        columns.append(("extra", "short_answer_macron_sensitive", sa_mask, sensitive))

    result: dict = {"overall": {"score": 0.0, "n": 0}}
    extra: dict = {}
    if n == 0:
        return result, extra
    masks = np.stack([g[2] for g in columns], axis=1)
    values = np.stack([g[3] for g in columns], axis=1)
    for (dim, key, _, _), entry in zip(columns, group_means(masks, values, boot), strict=True):
        if dim == "":
            result["overall"] = entry
        elif dim == "extra":
            extra[key] = entry
        else:
            result.setdefault(dim, {})[key] = entry
    for dim in DIMENSIONS:
        result.setdefault(dim, {})
    return result, extra


def format_compliance(
    items: list[ItemScore], boot: Bootstrap, groups: Sequence[Mapping[str, str]] | None = None
) -> dict:
    """The report's `format_compliance` part (beyond the paper; README: Format compliance).

    `accuracy_lenient` is `accuracy` of the lenient readings, with the same resamples, so its
    groups sit beside the paper's. `overall` (the accuracy items) and `by_task` count the
    items, those without a prediction, those the paper's rules extracted an answer from, the
    format failures (the paper's answer missing or not well-formed, a lenient rule read one)
    and the points their lenient readings score; `by_rule`, the failures each rule read.
    """
    acc, _ = accuracy(items, boot, groups, lenient=True)
    zero = {"n": 0, "missing": 0, "answered": 0, "failures": 0, "right": 0.0}
    overall: dict = dict(zero)
    by_task: dict[str, dict] = {}
    by_rule: dict[str, dict] = {}
    for it in items:
        counts = [by_task.setdefault(it.record.task, dict(zero))]
        if it.score is not None:
            counts.append(overall)
        rule = it.lenient.rule if it.lenient is not None and it.lenient.recovered else None
        points = (it.lenient_score or 0.0) if rule else 0.0
        for c in counts:
            c["n"] += 1
            c["missing"] += it.missing
            c["answered"] += it.answered
            c["failures"] += rule is not None
            c["right"] += points
        if rule:
            fired = by_rule.setdefault(rule, {"failures": 0, "right": 0.0})
            fired["failures"] += 1
            fired["right"] += points
    # translation is scored as a corpus: its failures score no points of their own
    for counts in [by_task.get("translation"), *map(by_rule.get, RULES["translation"][1])]:
        if counts is not None:
            counts["right"] = None
    return {
        "signature": signature(),
        "overall": overall,
        "by_task": {t: by_task[t] for t in TASKS if t in by_task},
        "by_rule": {n: by_rule[n] for _, names in RULES.values() for n in names if n in by_rule},
        "accuracy_lenient": acc,
    }


def bleu(items: list[ItemScore], boot: Bootstrap) -> dict:
    """The report's `bleu` part: by target language, overall / constrained / unconstrained."""
    out: dict = {}
    translation = [it for it in items if it.record.task == "translation"]
    for li, lang in enumerate(BLEU_TARGETS):
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
                "signature": str(res.signature),
                "variable_refs": res.variable_refs,
                "chrf": res.chrf,
                "chrf_signature": str(res.chrf_signature or ""),
            }
            if boot.resamples:
                # PROTOCOL 5: empty-reference padding to the largest count in this group
                rows = stats.rows_for(mask, PAD_TO_GROUP_MAX)
                # small integers: exact in floating point, where the product is much faster
                counts = boot.counts(len(rows), salt=1 + 3 * li + si, dtype=float)
                sampled = (counts @ rows.astype(float)).astype(np.int64)
                entry["ci"] = boot.interval(np.array(bleu_of_rows(sampled)))
            out[lang][split] = entry
    return out


@dataclass(frozen=True)
class Difference:
    """Mean score of A minus B over one group's items, with a paired bootstrap interval."""

    dimension: str  # a breakdown key (`by_content`, ...) or "overall"
    group: str
    n: int
    a: float
    b: float
    diff: float
    ci: tuple[float, float] | None

    @property
    def significant(self) -> bool:
        """The interval excludes zero."""
        return self.ci is not None and (self.ci[0] > 0 or self.ci[1] < 0)


def paired_differences(
    a: Sequence[float],
    b: Sequence[float],
    groups: Sequence[Mapping[str, str]],
    boot: Bootstrap,
    dimensions: Sequence[str] = ("by_content", "by_language_pair"),
) -> list[Difference]:
    """Paired bootstrap of mean(A) - mean(B), overall and per group of `dimensions`.

    `a[i]`, `b[i]` are two entries' scores of the same item i; `groups[i]` is that item's
    report groups (`ItemResult.groups`). Items are resampled together (the same resample matrix
    as `accuracy`), so every difference keeps the pairing.
    """
    va, vb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n = len(va)
    if n == 0:
        return []
    cols: list[tuple[str, str, np.ndarray]] = [("overall", "overall", np.ones(n))]
    for dim in dimensions:
        dimension = DIMENSIONS[dim]
        keys = [g.get(dim) for g in groups]
        present = sorted({k for k in keys if k is not None}, key=lambda k: (dimension.order(k), k))
        for key in present:
            cols.append((dim, key, np.array([k == key for k in keys], dtype=float)))
    masks = np.stack([c[2] for c in cols], axis=1)
    diffs = group_means(masks, np.repeat((va - vb)[:, None], len(cols), axis=1), boot)
    out = []
    for (dim, key, mask), d in zip(cols, diffs, strict=True):
        ci = d.get("ci")
        out.append(
            Difference(
                dim,
                key,
                d["n"],
                float((mask * va).sum() / mask.sum()),
                float((mask * vb).sum() / mask.sum()),
                d["score"],
                None if ci is None else (ci[0], ci[1]),
            )
        )
    return out
