"""The gold-error flags on the planted-error benchmark (tests/planted_gold.py; README: Item
analysis, "Measured on a planted-error benchmark"): the figures the README states, on the
report seeds (`REPORT_SEEDS`, none used to choose a constant). Floors are the measured
figures rounded down: the flags getting worse fails the test."""

from __future__ import annotations

import pytest
from planted_gold import REPORT_SEEDS, benchmark_gold, figures, run


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return benchmark_gold(tmp_path_factory.mktemp("planted") / "gold")


def test_flags_on_the_realistic_benchmark(records):
    precision, recall = figures([run(records, seed) for seed in REPORT_SEEDS])
    # measured 0.947 / 0.493 (288 planted, 142 found, 8 false) with the entries' strength by
    # task from the paper's results; the target (0.9 at recall 0.75) is not reached
    # with ten entries (nor 15, 20, 30, 50): see the README for the entries curve and the limits
    assert precision >= 0.94 and recall >= 0.49


def test_few_flags_with_no_error_planted(records):
    flagged = [len(run(records, seed, planted={}, broken=()).flagged) for seed in REPORT_SEEDS]
    # measured 9 over the 24 seeds, at most 2 in one
    assert sum(flagged) <= 9 and max(flagged) <= 2
