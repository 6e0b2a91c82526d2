"""What the leaderboard releases of values that rest on private items (Certamen, NLE), and the
bound on what probing can learn from them (docs/leaderboard-safety.md, "What probing can learn").

A submitter chooses every answer, so a value's public part is theirs to set and its private
part is what they probe. Every released value is therefore made of:

- its **public part exactly** (a value resting on public items only is never changed);
- its **private part in steps of k items** (k = `Limits.min_private_items`, 10 by default):
  the points scored on the value's private items, rounded to the nearest multiple of k (half
  up, at most the private item count). A probe that leaves one private item open moves no
  released value; to move one by a step, k/2 or more private items must be right together;
- with an interval that depends on the released value and its item count only (Wilson's score
  interval), never on which items were right (the bootstrap's would fingerprint them);
- hidden ("—") when it rests on fewer than k private items, or when the groups shown and a
  total (the overall value, or a coarser breakdown group that contains them: Knowledge over
  content types) would give away hidden groups that together rest on fewer than k.

Values whose private part cannot be stepped are hidden when they rest on private items: the
macron-sensitive short-answer accuracy (no per-item score is stored for it), the lenient
accuracy beyond its overall and per-task values, and BLEU of the constrained / unconstrained
splits; corpus BLEU and chrF of the overall split are released in whole points, without an
interval. `release_bits` counts what the released values can say: at most log2 of the number
of values each can take, summed; everything else the Space shows of an entry (ranks, shading,
charts, Compare) is a function of those values or of public items only.

Pure functions. The caller gives the report, the public cell counts of the files it was scored
on (`public_cell_counts`), the entry's private points per cell (`private_points`, kept by the
store when it stores the items) and the gold's nesting of breakdowns (`nesting`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from respondeoqa_eval.data import BLEU_SPLITS, DIMENSIONS, PRIVATE_SOURCES, Record
from respondeoqa_eval.report import (
    Accuracy,
    BleuScore,
    FormatCompliance,
    FormatCounts,
    ItemResult,
    Report,
    Score,
)

Cell = tuple[str, str, str]  # ("accuracy", dim or "overall", group) | ("extra", key, "")
# | ("bleu", target, split); the lenient accuracy's cells: ("lenient", dim or "overall", group)

OVERALL: Cell = ("accuracy", "overall", "")
LENIENT_DIMENSIONS = ("overall", "by_task")
"""The lenient accuracy's values released when they rest on private items."""
BLEU_LEVELS = 101
"""BLEU and chrF resting on private items: whole points, 0 to 100."""
Z95 = 1.959963984540054

NOTE = (
    "— : not shown because it rests on fewer than {k} private (Certamen/NLE) items; values "
    "that rest on private items are released in steps of {k} private items "
    "(docs/leaderboard-safety.md)."
)


def note(k: int) -> str:
    """The explanation shown next to withheld values."""
    return NOTE.format(k=k)


def _accuracy_item(record: Record) -> bool:
    return record.task != "translation"  # PROTOCOL 5: every task but translation has a score


def cell_counts(records: Iterable[Record]) -> Counter[Cell]:
    """How many of `records` each report cell rests on (the aggregates' own grouping)."""
    counts: Counter[Cell] = Counter()
    for r in records:
        if _accuracy_item(r):
            counts[OVERALL] += 1
            for key, dim in DIMENSIONS.items():
                group = dim.group_of(r)
                if group is not None:
                    counts["accuracy", key, group] += 1
            if r.task == "short_answer":
                counts["extra", "short_answer_macron_sensitive", ""] += 1
        else:
            for split, keep in BLEU_SPLITS.items():
                if keep(r):
                    counts["bleu", r.answer_language, split] += 1
    return counts


def public_cell_counts(public_records: Iterable[Record]) -> Counter[Cell]:
    """The public items each report cell rests on (what `release` needs of the gold)."""
    return cell_counts(r for r in public_records if r.source not in PRIVATE_SOURCES)


def cell_key(cell: Cell) -> str:
    return "|".join(cell)


