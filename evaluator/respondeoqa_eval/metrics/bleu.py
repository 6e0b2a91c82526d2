"""Corpus BLEU and chrF of translation items (PROTOCOL section 5, BLEU paragraph), by sacreBLEU.

sacreBLEU (pinned, pyproject.toml) is the one definition of both numbers: `BLEU(lowercase=True)`
(13a tokenisation, exp smoothing) and `CHRF()` (its defaults). Each item's sufficient statistics
come from sacreBLEU once (`_extract_corpus_statistics`: the per-sentence statistics its own
bootstrap resamples), and every score, of a group, a subset or a bootstrap resample, is sacreBLEU
turning a sum of them into a number (`_compute_score_from_stats`). The project's own parts are
the Latin preprocessing (`preprocess`) and the paper's reference padding (`padded_ref_len`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.metrics.bleu import MAX_NGRAM_ORDER
from unidecode import unidecode

from .signature import Signature

HYP_LEN, REF_LEN = 0, 1
"""Columns of a BLEU statistics row, sacreBLEU's: [hyp_len, ref_len, correct_1..4, total_1..4]."""
N_STATS = 2 + 2 * MAX_NGRAM_ORDER
N_CHRF_STATS = 3 * (CHRF.CHAR_ORDER + CHRF.WORD_ORDER)
"""Columns of a chrF statistics row, sacreBLEU's: [hyp, ref, match] counts of each order."""

PAD_EMPTY_TO_MAX = "empty-to-max"

PAD_TO_GROUP_MAX: Final = "group-max"
"""PROTOCOL 5: every item's references padded with empty ones to the largest count among the
items scored together (the paper's BLEU)."""
NO_PADDING: Final = "none"
"""Every item with its own references (the "variable references" BLEU)."""
Padding = int | Literal["group-max", "none"]
"""How an item's references are padded: one of the two above, or to a given count."""
LATIN_PREPROCESSING = "j>i+v>u+unidecode"


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


def padded_ref_len(hyp_len: np.ndarray, ref_len: np.ndarray) -> np.ndarray:
    """PROTOCOL 5: the closest reference length of items whose reference list the paper padded
    with empty strings, from each item's hypothesis length and sacreBLEU's closest length among
    its real references (`ref_len`).

    sacreBLEU 2.6.0, which the paper used, keeps an empty reference as a real, zero-length one:
    it adds no n-grams, but is a candidate for the closest length, a tie going to the shorter,
    so the closest becomes 0 when the hypothesis is no longer than its distance to `ref_len`.
    Done here rather than by passing '' to sacreBLEU, whose development branch drops '' like
    None, which would silently move the published number.
    """
    return np.where(hyp_len <= np.abs(hyp_len - ref_len), 0, ref_len)


@functools.cache
def _metrics() -> tuple[BLEU, CHRF]:
    """The settings (no references): what turns summed statistics into scores."""
    return _bleu_metric(), CHRF()


def _bleu_metric(references: Sequence[Sequence[str | None]] | None = None) -> BLEU:
    # force: no warning about hypotheses ending in " ." (sacreBLEU's guess that a text is
    # tokenised already); it changes no number
    # sacreBLEU drops a None reference (its README); its type hint names only str
    return BLEU(lowercase=True, force=True, references=references)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Scorers:
    """sacreBLEU's BLEU and CHRF with one group's references read (tokenised, n-grams counted)."""

    bleu: BLEU
    chrf: CHRF


@functools.lru_cache(maxsize=4)
def _kept_scorers(references: tuple[tuple[str, ...], ...], target_language: str) -> _Scorers:
    """`_Scorers` of a group of items' references, preprocessed: kept in the process (never on
    disk) when `keep_references` says, as the references are gold: read once per gold version
    (the Space scores many files)."""
    texts = [[preprocess(r, target_language) for r in refs] for refs in references]
    # sacreBLEU's reference streams; None: the item has fewer references (dropped by sacreBLEU)
    width = max(map(len, texts))
    streams = [[refs[k] if k < len(refs) else None for refs in texts] for k in range(width)]
    # sacreBLEU drops a None reference (its README); its type hint names only str
    return _Scorers(_bleu_metric(streams), CHRF(references=streams))  # type: ignore[arg-type]


