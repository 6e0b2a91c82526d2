"""BLEU and chrF are sacreBLEU's, bit for bit (issue 38).

Three kinds of cases: sacreBLEU's own (the cases of its test suite and README that apply to the
settings the paper uses, with their inputs and their expected values: `test/test_bleu.py`,
`test/test_sentence_bleu.py`, `test/test_chrf.py` of sacreBLEU 2.6.0); the cases where an own
copy of sacreBLEU had drifted from it (chrF's F-score arithmetic and its choice among tied
references); and a differential check against sacreBLEU itself on generated corpora (reference
ties, many references, empty hypotheses and references, unusual Unicode), for the corpus
scores and the bootstrap intervals, every float compared with `==`.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import sacrebleu
from respondeoqa_eval import evaluate
from respondeoqa_eval.data.breakdowns import BLEU_SPLITS, BLEU_TARGETS
from respondeoqa_eval.metrics.bleu import N_CHRF_STATS, N_STATS, bleu_stats, corpus_bleu
from respondeoqa_eval.metrics.bleu import bleu_from_stats as ours_from_stats
from respondeoqa_eval.metrics.bleu import preprocess as paper_preprocess
from respondeoqa_eval.scoring.aggregate import Bootstrap
from sacrebleu.metrics import BLEU, CHRF


def _items(streams: list[list[str]]) -> list[list[str]]:
    """sacreBLEU's reference streams (one list per reference) as each item's references."""
    return [list(refs) for refs in zip(*streams, strict=True)]


# --- the semi-public sacreBLEU API the evaluator uses (pinned release, pyproject.toml) ---


def test_sacrebleu_is_the_pinned_release_with_the_api_the_evaluator_uses() -> None:
    assert sacrebleu.__version__ == "2.6.0"
    bleu = BLEU(lowercase=True, references=[["A b c d", "x"], [None, "y z"]])
    # per-sentence statistics: [hyp_len, ref_len, correct_1..4, total_1..4]
    rows = bleu._extract_corpus_statistics(["a b c", "y"], None)
    assert rows == [[3, 4, 3, 2, 1, 0, 3, 2, 1, 0], [1, 1, 1, 0, 0, 0, 1, 0, 0, 0]]
    assert len(rows[0]) == N_STATS
    summed = [a + b for a, b in zip(*rows, strict=True)]
    score = bleu._compute_score_from_stats(summed)
    assert score.score == bleu.corpus_score(["a b c", "y"], None).score
    assert score.score == BLEU.compute_bleu(summed[2:6], summed[6:], 4, 5, "exp").score
    chrf = CHRF(references=[["ab"]])
    (stats,) = chrf._extract_corpus_statistics(["ab"], None)
    assert len(stats) == N_CHRF_STATS
    assert stats[:6] == [2, 2, 2, 1, 1, 1]  # [hyp, ref, match] of 1- and 2-grams
    assert chrf._compute_score_from_stats(stats).score == chrf._compute_f_score(stats) == 100.0
    signature = bleu._SIGNATURE_TYPE({**vars(bleu), "num_refs": -1}).format()
    assert signature == "nrefs:var|case:lc|eff:no|tok:13a|smooth:exp|version:2.6.0"


# --- the cases, verbatim ---


def test_chrf_f_score_is_sacrebleus_to_the_last_bit() -> None:
    assert corpus_bleu(["ab"], [["a"]], "english").chrf == 83.33333333333334


def test_chrf_ties_between_references_are_sacrebleus() -> None:
    # sacreBLEU rates "be" 20.833333333333336 and "let" 20.833333333333332: it keeps "be"
    assert corpus_bleu(["hate"], [["let", "be"]], "english").chrf == 20.833333333333336
    result = corpus_bleu(
        ["hate", "the farmer praises the girl"],
        [["let", "be"], ["the farmer praises the girl"]],
        "english",
    )
    assert result.chrf == 98.10656251249713


# --- sacreBLEU's own cases (test/test_bleu.py, test_sentence_bleu.py, test_chrf.py, README) ---

EPSILON_BLEU = 1e-8  # test_bleu.py's tolerance (on BLEU / 100)
EPSILON_CHRF = 1e-4  # test_chrf.py's

README_REFS = [
    ["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."],
]
README_HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]


def test_readme_bleu_and_chrf() -> None:
    # README "Using SacreBLEU from Python": BLEU = 48.53, chrF2 = 59.73; test_bleu.py's
    # test_corpus_bleu: 48.530827 (default settings; lowercasing changes none of these words'
    # matches), and with max_ngram_order 4: "48.53"
    result = corpus_bleu(README_HYPS, _items(README_REFS), "english")
    assert abs(result.score - 48.530827) < EPSILON_BLEU * 100
    assert f"{result.score:.2f}" == "48.53"
    assert f"{result.chrf:.2f}" == "59.73"
    # with two references for every item, the paper's padding adds nothing
    assert result.variable_refs == result.score
    # test_corpus_bleu: "ensure that empty hypotheses are not removed"
    assert corpus_bleu(["", "", ""], _items(README_REFS), "english").score == 0.0


def test_readme_variable_number_of_references() -> None:
    # README "Variable Number of References": the first sentence's first reference replaced
    # with '' (or None): BLEU = 29.44. Here that item simply has one reference (the paper's
    # padding gives it an empty one, as sacreBLEU 2.6.0 reads '')
    refs = _items(README_REFS)
    refs[0] = refs[0][1:]
    result = corpus_bleu(README_HYPS, refs, "english")
    assert f"{result.score:.2f}" == "29.44"
    assert f"{result.variable_refs:.2f}" == "29.44"
    assert str(result.signature).startswith("nrefs:var|")


@pytest.mark.parametrize(
    ("hypotheses", "references", "expected"),
    [
        # test_raw_bleu_cases: "This now returns 0.0 score (#141)"
        (["this is a test", "another test"], [["ref1", "ref2"]], 0.0),
        (["this is a test"], [["this is a test"]], 1.0),
        # test_sentence_bleu.py, test_cases_zero_bleu (#141), exp smoothing, 13a
        (["this is a cat"], [["okay thanks"]], 0.0),
    ],
)
def test_bleu_cases(hypotheses: list[str], references: list[list[str]], expected: float) -> None:
    score = corpus_bleu(hypotheses, _items(references), "english").score / 100
    assert abs(score - expected) < EPSILON_BLEU


def test_bleu_statistics_case() -> None:
    # test_case_statistics: common [4, 2, 1, 0], total [6, 5, 4, 3]
    rows = bleu_stats(
        ["am I am a character sequence"], [["I am a symbol string sequence a a"]], "english", 1
    )
    assert rows[0, 2:6].tolist() == [4, 2, 1, 0]
    assert rows[0, 6:].tolist() == [6, 5, 4, 3]


def test_bleu_scoring_case() -> None:
    # test_case_scoring: common [9, 7, 5, 3], total [10, 8, 6, 4], sys_len 11, ref_len 11
    score = ours_from_stats(np.array([11, 11, 9, 7, 5, 3, 10, 8, 6, 4])) / 100
    assert abs(score - 0.8375922397) < EPSILON_BLEU


@pytest.mark.parametrize(
    ("common", "total", "sys_len", "ref_len"),
    [
        # test_case_degenerate_stats without matches: 0.0 whatever the smoothing
        ([0, 0, 0, 0], [4, 4, 2, 1], 0, 1),
        ([0, 0, 0, 0], [10, 11, 12, 0], 14, 10),
        ([0, 0, 0, 0], [0, 0, 0, 0], 0, 0),
        ([0, 0, 0, 0], [0, 0, 0, 0], 1, 5),
    ],
)
def test_bleu_degenerate_statistics(
    common: list[int], total: list[int], sys_len: int, ref_len: int
) -> None:
    assert ours_from_stats(np.array([sys_len, ref_len, *common, *total])) == 0.0


@pytest.mark.parametrize(
    ("hypotheses", "references", "expected"),
    [
        # test_chrf.py's test_cases_effective_order (sacreBLEU < 2.0.0 mode, which CHRF()'s
        # default is); each has equal precision and recall, so its beta (3) is CHRF()'s (2)
        (["a"], ["a"], 100.0),
        ([""], ["reference"], 0.0),
        (["a b c"], ["a b c"], 100.0),
        (["a b c"], ["abc"], 100.0),
        ([""], ["c"], 0.0),
        (["a", "b"], ["a", "c"], 50.0),
        (["aa"], ["ab"], 25.0),
    ],
)
def test_chrf_cases(hypotheses: list[str], references: list[str], expected: float) -> None:
    score = corpus_bleu(hypotheses, [[r] for r in references], "english").chrf
    assert abs(score - expected) < EPSILON_CHRF


# --- differential: generated corpora against sacreBLEU itself ---

WORDS = ["the", "farmer", "girl", "praises", "let", "be", "hate", "a", "b", "ab", "Rōma", "vēnit"]
WORDS += ["Jūlius", "VIVAT", "puella.", "(rosam)", "&amp;", "3-4", "1.5", "a,b", "don't", "—"]
UNICODE = [
    "é",
    "e\u0301",
    "ǰ",
    "ß",
    "İ",
    "Σ",
    "😀",
    "👩\u200d💻",
    "中文",
    "عربى",
    "\u200b",
    "\ufeff",
]
UNICODE += ["\u00a0", "\u2028", "\u3000", "\t", "\n", "\ud800", "ﬁ", "Ⅻ", "٣", "<skipped>"]


def _text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.08:
        return ""
    if kind < 0.12:
        return rng.choice([" ", "\t", "\u00a0 \u2028"])
    parts = [rng.choice(WORDS if rng.random() < 0.8 else UNICODE) for _ in range(rng.randint(1, 9))]
    return rng.choice([" ", "", "  "]).join(parts) if rng.random() < 0.3 else " ".join(parts)


def _corpus(seed: int) -> tuple[list[str], list[list[str]]]:
    rng = random.Random(seed)
    hyps, refs = [], []
    for _ in range(rng.randint(1, 25)):
        hyp = _text(rng)
        item = [_text(rng) for _ in range(rng.choice([1, 1, 2, 3, 5, 12]))]
        if rng.random() < 0.3 and item[0]:  # a tie: the same reference again, or its words
            words = item[0].split()
            rng.shuffle(words)
            item.insert(rng.randrange(len(item) + 1), rng.choice([item[0], " ".join(words)]))
        if rng.random() < 0.2:  # the hypothesis among the references
            item.insert(rng.randrange(len(item) + 1), hyp)
        hyps.append(hyp)
        refs.append(item)
    return hyps, refs


def _streams(refs: list[list[str]], pad: str | None) -> list[list[str | None]]:
    width = max(len(r) for r in refs)
    return [[r[k] if k < len(r) else pad for r in refs] for k in range(width)]


def _sacrebleu_numbers(
    hyps: list[str], refs: list[list[str]], language: str
) -> tuple[float, float, float]:
    """The paper's BLEU ('' padding, sacreBLEU 2.6.0), the variable-reference BLEU (None) and
    chrF, by sacreBLEU's corpus scores on the preprocessed text."""
    hyps = [paper_preprocess(h, language) for h in hyps]
    refs = [[paper_preprocess(r, language) for r in item] for item in refs]
    paper = BLEU(lowercase=True).corpus_score(hyps, _streams(refs, "")).score
    variable = BLEU(lowercase=True).corpus_score(hyps, _streams(refs, None)).score
    chrf = CHRF().corpus_score(hyps, _streams(refs, None)).score
    return paper, variable, chrf


