"""A board of many entries, in-process (issue 40): rank ranges by bisection agree with every
pair compared; the record tables a reader keeps across data versions give the frames a fresh
build gives; search and paging reach every entry."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from respondeoqa_space.views.frames import rank_ranges

NAN = math.nan


def brute_rank_ranges(
    coverage: list[str], score: list[float], low: list[float], high: list[float], rank: list[int]
) -> tuple[list[int], list[int]]:
    """The definition, every pair compared: a row with an interval ranks from 1 + the rows of
    its coverage surely above it (their low end above its high end) to 1 + those maybe above
    it (their high end at or above its low end); a row without an interval counts as its value
    alone and keeps its rank; a row without a score counts for nothing."""
    out_low, out_high = list(rank), list(rank)
    spans = []
    for i, s in enumerate(score):
        if math.isnan(s):
            continue
        has_ci = not (math.isnan(low[i]) or math.isnan(high[i]))
        spans.append((i, low[i] if has_ci else s, high[i] if has_ci else s, has_ci))
    for i, lo, hi, has_ci in spans:
        if not has_ci:
            continue
        others = [(lo2, hi2) for j, lo2, hi2, _ in spans if j != i and coverage[j] == coverage[i]]
        out_low[i] = 1 + sum(1 for lo2, _ in others if lo2 > hi)
        out_high[i] = 1 + sum(1 for _, hi2 in others if hi2 >= lo)
    return out_low, out_high


def _case(rng: random.Random) -> tuple[list, list, list, list, list]:
    """Random rows: scores on a coarse grid (ties), some without a score, some without an
    interval or with half of one, intervals that touch, a few with their ends swapped."""
    n = rng.randrange(0, 40)
    coverage = [rng.choice("abc") for _ in range(n)]
    score, low, high = [], [], []
    for _ in range(n):
        s = rng.choice([NAN, *[v / 4 for v in range(9)]]) if rng.random() < 0.9 else NAN
        lo = s - rng.choice([0, 0.25, 0.5, 1])
        hi = s + rng.choice([0, 0.25, 0.5, 1])
        kind = rng.random()
        if kind < 0.15:
            lo = hi = NAN  # no interval (a published number)
        elif kind < 0.2:
            lo = NAN  # half an interval counts as none
        elif kind < 0.23:
            lo, hi = hi, lo  # ends swapped: the definition still says what follows
        score.append(s)
        low.append(lo)
        high.append(hi)
    rank = [rng.randrange(0, n + 1) for _ in range(n)]
    return coverage, score, low, high, rank


@pytest.mark.parametrize("seed", range(400))
def test_rank_ranges_agree_with_every_pair_compared(seed: int) -> None:
    coverage, score, low, high, rank = _case(random.Random(seed))
    got = rank_ranges(coverage, np.array(score), np.array(low), np.array(high), np.array(rank))
    want = brute_rank_ranges(coverage, score, low, high, rank)
    assert [list(map(int, part)) for part in got] == [list(part) for part in want]
