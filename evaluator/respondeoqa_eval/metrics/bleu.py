"""Corpus BLEU for translation items, the paper's way (PROTOCOL section 5, BLEU paragraph).

sacreBLEU `BLEU(lowercase=True)`, 13a tokenisation, exp smoothing. Items have 1 to 48 references;
the paper padded every item's reference list with `''` up to the largest count in the group, and
on sacreBLEU 2.6.0 an `''` is a real zero-length reference that can be the closest length and so
lower the corpus reference length (and the brevity penalty). sacreBLEU's development branch drops
`''` like `None`, which would silently change the published number, so the per-item statistics are
computed here with sacreBLEU's 13a tokenizer and n-gram count (`sacre.py`: pinned to its own by
tests) but with our own closest-length choice over the real and padded lengths. Rows of
`bleu_stats` can be resampled and summed for a bootstrap, then turned into a score by
`bleu_from_stats` (or `bleu_of_rows`, the same numbers without importing sacreBLEU).
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from unidecode import unidecode

from .. import cache
from . import sacre
from .chrf import chrf_rows, chrf_signature, f_score
from .sacre import my_log
from .signature import Signature

MAX_ORDER = 4
N_STATS = 2 * MAX_ORDER + 2
"""Columns of `bleu_stats`: matches_1..4, totals_1..4, hyp_len, ref_len."""

PAD_EMPTY_TO_MAX = "empty-to-max"

PAD_TO_GROUP_MAX = "group-max"
"""PROTOCOL 5: every item's references padded with empty ones to the largest count among the
items scored together (the paper's BLEU)."""
NO_PADDING = "none"
"""Every item with its own references (the "variable references" BLEU)."""
Padding = int | Literal["group-max", "none"]
"""How an item's references are padded: one of the two above, or to a given count."""
LATIN_PREPROCESSING = "j>i+v>u+unidecode"
_SYMBOLS = r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"
"""The first rule of sacreBLEU's 13a tokenizer (`TokenizerRegexp`): a space either side of
each ASCII symbol it names, the space itself among them."""
_RULES = sacre.rules()
_SPACED = (
    str.maketrans({c: f" {c} " for c in map(chr, range(128)) if _RULES[0][0].fullmatch(c)})
    if _RULES[0][0].pattern == _SYMBOLS and _RULES[0][1] == r" \1 "
    else None
)


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


@functools.cache
def _sacrebleu_13a() -> Callable[[str], str]:
    """sacreBLEU's own 13a tokenizer (imported only for a release whose rules differ)."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def _tokenize(text: str) -> str:
    """sacreBLEU's BLEU(lowercase=True) segment preprocessing: lowercase, rstrip, 13a.

    `Tokenizer13a`'s steps, with its first rule (`_SYMBOLS`) as one `str.translate`: Python
    3.11's `re.sub` expands the rule's template in Python at every match, every space of the
    text, which was about half of the tokenizer's time. A test pins the output to sacreBLEU's.
    """
    line = text.lower().rstrip()
    if _SPACED is None:  # a sacreBLEU whose 13a rules differ: its own tokenizer
        return _sacrebleu_13a()(line)
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&")
        line = line.replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(_SPACED)
    for rule, replacement in _RULES[1:]:
        line = rule.sub(replacement, line)
    return " ".join(line.split())


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to `hyp_len`; ties go to the shorter one (as sacreBLEU)."""
    if not ref_lens:
        raise ValueError("no reference lengths")
    distance = min([abs(hyp_len - r) for r in ref_lens])
    shorter = hyp_len - distance
    return shorter if shorter in ref_lens else hyp_len + distance


_SIDE_KIND = "bleu-references"
_SIDE_SOURCE = Path(__file__).read_bytes()


def _reference_side(texts: Sequence[str]) -> tuple[dict[tuple[str, ...], int], tuple[int, ...]]:
    """One item's preprocessed references as BLEU reads them: each word n-gram's largest count
    in any one tokenised reference (the clipping), and each tokenised reference's length."""
    ref_ngrams: dict[tuple[str, ...], int] = {}
    ref_lens = []
    for i, ref in enumerate(texts):
        ngrams, length = sacre.word_ngrams(_tokenize(ref), MAX_ORDER)
        ref_lens.append(length)
        if i == 0:  # the first reference's counts as they are, the others' where larger
            ref_ngrams.update(ngrams)
            continue
        for ngram, count in ngrams.items():
            if count > ref_ngrams.get(ngram, 0):
                ref_ngrams[ngram] = count
    return ref_ngrams, tuple(ref_lens)


@dataclass(frozen=True)
class _References:
    """A group of items' references, ready for BLEU and chrF."""

    texts: tuple[tuple[str, ...], ...]
    """Each item's references preprocessed (`preprocess`), as chrF reads them."""
    sides: tuple[bytes, ...]
    """Each item's `_reference_side`, as `marshal` bytes: an item's n-grams are objects only
    while its hypothesis is counted (as objects, every item's at once were a fifth of the
    `score` command's memory)."""


def _kept_references(value: object) -> _References:
    texts, sides = value  # type: ignore[misc]
    if not all(isinstance(side, bytes) for side in sides):
        raise TypeError("not the kept references")
    return _References(tuple(map(tuple, texts)), tuple(sides))


@functools.lru_cache(maxsize=4)
def _references(references: tuple[tuple[str, ...], ...], target_language: str) -> _References:
    """`_References` of a group of items; kept in the process and between processes
    (`cache.kept`), as references are gold: tokenised once per gold version, this module and
    sacreBLEU version."""

    def prepare() -> tuple[list[list[str]], list[bytes]]:
        texts = [[preprocess(r, target_language) for r in refs] for refs in references]
        return texts, [marshal.dumps(_reference_side(item)) for item in texts]

    key = hashlib.sha256(_SIDE_SOURCE)
    key.update(f"\0{sacre.version()}\0{target_language}\0".encode())
    key.update(marshal.dumps(references))
    return cache.kept(_SIDE_KIND, key.hexdigest(), prepare, _kept_references)


def _item_stats(
    hyp: str, ref_ngrams: Mapping[tuple[str, ...], int], ref_lens: Sequence[int]
) -> tuple[list[int], int]:
    """[matches_1..4, totals_1..4, hyp_len, closest real ref_len] and the closest ref_len when
    an empty (zero-length) padding reference is also a candidate."""
    hyp_ngrams, hyp_len = sacre.word_ngrams(hyp, MAX_ORDER)
    matches = [0] * MAX_ORDER
    totals = [0] * MAX_ORDER
    for ngram, count in hyp_ngrams.items():
        n = len(ngram) - 1
        totals[n] += count
        if ngram in ref_ngrams:
            matches[n] += min(count, ref_ngrams[ngram])
    # PROTOCOL 5: a padding reference is an empty, zero-length reference; it adds no n-grams
    # but is a candidate for the closest reference length.
    padded_len = closest_ref_len(hyp_len, [*ref_lens, 0])
    return [*matches, *totals, hyp_len, closest_ref_len(hyp_len, ref_lens)], padded_len


def _check(hypotheses: Sequence[str], references: Sequence[Sequence[str]]) -> None:
    if len(hypotheses) != len(references):
        raise ValueError(
            f"{len(hypotheses)} hypotheses but {len(references)} reference lists; they must pair up"
        )
    for i, refs in enumerate(references):
        if isinstance(refs, str) or not refs:
            raise ValueError(f"item {i}: references must be a non-empty list of strings")


class CorpusStatistics:
    """Per-item BLEU and chrF statistics of translation items, computed once (tokenisation is
    the costly part), from which any subset's scores follow by summing rows."""

    def __init__(
        self, hypotheses: Sequence[str], references: Sequence[Sequence[str]], target_language: str
    ) -> None:
        _check(hypotheses, references)
        self.target_language = target_language
        self.hypotheses = [preprocess(h or "", target_language) for h in hypotheses]
        prepared = _references(tuple(map(tuple, references)), target_language)
        self.references = [list(texts) for texts in prepared.texts]
        self.n_refs = np.array([len(refs) for refs in references], dtype=np.int64)
        rows, padded = [], []
        for hyp, side in zip(self.hypotheses, prepared.sides, strict=True):
            row, padded_len = _item_stats(_tokenize(hyp), *marshal.loads(side))
            rows.append(row)
            padded.append(padded_len)
        self.rows = np.array(rows, dtype=np.int64).reshape(len(rows), N_STATS)
        self.padded_ref_len = np.array(padded, dtype=np.int64)
        self._chrf_rows: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.hypotheses)

    def _mask(self, mask: np.ndarray | None) -> np.ndarray:
        return np.ones(len(self), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)

    def rows_for(
        self, mask: np.ndarray | None = None, padding: Padding = PAD_TO_GROUP_MAX
    ) -> np.ndarray:
        """Statistics rows of the items in `mask`, their references padded as `padding` says
        (PAD_TO_GROUP_MAX: the paper's; NO_PADDING; or a count, at least every item's)."""
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
        rows[padded, -1] = self.padded_ref_len[mask][padded]
        return rows

    def chrf(self, mask: np.ndarray | None = None) -> float:
        """chrF (sacreBLEU's `CHRF()` settings, `metrics/chrf.py`) of the items in `mask`,
        references unpadded; each item's statistics are counted once, on first use."""
        if self._chrf_rows is None:
            self._chrf_rows = chrf_rows(self.hypotheses, self.references)
        return f_score(self._chrf_rows[self._mask(mask)].sum(axis=0))

    def result(self, mask: np.ndarray | None = None) -> BleuResult:
        """Paper BLEU, variable-reference BLEU and chrF of the items in `mask`."""
        mask = self._mask(mask)
        n_refs = self.n_refs[mask]
        counts = set(n_refs.tolist())
        nrefs: str | int = counts.pop() if len(counts) == 1 else "var"
        signature = bleu_signature(self.target_language, nrefs)
        n = int(mask.sum())
        chrf_sig = chrf_signature(nrefs, self.target_language, LATIN_PREPROCESSING)
        if n == 0:
            return BleuResult(0.0, 0.0, 0.0, 0, signature, 0, chrf_sig)
        # `bleu_of_rows`: sacreBLEU's `compute_bleu` to the last bit, without importing it
        score, variable = bleu_of_rows(
            np.stack([self.rows_for(mask, p).sum(axis=0) for p in (PAD_TO_GROUP_MAX, NO_PADDING)])
        )
        return BleuResult(
            score, variable, self.chrf(mask), n, signature, int(n_refs.max()), chrf_sig
        )


