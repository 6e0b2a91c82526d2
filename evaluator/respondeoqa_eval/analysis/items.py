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
- `suspected_gold_error`: more entries give one and the same wrong answer than chance
  explains (`agreement_p`, below), or the gold breaks the item's own format rule
  (`answer_format.gold_format_problem`, with the gold given).

The chance test (README: Item analysis). Under "the gold is right", entry e is wrong on an
item of task t with probability 1 - a_e,t (its share right on the analysed items of that task,
Laplace-smoothed), and a wrong entry gives one particular wrong answer with probability q: for
multiple choice max(1 / (k - 1), c_t) with k the item's options, for open answers c_t, where
c_t is the task's collision rate (how often two wrong answers to the same item are the same,
over every item of the task; at least `Thresholds.min_chance`). The number of entries giving
the item's most common wrong answer is then a Poisson-binomial count; `agreement_p` is the
probability of at least the observed count, times 1 / q (a union bound over the wrong answers
the most common one is chosen from). Items with `Thresholds.flag_min_entries` entries or more
are tested, and the flags are those the Benjamini-Hochberg procedure keeps at false discovery
rate `Thresholds.fdr` over the tested items (`agreement_q`: the adjusted p-value).
"""

from __future__ import annotations

import dataclasses
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
from ..scoring.answer_format import gold_format_problem, option_letters

AGREE = "agree"
"""Reason code: more entries give one wrong answer than chance explains."""
GOLD_FORMAT = "gold-format"
"""Reason code: the gold breaks the item's own format rule."""


MC_OPTIONS = 4
"""Options of a multiple-choice item when no gold is given (Certamen and NLE items have 4)."""


@dataclass(frozen=True)
class Thresholds:
    """The analysis's rules of thumb (README: Item analysis)."""

    strong_share: float = 0.5  # strong entries: the better half by score (ties included)
    min_entries: int = 3  # entries an item needs for a discrimination
    flag_min_entries: int = 5  # entries an item needs before the chance test can flag it
    fdr: float = 0.01  # Benjamini-Hochberg false discovery rate over the tested items
    min_chance: float = 0.02  # the least chance that a wrong entry gives one given answer


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
    agreement_expected: float | None = None  # entries expected to give that answer by chance
    agreement_p: float | None = None  # chance of as many agreeing (None: not tested)
    agreement_q: float | None = None  # agreement_p adjusted over the tested items (BH)
    agreement_order_p: float | None = None  # chance the agreeing entries are this strong
    gold_problem: str | None = None  # why the gold breaks its format rule (never quotes it)
    reasons: tuple[str, ...] = ()  # AGREE, GOLD_FORMAT
    question: str | None = None
    gold: str | None = None

    @property
    def is_private(self) -> bool:
        return self.source not in PUBLIC_SOURCES

    @property
    def suspected_gold_error(self) -> bool:
        return bool(self.reasons)

    @property
    def agreement(self) -> str:
        """The chance test's evidence in words ("" when the item was not tested)."""
        if self.agreement_p is None or self.wrong_answer is None:
            return ""
        return (
            f"{self.wrong_count} of {self.entries} entries answer {self.wrong_answer!r} "
            f"({self.agreement_expected:.1f} expected by chance; p {self.agreement_p:.1e}, "
            f"adjusted {self.agreement_q:.1e})"
        )


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
    "agreement_expected",
    "agreement_p",
    "agreement_q",
    "agreement_order_p",
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

    computed = [
        _item_stats(
            results[0][1],
            results,
            strong,
            discrimination[j],
            None if gold is None else gold.get(item_id),
            private_text,
            key_of,
        )
        for j, (item_id, results) in enumerate(by_item.items())
    ]
    stats = _chance_test(computed, by_item, gold, thresholds, key_of)
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


def _poisson_binomial_tail(probabilities: Sequence[float], at_least: int) -> float:
    """P(at least `at_least` of independent events with these probabilities happen)."""
    dist = np.zeros(len(probabilities) + 1)
    dist[0] = 1.0
    for p in probabilities:  # the count's distribution, one event at a time
        dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
        dist[0] *= 1 - p
    return float(min(1.0, dist[at_least:].sum()))


