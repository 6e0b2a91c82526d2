"""The benchmark's configs: a source and/or task selection (the terms of each source are in
`sources.py`).

One table (`CONFIGS`) maps every config name to the sources and tasks it holds; the dataset
builder, its export, card and push check, and the runner's `--config` all read it. It needs no
`datasets` import, so the runner and the evaluator can use it without the `dataset` extra.
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import TASKS, Record
from .sources import FILES, PRIVATE_SOURCES, PUBLIC_SOURCES, SOURCE_INFO, SOURCES


@dataclass(frozen=True)
class ConfigSpec:
    """A dataset config: the items of `sources` scored as one of `tasks`."""

    name: str
    sources: tuple[str, ...]
    tasks: tuple[str, ...]
    description: str

    @property
    def private(self) -> bool:
        """Needs files the user supplies (Certamen or NLE)."""
        return any(s in PRIVATE_SOURCES for s in self.sources)

    @property
    def files(self) -> tuple[str, ...]:
        """Upstream question files this config reads (sorted, as `read_folder` reads them)."""
        return tuple(
            sorted(n for n, s in FILES.items() if s.source in self.sources and s.task in self.tasks)
        )

    @property
    def present_tasks(self) -> tuple[str, ...]:
        """The tasks this config's files actually hold, in `TASKS` order."""
        held = {FILES[n].task for n in self.files}
        return tuple(t for t in TASKS if t in held)

    def selects(self, record: Record) -> bool:
        """True if `record` belongs to this config."""
        return record.source in self.sources and record.task in self.tasks

    @property
    def private_files(self) -> tuple[str, ...]:
        return tuple(n for n in self.files if not FILES[n].public)


_TASK_WORDS = {
    "multiple_choice": "multiple-choice questions",
    "short_answer": "one-word short-answer questions",
    "translation": "long-form translations (BLEU-scored)",
    "feet": "feet identification",
    "meter": "meter manipulation",
}

_SOURCE_TASKS = (
    ("certamen", "multiple_choice"),
    ("certamen", "short_answer"),
    ("certamen", "translation"),
    ("nle", "multiple_choice"),
    ("jun-schol", "short_answer"),
    ("jun-schol", "translation"),
    ("lat-pros", "feet"),
    ("lat-pros", "meter"),
)


def _config_table() -> dict[str, ConfigSpec]:
    specs = [
        ConfigSpec("public", PUBLIC_SOURCES, TASKS, "everything redistributable: both textbooks"),
        ConfigSpec("all", SOURCES, TASKS, "the whole benchmark: public part plus Certamen and NLE"),
    ]
    for src in SOURCES:
        specs.append(ConfigSpec(src, (src,), TASKS, f"all of {SOURCE_INFO[src].name}"))
    for src, task in _SOURCE_TASKS:
        specs.append(
            ConfigSpec(
                f"{src}-{task}", (src,), (task,), f"{SOURCE_INFO[src].name}: {_TASK_WORDS[task]}"
            )
        )
    return {s.name: s for s in specs}


CONFIGS: dict[str, ConfigSpec] = _config_table()
"""Every config, by name; `public` is the default."""

DEFAULT_CONFIG = "public"
PUBLIC_CONFIGS = tuple(n for n, c in CONFIGS.items() if not c.private)
PRIVATE_CONFIGS = tuple(n for n, c in CONFIGS.items() if c.private)
