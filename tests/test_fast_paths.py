"""The fast paths of scoring give the same numbers as their one-at-a-time definitions.

Bootstrap: the resample matrix against numpy's draws counted with one `bincount`, the blocked
products against one product, the resampled means against the two products, the intervals
against `np.nanpercentile`. JSON: orjson's reading against `json.loads`. BLEU and chrF have no
fast path of their own: sacreBLEU computes them (tests/test_sacrebleu.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from respondeoqa_eval.scoring.aggregate import Bootstrap, _resampled_means, resampled_sums


@pytest.mark.parametrize(("n", "salt"), [(1, 0), (7, 3), (6563, 0), (916, 5)])
def test_resample_counts_are_the_draws_counted(n: int, salt: int) -> None:
    boot = Bootstrap(resamples=200, seed=99)
    drawn = np.random.default_rng([99, salt]).integers(0, n, size=(200, n))
    expected = np.stack([np.bincount(row, minlength=n) for row in drawn])
    counts = boot.counts(n, salt)
    assert counts.dtype == np.uint8 and (counts == expected).all()  # drawn in blocks, the same
    assert boot.counts(n, salt) is counts  # drawn once, kept
    with pytest.raises(ValueError):
        counts[0, 0] = 5  # shared between callers: read-only


def test_resampled_sums_in_blocks_equal_one_product() -> None:
    counts = Bootstrap(resamples=250, seed=4).counts(300, 2)
    values = np.random.default_rng(8).integers(0, 50, size=(300, 7)).astype(float)
    assert (resampled_sums(counts, values) == counts.astype(float) @ values).all()


@pytest.mark.parametrize("fractions", [0, 1, 3])
def test_resampled_means_equal_the_two_products(fractions: int) -> None:
    # items in a few groups, right / wrong scores, and `fractions` columns of partial credit
    rng = np.random.default_rng(fractions)
    n, groups = 900, 12
    masks = (rng.integers(0, groups, size=n)[:, None] == np.arange(groups)).astype(float)
    masks = np.concatenate([np.ones((n, 1)), masks, masks[:, :2]], axis=1)
    values = rng.integers(0, 2, size=(n, 1)) * np.ones((1, masks.shape[1]))
    for j in range(1, 1 + fractions):
        values[:, j] = rng.integers(0, 7, size=n) / 6
    sums = masks * values
    counts = Bootstrap(resamples=300, seed=fractions).counts(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = resampled_sums(counts, sums) / resampled_sums(counts, masks)
    got = _resampled_means(counts, masks, sums)
    assert np.array_equal(got, expected, equal_nan=True)
    assert np.isnan(got).any() == np.isnan(expected).any()


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "a", "response": "Answer: B", "n": 3, "x": -0.0, "y": 1.5e-7, "z": null}',
        '{"a": 1, "a": 2}',  # the last of equal keys
        '"\\ud83d\\ude00 \\u0101 \\u0000"',  # escapes, astral, NUL
        "1e400",  # json: inf; orjson refuses
        "NaN",
        "[-Infinity]",
        "18446744073709551616",  # over 64 bits
        "-9223372036854775809",
        '{"n": [9223372036854775807, 18446744073709551615, 99999999999999999999999]}',
        "5e-324",
        "1.7976931348623157e308",
        "0.1000000000000000055511151231257827",
        '"\\ud800"',  # a lone surrogate
        "[" * 200 + "]" * 200,
        "[" * 300 + "]" * 300,
        " \n[1, 2] \t",
    ],
)
def test_parse_json_reads_what_json_loads_reads(text) -> None:
    """`io.parse_json`'s orjson path gives `json.loads`' values and types, or leaves it to it."""
    import json

    from respondeoqa_eval.io import parse_json

    def typed(value):  # equality with the types too (1 == 1.0 == True in Python)
        if isinstance(value, list):
            return [typed(v) for v in value]
        if isinstance(value, dict):
            return {k: typed(v) for k, v in value.items()}
        return (type(value).__name__, repr(value))

    assert typed(parse_json(text, "t")) == typed(json.loads(text))


def test_intervals_equal_nanpercentile() -> None:
    """`Bootstrap.intervals` gives `np.nanpercentile`'s numbers bit for bit: columns without
    NaN, with some, with all, ties, a single value."""
    for seed in range(20):
        _intervals_equal_nanpercentile(np.random.default_rng(seed))


def _intervals_equal_nanpercentile(rng: np.random.Generator) -> None:
    from respondeoqa_eval.scoring.aggregate import Bootstrap

    values = rng.random((1000, 8))
    values[rng.random((1000, 8)) < 0.05] = np.nan
    values[:, 0] = rng.random(1000)  # none
    values[:, 1] = np.nan  # all
    values[:, 2] = np.round(values[:, 2], 1)  # ties
    values[1:, 3] = np.nan  # one value
    values[:, 4] = rng.integers(0, 3, 1000) / 3
    values[:, 5] = rng.random(1000)  # columns without NaN: one 2-D np.percentile
    values[:, 6] = rng.integers(0, 7, 1000) / 7
    values[:, 7] = np.round(rng.random(1000), 2)
    boot = Bootstrap()
    tail = (1 - boot.level) / 2 * 100  # 2.4999999999999996: the report's, as it always was
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        expected = np.nanpercentile(values, [tail, 100 - tail], axis=0).T.tolist()
    got = boot.intervals(values)
    assert np.array_equal(np.array(got), np.array(expected), equal_nan=True)
    assert np.array_equal(np.array(boot.interval(values[:, 0])), np.array(expected[0]))
