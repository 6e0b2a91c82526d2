"""Running RespondeoQA inside other evaluation harnesses, and what they write.

- `task_dir()`: the lm-evaluation-harness task folder shipped in this package
  (`lm_eval --include_path $(respondeoqa-eval harness path) --tasks respondeoqa ...`), whose
  functions live in `lm_eval_task`;
- `lighteval_tasks`: the lighteval custom-task module (`--custom-tasks
  respondeoqa_eval.harness.lighteval_tasks`; never imported here: lighteval has its own pins);
- `inspect_tasks`: the Inspect AI tasks (`inspect eval respondeoqa_eval/respondeoqa_public`);
- their logs (lm-eval `samples_*.jsonl`, lighteval `details_*.parquet`) are read as predictions
  beside the other formats, in `predictions/harness_logs.py` (which imports only this table);
- `eval_results`, `eee`: the Hub's `.eval_results/*.yaml` and `eval.yaml`, and Every Eval Ever
  records.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

from ..data.configs import CONFIGS

TASK_PACKAGE = "respondeoqa_eval.harness.lm_eval_tasks"
TASK_PREFIX = "respondeoqa_"
TARGET_LANGUAGES = ("english", "latin")


@dataclass(frozen=True)
class HarnessTask:
    """One harness task: the items of dataset `config` (translations into `language` only,
    for a translation task), scored with one metric set on every item."""

    name: str
    config: str
    language: str | None = None

    @property
    def translation(self) -> bool:
        return self.language is not None

    @property
    def private(self) -> bool:
        return CONFIGS[self.config].private


def task_name(config: str, language: str | None = None) -> str:
    """`lat-pros-feet` -> `respondeoqa_lat_pros_feet`; with a target language, `_<language>`."""
    return TASK_PREFIX + config.replace("-", "_") + (f"_{language}" if language else "")


def _task_table() -> dict[str, HarnessTask]:
    out: list[HarnessTask] = []
    for name, spec in CONFIGS.items():
        if len(spec.sources) != 1 or len(spec.tasks) != 1:
            continue  # one task per source and task: every item once
        if spec.tasks == ("translation",):
            out += [HarnessTask(task_name(name, lang), name, lang) for lang in TARGET_LANGUAGES]
        else:
            out.append(HarnessTask(task_name(name), name))
    # the paper's pooled BLEU: every translation item of the benchmark, per target language
    out += [
        HarnessTask(f"{TASK_PREFIX}full_translation_{lang}", "all", lang)
        for lang in TARGET_LANGUAGES
    ]
    return {t.name: t for t in out}


TASKS: dict[str, HarnessTask] = _task_table()
"""Harness task name -> task: one per source and accuracy task, one per source and target
language of translations, and the pooled translations per target language."""


LIGHTEVAL_SUITES = {"respondeoqa": "public", "respondeoqa_full": "all"}
"""lighteval task-name prefix -> dataset config; each has `_accuracy` (every non-translation
item) and `_translation_<language>` tasks (no `suite:task` names: lighteval's `_average` of such
a superset would mix accuracy and BLEU tasks)."""


def lighteval_tasks(prefix: str = "respondeoqa") -> list[str]:
    """The lighteval task names of one suite (`respondeoqa` or `respondeoqa_full`)."""
    return [f"{prefix}_accuracy", *(f"{prefix}_translation_{lang}" for lang in TARGET_LANGUAGES)]


def lighteval_task_arg(prefix: str = "respondeoqa") -> str:
    """The `lighteval ... TASKS` argument that runs one suite zero-shot."""
    return ",".join(f"{name}|0" for name in lighteval_tasks(prefix))


def task_dir() -> Path:
    """The folder of the lm-eval task YAMLs (inside the installed package, also from a wheel)."""
    resource = files(TASK_PACKAGE)
    with as_file(resource) as path:  # a real folder for any normal (non-zipped) install
        return Path(path)
