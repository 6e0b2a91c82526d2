"""The one number style of every view (CLI summary, leaderboard, Compare, charts, CSV).

Scores are shown with one decimal, halves rounded up as written (17.95 -> 18.0, where float
formatting gives 17.9 because 17.95 is stored as 17.9499...); accuracy in percent, BLEU and chrF
in points; an interval as "55.6 to 62.3" (none when it has no width); a missing value as an em
dash.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

MISSING = "\u2014"

SMALL_GROUP = 30
"""A score resting on fewer items than this moves a lot with one or two items: every view marks
it (with SMALL_MARK), and the board never shades it as a column's best."""
SMALL_MARK = "*"


def is_small(n: int | None) -> bool:
    """Whether a score resting on `n` items is marked small (None: not known, e.g. published)."""
    return n is not None and n < SMALL_GROUP


def round1(value: float | None) -> float:
    """A score as every view shows it: one decimal, halves rounded up as written; NaN when
    missing."""
    if value is None or math.isnan(value):
        return math.nan
    return float(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def score_text(value: float | None) -> str:
    """A score in points or percent, e.g. "59.1" (MISSING when missing)."""
    shown = round1(value)
    return MISSING if math.isnan(shown) else f"{shown:.1f}"


def percent(fraction: float | None) -> float | None:
    """An accuracy fraction in percent, as every view computes it (None stays None)."""
    return None if fraction is None else fraction * 100.0


def percent_text(fraction: float | None) -> str:
    """An accuracy (a fraction) as "59.1%" (MISSING when missing)."""
    text = score_text(percent(fraction))
    return text if text == MISSING else f"{text}%"


def interval_text(low: float | None, high: float | None, *, tight: bool = False) -> str:
    """An interval, e.g. "55.6 to 62.3", or "55.6\u201362.3" `tight` (under a number in a
    narrow cell); MISSING when either end is missing, or when the interval has no width: a
    percentile bootstrap over items that all score alike (one item, or all right) draws the
    same score every time, and "100.0 to 100.0" would claim a certainty it does not have."""
    lo, hi = score_text(low), score_text(high)
    if MISSING in (lo, hi) or lo == hi:
        return MISSING
    return f"{lo}\u2013{hi}" if tight else f"{lo} to {hi}"


def signed_text(value: float | None) -> str:
    """A difference with its sign, e.g. "+1.5" / "\u22122.0" (MISSING when missing)."""
    shown = round1(value)
    if math.isnan(shown):
        return MISSING
    return f"+{shown:.1f}" if shown > 0 else f"\u2212{-shown:.1f}" if shown < 0 else "0.0"


def count_text(value: object) -> str:
    """A count, e.g. "453" (MISSING when missing)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    try:
        return f"{int(value):d}"  # type: ignore[call-overload]  # any cell: errors caught below
    except (TypeError, ValueError):  # pandas' missing marks
        return MISSING


def ratio_text(value: float) -> str:
    """How many times likelier, e.g. "2.4", "813", "1,650"; "over a million" above that (one
    style for small and large ratios, no exponent)."""
    if value >= 1e6:
        return "over a million"
    return f"{value:.1f}" if value < 9.95 else f"{round(value):,}"
