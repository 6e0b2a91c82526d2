"""The gold: `GoldSet` and the one loader ("the user's folder, else the pinned download").

The evaluator, the dataset export, the runner and the Space all load gold through `load_gold`.
Public files come from the user's folder when it has them, else from the pinned upstream
download (verified); Certamen and NLE files only ever come from the user's folder.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from .datadir import ENV_DATA_DIR as ENV_DATA_DIR
from .datadir import NoData, check_data_dir
from .datadir import resolve_data_dir as resolve_data_dir
from .fetch import fetch_public
from .records import Record
from .sources import FILES, PUBLIC_FILES, SOURCE_INFO, UPSTREAM_URL
from .upstream import read_records


@dataclass
class GoldSet:
    """Gold records read from one or more folders, with lookups by key and by id."""

    records: list[Record]
    files: list[str] = field(default_factory=list)
    unknown_files: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.by_key: dict[tuple[str, str], Record] = {r.key: r for r in self.records}
        self.by_id: dict[str, Record] = {r.id: r for r in self.records}
        if len(self.by_key) < len(self.records) or len(self.by_id) < len(self.records):
            _refuse_duplicates(self.records)
        qid_count = Counter(r.question_id for r in self.records)
        self.by_question_id: dict[str, Record] = {
            r.question_id: r for r in self.records if qid_count[r.question_id] == 1
        }

    def __len__(self) -> int:
        return len(self.records)

    @property
    def has_private(self) -> bool:
        return any(r.is_private for r in self.records)

    def fingerprint(self) -> str:
        """A short hash of these records (ids, files, tasks, answers, options): it changes when a
        gold file is corrected, so a score can say which gold it was computed against. A hash
        only: no gold text leaves the process."""
        h = hashlib.sha256()
        for rec in sorted(self.records, key=lambda r: r.id):
            row = [rec.id, rec.file, rec.task, list(rec.answers), list(rec.multiple_choice_options)]
            h.update(json.dumps(row, ensure_ascii=False).encode("utf-8") + b"\n")
        return h.hexdigest()[:16]

    def subset(self, keep: Callable[[Record], bool]) -> GoldSet:
        """A GoldSet of the records for which `keep(record)` is true."""
        return GoldSet(
            [r for r in self.records if keep(r)], list(self.files), list(self.unknown_files)
        )


def _refuse_duplicates(records: list[Record]) -> None:
    """The error for the first item whose key or id an earlier one has."""
    by_key: dict[tuple[str, str], Record] = {}
    by_id: dict[str, Record] = {}
    for rec in records:
        if rec.key in by_key:
            raise InputError(
                f"{rec.file}: item ({rec.question_id}, {rec.question_language}) "
                f"also appears in {by_key[rec.key].file}"
            )
        if rec.id in by_id:
            raise InputError(f"{rec.file}: id {rec.id} also appears in {by_id[rec.id].file}")
        by_key[rec.key] = rec
        by_id[rec.id] = rec


class MissingPrivateFiles(NoData):
    """Certamen / NLE files were asked for but the user's folder does not have them."""

    def __init__(self, missing: list[str], folder: Path | None) -> None:
        self.missing = missing
        sources = [
            s for s in SOURCE_INFO.values() if any(FILES[f].source == s.key for f in missing)
        ]
        origin = "; ".join(f"{s.label} files come from {s.publisher}" for s in sources)
        where = f"{folder} lacks {', '.join(missing)}" if folder else f"needs {', '.join(missing)}"
        super().__init__(
            f"{where}: these files are not redistributed. {origin}; the upstream README "
            f"({UPSTREAM_URL}) says how to obtain them",
            private=True,
        )


def files_in(folder: Path | None) -> set[str]:
    """The known upstream question files present in `folder` (none for no folder)."""
    if folder is None or not folder.is_dir():
        return set()
    return {p.name for p in folder.glob("*.json") if p.name in FILES}


def read_folder(folder: str | Path, only: set[str] | None = None) -> GoldSet:
    """Every known upstream file in `folder` (or only the names in `only`), as a GoldSet."""
    found = read_records(folder, only)
    return GoldSet(found.records, found.files, found.unknown_files)


def load_gold(
    data_dir: str | Path | None = None,
    *,
    files: Iterable[str] | None = None,
    with_public: bool = False,
    cache_dir: str | Path | None = None,
    base_url: str | None = None,
) -> GoldSet:
    """Load gold records.

    - `files` (upstream file names) given: exactly those files; public ones from the folder when
      it has them, else the pinned download; private ones from the folder, else
      `MissingPrivateFiles`;
    - no folder (argument or `$RESPONDEOQA_DATA_DIR`): the six public files, pinned download;
    - a folder: every known upstream file in it, as is; with `with_public=True` also the public
      files it lacks, from the pinned download (how the Space adds an operator's private files
      to the public data).

    Records come in file-name order, each file's rows in their upstream order.
    """
    folder = check_data_dir(data_dir)
    present = files_in(folder)
    if files is not None:
        wanted = set(files)
        unknown = sorted(wanted - set(FILES))
        if unknown:
            raise InputError(f"not RespondeoQA file names: {', '.join(unknown)}")
    elif folder is None:
        wanted = set(PUBLIC_FILES)
    else:
        wanted = present | (set(PUBLIC_FILES) if with_public else set())
    missing_private = sorted(f for f in wanted - present if not FILES[f].public)
    if missing_private:
        raise MissingPrivateFiles(missing_private, folder)
    local, fetched = wanted & present, wanted - present
    records: list[Record] = []
    names: list[str] = []
    unknown_files: list[str] = []
    if folder is not None and (local or files is None):
        found = read_records(folder, only=local)
        records, names, unknown_files = found.records, found.files, found.unknown_files
    if fetched:
        found = read_records(fetch_public(cache_dir, base_url), only=fetched)
        records += found.records
        names += found.files
    order = {name: i for i, name in enumerate(sorted(names))}
    records.sort(key=lambda r: order[r.file])  # stable: keeps each file's row order
    return GoldSet(records, sorted(names), unknown_files)
