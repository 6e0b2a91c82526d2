"""Item analysis across entries (README: Item analysis): which items are hard, which separate
strong entries from weak ones, and which look like gold errors. Pure: entries' per-item
results in, an `ItemAnalysis` out; reading reports and writing the CSV is `items_cli.py`.

Per item (accuracy items only: translation is scored as a corpus, so it has no per-item score),
over the entries that have a prediction for it (an unanswered prediction counts, as 0):

- `share_right`: the share of entries whose score is 1 (the item's difficulty, classical test
  theory's p: 0 is the hardest); `mean_score` beside it (feet get partial credit);
- `discrimination`: the point-biserial correlation of the item's score with the entries'
  score on the other analysed items (the corrected item-rest correlation; Pearson's r, which
  is the point-biserial for a 0/1 item). Not a 2PL IRT fit: with the handful to hundreds of
  entries a leaderboard has, a 2PL's two parameters per item are not identified for items
  every entry gets right or wrong and diverge under perfect separation, while r is closed-form
  and deterministic from 3 entries on;
- the most common wrong answer (grouped by the item's metric key, shown in its most common
  spelling) and how many entries gave it;
- `suspected_gold_error`: strong entries (the better half by score) agree on one wrong answer
  (at least `Thresholds.agree_min` of them and `agree_share` of the strong entries with a
  prediction for the item), or the gold breaks the item's own format rule
  (`answer_format.gold_format_problem`, with the gold given).
"""

from __future__ import annotations

import functools
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.breakdowns import DIMENSIONS
from ..data.records import PUBLIC_SOURCES, Record, split_language_pair
from ..metrics import METRICS
from ..report.model import ItemResult
from ..scoring.answer_format import gold_format_problem

STRONG_AGREE = "strong-agree"
"""Reason code: strong entries agree on one wrong answer."""
GOLD_FORMAT = "gold-format"
"""Reason code: the gold breaks the item's own format rule."""


@dataclass(frozen=True)
class Thresholds:
    """The analysis's rules of thumb (README: Item analysis)."""

    strong_share: float = 0.5  # strong entries: the better half by score (ties included)
    agree_min: int = 2  # strong entries that must give the same wrong answer ...
    agree_share: float = 2 / 3  # ... and this share of the strong entries with the item
    min_entries: int = 3  # entries an item needs for a discrimination


@dataclass(frozen=True)
class EntryStats:
    """One entry in the analysis: its score over the analysed items it has a prediction for."""

    name: str
    n_items: int
    score: float
    strong: bool


@dataclass(frozen=True)
class ItemStats:
    """One item across entries (module docstring); `question` and `gold` only when given."""

    id: str
    question_id: str
    question_language: str
    source: str
    task: str
    groups: Mapping[str, str]
    entries: int  # entries with a prediction for the item
    right: int  # entries with score 1
    share_right: float
    mean_score: float
    unanswered: int  # entries from whose prediction the paper's rules extracted nothing
    discrimination: float | None
    wrong_answer: str | None  # the most common wrong answer
    wrong_count: int  # entries that gave it
    strong_entries: int  # strong entries with a prediction for the item
    strong_agree: int  # the most strong entries that gave one and the same wrong answer
    strong_answer: str | None  # that answer
    gold_problem: str | None = None  # why the gold breaks its format rule (never quotes it)
    reasons: tuple[str, ...] = ()  # STRONG_AGREE, GOLD_FORMAT
    question: str | None = None
    gold: str | None = None

    @property
    def is_private(self) -> bool:
        return self.source not in PUBLIC_SOURCES

    @property
    def suspected_gold_error(self) -> bool:
        return bool(self.reasons)


GROUP_COLUMNS = {d.key: d.column for d in DIMENSIONS.values()}
"""Breakdown key -> its column (by_language_pair -> language_pair)."""

COLUMNS = (
    "id",
    "question_id",
    "question_language",
    *GROUP_COLUMNS.values(),
    "entries",
    "right",
    "share_right",
    "mean_score",
    "unanswered",
    "discrimination",
    "wrong_answer",
    "wrong_count",
    "strong_entries",
    "strong_agree",
    "strong_answer",
    "suspected_gold_error",
    "reasons",
    "gold_problem",
    "question",
    "gold",
)
"""The columns of `ItemAnalysis.rows()` (and of the CLI's CSV), in order; the group columns
(task, content, language_pair, category, format, source, difficulty, multihop) hold group
keys, "" where the item is not in that breakdown."""


