"""The Hub's results files: `.eval_results/*.yaml` read back with huggingface_hub's own parser,
and `eval.yaml` checked against the Hub's specification (hub-docs `docs/hub/eval-results.md`,
its rules quoted at a pinned commit in data/hub_eval_yaml_spec.json, read by
kit/hub_eval_spec.py) and its list of frameworks (`EVALUATION_FRAMEWORKS` of huggingface.js
`packages/tasks/src/eval.ts`, copied at a pinned commit into data/hub_eval_frameworks.json), its
task ids against the shipped Inspect tasks; the route (docs/hub-benchmark.md) against Inspect's
own reader of an eval.yaml; and the pair pushed to the Hub stand-in, then scored."""

from __future__ import annotations

import json
from importlib.metadata import metadata
from pathlib import Path

import pytest
import yaml
from conftest import require
from kit import hub_eval_spec
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


def test_eval_yaml_follows_every_rule_of_the_hub_spec_for_its_framework(tmp_path, public_dir):
    """Every rule of the kept specification holds for the built file, the framework listing
    once the proposed entry is on the Hub's list; until then that rule is the only one broken."""
    from respondeoqa_eval.dataset.export import build_folder

    out = build_folder(tmp_path / "ds", data_dir=public_dir).folder  # written by default
    data = yaml.safe_load((out / "eval.yaml").read_text("utf-8"))
    proposed = hub_eval_spec.proposed_entry()["key"]
    listed = (*hub_eval_spec.FRAMEWORKS, proposed)
    assert hub_eval_spec.eval_yaml_errors(data, listed) == []
    assert hub_eval_spec.eval_yaml_errors(data) == [
        f"evaluation_framework {EVALUATION_FRAMEWORK!r} is not one of the Hub's evaluation "
        "frameworks (huggingface.js packages/tasks/src/eval.ts)"
    ]
    assert data["evaluation_framework"] == EVALUATION_FRAMEWORK == proposed
    rules = hub_eval_spec.RULES
    assert set(data) == {r["field"] for r in rules["required"]}  # the Hub's fields only
    allowed = {r["field"] for r in rules["task_required"] + rules["task_optional"]}
    allowed |= {
        r["field"] for r in rules["framework_task_fields"].get(proposed, {}).get("required", [])
    }
    ids = [t["id"] for t in data["tasks"]]
    assert set(ids) == set(task_ids("public").values())
    for task in data["tasks"]:
        assert set(task) <= allowed and task["split"] == "test"
        assert (out / task["config"]).is_dir()  # the config it names exists in the build
    full = yaml.safe_load(eval_yaml_text(["public", "all"]))
    assert hub_eval_spec.eval_yaml_errors(full, listed) == []
    assert {t["config"] for t in full["tasks"]} == {"public", "all"}


def test_kept_spec_is_quoted_and_its_rules_read_as_the_page_shows():
    """Each rule quotes a sentence of the kept page; the page's own examples satisfy the rules,
    and an inspect-ai task without one of its required fields breaks them."""
    spec = hub_eval_spec.SPEC
    assert spec["commit"] in spec["source"] and spec["source"].endswith("/docs/hub/eval-results.md")
    text = hub_eval_spec.section_text()
    quotes = []

    def collect(node):
        if isinstance(node, dict):
            quotes.extend(v for k, v in node.items() if k in ("quote", "example_quote"))
            quotes.extend(node.get("quotes", []))
            for value in node.values():
                collect(value)
        elif isinstance(node, list):
            for value in node:
                collect(value)

    collect(hub_eval_spec.RULES)
    assert len(quotes) >= 15 and all(q in text for q in quotes), [
        q for q in quotes if q not in text
    ]
    examples = hub_eval_spec.documented_examples()
    assert [e["evaluation_framework"] for e in examples] == [
        "math-arena",
        "math-arena",
        "inspect-ai",
    ]
    assert all(hub_eval_spec.eval_yaml_errors(e) == [] for e in examples)
    hle = examples[-1]
    for field in ("field_spec", "solvers", "scorers"):
        broken = yaml.safe_load(yaml.safe_dump(hle))
        del broken["tasks"][0][field]
        assert hub_eval_spec.eval_yaml_errors(broken) == [
            f"tasks[0].{field} is required when evaluation_framework is inspect-ai"
        ]
    broken = yaml.safe_load(yaml.safe_dump(hle))
    del broken["tasks"][0]["field_spec"]["target"]
    assert hub_eval_spec.eval_yaml_errors(broken) == ["tasks[0].field_spec.target is required"]
    broken["tasks"] = [{"id": "a"}, {"id": "a", "split": ""}]
    broken["evaluation_framework"] = "math-arena"
    del broken["name"]
    assert hub_eval_spec.eval_yaml_errors(broken) == [
        "name is required",
        "tasks[1].id 'a' is not unique",
        "tasks[1].split must be a non-empty string",
    ]
    # the file this project used to write: inspect-ai, each task with id, config and split only
    old = yaml.safe_load(eval_yaml_text(["public"]))
    old["evaluation_framework"] = "inspect-ai"
    assert len(hub_eval_spec.eval_yaml_errors(old)) == 21


