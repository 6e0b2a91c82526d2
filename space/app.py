"""RespondeoQA leaderboard Space (written by `respondeoqa-eval space bundle`)."""

import logging
import os
import sys
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# where this Space keeps its record and finds the private gold (Space variables of the same
# names win; a token comes from the HF_TOKEN secret, never from this file)
DEFAULTS: dict[str, str] = {"RESPONDEOQA_SPACE_MIRROR": "", "RESPONDEOQA_GOLD_REPO": ""}
for _name, _value in DEFAULTS.items():
    if _value:
        os.environ.setdefault(_name, _value)

# a bundle made with --wheel carries the package unpacked next to this file
_VENDOR = Path(__file__).resolve().parent / "vendor"
if _VENDOR.is_dir():
    sys.path.insert(0, str(_VENDOR))

import respondeoqa_eval  # noqa: E402
from respondeoqa_eval.space.cli import serve  # noqa: E402

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("respondeoqa_eval").info(
        "respondeoqa-eval %s from %s", respondeoqa_eval.__version__, respondeoqa_eval.__file__
    )
    sys.exit(serve())
