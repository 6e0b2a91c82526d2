"""Corpus BLEU with the paper's empty-reference padding (PROTOCOL section 5, BLEU paragraph)."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
import sacrebleu
from respondeoqa_eval.metrics import bleu
from respondeoqa_eval.metrics.bleu import (
    HYP_LEN,
    NO_PADDING,
    PAD_TO_GROUP_MAX,
    REF_LEN,
    BleuResult,
    CorpusStatistics,
    bleu_from_stats,
    bleu_stats,
    corpus_bleu,
    padded_ref_len,
    preprocess,
)
from sacrebleu.metrics.bleu import BLEU
from synthetic import PUBLIC_DIR

TRANSLATION_FILE = PUBLIC_DIR / "junior_scholarship_translation_long.json"


def _perturb(i: int, refs: list[str]) -> str:
    """A deterministic imperfect hypothesis built from a reference."""
    words = refs[i % len(refs)].split()
    kind = i % 5
    if kind == 0:  # much shorter than every reference: an empty reference is the closest length
        return " ".join(words[: max(1, len(words) // 4)])
    if kind == 1:  # one word dropped
        return " ".join(words[: len(words) // 2] + words[len(words) // 2 + 1 :])
    if kind == 2:  # two words swapped and one added
        return " ".join(words[1:2] + words[:1] + words[2:] + ["quoque"])
    if kind == 3:  # identical to the last reference
        return refs[-1]
    return "" if i % 10 == 4 else refs[0].upper()  # unanswered, or shouting the first reference


def _groups() -> dict[str, tuple[list[str], list[list[str]]]]:
    items = json.loads(TRANSLATION_FILE.read_text(encoding="utf-8"))
    groups: dict[str, tuple[list[str], list[list[str]]]] = {}
    for i, item in enumerate(items):
        keys = [
            item["answer_language"],
            f"{item['answer_language']}/constrained={item['constrained']}",
        ]
        for key in keys:
            hyps, refs = groups.setdefault(key, ([], []))
            hyps.append(_perturb(i, item["answers"]))
            refs.append(item["answers"])
    return groups


GROUPS = _groups()


def _streams(refs: list[list[str]], language: str, pad: str | None) -> list[list[str | None]]:
    """sacreBLEU's reference streams, each item's list padded with `pad` to the group maximum."""
    width = max(len(r) for r in refs)
    return [[preprocess(r[j], language) if j < len(r) else pad for r in refs] for j in range(width)]


def _sacrebleu(hyps: list[str], refs: list[list[str]], language: str, pad: str | None) -> float:
    pre = [preprocess(h, language) for h in hyps]
    return BLEU(lowercase=True).corpus_score(pre, _streams(refs, language, pad)).score


def test_sacrebleu_is_the_pinned_version() -> None:
    # The '' behaviour compared below is sacreBLEU 2.6.0's; on another version test (1) is void.
    assert sacrebleu.__version__ == "2.6.0"


# (1) on sacreBLEU 2.6.0 our paper score is sacreBLEU with '' padding, on the real public file


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_paper_score_equals_sacrebleu_empty_string_padding(group: str) -> None:
    hyps, refs = GROUPS[group]
    language = group.split("/")[0]
    result = corpus_bleu(hyps, refs, language)
    assert result.n == len(hyps)
    assert result.max_refs == max(len(r) for r in refs)
    assert result.score == _sacrebleu(hyps, refs, language, "")


@pytest.mark.parametrize("group", ["english", "latin"])
def test_padding_matters_on_the_real_file(group: str) -> None:
    # The test above is only meaningful if an empty reference was really chosen somewhere.
    hyps, refs = GROUPS[group]
    padded = bleu_stats(hyps, refs, group, max(len(r) for r in refs))
    plain = bleu_stats(hyps, refs, group, NO_PADDING)
    assert (bleu_stats(hyps, refs, group, PAD_TO_GROUP_MAX) == padded).all()
    chose_empty = (padded[:, REF_LEN] == 0) & (plain[:, REF_LEN] > 0)
    assert chose_empty.sum() > 0
    # padding changes only the reference length
    assert (np.delete(padded, REF_LEN, axis=1) == np.delete(plain, REF_LEN, axis=1)).all()
    assert corpus_bleu(hyps, refs, group).score != pytest.approx(
        corpus_bleu(hyps, refs, group).variable_refs, abs=0.01
    )


@pytest.mark.parametrize(
    ("hyps", "refs", "padding_matters"),
    [
        # a 5-token hypothesis against its only (13-token) reference, padded to 2: 0 is closer
        (
            ["the senate and the people", "the people of rome decided it"],
            [
                ["the senate and the people of rome decided it today in the forum"],
                ["the people of rome decided it", "a people"],
            ],
            True,
        ),
        # tie between the empty reference (0) and a real one (10) for a 5-token hypothesis
        (["a b c d e", "k"], [["a b c d e f g h i j"], ["k", "l"]], True),
        # an empty hypothesis (unanswered) against a padded reference list
        (
            ["", "the cat sat on the mat"],
            [["the cat sat on the mat"], ["the cat sat on the mat", "a cat sat"]],
            True,
        ),
        # the real reference is closest: padding changes nothing
        (["the cat sat on the mat", "x"], [["the cat sat on a mat"], ["x", "y", "z"]], False),
    ],
)
def test_empty_reference_as_closest_length_matches_sacrebleu(
    hyps: list[str], refs: list[list[str]], padding_matters: bool
) -> None:
    result = corpus_bleu(hyps, refs, "english")
    assert result.score == _sacrebleu(hyps, refs, "english", "")
    assert result.score > 0
    assert (abs(result.score - result.variable_refs) > 1) == padding_matters


# (2) a hand-computed example where padding changes the brevity penalty


def test_hand_computed_padding_changes_brevity_penalty() -> None:
    # Item A: hypothesis identical to its 6-token reference.
    # Item B: 3-token hypothesis, prefix of a 10-token reference, padded with one empty reference:
    #   |3 - 0| = 3 < |3 - 10| = 7, so its closest reference length is 0.
    hyps = ["alpha beta gamma delta epsilon zeta", "one two three"]
    refs = [
        ["alpha beta gamma delta epsilon zeta", "alpha beta gamma delta epsilon zeta eta"],
        ["one two three four five six seven eight nine ten"],
    ]
    # Item A's closest reference is its 6-token one (|6 - 6| = 0), padded or not; item B's only
    # reference gets one empty reference as padding (the group's largest count is 2).
    # Every hypothesis n-gram is in its reference: p_1 = 9/9, p_2 = 7/7, p_3 = 5/5, p_4 = 3/3.
    # Hypothesis length c = 9. Padded: r = 6 + 0 = 6 <= c, so BP = 1 and BLEU = 100.
    # Unpadded: r = 6 + 10 = 16 > c, BP = exp(1 - r/c), BLEU = 100 * exp(1 - 16/9).
    stats_padded = bleu_stats(hyps, refs, "english", 2)
    stats_plain = bleu_stats(hyps, refs, "english", NO_PADDING)
    # sacreBLEU's order: hyp_len, ref_len, matches_1..4, totals_1..4
    assert stats_padded.sum(axis=0).tolist() == [9, 6, 9, 7, 5, 3, 9, 7, 5, 3]
    assert stats_plain.sum(axis=0).tolist() == [9, 16, 9, 7, 5, 3, 9, 7, 5, 3]
    assert bleu_from_stats(stats_padded.sum(axis=0)) == pytest.approx(100.0)
    assert bleu_from_stats(stats_plain.sum(axis=0)) == pytest.approx(100 * math.exp(1 - 16 / 9))
    result = corpus_bleu(hyps, refs, "english")
    assert result.score == pytest.approx(100.0)
    assert result.variable_refs == pytest.approx(100 * math.exp(1 - 16 / 9))


def test_hand_computed_smoothing_and_brevity_penalty() -> None:
    # BLEU = BP * exp(mean_n log p_n), p_n = 100 * m_n / t_n; with exp (NIST) smoothing the k-th
    # order with no match gets p_n = 100 / (2^k * t_n). BP = exp(1 - r / c) when c < r.
    matches, totals, c, r = [3, 1, 0, 0], [4, 3, 2, 1], 4, 6
    p = [100 * 3 / 4, 100 * 1 / 3, 100 / (2 * 2), 100 / (4 * 1)]
    expected = math.exp(1 - r / c) * math.exp(sum(math.log(x) for x in p) / 4)
    assert bleu_from_stats(np.array([c, r, *matches, *totals])) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("hyp_len", "closest_real", "expected"),
    [
        (3, 10, 0),  # the empty reference is closer
        (5, 10, 0),  # tie: the shorter one, the empty reference
        (7, 10, 10),
        (0, 3, 0),  # an empty hypothesis
        (4, 4, 4),  # the real reference fits exactly
        (9, 2, 2),  # a long hypothesis: the real reference is closer
        (2, 1, 1),
        (1, 2, 0),
    ],
)
def test_padded_ref_len(hyp_len: int, closest_real: int, expected: int) -> None:
    got = padded_ref_len(np.array([hyp_len]), np.array([closest_real]))
    assert got.tolist() == [expected]


def test_padded_ref_len_is_sacrebleu_2_6_0_with_an_empty_reference() -> None:
    # PROTOCOL 5 on the sacreBLEU the paper used: the closest of the real lengths and 0
    rng = random.Random(11)
    bleu = BLEU()
    for _ in range(20000):
        real = [rng.randrange(0, 30) for _ in range(rng.randrange(1, 7))]
        hyp = rng.randrange(0, 36)
        closest_real = bleu._get_closest_ref_len(hyp, real)
        got = padded_ref_len(np.array([hyp]), np.array([closest_real])).tolist()
        assert got == [bleu._get_closest_ref_len(hyp, [*real, 0])], (hyp, real)


def test_bleu_rows_are_sacrebleus_per_sentence_statistics() -> None:
    hyps, refs = GROUPS["english"]
    rows = bleu_stats(hyps, refs, "english", NO_PADDING)
    ours = BLEU(lowercase=True)
    expected = [
        ours._extract_corpus_statistics([h], [[r] for r in rs])
        for h, rs in zip(hyps, refs, strict=True)
    ]
    assert rows.tolist() == [e[0] for e in expected]
    assert rows[:, HYP_LEN].sum() > 0


# (3) the future sacreBLEU (refs '' dropped like None) changes its number but not ours


def test_paper_score_independent_of_sacrebleu_empty_string_handling(monkeypatch) -> None:
    hyps, refs = GROUPS["latin"]
    before = corpus_bleu(hyps, refs, "latin")
    sacre_now = _sacrebleu(hyps, refs, "latin", "")
    original = BLEU._cache_references

    def development_branch(self, references):  # sacreBLEU's dev branch: '' is dropped too
        cleaned = [[None if ref == "" else ref for ref in stream] for stream in references]
        return original(self, cleaned)

    monkeypatch.setattr(BLEU, "_cache_references", development_branch)
    sacre_future = _sacrebleu(hyps, refs, "latin", "")
    bleu._kept_scorers.cache_clear()  # the references read again, by the patched sacreBLEU
    after = corpus_bleu(hyps, refs, "latin")

    assert sacre_future != pytest.approx(sacre_now, abs=0.01)  # sacreBLEU's own number moves
    assert sacre_future == _sacrebleu(hyps, refs, "latin", None)
    assert after.score == before.score == sacre_now  # ours does not


# (4) variable_refs is sacreBLEU with None padding; chrF is sacreBLEU's CHRF without padding


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_variable_refs_equals_sacrebleu_none_padding(group: str) -> None:
    hyps, refs = GROUPS[group]
    language = group.split("/")[0]
    result = corpus_bleu(hyps, refs, language)
    assert result.variable_refs == _sacrebleu(hyps, refs, language, None)
    pre = [preprocess(h, language) for h in hyps]
    expected_chrf = sacrebleu.CHRF().corpus_score(pre, _streams(refs, language, None)).score
    assert result.chrf == expected_chrf


def test_chrf_of_any_subset_equals_sacrebleu_on_that_subset(public_gold) -> None:
    # real references (1 to many per item), hypotheses from right to empty, every third item
    # left out: the per-item statistics summed over a subset give sacreBLEU's own chrF
    items = [r for r in public_gold.records if r.task == "translation"][:60]
    hyps = [
        ["", r.answers[0], r.answers[0][: len(r.answers[0]) // 2], "Quid?"][i % 4]
        for i, r in enumerate(items)
    ]
    refs = [r.answers for r in items]
    stats = CorpusStatistics(hyps, refs, "english")
    keep = np.array([i % 3 != 0 for i in range(len(items))])
    sub_h = [h for h, k in zip(hyps, keep, strict=True) if k]
    sub_r = [r for r, k in zip(refs, keep, strict=True) if k]
    expected = sacrebleu.CHRF().corpus_score(sub_h, _streams(sub_r, "english", None)).score
    assert stats.chrf(keep) == expected
    assert (
        stats.chrf() == sacrebleu.CHRF().corpus_score(hyps, _streams(refs, "english", None)).score
    )


# statistics for the bootstrap


def test_row_sums_of_a_subset_equal_the_subset_statistics() -> None:
    hyps, refs = GROUPS["english"]
    width = max(len(r) for r in refs)
    stats = bleu_stats(hyps, refs, "english", width)
    assert stats.shape == (len(hyps), 10)
    rows = np.array([0, 3, 3, 7, 20, 41])  # resampled with repetition
    sub = bleu_stats([hyps[i] for i in rows], [refs[i] for i in rows], "english", width)
    assert (stats[rows].sum(axis=0) == sub.sum(axis=0)).all()
    assert bleu_from_stats(stats) == corpus_bleu(hyps, refs, "english").score


def test_bleu_stats_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="pair up"):
        bleu_stats(["a"], [], "english", NO_PADDING)
    with pytest.raises(ValueError, match="more than the padding to 2"):
        bleu_stats(["a"], [["a", "b", "c"]], "english", 2)
    with pytest.raises(ValueError, match="non-empty list"):
        bleu_stats(["a"], [[]], "english", NO_PADDING)
    with pytest.raises(ValueError, match="target language"):
        bleu_stats(["a"], [["a"]], "greek", NO_PADDING)


# preprocessing and the result object


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("Jūlius Caesar vēnit", "latin", "Iulius Caesar uenit"),
        ("VENI VIDI VICI", "latin", "UENI UIDI UICI"),
        ("Cæsar cœlum", "latin", "Caesar coelum"),
        # j/v replacement happens before unidecode: a ǰ becomes j and stays j
        ("ǰ", "latin", "j"),
        # English targets are left as they are
        ("Jove's vine, Cæsar's rēgīna", "english", "Jove's vine, Cæsar's rēgīna"),
    ],
)
def test_preprocess(text: str, language: str, expected: str) -> None:
    assert preprocess(text, language) == expected


def test_latin_preprocessing_is_applied_to_both_sides() -> None:
    result = corpus_bleu(["Iulius uenit ad urbem"], [["Jūlius vēnit ad urbem"]], "latin")
    assert result.score == pytest.approx(100.0)
    english = corpus_bleu(["Iulius uenit ad urbem"], [["Jūlius vēnit ad urbem"]], "english")
    assert english.score < 100.0


def test_empty_group() -> None:
    result = corpus_bleu([], [], "latin")
    assert isinstance(result, BleuResult)
    assert (result.score, result.variable_refs, result.chrf, result.n) == (0.0, 0.0, 0.0, 0)


def test_signature() -> None:
    hyps, refs = GROUPS["latin"]
    result = corpus_bleu(hyps, refs, "latin")
    sig = result.signature.format()
    assert str(result.signature) == sig
    assert sig.startswith("nrefs:var|case:lc|eff:no|tok:13a|smooth:exp|")
    assert "pad:empty-to-max" in sig and sig.endswith("|version:2.6.0")
    assert "latin:j>i+v>u+unidecode" in sig
    assert "latin:" not in str(corpus_bleu(["a"], [["a"]], "english").signature)
    # chrF's signature is sacreBLEU's own, with our Latin field before the version
    chrf = str(result.chrf_signature)
    assert chrf.startswith("nrefs:var|case:mixed|eff:yes|nc:6|nw:0|space:no|")
    assert chrf.endswith("|latin:j>i+v>u+unidecode|version:2.6.0")
    one = str(corpus_bleu(["a"], [["a"]], "english").chrf_signature)
    assert one == "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0"


def test_chrf_keeps_no_state_between_groups() -> None:
    # two groups with different reference counts, scored in turn and in the other order
    hyps, refs = GROUPS["latin"]
    first = corpus_bleu(hyps, refs, "latin")
    corpus_bleu(["a"], [["a"]], "latin")
    again = corpus_bleu(hyps, refs, "latin")
    assert (again.chrf, str(again.chrf_signature)) == (first.chrf, str(first.chrf_signature))
