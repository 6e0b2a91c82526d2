"""The report: the typed model and its renderings.

- `model.py`: the typed report (`Report`, to_dict / from_dict: docs/report.md) and
  `build_report`, from per-item scores.
- `exclusion.py`: a report's numbers without some items (`rescore_without`, beyond the
  paper: e.g. without the suspected gold errors), exactly as a re-score without them.
- `summary.py`: the report as the tables `score` prints; it registers itself as the renderer
  behind `Report.summary()`, so the model never imports it.
- `published.py`: the paper's published results (PROTOCOL 6) as typed reports.
- `numbers.py`: the one number style (one decimal, halves up) of the summary and the Space.

The public names below (the model, the number style, the published rows) are the package's
API (docs/api.md).
"""

from . import summary as _summary  # noqa: F401  (registers the renderer of Report.summary())
from .exclusion import rescore_without
from .model import (
    SCHEMA_VERSION,
    Accuracy,
    BleuScore,
    EvaluatorInfo,
    Exclusion,
    FormatCompliance,
    FormatCounts,
    GoldInfo,
    ItemResult,
    Report,
    RuleCounts,
    Score,
    build_report,
)
from .numbers import (
    MISSING,
    SMALL_GROUP,
    SMALL_MARK,
    count_text,
    interval_text,
    is_small,
    percent_text,
    round1,
    score_text,
    signed_text,
)
from .published import PUBLISHED, PUBLISHED_LABEL, PublishedModel

__all__ = [
    "MISSING",
    "PUBLISHED",
    "PUBLISHED_LABEL",
    "SCHEMA_VERSION",
    "SMALL_GROUP",
    "SMALL_MARK",
    "Accuracy",
    "BleuScore",
    "EvaluatorInfo",
    "Exclusion",
    "FormatCompliance",
    "FormatCounts",
    "GoldInfo",
    "ItemResult",
    "Report",
    "RuleCounts",
    "PublishedModel",
    "Score",
    "build_report",
    "count_text",
    "interval_text",
    "is_small",
    "percent_text",
    "rescore_without",
    "round1",
    "score_text",
    "signed_text",
]
