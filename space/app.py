"""RespondeoQA leaderboard Space: the Hub runs `python app.py` (sdk: gradio).

Its settings are Space variables and secrets (docs/leaderboard-operating.md, "Settings"); a
deploy made with `--wheel` carries the evaluator unpacked in vendor/, first on sys.path.
"""

import logging
import os
import sys
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

_VENDOR = Path(__file__).resolve().parent / "vendor"
if _VENDOR.is_dir():
    sys.path.insert(0, str(_VENDOR))

import respondeoqa_eval  # noqa: E402
import respondeoqa_space  # noqa: E402
from respondeoqa_space.cli import serve  # noqa: E402

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    for package in (respondeoqa_eval, respondeoqa_space):
        logging.getLogger("respondeoqa_space").info(
            "%s %s from %s", package.__name__, package.__version__, package.__file__
        )
    sys.exit(serve())