def bleu_stats(
    hypotheses: Sequence[str],
    references: Sequence[Sequence[str]],
    target_language: str,
    padding: Padding,
) -> np.ndarray:
    """Per-item BLEU sufficient statistics, shape (n_items, 10).

    Row: [matches_1..4, totals_1..4, hyp_len, ref_len] with sacreBLEU BLEU(lowercase=True) 13a
    counting on preprocessed text. `references[i]` is item i's list of references; `padding`
    as in `CorpusStatistics.rows_for` (the paper: PAD_TO_GROUP_MAX).
    """
    return CorpusStatistics(hypotheses, references, target_language).rows_for(padding=padding)


def bleu_from_stats(summed: np.ndarray) -> float:
    """Corpus BLEU (0-100, exp smoothing) from summed statistics (a 2-D array is summed first)."""
    stats = np.asarray(summed)
    if stats.ndim == 2:
        stats = stats.sum(axis=0)
    if stats.shape != (N_STATS,):
        raise ValueError(f"expected {N_STATS} statistics, got shape {stats.shape}")
    values = [int(v) for v in stats]
    from sacrebleu.metrics.bleu import BLEU  # the definition (`bleu_of_rows` is pinned to it)

    return BLEU.compute_bleu(
        correct=values[:MAX_ORDER],
        total=values[MAX_ORDER : 2 * MAX_ORDER],
        sys_len=values[2 * MAX_ORDER],
        ref_len=values[2 * MAX_ORDER + 1],
        smooth_method="exp",
    ).score


