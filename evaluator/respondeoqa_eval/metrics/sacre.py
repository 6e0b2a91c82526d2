"""What scoring takes from sacreBLEU without importing it (issue 31: its import was about a
tenth of the `score` command's CPU, and a scored file needs none of its code but what is here).

sacreBLEU stays the definition: its version is read from its own version file; the 13a
tokenizer's rules, the word n-gram count and `my_log` are those of the pinned release
(`PINNED`, pyproject.toml), and tests pin each to sacreBLEU's own (`tests/test_fast_paths.py`).
With any other installed release, `rules()` are that release's, read from sacreBLEU itself.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
from collections import Counter
from pathlib import Path

PINNED = "2.6.0"
"""The sacreBLEU release whose 13a rules `_RULES_PINNED` are (pyproject.toml pins it)."""

_RULES_PINNED = (
    (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 "),
    (r"([^0-9])([\.,])", r"\1 \2 "),
    (r"([\.,])([^0-9])", r" \1 \2"),
    (r"([0-9])(-)", r"\1 \2 "),
)
"""`sacrebleu.tokenizers.tokenizer_re.TokenizerRegexp._re` of the pinned release, in order:
(pattern, replacement); the first is 13a's symbol rule."""


@functools.cache
def version() -> str:
    """The installed sacreBLEU's version: its `version.py` (setuptools-scm's file, one
    assignment) read without importing the package; imported only when that file is not so."""
    spec = importlib.util.find_spec("sacrebleu")
    try:
        folder = Path((spec.submodule_search_locations or [])[0])  # type: ignore[union-attr]
        text = (folder / "version.py").read_text(encoding="utf-8")
        found = re.search(r"""^__version__ = (?:version = )?['"]([^'"]+)['"]$""", text, re.M)
        if found:
            return found.group(1)
    except (AttributeError, IndexError, OSError, TypeError):
        pass
    import sacrebleu

    return sacrebleu.__version__


@functools.cache
def rules() -> tuple[tuple[re.Pattern[str], str], ...]:
    """13a's regular-expression rules (pattern, replacement) of the installed sacreBLEU."""
    if version() == PINNED:
        return tuple((re.compile(p), r) for p, r in _RULES_PINNED)
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return tuple(Tokenizer13a()._post_tokenizer._re)


def word_ngrams(line: str, max_order: int) -> tuple[Counter[tuple[str, ...]], int]:
    """sacreBLEU's `extract_all_word_ngrams(line, 1, max_order)`: every word n-gram of orders 1
    to `max_order` of the whitespace-split line, counted, and the number of words."""
    tokens = line.split()
    every = [
        tuple(tokens[i : i + n])
        for n in range(1, max_order + 1)
        for i in range(len(tokens) - n + 1)
    ]
    return Counter(every), len(tokens)


def my_log(num: float) -> float:
    """sacreBLEU's `my_log`: the natural logarithm, a large negative number for 0."""
    if num == 0.0:
        return -9999999999
    return math.log(num)
