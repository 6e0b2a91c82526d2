"""The Python API: `evaluate(predictions, ...) -> Report`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .aggregate import Bootstrap
from .gold import GoldSet, load_gold
from .predictions import Predictions, load_predictions
from .report import Report, build_report
from .scoring import score_items


def evaluate(
    predictions: str | Path | Mapping | list | Predictions,
    gold: GoldSet | None = None,
    *,
    data_dir: str | Path | None = None,
    restrict_to_covered: bool = False,
    bootstrap: int = 1000,
    seed: int = 12345,
) -> Report:
    """Score predictions with the paper's protocol.

    `predictions`: a path (JSONL, CSV, JSON, or a folder in the paper's layout), a paper-layout
    mapping, a list of rows, or loaded `Predictions`. `gold`: a loaded GoldSet, else
    `load_gold(data_dir)`. With `restrict_to_covered`, only the upstream files that the
    predictions touch are scored (how the leaderboard ranks partial submissions); otherwise
    every gold item counts and those without a prediction score 0.
    """
    gold = gold if gold is not None else load_gold(data_dir)
    preds = (
        predictions if isinstance(predictions, Predictions) else load_predictions(predictions, gold)
    )
    records = gold.records
    if restrict_to_covered:
        records = [r for r in records if r.file in preds.files]
    items = score_items(records, preds)
    boot = Bootstrap(resamples=bootstrap, seed=seed)
    return build_report(items, gold, boot, preds.origin, preds.provenance)