def bleu_of_rows(rows: np.ndarray) -> list[float]:
    """`bleu_from_stats` of each row of summed statistics (e.g. 1000 bootstrap resamples).

    sacreBLEU's `BLEU.compute_bleu(..., smooth_method="exp")` step by step, the same float
    operations in the same order, without building a `BLEUScore` (its text formatting is most
    of the cost); a test pins it equal to `bleu_from_stats` to the last bit.
    """
    out = []
    for row in np.asarray(rows, dtype=np.int64).reshape(-1, N_STATS).tolist():
        correct, total = row[:MAX_ORDER], row[MAX_ORDER : 2 * MAX_ORDER]
        sys_len, ref_len = row[2 * MAX_ORDER], row[2 * MAX_ORDER + 1]
        bp = 1.0
        if sys_len < ref_len:
            bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
        if not any(correct):
            out.append(0.0)
            continue
        precisions = [0.0] * MAX_ORDER
        smooth = 1.0
        for n in range(MAX_ORDER):
            if total[n] == 0:
                break
            if correct[n] == 0:
                smooth *= 2
                precisions[n] = 100.0 / (smooth * total[n])
            else:
                precisions[n] = 100.0 * correct[n] / total[n]
        out.append(bp * math.exp(sum([my_log(p) for p in precisions]) / MAX_ORDER))
    return out


def bleu_signature(
    target_language: str, nrefs: str | int = "var", padded: bool = True
) -> Signature:
    """sacreBLEU-style BLEU signature plus our Latin preprocessing and padding fields."""
    fields: list[tuple[str, str | None]] = [
        ("nrefs", str(nrefs)),
        ("case", "lc"),
        ("eff", "no"),
        ("tok", "13a"),
        ("smooth", "exp"),
    ]
    if target_language == "latin":
        fields.append(("latin", LATIN_PREPROCESSING))
    fields.append(("pad", PAD_EMPTY_TO_MAX if padded else "none"))
    fields.append(("version", sacre.version()))
    return Signature(tuple(fields))


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
    preprocess("", target_language)  # validates the language even for an empty group
    return CorpusStatistics(hypotheses, references, target_language).result()
