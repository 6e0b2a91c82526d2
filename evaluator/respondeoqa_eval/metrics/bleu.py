"""Corpus BLEU for translation items, the paper's way (PROTOCOL section 5, BLEU paragraph).

sacreBLEU `BLEU(lowercase=True)`, 13a tokenisation, exp smoothing. Items have 1 to 48 references;
the paper padded every item's reference list with `''` up to the largest count in the group, and
on sacreBLEU 2.6.0 an `''` is a real zero-length reference that can be the closest length and so
lower the corpus reference length (and the brevity penalty). sacreBLEU's development branch drops
`''` like `None`, which would silently change the published number, so the per-item statistics are
computed here with sacreBLEU's own tokenizer and n-gram helper but with our own closest-length
choice over the real and padded lengths. Rows of `bleu_stats` can be resampled and summed
for a bootstrap, then turned into a score by `bleu_from_stats`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import sacrebleu
from sacrebleu.metrics.bleu import BLEU
from sacrebleu.metrics.chrf import CHRF
from sacrebleu.metrics.helpers import extract_all_word_ngrams
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from unidecode import unidecode

MAX_ORDER = 4
N_STATS = 2 * MAX_ORDER + 2
"""Columns of `bleu_stats`: matches_1..4, totals_1..4, hyp_len, ref_len."""

PAD_MARKER = "pad:empty-to-max"
_TOKENIZER = Tokenizer13a()
_LANGUAGES = ("english", "latin")


def preprocess(text: str, target_language: str) -> str:
    """Latin targets: j -> i, J -> I, v -> u, V -> U, then `unidecode`; English: unchanged.

    The order is the paper's (PROTOCOL 5): the letter replacement comes first, so a character
    that unidecode turns into j or v (e.g. "ǰ") keeps it.
    """
    if target_language == "latin":
        text = text.replace("j", "i").replace("J", "I").replace("v", "u").replace("V", "U")
        return unidecode(text)
    if target_language == "english":
        return text
    raise ValueError(f"unknown target language {target_language!r}; expected english or latin")


def _tokenize(text: str) -> str:
    """sacreBLEU's BLEU(lowercase=True) segment preprocessing: lowercase, rstrip, 13a."""
    return _TOKENIZER(text.lower().rstrip())


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to `hyp_len`; ties go to the shorter one (as sacreBLEU)."""
    if not ref_lens:
        raise ValueError("no reference lengths")
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


def _item_stats(hyp: str, refs: Sequence[str], pad_to: int | None) -> list[int]:
    ref_ngrams: Counter = Counter()
    ref_lens = []
    for ref in refs:
        ngrams, length = extract_all_word_ngrams(ref, 1, MAX_ORDER)
        ref_lens.append(length)
        for ngram, count in ngrams.items():
            if count > ref_ngrams[ngram]:
                ref_ngrams[ngram] = count
    if pad_to is not None:
        # PROTOCOL 5: each padding reference is an empty, zero-length reference; it adds no
        # n-grams but is a candidate for the closest reference length.
        ref_lens.extend([0] * (pad_to - len(refs)))
    hyp_ngrams, hyp_len = extract_all_word_ngrams(hyp, 1, MAX_ORDER)
    matches = [0] * MAX_ORDER
    totals = [0] * MAX_ORDER
    for ngram, count in hyp_ngrams.items():
        n = len(ngram) - 1
        totals[n] += count
        if ngram in ref_ngrams:
            matches[n] += min(count, ref_ngrams[ngram])
    return [*matches, *totals, hyp_len, closest_ref_len(hyp_len, ref_lens)]


def _check(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses but {len(references)} reference lists; they must pair up"
        )
    for i, refs in enumerate(references):
        if isinstance(refs, str) or not refs:
            raise ValueError(f"item {i}: references must be a non-empty list of strings")


def bleu_stats(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    target_language: str,
    pad_to: int | None,
) -> np.ndarray:
    """Per-item BLEU sufficient statistics, shape (n_items, 10).

    Row: [matches_1..4, totals_1..4, hyp_len, ref_len] with sacreBLEU BLEU(lowercase=True) 13a
    counting on preprocessed text. `references[i]` is item i's list of references. `pad_to`: pad
    every item's references with empty references up to this count (the paper's protocol, pass
    the group's largest count); None: no padding (the "variable references" number).
    """
    _check(hypotheses, references)
    rows = []
    for i, (hyp, refs) in enumerate(zip(hypotheses, references, strict=True)):
        if pad_to is not None and len(refs) > pad_to:
            raise ValueError(f"item {i} has {len(refs)} references, more than pad_to={pad_to}")
        hyp_tok = _tokenize(preprocess(hyp or "", target_language))
        refs_tok = [_tokenize(preprocess(ref, target_language)) for ref in refs]
        rows.append(_item_stats(hyp_tok, refs_tok, pad_to))
    return np.array(rows, dtype=np.int64).reshape(len(rows), N_STATS)


def bleu_from_stats(summed: np.ndarray) -> float:
    """Corpus BLEU (0-100, exp smoothing) from summed statistics (a 2-D array is summed first)."""
    stats = np.asarray(summed)
    if stats.ndim == 2:
        stats = stats.sum(axis=0)
    if stats.shape != (N_STATS,):
        raise ValueError(f"expected {N_STATS} statistics, got shape {stats.shape}")
    values = [int(v) for v in stats]
    return BLEU.compute_bleu(
        correct=values[:MAX_ORDER],
        total=values[MAX_ORDER : 2 * MAX_ORDER],
        sys_len=values[2 * MAX_ORDER],
        ref_len=values[2 * MAX_ORDER + 1],
        smooth_method="exp",
    ).score


def bleu_signature(target_language: str, nrefs: str | int = "var", padded: bool = True) -> str:
    """sacreBLEU-style BLEU signature plus our Latin preprocessing and padding markers."""
    parts = [f"nrefs:{nrefs}", "case:lc", "eff:no", "tok:13a", "smooth:exp"]
    if target_language == "latin":
        parts.append("latin:j>i+v>u+unidecode")
    parts.append(PAD_MARKER if padded else "pad:none")
    parts.append(f"version:{sacrebleu.__version__}")
    return "|".join(parts)


@dataclass(frozen=True)
class BleuResult:
    """Corpus BLEU of one group of translation items (one target language, one subset)."""

    score: float
    """Paper-compatible BLEU: references padded with empty ones to `max_refs`."""
    variable_refs: float
    """BLEU without padding (each item keeps its own references)."""
    chrf: float
    """sacreBLEU CHRF (default settings) on preprocessed text, references without padding."""
    n: int
    signature: str
    max_refs: int = 0
    chrf_signature: str = ""


def corpus_bleu(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], target_language: str
) -> BleuResult:
    """BLEU (paper padding), variable-reference BLEU and chrF of one group of items."""
    _check(hypotheses, references)
    preprocess("", target_language)  # validates the language even for an empty group
    n = len(hypotheses)
    counts = {len(refs) for refs in references}
    nrefs: str | int = counts.pop() if len(counts) == 1 else "var"
    signature = bleu_signature(target_language, nrefs)
    if n == 0:
        return BleuResult(0.0, 0.0, 0.0, 0, signature, 0, "")
    max_refs = max(len(refs) for refs in references)
    score = bleu_from_stats(bleu_stats(hypotheses, references, target_language, max_refs))
    variable = bleu_from_stats(bleu_stats(hypotheses, references, target_language, None))
    chrf_metric = CHRF()
    hyps = [preprocess(h or "", target_language) for h in hypotheses]
    streams = [
        [preprocess(refs[j], target_language) if j < len(refs) else None for refs in references]
        for j in range(max_refs)
    ]
    chrf = chrf_metric.corpus_score(hyps, streams).score
    chrf_sig = f"{chrf_metric.get_signature().format()}"
    if target_language == "latin":
        chrf_sig = chrf_sig.replace("|version:", "|latin:j>i+v>u+unidecode|version:")
    return BleuResult(score, variable, chrf, n, signature, max_refs, chrf_sig)
