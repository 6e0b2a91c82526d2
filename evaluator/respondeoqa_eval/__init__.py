"""RespondeoQA evaluator: the paper's scoring protocol, with every breakdown.

from respondeoqa_eval import evaluate
report = evaluate("predictions.jsonl")          # public gold, pinned download
print(report.summary()); report.to_dict()       # docs/report.md

Where things live (data flows down this list, each layer importing only the ones below it;
each folder's `__init__` is its map and re-exports its public names, `__all__`; the public API
is listed in docs/api.md; tests/test_package_layout.py keeps the layers and finds no circle):

1. `errors.py`, `_version.py`, `io.py`, `jsonl.py`: errors, the version, file reads and atomic
   writes, the JSONL codec (used by every layer).
2. `data/`: sources, upstream files, records, the gold loader and its pinned download, dataset
   configs, the harness tasks' names, the breakdown registry.
3. `metrics/`: one metric per file (PROTOCOL 4), BLEU and chrF (PROTOCOL 5), signatures;
   `predictions/`: predictions files of every format (harness logs among them), provenance.
4. `scoring/`: extraction, the lenient reading, answer formats, per-item scores, aggregates.
5. `report/`: the typed report, its summary text, the paper's published numbers, number style.
6. `analysis/`: item analysis across entries; `api.py`: `evaluate()`, the one import a Python
   user needs (this package's `__init__` re-exports it).
7. Areas on top: `runner/` (the paper's prompts on a model), `harness/` (lm-eval, lighteval,
   Inspect AI, Hub results), `dataset/` (builder, export, card, push, the benchmark's
   eval.yaml), and `cli/`: `respondeoqa-eval` and its `score` and `items` commands.

The leaderboard Space is another package (`respondeoqa_space`, the repository's `space/`), built
on the public API; nothing here imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__
from .errors import InputError, run_command

if TYPE_CHECKING:
    from .api import evaluate
    from .data.gold import load_gold
    from .predictions.load import load_predictions
    from .report.model import Report

__all__ = [
    "InputError",
    "Report",
    "__version__",
    "evaluate",
    "load_gold",
    "load_predictions",
    "run_command",
]

# The API is imported on first use, so that importing a module of the package (the
# `respondeoqa-eval` command's among them) loads only what that module needs.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        ".api": ("evaluate",),
        ".data.gold": ("load_gold",),
        ".predictions.load": ("load_predictions",),
        ".report.model": ("Report",),
    },
)
