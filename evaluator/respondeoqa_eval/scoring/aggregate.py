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
from typing import Any

import numpy as np

from ..data.breakdowns import BLEU_SPLITS, BLEU_TARGETS, DIMENSIONS, groups_of
from ..data.records import TASKS
from ..metrics.bleu import PAD_TO_GROUP_MAX, CorpusStatistics, bleu_scores
from .lenient import RULES, signature
from .per_item import ItemScore

LEVEL = 0.95
_COUNTS_CACHE_BYTES = 256 * 2**20
"""Resample matrices kept for reuse (a full-size accuracy matrix is about 7 MB): the Space
scores every submission of the same coverage with the same resamples."""
_BLOCK = 100
"""Resamples multiplied at a time: a block's counts as floats stay a few MB whatever the
number of resamples."""
_DRAW_BLOCK = 25
"""Resamples drawn and counted at a time (the draws are 8-byte integers)."""


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
            while len(self._items) > 1 and sum(v.nbytes for v in self._items.values()) > (
                self.max_bytes
            ):
                self._items.popitem(last=False)
        return value


_COUNTS = _CountsCache(_COUNTS_CACHE_BYTES)


def clear_counts() -> None:
    """Drop every kept resample matrix."""
    with _COUNTS._lock:
        _COUNTS._items.clear()


def keep_counts(max_bytes: int = _COUNTS_CACHE_BYTES) -> int:
    """Keep resample matrices up to `max_bytes` (the last one drawn whatever its size), and
    return the setting before: a one-shot process (`score`) keeps only the last, which the next
    group of the same items uses (the lenient accuracy after the paper's), and lets go of it
    when BLEU draws its own."""
    with _COUNTS._lock:
        before, _COUNTS.max_bytes = _COUNTS.max_bytes, max_bytes
    return before


@dataclass(frozen=True)
class Bootstrap:
    """Percentile bootstrap settings; `resamples=0` turns intervals off."""

    resamples: int = 1000
    seed: int = 12345
    level: float = LEVEL

    def counts(self, n: int, salt: int = 0) -> np.ndarray:
        """A read-only (resamples, n) matrix of small unsigned integers: how often each item
        is drawn in each resample (kept in the process, `_COUNTS`)."""
        key = (self.resamples, self.seed, salt, n)
        return _COUNTS.get(key, lambda: self._draw(n, salt))

    def _draw(self, n: int, salt: int) -> np.ndarray:
        # the same numbers as one rng.integers(0, n, size=(resamples, n)): the generator's
        # stream does not depend on how the draw is cut into blocks
        rng = np.random.default_rng([self.seed, salt])
        out = np.empty((self.resamples, n), dtype=np.uint8)
        # 4-byte draws are the same numbers as 8-byte ones (numpy draws both from 32 bits
        # when n < 2**32), in half the time; a block's positions must fit too
        dtype = np.int32 if n * _DRAW_BLOCK < 2**31 else np.int64
        for start in range(0, self.resamples, _DRAW_BLOCK):
            rows = min(_DRAW_BLOCK, self.resamples - start)
            idx = rng.integers(0, n, size=(rows, n), dtype=dtype)
            idx += np.arange(rows, dtype=dtype)[:, None] * n  # one bincount: every row
            block = np.bincount(idx.ravel(), minlength=rows * n).reshape(rows, n)
            if block.max(initial=0) > np.iinfo(out.dtype).max:
                out = out.astype(np.int64)  # a count over 255: only for tiny n or huge luck
            out[start : start + rows] = block
        return out

    def interval(self, values: np.ndarray) -> list[float]:
        return self.intervals(np.asarray(values).reshape(-1, 1))[0]

    def intervals(self, values: np.ndarray) -> list[list[float]]:
        """The percentile interval of each column of `values` (resamples in rows; NaN, a
        resample without the group's items, left out)."""
        tail = (1 - self.level) / 2 * 100
        lo, hi = _nan_percentiles(np.asarray(values, dtype=float), [tail, 100 - tail]).tolist()
        return [[a, b] for a, b in zip(lo, hi, strict=True)]


def _nan_percentiles(values: np.ndarray, q: list[float]) -> np.ndarray:
    """`np.nanpercentile(values, q, axis=0)`, the same numbers (a test pins them): the columns
    without NaN in one `np.percentile`, each other column's values but NaN through it, which
    is what nanpercentile computes, column by column, in Python (its `apply_along_axis` was
    most of the intervals' time)."""
    out = np.full((len(q), values.shape[1]), np.nan)
    has_nan = np.isnan(values).any(axis=0)
    if not has_nan.all():
        out[:, ~has_nan] = np.percentile(values[:, ~has_nan], q, axis=0)
    for j in np.flatnonzero(has_nan).tolist():
        column = values[:, j]
        column = column[~np.isnan(column)]
        if len(column):
            out[:, j] = np.percentile(column, q)
    return out


