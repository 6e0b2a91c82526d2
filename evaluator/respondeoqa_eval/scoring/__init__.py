"""Scoring, pure: from a raw response to per-item scores to aggregates (PROTOCOL 3-5).

- `extract.py`: the paper's answer extraction (PROTOCOL 3); `lenient.py`: the lenient reading
  beside it, rule by rule (Format compliance); `answer_format.py`: each task's answer format
  (well-formed answers, the gold's own rule).
- `per_item.py`: per-item scores (`score_items`, `ItemScore`), with the metrics of `metrics/`.
- `aggregate.py`: accuracy breakdowns, BLEU groups, bootstrap intervals, paired differences.

The public names below are the package's API (docs/api.md).
"""

from .aggregate import Bootstrap, Difference, paired_differences
from .extract import extract_answer
from .per_item import ItemScore, score_items

__all__ = [
    "Bootstrap",
    "Difference",
    "ItemScore",
    "extract_answer",
    "paired_differences",
    "score_items",
]
