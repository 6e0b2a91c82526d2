"""The one number style (respondeoqa_eval.numbers): one decimal, halves up as written."""

from __future__ import annotations

import math

from respondeoqa_eval import numbers
from respondeoqa_eval.space import table


def test_halves_round_up_as_written_not_as_stored() -> None:
    # 17.95 is stored as 17.949999...: float rounding gives 17.9, the written number 18.0
    assert round(17.95, 1) == 17.9
    assert numbers.round1(17.95) == 18.0
    assert [numbers.number_text(v) for v in (0.05, 71.92, 90.25, -0.15, 100.0)] == [
        "0.1",
        "71.9",
        "90.3",
        "-0.2",
        "100.0",
    ]


def test_percent_and_interval_text() -> None:
    assert numbers.percent_text(0.59149) == "59.1%"
    assert numbers.percent_text(2 / 3) == "66.7%"
    assert numbers.percent_text(None) == numbers.MISSING == "\u2014"
    assert numbers.interval_text(55.55, 62.349) == "55.6 to 62.3"
    assert numbers.interval_text(math.nan, 3.0) == numbers.MISSING
    assert numbers.interval_text(None, None) == numbers.MISSING


def test_the_leaderboard_uses_the_same_functions() -> None:
    """One home: the Space's table imports the style, it does not define its own."""
    assert table.round1 is numbers.round1
    assert table.percent_text is numbers.percent_text
    assert table.MISSING is numbers.MISSING
