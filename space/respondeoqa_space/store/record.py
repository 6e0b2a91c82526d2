"""The record's file format: one gzip'd JSON file per entry in the Hub dataset repo.

`entries/<file sha256>.json.gz` holds everything needed to restore and re-score an entry: its
metadata, its kept predictions (as rows), its report and per-item results. `index.json` holds
the largest entry id ever given out, so ids are never given twice, even after a withdrawal.

Everything read back from the Hub is treated as hostile: `unpack` refuses what is not gzip'd
JSON or decompresses past a size bound (a gzip bomb costs at most `MAX_RECORD_BYTES` of memory),
and `parse` checks every field (types, id range, hash against the path, metadata cleaned like a
submission's), so that a record file either becomes a `RecordEntry` or a one-line reason.
Scores are not trusted here: the Space re-derives them from the kept predictions
(`submission.verify_record`) before the entry is shown.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
import re
import zlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from types import SimpleNamespace
from typing import Any

from respondeoqa_eval import InputError, jsonl
from respondeoqa_eval.report import Report

from ..metadata import ModelInfo, TextLimits, clean_metadata
from ..rows import MAX_ENTRY_ID
from .evaluation import Evaluation, EvaluationError
from .models import PredictionRow

ENTRY_PREFIX = "entries/"
ENTRY_SUFFIX = ".json.gz"
INDEX_PATH = "index.json"
FORMAT = 2  # 1: predictions as base64 of zlib'd JSONL; 2: predictions as a list of rows
MAX_RECORD_BYTES = 128 * 1024 * 1024
"""A record file may decompress to at most this (a 50 MB upload's record is about 60 MB)."""
MAX_ROWS = 100_000  # the benchmark has 7,829 items


class RecordError(ValueError):
    """A record file that cannot become an entry; `str()` is the one-line reason."""


def entry_path(file_sha256: str) -> str:
    """Where an entry lives in the record: keyed by its file hash (idempotent)."""
    return f"{ENTRY_PREFIX}{file_sha256}{ENTRY_SUFFIX}"


def sha_of_path(path: str) -> str | None:
    """The file hash an `entries/<sha>.json.gz` path is keyed by; None for other files."""
    name = PurePosixPath(path).name
    if PurePosixPath(path).parent.as_posix() + "/" != ENTRY_PREFIX:
        return None
    if not name.endswith(ENTRY_SUFFIX):
        return None
    sha = name[: -len(ENTRY_SUFFIX)]
    return sha if re.fullmatch(r"[0-9a-f]{64}", sha) else None


def pack(data: dict[str, Any]) -> bytes:
    """A record dict as the bytes of its file (deterministic: sorted keys, no gzip time)."""
    # level 6: a third faster than 9 for 4% more bytes (a submitter waits for it)
    text = jsonl.dumps(data, sort_keys=True).encode("utf-8")
    return gzip.compress(text, compresslevel=6, mtime=0)


def unpack(blob: bytes, max_bytes: int | None = None) -> dict[str, Any]:
    """The dict of a record file; RecordError when it is not gzip'd JSON of an object or
    decompresses to more than `max_bytes` (MAX_RECORD_BYTES; a bomb never expands past it)."""
    max_bytes = MAX_RECORD_BYTES if max_bytes is None else max_bytes
    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # gzip framing
    try:
        raw = inflate.decompress(blob, max_bytes + 1)
    except zlib.error:
        raise RecordError("not a gzip file") from None
    if len(raw) > max_bytes or inflate.unconsumed_tail:
        raise RecordError(f"decompresses to more than {max_bytes // (1024 * 1024)} MB")
    if not inflate.eof:
        raise RecordError("truncated gzip file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RecordError("not valid JSON") from None
    if not isinstance(data, dict):
        raise RecordError("not a JSON object")
    return data


def pack_index(max_entry_id: int, owners: dict[int, str] | None = None) -> bytes:
    """The index: the largest id given out and, per id, the file hash of the entry the commit
    that first gave it out wrote (`owners`: an id belongs to that entry, whatever file names
    another writer picks later)."""
    data: dict[str, Any] = {"format": 1, "max_entry_id": max_entry_id}
    if owners:
        data["owners"] = {str(i): sha for i, sha in sorted(owners.items())}
    return jsonl.dumps(data).encode("utf-8")


def unpack_index(blob: bytes) -> tuple[int, dict[int, str]]:
    """The largest entry id the record has given out, and the owner of each id it names
    (RecordError when unreadable; owners that are not an id and a hash are left out)."""
    try:
        data = json.loads(blob.decode("utf-8"))
        value = data["max_entry_id"]
        raw = data.get("owners") or {}
    except (UnicodeDecodeError, ValueError, RecursionError, KeyError, TypeError, AttributeError):
        raise RecordError("unreadable index") from None
    owners: dict[int, str] = {}
    if isinstance(raw, dict):
        for key, sha in raw.items():
            if isinstance(key, str) and key.isascii() and key.isdigit():
                if isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha):
                    owners[int(key)] = sha
    return _entry_id(value), owners


MAX_INDEX_BYTES = 16 * 1024 * 1024  # about 80 bytes per id owned


@dataclass(frozen=True)
class RecordEntry:
    """A checked record file: an entry's metadata, kept predictions and claimed report."""

    id: int
    created: str
    model: str
    link: str
    params: str
    note: str
    file_name: str
    file_sha256: str
    submitter: str
    hidden: bool
    answers_extracted: bool
    gold_fingerprint: str
    info: ModelInfo
    flag: str
    rows: tuple[PredictionRow, ...]
    report: Report  # as the file claims it, items included; not trusted until verified
    evaluation: Evaluation | None = None  # the leaderboard's own run (verified entries)


def to_record(entry: Any, report: Report, rows: list[PredictionRow] | None) -> dict[str, Any]:
    """An entry (its slim report plus `report`'s items) as the dict of its record file; a
    verified entry's file also holds its `evaluation`."""
    data = {
        "format": FORMAT,
        "id": entry.id,
        "created": entry.created,
        "model": entry.model,
        "link": entry.link,
        "params": entry.params,
        "note": entry.note,
        "file_name": entry.file_name,
        "file_sha256": entry.file_sha256,
        "submitter": entry.submitter,
        "hidden": entry.hidden,
        "answers_extracted": entry.answers_extracted,
        "gold_fingerprint": entry.gold_fingerprint,
        "model_info": entry.info.to_dict(),
        "flag": entry.flag,
        "predictions": rows,
        "report": entry.report.to_dict(),
        "items": [i.to_dict() for i in report.items],
    }
    if getattr(entry, "evaluation", None) is not None:
        data["evaluation"] = entry.evaluation.to_dict()
    return data


def new_record(sub: Any, report: Report, entry_id: int, created: str) -> dict[str, Any]:
    """The record dict of a new entry (a `Submission` and its full report) given `entry_id`:
    the same file `to_record` makes of the entry once it is stored."""
    entry = SimpleNamespace(
        id=entry_id,
        created=created,
        hidden=False,
        flag="",
        report=report.without_items(),
        **{k: getattr(sub, k) for k in _SUBMISSION_FIELDS},
    )
    return to_record(entry, report, list(sub.rows) if sub.rows is not None else None)


_SUBMISSION_FIELDS = (
    "model", "link", "params", "note", "file_name", "file_sha256", "submitter",
    "answers_extracted", "gold_fingerprint", "info", "evaluation",
)  # fmt: skip


def _entry_id(value: Any) -> int:
    if type(value) is not int or not 1 <= value <= MAX_ENTRY_ID:
        raise RecordError(f"id: must be a whole number from 1 to {MAX_ENTRY_ID}")
    return value


def entry_id_of(data: dict[str, Any]) -> int | None:
    """The id a record dict claims, when it is a valid one (for id bookkeeping of files that
    fail later checks)."""
    try:
        return _entry_id(data.get("id"))
    except RecordError:
        return None


def _string(data: dict[str, Any], key: str, limit: int, *, required: bool = False) -> str:
    value = data.get(key, "")
    if value is None and not required:
        value = ""
    if not isinstance(value, str) or (required and not value):
        raise RecordError(f"{key}: must be {'a non-empty' if required else 'a'} string")
    if len(value) > limit:
        raise RecordError(f"{key}: longer than {limit} characters")
    return value


def _flag(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise RecordError(f"{key}: must be true or false")
    return value


def _rows(value: Any) -> tuple[PredictionRow, ...]:
    if isinstance(value, str):  # format 1: base64 of zlib'd JSONL
        try:
            text = zlib.decompressobj().decompress(base64.b64decode(value), MAX_RECORD_BYTES)
            value = jsonl.decode(text.decode("utf-8"), "predictions")
        except (binascii.Error, zlib.error, UnicodeDecodeError, InputError):
            raise RecordError("predictions: unreadable") from None
    if not isinstance(value, list) or not value:
        raise RecordError(
            "predictions: missing (an entry without kept predictions cannot be checked)"
        )
    if len(value) > MAX_ROWS:
        raise RecordError(f"predictions: more than {MAX_ROWS:,} rows")
    rows = []
    for row in value:
        keys = set(row) if isinstance(row, dict) else set()
        text_key = "answer" if "answer" in keys else "response"
        if keys != {"id", text_key} or not all(isinstance(row[k], str) for k in keys):
            raise RecordError(
                'predictions: every row must be {"id", "response"} or {"id", "answer"}'
            )
        rows.append({"id": row["id"], text_key: row[text_key]})
    return tuple(rows)


def parse(data: dict[str, Any], path: str, limits: TextLimits) -> RecordEntry:
    """The checked content of the record file at `path`; RecordError names what is wrong."""
    if data.get("format", 1) not in (1, FORMAT):
        raise RecordError(f"format: unknown ({str(data.get('format'))[:20]!r})")
    sha = sha_of_path(path)
    if sha is None or data.get("file_sha256") != sha:
        raise RecordError("file_sha256: does not match the file's name")
    created = _string(data, "created", 40, required=True)
    try:
        datetime.fromisoformat(created)
    except ValueError:
        raise RecordError("created: not an ISO date and time") from None
    try:
        meta = clean_metadata(
            data.get("model"),
            data.get("link"),
            data.get("params"),
            data.get("note"),
            limits,
            strict=False,
        )
        info = ModelInfo.from_dict(data.get("model_info"))
    except InputError as exc:
        raise RecordError(str(exc)) from None
    flag = " ".join(_string(data, "flag", 500).split())
    submitter = _string(data, "submitter", 100)
    if submitter and not re.fullmatch(r"[A-Za-z0-9][\w.\-]*", submitter):
        raise RecordError("submitter: not a Hugging Face username")
    fingerprint = _string(data, "gold_fingerprint", 64)
    if not re.fullmatch(r"[0-9a-f]*", fingerprint):
        raise RecordError("gold_fingerprint: not a hex digest")
    file_name = _string(data, "file_name", 255)
    if "/" in file_name or "\\" in file_name:
        raise RecordError("file_name: must be a bare file name")
    rows = _rows(data.get("predictions"))
    report_data, items = data.get("report"), data.get("items") or []
    if not isinstance(report_data, dict) or not isinstance(items, list):
        raise RecordError("report: missing")
    try:
        report = Report.from_dict({**report_data, "items": items})
    except Exception:  # hostile content: any failure of the typed model is the same refusal
        raise RecordError("report: unreadable") from None
    try:
        evaluation = (
            None if data.get("evaluation") is None else Evaluation.from_dict(data["evaluation"])
        )
    except EvaluationError as exc:
        raise RecordError(str(exc)) from None
    return RecordEntry(
        id=_entry_id(data.get("id")),
        created=created,
        model=meta.model,
        link=meta.link,
        params=meta.params,
        note=meta.note,
        file_name=file_name,
        file_sha256=sha,
        submitter=submitter,
        hidden=_flag(data, "hidden"),
        answers_extracted=_flag(data, "answers_extracted"),
        gold_fingerprint=fingerprint,
        info=info,
        flag=flag,
        rows=rows,
        report=report,
        evaluation=evaluation,
    )