def _sentence_chrf_ties(hyps: list[str], refs: list[list[str]]) -> tuple[int, int]:
    """Items with two references of the same sentence chrF (above 0), and items with two whose
    sentence chrF differ only in the last bits (as 20.833333333333336 and ...332)."""
    chrf = CHRF()
    equal = last_bits = 0
    for hyp, item in zip(hyps, refs, strict=True):
        scores = sorted(chrf.sentence_score(hyp, [r]).score for r in item)
        pairs = [(a, b) for a, b in zip(scores, scores[1:], strict=False) if b > 0]
        equal += any(a == b for a, b in pairs)
        last_bits += any(a != b and b - a < 1e-9 for a, b in pairs)
    return equal, last_bits


@pytest.mark.filterwarnings("ignore:Surrogate character:RuntimeWarning")  # unidecode's, Latin
@pytest.mark.parametrize("language", ["english", "latin"])
def test_corpus_scores_equal_sacrebleus_on_generated_corpora(language: str) -> None:
    ties = np.zeros(2, dtype=int)
    for seed in range(150):
        hyps, refs = _corpus(seed)
        result = corpus_bleu(hyps, refs, language)
        assert (result.score, result.variable_refs, result.chrf) == _sacrebleu_numbers(
            hyps, refs, language
        ), seed
        ties += _sentence_chrf_ties(hyps, refs)
    assert ties[0] > 20 and ties[1] > 0  # the corpora do hold both kinds of reference ties


