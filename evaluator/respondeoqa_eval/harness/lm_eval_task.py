"""The lm-evaluation-harness tasks: documents, the paper's prompt, extraction and scores, all
from respondeoqa_eval (the YAMLs in `lm_eval_tasks/` name these through that folder's `utils.py`).

- Documents (`load_docs`, every task's `custom_dataset`): a local copy named with `--metadata`
  or the environment, else the Hub dataset that the public tasks' `dataset_path` names;
  `process_docs` adds the system prompt and prompt version to every document and keeps a
  translation task's target language.
- Prompt (`RespondeoQATask.fewshot_context`): with `--apply_chat_template` the paper's system and
  user messages exactly; without it, the system prompt, a blank line and the user message.
- Extraction: the `paper_extraction` filter (`extract_answers`) applies the paper's rule, so the
  logged `filtered_resps` show the extracted answer; `process_results` scores it.
- Scores: `acc` is `scoring.score_one` per item (its mean is the paper's accuracy); a
  translation task reports on every document `bleu` (the paper's corpus BLEU, references padded),
  `bleu_variable_refs` (no padding) and `chrf`, all from `metrics.corpus_bleu`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ..data.configs import CONFIGS
from ..data.datadir import ENV_DATA_DIR, LM_EVAL_OPTION, NoData
from ..data.records import Record, dataset_row, record_from_row
from ..data.sources import HUB_DATASET
from ..errors import InputError
from ..metrics import corpus_bleu
from ..runner.prompts import PROMPT_VERSION, SYSTEM_PROMPT, user_prompt
from ..scoring.extract import extract_answer
from ..scoring.per_item import score_one

DATASET_ENV = "RESPONDEOQA_DATASET"
"""A dataset export folder or Hub repo id for the Certamen / NLE tasks (or `--metadata` key
`dataset`)."""

SPLIT = "test"

# columns added to every document: the system message (the tasks' `description` renders it) and
# the prompt version, which every logged sample then carries
EXTRA_COLUMNS = ("system_prompt", "prompt_version")


def record_from_doc(doc: Mapping[str, Any]) -> Record:
    """The Record behind a document (a row of the dataset export, extra columns ignored)."""
    missing = [f for f in ("id", "task", "answers", "answer_language") if f not in doc]
    if missing:
        raise InputError(
            f"document {doc.get('doc_id', '')!s}: not a RespondeoQA row (no {', '.join(missing)})"
        )
    return record_from_row(doc)


# -- documents -------------------------------------------------------------------------------


def _with_prompt_columns(ds):
    for column, value in zip(EXTRA_COLUMNS, (SYSTEM_PROMPT, PROMPT_VERSION), strict=True):
        if column in ds.column_names:
            ds = ds.remove_columns(column)
        ds = ds.add_column(column, [value] * len(ds))
    return ds


def process_docs(ds):
    """lm-eval `process_docs` of an accuracy task: the prompt columns added."""
    return _with_prompt_columns(ds)


def _translations_into(language: str):
    def keep(ds):
        def wanted(row) -> bool:
            return row["task"] == "translation" and row["answer_language"] == language

        return _with_prompt_columns(ds.filter(wanted))

    keep.__doc__ = (
        f"lm-eval `process_docs`: the translations into {language}, prompt columns added."
    )
    return keep


process_docs_into_english = _translations_into("english")
process_docs_into_latin = _translations_into("latin")


def load_docs(config: str, dataset: str | None = None, data_dir: str | None = None, **_: Any):
    """lm-eval `custom_dataset` of every task: a DatasetDict with the `test` split of `config`.

    From, in this order: `--metadata '{"dataset": ...}'` or `$RESPONDEOQA_DATASET` (a `dataset
    build` folder or a Hub repository, private ones included); `--metadata '{"data_dir": ...}'`
    or `$RESPONDEOQA_DATA_DIR` (upstream files); else, for the public configs, the Hub dataset
    the YAML's `dataset_path` names (`sources.HUB_DATASET`). Certamen and NLE are never on the
    Hub: their configs need one of the first two. Other keyword arguments (lm-eval passes the
    task metadata, e.g. `version`) are ignored. Upstream files are read in memory; a dataset's
    Arrow copy goes to the project's cache, keyed by its content (`data.hf_load`), never to
    `datasets`' own cache, which would serve one folder's rows for another of the same name.
    """
    import datasets

    from ..data.hf_load import load_config

    if config not in CONFIGS:
        raise InputError(f"unknown RespondeoQA config {config!r}")
    source = dataset or os.environ.get(DATASET_ENV)
    folder = data_dir or os.environ.get(ENV_DATA_DIR)
    if source:  # cached in the project's cache, keyed by the export's content
        ds = load_config(str(source), config)
    elif folder or CONFIGS[config].private:
        from ..data.hf_features import FEATURES
        from ..runner.selection import select_items

        try:
            records = select_items(config, folder)
        except NoData as exc:  # in lm-eval a folder is passed with --metadata, not --data-dir
            raise InputError(exc.said_as(LM_EVAL_OPTION)) from None
        ds = datasets.Dataset.from_list([dataset_row(r) for r in records], features=FEATURES)
    else:
        try:
            ds = load_config(HUB_DATASET, config)
        except (ConnectionError, OSError, ValueError) as exc:  # offline, or not on the Hub
            problem = f"RespondeoQA config {config!r}: the Hub dataset {HUB_DATASET} cannot be read"
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise InputError(NoData(f"{problem} ({detail})").said_as(LM_EVAL_OPTION)) from None
    return datasets.DatasetDict({SPLIT: ds})


# -- prompt ----------------------------------------------------------------------------------


def doc_to_text(doc: Mapping[str, Any]) -> str:
    """The user message, exactly the paper's (runner.prompts.user_prompt)."""
    return user_prompt(record_from_doc(doc))


