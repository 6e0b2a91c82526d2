"""Read upstream-format folders (PROTOCOL section 1) into unified records.

This is the only reader of upstream files in the project: the gold loader (`gold.py`), and
through it the evaluator, the dataset builder, the Space and the runner, read files here. What
the files are (source, task, size, checksum) is in the source table, `sources.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..io import read_json
from .records import (
    CONTENTS,
    DIFFICULTIES,
    FORMATS,
    LANGUAGES,
    Record,
    category_of,
    record_of,
)
from .sources import FILES, PASSAGE_FILES, SOURCE_NAMES, FileSpec

_LANG_SUFFIX = {"english": "en", "latin": "la"}
_PAIRED = {(spec.source, spec.task) for spec in FILES.values() if spec.paired}
_WITH_INSTR = re.compile(r"_with_instr(?=\.json$)")


def canonical_file_name(name: str) -> str:
    """Map a file name used by the paper's response folders to the upstream file name.

    The paper saved the feet answers prompted with the list of feet as `..._with_instr.json`.
    """
    return _WITH_INSTR.sub("", Path(name).name)


def item_id(question_id: str, question_language: str, paired: bool) -> str:
    """An item's id: its question_id, with "-en" / "-la" for the questions that exist in both
    languages (the prosody files, `FileSpec.paired`): (question_id, question_language) is the
    unique key (PROTOCOL 1), and the id must be unique too."""
    return f"{question_id}-{_LANG_SUFFIX[question_language]}" if paired else question_id


def question_id_of(item_id: str, question_language: str, source: str, task: str) -> str:
    """The question_id of an item id (the inverse of `item_id`), for results that keep only the
    id, the source, the task and the language."""
    suffix = f"-{_LANG_SUFFIX.get(question_language, '')}"
    if (source, task) in _PAIRED and item_id.endswith(suffix) and len(suffix) > 1:
        return item_id[: -len(suffix)]
    return item_id


class _Bad(ValueError):
    """A record's field fails its check; `_record` adds where (the file, the record and its
    question_id), built only then (formatted for every record, it was 4% of reading)."""


def _str_list(value: Any, fld: str) -> list[str]:
    # options may be [], null or absent (PROTOCOL section 1)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Bad(f"field {fld!r} must be a list of strings")
    return list(value)


def _opt_bool(value: Any, fld: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise _Bad(f"field {fld!r} must be true, false or null")


def _choice(row: dict, fld: str, allowed: tuple[str, ...]) -> str:
    value = row.get(fld)
    if value not in allowed:
        raise _Bad(f"field {fld!r} must be one of {', '.join(allowed)}")
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


def _where(row: Any, spec: FileSpec, index: int) -> str:
    """Where a record is, for its error: the file and the record, and its question_id once
    that is checked (a non-empty string)."""
    qid = row.get("question_id") if isinstance(row, dict) else None
    where = f"{spec.name}: record {index}"
    return f"{where} (question_id {qid})" if isinstance(qid, str) and qid else where


def _record(row: Any, spec: FileSpec, index: int, passages: dict[Any, str] | None) -> Record:
    try:
        return _checked(row, spec, passages)
    except _Bad as bad:
        raise InputError(f"{_where(row, spec, index)}: {bad}") from None


def _checked(row: Any, spec: FileSpec, passages: dict[Any, str] | None) -> Record:
    """The record of one upstream row, every field checked (`_Bad` names the field)."""
    if not isinstance(row, dict):
        raise _Bad("expected a JSON object")
    qid = row.get("question_id")
    if not isinstance(qid, str) or not qid:
        raise _Bad("missing or non-string question_id")
    source_name = row.get("source_name")
    if not isinstance(source_name, str) or SOURCE_NAMES.get(source_name) != spec.source:
        raise _Bad(f"source_name does not belong in {spec.name}")
    # the question text is `question` in some files and `question_text` in others (PROTOCOL 1)
    question = row.get("question", row.get("question_text"))
    if not isinstance(question, str):
        raise _Bad("missing question / question_text")
    answers = _str_list(row.get("answers"), "answers")
    if not answers:
        raise _Bad("no gold answer")
    year = row.get("source_year")
    if not isinstance(year, int) or isinstance(year, bool):
        raise _Bad("source_year must be an integer")
    content = _choice(row, "question_content", CONTENTS)
    qlang = _choice(row, "question_language", LANGUAGES)
    passage = None
    if passages is not None and row.get("passage_id") is not None:
        # NLE reading-comprehension questions point at a passage in a companion file
        if row["passage_id"] not in passages:
            raise _Bad(f"passage_id not found in {spec.passages}")
        passage = passages[row["passage_id"]]
    return record_of(
        {
            "id": item_id(qid, qlang, spec.paired),
            "question_id": qid,
            "question_language": qlang,
            "answer_language": _choice(row, "answer_language", LANGUAGES),
            "source": spec.source,
            "source_name": source_name,
            "source_year": year,
            "task": spec.task,
            "question_format": _choice(row, "question_format", FORMATS),
            "question_content": content,
            "category": category_of(content),
            "difficulty": _choice(row, "difficulty", DIFFICULTIES),
            "question": question,
            "multiple_choice_options": _str_list(
                row.get("multiple_choice_options"), "multiple_choice_options"
            ),
            "answers": answers,
            "passage": passage,
            # multihop only in short-answer files, constrained only in translation files
            "multihop": _opt_bool(row.get("multihop"), "multihop"),
            "constrained": _opt_bool(row.get("constrained"), "constrained"),
            "file": spec.name,
        }
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


@dataclass(frozen=True)
class FolderContents:
    """What `read_records` found in a folder."""

    records: list[Record]
    files: list[str]  # known question files read, in name order
    unknown_files: list[str]  # other `.json` files, not used


def read_records(folder: str | Path, only: set[str] | None = None) -> FolderContents:
    """Read every known upstream file in `folder` (or only the names in `only`).

    Unknown `.json` files are not used; they are listed in `unknown_files`. `gold.read_folder`
    wraps this into a `GoldSet`.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    paths: list[Path] = []
    unknown: list[str] = []
    for path in sorted(folder.glob("*.json")):
        if path.name in PASSAGE_FILES:
            continue
        if path.name not in FILES:
            unknown.append(path.name)
            continue
        if only is not None and path.name not in only:
            continue
        paths.append(path)
    if not paths:
        known = ", ".join(sorted(FILES)[:3])
        raise InputError(f"{folder}: no RespondeoQA files found (expected names like {known}, ...)")
    records = [rec for path in paths for rec in read_file(path)]
    return FolderContents(records, [path.name for path in paths], unknown)
