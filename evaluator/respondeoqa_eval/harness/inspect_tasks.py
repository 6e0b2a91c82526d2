"""RespondeoQA as Inspect AI tasks (`pip install "respondeoqa-eval[inspect]"`), scored by
respondeoqa_eval exactly as `respondeoqa-eval score` scores.

    inspect eval respondeoqa_eval/respondeoqa_public --model hf/Qwen/Qwen2.5-0.5B-Instruct
    inspect eval respondeoqa_eval/respondeoqa_all -T dataset=./respondeoqa   # your private export

One `@task` per dataset config (`respondeoqa_public`, `respondeoqa_all`, `respondeoqa_lat_pros_feet`,
...; `respondeoqa(config=...)` takes any). Documents come from the Hub dataset
(`sources.HUB_DATASET`) or from `dataset=` (a `respondeoqa-eval dataset build` folder or another
repository; Certamen and NLE are only in your own), through `data.hf_load` (cached in the
project's cache by content, never in Inspect's). The solver is the
paper's: its system message, the user message, one generation with its sampling (temperature
0.6, top-p 0.95; `--temperature 0` for greedy). The scorer applies the paper's extraction and
per-item score (partial credit for feet); metrics:

- `accuracy`: the paper's headline accuracy (mean per-item score over every non-translation item);
- `accuracy` by `content` and by `language_pair` (`grouped()`; a group holding only
  translations shows NaN: translations are corpus-scored);
- `bleu_<language>` (the paper's corpus BLEU, references padded), `bleu_<language>_variable_refs`
  (no padding) and `chrf_<language>` per target language: read the padded one beside the others.

The logs of the Certamen / NLE configs contain the private documents: never publish them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import SampleScore, Score, Target, grouped, metric, scorer
from inspect_ai.solver import TaskState, generate, system_message

from ..data.configs import CONFIGS
from ..data.records import record_from_row
from ..data.sources import HUB_DATASET
from ..metrics import corpus_bleu
from ..runner.hf import DEFAULT_MAX_NEW_TOKENS
from ..runner.prompts import SYSTEM_PROMPT, TEMPERATURE, TOP_P, user_prompt
from ..scoring.per_item import score_one
from . import task_name

SPLIT = "test"
TRANSLATION = "translation"
CORPUS_VALUE = "corpus"
"""The Score value of a translation: scored only as part of a corpus (BLEU)."""


def record_to_sample(row: dict[str, Any]) -> Sample:
    """A dataset row as an Inspect Sample: the paper's user message, the gold as target, the
    row and the breakdown keys in the metadata."""
    record = record_from_row(row)
    return Sample(
        id=record.id,
        input=user_prompt(record),
        target=list(record.answers),
        metadata={
            "record": record.to_dict(),
            "task": record.task,
            "content": record.question_content,
            "language_pair": f"{record.question_language}-{record.answer_language}",
        },
    )


def load_samples(config: str, dataset: str | None = None, revision: str | None = None):
    """The samples of `config` from the Hub dataset or `dataset` (an export folder or another
    repository), through `data.hf_load`: its Arrow copy in the project's cache, keyed by the
    export's content. Not Inspect's `hf_dataset`, which keeps a copy under
    `~/.cache/inspect_ai/hf_datasets` keyed by the path and config name only (a second folder
    of the same name got the first one's rows, and private rows landed in Inspect's cache)."""
    from ..data.hf_load import load_config

    source = str(dataset or HUB_DATASET)
    rows = load_config(source, config, revision=revision)
    samples = [record_to_sample(row) for row in rows]
    return MemoryDataset(samples, name=task_name(config), location=source)


# -- metrics ---------------------------------------------------------------------------------


def _accuracy_values(scores: Sequence[SampleScore]) -> list[float]:
    # by the scorer's metadata: Inspect may turn a str value into a float before metrics run
    return [
        s.score.as_float() for s in scores if (s.score.metadata or {}).get("task") != TRANSLATION
    ]


@metric
def accuracy():
    """The paper's accuracy: the mean per-item score over the non-translation items."""

    def compute(scores: list[SampleScore]) -> float:
        values = _accuracy_values(scores)
        return sum(values) / len(values) if values else math.nan

    return compute


def _corpus(scores: Sequence[SampleScore], language: str):
    pairs = [
        (meta["hypothesis"], meta["references"])
        for s in scores
        if (meta := s.score.metadata or {}).get("task") == TRANSLATION
        and meta["target_language"] == language
    ]
    if not pairs:
        return None
    return corpus_bleu([h for h, _ in pairs], [list(r) for _, r in pairs], language)


def _corpus_metric(language: str, field: str, name: str, doc: str):
    """A corpus @metric over the translations into `language`: `field` of `corpus_bleu`."""

    def make():
        def compute(scores: list[SampleScore]) -> float:
            result = _corpus(scores, language)
            return math.nan if result is None else float(getattr(result, field))

        return compute

    make.__doc__ = doc
    return metric(name=name)(make)


