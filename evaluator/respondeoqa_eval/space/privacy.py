"""Small private groups are not shown: a value resting on fewer than k private items (Certamen,
NLE) would let a submitter read single private answers off the leaderboard.

Pure functions. `suppress` takes a report and the PUBLIC gold records of the files it was scored
on: a cell's private item count is its item count `n` minus its public items, so it works for
every stored entry (also entries restored without their private items) and needs no private
gold. A suppressed value becomes NaN with no interval (shown as missing, "—"); its `n` stays.
Public items are never affected: a cell without private items is always shown.

Complements are closed too: within one breakdown, the groups shown and the total give the
hidden groups' combined value, so when the hidden groups together rest on fewer than k private
items, more groups are hidden (fewest private items first) until they rest on at least k.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from ..aggregate import Difference
from ..breakdowns import BLEU_SPLITS, DIMENSIONS
from ..records import PRIVATE_SOURCES, Record
from ..report import BleuScore, ItemResult, Report, Score

Cell = tuple[str, str, str]  # ("accuracy", dim or "overall", group) | ("extra", key, "")
# | ("bleu", target, split)

NOTE = (
    "— : not shown because it rests on fewer than {k} private (Certamen/NLE) items; "
    "single private answers must not be readable from the leaderboard."
)


def note(k: int) -> str:
    """The explanation shown next to suppressed values."""
    return NOTE.format(k=k)


def _accuracy_item(record: Record) -> bool:
    return record.task != "translation"  # PROTOCOL 5: every task but translation has a score


def cell_counts(records: Iterable[Record]) -> Counter[Cell]:
    """How many of `records` each report cell rests on (the aggregates' own grouping)."""
    counts: Counter[Cell] = Counter()
    for r in records:
        if _accuracy_item(r):
            counts["accuracy", "overall", ""] += 1
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


def _small(n: int | None, public: int, k: int) -> bool:
    if n is None:  # the paper's numbers: published, no item counts
        return False
    private = n - public
    return 0 < private < k


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


def _hide_score(node: Score) -> Score:
    return Score(math.nan, node.n, None)


def _hide_bleu(node: BleuScore) -> BleuScore:
    return replace(node, score=math.nan, variable_refs=None, chrf=None, ci=None)


def public_cell_counts(public_records: Iterable[Record]) -> Counter[Cell]:
    """The public items each report cell rests on (what `suppress` needs of the gold)."""
    return cell_counts(r for r in public_records if r.source not in PRIVATE_SOURCES)


def suppress(
    report: Report,
    public_records: Iterable[Record],
    k: int,
    *,
    public: Counter[Cell] | None = None,
) -> Report:
    """`report` with every value resting on 1..k-1 private items replaced by NaN.

    `public_records`: the public gold records of the files the report was scored on; or
    `public`, their `public_cell_counts` (a reader suppressing many entries counts once).
    """
    if k <= 1:
        return report
    if public is None:
        public = public_cell_counts(public_records)
    acc = report.accuracy
    overall = acc.overall
    if _small(overall.n, public["accuracy", "overall", ""], k):
        overall = _hide_score(overall)
    breakdowns = {}
    for dim, groups in acc.breakdowns.items():
        private = {
            g: 0 if s.n is None else s.n - public["accuracy", dim, g] for g, s in groups.items()
        }
        hidden = complete(private, (g for g, n in private.items() if 0 < n < k), k)
        breakdowns[dim] = {g: _hide_score(s) if g in hidden else s for g, s in groups.items()}
    extra = {
        key: _hide_score(s) if _small(s.n, public["extra", key, ""], k) else s
        for key, s in report.extra.items()
    }
    bleu = {
        target: {
            split: (
                _hide_bleu(b)
                if b is not None and _small(b.n, public["bleu", target, split], k)
                else b
            )
            for split, b in splits.items()
        }
        for target, splits in report.bleu.items()
    }
    return replace(
        report,
        accuracy=replace(acc, overall=overall, breakdowns=breakdowns),
        extra=extra,
        bleu=bleu,
    )


def suppressed_cells(report: Report) -> int:
    """How many values of a report are missing (NaN) — suppressed or absent."""
    nodes: list[Score | BleuScore | None] = [report.accuracy.overall]
    nodes += [s for groups in report.accuracy.breakdowns.values() for s in groups.values()]
    nodes += list(report.extra.values())
    nodes += [b for splits in report.bleu.values() for b in splits.values()]
    return sum(1 for n in nodes if n is not None and math.isnan(n.score))


def suppress_differences(
    diffs: Sequence[Difference],
    a: Mapping[str, ItemResult],
    b: Mapping[str, ItemResult],
    k: int,
) -> list[Difference]:
    """Paired differences with every group resting on 1..k-1 private items made NaN.

    The differences are over the items both entries scored (compare.paired's rule).
    """
    private: Counter[tuple[str, str]] = Counter()
    for item_id, it in a.items():
        other = b.get(item_id)
        if it.score is None or other is None or other.score is None:
            continue
        if it.source in PRIVATE_SOURCES:
            private["overall", "overall"] += 1  # the overall row: dimension and group "overall"
            for dim, group in it.groups.items():
                private[dim, group] += 1
    hidden: set[tuple[str, str]] = set()
    for dim in {d.dimension for d in diffs}:
        counts = {d.group: private[dim, d.group] for d in diffs if d.dimension == dim}
        small = (g for g, n in counts.items() if 0 < n < k)
        hidden |= {(dim, g) for g in complete(counts, small, k)}
    return [
        replace(d, a=math.nan, b=math.nan, diff=math.nan, ci=None)
        if (d.dimension, d.group) in hidden
        else d
        for d in diffs
    ]
