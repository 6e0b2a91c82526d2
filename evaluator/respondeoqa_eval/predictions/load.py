"""Read a predictions file into {record id: prediction}, with clear errors for bad input.

Accepted layouts:
- JSONL (`.jsonl`) or CSV (`.csv`): one row per item, naming it by `id`, or by `question_id` and
  `question_language` (`question_id` alone where it is unique), with `response` (a raw model
  output, extracted by the paper's rules) or `answer` (already extracted, used as is). Other
  columns are ignored.
- The paper's layout: a folder of JSON files, or one JSON object, mapping upstream file name ->
  {question_id: raw response}. The file name tells the language version of the prosody
  questions; `..._with_instr.json` names the same file.
- Harness logs (harness_logs.py), told from their shape: lm-evaluation-harness
  `samples_<task>_<date>.jsonl` files and lighteval `details_<task>_<date>.parquet` files, one or
  several, or the output folder holding them. Items are matched by the id in each logged doc.

What a file says about its run (our runner's `model` / `params` / `prompt_version` columns, the
harness logs and their results files) is kept as `Predictions.provenance`.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import jsonl
from ..data.gold import GoldSet
from ..data.records import LANGUAGES, Record
from ..data.sources import FILES
from ..data.upstream import canonical_file_name
from ..errors import InputError
from ..io import decode_utf8, parse_json
from .provenance import RUNNER, Provenance, clean_params, clean_text

MAX_SHOWN = 5


def show(value: Any, limit: int = 60) -> str:
    """A user-supplied value, quoted and cut short, safe to put in an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Prediction:
    """One prediction: a raw `response` to extract from, or an `answer` used as is."""

    text: str
    extracted: bool = False  # True: `text` is an already extracted answer


@dataclass
class Predictions:
    """Predictions keyed by gold record id."""

    by_id: dict[str, Prediction] = field(default_factory=dict)
    origin: str = "<predictions>"
    files: set[str] = field(default_factory=set)  # upstream files the predictions cover
    provenance: Provenance | None = None  # what the file says about its run, if anything
    opaque_rows: int = 0  # rows naming an opaque identifier (`load_predictions(opaque=...)`)

    def __len__(self) -> int:
        return len(self.by_id)


Opaque = Callable[[str], bool]
"""Whether an item identifier (an id or a question_id, as given) is one the caller must not
confirm or deny: its rows are only counted, never named, and an unknown or repeated one is
one `OpaqueIdsError` (the leaderboard: identifiers that do not look like public ones)."""


class OpaqueIdsError(InputError):
    """Some rows name opaque identifiers that are not items of the gold, or name one twice;
    `rows` is how many rows name opaque identifiers (the message says no more); `provenance`
    what the file says about its run, as it would have been read."""

    def __init__(self, origin: str, rows: int, provenance: Provenance | None = None) -> None:
        self.origin = origin
        self.rows = rows
        self.provenance = provenance
        super().__init__(
            f"{origin}: {rows} row(s) name items that are not public items, and not all of "
            "them are items of the gold data, each given once"
        )


class _Collector:
    """Resolve rows to gold records, catching duplicates and unknown ids."""

    def __init__(self, gold: GoldSet, origin: str, opaque: Opaque | None = None) -> None:
        self.gold = gold
        self.origin = origin
        self.opaque = opaque
        self.preds = Predictions(origin=origin)
        self.where: dict[str, str] = {}
        self.unknown: list[str] = []
        self.opaque_problem = False
        self.provenance = Provenance()

    def note(self, provenance: Provenance) -> None:
        self.provenance = self.provenance.merge(provenance)

    def is_opaque(self, key: str | None) -> bool:
        return self.opaque is not None and key is not None and self.opaque(key)

    def add(
        self, record: Record | None, pred: Prediction, where: str, name: str, key: str | None
    ) -> None:
        """`key`: the identifier as given (id or question_id)."""
        if self.is_opaque(key):
            self.preds.opaque_rows += 1
            if record is None or record.id in self.preds.by_id:
                self.opaque_problem = True  # neither confirmed nor denied: counted only
                return
        if record is None:
            self.unknown.append(f"{name} ({where})")
            return
        if record.id in self.preds.by_id:
            raise InputError(
                f"{self.origin}: {where}: item {show(record.id)} was already given at {self.where[record.id]}"
            )
        self.preds.by_id[record.id] = pred
        self.where[record.id] = where

    def finish(self) -> Predictions:
        if self.opaque_problem:
            provenance = None if self.provenance.is_empty() else self.provenance
            raise OpaqueIdsError(self.origin, self.preds.opaque_rows, provenance)
        if self.unknown:
            shown = ", ".join(self.unknown[:MAX_SHOWN])
            more = (
                f" and {len(self.unknown) - MAX_SHOWN} more"
                if len(self.unknown) > MAX_SHOWN
                else ""
            )
            raise InputError(
                f"{self.origin}: {len(self.unknown)} prediction(s) name items that are not in the gold "
                f"data ({', '.join(self.gold.files)}): {shown}{more}"
            )
        if not self.preds.by_id:
            raise InputError(f"{self.origin}: no predictions found")
        self.preds.files = {self.gold.by_id[i].file for i in self.preds.by_id}
        if not self.provenance.is_empty():
            self.preds.provenance = self.provenance
        return self.preds


