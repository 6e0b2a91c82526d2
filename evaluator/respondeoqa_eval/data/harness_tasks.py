"""The harness tasks' names: which dataset config (and target language) each lm-eval, lighteval
and Inspect task runs on.

One table, below everything that names a task: the harness task modules (`harness/`) build
their tasks from it, and the harness log readers (`predictions/harness_logs.py`) recognise our
tasks' logs by it, without importing any harness module (lighteval's, lm-eval's and Inspect's
modules need their own packages).
"""

from __future__ import annotations

from dataclasses import dataclass

from .configs import CONFIGS

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


def lighteval_task_names(prefix: str = "respondeoqa") -> list[str]:
    """The lighteval task names of one suite (`respondeoqa` or `respondeoqa_full`)."""
    return [f"{prefix}_accuracy", *(f"{prefix}_translation_{lang}" for lang in TARGET_LANGUAGES)]


def lighteval_task_arg(prefix: str = "respondeoqa") -> str:
    """The `lighteval ... TASKS` argument that runs one suite zero-shot."""
    return ",".join(f"{name}|0" for name in lighteval_task_names(prefix))