def doc_to_target(doc: Mapping[str, Any]) -> str:
    """The first gold answer (lm-eval logs it as `target`; scoring never uses it)."""
    answers = doc.get("answers") or [""]
    return answers[0]


def plain_prompt(system: str, user: str) -> str:
    """The prompt without a chat template: the system message, a blank line, the user message."""
    return f"{system}\n\n{user}" if system else user


def task_class():
    from lm_eval.api.task import ConfigurableTask

    class RespondeoQATask(ConfigurableTask):
        """A ConfigurableTask whose plain-text prompt separates the system and user messages.

        lm-eval joins a task's `description` (our system message) to the question with no
        separator when no chat template is applied ("...culture.What is ..."); with
        `--apply_chat_template` it sends them as the paper's two messages, and that path is
        lm-eval's own. The paper's protocol is zero-shot: few-shot examples are refused.
        """

        def __init__(self, config: dict[str, Any] | None = None) -> None:
            # lm-eval passes the whole YAML, `class` key included, which TaskConfig rejects
            super().__init__(config={k: v for k, v in (config or {}).items() if k != "class"})

        def fewshot_context(
            self, doc, num_fewshot, system_instruction=None, apply_chat_template=False, **kwargs
        ):
            if num_fewshot:
                raise InputError(
                    f"{self.config.task}: RespondeoQA is zero-shot (the paper's protocol); "
                    f"drop --num_fewshot {num_fewshot}"
                )
            if apply_chat_template and kwargs.get("chat_template"):
                return super().fewshot_context(
                    doc, 0, system_instruction, apply_chat_template, **kwargs
                )
            description = self.resolve_field(doc, self.config.description) or ""
            system = "\n\n".join(s for s in (system_instruction, description) if s)
            return plain_prompt(system, self.doc_to_text(doc))

    return RespondeoQATask


# -- extraction and scores -------------------------------------------------------------------


def extract_answers(resps: Sequence[Sequence[str]], docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """lm-eval custom filter: the paper's extraction (PROTOCOL 3) of each document's first
    generation; "" when nothing can be extracted (unanswered)."""
    out = []
    for generations, doc in zip(resps, docs, strict=True):
        text = generations[0] if generations else ""
        out.append(extract_answer(str(doc["task"]), text) or "")
    return out


def process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, Any]:
    """Score one extracted answer: `acc` for accuracy items; for a translation, the
    (hypothesis, references, target language) triple under `bleu`, `bleu_variable_refs`, `chrf`."""
    record = record_from_doc(doc)
    answer = results[0] if results else ""
    item = score_one(record, answer, extracted=True)  # the filter extracted it
    if record.task == "translation":
        triple = (item.hypothesis, list(record.answers), record.answer_language)
        return {key: triple for key in ("bleu", "bleu_variable_refs", "chrf")}
    return {"acc": item.score}


def _corpus(items: Sequence[Sequence[Any]]):
    languages = {lang for _, _, lang in items}
    if len(languages) != 1:
        raise InputError(f"a translation task holds one target language, not {sorted(languages)}")
    return corpus_bleu([h for h, _, _ in items], [list(r) for _, r, _ in items], languages.pop())


def bleu(items: Sequence[Sequence[Any]]) -> float:
    """The paper's corpus BLEU (references padded with empty ones to the group's largest count)."""
    return _corpus(items).score


def bleu_variable_refs(items: Sequence[Sequence[Any]]) -> float:
    """Corpus BLEU without the empty-reference padding (beside the paper's number)."""
    return _corpus(items).variable_refs


def chrf(items: Sequence[Sequence[Any]]) -> float:
    """chrF (sacreBLEU CHRF defaults, references without padding)."""
    return _corpus(items).chrf