_KEEP = [True]


def keep_references(keep: bool) -> bool:
    """Whether groups' references are kept read in the process (`_kept_scorers`, a few tens of
    MB per group), and the setting before: a one-shot process (`score`) reads each group's
    once and lets go of them as soon as its statistics are taken."""
    before, _KEEP[0] = _KEEP[0], keep
    return before


def _scorers(references: Sequence[Sequence[str]], target_language: str) -> _Scorers:
    key = tuple(map(tuple, references))
    return (_kept_scorers if _KEEP[0] else _kept_scorers.__wrapped__)(key, target_language)


def _check(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses but {len(references)} reference lists; they must pair up"
        )
    for i, refs in enumerate(references):
        if isinstance(refs, str) or not refs:
            raise ValueError(f"item {i}: references must be a non-empty list of strings")


def _statistics(metric: BLEU | CHRF, hypotheses: list[str], width: int) -> np.ndarray:
    """sacreBLEU's per-item statistics of `hypotheses` against the metric's references."""
    rows = metric._extract_corpus_statistics(hypotheses, None)
    return np.array(rows, dtype=np.int64).reshape(len(hypotheses), width)


class CorpusStatistics:
    """Per-item BLEU and chrF statistics of translation items, taken from sacreBLEU once, from
    which any subset's scores follow by summing rows."""

    def __init__(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str]], target_language: str
    ) -> None:
        _check(hypotheses, references)
        preprocess("", target_language)  # validates the language even for an empty group
        self.target_language = target_language
        self.hypotheses = [preprocess(h or "", target_language) for h in hypotheses]
        self.n_refs = np.array([len(refs) for refs in references], dtype=np.int64)
        self.rows = np.zeros((0, N_STATS), dtype=np.int64)
        self.chrf_rows = np.zeros((0, N_CHRF_STATS), dtype=np.int64)
        if references:
            scorers = _scorers(references, target_language)
            self.rows = _statistics(scorers.bleu, self.hypotheses, N_STATS)
            self.chrf_rows = _statistics(scorers.chrf, self.hypotheses, N_CHRF_STATS)

    def __len__(self) -> int:
        return len(self.hypotheses)

    def _mask(self, mask: np.ndarray | None) -> np.ndarray:
        return np.ones(len(self), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)

    def rows_for(
        self, mask: np.ndarray | None = None, padding: Padding = PAD_TO_GROUP_MAX
    ) -> np.ndarray:
        """BLEU statistics rows of the items in `mask`, their references padded as `padding`
        says (PAD_TO_GROUP_MAX: the paper's; NO_PADDING; or a count, at least every item's)."""
        mask = self._mask(mask)
        rows = self.rows[mask].copy()
        n_refs = self.n_refs[mask]
        most = int(n_refs.max()) if len(n_refs) else 0
        if padding == NO_PADDING:
            return rows
        pad_to = most if padding == PAD_TO_GROUP_MAX else int(padding)
        if most > pad_to:
            raise ValueError(f"an item has {most} references, more than the padding to {pad_to}")
        padded = n_refs < pad_to
        rows[padded, REF_LEN] = padded_ref_len(rows[padded, HYP_LEN], rows[padded, REF_LEN])
        return rows

    def chrf(self, mask: np.ndarray | None = None) -> float:
        """chrF (sacreBLEU's `CHRF()`) of the items in `mask`, references unpadded."""
        return chrf_from_stats(self.chrf_rows[self._mask(mask)].sum(axis=0))

    def result(self, mask: np.ndarray | None = None) -> BleuResult:
        """Paper BLEU, variable-reference BLEU and chrF of the items in `mask`."""
        mask = self._mask(mask)
        n_refs = self.n_refs[mask]
        counts = set(n_refs.tolist())
        nrefs: str | int = counts.pop() if len(counts) == 1 else "var"
        signature = bleu_signature(self.target_language, nrefs)
        chrf_sig = chrf_signature(self.target_language, nrefs)
        n = int(mask.sum())
        if n == 0:
            return BleuResult(0.0, 0.0, 0.0, 0, signature, 0, chrf_sig)
        paper, variable = (
            bleu_from_stats(self.rows_for(mask, p).sum(axis=0))
            for p in (PAD_TO_GROUP_MAX, NO_PADDING)
        )
        return BleuResult(
            paper, variable, self.chrf(mask), n, signature, int(n_refs.max()), chrf_sig
        )


