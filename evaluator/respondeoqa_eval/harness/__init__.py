"""Running RespondeoQA inside other evaluation harnesses, and what they write.

- `task_dir()`: the lm-evaluation-harness task folder shipped in this package
  (`lm_eval --include_path $(respondeoqa-eval harness path) --tasks respondeoqa ...`), whose
  functions live in `lm_eval_task`;
- `lighteval_tasks`: the lighteval custom-task module (`--custom-tasks
  respondeoqa_eval.harness.lighteval_tasks`; never imported here: lighteval has its own pins);
- `inspect_tasks`: the Inspect AI tasks (`inspect eval respondeoqa_eval/respondeoqa_public`);
- the table of task names (`TASKS`, `LIGHTEVAL_SUITES`, `lighteval_task_names()`,
  `task_name()`) lives below the predictions readers, in `data/harness_tasks.py`, and is
  re-exported here: their logs (lm-eval `samples_*.jsonl`, lighteval `details_*.parquet`) are
  read as predictions beside the other formats, in `predictions/harness_logs.py`, which imports
  that table and no module of this package;
- `eval_results`, `eee`: the Hub's `.eval_results/*.yaml` and `eval.yaml`, and Every Eval Ever
  records.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

from ..data.harness_tasks import (
    LIGHTEVAL_SUITES,
    TARGET_LANGUAGES,
    TASK_PREFIX,
    TASKS,
    HarnessTask,
    lighteval_task_arg,
    lighteval_task_names,
    task_name,
)

TASK_PACKAGE = "respondeoqa_eval.harness.lm_eval_tasks"

__all__ = [
    "LIGHTEVAL_SUITES",
    "TARGET_LANGUAGES",
    "TASKS",
    "TASK_PACKAGE",
    "TASK_PREFIX",
    "HarnessTask",
    "lighteval_task_arg",
    "lighteval_task_names",
    "task_dir",
    "task_name",
]


def task_dir() -> Path:
    """The folder of the lm-eval task YAMLs (inside the installed package, also from a wheel)."""
    resource = files(TASK_PACKAGE)
    with as_file(resource) as path:  # a real folder for any normal (non-zipped) install
        return Path(path)
