"""The Hub's evaluation-results files (https://huggingface.co/docs/hub/eval-results).

- A model repository's `.eval_results/*.yaml`: a list of results, written here through
  `huggingface_hub`'s `EvalResultEntry` / `eval_result_entries_to_yaml` (the Hub's own model of
  the format); the Hub shows them on the model page and in the benchmark's leaderboard.
- A benchmark dataset's `eval.yaml` at the repository root: `name`, `description`,
  `evaluation_framework` and `tasks` (`id`, `config`, `split`); it makes the dataset a Benchmark
  whose leaderboards collect the models' results by task id.

The task ids pair the two files, and each names the shipped Inspect task and metric that
computes it: `<inspect task>-<inspect metric>`, the task `respondeoqa_public` (both public
textbooks) or `respondeoqa_all` (with Certamen and NLE), the metric `accuracy` (the paper's
headline accuracy, in percent) and, per target language, `bleu_<lang>` (the paper's BLEU,
references padded with empty ones), `bleu_<lang>_variable_refs` (each item's own references) and
`chrf_<lang>`: the padded BLEU is never published alone (PROTOCOL 5: the padding hides
unanswered translations). `inspect eval respondeoqa_eval/respondeoqa_public` reports exactly
these metrics.

`evaluation_framework` is `respondeoqa-eval`, this package (docs/hub-benchmark.md says why):
the Hub's `inspect-ai` route runs an eval.yaml through Inspect's reader (`inspect eval
hf/ORG/NAME`), which takes only Inspect's built-in solvers and scorers by name (none does the
paper's extraction, its normalisation, partial credit for feet or the padded corpus BLEU), so
under `inspect-ai` the Hub would compute other numbers under these ids. The name is proposed
for the Hub's list (huggingface.js `packages/tasks/src/eval.ts`; the entry is
`hub/evaluation-framework.ts`): until it is listed the Hub refuses the file, and `dataset push`
sends it in a commit of its own after the data. The tasks are run by name, `inspect eval
respondeoqa_eval/<task>` or `respondeoqa-eval score`; results from lm-eval and lighteval runs use
the same ids (the same numbers: the tests check all three harnesses against `score`), their
notes saying which harness produced the responses.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..data.configs import CONFIGS
from ..errors import InputError
from ..io import write_text_atomic
from ..predictions.provenance import LIGHTEVAL, LM_EVAL
from . import task_name

EVALUATION_FRAMEWORK = "respondeoqa-eval"
"""This package: the name proposed for the Hub's list of evaluation frameworks (huggingface.js
`packages/tasks/src/eval.ts`; the entry is hub/evaluation-framework.ts)."""
EVAL_YAML_MARK = "# Registers this dataset as a Hub Benchmark"
"""The first line of the eval.yaml this module writes (a file without it is someone's own)."""

HEADLINE_CONFIGS = ("public", "all")
SPLIT = "test"
RESULTS_FILE = "respondeoqa.yaml"
EVAL_YAML = "eval.yaml"
BENCHMARK_NAME = "RespondeoQA"
BLEU_LANGUAGES = ("english", "latin")

# report key of each BLEU-family number -> Inspect metric (inspect_tasks.CORPUS_METRICS)
_BLEU_METRICS = {
    "score": "bleu_{lang}",
    "variable_refs": "bleu_{lang}_variable_refs",
    "chrf": "chrf_{lang}",
}
_NOTES = {
    "accuracy": "the paper's headline accuracy over every non-translation item, in percent",
    "score": "corpus BLEU 0-100 into {lang}, the paper's way: references padded with empty ones "
    "(an unanswered translation barely lowers it; read it beside the unpadded BLEU)",
    "variable_refs": "corpus BLEU 0-100 into {lang}, each item's own references (no padding)",
    "chrf": "chrF 0-100 into {lang} (sacreBLEU CHRF defaults), references without padding",
}


def _need_hub(exc: ImportError) -> InputError:
    return InputError(
        "--eval-results needs huggingface_hub>=1.3 (EvalResultEntry) and PyYAML "
        f'({exc}): pip install "respondeoqa-eval[hub]"'
    )


def inspect_task(config: str) -> str:
    """The Inspect task of a dataset config (`public` -> `respondeoqa_public`)."""
    return task_name(config)


def task_ids(config: str) -> dict[str, str]:
    """The task ids of a config: metric key (`accuracy`, `<field>_<lang>`) -> task id, which is
    `<inspect task>-<inspect metric>`."""
    task = inspect_task(config)
    ids = {"accuracy": f"{task}-accuracy"}
    for lang in BLEU_LANGUAGES:
        for field, metric in _BLEU_METRICS.items():
            ids[f"{field}_{lang}"] = f"{task}-{metric.format(lang=lang)}"
    return ids


def config_of_report(report: Mapping[str, Any]) -> str:
    """The dataset config whose upstream files the report scored (`public`, `all`, ...)."""
    files = set(report["gold"]["files"])
    for name in HEADLINE_CONFIGS + tuple(CONFIGS):
        if set(CONFIGS[name].files) == files:
            return name
    raise InputError(
        "--eval-results: the scored gold files are not those of one dataset config "
        f"({', '.join(sorted(files))}); score the public files or the whole benchmark"
    )


def result_values(report: Mapping[str, Any]) -> dict[str, tuple[float, str]]:
    """Metric key (as `task_ids`) -> (value, note) of a report dict (docs/report.md)."""
    values = {
        "accuracy": (round(100 * report["accuracy"]["overall"]["score"], 4), _NOTES["accuracy"])
    }
    for lang in BLEU_LANGUAGES:
        overall = ((report.get("bleu") or {}).get(lang) or {}).get("overall")
        if not overall or not overall.get("n"):
            continue
        for field in _BLEU_METRICS:
            if overall.get(field) is not None:
                values[f"{field}_{lang}"] = (
                    round(overall[field], 4),
                    _NOTES[field].format(lang=lang),
                )
    return values


def results_entries(
    report: Mapping[str, Any],
    dataset_id: str,
    *,
    dataset_revision: str | None = None,
    date: str | None = None,
    source_url: str | None = None,
    source_name: str | None = None,
) -> list[Any]:
    """`huggingface_hub.EvalResultEntry`s of a report dict: accuracy, and per target language
    the paper's padded BLEU, the unpadded BLEU and chrF."""
    try:
        from huggingface_hub import EvalResultEntry
    except ImportError as exc:
        raise _need_hub(exc) from None
    ids = task_ids(config_of_report(report))
    version = report["evaluator"]["version"]
    date = date or dt.date.today().isoformat()
    produced = _produced_through(report.get("provenance") or {})
    return [
        EvalResultEntry(
            dataset_id=dataset_id,
            task_id=ids[metric],
            value=value,
            dataset_revision=dataset_revision,
            date=date,
            source_url=source_url,
            source_name=source_name if source_url else None,
            notes=f"{note}; paper protocol, {produced}scored by respondeoqa-eval {version}",
        )
        for metric, (value, note) in result_values(report).items()
    ]


def _produced_through(provenance: Mapping[str, Any]) -> str:
    """For a report of an lm-eval or lighteval log, the notes' label of the harness that
    produced the responses ("responses produced through lighteval 0.13.0 ..."); else ""."""
    tool = provenance.get("tool")
    if tool not in (LM_EVAL, LIGHTEVAL):
        return ""
    version = provenance.get("tool_version")
    named = f"{tool} {version}" if version else tool
    return f"responses produced through {named} (its respondeoqa tasks), "


def results_yaml(entries: Iterable[Any]) -> str:
    """`.eval_results/*.yaml` text of `EvalResultEntry`s (`eval_result_entries_to_yaml`)."""
    try:
        import yaml
        from huggingface_hub import eval_result_entries_to_yaml
    except ImportError as exc:
        raise _need_hub(exc) from None
    header = "# RespondeoQA results, written by `respondeoqa-eval score --eval-results`\n"
    body = yaml.safe_dump(
        eval_result_entries_to_yaml(list(entries)), sort_keys=False, allow_unicode=True
    )
    return header + body


def _check_revision(revision: str | None) -> None:
    if revision is None:
        return
    if not (7 <= len(revision) <= 40 and all(c in "0123456789abcdef" for c in revision)):
        raise InputError(
            f"--eval-dataset-revision must be the dataset repository's commit sha, not {revision!r}"
        )


def write_eval_results(
    folder: str | Path,
    report: Mapping[str, Any],
    dataset_id: str,
    **kwargs: Any,
) -> Path:
    """Write `<folder>/.eval_results/respondeoqa.yaml` (or into `folder` if it is named
    `.eval_results`) and return its path."""
    if not dataset_id or dataset_id.count("/") != 1 or any(c.isspace() for c in dataset_id):
        raise InputError(f"--eval-dataset must be a Hub dataset id ORG/NAME, not {dataset_id!r}")
    _check_revision(kwargs.get("dataset_revision"))
    folder = Path(folder)
    target = folder if folder.name == ".eval_results" else folder / ".eval_results"
    if target.exists() and not target.is_dir():
        raise InputError(f"{target}: exists and is not a folder")
    text = results_yaml(results_entries(report, dataset_id, **kwargs))
    path = target / RESULTS_FILE
    write_text_atomic(path, text)
    return path


def eval_yaml_data(configs: Iterable[str]) -> dict[str, Any]:
    """The benchmark's `eval.yaml` (as data) for a dataset build holding `configs`."""
    present = [c for c in HEADLINE_CONFIGS if c in set(configs)]
    runs = " or ".join(f"`inspect eval respondeoqa_eval/{inspect_task(c)}`" for c in present)
    description = (
        "RespondeoQA, the Latin-English question-answering benchmark (Hudspeth, Burns and "
        "O'Connor, 2026, arXiv:2604.20738), scored with the paper's protocol by respondeoqa-eval "
        '(pip install "respondeoqa-eval[inspect]"; `respondeoqa-eval score`, or Inspect AI: '
        f"{runs}). Each task id is <inspect task>-<inspect metric>: the paper's headline accuracy "
        "over every non-translation item (percent) and, per target language, the paper's corpus "
        "BLEU (references padded), BLEU without the padding and chrF."
    )
    tasks = [
        {"id": task_id, "config": config, "split": SPLIT}
        for config in present
        for task_id in task_ids(config).values()
    ]
    return {
        "name": BENCHMARK_NAME,
        "description": description,
        "evaluation_framework": EVALUATION_FRAMEWORK,
        "tasks": tasks,
    }


def eval_yaml_text(configs: Iterable[str]) -> str:
    """`eval.yaml` text, with a header saying how the tasks are run."""
    import yaml

    header = [
        f"{EVAL_YAML_MARK} (https://huggingface.co/docs/hub/eval-results);",
        "# models report results under these task ids with `respondeoqa-eval score --eval-results`.",
        "# evaluation_framework respondeoqa-eval: the paper's scoring (docs/hub-benchmark.md), not",
        "# inspect-ai, whose eval.yaml runner has only Inspect's built-in scorers. Run a task by",
        "# name: `inspect eval respondeoqa_eval/<task>` (the part of the id before '-').",
    ]
    body = yaml.safe_dump(eval_yaml_data(configs), sort_keys=False, allow_unicode=True, width=100)
    return "\n".join(header) + "\n" + body


def configs_in(folder: str | Path) -> list[str]:
    """The dataset configs a build folder holds (a subfolder with Parquet files each)."""
    folder = Path(folder)
    return [c for c in CONFIGS if any((folder / c).glob("*.parquet"))]


def write_eval_yaml(folder: str | Path) -> Path:
    """Write `<folder>/eval.yaml` for the configs the build folder holds; return its path."""
    path = Path(folder) / EVAL_YAML
    write_text_atomic(path, eval_yaml_text(configs_in(folder)))
    return path