def test_inspect_reads_an_eval_yaml_with_builtin_scorers_only():
    """The evidence for the route (docs/hub-benchmark.md): Inspect's reader of a Hub eval.yaml
    (`inspect eval hf/ORG/NAME`, the inspect-ai route) validates each task with its `HFTask`,
    whose solver and scorer names are a fixed list of Inspect's built-ins: this package's scorer
    (the paper's extraction, feet partial credit, padded corpus BLEU), registered through the
    `inspect_ai` entry point, cannot be named there. If a new Inspect takes it, revisit."""
    require("inspect_ai")
    from inspect_ai._eval.task.hf import HFTask
    from inspect_ai._util.registry import registry_info
    from pydantic import ValidationError
    from respondeoqa_eval.harness import inspect_tasks

    ours = registry_info(inspect_tasks.paper_scorer("public")).name
    task = {
        "id": "respondeoqa_public-accuracy",
        "field_spec": {"input": "question", "target": "answers"},
        "solvers": [{"name": "system_message", "args": {"template": "..."}}, {"name": "generate"}],
        "scorers": [{"name": "match"}],
    }
    HFTask.model_validate(task)  # built-ins: read
    for name in (ours, "respondeoqa_eval/respondeoqa", "respondeoqa"):
        with pytest.raises(ValidationError, match="scorers.0.name"):
            HFTask.model_validate({**task, "scorers": [{"name": name}]})
    with pytest.raises(ValidationError, match="scorers"):  # the page's bullet spells it `scores`
        HFTask.model_validate({**{k: v for k, v in task.items() if k != "scorers"}, "scores": []})


def test_proposed_framework_entry_names_the_eval_yaml_framework():
    """hub/evaluation-framework.ts is one entry of eval.ts's EVALUATION_FRAMEWORKS, for the
    framework the built eval.yaml names, not yet on the Hub's list, linking to a project URL."""
    entry = hub_eval_spec.proposed_entry()
    assert entry["key"] == entry["name"] == EVALUATION_FRAMEWORK
    assert entry["key"] not in HUB_FRAMEWORKS["evaluation_frameworks"]
    assert 80 < len(entry["description"]) < 400 and "RespondeoQA" in entry["description"]
    urls = [u.split(", ", 1)[1] for u in metadata("respondeoqa-eval").get_all("Project-URL")]
    assert entry["url"] in urls  # pyproject's [project.urls]


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
    assert "eval.yaml: the Hub Benchmark file (evaluation_framework respondeoqa-eval)" in (
        capsys.readouterr().out
    )
    assert (tmp_path / "ds" / "eval.yaml").is_file()


def test_eval_results_task_ids_are_tasks_of_the_pushed_eval_yaml(
    tmp_path, public_dir, public_gold, monkeypatch, capsys
):
    """Both files from the commands a maintainer runs: `dataset build` and `dataset push` to a
    Hub that lists the proposed framework, then `score --eval-results` against the pushed
    revision. Every result names a task of the eval.yaml the Hub holds (a task renamed in one
    file and not the other fails here), and every task gets its result."""
    from huggingface_hub import parse_eval_result_entries
    from kit.hubstub import serving

    listed = (*hub_eval_spec.FRAMEWORKS, hub_eval_spec.proposed_entry()["key"])
    with serving(tmp_path / "hub", monkeypatch, frameworks=listed) as hub:
        build = [
            "dataset",
            "build",
            "--data-dir",
            str(public_dir),
            "--output",
            str(tmp_path / "ds"),
        ]
        assert main(build) == 0
        assert (
            main(["dataset", "push", "--repo-id", "org/rqa", "--folder", str(tmp_path / "ds")]) == 0
        )
        assert capsys.readouterr().err == ""
        pushed = yaml.safe_load(hub.files("org/rqa")["eval.yaml"])
        revision = hub.head("org/rqa")
    assert hub_eval_spec.eval_yaml_errors(pushed, listed) == []

    rows = _rows(tmp_path, public_gold)
    out = tmp_path / "model-repo"
    argv = ["score", str(rows), "--data-dir", str(public_dir), "--bootstrap", "0", "-q"]
    argv += ["--eval-results", str(out), "--eval-dataset", "org/rqa"]
    assert main([*argv, "--eval-dataset-revision", revision]) == 0
    entries = parse_eval_result_entries(
        yaml.safe_load((out / ".eval_results" / "respondeoqa.yaml").read_text("utf-8"))
    )
    assert {(e.dataset_id, e.dataset_revision) for e in entries} == {("org/rqa", revision)}
    results = [e.task_id for e in entries]
    assert len(results) == len(set(results))
    assert set(results) == {t["id"] for t in pushed["tasks"]}
