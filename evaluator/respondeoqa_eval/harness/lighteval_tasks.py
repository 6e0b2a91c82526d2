"""RespondeoQA as lighteval (0.13) custom tasks, scored by respondeoqa_eval.

    lighteval accelerate model.yaml \\
        "respondeoqa_accuracy|0,respondeoqa_translation_english|0,respondeoqa_translation_latin|0" \\
        --custom-tasks respondeoqa_eval.harness.lighteval_tasks --save-details
    respondeoqa-eval score results/details/         # the same numbers, every breakdown

`respondeoqa-eval harness path --lighteval` prints this file and the system prompt. lighteval
pins packages that clash with lm_eval's (nltk, termcolor) and 0.13.0 needs `xxhash<4`: give it
its own environment (`pip install lighteval==0.13.0 "xxhash<4" respondeoqa-eval[dataset]`). Our
package `__init__`s never import this module.

Tasks (`data.harness_tasks.lighteval_task_arg()`, also `harness.lighteval_task_arg()` gives the TASKS argument of a suite):

- `respondeoqa_accuracy`: every public non-translation item; `acc` is our per-item score (partial
  credit for feet), its mean the paper's headline accuracy;
- `respondeoqa_translation_<language>`: the public translations into English / Latin;
  `bleu_<language>` (the paper's corpus BLEU, references padded), `bleu_<language>_variable_refs`
  (no padding) and `chrf_<language>`: named per language, so that lighteval's automatic `all`
  entry (a mean per metric name over the tasks run) repeats each number instead of averaging
  the two BLEUs;
- `respondeoqa_full_*`: the same over the whole benchmark (Certamen and NLE: your own private
  export, `$RESPONDEOQA_DATASET`), the paper's pooled BLEU per target language.

The documents come from the Hub dataset (`sources.HUB_DATASET`) or, when `$RESPONDEOQA_DATASET`
is set, from that export folder or repository. The prompt is the paper's user message; its
system message goes in the model config (`system_prompt:`; lighteval takes the system prompt
from the model, a task cannot set it, and its `key=value,...` model args cannot hold the
prompt's commas: use a model YAML, `model_parameters: {model_name, system_prompt,
generation_parameters: {temperature: 0.6, top_p: 0.95}}`, the paper's sampling). Each doc's `specific`
holds its dataset row (our ids included), which the details files keep: details of the
`respondeoqa_full` tasks contain the private documents; never publish them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from lighteval.metrics.metrics_sample import SampleLevelComputation
from lighteval.metrics.utils.metric_utils import CorpusLevelMetricGrouping, SampleLevelMetric
from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc, SamplingMethod

from ..data.configs import CONFIGS
from ..data.harness_tasks import LIGHTEVAL_SUITES, TARGET_LANGUAGES, lighteval_task_names
from ..data.records import FIELDS, record_from_row
from ..data.sources import HUB_DATASET
from ..metrics import corpus_bleu
from ..runner.hf import DEFAULT_MAX_NEW_TOKENS
from ..runner.prompts import SYSTEM_PROMPT, user_prompt
from ..scoring.per_item import score_one

DATASET_ENV = "RESPONDEOQA_DATASET"
SPLIT = "test"

__all__ = ["SYSTEM_PROMPT", "TASKS_TABLE"]


def prompt_fn(line: dict[str, Any], task_name: str = "") -> Doc:
    """A dataset row as a lighteval Doc: the paper's user message; the row in `specific`."""
    record = record_from_row(line)
    return Doc(
        task_name=task_name,
        query=user_prompt(record),
        choices=list(record.answers),
        gold_index=0,
        specific={k: line[k] for k in FIELDS if k in line},
    )


def _response_text(model_response: Any) -> str:
    texts = getattr(model_response, "text", None) or [""]
    return texts[0] or ""


class PaperScore(SampleLevelComputation):
    """`acc` of one item: the paper's extraction and score (`scoring.score_one`)."""

    def compute(self, doc: Doc, model_response: Any, **kwargs: Any) -> float:
        item = score_one(
            record_from_row(doc.specific), _response_text(model_response), extracted=False
        )
        assert item.score is not None  # an accuracy item's (translations are scored by corpus)
        return item.score


def bleu_metric_names(language: str) -> dict[str, str]:
    """Corpus metric -> its name in a translation task into `language` (`bleu_latin`,
    `bleu_latin_variable_refs`, `chrf_latin`: Inspect's names). One name per task, so that
    lighteval's automatic `all` entry, a mean per metric name over every task run, holds each
    task's own number and never averages the two BLEUs (a mean of BLEUs is no corpus BLEU)."""
    return {
        "bleu": f"bleu_{language}",
        "bleu_variable_refs": f"bleu_{language}_variable_refs",
        "chrf": f"chrf_{language}",
    }


