"""chrF of translation items (reported beside the paper's BLEU, never instead of it).

sacreBLEU's `CHRF()` with its default settings (character 6-grams, no word n-grams, beta 2, no
whitespace, case kept, effective-order averaging), computed the way `corpus_score` computes it
but from per-item statistics kept here: every item's statistics are counted once with
sacreBLEU's public n-gram helper, and any subset's chrF (overall, constrained, unconstrained, a
bootstrap resample) is the F-score of their sum. A test pins the number against
`sacrebleu.CHRF().corpus_score` on the same text.

`item_statistics` is the definition, one item at a time; `chrf_rows` computes the same counts
for a whole corpus at once with numpy (every character n-gram as one integer key, counted by
sorting), which is what makes chrF cheap for thousands of references. The references' side is
kept (`_reference_ngrams`, between processes): they are gold, the same for every submission.
"""

from __future__ import annotations

import hashlib
import marshal
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import cache
from . import sacre
from .signature import Signature

CHAR_ORDER = 6
BETA = 2
N_CHRF_STATS = 3 * CHAR_ORDER
"""Columns of an item's statistics: [hyp, ref, match] counts for each character n-gram order."""
CHUNK_ITEMS = 128
"""Items counted at a time: an item's statistics do not depend on the others', and the sorting
of every reference n-gram at once took more memory than anything else `score` does (issue 31)."""


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
    from sacrebleu.metrics.helpers import extract_all_char_ngrams  # the definition

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
    if not all(references):
        raise ValueError("every item needs at least one reference")
    chunks = [
        _chunk_rows(
            hypotheses[start : start + CHUNK_ITEMS], references[start : start + CHUNK_ITEMS]
        )
        for start in range(0, len(hypotheses), CHUNK_ITEMS)
    ]
    return np.concatenate(chunks) if chunks else np.zeros((0, N_CHRF_STATS), dtype=np.int64)


