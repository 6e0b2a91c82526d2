"""Scoring, pure: from a raw response to per-item scores to aggregates (PROTOCOL 3-5).

- `extract.py`: the paper's answer extraction (PROTOCOL 3); `lenient.py`: the lenient reading
  beside it, rule by rule (Format compliance); `answer_format.py`: each task's answer format
  (well-formed answers, the gold's own rule).
- `per_item.py`: per-item scores (`score_items`, `ItemScore`), with the metrics of `metrics/`.
- `aggregate.py`: accuracy breakdowns, BLEU groups, bootstrap intervals, paired differences.
"""
