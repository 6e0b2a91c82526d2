"""The unified record: one benchmark item, whatever upstream file it came from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .sources import PRIVATE_SOURCES as PRIVATE_SOURCES
from .sources import PUBLIC_SOURCES as PUBLIC_SOURCES
from .sources import SOURCE_NAMES as SOURCE_NAMES
from .sources import SOURCES as SOURCES

TASKS = ("multiple_choice", "short_answer", "translation", "feet", "meter")
"""Scoring tasks. `translation` items are BLEU-scored; the others count towards accuracy."""


CONTENTS = (
    "geography",
    "history",
    "literature",
    "mythology",
    "vocabulary",
    "grammar",
    "literary_devices",
    "reading_comprehension",
    "scansion",
    "translation",
)
KNOWLEDGE_CONTENTS = ("mythology", "history", "literature", "geography", "vocabulary")
SKILL_CONTENTS = ("grammar", "literary_devices", "reading_comprehension", "scansion", "translation")
LANGUAGES = ("english", "latin")
LANGUAGE_PAIRS = tuple(f"{q}-{a}" for q in LANGUAGES for a in LANGUAGES)
FORMATS = ("multiple_choice", "short_answer")
UNKNOWN_DIFFICULTY = "unknown"
"""The upstream files' difficulty where the source gives none (every public item)."""
DIFFICULTIES = (UNKNOWN_DIFFICULTY, "beginner", "intermediate", "advanced")


def split_language_pair(pair: str) -> tuple[str, str]:
    """("english", "latin") of "english-latin"; ("", "") for anything else."""
    question, _, answer = pair.partition("-")
    if question in LANGUAGES and answer in LANGUAGES:
        return question, answer
    return "", ""


def category_of(content: str) -> str:
    """Knowledge vs skill (PROTOCOL section 5)."""
    if content in KNOWLEDGE_CONTENTS:
        return "knowledge"
    if content in SKILL_CONTENTS:
        return "skill"
    raise ValueError(f"unknown question_content {content!r}")


@dataclass(frozen=True)
class Record:
    """One gold item. The key is (`question_id`, `question_language`); `id` is unique too."""

    id: str
    question_id: str
    question_language: str
    answer_language: str
    source: str
    source_name: str
    source_year: int
    task: str
    question_format: str
    question_content: str
    category: str
    difficulty: str
    question: str
    multiple_choice_options: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    passage: str | None = None
    multihop: bool | None = None
    constrained: bool | None = None
    file: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.question_id, self.question_language)

    @property
    def language_pair(self) -> str:
        return f"{self.question_language}-{self.answer_language}"

    @property
    def is_private(self) -> bool:
        """Certamen and NLE gold must never leave the process."""
        return self.source in PRIVATE_SOURCES

    def to_dict(self) -> dict[str, Any]:
        """The record as a plain dict (the dataset schema; `file` included)."""
        return asdict(self)


FIELDS = tuple(f.name for f in fields(Record))


def record_of(values: Mapping[str, Any]) -> Record:
    """`Record(**values)` for every field's value, faster (the readers of the gold make one per
    item): a frozen dataclass' `__init__` sets each of its 19 fields through
    `object.__setattr__`; here they go into the record's `__dict__`, as there. A field missing
    or unknown is a TypeError, as from `Record(...)`."""
    record = object.__new__(Record)
    state = vars(record)
    # pair by pair, so the dict keeps the keys all records share (`update(dict)` of an empty
    # dict copies the other's own keys: 240 bytes more a record)
    state.update(values.items())
    if len(state) != len(FIELDS) or not state.keys() <= _FIELD_SET:
        raise TypeError(f"a Record's fields are {', '.join(FIELDS)}")
    return record


_FIELD_SET = frozenset(FIELDS)


def dataset_row(record: Record) -> dict[str, Any]:
    """The record as a row of the dataset (`hf_features.FEATURES`): its fields, with a
    difficulty the source does not give as a missing value (null), not the upstream files'
    word "unknown" (`record_from_row` reads it back)."""
    row = record.to_dict()
    if row["difficulty"] == UNKNOWN_DIFFICULTY:
        row["difficulty"] = None
    return row


def record_from_row(row: Mapping[str, Any]) -> Record:
    """The Record of a dataset row (`dataset_row`, or a harness's document: other columns are
    left out); lists as lists, a null difficulty as the breakdowns' "unknown" group."""
    values = {k: row[k] for k in FIELDS if k in row}
    values["multiple_choice_options"] = list(values.get("multiple_choice_options") or [])
    values["answers"] = list(values.get("answers") or [])
    if values.get("difficulty") is None:
        values["difficulty"] = UNKNOWN_DIFFICULTY
    return Record(**values)