class TranslationPair(SampleLevelComputation):
    """One translation's [hypothesis, references, target language] for the corpus metrics, as
    a JSON string: lighteval stores sample values in its details Parquet, one Arrow type."""

    def __init__(self, language: str) -> None:
        self.names = list(bleu_metric_names(language).values())

    def compute(self, doc: Doc, model_response: Any, **kwargs: Any) -> dict[str, str]:
        record = record_from_row(doc.specific)
        item = score_one(record, _response_text(model_response), extracted=False)
        triple = json.dumps([item.hypothesis, list(record.answers), record.answer_language])
        return dict.fromkeys(self.names, triple)


# module-level functions and partials only: lighteval pickles task configs across processes


def _corpus(items: Sequence[str]):
    """`metrics.corpus_bleu` of one task's [hypothesis, references, target language] items."""
    triples = [json.loads(item) for item in items]
    (language,) = {lang for _, _, lang in triples}  # a translation task: one target language
    return corpus_bleu([h for h, _, _ in triples], [r for _, r, _ in triples], language)


def corpus_bleu_paper(items: Sequence[str]) -> float:
    """The paper's corpus BLEU (references padded with empty ones)."""
    return float(_corpus(items).score)


def corpus_bleu_variable_refs(items: Sequence[str]) -> float:
    """Corpus BLEU without the padding."""
    return float(_corpus(items).variable_refs)


def corpus_chrf(items: Sequence[str]) -> float:
    """chrF (sacreBLEU CHRF defaults)."""
    return float(_corpus(items).chrf)


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0


ACCURACY = SampleLevelMetric(
    metric_name="acc",
    sample_level_fn=PaperScore(),
    category=SamplingMethod.GENERATIVE,
    corpus_level_fn=_mean,
    higher_is_better=True,
)
_CORPUS_FNS = {
    "bleu": corpus_bleu_paper,
    "bleu_variable_refs": corpus_bleu_variable_refs,
    "chrf": corpus_chrf,
}


def corpus_bleu_metric(language: str) -> CorpusLevelMetricGrouping:
    """The corpus metrics of a translation task into `language`, under its own names."""
    names = bleu_metric_names(language)
    return CorpusLevelMetricGrouping(
        metric_name=list(names.values()),
        sample_level_fn=TranslationPair(language),
        category=SamplingMethod.GENERATIVE,
        corpus_level_fn={names[key]: fn for key, fn in _CORPUS_FNS.items()},
        higher_is_better=dict.fromkeys(names.values(), True),
    )


def _accuracy_item(row: Mapping[str, Any]) -> bool:
    return row["task"] != "translation"


def _translation_into(language: str, row: Mapping[str, Any]) -> bool:
    return row["task"] == "translation" and row["answer_language"] == language


def _dataset_source() -> str:
    """`$RESPONDEOQA_DATASET`, else the Hub dataset. lighteval calls `load_dataset` itself, with
    no `cache_dir`: for a source of the user's, `datasets`' cache is pointed at the project's,
    keyed by the export's content (`data.hf_load.cache_dir_for`), so that a second export of the
    same folder name never gets the first one's rows and private rows stay out of
    `~/.cache/huggingface`."""
    source = os.environ.get(DATASET_ENV)
    if not source:
        return HUB_DATASET
    import datasets

    from ..data.hf_load import cache_dir_for

    datasets.config.HF_DATASETS_CACHE = cache_dir_for(source)
    return source


def _config(name: str, subset: str, keep, metric) -> LightevalTaskConfig:
    return LightevalTaskConfig(
        name=name,
        prompt_function=prompt_fn,
        hf_repo=_SOURCE,
        hf_subset=subset,
        hf_filter=keep,
        hf_avail_splits=[SPLIT],
        evaluation_splits=[SPLIT],
        few_shots_split=None,
        few_shots_select=None,
        generation_size=DEFAULT_MAX_NEW_TOKENS,
        stop_sequence=[],
        metrics=[metric],
        version=1,
    )


def _tasks() -> list[LightevalTaskConfig]:
    out = []
    for prefix, subset in LIGHTEVAL_SUITES.items():
        assert subset in CONFIGS
        accuracy, *translations = lighteval_task_names(prefix)
        out.append(_config(accuracy, subset, _accuracy_item, ACCURACY))
        for name, lang in zip(translations, TARGET_LANGUAGES, strict=True):
            keep = partial(_translation_into, lang)
            out.append(_config(name, subset, keep, corpus_bleu_metric(lang)))
    return out


_SOURCE = _dataset_source()
TASKS_TABLE = _tasks()
