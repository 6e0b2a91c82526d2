"""The Python API: `evaluate(predictions, ...) -> Report`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .data.gold import GoldSet, load_gold
from .errors import InputError
from .metrics import bleu, exact_match
from .predictions.load import Predictions, load_predictions
from .report.model import Report, build_report
from .scoring import aggregate
from .scoring.aggregate import Bootstrap
from .scoring.per_item import score_items


def evaluate(
    predictions: str | Path | Mapping | list | Predictions,
    gold: GoldSet | None = None,
    *,
    data_dir: str | Path | None = None,
    restrict_to_covered: bool = False,
    predicted_only: bool = False,
    bootstrap: int = 1000,
    seed: int = 12345,
) -> Report:
    """Score predictions with the paper's protocol.

    `predictions`: a path (JSONL, CSV, JSON, or a folder in the paper's layout), a paper-layout
    mapping, a list of rows, or loaded `Predictions`. `gold`: a loaded GoldSet, else
    `load_gold(data_dir)`. By default every gold item counts and those without a prediction
    score 0. With `restrict_to_covered`, only the upstream files that the predictions touch are
    scored, whole (how the leaderboard ranks partial submissions); with `predicted_only`, only
    the items that have a prediction (a quick trial such as `run --limit N`).
    """
    if restrict_to_covered and predicted_only:
        raise InputError("choose one of restrict_to_covered (--covered-only) and predicted_only")
    gold = gold if gold is not None else load_gold(data_dir)
    preds = (
        predictions if isinstance(predictions, Predictions) else load_predictions(predictions, gold)
    )
    records = gold.records
    if restrict_to_covered:
        records = [r for r in records if r.file in preds.files]
    elif predicted_only:
        records = [r for r in records if r.id in preds.by_id]
    items = score_items(records, preds)
    boot = Bootstrap(resamples=bootstrap, seed=seed)
    return build_report(items, gold, boot, preds.origin, preds.provenance)


def clear_caches() -> None:
    """Let go of what a process keeps between evaluations (sacreBLEU's reference n-grams of
    each translation group, the normalised gold, the resample matrices): a long-lived process
    (the Space) scores the next submission faster with them; a one-shot one (`score`) frees
    them before it writes. Nothing is kept on disk."""
    bleu._kept_scorers.cache_clear()
    exact_match._normalized_gold.cache_clear()
    aggregate.clear_counts()
