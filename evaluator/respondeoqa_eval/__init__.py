"""RespondeoQA evaluator: the paper's scoring protocol, with every breakdown.

from respondeoqa_eval import evaluate
report = evaluate("predictions.jsonl")          # public gold, pinned download
print(report.summary()); report.to_dict()       # docs/report.md
"""

__version__ = "0.1.0"

from .api import evaluate  # noqa: E402
from .errors import InputError  # noqa: E402
from .gold import load_gold  # noqa: E402
from .predictions import load_predictions  # noqa: E402
from .report import Report  # noqa: E402

__all__ = ["InputError", "Report", "__version__", "evaluate", "load_gold", "load_predictions"]
