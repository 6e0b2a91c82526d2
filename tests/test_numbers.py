"""The one number style (respondeoqa_eval.numbers): one decimal, halves up as written."""

from __future__ import annotations

import math
from pathlib import Path

import respondeoqa_eval
from respondeoqa_eval.report import numbers
from respondeoqa_space.views import board, frames


def test_halves_round_up_as_written_not_as_stored() -> None:
    # 17.95 is stored as 17.949999...: float rounding gives 17.9, the written number 18.0
    assert round(17.95, 1) == 17.9
    assert numbers.round1(17.95) == 18.0
    assert [numbers.score_text(v) for v in (0.05, 71.92, 90.25, -0.15, 100.0)] == [
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


def test_signed_differences_and_counts() -> None:
    assert [numbers.signed_text(v) for v in (1.25, -17.95, 0.0, -0.04)] == [
        "+1.3",
        "\u221218.0",
        "0.0",
        "0.0",
    ]
    assert numbers.signed_text(math.nan) == numbers.count_text(None) == numbers.MISSING
    assert numbers.count_text(453) == "453" and numbers.count_text(math.nan) == numbers.MISSING


def test_the_leaderboard_uses_the_same_functions() -> None:
    """One home: the views import the style; no other module rounds numbers its own way."""
    assert frames.round1 is numbers.round1 and board.interval_text is numbers.interval_text
    package = Path(respondeoqa_eval.__file__).parent
    others = [
        p.relative_to(package).as_posix()
        for p in package.rglob("*.py")
        if p.name != "numbers.py"
        and ("ROUND_HALF_UP" in (text := p.read_text(encoding="utf-8")) or "def round1" in text)
    ]
    assert others == []


def test_a_ratio_is_written_without_an_exponent() -> None:
    """The gold-error evidence's "N times likelier": small ratios with a decimal, large ones
    whole with thousands separators, never "1.65e+03" beside "813"."""
    shown = [numbers.ratio_text(v) for v in (2.44, 9.96, 813.4, 1650.2, 999_999.4, 2e6)]
    assert shown == ["2.4", "10", "813", "1,650", "999,999", "over a million"]
