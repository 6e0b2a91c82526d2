"""The Hub's evaluation-results files (https://huggingface.co/docs/hub/eval-results).

- A model repository's `.eval_results/*.yaml`: a list of results, each
  `{dataset: {id, task_id}, value, date, source: {url, name}, notes}`; the Hub shows them on the
  model page and in the benchmark dataset's leaderboard.
- A benchmark dataset's `eval.yaml` at the repository root: `name`, `description`,
  `evaluation_framework` and `tasks` (`id`, `config`, `split`); it makes the dataset a Benchmark
  whose leaderboards collect the models' results by task id.

The task ids pair the two files: per dataset config (`public`, or `all` with Certamen and NLE),
`<config>-accuracy` (the paper's headline accuracy, in percent), `<config>-bleu-english` and
`<config>-bleu-latin` (the paper's padded BLEU). The YAML is written by hand (JSON scalars are
valid YAML), so the base package needs no YAML library.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..configs import CONFIGS
from ..errors import InputError
from ..io import write_text_atomic

EVALUATION_FRAMEWORK = "respondeoqa-eval"
"""Our `evaluation_framework` id; the Hub lists known frameworks and allow-lists benchmarks."""

HEADLINE_CONFIGS = ("public", "all")
SPLIT = "test"
RESULTS_FILE = "respondeoqa.yaml"
EVAL_YAML = "eval.yaml"
BENCHMARK_NAME = "RespondeoQA"
_BLEU_LANGUAGES = ("english", "latin")


def task_ids(config: str) -> dict[str, str]:
    """The headline task ids of a config: metric -> task id."""
    return {
        "accuracy": f"{config}-accuracy",
        **{f"bleu_{lang}": f"{config}-bleu-{lang}" for lang in _BLEU_LANGUAGES},
    }


def _q(value: Any) -> str:
    """A YAML scalar (JSON syntax is YAML)."""
    return json.dumps(value, ensure_ascii=False)


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


def results_entries(
    report: Mapping[str, Any],
    dataset_id: str,
    *,
    date: str | None = None,
    source_url: str | None = None,
    source_name: str | None = None,
) -> list[dict[str, Any]]:
    """The `.eval_results` entries of a report dict (docs/report.md): accuracy and both BLEUs."""
    config = config_of_report(report)
    ids = task_ids(config)
    date = date or dt.date.today().isoformat()
    notes = "paper protocol (respondeoqa-eval {}), {}".format(
        report["evaluator"]["version"], "accuracy in percent; BLEU 0-100 with the paper's padding"
    )
    values = {"accuracy": round(100 * report["accuracy"]["overall"]["score"], 4)}
    for lang in _BLEU_LANGUAGES:
        entry = (report.get("bleu") or {}).get(lang) or {}
        overall = entry.get("overall")
        if overall:
            values[f"bleu_{lang}"] = round(overall["score"], 4)
    out = []
    for metric, value in values.items():
        item: dict[str, Any] = {
            "dataset": {"id": dataset_id, "task_id": ids[metric]},
            "value": value,
            "date": date,
        }
        if source_url:
            item["source"] = {"url": source_url, **({"name": source_name} if source_name else {})}
        item["notes"] = notes
        out.append(item)
    return out


def results_yaml(entries: Iterable[Mapping[str, Any]]) -> str:
    """`.eval_results/*.yaml` text for `entries`."""
    lines = ["# RespondeoQA results, written by `respondeoqa-eval score --eval-results`"]
    for e in entries:
        ds = e["dataset"]
        lines += [
            "- dataset:",
            f"    id: {_q(ds['id'])}",
            f"    task_id: {_q(ds['task_id'])}",
            f"  value: {_q(e['value'])}",
            f"  date: {_q(e['date'])}",
        ]
        if "source" in e:
            lines.append("  source:")
            lines += [f"    {k}: {_q(v)}" for k, v in e["source"].items()]
        if "notes" in e:
            lines.append(f"  notes: {_q(e['notes'])}")
    return "\n".join(lines) + "\n"


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
    folder = Path(folder)
    target = folder if folder.name == ".eval_results" else folder / ".eval_results"
    if target.exists() and not target.is_dir():
        raise InputError(f"{target}: exists and is not a folder")
    path = target / RESULTS_FILE
    write_text_atomic(path, results_yaml(results_entries(report, dataset_id, **kwargs)))
    return path


def eval_yaml_text(configs: Iterable[str]) -> str:
    """The benchmark's `eval.yaml` for a dataset build holding `configs`."""
    description = (
        "RespondeoQA, the Latin-English question-answering benchmark (Hudspeth, Burns and "
        "O'Connor, 2026, arXiv:2604.20738). Tasks: the paper's headline accuracy over every "
        "non-translation item (percent) and corpus BLEU per target language, scored by "
        "respondeoqa-eval with the paper's protocol."
    )
    lines = [
        "# Registers this dataset as a Hub Benchmark (https://huggingface.co/docs/hub/eval-results);",
        "# models report results under these task ids with `respondeoqa-eval score --eval-results`.",
        f"name: {_q(BENCHMARK_NAME)}",
        f"description: {_q(description)}",
        f"evaluation_framework: {_q(EVALUATION_FRAMEWORK)}",
        "tasks:",
    ]
    present = set(configs)
    for config in HEADLINE_CONFIGS:
        if config not in present:
            continue
        for task_id in task_ids(config).values():
            lines += [
                f"  - id: {_q(task_id)}",
                f"    config: {_q(config)}",
                f"    split: {_q(SPLIT)}",
            ]
    return "\n".join(lines) + "\n"
