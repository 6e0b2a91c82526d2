"""Read upstream-format folders (PROTOCOL section 1) into unified records.

This is the only reader of upstream files in the project: the dataset builder, the Space and
the runner all go through `read_folder`.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError
from .io import read_json
from .records import (
    CONTENTS,
    DIFFICULTIES,
    FORMATS,
    LANGUAGES,
    SOURCE_NAMES,
    Record,
    category_of,
)


@dataclass(frozen=True)
class FileSpec:
    """What an upstream file holds and how its items are scored."""

    name: str
    source: str
    task: str
    rows: int | None  # row count of the released file (None: not published per file)
    public: bool
    passages: str | None = None  # companion passages file (NLE reading comprehension)
    paired: bool = False  # the same questions exist in another file in the other language


def _specs() -> dict[str, FileSpec]:
    specs = [
        FileSpec("junior_scholarship_short_answer.json", "jun-schol", "short_answer", 675, True),
        FileSpec("junior_scholarship_translation_long.json", "jun-schol", "translation", 350, True),
        FileSpec(
            "prosody_caesura_scansion_english.json", "lat-pros", "meter", 41, True, paired=True
        ),
        FileSpec("prosody_caesura_scansion_latin.json", "lat-pros", "meter", 41, True, paired=True),
        FileSpec("prosody_feet_questions_english.json", "lat-pros", "feet", 20, True, paired=True),
        FileSpec("prosody_feet_questions_latin.json", "lat-pros", "feet", 20, True, paired=True),
        FileSpec("certamen_mc.json", "certamen", "multiple_choice", 315, False),
        FileSpec("certamen_short_answer.json", "certamen", "short_answer", 4596, False),
        FileSpec("certamen_translation_long.json", "certamen", "translation", 916, False),
    ]
    for year, other, rc in (("2015", 171, 103), ("2020", 173, 103), ("2025", 130, 176)):
        specs.append(
            FileSpec(f"nle_other_questions_{year}.json", "nle", "multiple_choice", other, False)
        )
        specs.append(
            FileSpec(
                f"nle_reading_comp_questions_{year}.json",
                "nle",
                "multiple_choice",
                rc,
                False,
                passages=f"nle_reading_comp_passages_{year}.json",
            )
        )
    return {s.name: s for s in specs}


FILES: dict[str, FileSpec] = _specs()
"""Every known upstream question file, by file name."""

PASSAGE_FILES = frozenset(s.passages for s in FILES.values() if s.passages)
PUBLIC_FILES = tuple(name for name, s in FILES.items() if s.public)
PRIVATE_FILES = tuple(name for name, s in FILES.items() if not s.public)

_LANG_SUFFIX = {"english": "en", "latin": "la"}
_WITH_INSTR = re.compile(r"_with_instr(?=\.json$)")


def canonical_file_name(name: str) -> str:
    """Map a file name used by the paper's response folders to the upstream file name.

    The paper saved the feet answers prompted with the list of feet as `..._with_instr.json`.
    """
    return _WITH_INSTR.sub("", Path(name).name)


@dataclass
class GoldSet:
    """Gold records read from one or more folders, with lookups by key and by id."""

    records: list[Record]
    files: list[str] = field(default_factory=list)
    unknown_files: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_key: dict[tuple[str, str], Record] = {}
        self.by_id: dict[str, Record] = {}
        qid_count: Counter[str] = Counter()
        for rec in self.records:
            if rec.key in self.by_key:
                raise InputError(
                    f"{rec.file}: item ({rec.question_id}, {rec.question_language}) "
                    f"also appears in {self.by_key[rec.key].file}"
                )
            if rec.id in self.by_id:
                raise InputError(
                    f"{rec.file}: id {rec.id} also appears in {self.by_id[rec.id].file}"
                )
            self.by_key[rec.key] = rec
            self.by_id[rec.id] = rec
            qid_count[rec.question_id] += 1
        self.by_question_id: dict[str, Record] = {
            r.question_id: r for r in self.records if qid_count[r.question_id] == 1
        }

    def __len__(self) -> int:
        return len(self.records)

    @property
    def has_private(self) -> bool:
        return any(r.is_private for r in self.records)

    def subset(self, keep) -> GoldSet:
        """A GoldSet of the records for which `keep(record)` is true."""
        return GoldSet(
            [r for r in self.records if keep(r)], list(self.files), list(self.unknown_files)
        )


def _str_list(value: Any, where: str, fld: str) -> list[str]:
    # options may be [], null or absent (PROTOCOL section 1)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: field {fld!r} must be a list of strings")
    return list(value)


def _opt_bool(value: Any, where: str, fld: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise InputError(f"{where}: field {fld!r} must be true, false or null")


def _choice(row: dict, fld: str, allowed: tuple[str, ...], where: str) -> str:
    value = row.get(fld)
    if value not in allowed:
        raise InputError(f"{where}: field {fld!r} must be one of {', '.join(allowed)}")
    return value


def _read_passages(path: Path) -> dict[Any, str]:
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of passages")
    passages: dict[Any, str] = {}
    for i, row in enumerate(data):
        if (
            not isinstance(row, dict)
            or "passage_id" not in row
            or not isinstance(row.get("text"), str)
        ):
            raise InputError(f"{path}: record {i} must be an object with passage_id and text")
        passages[row["passage_id"]] = row["text"]
    return passages


def _record(row: Any, spec: FileSpec, index: int, passages: dict[Any, str] | None) -> Record:
    where = f"{spec.name}: record {index}"
    if not isinstance(row, dict):
        raise InputError(f"{where}: expected a JSON object")
    qid = row.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise InputError(f"{where}: missing or non-string question_id")
    where = f"{spec.name}: record {index} (question_id {qid})"
    source_name = row.get("source_name")
    if SOURCE_NAMES.get(source_name) != spec.source:
        raise InputError(f"{where}: source_name does not belong in {spec.name}")
    # the question text is `question` in some files and `question_text` in others (PROTOCOL 1)
    question = row.get("question", row.get("question_text"))
    if not isinstance(question, str):
        raise InputError(f"{where}: missing question / question_text")
    answers = _str_list(row.get("answers"), where, "answers")
    if not answers:
        raise InputError(f"{where}: no gold answer")
    year = row.get("source_year")
    if not isinstance(year, int) or isinstance(year, bool):
        raise InputError(f"{where}: source_year must be an integer")
    content = _choice(row, "question_content", CONTENTS, where)
    qlang = _choice(row, "question_language", LANGUAGES, where)
    passage = None
    if passages is not None and row.get("passage_id") is not None:
        # NLE reading-comprehension questions point at a passage in a companion file
        if row["passage_id"] not in passages:
            raise InputError(f"{where}: passage_id not found in {spec.passages}")
        passage = passages[row["passage_id"]]
    rid = f"{qid}-{_LANG_SUFFIX[qlang]}" if spec.paired else qid
    return Record(
        id=rid,
        question_id=qid,
        question_language=qlang,
        answer_language=_choice(row, "answer_language", LANGUAGES, where),
        source=spec.source,
        source_name=source_name,
        source_year=year,
        task=spec.task,
        question_format=_choice(row, "question_format", FORMATS, where),
        question_content=content,
        category=category_of(content),
        difficulty=_choice(row, "difficulty", DIFFICULTIES, where),
        question=question,
        multiple_choice_options=_str_list(
            row.get("multiple_choice_options"), where, "multiple_choice_options"
        ),
        answers=answers,
        passage=passage,
        # multihop only in short-answer files, constrained only in translation files
        multihop=_opt_bool(row.get("multihop"), where, "multihop"),
        constrained=_opt_bool(row.get("constrained"), where, "constrained"),
        file=spec.name,
    )


def read_file(path: Path, spec: FileSpec | None = None) -> list[Record]:
    """Read one upstream question file (its passages file is looked up beside it)."""
    path = Path(path)
    spec = spec or FILES.get(path.name)
    if spec is None:
        raise InputError(f"{path}: not a known RespondeoQA file name")
    passages = None
    if spec.passages:
        ppath = path.with_name(spec.passages)
        if not ppath.exists():
            raise InputError(f"{path}: needs its passages file {spec.passages} in the same folder")
        passages = _read_passages(ppath)
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of records")
    return [_record(row, spec, i, passages) for i, row in enumerate(data)]


def read_folder(folder: str | Path, only: set[str] | None = None) -> GoldSet:
    """Read every known upstream file in `folder` (or only the names in `only`).

    Unknown `.json` files are not used; they are listed in `GoldSet.unknown_files`.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    records: list[Record] = []
    files: list[str] = []
    unknown: list[str] = []
    for path in sorted(folder.glob("*.json")):
        if path.name in PASSAGE_FILES:
            continue
        if path.name not in FILES:
            unknown.append(path.name)
            continue
        if only is not None and path.name not in only:
            continue
        records.extend(read_file(path))
        files.append(path.name)
    if not files:
        known = ", ".join(sorted(FILES)[:3])
        raise InputError(f"{folder}: no RespondeoQA files found (expected names like {known}, ...)")
    return GoldSet(records, files, unknown)