def private_points(items: Iterable[ItemResult]) -> dict[str, float]:
    """An entry's points on private items per accuracy cell (and per released lenient cell,
    when its items carry their lenient readings), keyed by `cell_key`: what `release` steps.
    The store keeps it beside the entry (its items keep no lenient reading)."""
    points: defaultdict[str, float] = defaultdict(float)
    lenient = True
    for it in items:
        if it.source not in PRIVATE_SOURCES or it.score is None:
            continue
        points[cell_key(OVERALL)] += it.score
        for dim, group in it.groups.items():
            points[cell_key(("accuracy", dim, group))] += it.score
        if it.lenient is None:
            lenient = False
            continue
        score = it.lenient.score if it.lenient.score is not None else 0.0
        points[cell_key(("lenient", "overall", ""))] += score
        if "by_task" in it.groups:
            points[cell_key(("lenient", "by_task", it.groups["by_task"]))] += score
    if not lenient:  # some private item has no lenient reading: no lenient cell is stepped
        for key in [k for k in points if k.startswith("lenient|")]:
            del points[key]
    return dict(points)


@dataclass(frozen=True)
class Nesting:
    """Breakdowns whose groups each lie inside one group of a coarser breakdown (content types
    inside Knowledge / Skill, say): `inside[fine][coarse][fine group] = coarse group`."""

    inside: Mapping[str, Mapping[str, Mapping[str, str]]] = field(default_factory=dict)


def nesting(records: Iterable[Record]) -> Nesting:
    """The nesting of the breakdowns over `records` (the whole gold, private items included):
    `fine` nests in `coarse` when every item's fine group determines its coarse group."""
    groups = [
        {key: g for key, d in DIMENSIONS.items() if (g := d.group_of(r)) is not None}
        for r in records
        if _accuracy_item(r)
    ]
    maps: dict[str, dict[str, dict[str, str]]] = {}
    for fine in DIMENSIONS:
        for coarse in DIMENSIONS:
            if fine == coarse:
                continue
            seen: dict[str, str] = {}
            ok = True
            for of_item in groups:
                if fine not in of_item:
                    continue
                if coarse not in of_item or (
                    seen.setdefault(of_item[fine], of_item[coarse]) != of_item[coarse]
                ):
                    ok = False
                    break
            # a coarse breakdown with one group only is the overall value: no new total
            if ok and seen and len(set(seen.values())) > 1:
                maps.setdefault(fine, {})[coarse] = seen
    return Nesting(maps)


def complete(private: Mapping[str, int], hidden: Iterable[str], k: int) -> set[str]:
    """The groups of one breakdown to hide: `hidden`, plus as many more (fewest private items
    first) as it takes for the hidden groups together to rest on no private item or on at least
    k; otherwise the total and the groups shown would give their combined value away."""
    out = set(hidden)
    rest = sorted(
        (g for g, n in private.items() if n > 0 and g not in out), key=lambda g: (private[g], g)
    )
    while 0 < sum(private[g] for g in out) < k and rest:
        out.add(rest.pop(0))
    return out


def hidden_groups(
    private: Mapping[str, Mapping[str, int]], k: int, nest: Nesting = Nesting()
) -> dict[str, set[str]]:
    """Per breakdown, the groups to hide: those resting on 1..k-1 private items, closed
    against every total that contains them (the overall value; a coarser group they nest in),
    until no total minus the groups shown isolates 1..k-1 private items."""
    hidden = {dim: {g for g, n in groups.items() if 0 < n < k} for dim, groups in private.items()}
    changed = True
    while changed:
        changed = False
        for dim, groups in private.items():
            totals: list[Mapping[str, int]] = [groups]  # inside the overall value
            for where in nest.inside.get(dim, {}).values():
                by_coarse: defaultdict[str, dict[str, int]] = defaultdict(dict)
                for g, n in groups.items():
                    if g in where:
                        by_coarse[where[g]][g] = n
                totals += list(by_coarse.values())
            for part in totals:
                closed = complete(part, hidden[dim] & set(part), k)
                if not closed <= hidden[dim]:
                    hidden[dim] |= closed
                    changed = True
    return hidden


def step(points: float, items: int, k: int) -> float:
    """A private part in steps of k items: the nearest multiple of k (half up), at most
    `items`."""
    return float(min(items, k * math.floor(points / k + 0.5)))


