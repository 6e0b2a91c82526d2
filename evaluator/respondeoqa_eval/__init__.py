"""RespondeoQA evaluator: the paper's scoring protocol, with every breakdown.

from respondeoqa_eval import evaluate
report = evaluate("predictions.jsonl")          # public gold, pinned download
print(report.summary()); report.to_dict()       # docs/report.md
"""

from ._version import __version__
from .api import evaluate
from .errors import InputError
from .gold import load_gold
from .predictions import load_predictions
from .report import Report

__all__ = ["InputError", "Report", "__version__", "evaluate", "load_gold", "load_predictions"]
