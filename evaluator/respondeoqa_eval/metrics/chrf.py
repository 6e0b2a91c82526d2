"""chrF of translation items (reported beside the paper's BLEU, never instead of it).

sacreBLEU's `CHRF()` with its default settings (character 6-grams, no word n-grams, beta 2, no
whitespace, case kept, effective-order averaging), computed the way `corpus_score` computes it
but from per-item statistics kept here: every item's statistics are counted once with
sacreBLEU's public n-gram helper, and any subset's chrF (overall, constrained, unconstrained, a
bootstrap resample) is the F-score of their sum. A test pins the number against
`sacrebleu.CHRF().corpus_score` on the same text.

`item_statistics` is the definition, one item at a time; `chrf_rows` computes the same counts
for a whole corpus at once with numpy (every character n-gram of every text as one integer
key, counted by one sort), which is what makes chrF cheap for thousands of references.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import sacrebleu
from sacrebleu.metrics.helpers import extract_all_char_ngrams

from .signature import Signature

CHAR_ORDER = 6
BETA = 2
N_CHRF_STATS = 3 * CHAR_ORDER
"""Columns of an item's statistics: [hyp, ref, match] counts for each character n-gram order."""


def _match_statistics(hyp: list[Counter], hyp_totals: list[int], ref: list[Counter]) -> list[int]:
    stats: list[int] = []
    for h, h_total, r in zip(hyp, hyp_totals, ref, strict=True):
        matches = sum(min(h[ng], r[ng]) for ng in h.keys() & r.keys())
        # as sacreBLEU: hypothesis n-grams count only when the reference has n-grams of that order
        stats += [h_total if r else 0, sum(r.values()), matches]
    return stats


def f_score(stats: Sequence[int]) -> float:
    """chrF (0-100) of summed statistics: precision and recall averaged over the orders both
    sides have (sacreBLEU's effective order), combined with beta = 2."""
    factor = BETA**2
    precisions, recalls = [], []
    for i in range(CHAR_ORDER):
        n_hyp, n_ref, n_match = stats[3 * i : 3 * i + 3]
        if n_hyp > 0 and n_ref > 0:
            precisions.append(n_match / n_hyp)
            recalls.append(n_match / n_ref)
    if not precisions:
        return 0.0
    prec, rec = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    if prec + rec == 0:
        return 0.0
    return 100 * (1 + factor) * prec * rec / (factor * prec + rec)


def item_statistics(hypothesis: str, references: Sequence[str]) -> list[int]:
    """One item's statistics against its best reference (the highest sentence-level F-score;
    the first of equals), as sacreBLEU chooses it."""
    hyp = extract_all_char_ngrams(hypothesis, CHAR_ORDER, False)
    hyp_totals = [sum(h.values()) for h in hyp]
    best: list[int] = []
    best_score = -1.0
    for ref in references:
        stats = _match_statistics(hyp, hyp_totals, extract_all_char_ngrams(ref, CHAR_ORDER, False))
        score = f_score(stats)
        if score > best_score:
            best, best_score = stats, score
    return best


