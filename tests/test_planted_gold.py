"""The gold-error flags on one seed of the planted-error benchmark (benchmarks/planted_gold.py,
which prints the figures of docs/item-analysis.md over the 24 report seeds, "Measured on a
planted-error benchmark"), and the benchmark's oracles on constructed cases.

The smoke test runs the first report seed (`SMOKE_SEED`): what the flags find there, by kind
of planted error, with no error planted and with near-miss feet answers. Floors are the figures
measured on it: flags that stop finding an error of some kind, or flag sound items, fail it.
The oracle tests check `short_posterior` (its closed form against sampling, its answering shares
against `_wrong_answer`, its calibration on the report seeds: 24 seeds, marked slow) and
`feet_posterior` on constructed items.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from planted_gold import (
    PLANTED,
    REPORT_SEEDS,
    SHORT_LURE,
    SHORT_LURES,
    SHORT_NONE,
    SHORT_OWN,
    _knowing_on_grid,
    _log_lure_draws,
    _wrong_answer,
    abilities,
    benchmark_gold,
    feet_posterior,
    oracle_posteriors_short,
    run,
    short_posterior,
)
from respondeoqa_eval.analysis.items import AGREE, GOLD_FORMAT

SMOKE_SEED = REPORT_SEEDS[0]
"""The seed the smoke test runs: the first report seed (no constant was chosen on it)."""


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return benchmark_gold(tmp_path_factory.mktemp("planted") / "gold")


def _found(outcome, reason: str) -> Counter:
    """Task -> the planted items flagged for `reason` (the agreement test, or the gold's
    format rule)."""
    items = {it.id: it for it in outcome.analysis.items}
    return Counter(
        items[i].task for i in outcome.planted & outcome.flagged if reason in items[i].reasons
    )


def _feet_found(outcome) -> list[tuple[int | None, bool]]:
    """The planted feet errors flagged: (the foot the evidence names, whether by the line test)."""
    return [
        (it.agreement_foot, it.agreement_line)
        for it in outcome.analysis.items
        if it.task == "feet" and it.id in outcome.planted & outcome.flagged
    ]


def test_smoke_the_flags_find_each_kind_of_planted_error_on_one_seed(records):
    """Seed 12, measured: of the 5 multiple-choice, 3 short-answer and 2 feet content errors
    the agreement test finds 4, 2 and 1, the format rule both broken formats, and no sound
    item is flagged. The feet error is found by the line test (the board's wrong feet are far
    off, so one strong entry giving the gold's line but one foot tells)."""
    outcome = run(records, SMOKE_SEED)
    assert len(outcome.planted) == sum(PLANTED.values()) + 2
    assert outcome.flagged <= outcome.planted, "a sound item flagged"
    agree = _found(outcome, AGREE)
    # 4 content errors, and the broken letter (an option the item lacks: nobody gives it)
    assert agree["multiple_choice"] >= 5, agree
    assert agree["short_answer"] >= 2 and agree["feet"] >= 1, agree
    assert _found(outcome, GOLD_FORMAT) == {"multiple_choice": 1, "short_answer": 1}
    assert [line for _, line in _feet_found(outcome)] == [True]


def test_smoke_near_miss_feet_answers_find_both_feet_errors(records):
    """With the earlier benchmark's near-miss feet answers the position test finds both
    planted feet errors, each at its foot."""
    outcome = run(records, SMOKE_SEED, near_feet=True)
    assert outcome.flagged <= outcome.planted, "a sound item flagged"
    found = _feet_found(outcome)
    assert len(found) == PLANTED["feet"] and all(
        foot is not None and not line for foot, line in found
    ), found


def test_smoke_no_flag_with_no_error_planted(records):
    assert run(records, SMOKE_SEED, planted={}, broken=()).flagged == frozenset()


RATE = 3 / 675  # the benchmark's planting rate: 3 short-answer errors among its 675 items


@pytest.fixture(scope="module")
def grid():
    return _knowing_on_grid(abilities()["short_answer"])  # ten entries, weakest first


def test_short_oracle_on_constructed_items(grid):
    def posterior(given: list[str]) -> float:
        return short_posterior(given, "gold", *grid, RATE, words=400)

    # nobody right and the strongest agree: under "the gold is right" six answers alike are one
    # lure drawn six times, 3 slots x 0.45^6 x E[w^6] = 3 x 0.0083 x 2 * 6! / 8! = 9e-4, with
    # every entry, the strongest too, missing an item they mostly know
    assert posterior(["", "own-1", "own-2", "own-3"] + ["X"] * 6) > 0.5
    assert posterior(["own-1", "own-2"] + ["X"] * 8) > 0.9
    # the three weakest agree, the rest miss it too: a hard item's attractive lure
    assert posterior(["X", "X", "X", "", "own-1", "own-2", "", "own-3", "own-4", "own-5"]) < 0.1
    # no answers: no evidence either way, the prior (every hypothesis explains them alike)
    assert posterior([""] * 10) == pytest.approx(RATE, rel=1e-9)
    # an easy item the strong get right: the wrong answers are the weak entries' own
    assert posterior(["own-1", ""] + ["gold"] * 8) < 1e-6
    # ... and the gold given only by the weakest entry is a lure if the gold is wrong (a
    # coincidence of 1 in `words`), so it weighs against the strong agreement
    assert posterior(["gold", "own-1", "own-2", "own-3"] + ["X"] * 6) < posterior(
        ["", "own-1", "own-2", "own-3"] + ["X"] * 6
    )


def _lure_draws_by_sampling(labels: list[str], samples: int = 200_000) -> float:
    """P(the answers `labels` of entries that do not know, none empty), by listing every way
    the distinct answers can be lure slots or own strings and sampling the Dirichlet(1)
    weights: `_log_lure_draws` written the long way."""
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(SHORT_LURES), samples)
    distinct = sorted(set(labels))
    total = np.zeros(samples)
    for roles in itertools.product([*range(SHORT_LURES), "own"], repeat=len(distinct)):
        slots = [r for r in roles if r != "own"]
        if len(slots) != len(set(slots)):
            continue  # two answers, one lure
        term = np.ones(samples)
        for label, role in zip(distinct, roles, strict=True):
            n = labels.count(label)
            if role == "own":
                term = term * (SHORT_OWN if n == 1 else 0.0)  # own strings never agree
            else:
                term = term * (SHORT_LURE * weights[:, role]) ** n
        total += term
    return float(total.mean())