@dataclass(frozen=True)
class ItemAnalysis:
    """The analysis of some entries' items: items hardest first, entries best first."""

    items: tuple[ItemStats, ...]
    entries: tuple[EntryStats, ...]
    thresholds: Thresholds = field(default_factory=Thresholds)
    private_items: int = 0  # private items left out (public_only)
    private_flagged: int = 0  # of those, suspected gold errors

    @property
    def flagged(self) -> tuple[ItemStats, ...]:
        return tuple(it for it in self.items if it.suspected_gold_error)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per item, keys `COLUMNS` (numbers as numbers, None where undefined)."""
        return [_row(it) for it in self.items]


def _row(it: ItemStats) -> dict[str, Any]:
    row: dict[str, Any] = {name: getattr(it, name, None) for name in COLUMNS}
    row.update({column: it.groups.get(key, "") for key, column in GROUP_COLUMNS.items()})
    # translation items have no by_task group, but every item has a task and a source
    row.update(task=it.task, source=it.source, reasons=" ".join(it.reasons))
    row["suspected_gold_error"] = it.suspected_gold_error
    return row


def _answer_language(it: ItemResult) -> str:
    return split_language_pair(it.groups.get("by_language_pair", ""))[1]


def _strong(scores: dict[str, float], share: float) -> set[str]:
    """The best `share` of the entries by score (at least one), ties at the edge included."""
    if not scores:
        return set()
    ranked = sorted(scores.values(), reverse=True)
    edge = ranked[max(1, math.ceil(share * len(ranked))) - 1]
    return {name for name, s in scores.items() if s >= edge}


_NO_SPREAD = 1e-12
"""Sums of squares below this are no spread (partial credit is not exact in floating point)."""


def _discrimination(matrix: np.ndarray, min_entries: int) -> list[float | None]:
    """Per item (column), Pearson's r of its scores with the entries' mean score on their other
    items, over the entries with the item (NaN: no prediction). None with fewer than
    `min_entries` such entries or no spread on either side."""
    have = ~np.isnan(matrix)
    scores = np.where(have, matrix, 0.0)
    count = have.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rest = (scores.sum(axis=1, keepdims=True) - scores) / (count - 1)
    use = have & (count > 1)  # an entry with one item has no "other items"
    n = use.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = np.where(use, scores - np.where(use, scores, 0).sum(axis=0) / n, 0.0)
        dr = np.where(use, rest - np.where(use, rest, 0).sum(axis=0) / n, 0.0)
    sxx, srr, sxr = (dx * dx).sum(axis=0), (dr * dr).sum(axis=0), (dx * dr).sum(axis=0)
    return [
        None if k < min_entries or a < _NO_SPREAD or b < _NO_SPREAD else float(c / np.sqrt(a * b))
        for k, a, b, c in zip(n, sxx, srr, sxr, strict=True)
    ]


def analyze_items(
    entries: Mapping[str, Sequence[ItemResult]],
    gold: Mapping[str, Record] | None = None,
    *,
    public_only: bool = False,
    private_text: bool = False,
    thresholds: Thresholds = Thresholds(),
) -> ItemAnalysis:
    """Analyse the items of `entries` (entry name -> its per-item results: `Report.items` of a
    `score --report` file, or a leaderboard entry's stored items).

    `gold` (item id -> gold record, e.g. `GoldSet.by_id`) adds the gold format check and the
    question and gold answer of public items (of private ones too with `private_text`). With
    `public_only`, private items are left out before anything is computed (so the public
    numbers can be reproduced from public per-item results alone), and only counted:
    `private_items`, and `private_flagged`, the private suspected gold errors of the analysis
    of every item (what the operator sees). Items without a per-item score (translation) are
    left out. Wrong answers come from `extracted`: a leaderboard store keeps none for private
    items, so an operator's analysis of them needs items scored anew from the kept predictions.
    """
    by_item: dict[str, list[tuple[str, ItemResult]]] = {}  # in first-seen order
    per_entry: Counter[str] = Counter()
    for name, items in entries.items():
        for it in items:
            if it.score is None or it.missing or (public_only and it.is_private):
                continue
            by_item.setdefault(it.id, []).append((name, it))
            per_entry[name] += 1
    private_items = private_flagged = 0
    if public_only:
        whole = analyze_items(entries, gold, thresholds=thresholds)
        private_items = sum(it.is_private for it in whole.items)
        private_flagged = sum(it.is_private for it in whole.flagged)
    names = [n for n in entries if per_entry[n]]
    row = {name: e for e, name in enumerate(names)}
    ids = list(by_item)
    matrix = np.full((len(names), len(ids)), np.nan)
    cells = [(row[name], j, it.score) for j, rs in enumerate(by_item.values()) for name, it in rs]
    if cells:
        at_row, at_col, value = zip(*cells, strict=True)
        matrix[list(at_row), list(at_col)] = value
    overall = {n: float(np.nanmean(matrix[e])) for e, n in enumerate(names)}
    strong = _strong(overall, thresholds.strong_share)
    discrimination = _discrimination(matrix, thresholds.min_entries)

    @functools.cache
    def key_of(task: str, language: str, extracted: str) -> str:
        return METRICS[task].key(extracted, language)  # answers repeat across entries

    stats = [
        _item_stats(
            results[0][1],
            results,
            strong,
            discrimination[j],
            None if gold is None else gold.get(item_id),
            private_text,
            thresholds,
            key_of,
        )
        for j, (item_id, results) in enumerate(by_item.items())
    ]
    order = {item_id: j for j, item_id in enumerate(ids)}
    # hardest first; among equally hard items, those with more evidence first
    stats.sort(key=lambda s: (s.share_right, -s.entries, s.mean_score, order[s.id]))
    ranked = sorted(names, key=lambda n: (-overall[n], n))
    return ItemAnalysis(
        items=tuple(stats),
        entries=tuple(EntryStats(n, per_entry[n], overall[n], n in strong) for n in ranked),
        thresholds=thresholds,
        private_items=private_items,
        private_flagged=private_flagged,
    )


def _item_stats(
    first: ItemResult,
    results: list[tuple[str, ItemResult]],
    strong: set[str],
    discrimination: float | None,
    record: Record | None,
    private_text: bool,
    thresholds: Thresholds,
    key_of: Callable[[str, str, str], str],
) -> ItemStats:
    language = _answer_language(first)
    wrong: Counter[str] = Counter()
    strong_wrong: Counter[str] = Counter()
    spellings: defaultdict[str, Counter[str]] = defaultdict(Counter)
    right = unanswered = n_strong = 0
    total = 0.0
    for name, it in results:
        score = it.score or 0.0
        total += score
        n_strong += name in strong
        if score == 1.0:
            right += 1
            continue
        if not it.answered:
            unanswered += 1
            continue
        key = key_of(first.task, language, it.extracted or "")
        if key:
            wrong[key] += 1
            spellings[key][(it.extracted or "").strip()] += 1
            strong_wrong[key] += name in strong
    common = wrong.most_common(1)
    top_strong = [(k, c) for k, c in strong_wrong.most_common(1) if c]
    agree = top_strong[0][1] if top_strong else 0
    reasons = []
    if agree >= thresholds.agree_min and agree >= thresholds.agree_share * n_strong:
        reasons.append(STRONG_AGREE)
    problem = None if record is None else gold_format_problem(record)
    if problem:
        reasons.append(GOLD_FORMAT)
    shown = record if record is not None and (not first.is_private or private_text) else None

    def spelled(key: str) -> str:
        return spellings[key].most_common(1)[0][0]

    return ItemStats(
        id=first.id,
        question_id=first.question_id,
        question_language=first.question_language,
        source=first.source,
        task=first.task,
        groups=dict(first.groups),
        entries=len(results),
        right=right,
        share_right=right / len(results),
        mean_score=total / len(results),
        unanswered=unanswered,
        discrimination=discrimination,
        wrong_answer=spelled(common[0][0]) if common else None,
        wrong_count=common[0][1] if common else 0,
        strong_entries=n_strong,
        strong_agree=agree,
        strong_answer=spelled(top_strong[0][0]) if top_strong else None,
        gold_problem=problem,
        reasons=tuple(reasons),
        question=shown.question if shown else None,
        gold=shown.answers[0] if shown and shown.answers else None,
    )
