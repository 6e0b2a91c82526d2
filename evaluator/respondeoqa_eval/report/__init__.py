"""The report: the typed model and its renderings.

- `model.py`: the typed report (`Report`, to_dict / from_dict: docs/report.md) and
  `build_report`, from per-item scores.
- `summary.py`: the report as the tables `score` prints; it registers itself as the renderer
  behind `Report.summary()`, so the model never imports it.
- `published.py`: the paper's published results (PROTOCOL 6) as typed reports.
- `numbers.py`: the one number style (one decimal, halves up) of the summary and the Space.

The model's names are re-exported (`from respondeoqa_eval.report import Report`, as documented).
"""

from . import summary as _summary  # noqa: F401  (registers the renderer of Report.summary())
from .model import (
    SCHEMA_VERSION,
    Accuracy,
    BleuScore,
    EvaluatorInfo,
    FormatCompliance,
    FormatCounts,
    GoldInfo,
    ItemResult,
    Report,
    RuleCounts,
    Score,
    build_report,
)

__all__ = [
    "SCHEMA_VERSION",
    "Accuracy",
    "BleuScore",
    "EvaluatorInfo",
    "FormatCompliance",
    "FormatCounts",
    "GoldInfo",
    "ItemResult",
    "Report",
    "RuleCounts",
    "Score",
    "build_report",
]
