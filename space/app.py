"""Hub Space entry point: `python space/app.py` starts the same app as `respondeoqa-eval space`.

Configuration comes from the environment (Space settings -> variables and secrets):
RESPONDEOQA_DATA_DIR (a folder with the private Certamen/NLE files; public files are fetched and
verified), RESPONDEOQA_SPACE_DB (SQLite path; default /data/leaderboard.sqlite3 when the Space
has persistent storage), RESPONDEOQA_SPACE_MIRROR + HF_TOKEN (optional Hub dataset mirror),
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
from respondeoqa_eval.space.limits import behind_proxy  # noqa: E402
from respondeoqa_eval.space.service import ENV_DB, SpaceConfig  # noqa: E402


def config_from_env() -> SpaceConfig:
    """The Space's configuration from environment variables (see the module docstring)."""
    on_hub = behind_proxy()
    config = SpaceConfig(
        data_dir=Path(os.environ["RESPONDEOQA_DATA_DIR"])
        if os.environ.get("RESPONDEOQA_DATA_DIR")
        else None,
        host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0" if on_hub else "127.0.0.1"),
        port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
        trust_proxy=on_hub,
    )
    persistent = Path("/data")
    if not os.environ.get(ENV_DB) and persistent.is_dir() and os.access(persistent, os.W_OK):
        config.db = persistent / "leaderboard.sqlite3"
    return config


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    launch(config_from_env())
