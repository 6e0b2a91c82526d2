"""The lm-evaluation-harness task: documents, the paper's prompt and scores, all from respondeoqa_eval.

The YAML files in `lm_eval_tasks/` name these functions through that folder's `utils.py`. Every
number lm-eval prints comes from here: `acc` is the per-item score of `scoring.score_one` (its mean
over the task is the paper's accuracy), `bleu_<language>` is `metrics.corpus_bleu` over the task's
translation items with that target language (the paper's padded BLEU), and
`bleu_<language>_variable_refs` is the same corpus without the padding.

Where the documents come from, in this order: `--metadata '{"dataset": ...}'` or
`$RESPONDEOQA_DATASET` (a folder written by `respondeoqa-eval dataset build`, or a Hub dataset
repo id), else the upstream files (`--metadata '{"data_dir": ...}'`, `$RESPONDEOQA_DATA_DIR`, else
the pinned public download). Certamen and NLE tasks need your own export or files.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..configs import CONFIGS
from ..datadir import LM_EVAL_OPTION, NoData
from ..errors import InputError
from ..metrics import corpus_bleu
from ..records import Record
from ..runner.prompts import PROMPT_VERSION, SYSTEM_PROMPT, user_prompt
from ..scoring import score_one

DATASET_ENV = "RESPONDEOQA_DATASET"
"""A dataset export folder or Hub repo id for the lm-eval tasks (or `--metadata` key `dataset`)."""

SPLIT = "test"

# columns added to every document: the system message (the task's `description` renders it, so
# `--apply_chat_template` sends exactly the paper's two messages) and the prompt version, which
# every logged sample then carries
EXTRA_COLUMNS = ("system_prompt", "prompt_version")

_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(Record))


def record_from_doc(doc: Mapping[str, Any]) -> Record:
    """The Record behind a document (a row of the dataset export, extra columns ignored)."""
    missing = [f for f in ("id", "task", "answers", "answer_language") if f not in doc]
    if missing:
        raise InputError(
            f"document {doc.get('doc_id', '')!s}: not a RespondeoQA row (no {', '.join(missing)})"
        )
    values = {k: doc[k] for k in _RECORD_FIELDS if k in doc}
    values["multiple_choice_options"] = list(values.get("multiple_choice_options") or [])
    values["answers"] = list(values.get("answers") or [])
    return Record(**values)


# -- documents -------------------------------------------------------------------------------


def _rows_from_upstream(config: str, data_dir: str | None) -> list[dict[str, Any]]:
    from ..runner.selection import select_items

    try:
        records = select_items(config, data_dir)
    except NoData as exc:  # in lm-eval a folder is passed with --metadata, not --data-dir
        raise InputError(exc.said_as(LM_EVAL_OPTION)) from None
    return [r.to_dict() for r in records]


def load_docs(config: str, dataset: str | None = None, data_dir: str | None = None, **_: Any):
    """lm-eval `custom_dataset`: a DatasetDict with the `test` split of `config`.

    Other keyword arguments (lm-eval passes the task metadata, e.g. `version`) are ignored.
    """
    import datasets

    if config not in CONFIGS:
        raise InputError(f"unknown RespondeoQA config {config!r}")
    source = dataset or os.environ.get(DATASET_ENV) or None
    if source:
        ds = datasets.load_dataset(str(source), config, split=SPLIT)
    else:
        from ..dataset.features import FEATURES

        ds = datasets.Dataset.from_list(_rows_from_upstream(config, data_dir), features=FEATURES)
    for column, value in zip(EXTRA_COLUMNS, (SYSTEM_PROMPT, PROMPT_VERSION), strict=True):
        if column in ds.column_names:
            ds = ds.remove_columns(column)
        ds = ds.add_column(column, [value] * len(ds))
    return datasets.DatasetDict({SPLIT: ds})


# -- prompt ----------------------------------------------------------------------------------


def doc_to_text(doc: Mapping[str, Any]) -> str:
    """The user message, exactly the paper's (runner.prompts.user_prompt)."""
    return user_prompt(record_from_doc(doc))


def doc_to_target(doc: Mapping[str, Any]) -> str:
    """The first gold answer (lm-eval logs it as `target`; scoring never uses it)."""
    answers = doc.get("answers") or [""]
    return answers[0]


# -- scores ----------------------------------------------------------------------------------


def _bleu_key(language: str, variable: bool = False) -> str:
    return f"bleu_{language}" + ("_variable_refs" if variable else "")


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """Score one generation: `acc` for accuracy items; a (hypothesis, references) pair under
    `bleu_<target language>` and `bleu_<target language>_variable_refs` for translations."""
    record = record_from_doc(doc)
    response = results[0] if results else ""
    item = score_one(record, response, extracted=False)
    if record.task == "translation":
        pair = (item.hypothesis, list(record.answers))
        return {
            _bleu_key(record.answer_language): pair,
            _bleu_key(record.answer_language, True): pair,
        }
    return {"acc": item.score}


def _split(items: Sequence[Sequence[Any]]) -> tuple[list[str], list[list[str]]]:
    return [h for h, _ in items], [list(r) for _, r in items]


def _bleu(language: str, items: Sequence[Sequence[Any]]) -> float:
    hyps, refs = _split(items)
    return corpus_bleu(hyps, refs, language).score


def _bleu_variable(language: str, items: Sequence[Sequence[Any]]) -> float:
    hyps, refs = _split(items)
    return corpus_bleu(hyps, refs, language).variable_refs


def bleu_english(items: Sequence[Sequence[Any]]) -> float:
    """The paper's BLEU (references padded with empty ones) of translations into English."""
    return _bleu("english", items)


def bleu_latin(items: Sequence[Sequence[Any]]) -> float:
    """The paper's BLEU (references padded with empty ones) of translations into Latin."""
    return _bleu("latin", items)


def bleu_english_variable_refs(items: Sequence[Sequence[Any]]) -> float:
    """BLEU into English without the empty-reference padding (beside the paper's number)."""
    return _bleu_variable("english", items)


def bleu_latin_variable_refs(items: Sequence[Sequence[Any]]) -> float:
    """BLEU into Latin without the empty-reference padding (beside the paper's number)."""
    return _bleu_variable("latin", items)


AGGREGATIONS = {
    _bleu_key("english"): bleu_english,
    _bleu_key("latin"): bleu_latin,
    _bleu_key("english", True): bleu_english_variable_refs,
    _bleu_key("latin", True): bleu_latin_variable_refs,
}
