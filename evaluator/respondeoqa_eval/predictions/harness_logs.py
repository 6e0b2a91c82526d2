"""Per-sample logs of other harnesses as predictions rows, plus what they say about their run.

- lm-evaluation-harness (`--log_samples`): `<output>/<model>/samples_<task>_<date>.jsonl`, one JSON
  object per document and filter with `doc_id`, `doc` (our dataset row, so its `id`), `arguments`
  (the prompt and the generation kwargs), `resps` (raw generations, one list per request),
  `filtered_resps`, `filter`, ... and beside it `results_<date>.json` (model, lm_eval_version).
  Written by `EvaluationTracker.save_results_samples` (lm_eval/loggers/evaluation_tracker.py) and
  assembled in `lm_eval/evaluator.py` (lm_eval 0.4.13).
- lighteval (`--save-details`): `<output>/details/<model>/<date>/details_<task>_<date>.parquet`
  with columns `doc` (lighteval `Doc`: query, choices, gold_index, specific, ...),
  `model_response` (`ModelResponse`: text, ...) and `metric`; beside `details/` a
  `results/<model>/results_<date>.json`. Written by `EvaluationTracker.save`
  (lighteval/logging/evaluation_tracker.py, lighteval 0.13.0). Our ids are read from
  `doc.specific` (`id`, or `question_id` + `question_language`).

The raw generation (`resps[0][0]`, `model_response.text[0]`) is what gets scored, with the
paper's extraction; whatever the harness filtered or scored itself is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..data.harness_tasks import LIGHTEVAL_SUITES, TASKS, lighteval_task_names
from ..errors import InputError
from ..io import decode_utf8, parse_json
from .provenance import LIGHTEVAL, LM_EVAL, Provenance, clean_params, clean_text

Row = tuple[str, dict[str, Any]]

_DATE = r"\d{4}-\d{2}-\d{2}T[0-9.\-]+"
SAMPLES_NAME = re.compile(rf"^samples_(?P<task>.+)_(?P<date>{_DATE})\.jsonl$")
DETAILS_NAME = re.compile(rf"^details_(?P<task>.+)_(?P<date>{_DATE})\.parquet$")

_ID_KEYS = ("id", "question_id", "question_language")


def looks_like_lm_eval_sample(row: Any) -> bool:
    """True for a line of an lm-eval samples file (it always has `doc_id` and `doc`)."""
    return isinstance(row, dict) and "doc_id" in row and "doc" in row


def _id_fields(doc: Any) -> dict[str, Any]:
    if not isinstance(doc, Mapping):
        return {}
    return {k: doc[k] for k in _ID_KEYS if isinstance(doc.get(k), str)}


_OUR_TASKS = frozenset(TASKS) | {
    t for suite in LIGHTEVAL_SUITES for t in lighteval_task_names(suite)
}


def _other_task(task: str | None, what: str) -> str:
    if task and task.split("|")[0] not in _OUR_TASKS:
        return f"; this is a {what} of task {task!r}, not a RespondeoQA task"
    return f"; is this a {what} of another task?"


def _first_text(value: Any) -> str | None:
    """The first string of a list (or of its first list): the first raw generation."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


# -- lm-evaluation-harness -------------------------------------------------------------------


def lm_eval_rows(
    lines: list[tuple[int, dict[str, Any]]], name: str, origin: str, label: str = ""
) -> Iterator[Row]:
    """Predictions rows from the parsed lines of one samples file.

    `lines`: (line number, object); `name`: the file name (it tells the task); errors name
    `origin` and, inside it, `label` ("" when the origin is the file itself).
    """
    match = SAMPLES_NAME.match(name)
    task = match["task"] if match else None
    seen: dict[Any, Any] = {}
    for lineno, row in lines:
        where = f"{label}line {lineno}"
        err = f"{origin}: {where}"
        if not looks_like_lm_eval_sample(row):
            raise InputError(f"{err}: not an lm-eval sample (needs 'doc_id' and 'doc')")
        doc_id, flt = row.get("doc_id"), row.get("filter")
        key = repr(doc_id)
        if key in seen and seen[key] != flt:
            continue  # the same document logged again under another filter: same generations
        seen[key] = flt
        ids = _id_fields(row["doc"])
        if not ids:
            raise InputError(
                f"{err}: the logged doc has no RespondeoQA 'id'{_other_task(task, 'samples file')}"
            )
        if "resps" not in row:
            raise InputError(f"{err}: no 'resps' (the model's generations) in this lm-eval sample")
        response = _first_text(row["resps"])
        if response is None:
            raise InputError(f"{err}: 'resps' must hold the generated text as [[\"...\"]]")
        yield where, {**ids, "response": response}