def wilson(value: float, n: int) -> tuple[float, float]:
    """Wilson's 95% score interval of a share `value` of `n` items: a function of the two
    numbers only."""
    if n <= 0:
        return (0.0, 1.0)
    p = min(1.0, max(0.0, value))
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if p == 0.0 else max(0.0, centre - half)
    return (low, 1.0 if p == 1.0 else min(1.0, centre + half))


def _hidden_score(node: Score) -> Score:
    return Score(math.nan, node.n, None)


def _release_score(node: Score, public: int, points: float | None, k: int, hidden: bool) -> Score:
    """One accuracy value as released (see the module docstring)."""
    if node.n is None or node.n - public <= 0 or math.isnan(node.score):
        return node  # the paper's published numbers, or public items only: exact
    if hidden or points is None:
        return _hidden_score(node)
    private = node.n - public
    # the public points to 9 decimals (item scores are thirds at the finest): the float
    # error of score * n depends on the private points too, and must not show in any digit
    own = round(node.score * node.n - points, 9) + 0.0  # + 0.0: never a negative zero
    value = min(1.0, max(0.0, (own + step(points, private, k)) / node.n))
    return Score(value, node.n, wilson(value, node.n))


def _private_counts(groups: Mapping[str, Score], dim: str, public: Counter[Cell]) -> dict:
    return {g: 0 if s.n is None else s.n - public["accuracy", dim, g] for g, s in groups.items()}


def _release_accuracy(
    acc: Accuracy,
    public: Counter[Cell],
    points: Mapping[str, float],
    k: int,
    nest: Nesting,
    kind: str,
    dims: Sequence[str] | None = None,
) -> Accuracy:
    """The accuracy part (kind "accuracy") or the lenient accuracy ("lenient", only `dims`
    stepped) as released."""
    private = {dim: _private_counts(groups, dim, public) for dim, groups in acc.breakdowns.items()}
    hide = hidden_groups(private, k, nest)
    overall_private = (acc.overall.n or 0) - public[OVERALL]
    overall = _release_score(
        acc.overall,
        public[OVERALL],
        points.get(cell_key((kind, "overall", ""))),
        k,
        0 < overall_private < k or (dims is not None and "overall" not in dims),
    )
    breakdowns = {
        dim: {
            g: _release_score(
                s,
                public["accuracy", dim, g],
                points.get(cell_key((kind, dim, g))),
                k,
                g in hide[dim] or (dims is not None and dim not in dims),
            )
            for g, s in groups.items()
        }
        for dim, groups in acc.breakdowns.items()
    }
    return Accuracy(overall, breakdowns)


def _release_bleu(node: BleuScore | None, split: str, public: int, k: int) -> BleuScore | None:
    if node is None or node.n is None or node.n - public <= 0:
        return node
    if node.n - public < k or split != "overall":
        return replace(node, score=math.nan, variable_refs=None, chrf=None, ci=None)

    def whole(x: float | None) -> float | None:
        return None if x is None or math.isnan(x) else float(math.floor(x + 0.5))

    return replace(
        node,
        score=whole(node.score),  # type: ignore[arg-type]  # None only of None or NaN: a BLEU score is a number
        variable_refs=whole(node.variable_refs),
        chrf=whole(node.chrf),
        ci=None,
    )


def _release_format(
    fc: FormatCompliance | None,
    public: Counter[Cell],
    points: Mapping[str, float],
    k: int,
    nest: Nesting,
    has_private: bool,
) -> FormatCompliance | None:
    if fc is None or not has_private:
        return fc

    def counts(c: FormatCounts) -> FormatCounts:
        return replace(c, right=None)  # points of the lenient readings, private ones among them

    return replace(
        fc,
        accuracy_lenient=_release_accuracy(
            fc.accuracy_lenient, public, points, k, nest, "lenient", LENIENT_DIMENSIONS
        ),
        overall=counts(fc.overall),
        by_task={t: counts(c) for t, c in fc.by_task.items()},
        by_rule={r: replace(c, right=None) for r, c in fc.by_rule.items()},
    )


