"""Predictions: every file a model's answers come in, read into `{record id: prediction}`.

- `load.py`: `load_predictions` and `Predictions`: JSONL, CSV, the paper's JSON layout, and
  harness logs, with one-line errors for bad input.
- `harness_logs.py`: lm-evaluation-harness `samples_*.jsonl` and lighteval `details_*.parquet`
  files as predictions rows (readers of their own; only the table of task names, `data/harness_tasks.py`, is
  imported: no module of `harness/`).
- `provenance.py`: what a file says about its run (tool, model, parameters).
- `example.py`: the example predictions file (`score --example`).

The public names below are the package's API (docs/api.md).
"""

from .example import example_predictions
from .load import Opaque, OpaqueIdsError, Prediction, Predictions, load_predictions
from .provenance import LIGHTEVAL, LM_EVAL, RUNNER, Provenance

__all__ = [
    "LIGHTEVAL",
    "LM_EVAL",
    "RUNNER",
    "Opaque",
    "OpaqueIdsError",
    "Prediction",
    "Predictions",
    "Provenance",
    "example_predictions",
    "load_predictions",
]