bleu_english = _corpus_metric(
    "english", "score", "bleu_english", "The paper's corpus BLEU into English (padded)."
)
bleu_english_variable_refs = _corpus_metric(
    "english", "variable_refs", "bleu_english_variable_refs", "BLEU into English, no padding."
)
chrf_english = _corpus_metric("english", "chrf", "chrf_english", "chrF into English.")
bleu_latin = _corpus_metric(
    "latin", "score", "bleu_latin", "The paper's corpus BLEU into Latin (padded)."
)
bleu_latin_variable_refs = _corpus_metric(
    "latin", "variable_refs", "bleu_latin_variable_refs", "BLEU into Latin, no padding."
)
chrf_latin = _corpus_metric("latin", "chrf", "chrf_latin", "chrF into Latin.")
CORPUS_METRICS = (
    bleu_english,
    bleu_english_variable_refs,
    chrf_english,
    bleu_latin,
    bleu_latin_variable_refs,
    chrf_latin,
)


# -- scorer ----------------------------------------------------------------------------------


def _metrics(config: str) -> list:
    tasks = CONFIGS[config].present_tasks if config in CONFIGS else ()
    out: list = []
    if set(tasks) - {TRANSLATION}:
        out += [
            accuracy(),
            grouped(accuracy(), "content", all=False),
            grouped(accuracy(), "language_pair", all=False),
        ]
    if TRANSLATION in tasks:
        out += [make() for make in CORPUS_METRICS]
    return out


def paper_scorer(config: str = "all"):
    """The paper's extraction and per-item score; translations carry their hypothesis for the
    corpus metrics, and the value "corpus" (a translation has no per-item score; Inspect drops
    NaN values before metrics see them)."""

    @scorer(metrics=_metrics(config), name="respondeoqa")
    def respondeoqa_scorer():
        async def score(state: TaskState, target: Target) -> Score:
            record = record_from_row(state.metadata["record"])
            item = score_one(record, state.output.completion, extracted=False)
            meta: dict[str, Any] = {"task": record.task}
            if record.task == TRANSLATION:
                meta.update(
                    hypothesis=item.hypothesis,
                    references=list(record.answers),
                    target_language=record.answer_language,
                )
                value: str | float = CORPUS_VALUE
            else:
                assert item.score is not None  # an accuracy item's (a translation's is None)
                value = item.score
            return Score(value=value, answer=item.extracted or "", metadata=meta)

        return score

    return respondeoqa_scorer()


# -- tasks -----------------------------------------------------------------------------------


@task
def respondeoqa(
    config: str = "public", dataset: str | None = None, revision: str | None = None
) -> Task:
    """RespondeoQA config `config` from the Hub dataset, or from `dataset` (a local export)."""
    if config not in CONFIGS:
        raise ValueError(
            f"unknown RespondeoQA config {config!r}; choose one of {', '.join(CONFIGS)}"
        )
    data = load_samples(config, dataset, revision)
    return Task(
        dataset=data,
        solver=[system_message(SYSTEM_PROMPT), generate()],
        scorer=paper_scorer(config),
        config=GenerateConfig(
            temperature=TEMPERATURE, top_p=TOP_P, max_tokens=DEFAULT_MAX_NEW_TOKENS
        ),
        name=f"respondeoqa_{config.replace('-', '_')}",
        version=1,
    )


# one @task per config (Inspect finds tasks by their decorated functions)


@task
def respondeoqa_public(dataset: str | None = None) -> Task:
    """Both public-domain textbooks: the public benchmark."""
    return respondeoqa("public", dataset)


@task
def respondeoqa_all(dataset: str | None = None) -> Task:
    """The whole benchmark (Certamen and NLE: your own export)."""
    return respondeoqa("all", dataset)


@task
def respondeoqa_certamen(dataset: str | None = None) -> Task:
    return respondeoqa("certamen", dataset)


@task
def respondeoqa_nle(dataset: str | None = None) -> Task:
    return respondeoqa("nle", dataset)


@task
def respondeoqa_jun_schol(dataset: str | None = None) -> Task:
    return respondeoqa("jun-schol", dataset)


@task
def respondeoqa_lat_pros(dataset: str | None = None) -> Task:
    return respondeoqa("lat-pros", dataset)


@task
def respondeoqa_certamen_multiple_choice(dataset: str | None = None) -> Task:
    return respondeoqa("certamen-multiple_choice", dataset)


@task
def respondeoqa_certamen_short_answer(dataset: str | None = None) -> Task:
    return respondeoqa("certamen-short_answer", dataset)


@task
def respondeoqa_certamen_translation(dataset: str | None = None) -> Task:
    return respondeoqa("certamen-translation", dataset)


@task
def respondeoqa_nle_multiple_choice(dataset: str | None = None) -> Task:
    return respondeoqa("nle-multiple_choice", dataset)


@task
def respondeoqa_jun_schol_short_answer(dataset: str | None = None) -> Task:
    return respondeoqa("jun-schol-short_answer", dataset)


@task
def respondeoqa_jun_schol_translation(dataset: str | None = None) -> Task:
    return respondeoqa("jun-schol-translation", dataset)


@task
def respondeoqa_lat_pros_feet(dataset: str | None = None) -> Task:
    return respondeoqa("lat-pros-feet", dataset)


@task
def respondeoqa_lat_pros_meter(dataset: str | None = None) -> Task:
    return respondeoqa("lat-pros-meter", dataset)
