"""Item analysis across entries (docs/item-analysis.md): which items are hard, which separate
strong entries from weak ones, and which look like gold errors. Pure: entries' per-item
results in, an `ItemAnalysis` out; its CSV and summary text are `text.py`, reading reports and
writing files `cli/items.py`.

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
- `suspected_gold_error`: the posterior that the gold is wrong, from comparing "the most common
  wrong answer is right" with "the gold is right" (`_gold_error_test`), reaches
  `Thresholds.flag_posterior`, or the gold breaks the item's own format rule
  (`answer_format.gold_format_problem`, with the gold given).

The gold-error test (docs/item-analysis.md, "Suspected gold error"). Under either hypothesis
an entry is right with probability c + (1 - c) sigmoid(s logit(acc) - d), acc its
Laplace-smoothed share right on the task's other items, d the item's difficulty integrated
over a normal prior, s, c (a guessing floor, fixed options only) and the prior fitted per task
by marginal likelihood (`_fit_difficulty`); the wrong answers fall into the other answers
by a Dirichlet-multinomial (multiple choice, over k - 1 options) or a Chinese restaurant
process (open answers), concentration from the task's rate of agreeing wrong answers; under
H1 an open answer's gold is a string laid before anyone answered (`_log_partition_keyed`). A
wrong gold shows as the agreeing entries being the strong ones. A feet item is also tested
foot by foot and by the line one foot off its gold (`_foot_cases`, `_line_evidence`): one
mislabelled foot leaves no trace in whole answers. Each of these is a `_Case`, fitted in its
pool (`_chance_test`); an item takes its most telling one.
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
from ..metrics.feet import LISTED_FEET, canonical, feet, read_feet
from ..report.model import ItemResult
from ..report.numbers import ratio_text
from ..scoring.answer_format import gold_format_problem, option_letters

AGREE = "agree"
"""Reason code: more entries give one wrong answer than chance explains."""
GOLD_FORMAT = "gold-format"
"""Reason code: the gold breaks the item's own format rule."""


MC_OPTIONS = 4
"""Options of a multiple-choice item when no gold is given (Certamen and NLE items have 4)."""


@dataclass(frozen=True)
class Thresholds:
    """The analysis's rules of thumb (docs/item-analysis.md, "Method")."""

    strong_share: float = 0.5  # strong entries: the better half by score (ties included)
    min_entries: int = 3  # entries an item needs for a discrimination
    flag_min_entries: int = 5  # entries an item needs before the gold-error test can flag it
    prior_gold_error: float = 0.02  # the prior share of gold labels that are wrong (per foot)
    flag_posterior: float = 0.7  # flag at this posterior probability that the gold is wrong
    key_weight: float = (
        0.1  # open answers: how a wrong key draws entries (a distractor given once: 1)
    )
    min_chance: float = 0.02  # the least chance that two wrong answers to an item agree


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
    agreement_answer: str | None = None  # the answer the test weighed: wrong_answer, or a foot
    agreement_count: int = 0  # entries that gave it
    agreement_foot: int | None = None  # the 1-based foot position it is in (None: whole answer)
    agreement_line: bool = False  # agreement_answer is a whole line, the gold's but that foot
    agreement_ratio: float | None = None  # likelihood of "that answer is right" over the gold's
    agreement_posterior: float | None = None  # P(the gold is wrong) (None: not tested)
    agreeing_accuracy: float | None = None  # the mean task accuracy of the entries agreeing ...
    other_accuracy: float | None = None  # ... and of the other entries
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
        if (
            self.agreement_posterior is None
            or self.agreement_answer is None
            or self.agreement_ratio is None
        ):
            return ""
        rest = "" if self.other_accuracy is None else f", the others {self.other_accuracy:.0%}"
        where, after, scope = "", "", "right on the task"
        if self.agreement_line:
            after = f", the gold's feet but foot {self.agreement_foot}"
        elif self.agreement_foot is not None:
            where = f"at foot {self.agreement_foot}, "
        if self.agreement_foot is not None:
            scope = "of feet right on the task"
        return (
            f"{where}{self.agreement_count} of {self.entries} entries answer "
            f"{self.agreement_answer!r}{after} (they average {self.agreeing_accuracy:.0%} "
            f"{scope}{rest}); "
            f"{ratio_text(self.agreement_ratio)} times likelier if the gold is wrong; chance "
            f"the gold is wrong: {self.agreement_posterior:.2f}"
        )

    @property
    def why(self) -> str:
        """Why the item is a suspected gold error, in words ("" when it is not)."""
        parts = [self.agreement] if AGREE in self.reasons else []
        return "; ".join(parts + ([self.gold_problem] if self.gold_problem else []))


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
    "agreement_answer",
    "agreement_count",
    "agreement_foot",
    "agreement_ratio",
    "agreement_posterior",
    "agreeing_accuracy",
    "other_accuracy",
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
    stats = _gold_error_test(computed, by_item, gold, thresholds, key_of)
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