@pytest.mark.filterwarnings("ignore:Surrogate character:RuntimeWarning")
def test_bootstrap_intervals_equal_sacrebleus_scores_of_each_resample(public_gold) -> None:
    # the public translation items (1 to many references), answers from right to empty and
    # odd: the report's intervals are the percentiles of sacreBLEU's own corpus BLEU of each
    # resampled corpus (each item repeated as often as the resample draws it)
    rng = random.Random(3)
    records = [r for r in public_gold.records if r.task == "translation"]
    answers = {}
    for r in records:
        words = rng.choice(r.answers).split()
        rng.shuffle(words)
        answers[r.id] = rng.choice(
            ["", r.answers[-1], " ".join(words[: len(words) // 2]), _text(rng)]
        )
    rows = [{"id": i, "answer": a} for i, a in answers.items()]
    boot = Bootstrap(resamples=30, seed=5)
    report = evaluate(rows, public_gold, bootstrap=boot.resamples, seed=boot.seed).to_dict()
    tail = (1 - boot.level) / 2 * 100
    bleu = BLEU(lowercase=True)
    for li, language in enumerate(BLEU_TARGETS):
        group = [r for r in records if r.answer_language == language]
        for si, (split, keep) in enumerate(BLEU_SPLITS.items()):
            items = [r for r in group if keep(r)]
            got = report["bleu"][language][split]
            hyps = [answers[r.id] for r in items]
            refs = [r.answers for r in items]
            expected = _sacrebleu_numbers(hyps, refs, language)
            assert (got["score"], got["variable_refs"], got["chrf"]) == expected
            width = max(len(r) for r in refs)
            counts = boot.counts(len(items), salt=1 + 3 * li + si)  # aggregate.bleu's resamples
            scores = []
            for drawn in counts.tolist():
                picked = [i for i, c in enumerate(drawn) for _ in range(c)]
                sample_h = [paper_preprocess(hyps[i], language) for i in picked]
                sample_r = [[paper_preprocess(x, language) for x in refs[i]] for i in picked]
                streams = [[r[k] if k < len(r) else "" for r in sample_r] for k in range(width)]
                scores.append(bleu.corpus_score(sample_h, streams).score)
            assert got["ci"] == np.percentile(scores, [tail, 100 - tail]).tolist(), split
