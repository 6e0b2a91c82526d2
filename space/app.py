"""Hub Space entry point: `python space/app.py` starts the same app as `respondeoqa-eval space`.

Configuration comes from the environment (Space settings -> variables and secrets), read by
`respondeoqa_eval.space.settings.SpaceConfig.from_env`: RESPONDEOQA_DATA_DIR (a folder with the
private Certamen/NLE files; public files are fetched and verified), RESPONDEOQA_SPACE_DB (SQLite
path on local disk), RESPONDEOQA_SPACE_MIRROR + HF_TOKEN (Hub dataset mirror),
RESPONDEOQA_SPACE_DAILY / _ATTEMPTS / _MAX_MB (limits).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

HERE = Path(__file__).resolve().parent
# the package is either installed, copied next to this file (a Hub Space), or in the repo
for candidate in (HERE, HERE / "evaluator", HERE.parent / "evaluator"):
    if (candidate / "respondeoqa_eval").is_dir() and str(candidate) not in sys.path:
        sys.path.insert(0, str(candidate))
        break

from respondeoqa_eval.space.app import launch  # noqa: E402
from respondeoqa_eval.space.settings import SpaceConfig  # noqa: E402

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    launch(SpaceConfig.from_env())