def bleu_stats(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    target_language: str,
    padding: Padding,
) -> np.ndarray:
    """Per-item BLEU sufficient statistics, shape (n_items, N_STATS), sacreBLEU's row layout
    ([hyp_len, ref_len, correct_1..4, total_1..4]) on preprocessed text. `references[i]` is
    item i's list of references; `padding` as in `CorpusStatistics.rows_for` (the paper:
    PAD_TO_GROUP_MAX).
    """
    return CorpusStatistics(hypotheses, references, target_language).rows_for(padding=padding)


def _summed(stats: np.ndarray, width: int) -> list[int]:
    """`stats` (one row of summed statistics, or rows, summed here) as Python integers."""
    stats = np.asarray(stats)
    if stats.ndim == 2:
        stats = stats.sum(axis=0)
    if stats.shape != (width,):
        raise ValueError(f"expected {width} statistics, got shape {stats.shape}")
    return [int(v) for v in stats]


def bleu_from_stats(summed: np.ndarray) -> float:
    """sacreBLEU's corpus BLEU (0-100) of summed statistics (a 2-D array is summed first)."""
    return _metrics()[0]._compute_score_from_stats(_summed(summed, N_STATS)).score


def bleu_scores(rows: np.ndarray) -> list[float]:
    """`bleu_from_stats` of each row of summed statistics (e.g. 1000 bootstrap resamples)."""
    bleu = _metrics()[0]
    return [bleu._compute_score_from_stats(row).score for row in np.asarray(rows).tolist()]


def chrf_from_stats(summed: np.ndarray) -> float:
    """sacreBLEU's chrF (0-100) of summed chrF statistics."""
    return _metrics()[1]._compute_score_from_stats(_summed(summed, N_CHRF_STATS)).score


def _signature(metric: BLEU | CHRF, nrefs: str | int) -> Signature:
    """sacreBLEU's own signature of `metric`'s settings, with `nrefs` references."""
    args = {**vars(metric), "num_refs": -1 if nrefs == "var" else nrefs}
    return Signature.of_sacrebleu(metric._SIGNATURE_TYPE(args))


def bleu_signature(
    target_language: str, nrefs: str | int = "var", padded: bool = True
) -> Signature:
    """sacreBLEU's BLEU signature plus our Latin preprocessing and padding fields."""
    signature = _signature(_metrics()[0], nrefs)
    if target_language == "latin":
        signature = signature.with_field("latin", LATIN_PREPROCESSING)
    return signature.with_field("pad", PAD_EMPTY_TO_MAX if padded else "none")


def chrf_signature(target_language: str, nrefs: str | int = "var") -> Signature:
    """sacreBLEU's chrF signature plus our Latin preprocessing field."""
    signature = _signature(_metrics()[1], nrefs)
    if target_language == "latin":
        signature = signature.with_field("latin", LATIN_PREPROCESSING)
    return signature


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
    signature: Signature
    max_refs: int = 0
    chrf_signature: Signature | None = None


def corpus_bleu(
    hypotheses: Sequence[str], references: Sequence[Sequence[str]], target_language: str
) -> BleuResult:
    """BLEU (paper padding), variable-reference BLEU and chrF of one group of items."""
    return CorpusStatistics(hypotheses, references, target_language).result()