def release(
    report: Report,
    public: Counter[Cell],
    points: Mapping[str, float],
    k: int,
    nest: Nesting = Nesting(),
) -> Report:
    """`report` as the Space shows it (module docstring): values resting on public items
    only unchanged, the others stepped, hidden or coarsened. `public`: the public cell counts
    of the files it was scored on; `points`: the entry's `private_points`."""
    if k <= 1:
        return report
    acc = _release_accuracy(report.accuracy, public, points, k, nest, "accuracy")
    extra = {
        key: _hidden_score(s) if s.n is not None and s.n - public["extra", key, ""] > 0 else s
        for key, s in report.extra.items()
    }
    bleu = {
        target: {
            split: _release_bleu(b, split, public["bleu", target, split], k)
            for split, b in splits.items()
        }
        for target, splits in report.bleu.items()
    }
    fc = _release_format(report.format_compliance, public, points, k, nest, report.has_private)
    return replace(report, accuracy=acc, extra=extra, bleu=bleu, format_compliance=fc)


def withheld_cells(report: Report) -> int:
    """How many values of a report are missing (NaN): withheld or absent."""
    nodes: list[Score | BleuScore | None] = [report.accuracy.overall]
    nodes += [s for groups in report.accuracy.breakdowns.values() for s in groups.values()]
    nodes += list(report.extra.values())
    nodes += [b for splits in report.bleu.values() for b in splits.values()]
    return sum(1 for n in nodes if n is not None and math.isnan(n.score))


def _members(records: Iterable[Record]) -> dict[Cell, frozenset[str]]:
    """The private items of each report cell (what its released private part is made of)."""
    members: defaultdict[Cell, set[str]] = defaultdict(set)
    for r in records:
        if r.source not in PRIVATE_SOURCES:
            continue
        for cell in cell_counts([r]):
            members[cell].add(r.id)
    return {cell: frozenset(ids) for cell, ids in members.items()}


def release_bits(records: Iterable[Record], k: int, *, switched: bool = False) -> float:
    """The most the released values of an entry scored on `records` (the gold items of the
    files it covers) can say about its private items, in bits: for every distinct set of
    private items a released value steps (two values over the same private items, Format and
    Task of Certamen say, release the same step), log2 of the number of steps it can take
    (floor(q / k) + 2 for q private items), once more for the lenient accuracy's value over
    the same items, and BLEU, padded BLEU and chrF in whole points (101 values each) per
    target language. The values' public parts are the submitter's own.

    `switched`: also the board's switch "without suspected gold errors" (without.py) for one
    flagged set: every stepped accuracy value is released a second time, over its private
    items less the flagged ones (at most as many steps: counted again in full), and the
    switch's label counts the flagged private items (0 to all the private items with a
    score: log2 of one more than their number). BLEU and chrF count once: an item without a
    per-item score (translation) is never flagged, so they are the same in both views.

    Values on fewer than k private items count nothing; those hidden only to close a
    complement count all the same: so the bound can only grow with the items, and the bound
    of all the files is the bound of every coverage."""
    records = list(records)
    counts, public = cell_counts(records), public_cell_counts(records)
    members = _members(records)
    private = {cell: n - public.get(cell, 0) for cell, n in counts.items()}

    def levels(q: int) -> float:
        return math.log2(q // k + 2)

    stepped: set[frozenset[str]] = set()
    lenient: set[frozenset[str]] = set()
    accuracy = bleu = 0.0
    for cell, q in private.items():
        kind, dim, group = cell
        if q < k:
            continue
        if kind == "accuracy":
            items = members[cell]
            if items not in stepped:
                stepped.add(items)
                accuracy += levels(q)
            if dim in LENIENT_DIMENSIONS and items not in lenient:
                lenient.add(items)
                accuracy += levels(q)
        elif kind == "bleu" and group == "overall":
            bleu += 3 * math.log2(BLEU_LEVELS)  # BLEU, the paper's padded BLEU, chrF
    if not switched:
        return accuracy + bleu
    label = math.log2(private.get(OVERALL, 0) + 1)  # the flagged private items, counted
    return 2 * accuracy + bleu + label
