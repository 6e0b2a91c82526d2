"""The gold-error flags on the planted-error benchmark (tests/planted_gold.py; README: Item
analysis, "Measured on a planted-error benchmark"): the figures the README states, on the
report seeds (`REPORT_SEEDS`, none used to choose a constant). Floors are the measured
figures rounded down: the flags getting worse fails the test. And the short-answer oracle
(`short_posterior`): on constructed items, its closed form against sampling, its answering
shares against `_wrong_answer`, its calibration on the report seeds."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from planted_gold import (
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
    figures,
    oracle_posteriors_short,
    run,
    short_posterior,
)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return benchmark_gold(tmp_path_factory.mktemp("planted") / "gold")


def test_flags_on_the_realistic_benchmark(records):
    precision, recall = figures([run(records, seed) for seed in REPORT_SEEDS])
    # measured 0.959 / 0.562 (288 planted, 162 found, 7 false) with the entries' strength by
    # task from the paper's results; the target (0.9 at recall 0.75) is above what even
    # the Bayes posterior under the simulation's own model reaches (0.677 at 0.9; README)
    assert precision >= 0.95 and recall >= 0.56


def test_feet_errors_are_found_where_the_answers_hold_them(records):
    # with wrong feet answers near misses of the truth (the earlier benchmark's), the position
    # test finds most planted feet errors: measured 35 of 48, 2 false flags on feet
    outcomes = [run(records, seed, near_feet=True) for seed in REPORT_SEEDS]
    feet = [
        (it.id in o.planted, it.id in o.flagged)
        for o in outcomes
        for it in o.analysis.items
        if it.task == "feet"
    ]
    found = sum(planted and flagged for planted, flagged in feet)
    false = sum(flagged and not planted for planted, flagged in feet)
    assert found >= 35 and false <= 2


def test_few_flags_with_no_error_planted(records):
    flagged = [len(run(records, seed, planted={}, broken=()).flagged) for seed in REPORT_SEEDS]
    # measured 9 over the 24 seeds, at most 2 in one
    assert sum(flagged) <= 9 and max(flagged) <= 2


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
