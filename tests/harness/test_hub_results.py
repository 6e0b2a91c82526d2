"""The Hub's results files: `.eval_results/*.yaml` read back with huggingface_hub's own parser,
and `eval.yaml` checked against the Hub's specification and its list of frameworks
(`EVALUATION_FRAMEWORKS` of huggingface.js `packages/tasks/src/eval.ts`, copied at a pinned
commit into data/hub_eval_frameworks.json), its task ids against the shipped Inspect tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import require
from respondeoqa_eval import evaluate
from respondeoqa_eval.cli import main
from respondeoqa_eval.harness.eval_results import (
    EVALUATION_FRAMEWORK,
    eval_yaml_text,
    results_entries,
    task_ids,
)

HUB_FRAMEWORKS = json.loads(
    (Path(__file__).parent / "data" / "hub_eval_frameworks.json").read_text("utf-8")
)

require("huggingface_hub")


def _rows(tmp_path, public_gold):
    """Right answers for 40 accuracy items and half of the translations, the rest missing."""
    picked = [r for r in public_gold.records if r.task != "translation"][:40]
    picked += [r for r in public_gold.records if r.task == "translation"][::2]
    path = tmp_path / "p.jsonl"
    path.write_text(
        "".join(json.dumps({"id": r.id, "answer": r.answers[0]}) + "\n" for r in picked), "utf-8"
    )
    return path


def test_eval_results_are_hub_entries_with_revision_and_never_padded_bleu_alone(
    tmp_path, public_gold, public_dir, capsys
):
    from huggingface_hub import parse_eval_result_entries

    rows = _rows(tmp_path, public_gold)
    out = tmp_path / "model-repo"
    argv = ["score", str(rows), "--data-dir", str(public_dir), "--bootstrap", "0", "-q"]
    argv += ["--eval-results", str(out)]
    assert main(argv) == 2  # needs --eval-dataset
    assert "--eval-dataset" in capsys.readouterr().err
    bad = [*argv, "--eval-dataset", "org/respondeoqa", "--eval-dataset-revision", "main"]
    assert main(bad) == 2
    assert "commit sha" in capsys.readouterr().err
    sha = "5503434ddd753f426f4b38109466949a1217c2bb"
    ok = [*argv, "--eval-dataset", "org/respondeoqa", "--eval-dataset-revision", sha]
    assert main([*ok, "--eval-source", "https://example.org/logs"]) == 0
    data = yaml.safe_load((out / ".eval_results" / "respondeoqa.yaml").read_text("utf-8"))
    entries = parse_eval_result_entries(data)  # the Hub client's own reader of the format
    assert {e.dataset_id for e in entries} == {"org/respondeoqa"}
    assert {e.dataset_revision for e in entries} == {sha}
    assert {e.source_url for e in entries} == {"https://example.org/logs"}
    values = {e.task_id: e.value for e in entries}

    report = evaluate(rows, public_gold, bootstrap=0).to_dict()
    task = "respondeoqa_public"  # the Inspect task, and its metric names
    assert values[f"{task}-accuracy"] == pytest.approx(100 * 40 / 797, abs=1e-4)
    for lang in ("english", "latin"):
        bleu = report["bleu"][lang]["overall"]
        assert values[f"{task}-bleu_{lang}"] == pytest.approx(bleu["score"], abs=1e-4)
        assert values[f"{task}-bleu_{lang}_variable_refs"] == pytest.approx(
            bleu["variable_refs"], abs=1e-4
        )
        assert values[f"{task}-chrf_{lang}"] == pytest.approx(bleu["chrf"], abs=1e-4)
        # half the translations are unanswered: the padding hides it, the others do not
        assert values[f"{task}-bleu_{lang}"] > values[f"{task}-bleu_{lang}_variable_refs"]
    assert set(values) == set(task_ids("public").values())
    assert all("produced through" not in e.notes for e in entries)  # our own predictions file

    # a report of an lm-eval (or lighteval) log: the same ids, labelled with the harness
    report["provenance"] = {"tool": "lm-evaluation-harness", "tool_version": "0.4.13"}
    harness = results_entries(report, "org/respondeoqa")
    assert {e.task_id for e in harness} == set(values)
    assert all("produced through lm-evaluation-harness 0.4.13" in e.notes for e in harness)


def test_eval_yaml_follows_the_hub_spec_and_pairs_with_the_results(tmp_path, public_dir):
    from respondeoqa_eval.dataset.export import build_folder

    out = build_folder(tmp_path / "ds", data_dir=public_dir).folder  # written by default
    data = yaml.safe_load((out / "eval.yaml").read_text("utf-8"))
    # https://huggingface.co/docs/hub/eval-results#evalyaml-specification
    assert set(data) == {"name", "description", "evaluation_framework", "tasks"}
    assert all(isinstance(data[k], str) and data[k] for k in ("name", "description"))
    assert data["evaluation_framework"] in HUB_FRAMEWORKS["evaluation_frameworks"]
    assert data["evaluation_framework"] == EVALUATION_FRAMEWORK == "inspect-ai"
    ids = [t["id"] for t in data["tasks"]]
    assert len(ids) == len(set(ids)) and set(ids) == set(task_ids("public").values())
    for task in data["tasks"]:
        assert set(task) == {"id", "config", "split"} and task["split"] == "test"
        assert (out / task["config"]).is_dir()  # the config it names exists in the build
    full = yaml.safe_load(eval_yaml_text(["public", "all"]))["tasks"]
    assert {t["config"] for t in full} == {"public", "all"}


def test_pinned_framework_list_is_the_hubs():
    """The copy names its source; the list has the Hub's 30 entries at that commit."""
    assert HUB_FRAMEWORKS["commit"] in HUB_FRAMEWORKS["source"]
    assert HUB_FRAMEWORKS["source"].endswith("/packages/tasks/src/eval.ts")
    names = HUB_FRAMEWORKS["evaluation_frameworks"]
    assert len(names) == len(set(names)) == 30 and "inspect-ai" in names
    assert not {"lm-eval", "lighteval", "respondeoqa-eval"} & set(names)


def test_eval_yaml_task_ids_name_shipped_inspect_tasks_and_their_metrics():
    """`<inspect task>-<metric>`: the task exists in inspect_tasks, for that config, and its
    scorer reports that metric."""
    require("inspect_ai")
    from inspect_ai._util.registry import registry_info
    from respondeoqa_eval.harness import inspect_tasks

    for task in yaml.safe_load(eval_yaml_text(["public", "all"]))["tasks"]:
        name, metric = task["id"].split("-", 1)
        assert name == f"respondeoqa_{task['config']}"
        assert registry_info(getattr(inspect_tasks, name)).type == "task"
        # registry names carry the package's prefix ("respondeoqa_eval/accuracy") when the
        # package is installed, as Inspect finds it through its entry point, and none otherwise
        metrics = inspect_tasks._metrics(task["config"])
        reported = {registry_info(m).name.rsplit("/", 1)[-1] for m in metrics}
        assert metric in reported, (task["id"], reported)


def test_dataset_build_says_eval_yaml_goes_with_the_push(tmp_path, public_dir, capsys):
    argv = ["dataset", "build", "--data-dir", str(public_dir), "--output", str(tmp_path / "ds")]
    assert main(argv) == 0
    assert "eval.yaml: the Hub Benchmark file (evaluation_framework inspect-ai)" in (
        capsys.readouterr().out
    )
    assert (tmp_path / "ds" / "eval.yaml").is_file()