def _decode(raw: bytes, origin: str) -> str:
    if not raw.strip():
        raise InputError(f"{origin}: the file is empty")
    return decode_utf8(raw, origin)


def _string_field(row: Mapping[str, Any], name: str, where: str, origin: str) -> str | None:
    value = row.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(
            f"{origin}: {where}: {name!r} must be a string, not {type(value).__name__}"
        )
    return value


def _resolve_row(row: Mapping[str, Any], where: str, col: _Collector, blank_is_none: bool) -> None:
    origin = col.origin

    def get(name: str) -> str | None:
        value = row.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            _string_field(row, name, where, origin)  # raises the InputError
        return None if blank_is_none and value == "" else value

    response, answer = get("response"), get("answer")
    if response is None and answer is None:
        raise InputError(
            f"{origin}: {where}: needs a 'response' (raw output) or an 'answer' (extracted)"
        )
    if response is not None and answer is not None:
        raise InputError(f"{origin}: {where}: give either 'response' or 'answer', not both")
    pred = Prediction(answer, True) if answer is not None else Prediction(response or "", False)
    rid, qid, qlang = get("id"), get("question_id"), get("question_language")
    gold = col.gold
    if rid is not None:
        record = gold.by_id.get(rid)
        col.add(record, pred, where, "" if record is not None else f"id {show(rid)}", rid)
    elif qid is not None and qlang is not None:
        if qlang not in LANGUAGES:
            raise InputError(f"{origin}: {where}: question_language must be 'english' or 'latin'")
        col.add(gold.by_key.get((qid, qlang)), pred, where, f"({show(qid)}, {qlang})", qid)
    elif qid is not None:
        record = gold.by_question_id.get(qid)
        if (
            record is None
            and not col.is_opaque(qid)
            and any(r.question_id == qid for r in gold.by_key.values())
        ):
            raise InputError(
                f"{origin}: {where}: question_id {show(qid)} exists in both languages; "
                "add question_language or use the id"
            )
        col.add(record, pred, where, f"question_id {show(qid)}", qid)
    else:
        raise InputError(f"{origin}: {where}: needs 'id', or 'question_id' (+ 'question_language')")


def _jsonl_objects(text: str, origin: str, label: str = "") -> list[tuple[int, dict[str, Any]]]:
    out = []
    where = f"{origin}: {label}".rstrip(": ")
    for lineno, line in jsonl.lines(text):
        row = parse_json(line, where, lineno)
        if not isinstance(row, dict):
            raise InputError(f"{origin}: {label}line {lineno}: expected a JSON object")
        out.append((lineno, row))
    return out


def _note_runner_row(row: Mapping[str, Any], col: _Collector) -> None:
    """Our runner writes `model`, `params`, `prompt_version` and `tool_version` on every row."""
    if not any(k in row for k in ("model", "params", "prompt_version")):
        return
    version = clean_text(row.get("prompt_version"))
    ours = bool(version and "params" in row)
    col.note(
        Provenance(
            tool=RUNNER if ours else None,
            tool_version=clean_text(row.get("tool_version")) if ours else None,
            model=clean_text(row.get("model")),
            params=clean_params(row.get("params")),
            prompt_version=version,
        )
    )


