"""Running RespondeoQA inside other evaluation harnesses, and reading what they log.

- `task_dir()`: the lm-evaluation-harness task folder shipped in this package
  (`lm_eval --include_path $(respondeoqa-eval harness path) --tasks respondeoqa ...`);
- `logs`: lm-eval `samples_*.jsonl` and lighteval `details_*.parquet` files as predictions;
- `eval_results`: the Hub's `.eval_results/*.yaml` (model repo) and `eval.yaml` (benchmark).
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

from ..configs import CONFIGS

TASK_PACKAGE = "respondeoqa_eval.harness.lm_eval_tasks"
TASK_PREFIX = "respondeoqa_"


def task_name(config: str) -> str:
    """The lm-eval task of a dataset config: `lat-pros-feet` -> `respondeoqa_lat_pros_feet`."""
    return TASK_PREFIX + config.replace("-", "_")


TASKS: dict[str, str] = {task_name(c): c for c in CONFIGS}
"""lm-eval task name -> dataset config, one task per config."""


def task_dir() -> Path:
    """The folder of the lm-eval task YAMLs (inside the installed package, also from a wheel)."""
    resource = files(TASK_PACKAGE)
    with as_file(resource) as path:  # a real folder for any normal (non-zipped) install
        return Path(path)
