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
from respondeoqa_eval.metrics.bleu import (
    N_STATS,
    CorpusStatistics,
    _tokenize,
    bleu_from_stats,
    bleu_of_rows,
)
from respondeoqa_eval.metrics.chrf import (
    N_CHRF_STATS,
    chrf_rows,
    f_score,
    f_scores,
    item_statistics,
)
from respondeoqa_eval.scoring.aggregate import Bootstrap, _resampled_means, resampled_sums
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

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
    assert counts.dtype == np.uint8 and (counts == expected).all()  # drawn in blocks, the same
    assert boot.counts(n, salt) is counts  # drawn once, kept
    with pytest.raises(ValueError):
        counts[0, 0] = 5  # shared between callers: read-only


def test_resampled_sums_in_blocks_equal_one_product() -> None:
    counts = Bootstrap(resamples=250, seed=4).counts(300, 2)
    values = np.random.default_rng(8).integers(0, 50, size=(300, 7)).astype(float)
    assert (resampled_sums(counts, values) == counts.astype(float) @ values).all()


# every character the 13a rules name, the entities and markers it replaces, digits beside
# periods, commas and dashes, and the rest
TOKEN_PIECES = [chr(c) for c in range(32, 127)] + ["&quot;", "&amp;", "&lt;", "&gt;", "&"]
TOKEN_PIECES += ["<skipped>", "-\n", "\n", "\t", " ", "  ", "1.5", "a.b", ",", "3-4", "é", "ā"]


@pytest.mark.parametrize("seed", range(40))
def test_tokenize_equals_sacrebleu_13a(seed: int) -> None:
    rng = random.Random(seed)
    texts = [
        "".join(rng.choice(TOKEN_PIECES) for _ in range(rng.randint(0, 60))) for _ in range(50)
    ]
    sacre = Tokenizer13a()
    assert [_tokenize(t) for t in texts] == [sacre(t.lower().rstrip()) for t in texts]


def test_tokenize_equals_sacrebleu_13a_on_real_references(public_gold) -> None:
    texts = [a for r in public_gold.records if r.task == "translation" for a in r.answers]
    sacre = Tokenizer13a()
    assert [_tokenize(t) for t in texts] == [sacre(t.lower().rstrip()) for t in texts]


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


def test_sacre_parts_are_sacrebleus() -> None:
    """`metrics/sacre.py` against sacreBLEU itself: the version, the pinned release's 13a rules,
    the word n-gram count (keys, counts and their order), `my_log`."""
    import sacrebleu
    from respondeoqa_eval.metrics import sacre
    from sacrebleu.metrics.bleu import my_log
    from sacrebleu.metrics.helpers import extract_all_word_ngrams
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    assert sacre.version() == sacrebleu.__version__ == sacre.PINNED
    theirs = Tokenizer13a()._post_tokenizer._re
    assert [(p.pattern, r) for p, r in sacre.rules()] == [(p.pattern, r) for p, r in theirs]
    rng = random.Random(3)
    words = ["a", "b", "a", "puella", "rosam", ",", ".", "ō", "the", "the"]
    lines = ["", " ", "a", "a a a a a", "a  b\tc\nd"]
    lines += [" ".join(rng.choice(words) for _ in range(rng.randrange(30))) for _ in range(300)]
    for line in lines:
        for order in (1, 2, 4):
            ours, n = sacre.word_ngrams(line, order)
            theirs_ngrams, m = extract_all_word_ngrams(line, 1, order)
            assert n == m and list(ours.items()) == list(theirs_ngrams.items())
    for num in (0.0, 1e-300, 0.5, 1.0, 3.0, 100.0, 5e-324):
        assert sacre.my_log(num) == my_log(num)


def test_closest_ref_len_is_the_sorted_definition() -> None:
    """`closest_ref_len` against sacreBLEU's rule written out: the closest, the shorter of two."""
    from respondeoqa_eval.metrics.bleu import closest_ref_len

    rng = random.Random(11)
    for _ in range(20000):
        refs = [rng.randrange(0, 30) for _ in range(rng.randrange(1, 7))]
        hyp = rng.randrange(0, 36)
        assert closest_ref_len(hyp, refs) == min(refs, key=lambda r: (abs(hyp - r), r))