def _chunk_rows(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> np.ndarray:
    refs = _reference_ngrams(tuple(tuple(r) for r in references))
    if refs is None:  # an alphabet too large for the integer keys: one item at a time
        rows = [item_statistics(h, r) for h, r in zip(hypotheses, references, strict=True)]
        return np.array(rows, dtype=np.int64).reshape(len(rows), N_CHRF_STATS)
    ref_stats = _reference_statistics([_no_space(h) for h in hypotheses], refs)
    return ref_stats[_best_references(ref_stats, refs.n_refs, refs.item_of_ref)]


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


def _codes(texts: list[str], alphabet: np.ndarray) -> np.ndarray:
    """Each character of `texts` (joined) as its place in `alphabet` plus 1; a character
    outside it as len(alphabet) + 1 (it matches nothing in the references)."""
    raw = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    at = np.searchsorted(alphabet, raw)
    known = (
        np.zeros(len(raw), dtype=bool)
        if len(alphabet) == 0
        else alphabet[np.minimum(at, len(alphabet) - 1)] == raw
    )
    return np.where(known, at + 1, len(alphabet) + 1).astype(np.int64)


def _ngram_keys(texts: list[str], codes: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(text, n-gram) of every character n-gram of `texts`: the text's number, and the n-gram's
    codes as one integer of n * bits bits (codes are never 0, so orders never share a value)."""
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    text_of = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    # characters left in its text from each position on (the position's own included)
    left = np.repeat(lengths, lengths) - (
        np.arange(len(codes)) - np.repeat(lengths.cumsum() - lengths, lengths)
    )
    texts_, grams_, grams = [], [], codes
    for n in range(1, CHAR_ORDER + 1):
        if n > 1:  # the n-gram starting at each position
            grams = (grams[:-1] << bits) | codes[n - 1 :]
        inside = left[: len(grams)] >= n
        texts_.append(text_of[: len(grams)][inside])
        grams_.append(grams[inside])
    return np.concatenate(texts_), np.concatenate(grams_)


def _counted(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of `keys`, sorted, and how often each occurs."""
    ordered = np.sort(keys)
    new = np.ones(len(ordered), dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    starts = np.flatnonzero(new)
    return ordered[starts], np.diff(np.append(starts, len(ordered)))


@dataclass(frozen=True)
class _ReferenceNgrams:
    """Every reference's character n-grams, counted, for matching against hypotheses."""

    alphabet: np.ndarray  # the references' characters (code points), sorted
    bits: int  # bits of one character code (a character outside the alphabet included)
    keys: np.ndarray  # (item << CHAR_ORDER * bits) | n-gram, sorted; one per (reference, n-gram)
    ref: np.ndarray  # the reference of each key (a row of the statistics)
    count: np.ndarray  # the n-gram's count in that reference
    order: np.ndarray  # the n-gram's order minus 1
    totals: np.ndarray  # n-grams of each order in each reference, shape (n_refs, CHAR_ORDER)
    n_refs: np.ndarray  # references of each item
    item_of_ref: np.ndarray


_KIND = "chrf-references"
_KEPT = 256
"""Chunks kept (`CHUNK_ITEMS` items each: a full-size gold has 10)."""
_SOURCE = Path(__file__).read_bytes()
_ARRAYS = ("alphabet", "keys", "ref", "count", "order", "totals", "n_refs", "item_of_ref")


def _reference_ngrams(references: tuple[tuple[str, ...], ...]) -> _ReferenceNgrams | None:
    """`_ReferenceNgrams` of every item's references; None when the keys would not fit in 63
    bits. Kept between processes (`cache.kept`), as references are gold, the same for every
    submission scored; read again for each use, as the arrays are a few MB per chunk."""
    key = hashlib.sha256(_SOURCE)
    key.update(marshal.dumps(references))
    return cache.kept(
        _KIND, key.hexdigest(), lambda: _plain(_count_references(references)), _restored, _KEPT
    )


def _plain(refs: _ReferenceNgrams | None) -> dict:
    """`refs` as plain data for `cache.kept` (no arrays: {} for None)."""
    if refs is None:
        return {}
    arrays = {n: (a.dtype.str, a.shape, a.tobytes()) for n, a in vars(refs).items() if n != "bits"}
    return {"bits": refs.bits, **arrays}


def _restored(value: dict) -> _ReferenceNgrams | None:
    if not value:
        return None
    arrays = {}
    for name in _ARRAYS:
        dtype, shape, data = value[name]
        arrays[name] = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape)  # read-only
    return _ReferenceNgrams(bits=int(value["bits"]), **arrays)


def _count_references(references: tuple[tuple[str, ...], ...]) -> _ReferenceNgrams | None:
    """`_reference_ngrams`, counted."""
    texts = [_no_space(r) for refs in references for r in refs]
    n_refs = np.array([len(refs) for refs in references], dtype=np.int64)
    item_of_ref = np.repeat(np.arange(len(references), dtype=np.int64), n_refs)
    raw = np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    alphabet = np.unique(raw)
    bits = (len(alphabet) + 1).bit_length()
    shift = CHAR_ORDER * bits
    widest = max(len(texts), len(references), 1) - 1
    if shift + max(1, widest.bit_length()) > 63:
        return None
    ref, gram = _ngram_keys(texts, _codes(texts, alphabet), bits)
    unique, count = _counted((ref << shift) | gram)
    ref, gram = unique >> shift, unique & ((1 << shift) - 1)
    keys = (item_of_ref[ref] << shift) | gram
    by_item = np.argsort(keys, kind="stable")
    order = sum((gram >> (n * bits) > 0).astype(np.int8) for n in range(1, CHAR_ORDER))
    lengths = np.array([len(t) for t in texts], dtype=np.int64)[:, None]
    arrays = {
        "alphabet": alphabet,
        "keys": keys[by_item],
        "ref": ref[by_item].astype(np.int32),
        "count": count[by_item].astype(np.int32),
        "order": np.asarray(order, dtype=np.int8)[by_item],
        "totals": np.maximum(lengths - np.arange(CHAR_ORDER), 0),
        "n_refs": n_refs,
        "item_of_ref": item_of_ref,
    }
    return _ReferenceNgrams(bits=bits, **arrays)


def _reference_statistics(hypotheses: list[str], refs: _ReferenceNgrams) -> np.ndarray:
    """`item_statistics`' counts of every reference against its item's hypothesis (whitespace
    removed), shape (n_refs, N_CHRF_STATS). A reference n-gram matches min(its count, the
    hypothesis' count) times: each distinct hypothesis n-gram is looked up among the sorted
    reference n-grams of its item."""
    shift = CHAR_ORDER * refs.bits
    item, gram = _ngram_keys(hypotheses, _codes(hypotheses, refs.alphabet), refs.bits)
    hyp_keys, hyp_count = _counted((item << shift) | gram)
    first = np.searchsorted(refs.keys, hyp_keys, side="left")
    found = np.searchsorted(refs.keys, hyp_keys, side="right") - first
    # every (hypothesis n-gram, reference with it) pair
    at = np.repeat(first - np.cumsum(found) + found, found) + np.arange(int(found.sum()))
    n_refs = len(refs.item_of_ref)
    matches = np.bincount(
        refs.ref[at].astype(np.int64) * CHAR_ORDER + refs.order[at],
        weights=np.minimum(refs.count[at], np.repeat(hyp_count, found)),
        minlength=n_refs * CHAR_ORDER,
    )
    hyp_lengths = np.array([len(t) for t in hypotheses], dtype=np.int64)[:, None]
    hyp_totals = np.maximum(hyp_lengths - np.arange(CHAR_ORDER), 0)[refs.item_of_ref]
    stats = np.empty((n_refs, CHAR_ORDER, 3), dtype=np.int64)
    # as sacreBLEU: hypothesis n-grams count only when the reference has n-grams of that order
    stats[:, :, 0] = np.where(refs.totals > 0, hyp_totals, 0)
    stats[:, :, 1] = refs.totals
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
    fields.append(("version", sacre.version()))
    return Signature(tuple(fields))