def _csv_rows(text: str, origin: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    # a cell may be as long as the file (the upload limit bounds it); the limit is global to the
    # csv module, so it is only ever raised, never lowered under a concurrent reader
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames or not ({"response", "answer"} & set(reader.fieldnames)):
        raise InputError(
            f"{origin}: the CSV header needs a 'response' or an 'answer' column; "
            f"it has {_columns_found(reader.fieldnames)}"
        )
    try:
        for row in reader:
            if None in row:
                raise InputError(
                    f"{origin}: line {reader.line_num}: more cells than header columns"
                )
            yield f"line {reader.line_num}", row
    except csv.Error as exc:
        raise InputError(f"{origin}: line {reader.line_num}: malformed CSV ({exc})") from None


CSV_COLUMNS_SHOWN = 8
"""Columns of a wrong CSV header named in its error (the rest counted)."""


def _columns_found(names: Sequence[str] | None) -> str:
    """The columns a CSV header has, as an error message says them: "no columns", or each
    name quoted and cut short (`show`), at most `CSV_COLUMNS_SHOWN` of them."""
    if not names:
        return "no columns"
    shown = ", ".join(show(n, 40) for n in names[:CSV_COLUMNS_SHOWN])
    more = len(names) - CSV_COLUMNS_SHOWN
    word = "columns" if len(names) > 1 else "column"
    return f"the {word} {shown}" + (f" and {more} more" if more > 0 else "")


def _paper_layout(mapping: Mapping[str, Any], origin: str, col: _Collector) -> None:
    """{upstream file name: {question_id: raw response}} (the paper's response folders)."""
    by_file_qid = {(r.file, r.question_id): r for r in col.gold.records}
    for fname, answers in mapping.items():
        name = canonical_file_name(fname)
        if name not in FILES:
            raise InputError(f"{origin}: {show(fname)} is not a RespondeoQA file name")
        if name not in col.gold.files:
            raise InputError(
                f"{origin}: predictions for {name}, which is not in the gold data; "
                "pass --data-dir with a folder that has it"
            )
        if not isinstance(answers, dict):
            raise InputError(f"{origin}: {fname}: expected an object {{question_id: response}}")
        for qid, response in answers.items():
            where = f"{fname}, question_id {show(qid)}"
            if not isinstance(response, str):
                raise InputError(
                    f"{origin}: {where}: the response must be a string, not {type(response).__name__}"
                )
            col.add(by_file_qid.get((name, qid)), Prediction(response), where, show(qid), qid)


def _from_rows(
    rows: Iterable[tuple[str, Mapping[str, Any]]], col: _Collector, blank_is_none: bool
) -> None:
    first = True
    for where, row in rows:
        if first:
            _note_runner_row(row, col)
            first = False
        _resolve_row(row, where, col, blank_is_none)


SUFFIXES = (".jsonl", ".csv", ".json", ".parquet")


def _suffix(path: Path) -> str:
    """The extension, also of a name that is only a dot and an extension (".jsonl")."""
    name = path.name.lower()
    return path.suffix.lower() or (name if name in SUFFIXES else "")


def _hidden(path: Path, root: Path) -> bool:
    """Dot files and folders under `root` (".DS_Store", macOS "._x.json", ".ipynb_checkpoints")."""
    return any(part.startswith(".") for part in path.relative_to(root).parts)


def _harness_logs(folder: Path) -> list[Path]:
    from .harness_logs import DETAILS_NAME, SAMPLES_NAME

    found = [
        p
        for pattern in ("samples_*.jsonl", "details_*.parquet")
        for p in folder.rglob(pattern)
        if p.is_file() and not _hidden(p, folder)
    ]
    return sorted(p for p in found if SAMPLES_NAME.match(p.name) or DETAILS_NAME.match(p.name))


def _read_file(path: Path, col: _Collector, label: str = "") -> None:
    """Add the predictions of one file; `label` names it inside `col.origin` ("" if it is it)."""
    origin = col.origin
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    suffix = _suffix(path)
    if suffix not in SUFFIXES:
        raise InputError(
            f"{origin}: {label}unsupported extension {show(path.suffix)}; use .jsonl, .csv or .json "
            "(or an lm-eval samples .jsonl / lighteval details .parquet)"
        )
    if suffix == ".parquet":
        from .harness_logs import lighteval_rows

        rows, provenance = lighteval_rows(path, origin, label)
        col.note(provenance)
        _from_rows(rows, col, blank_is_none=False)
        return
    text = _decode(path.read_bytes(), f"{origin}: {label}".rstrip(": "))
    if suffix == ".jsonl":
        lines = _jsonl_objects(text, origin, label)
        if lines and _is_lm_eval(lines[0][1]):
            from .harness_logs import lm_eval_provenance, lm_eval_rows

            col.note(lm_eval_provenance(path, lines))
            _from_rows(lm_eval_rows(lines, path.name, origin, label), col, blank_is_none=False)
        else:
            _from_rows(((f"{label}line {n}", r) for n, r in lines), col, blank_is_none=False)
    elif suffix == ".csv":
        _from_rows(_csv_rows(text, f"{origin}: {label}".rstrip(": ")), col, blank_is_none=True)
    else:
        data = parse_json(text, f"{origin}: {label}".rstrip(": "))
        if isinstance(data, dict) and canonical_file_name(path.name) in FILES:
            data = {path.name: data}  # one file of the paper's response folder
        if isinstance(data, dict):
            _paper_layout(data, origin, col)
        elif isinstance(data, list):
            rows = []
            for i, row in enumerate(data):
                if not isinstance(row, dict):
                    raise InputError(f"{origin}: {label}element {i}: expected an object")
                rows.append((f"{label}element {i}", row))
            _from_rows(rows, col, blank_is_none=False)
        else:
            raise InputError(
                f"{origin}: {label}expected a JSON object (paper layout) or a list of rows"
            )


def _is_lm_eval(row: Mapping[str, Any]) -> bool:
    from .harness_logs import looks_like_lm_eval_sample

    return looks_like_lm_eval_sample(row)


def _read_folder(path: Path, col: _Collector) -> None:
    logs = _harness_logs(path)
    if logs:
        for log in logs:
            _read_file(log, col, f"{log.relative_to(path)}: ")
        return
    files = sorted(p for p in path.glob("*.json") if not _hidden(p, path))
    if not files:
        raise InputError(
            f"{col.origin}: folder has no .json files of the paper's layout, and no lm-eval "
            "samples_*.jsonl or lighteval details_*.parquet files"
        )
    mapping: dict[str, Any] = {}
    for fpath in files:
        mapping[fpath.name] = parse_json(_decode(fpath.read_bytes(), fpath.name), fpath.name)
    _paper_layout(mapping, col.origin, col)


def _origin(paths: list[Path]) -> str:
    names = [p.name or str(p) for p in paths]
    if len(names) <= 3:
        return ", ".join(names)
    return f"{', '.join(names[:2])} and {len(names) - 2} more files"


def load_predictions(
    source: str | Path | Mapping | list, gold: GoldSet, *, opaque: Opaque | None = None
) -> Predictions:
    """Read predictions from a path (file or folder), several paths (a list of them), a
    paper-layout mapping or a list of rows. `opaque` (the leaderboard's): identifiers whose
    rows are counted, never named (`Opaque`)."""
    if isinstance(source, Mapping):
        col = _Collector(gold, "<predictions>", opaque)
        _paper_layout(source, col.origin, col)
        return col.finish()
    if (
        isinstance(source, list | tuple)
        and source
        and all(isinstance(s, str | os.PathLike) for s in source)
    ):
        paths = [Path(s) for s in source]
        col = _Collector(gold, _origin(paths), opaque)
        for path in paths:
            label = "" if len(paths) == 1 else f"{path.name}: "
            if path.is_dir():
                _read_folder(path, col) if len(paths) == 1 else _read_folder_in(path, col, label)
            else:
                _read_file(path, col, label)
        return col.finish()
    if isinstance(source, list):
        col = _Collector(gold, "<predictions>", opaque)
        for i, row in enumerate(source):
            if not isinstance(row, Mapping):
                raise InputError(f"<predictions>: row {i}: expected an object")
        _from_rows(((f"row {i}", r) for i, r in enumerate(source)), col, blank_is_none=False)
        return col.finish()
    return load_predictions([source], gold, opaque=opaque)


def _read_folder_in(path: Path, col: _Collector, label: str) -> None:
    """A folder given among several paths: only harness logs (the paper's layout is one folder)."""
    logs = _harness_logs(path)
    if not logs:
        raise InputError(f"{col.origin}: {label}folder has no lm-eval or lighteval logs")
    for log in logs:
        _read_file(log, col, f"{label}{log.relative_to(path)}: ")
