"""The Hub's evaluation-results files (https://huggingface.co/docs/hub/eval-results).

- A model repository's `.eval_results/*.yaml`: a list of results, written here through
  `huggingface_hub`'s `EvalResultEntry` / `eval_result_entries_to_yaml` (the Hub's own model of
  the format); the Hub shows them on the model page and in the benchmark's leaderboard.
- A benchmark dataset's `eval.yaml` at the repository root: `name`, `description`,
  `evaluation_framework` and `tasks` (`id`, `config`, `split`); it makes the dataset a Benchmark
  whose leaderboards collect the models' results by task id.

The task ids pair the two files. Per dataset config (`public`, or `all` with Certamen and NLE):
`<config>-accuracy` (the paper's headline accuracy, in percent) and, per target language,
`<config>-bleu-<lang>` (the paper's BLEU, references padded with empty ones),
`<config>-bleu-<lang>-unpadded` (each item's own references) and `<config>-chrf-<lang>`: the
padded BLEU is never published alone (PROTOCOL 5: the padding hides unanswered translations).

`evaluation_framework` must be one of the Hub's fixed list (huggingface.js
`packages/tasks/src/eval.ts`, `EVALUATION_FRAMEWORKS`). None of its entries scores RespondeoQA
the paper's way: `inspect-ai` is on it, but an `inspect-ai` eval.yaml is run by the Hub with
Inspect's built-in solvers and scorers (`choice`, `exact`, `match`, `model_graded_fact`), none of
which does the paper's extraction, normalisation, partial credit for feet or corpus BLEU. So we
write our own id and say plainly that the Hub rejects the file until that id is registered.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..data.configs import CONFIGS
from ..errors import InputError
from ..io import write_text_atomic

EVALUATION_FRAMEWORK = "respondeoqa-eval"
"""Our `evaluation_framework` id. NOT on the Hub's list (checked against huggingface.js
`packages/tasks/src/eval.ts` at fe42e68, 2026-08-21): see `FRAMEWORK_NOTE`."""

FRAMEWORK_REGISTERED = False
"""Whether the Hub lists `EVALUATION_FRAMEWORK` (a test checks it against @huggingface/tasks)."""

FRAMEWORK_NOTE = (
    f"eval.yaml: evaluation_framework {EVALUATION_FRAMEWORK!r} is not on the Hub's list of "
    "frameworks (huggingface.js packages/tasks/src/eval.ts), so the Hub rejects this eval.yaml "
    "at push ('Invalid input -> at evaluation_framework') until that id is registered there (a "
    "pull request adding it to EVALUATION_FRAMEWORKS) and the benchmark is allow-listed; every "
    "other field follows the Hub's eval.yaml specification"
)

HEADLINE_CONFIGS = ("public", "all")
SPLIT = "test"
RESULTS_FILE = "respondeoqa.yaml"
EVAL_YAML = "eval.yaml"
BENCHMARK_NAME = "RespondeoQA"
BLEU_LANGUAGES = ("english", "latin")

# report key of each BLEU-family number -> task id suffix (report.BleuScore fields)
_BLEU_METRICS = {
    "score": "bleu-{lang}",
    "variable_refs": "bleu-{lang}-unpadded",
    "chrf": "chrf-{lang}",
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


def task_ids(config: str) -> dict[str, str]:
    """The task ids of a config: metric key -> task id (`accuracy`, `<field>_<lang>`)."""
    ids = {"accuracy": f"{config}-accuracy"}
    for lang in BLEU_LANGUAGES:
        for field, suffix in _BLEU_METRICS.items():
            ids[f"{field}_{lang}"] = f"{config}-{suffix.format(lang=lang)}"
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
    return [
        EvalResultEntry(
            dataset_id=dataset_id,
            task_id=ids[metric],
            value=value,
            dataset_revision=dataset_revision,
            date=date,
            source_url=source_url,
            source_name=source_name if source_url else None,
            notes=f"{note}; paper protocol, respondeoqa-eval {version}",
        )
        for metric, (value, note) in result_values(report).items()
    ]


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
    description = (
        "RespondeoQA, the Latin-English question-answering benchmark (Hudspeth, Burns and "
        "O'Connor, 2026, arXiv:2604.20738). Tasks: the paper's headline accuracy over every "
        "non-translation item (percent); per target language the paper's corpus BLEU "
        "(references padded), BLEU without the padding and chrF; scored by respondeoqa-eval "
        "with the paper's protocol."
    )
    present = set(configs)
    tasks = [
        {"id": task_id, "config": config, "split": SPLIT}
        for config in HEADLINE_CONFIGS
        if config in present
        for task_id in task_ids(config).values()
    ]
    return {
        "name": BENCHMARK_NAME,
        "description": description,
        "evaluation_framework": EVALUATION_FRAMEWORK,
        "tasks": tasks,
    }


def eval_yaml_text(configs: Iterable[str]) -> str:
    """`eval.yaml` text; a header comment says whether the Hub accepts the framework id."""
    import yaml

    header = [
        "# Registers this dataset as a Hub Benchmark (https://huggingface.co/docs/hub/eval-results);",
        "# models report results under these task ids with `respondeoqa-eval score --eval-results`.",
    ]
    if not FRAMEWORK_REGISTERED:
        header.append(
            "# NOT YET ACCEPTED BY THE HUB: " + FRAMEWORK_NOTE.removeprefix("eval.yaml: ")
        )
    body = yaml.safe_dump(eval_yaml_data(configs), sort_keys=False, allow_unicode=True, width=100)
    return "\n".join(header) + "\n" + body
