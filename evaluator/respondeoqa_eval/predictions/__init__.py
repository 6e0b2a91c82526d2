"""Predictions: every file a model's answers come in, read into `{record id: prediction}`.

- `load.py`: `load_predictions` and `Predictions`: JSONL, CSV, the paper's JSON layout, and
  harness logs, with one-line errors for bad input.
- `harness_logs.py`: lm-evaluation-harness `samples_*.jsonl` and lighteval `details_*.parquet`
  files as predictions rows (readers of their own; no harness task module is imported).
- `provenance.py`: what a file says about its run (tool, model, parameters).
- `example.py`: the example predictions file (`score --example`).

`from respondeoqa_eval.predictions import load_predictions, Predictions` keeps working; the
package imports `load.py` only.
"""

from .load import Predictions, load_predictions

__all__ = ["Predictions", "load_predictions"]
