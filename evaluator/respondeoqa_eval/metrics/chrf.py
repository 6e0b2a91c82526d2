"""chrF of translation items (reported beside the paper's BLEU, never instead of it).

sacreBLEU's `CHRF()` with its default settings (character 6-grams, no word n-grams, beta 2, no
whitespace, case kept, effective-order averaging), computed the way `corpus_score` computes it
but from per-item statistics kept here: every item's statistics are counted once with
sacreBLEU's public n-gram helper, and any subset's chrF (overall, constrained, unconstrained, a
bootstrap resample) is the F-score of their sum. A test pins the number against
`sacrebleu.CHRF().corpus_score` on the same text.
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
    """Per-item statistics, shape (n_items, N_CHRF_STATS); sum rows, then `f_score`."""
    rows = [item_statistics(h, refs) for h, refs in zip(hypotheses, references, strict=True)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), N_CHRF_STATS)


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
