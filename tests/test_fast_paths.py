"""The fast paths of scoring give the same numbers as their one-at-a-time definitions.

chrF: `chrf_rows` (every item at once, numpy) against `item_statistics` (one item, sacreBLEU's
n-gram helper) on texts chosen to be awkward: repeated characters (overlapping n-grams), every
kind of whitespace, macrons, astral characters, a lone surrogate, empty strings; `f_scores`
against `f_score` bit for bit. Bootstrap: the resample matrix against numpy's draws counted
with one `bincount`. BLEU: `bleu_of_rows` against sacreBLEU's `compute_bleu` (through
`bleu_from_stats`) bit for bit; statistics computed twice (references kept) are the same.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from respondeoqa_eval.metrics.bleu import N_STATS, CorpusStatistics, bleu_from_stats, bleu_of_rows
from respondeoqa_eval.metrics.chrf import (
    N_CHRF_STATS,
    chrf_rows,
    f_score,
    f_scores,
    item_statistics,
)
from respondeoqa_eval.scoring.aggregate import Bootstrap

PIECES = ["a", "b", "aa", "ab", "ba", " ", "\t", "\n", "\xa0", "\u2028", "é", "ā", "Z", ".", "😀"]
PIECES += ["\ud800"]  # a lone surrogate: json.loads accepts "\ud800" in an uploaded file


def _text(rng: random.Random, longest: int) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, longest)))


def _corpus(seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    n = rng.randint(1, 15)
    hyps = [_text(rng, rng.choice([0, 3, 12, 50])) for _ in range(n)]
    refs = [[_text(rng, rng.choice([0, 2, 9, 50])) for _ in range(rng.randint(1, 7))] for _ in hyps]
    if seed % 3 == 0:  # the hypothesis itself among the references
        refs = [
            [h, *r] if i % 2 else [*r, h] for i, (h, r) in enumerate(zip(hyps, refs, strict=True))
        ]
    return hyps, refs


def _one_at_a_time(hyps: list[str], refs: list[list[str]]) -> np.ndarray:
    rows = [item_statistics(h, r) for h, r in zip(hyps, refs, strict=True)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), N_CHRF_STATS)


@pytest.mark.parametrize("seed", range(120))
def test_chrf_rows_equal_item_statistics(seed: int) -> None:
    hyps, refs = _corpus(seed)
    assert chrf_rows(hyps, refs).tolist() == _one_at_a_time(hyps, refs).tolist()


def test_chrf_rows_of_real_references(public_gold) -> None:
    items = [r for r in public_gold.records if r.task == "translation"]
    rng = random.Random(5)
    hyps = []
    for r in items:
        words = rng.choice(r.answers).split()
        rng.shuffle(words)
        hyps.append(" ".join(words[: rng.randint(0, len(words))]))
    refs = [r.answers for r in items]
    assert chrf_rows(hyps, refs).tolist() == _one_at_a_time(hyps, refs).tolist()


def test_chrf_rows_again_with_the_same_references() -> None:
    # the references' n-grams are kept between calls; new hypotheses, also with characters no
    # reference has, are matched against them
    hyps, refs = _corpus(1)
    first = chrf_rows(hyps, refs)
    assert first.tolist() == _one_at_a_time(hyps, refs).tolist()
    for other in ([h[::-1] + "qß😀" for h in hyps], ["" for _ in hyps], [r[-1] for r in refs]):
        assert chrf_rows(other, refs).tolist() == _one_at_a_time(other, refs).tolist()


def test_chrf_rows_with_more_characters_than_the_keys_hold() -> None:
    # 2,000 distinct characters need 11 bits each: six of them no longer fit one integer key
    wide = "".join(chr(0x4E00 + i) for i in range(2000))
    hyps, refs = [wide[:40], "abc", ""], [[wide[20:90], wide], ["abcd", "b"], ["x"]]
    assert chrf_rows(hyps, refs).tolist() == _one_at_a_time(hyps, refs).tolist()


def test_chrf_rows_of_nothing_and_of_empty_texts() -> None:
    assert chrf_rows([], []).shape == (0, N_CHRF_STATS)
    assert chrf_rows(["", " "], [[""], [" \t", ""]]).tolist() == [[0] * N_CHRF_STATS] * 2
    with pytest.raises(ValueError, match="reference"):
        chrf_rows(["a"], [[]])


def test_f_scores_equal_f_score_to_the_last_bit() -> None:
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 40, size=(5000, N_CHRF_STATS))
    rows[rng.random(rows.shape) < 0.2] = 0  # orders without n-grams on one side
    rows[:50] = 0
    fast = f_scores(rows)
    assert [float(x) for x in fast] == [f_score(r) for r in rows.tolist()]


@pytest.mark.parametrize(("n", "salt"), [(1, 0), (7, 3), (6563, 0), (916, 5)])
def test_resample_counts_are_the_draws_counted(n: int, salt: int) -> None:
    boot = Bootstrap(resamples=200, seed=99)
    drawn = np.random.default_rng([99, salt]).integers(0, n, size=(200, n))
    expected = np.stack([np.bincount(row, minlength=n) for row in drawn])
    counts = boot.counts(n, salt)
    assert counts.dtype == np.int64 and (counts == expected).all()
    assert (boot.counts(n, salt, dtype=float) == expected).all()
    assert boot.counts(n, salt) is counts  # drawn once, kept
    with pytest.raises(ValueError):
        counts[0, 0] = 5  # shared between callers: read-only


def test_bleu_of_rows_equals_sacrebleu_to_the_last_bit() -> None:
    rng = np.random.default_rng(11)
    rows = rng.integers(0, 60, size=(4000, N_STATS))
    rows[:, 4:8] += rows[:, 0:4]  # totals at least the matches, as real statistics are
    rows[rng.random((4000, N_STATS)) < 0.15] = 0  # no matches, no n-grams, empty output
    rows[:20] = 0
    assert bleu_of_rows(rows) == [bleu_from_stats(r) for r in rows]


def test_statistics_are_the_same_when_the_references_are_kept(public_gold) -> None:
    items = [r for r in public_gold.records if r.task == "translation"][:80]
    hyps = [" ".join(reversed(r.answers[-1].split())) for r in items]
    refs = [r.answers for r in items]
    first = CorpusStatistics(hyps, refs, "english")
    again = CorpusStatistics(hyps, [list(r) for r in refs], "english")
    assert first.rows.tolist() == again.rows.tolist()
    assert first.references == again.references == [[*r] for r in refs]
    assert (first.result().score, first.result().chrf) == (
        again.result().score,
        again.result().chrf,
    )
