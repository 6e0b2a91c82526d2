"""The dataset's schema (explicit `datasets.Features`), its configs and the terms of each source.

One table (`CONFIGS`) maps every config name to the sources and tasks it holds; the builder,
the export, the card and the push check all read it.
"""

from __future__ import annotations

from dataclasses import dataclass

import datasets

from ..records import PRIVATE_SOURCES, PUBLIC_SOURCES, SOURCES, TASKS
from ..upstream import FILES

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "question_id": datasets.Value("string"),
        "question_language": datasets.Value("string"),
        "answer_language": datasets.Value("string"),
        "source": datasets.Value("string"),
        "source_name": datasets.Value("string"),
        "source_year": datasets.Value("int32"),
        "task": datasets.Value("string"),
        "question_format": datasets.Value("string"),
        "question_content": datasets.Value("string"),
        "category": datasets.Value("string"),
        "difficulty": datasets.Value("string"),
        "question": datasets.Value("string"),
        "multiple_choice_options": datasets.Sequence(datasets.Value("string")),
        "answers": datasets.Sequence(datasets.Value("string")),
        # null unless an NLE reading-comprehension question
        "passage": datasets.Value("string"),
        # nullable: multihop exists only in short-answer files, constrained only in translation
        # files (PROTOCOL section 1); null means "not applicable", never False
        "multihop": datasets.Value("bool"),
        "constrained": datasets.Value("bool"),
        "file": datasets.Value("string"),
    }
)
"""The unified schema: one column per `records.Record` field."""

FIELD_DOCS: dict[str, str] = {
    "id": "unique id: `question_id`, plus `-en`/`-la` for the prosody questions that exist twice",
    "question_id": "upstream id; not unique alone, (`question_id`, `question_language`) is",
    "question_language": "`english` or `latin`",
    "answer_language": "`english` or `latin`",
    "source": "short source key: `certamen`, `nle`, `jun-schol`, `lat-pros`",
    "source_name": "upstream source name",
    "source_year": "year of the exam or of the textbook",
    "task": "how the item is scored: `multiple_choice`, `short_answer`, `translation`, "
    "`feet`, `meter`",
    "question_format": "upstream format: `multiple_choice` or `short_answer`",
    "question_content": "one of ten content types (geography ... vocabulary)",
    "category": "`knowledge` (mythology, history, literature, geography, vocabulary) or `skill`",
    "difficulty": "`unknown`, `beginner`, `intermediate`, `advanced`",
    "question": "question text (upstream `question` or `question_text`)",
    "multiple_choice_options": 'options as `"A: text"` strings; empty when not multiple choice',
    "answers": "gold answer(s): one, or several reference translations (up to 48)",
    "passage": "reading-comprehension passage (NLE); null otherwise",
    "multihop": "short-answer items only: multi-hop question; null elsewhere",
    "constrained": "translation items only: constrained translation; null elsewhere",
    "file": "upstream file the item comes from",
}


@dataclass(frozen=True)
class SourceInfo:
    """Who publishes a source and on what terms."""

    key: str
    label: str
    name: str
    publisher: str
    terms: str
    public: bool
    license_id: str


SOURCE_INFO: dict[str, SourceInfo] = {
    "jun-schol": SourceInfo(
        "jun-schol",
        "Jun-Schol",
        "Latin Grammar and Junior Scholarship Papers (1884)",
        "textbook, public domain",
        "Public domain: free to use, redistribute and adapt.",
        True,
        "public-domain",
    ),
    "lat-pros": SourceInfo(
        "lat-pros",
        "Lat-Pros",
        "Exercises in Latin Prosody and Versification (1823)",
        "textbook, public domain",
        "Public domain: free to use, redistribute and adapt.",
        True,
        "public-domain",
    ),
    "certamen": SourceInfo(
        "certamen",
        "Certamen",
        "NJCL Certamen questions, 1996-2009",
        "the National Junior Classical League (JCL)",
        "Copyrighted and hosted by the Junior Classical League; not redistributed here. "
        "Obtain the files as the upstream README (github.com/slanglab/RespondeoQA) describes.",
        False,
        "copyright-njcl",
    ),
    "nle": SourceInfo(
        "nle",
        "NLE",
        "National Latin Exam 2015, 2020, 2025",
        "the National Latin Exam (American Classical League / NJCL)",
        "May not be used to generate profit; not redistributed here. Obtain the files as the "
        "upstream README (github.com/slanglab/RespondeoQA) describes.",
        False,
        "nle-non-commercial",
    ),
}
"""Terms per source (issue 3; paper section 3)."""

UPSTREAM_URL = "https://github.com/slanglab/RespondeoQA"


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

PAPER_TITLE = "RespondeoQA: a Benchmark for Bilingual Latin-English Question Answering"
CITATION = """@misc{hudspeth2026respondeoqa,
  title         = {RespondeoQA: a Benchmark for Bilingual Latin-English Question Answering},
  author        = {Hudspeth and Burns and O'Connor},
  year          = {2026},
  eprint        = {2604.20738},
  archivePrefix = {arXiv},
  url           = {https://arxiv.org/abs/2604.20738}
}"""


def terms_text(sources: tuple[str, ...] = SOURCES) -> str:
    """One line per source: name and terms (the builder's description and the card use it)."""
    return "\n".join(f"- {SOURCE_INFO[s].name}: {SOURCE_INFO[s].terms}" for s in sources)
