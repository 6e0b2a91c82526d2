"""RespondeoQA evaluator: the paper's scoring protocol, with every breakdown.

from respondeoqa_eval import evaluate
report = evaluate("predictions.jsonl")          # public gold, pinned download
print(report.summary()); report.to_dict()       # docs/report.md

Where things live (data flows down this list; each folder's `__init__` is its map, and a test
keeps the package's imports free of circles, tests/test_package_layout.py):

- `data/`: sources, upstream files, records, the gold loader and its pinned download, dataset
  configs, the breakdown registry.
- `predictions/`: predictions files of every format (harness logs among them), provenance.
- `metrics/`: one metric per file (PROTOCOL 4), BLEU and chrF (PROTOCOL 5), signatures.
- `scoring/`: extraction, the lenient reading, answer formats, per-item scores, aggregates.
- `report/`: the typed report, its summary text, the paper's published numbers, number style.
- `analysis/`: item analysis across entries.
- `api.py`: `evaluate()`, the one import a Python user needs; `cli/`: `respondeoqa-eval` and its
  `score` and `items` commands.
- `errors.py`, `io.py`, `jsonl.py`: errors, file reads and atomic writes, the JSONL codec (used
  by every layer).
- Areas on top: `dataset/` (builder, export, card, push), `runner/` (the paper's prompts on a
  model), `harness/` (lm-eval, lighteval, Inspect AI, Hub results), `space/` (the leaderboard).
"""

from . import _moved
from ._version import __version__
from .api import evaluate
from .data.gold import load_gold
from .errors import InputError
from .predictions.load import load_predictions
from .report.model import Report

_moved.install()  # the old paths of moved modules still import, with a DeprecationWarning

__all__ = ["InputError", "Report", "__version__", "evaluate", "load_gold", "load_predictions"]