_D_GRID = np.linspace(-8.0, 8.0, 81)
"""The item difficulty shifts (logits) the likelihoods integrate over."""
_SLOPES = np.array([1.0, 1.5, 2.0, 2.5, 3.0])
"""Candidate scales from an entry's logit accuracy to its ability (fitted per pool)."""
_FLOORS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25)
"""Candidate chances of a right answer from an entry that does not know the item (a lucky
guess: three-parameter IRT's pseudo-guessing; fitted per pool of fixed options; an open
answer is not guessed right)."""
_MEANS = np.linspace(-3.0, 3.0, 13)
_SDS = np.array([0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0])
"""Candidate means and standard deviations of a pool's item difficulty shifts."""


@dataclass(frozen=True)
class _Fit:
    """A pool's fitted answering model: an entry of logit accuracy x is right on an item of
    shift d with probability floor + (1 - floor) sigmoid(slope x - d), d ~ the normal prior."""

    slope: float
    floor: float
    log_prior: np.ndarray  # over _D_GRID


def _log_right_wrong(logit: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """log P(right) and log P(wrong) where P(right) = floor + (1 - floor) sigmoid(logit)."""
    log_wrong = -np.logaddexp(0.0, logit)
    if floor == 0.0:
        return -np.logaddexp(0.0, -logit), log_wrong
    stays = math.log1p(-floor)
    return np.logaddexp(math.log(floor), stays - np.logaddexp(0.0, -logit)), stays + log_wrong


def _grid_loglik(ability: np.ndarray, right: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """log P(the `right` entries right and the others wrong | shift d), for each d of the grid:
    each entry right with probability floor + (1 - floor) sigmoid(ability - d)."""
    log_right, log_wrong = _log_right_wrong(ability[:, None] - _D_GRID[None, :], floor)
    return (right[:, None] * log_right + (1 - right[:, None]) * log_wrong).sum(axis=0)


def _logsumexp(x: np.ndarray, axis: int = -1) -> np.ndarray:
    peak = x.max(axis=axis, keepdims=True)
    return (peak + np.log(np.exp(x - peak).sum(axis=axis, keepdims=True))).squeeze(axis)


def _normal_priors() -> np.ndarray:
    """Each (mean, sd) candidate's normal prior over the grid (a row each, summing to 1)."""
    dens = np.array([np.exp(-0.5 * ((_D_GRID - m) / s) ** 2) for m in _MEANS for s in _SDS])
    return dens / dens.sum(axis=1, keepdims=True)


_PRIORS = _normal_priors()


_CHUNK_CELLS = 1 << 21
"""Item x entry x grid cells `_fit_difficulty` holds at once per array (16 MB of float64): its
memory stays bounded however many entries and items there are; each item's numbers are the
same whatever the chunk (an item's row is computed alone)."""


def _fit_difficulty(items: Sequence[tuple[np.ndarray, np.ndarray]], guessed: bool) -> _Fit:
    """The answering model that explains a pool's items (each: its entries' logit accuracies
    and who was right) best, by marginal likelihood over `_SLOPES`, `_FLOORS`, `_MEANS` and
    `_SDS`. A normal, not a free-form prior: a free-form one would learn a bump of very hard
    items from the wrong golds themselves and explain them away."""
    priors = _PRIORS
    width = max(len(a) for a, _ in items)
    accuracy = np.zeros((len(items), width))
    right = np.zeros((len(items), width))
    present = np.zeros((len(items), width))
    for i, (a, r) in enumerate(items):  # one row per item, padded
        accuracy[i, : len(a)], right[i, : len(r)], present[i, : len(a)] = a, r, 1.0
    gave_right, gave_wrong = present * right, present * (1 - right)
    floors = _FLOORS if guessed else (0.0,)
    step = max(1, _CHUNK_CELLS // (width * len(_D_GRID)))
    best: tuple[float, float, float, int] | None = None
    for slope in _SLOPES:
        # per floor, each item's log P(answers | d), made a chunk of items at a time
        tables = np.empty((len(floors), len(items), len(_D_GRID)))
        for start in range(0, len(items), step):
            rows = slice(start, start + step)
            logit = slope * accuracy[rows, :, None] - _D_GRID[None, None, :]
            for f, floor in enumerate(floors):
                log_right, log_wrong = _log_right_wrong(logit, floor)
                tables[f, rows] = np.einsum("ie,ied->id", gave_right[rows], log_right) + np.einsum(
                    "ie,ied->id", gave_wrong[rows], log_wrong
                )
        for f, floor in enumerate(floors):
            table = tables[f]
            peak = table.max(axis=1, keepdims=True)
            # per item and prior: log sum_d P(answers | d) prior(d), all priors at once
            totals = (np.log(np.exp(table - peak) @ priors.T) + peak).sum(axis=0)
            at = int(np.argmax(totals))
            if best is None or totals[at] > best[0]:
                best = (float(totals[at]), float(slope), floor, at)
    assert best is not None
    return _Fit(best[1], best[2], np.log(priors[best[3]]))


def _log_partition_keyed(counts: Sequence[int], keyed: int, spread: float, weight: float) -> float:
    """log P(the wrong answers to an open item fall into answers with these `counts`, and
    `keyed` of them into the answer key's own string): the Chinese restaurant process with
    concentration `spread` and the key's answer as a table laid beforehand, with weight
    `weight`. The key's string is fixed before anyone answers: an entry that gives it is not
    opening a table at chance `spread / (spread + n)` (any new string), it hits one string out
    of all those it could write, which is as likely only as joining a table of `weight`."""
    counts = [c for c in counts if c]
    n = sum(counts) + keyed
    return (
        len(counts) * math.log(spread)
        + sum(math.lgamma(c) for c in counts)
        + math.lgamma(weight + keyed)
        - math.lgamma(weight)
        + math.lgamma(spread + weight)
        - math.lgamma(spread + weight + n)
    )


def _log_partition(counts: Sequence[int], options: int | None, spread: float) -> float:
    """log P(the wrong answers fall into answers with these `counts`): a symmetric
    Dirichlet-multinomial with concentration `spread` over `options` answers (multiple choice),
    or the Chinese restaurant process with concentration `spread` (open answers)."""
    counts = [c for c in counts if c]
    n = sum(counts)
    if options is None:
        return (
            len(counts) * math.log(spread)
            + sum(math.lgamma(c) for c in counts)
            - math.lgamma(spread + n)
            + math.lgamma(spread)
        )
    m = max(options, len(counts))
    return (
        math.lgamma(m * spread)
        - math.lgamma(n + m * spread)
        + sum(math.lgamma(c + spread) - math.lgamma(spread) for c in counts)
    )


def _spread(collision: float, options: int | None) -> float:
    """The concentration under which two wrong answers to an item agree with probability
    `collision`: (1 - c) / (c m - 1) for a Dirichlet over m options, (1 - c) / c for the
    Chinese restaurant process; kept within [0.05, 50]."""
    if options is None:
        value = (1 - collision) / collision
    else:
        value = (1 - collision) / max(1e-9, collision * options - 1)
    return min(50.0, max(0.05, value))


def _posterior(log_ratio: float, prior: float) -> float:
    log_odds = log_ratio + math.log(prior / (1 - prior))
    return 1 / (1 + math.exp(-log_odds)) if log_odds > -700 else 0.0


FOOT_POSITION = "feet position"
"""The pool the one-foot cases are fitted on (`_foot_cases`)."""
FEET_LINE = "feet line"
"""The pool of the whole-line cases that weigh the lines one foot off the gold (`_foot_cases`)."""
ALTERNATIVE_FEET = len(LISTED_FEET) - 1
"""The feet a wrong foot in one position is chosen from (the prompt lists 13)."""


@dataclass(frozen=True)
class _Case:
    """One answer the gold-error test compares across entries: an item's whole answer, or for a
    feet item one foot position or the line against lines one foot off it (a changed foot in
    one position is invisible in whole answers, which seldom agree on a line of several feet)."""

    item: str
    pool: str  # the case's kind, each fitted on its own: the task, FOOT_POSITION or FEET_LINE
    names: tuple[str, ...]  # the entries with a prediction for the item
    right: np.ndarray  # 1.0 where the entry's answer is the gold's (here)
    answers: tuple[str, ...]  # each entry's answer key where it is wrong ("": none or right)
    options: int | None  # the answers a wrong entry chooses from (None: open answers)
    prior_share: float  # the share of the item's prior gold-error rate this case's answer gets
    foot: int | None = None  # the 0-based foot position (None: the whole answer)
    spelled: Mapping[str, str] = field(default_factory=dict)  # an answer -> its commonest spelling
    lines: tuple[tuple[str, ...], ...] = ()  # FEET_LINE: each entry's feet, as `canonical`
    gold_line: tuple[str, ...] = ()  # FEET_LINE: the gold's

    @functools.cached_property
    def near_misses(self) -> Counter[tuple[str, ...]]:
        """FEET_LINE: the entries' lines one foot off the gold, and how many gave each."""
        return Counter(line for line in self.lines if _one_off(line, self.gold_line))


@dataclass(frozen=True)
class _Evidence:
    """A case's test: the answer weighed against the gold, who gave it, how telling it is."""

    case: _Case
    answer: str
    count: int
    log_ratio: float
    posterior: float
    agreeing_accuracy: float
    other_accuracy: float | None
    foot: int | None = None  # the 0-based foot position it is about (None: the whole answer)


def _whole_cases(
    computed: list[ItemStats],
    by_item: Mapping[str, list[tuple[str, ItemResult]]],
    gold: Mapping[str, Record] | None,
    key_of: Callable[[str, str, str], str],
) -> list[_Case]:
    """Each item's whole answer as a case: wrong answers grouped by the item's metric key."""
    cases = []
    for stats in computed:
        results = by_item[stats.id]
        language = _answer_language(results[0][1])
        options: int | None = None
        if stats.task == "multiple_choice":
            record = None if gold is None else gold.get(stats.id)
            k = len(option_letters(record)) if record is not None else MC_OPTIONS
            options = max(1, k - 1)
        right = np.array([(it.score or 0.0) == 1.0 for _, it in results], dtype=float)
        answers = tuple(
            "" if r or not it.answered else key_of(stats.task, language, it.extracted or "")
            for r, (_, it) in zip(right, results, strict=True)
        )
        cases.append(
            _Case(
                stats.id,
                stats.task,
                tuple(name for name, _ in results),
                right,
                answers,
                options,
                1 / (options or 1),
            )
        )
    return cases


def _foot_cases(
    computed: list[ItemStats],
    by_item: Mapping[str, list[tuple[str, ItemResult]]],
    gold: Mapping[str, Record] | None,
) -> list[_Case]:
    """The cases of each feet item with a gold. Each foot position: an entry is right there when
    its foot in that position is the gold's (PROTOCOL 4's walk in parallel), a foot it does not
    give is no answer. And the whole line (FEET_LINE: `_line_evidence`). The prior gold-error
    rate is per foot: a gold of five feet has five labels that can be wrong, each wrong to one
    of the other feet."""
    cases = []
    for stats in computed:
        record = None if gold is None else gold.get(stats.id)
        if stats.task != "feet" or record is None or not record.answers:
            continue
        golds = [canonical(name) for name in feet(record.answers[0])]
        results = by_item[stats.id]
        written = [read_feet(it.extracted) if it.answered and it.extracted else []
                   for _, it in results]  # fmt: skip
        for at, want in enumerate(golds):
            raw = [w[at] if at < len(w) else "" for w in written]
            here = [canonical(name) for name in raw]
            spellings: defaultdict[str, Counter[str]] = defaultdict(Counter)
            for name, key in zip(raw, here, strict=True):
                spellings[key][name] += 1
            cases.append(
                _Case(
                    stats.id,
                    FOOT_POSITION,
                    tuple(name for name, _ in results),
                    np.array([h == want for h in here], dtype=float),
                    tuple("" if h == want else h for h in here),
                    ALTERNATIVE_FEET,
                    1 / ALTERNATIVE_FEET,
                    at,
                    {key: names.most_common(1)[0][0] for key, names in spellings.items()},
                )
            )
        lines = tuple(tuple(canonical(name) for name in w) for w in written)
        shown: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for w, line in zip(written, lines, strict=True):
            shown[", ".join(line)][", ".join(w)] += 1
        right = [line == tuple(golds) for line in lines]
        cases.append(
            _Case(
                stats.id,
                FEET_LINE,
                tuple(name for name, _ in results),
                np.array(right, dtype=float),
                tuple(
                    "" if r or not line else ", ".join(line)
                    for r, line in zip(right, lines, strict=True)
                ),
                None,
                1 / ALTERNATIVE_FEET,
                None,
                {key: names.most_common(1)[0][0] for key, names in shown.items()},
                lines,
                tuple(golds),
            )
        )
    return cases


def _one_off(line: tuple[str, ...], of: tuple[str, ...]) -> bool:
    """True if `line` has `of`'s feet but one, in the same places."""
    return len(line) == len(of) and sum(a != b for a, b in zip(line, of, strict=True)) == 1


def _line_evidence(
    case: _Case,
    share: np.ndarray,
    ability: np.ndarray,
    fit: _Fit,
    near: tuple[float, float],
    thresholds: Thresholds,
) -> _Evidence | None:
    """A feet line's test: H0, the gold's line is right; H1, the line one foot off it that
    most entries give (T) is. Under either, an entry that knows the item gives the true line
    (its ability, the item's difficulty); one that does not gives a line one foot off the gold
    (and so about as close to the truth) at the pool's rate of such near misses, which gather
    on one line per item as a Dirichlet over the line's feet times the other feet (`near`: the
    rate and that concentration), or another line, alike under both. So the hypotheses differ
    in who knows (the gold's givers or T's) and in which of the two lines is a near miss: where
    wrong lines are seldom one foot off the gold, one entry giving T tells; where such near
    misses are common, it takes more."""
    gold = case.gold_line
    off = case.near_misses
    if not off:
        return None
    candidate, count = off.most_common(1)[0]
    rate, spread = near
    variants = len(gold) * ALTERNATIVE_FEET
    gives = np.array([line == candidate for line in case.lines], dtype=float)
    keyed = int(case.right.sum())  # the gold's line, a near miss of T under H1
    misses_h0 = list(off.values())
    misses_h1 = [c for line, c in off.items() if line != candidate] + [keyed]
    log_h0 = _logsumexp(_grid_loglik(ability, case.right, fit.floor) + fit.log_prior)
    log_h0 += sum(misses_h0) * math.log(rate) + _log_partition(misses_h0, variants, spread)
    log_h1 = _logsumexp(_grid_loglik(ability, gives, fit.floor) + fit.log_prior)
    log_h1 += sum(misses_h1) * math.log(rate) + _log_partition(misses_h1, variants, spread)
    ratio = float(log_h1 - log_h0)
    rest = share[gives == 0]
    return _Evidence(
        case,
        ", ".join(candidate),
        count,
        ratio,
        _posterior(ratio, thresholds.prior_gold_error * case.prior_share),
        float(share[gives == 1].mean()),
        float(rest.mean()) if len(rest) else None,
        next(at for at, (a, b) in enumerate(zip(candidate, gold, strict=True)) if a != b),
    )


def _chance_test(cases: Sequence[_Case], thresholds: Thresholds) -> dict[int, _Evidence]:
    """Case index -> its test (module docstring), for the cases with enough entries and a wrong
    answer given twice (a FEET_LINE case: a line one foot off the gold, `_line_evidence`); each
    pool's abilities, difficulty prior and agreement rates are fitted on that pool's cases."""
    right: Counter[tuple[str, str]] = Counter()
    seen: Counter[tuple[str, str]] = Counter()
    same: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    lines: Counter[str] = Counter()  # FEET_LINE: the wrong lines, those one foot off the gold,
    near: Counter[str] = Counter()  # and pairs of these to one item that are the same line
    near_same: Counter[str] = Counter()
    near_pairs: Counter[str] = Counter()
    wrongs = []
    for case in cases:
        for name, r in zip(case.names, case.right, strict=True):
            seen[name, case.pool] += 1
            right[name, case.pool] += r
        wrong = Counter(a for a in case.answers if a)
        wrongs.append(wrong)
        answered = sum(wrong.values())
        if case.pool == FEET_LINE:
            n_off = sum(case.near_misses.values())
            lines[case.pool] += answered
            near[case.pool] += n_off
            near_same[case.pool] += sum(c * (c - 1) // 2 for c in case.near_misses.values())
            near_pairs[case.pool] += n_off * (n_off - 1) // 2
        same[case.pool] += sum(c * (c - 1) // 2 for c in wrong.values())
        pairs[case.pool] += answered * (answered - 1) // 2
    # how often two wrong answers to one item agree, per pool (smoothed)
    collision = {
        pool: max(thresholds.min_chance, (same[pool] + 1) / (pairs[pool] + 2)) for pool in pairs
    }

    def share_of(case: _Case) -> np.ndarray:
        """Each entry's share right on the pool's other cases (Laplace)."""
        return np.array(
            [
                (right[name, case.pool] - r + 1) / (seen[name, case.pool] + 1)
                for name, r in zip(case.names, case.right, strict=True)
            ]
        )

    def logit(share: np.ndarray) -> np.ndarray:
        return np.log(share / (1 - share))

    fitted: dict[str, list[tuple[np.ndarray, np.ndarray]]] = defaultdict(list)
    guessed: dict[str, bool] = {}
    for case in cases:
        fitted[case.pool].append((logit(share_of(case)), case.right))
        guessed[case.pool] = case.options is not None
    difficulty = {pool: _fit_difficulty(items, guessed[pool]) for pool, items in fitted.items()}
    out: dict[int, _Evidence] = {}
    for index, (case, wrong) in enumerate(zip(cases, wrongs, strict=True)):
        if len(case.names) < thresholds.flag_min_entries or not wrong:
            continue
        if case.pool == FEET_LINE:
            # over the pool: the share of wrong lines one foot off the gold, and how often two
            # of those to one item are the same line (Laplace)
            rate = (near[case.pool] + 1) / (lines[case.pool] + 2)
            agree = max(
                thresholds.min_chance, (near_same[case.pool] + 1) / (near_pairs[case.pool] + 2)
            )
            variants = len(case.gold_line) * ALTERNATIVE_FEET
            share = share_of(case)
            fit = difficulty[case.pool]
            evidence = _line_evidence(
                case,
                share,
                fit.slope * logit(share),
                fit,
                (rate, _spread(agree, variants)),
                thresholds,
            )
            if evidence is not None:
                out[index] = evidence
            continue
        top, count = wrong.most_common(1)[0]
        if count < 2:
            continue
        gives_top = np.array([a == top for a in case.answers], dtype=float)
        share = share_of(case)
        fit = difficulty[case.pool]
        ability = fit.slope * logit(share)
        spread = _spread(collision[case.pool], case.options)
        n_right = int(case.right.sum())
        # H0, the gold is right: the right entries right, the rest wrong, their answers spread
        log_h0 = float(_logsumexp(_grid_loglik(ability, case.right, fit.floor) + fit.log_prior))
        log_h0 += _log_partition(list(wrong.values()), case.options, spread)
        # H1, the most common wrong answer is right: the gold is one of the wrong answers (an
        # option as any other; an open answer's key string: `_log_partition_keyed`)
        others = [c for key, c in wrong.items() if key != top]
        if case.options is None:
            part1 = _log_partition_keyed(others, n_right, spread, thresholds.key_weight)
        else:
            part1 = _log_partition(others + [n_right], case.options, spread)
        log_h1 = float(_logsumexp(_grid_loglik(ability, gives_top, fit.floor) + fit.log_prior))
        log_h1 += part1
        ratio = log_h1 - log_h0
        rest = share[gives_top == 0]
        out[index] = _Evidence(
            case,
            top,
            count,
            ratio,
            _posterior(ratio, thresholds.prior_gold_error * case.prior_share),
            float(share[gives_top == 1].mean()),
            float(rest.mean()) if len(rest) else None,
            case.foot,
        )
    return out


def _gold_error_test(
    computed: list[ItemStats],
    by_item: Mapping[str, list[tuple[str, ItemResult]]],
    gold: Mapping[str, Record] | None,
    thresholds: Thresholds,
    key_of: Callable[[str, str, str], str],
) -> list[ItemStats]:
    """Each item with its gold-error test (module docstring): the most telling of its cases
    (the whole answer; a feet item's foot positions too), AGREE added to the flagged."""
    cases = _whole_cases(computed, by_item, gold, key_of) + _foot_cases(computed, by_item, gold)
    best: dict[str, _Evidence] = {}
    for candidate in _chance_test(cases, thresholds).values():
        held = best.get(candidate.case.item)
        if held is None or candidate.log_ratio + math.log(candidate.case.prior_share) > (
            held.log_ratio + math.log(held.case.prior_share)
        ):
            best[candidate.case.item] = candidate
    out: list[ItemStats] = []
    for stats in computed:
        evidence = best.get(stats.id)
        if evidence is None:
            out.append(stats)
            continue
        foot = evidence.foot
        flag = evidence.posterior >= thresholds.flag_posterior
        out.append(
            dataclasses.replace(
                stats,
                agreement_answer=(
                    stats.wrong_answer if foot is None else evidence.case.spelled[evidence.answer]
                ),
                agreement_count=evidence.count,
                agreement_foot=None if foot is None else foot + 1,
                agreement_line=evidence.case.pool == FEET_LINE,
                agreement_ratio=math.exp(min(700.0, evidence.log_ratio)),
                agreement_posterior=evidence.posterior,
                agreeing_accuracy=evidence.agreeing_accuracy,
                other_accuracy=evidence.other_accuracy,
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
    problem = None if record is None else gold_format_problem(record)
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
        reasons=(GOLD_FORMAT,) if problem else (),
        question=shown.question if shown else None,
        gold=shown.answers[0] if shown and shown.answers else None,
    )
