"""The one number style every view shows: one decimal, halves rounded up as written.

The leaderboard (its board, CSV, detail and Compare), the Space's messages and the CLI summary
all format scores with these functions, so a number reads the same wherever it appears:
accuracy in percent, BLEU and chrF in points, an interval as "55.6 to 62.3", "—" when missing.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

MISSING = "\u2014"  # what a missing value reads as, in every view


def round1(value: float | None) -> float:
    """A score as every view shows it: one decimal, halves rounded up as written (17.95 ->
    18.0, where float rounding gives 17.9); NaN when missing."""
    if value is None or math.isnan(value):
        return math.nan
    return float(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def number_text(value: float | None) -> str:
    """A score (already in percent or points) as text: "59.1", MISSING when missing."""
    shown = round1(value)
    return MISSING if math.isnan(shown) else f"{shown:.1f}"


def percent(fraction: float | None) -> float | None:
    """An accuracy fraction in percent, as every view computes it (None stays None)."""
    return None if fraction is None else fraction * 100.0


def percent_text(fraction: float | None) -> str:
    """An accuracy in the views' style, e.g. "59.1%" (MISSING when not shown)."""
    text = number_text(percent(fraction))
    return text if text == MISSING else f"{text}%"


def interval_text(low: float | None, high: float | None) -> str:
    """An interval (already in percent or points) as "55.6 to 62.3"; MISSING when either end
    is missing."""
    lo, hi = number_text(low), number_text(high)
    return MISSING if MISSING in (lo, hi) else f"{lo} to {hi}"