def _rank_sum_p(strength: Sequence[float], chosen: Sequence[bool]) -> float:
    """One-sided p that the `chosen` entries are this strong if they were any entries as many
    (Wilcoxon's rank sum, normal approximation with a continuity correction, tied ranks
    averaged)."""
    n, m = len(strength), sum(chosen)
    if m == 0 or m == n:
        return 1.0
    order = sorted(range(n), key=lambda i: strength[i])
    ranks = [0.0] * n
    i = 0
    while i < n:  # average ranks over ties
        j = i
        while j + 1 < n and strength[order[j + 1]] == strength[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    total = sum(r for r, c in zip(ranks, chosen, strict=True) if c)
    sd = math.sqrt(m * (n - m) * (n + 1) / 12)
    z = (total - m * (n + 1) / 2 - 0.5) / sd
    return 0.5 * math.erfc(z / math.sqrt(2))


def _benjamini_hochberg(p: Sequence[float]) -> list[float]:
    """The Benjamini-Hochberg adjusted p-values (q-values) of `p`, in its order."""
    n = len(p)
    order = sorted(range(n), key=lambda i: p[i])
    q = [1.0] * n
    running = 1.0
    for rank in range(n, 0, -1):  # from the largest p down: q_(i) = min_(j>=i) p_(j) n / j
        i = order[rank - 1]
        running = min(running, p[i] * n / rank)
        q[i] = running
    return q


def _chance_test(
    computed: list[tuple[ItemStats, Counter[str]]],
    by_item: Mapping[str, list[tuple[str, ItemResult]]],
    gold: Mapping[str, Record] | None,
    thresholds: Thresholds,
    key_of: Callable[[str, str, str], str],
) -> list[ItemStats]:
    """Each item with its agreement test (module docstring), AGREE added to the flagged."""
    right: Counter[tuple[str, str]] = Counter()
    seen: Counter[tuple[str, str]] = Counter()
    same: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for stats, wrong in computed:
        for name, it in by_item[stats.id]:
            seen[name, stats.task] += 1
            right[name, stats.task] += (it.score or 0.0) == 1.0
        answered = sum(wrong.values())
        same[stats.task] += sum(c * (c - 1) // 2 for c in wrong.values())
        pairs[stats.task] += answered * (answered - 1) // 2
    collision = {
        task: max(thresholds.min_chance, (same[task] + 1) / (pairs[task] + 2)) for task in pairs
    }
    tested: dict[str, tuple[float, float, float]] = {}  # item id -> (expected, p, order p)
    for stats, wrong in computed:
        if stats.entries < thresholds.flag_min_entries or stats.wrong_answer is None:
            continue
        chance = collision[stats.task]
        if stats.task == "multiple_choice":
            record = None if gold is None else gold.get(stats.id)
            k = len(option_letters(record)) if record is not None else MC_OPTIONS
            chance = max(chance, 1 / max(1, k - 1))
        # each entry's chance of giving that one wrong answer, if the gold is right
        per_entry = [
            (1 - (right[name, stats.task] + 1) / (seen[name, stats.task] + 2)) * chance
            for name, _ in by_item[stats.id]
        ]
        p = min(1.0, _poisson_binomial_tail(per_entry, stats.wrong_count) / chance)
        # who agrees: with a wrong gold the strong entries agree on the true answer (and weak
        # ones hit the gold by chance); on an item hard for all, who agrees is luck
        results = [(n, it) for n, it in by_item[stats.id]]
        top = wrong.most_common(1)[0][0]
        language = _answer_language(results[0][1])
        strength = [(right[n, stats.task] + 1) / (seen[n, stats.task] + 2) for n, _ in results]
        agreeing = [
            it.answered and key_of(stats.task, language, it.extracted or "") == top
            for _, it in results
        ]
        tested[stats.id] = (sum(per_entry), p, _rank_sum_p(strength, agreeing))
    ids = list(tested)
    q = dict(zip(ids, _benjamini_hochberg([tested[i][1] for i in ids]), strict=True))
    out = []
    for stats, _ in computed:
        if stats.id not in tested:
            out.append(stats)
            continue
        flag = q[stats.id] <= thresholds.fdr and stats.wrong_count >= 2
        out.append(
            dataclasses.replace(
                stats,
                agreement_expected=tested[stats.id][0],
                agreement_p=tested[stats.id][1],
                agreement_q=q[stats.id],
                agreement_order_p=tested[stats.id][2],
                reasons=(AGREE, *stats.reasons) if flag else stats.reasons,
            )
        )
    return out


def _item_stats(
    first: ItemResult,
    results: list[tuple[str, ItemResult]],
    strong: set[str],
    discrimination: float | None,
    record: Record | None,
    private_text: bool,
    key_of: Callable[[str, str, str], str],
) -> tuple[ItemStats, Counter[str]]:
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
    problem = None if record is None else gold_format_problem(record)
    shown = record if record is not None and (not first.is_private or private_text) else None

    def spelled(key: str) -> str:
        return spellings[key].most_common(1)[0][0]

    stats = ItemStats(
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
        reasons=(GOLD_FORMAT,) if problem else (),
        question=shown.question if shown else None,
        gold=shown.answers[0] if shown and shown.answers else None,
    )
    return stats, wrong