def _results_json(folder: Path, date: str) -> Mapping[str, Any]:
    path = folder / f"results_{date}.json"
    if not path.is_file():
        return {}
    try:
        data = parse_json(decode_utf8(path.read_bytes(), path.name), path.name)
    except (InputError, OSError):
        return {}  # the provenance is a courtesy: a broken results file never blocks scoring
    return data if isinstance(data, Mapping) else {}


def lm_eval_provenance(path: Path, lines: list[tuple[int, dict[str, Any]]]) -> Provenance:
    """Model, generation kwargs, prompt version and lm-eval version of one samples file."""
    match = SAMPLES_NAME.match(path.name)
    first = lines[0][1] if lines else {}
    args = first.get("arguments")
    gen = {}
    if isinstance(args, Mapping):
        first_args = args.get("gen_args_0")
        if isinstance(first_args, Mapping):
            gen = clean_params(first_args.get("arg_1"))
    doc = first.get("doc")
    doc = doc if isinstance(doc, Mapping) else {}
    results = _results_json(path.parent, match["date"]) if match else {}
    config = results.get("config")
    config = config if isinstance(config, Mapping) else {}
    model_args = config.get("model_args")
    model = clean_text(results.get("model_name"))
    if model is None and isinstance(model_args, Mapping):
        model = clean_text(model_args.get("pretrained") or model_args.get("model"))
    return Provenance(
        tool=LM_EVAL,
        tool_version=clean_text(results.get("lm_eval_version")),
        model=model,
        params=gen,
        prompt_version=clean_text(doc.get("prompt_version")),
        tasks=(match["task"],) if match else (),
    )


# -- lighteval -------------------------------------------------------------------------------


def _read_parquet(path: Path, name: str):
    try:
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise InputError(
            f"{name}: reading lighteval details (.parquet) needs pyarrow: pip install pyarrow"
        ) from None
    try:
        return pq.read_table(path)
    except Exception as exc:  # pyarrow raises many types for a damaged or foreign file
        raise InputError(f"{name}: not a readable Parquet file ({type(exc).__name__})") from None


def lighteval_rows(path: Path, origin: str, label: str = "") -> tuple[list[Row], Provenance]:
    """Predictions rows and provenance of one lighteval details file.

    Errors name `origin` and, inside it, `label` ("" when the origin is the file itself).
    """
    name = f"{origin}: {label}".rstrip(": ")
    table = _read_parquet(path, name)
    for column in ("doc", "model_response"):
        if column not in table.column_names:
            raise InputError(
                f"{name}: no {column!r} column: not a lighteval details file "
                f"(columns: {', '.join(map(repr, table.column_names[:8]))})"
            )
    match = DETAILS_NAME.match(path.name)
    task = match["task"] if match else None
    docs = table.column("doc").to_pylist()
    responses = table.column("model_response").to_pylist()
    rows: list[Row] = []
    for number, (doc, response) in enumerate(zip(docs, responses, strict=True), 1):
        where = f"{label}row {number}"
        specific = doc.get("specific") if isinstance(doc, Mapping) else None
        ids = _id_fields(specific)
        if not ids:
            raise InputError(
                f"{origin}: {where}: the doc's 'specific' has no RespondeoQA 'id'"
                f"{_other_task(task, 'details file')}"
            )
        text = _first_text(response.get("text")) if isinstance(response, Mapping) else None
        if text is None:
            raise InputError(f"{origin}: {where}: model_response has no generated 'text'")
        rows.append((where, {**ids, "response": text}))
    return rows, _lighteval_provenance(path, task, match["date"] if match else None)


def _lighteval_provenance(path: Path, task: str | None, date: str | None) -> Provenance:
    model = params = None
    # <output>/details/<model, may hold a slash>/<date>/details_<task>_<date>.parquet
    parts = path.resolve().parts
    if date and "details" in parts[:-2] and parts[-2] == date:
        top = len(parts) - 1 - parts[::-1].index("details")
        model_parts = parts[top + 1 : -2]
        model = "/".join(model_parts) or None
        results = Path(*parts[:top], "results", *model_parts, f"results_{date}.json")
        data = _results_json(results.parent, date) if results.is_file() else {}
        general = data.get("config_general") if isinstance(data, Mapping) else None
        if isinstance(general, Mapping):
            model = clean_text(general.get("model_name")) or model
            config = general.get("model_config")
            if isinstance(config, Mapping):
                params = clean_params(config.get("generation_parameters"))
    return Provenance(
        tool=LIGHTEVAL,
        model=clean_text(model),
        params=params or {},
        tasks=(task,) if task else (),
    )