@pytest.mark.parametrize(
    "labels",
    [
        ["a"] * 6,
        ["a", "b", "c"],
        ["a", "a", "b", "b", "c", "d"],
        ["a", "a", "a", "b", "c", "d", "e"],
    ],
)
def test_lure_draws_in_closed_form(labels):
    counts = Counter(labels)
    forced = [n for n in counts.values() if n > 1]
    closed = math.exp(_log_lure_draws(forced, len(counts) - len(forced)))
    assert closed == pytest.approx(_lure_draws_by_sampling(labels), rel=0.03)


@pytest.mark.slow
def test_short_oracle_reads_the_simulation_right(records):
    """The oracle's answering shares are `_wrong_answer`'s, and its posteriors are calibrated on
    the report seeds: their sum over every short-answer item is the number of errors planted."""
    r = next(r for r in records if r.task == "short_answer")
    rng = random.Random(0)
    lures, weights = ["lure-0", "lure-1", "lure-2"], [0.5, 0.3, 0.2]
    drawn = Counter(_wrong_answer(rng, r, 3, lures, weights, False) for _ in range(20_000))
    assert drawn[None] / 20_000 == pytest.approx(SHORT_NONE, abs=0.01)
    assert drawn["lure-0"] / 20_000 == pytest.approx(SHORT_LURE * 0.5, abs=0.01)
    assert sum(drawn[x] for x in lures) / 20_000 == pytest.approx(SHORT_LURE, abs=0.01)
    own = [x for x in drawn if x is not None and x not in lures]
    assert sum(drawn[x] for x in own) / 20_000 == pytest.approx(SHORT_OWN, abs=0.01)
    total = planted = 0.0
    for seed in REPORT_SEEDS:
        p, s = oracle_posteriors_short(records, seed)
        total += sum(p) + sum(s)
        planted += len(p)
    # the spread of the sum over seeds is about 0.85 per seed (4.2 over 24): 3 sd either side
    assert planted == 72 and abs(total - planted) < 12


def test_feet_oracle_on_constructed_lines():
    log_prior, knows = _knowing_on_grid(abilities()["feet"])
    rate = 0.05
    gold = ("spondee", "dactyl", "spondee", "spondee")
    truth = ("spondee", "dactyl", "dactyl", "spondee")
    far = [(f,) * 4 for f in ("tribrac", "anapest", "choriamb", "amphibrac", "dichoree",
                               "great ionic", "pyrrhic", "trochee", "iamb")]  # fmt: skip

    def posterior(strongest: tuple[str, ...]) -> float:
        return feet_posterior([*far, strongest], gold, log_prior, knows, rate)

    # nobody gives the gold or a line one foot off it: the answers tell nothing, the prior
    assert posterior(("small ionic",) * 4) == pytest.approx(rate)
    assert posterior(("",)) == pytest.approx(rate)  # no answer (read as one empty foot) neither
    # the strongest entry gives the gold with one foot changed, the others far off: a knower's
    # line (a far-off answer one foot off the gold is a 1-in-13**3 chance)
    assert posterior(truth) > 0.9
    # the strongest gives the gold itself: it is right
    assert posterior(gold) < 1e-3
