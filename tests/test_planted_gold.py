"""The gold-error flags on the planted-error benchmark (tests/planted_gold.py; README: Item
analysis, "Measured on a planted-error benchmark"): the figures the README states, on fewer
seeds (the README's are over 8)."""

from __future__ import annotations

import pytest
from planted_gold import benchmark_gold, figures, run

SEEDS = range(3)


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return benchmark_gold(tmp_path_factory.mktemp("planted") / "gold")


def test_flags_are_precise_on_the_realistic_benchmark(records):
    precision, recall = figures([run(records, seed) for seed in SEEDS])
    # measured 0.92 / 0.46 over 8 seeds; the target (0.9 at recall 0.75) is not reached
    assert precision >= 0.85 and recall >= 0.4


def test_almost_nothing_is_flagged_with_no_error_planted(records):
    flagged = [len(run(records, seed, planted={}, broken=()).flagged) for seed in SEEDS]
    assert max(flagged) <= 2