def resampled_sums(counts: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """`counts @ matrix` in floating point, a block of resamples at a time (the float copy of
    the counts is a block's, never the whole matrix's).

    Exact when `matrix` holds integers (sums below 2**53). Fractions (the feet's partial
    credit) are summed in the BLAS library's order, which a block of 100 rows keeps the same as
    one product of the whole matrix (checked on the full-size benchmark file: every interval
    the same to the last bit).
    """
    out = np.empty((len(counts), matrix.shape[1]))
    for start in range(0, len(counts), _BLOCK):
        out[start : start + _BLOCK] = counts[start : start + _BLOCK].astype(float) @ matrix
    return out


def _pattern_counts(counts: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Items whose `rows` are equal, resampled as one: the distinct rows, and each resample's
    count of the items of each (`counts` summed over them, exact integers)."""
    keys = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1] * rows.itemsize)))
    _, first, inverse = np.unique(keys.ravel(), return_index=True, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    starts = np.flatnonzero(np.diff(inverse[order], prepend=-1))
    out = np.empty((len(counts), len(first)))
    for start in range(0, len(counts), _BLOCK):
        block = counts[start : start + _BLOCK][:, order]
        out[start : start + _BLOCK] = np.add.reduceat(block, starts, axis=1, dtype=np.int64)
    return rows[first], out


def _resampled_means(counts: np.ndarray, masks: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """`(counts @ sums) / (counts @ masks)`, each resample's mean of each column, the same to
    the last bit with fewer operations.

    A column of whole numbers (the masks, right / wrong scores) is summed exactly whatever the
    order of the additions, so items with the same row in every such column are summed once
    (`_pattern_counts`: 93 distinct rows among the 6,563 items of a full-size file). When a column
    holds fractions (the feet's partial credit), the sums are the product of the whole matrix,
    as they always were: a product of fewer columns may add in another order.
    """
    whole = all(bool((column == np.rint(column)).all()) for column in sums.T)  # no n-by-k copy
    rows = np.concatenate([masks, sums], 1) if whole else masks
    patterns, by_pattern = _pattern_counts(counts, rows.astype(np.int32))
    sizes = by_pattern @ patterns[:, : masks.shape[1]]
    totals = by_pattern @ patterns[:, masks.shape[1] :] if whole else resampled_sums(counts, sums)
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals / sizes


def group_means(masks: np.ndarray, values: np.ndarray, boot: Bootstrap) -> list[dict]:
    """Per column j: the mean of `values[:, j]` over the items where `masks[:, j]` is 1, its
    item count and (when `boot.resamples`) a percentile interval.

    All columns share one resample matrix of the items (`_resampled_means`).
    """
    return _group_means(masks, masks * values, boot)


def _group_means(masks: np.ndarray, sums: np.ndarray, boot: Bootstrap) -> list[dict]:
    """`group_means` of `sums` = masks * values."""
    if boot.resamples:
        counts = boot.counts(masks.shape[0])
        intervals = boot.intervals(_resampled_means(counts, masks, sums))
    out = []
    for j in range(masks.shape[1]):
        n = masks[:, j].sum()
        entry: dict[str, Any] = {"score": float(sums[:, j].sum() / n), "n": int(n)}
        if boot.resamples:
            entry["ci"] = intervals[j]
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
    # the items of each groups mapping (the report's items share them: a few hundred)
    sharing: dict[int, tuple[Mapping[str, str], list[int]]] = {}
    for j, item_group in enumerate(item_groups):
        sharing.setdefault(id(item_group), (item_group, []))[1].append(j)
    members: dict[str, dict[str, list[int]]] = {dim: {} for dim in DIMENSIONS}
    for item_group, rows in sharing.values():
        for dim, key in item_group.items():
            if dim in members:
                members[dim].setdefault(key, []).extend(rows)
    # (dimension, group, its items: None for all)
    columns: list[tuple[str, str, list[int] | None]] = [("", "overall", None)]
    for dim, dimension in DIMENSIONS.items():
        found = members[dim]
        columns += [(dim, key, found[key]) for key in dimension.groups if key in found]
    sa_mask = np.array([it.record.task == "short_answer" for it in scored], dtype=float)
    macrons = bool(sa_mask.any()) and not lenient
    if macrons:
        columns.append(("extra", "short_answer_macron_sensitive", None))

    result: dict = {"overall": {"score": 0.0, "n": 0}}
    extra: dict = {}
    if n == 0:
        return result, extra
    # one matrix of every column's mask, and of its masked scores (never a copy per column:
    # this and the resampling are the peak of the `score` command's memory, issue 31)
    masks = np.zeros((n, len(columns)))
    for j, (_, _, column_rows) in enumerate(columns):
        masks[slice(None) if column_rows is None else column_rows, j] = 1.0
    sums = masks * scores[:, None]
    if macrons:
        sensitive = np.array([it.macron_sensitive or 0.0 for it in scored])
        masks[:, -1] = sa_mask
        sums[:, -1] = sa_mask * sensitive
    for (dim, key, _), entry in zip(columns, _group_means(masks, sums, boot), strict=True):
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
    """The report's `format_compliance` part (beyond the paper; docs/format-compliance.md).

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
        task = by_task.get(it.record.task)
        if task is None:
            task = by_task[it.record.task] = dict(zero)
        rule = it.lenient.rule if it.lenient is not None and it.lenient.recovered else None
        points = (it.lenient_score or 0.0) if rule else 0.0
        missing, answered, failed = it.missing, it.answered, rule is not None
        for c in (task, overall) if it.score is not None else (task,):
            c["n"] += 1
            c["missing"] += missing
            c["answered"] += answered
            c["failures"] += failed
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
                # integers: the product in floating point is exact, and much faster
                counts = boot.counts(len(rows), salt=1 + 3 * li + si)
                sampled = resampled_sums(counts, rows.astype(float)).astype(np.int64)
                entry["ci"] = boot.interval(np.array(bleu_scores(sampled)))
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