def chrf_rows(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    """Per-item statistics, shape (n_items, N_CHRF_STATS); sum rows, then `f_score`.

    The same numbers as `item_statistics` for each item (a test pins them); every item needs at
    least one reference.
    """
    if len(hypotheses) != len(references):
        raise ValueError(f"{len(hypotheses)} hypotheses but {len(references)} reference lists")
    texts = [_no_space(h) for h in hypotheses] + [_no_space(r) for refs in references for r in refs]
    n_refs = np.array([len(refs) for refs in references], dtype=np.int64)
    if not n_refs.all():
        raise ValueError("every item needs at least one reference")
    item_of_ref = np.repeat(np.arange(len(n_refs)), n_refs)
    ref_stats = _reference_statistics(texts, item_of_ref)
    if ref_stats is None:  # an alphabet too large for the integer keys: one item at a time
        rows = [item_statistics(h, refs) for h, refs in zip(hypotheses, references, strict=True)]
        return np.array(rows, dtype=np.int64).reshape(len(rows), N_CHRF_STATS)
    return ref_stats[_best_references(ref_stats, n_refs, item_of_ref)]


def _best_references(
    ref_stats: np.ndarray, n_refs: np.ndarray, item_of_ref: np.ndarray
) -> np.ndarray:
    """Each item's best reference (row of `ref_stats`): the first with the highest `f_score`,
    as sacreBLEU chooses. The scores are computed for all rows at once, in `f_score`'s order of
    operations; an item whose best two are within rounding of each other is decided by
    `f_score` itself."""
    scores = f_scores(ref_stats)
    first = np.cumsum(n_refs) - n_refs
    order = np.lexsort((-scores, item_of_ref))  # by item, best first; stable: first of equals
    best = order[first]
    runner = np.where(n_refs > 1, order[np.minimum(first + 1, len(order) - 1)], best)
    close = (n_refs > 1) & (scores[best] - scores[runner] <= 1e-9 * np.maximum(1, scores[best]))
    listed = ref_stats.tolist()
    for i in np.flatnonzero(close).tolist():
        best_score = -1.0
        for j in range(first[i], first[i] + n_refs[i]):
            score = f_score(listed[j])
            if score > best_score:
                best[i], best_score = j, score
    return best


def f_scores(rows: np.ndarray) -> np.ndarray:
    """`f_score` of each row of statistics (shape (n, N_CHRF_STATS)), the same operations in
    the same order, so equal to it up to the last bit."""
    stats = np.asarray(rows, dtype=np.int64).reshape(len(rows), CHAR_ORDER, 3)
    n_hyp, n_ref, n_match = stats[:, :, 0], stats[:, :, 1], stats[:, :, 2]
    both = (n_hyp > 0) & (n_ref > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(both, n_match / n_hyp, 0.0)
        recall = np.where(both, n_match / n_ref, 0.0)
    prec_sum, rec_sum = np.zeros(len(stats)), np.zeros(len(stats))
    for i in range(CHAR_ORDER):  # left to right, as `sum`; a left-out order adds 0.0
        prec_sum = prec_sum + precision[:, i]
        rec_sum = rec_sum + recall[:, i]
    used = both.sum(axis=1)
    factor = BETA**2
    with np.errstate(divide="ignore", invalid="ignore"):
        prec, rec = prec_sum / used, rec_sum / used
        score = 100 * (1 + factor) * prec * rec / (factor * prec + rec)
    return np.where((used == 0) | (prec + rec == 0), 0.0, score)


def _no_space(text: str) -> str:
    """The text as sacreBLEU's chrF sees it (whitespace removed, `include_whitespace=False`)."""
    return "".join(text.split())


def _ngram_counts(texts: list[str]) -> tuple[np.ndarray, np.ndarray, int, int] | None:
    """Every (text, character n-gram) of `texts` as one sorted integer key, with its count:
    (keys, counts, bits per character, bit where the text number starts).

    Each character gets a code 1..A of `bits` bits; an n-gram is its codes as one integer of
    n * bits bits (codes are never 0, so n-grams of different orders never share a value),
    and the text's number sits above them. None when that would not fit in 63 bits.
    """
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    raw = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    alphabet = np.unique(raw)
    bits = len(alphabet).bit_length()
    shift = CHAR_ORDER * bits
    if shift + max(1, (len(texts) - 1).bit_length()) > 63:
        return None
    codes = np.searchsorted(alphabet, raw).astype(np.int64) + 1
    text_of = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    # characters left in its text from each position on (the position's own included)
    first = np.repeat(lengths.cumsum() - lengths, lengths)
    left = np.repeat(lengths, lengths) - (np.arange(len(codes)) - first)
    keys, grams = [], codes
    for n in range(1, CHAR_ORDER + 1):
        if n > 1:  # the n-gram starting at each position
            grams = (grams[:-1] << bits) | codes[n - 1 :]
        inside = left[: len(grams)] >= n
        keys.append((text_of[: len(grams)][inside] << shift) | grams[inside])
    ordered = np.sort(np.concatenate(keys))
    new = np.ones(len(ordered), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(new)
    return ordered[starts], np.diff(np.append(starts, len(ordered))), bits, shift


def _reference_statistics(texts: list[str], item_of_ref: np.ndarray) -> np.ndarray | None:
    """`item_statistics`' counts of every reference against its item's hypothesis, shape
    (n_refs, N_CHRF_STATS); `texts` are the items' hypotheses, then every reference (with
    whitespace removed). A reference n-gram matches min(its count, its count in the
    hypothesis) times. None when the n-gram keys do not fit (`_ngram_counts`).
    """
    counted = _ngram_counts(texts)
    if counted is None:
        return None
    keys, counts, bits, shift = counted
    n_items, n_refs = len(texts) - len(item_of_ref), len(item_of_ref)
    text, gram = keys >> shift, keys & ((1 << shift) - 1)
    n_hyp_keys = int(np.searchsorted(keys, n_items << shift))  # the hypotheses' keys come first
    ref, ref_gram, ref_count = text[n_hyp_keys:] - n_items, gram[n_hyp_keys:], counts[n_hyp_keys:]
    in_hyp = (item_of_ref[ref] << shift) | ref_gram  # the same n-gram in the item's hypothesis
    hyp_keys = keys[:n_hyp_keys]
    at = np.minimum(np.searchsorted(hyp_keys, in_hyp), max(0, n_hyp_keys - 1))
    hyp_count = np.where(hyp_keys[at] == in_hyp, counts[at], 0) if n_hyp_keys else 0
    order = sum((ref_gram >> (n * bits) > 0).astype(np.int64) for n in range(1, CHAR_ORDER))
    matches = np.bincount(
        ref * CHAR_ORDER + order,
        weights=np.minimum(ref_count, hyp_count),
        minlength=n_refs * CHAR_ORDER,
    )
    lengths = np.array([len(t) for t in texts], dtype=np.int64)[:, None]
    totals = np.maximum(lengths - np.arange(CHAR_ORDER), 0)  # n-grams of each order
    ref_totals, hyp_totals = totals[n_items:], totals[:n_items][item_of_ref]
    stats = np.empty((n_refs, CHAR_ORDER, 3), dtype=np.int64)
    # as sacreBLEU: hypothesis n-grams count only when the reference has n-grams of that order
    stats[:, :, 0] = np.where(ref_totals > 0, hyp_totals, 0)
    stats[:, :, 1] = ref_totals
    stats[:, :, 2] = matches.astype(np.int64).reshape(n_refs, CHAR_ORDER)
    return stats.reshape(n_refs, N_CHRF_STATS)


def chrf_signature(nrefs: str | int, target_language: str, latin_field: str) -> Signature:
    """sacreBLEU's chrF signature for these settings, plus our Latin preprocessing field."""
    fields: list[tuple[str, str | None]] = [
        ("nrefs", str(nrefs)),
        ("case", "mixed"),
        ("eff", "yes"),
        ("nc", str(CHAR_ORDER)),
        ("nw", "0"),
        ("space", "no"),
    ]
    if target_language == "latin":
        fields.append(("latin", latin_field))
    fields.append(("version", sacrebleu.__version__))
    return Signature(tuple(fields))
