"""The Hub's results files: `.eval_results/*.yaml` read back with huggingface_hub's own parser,
and `eval.yaml` checked against the Hub's specification and its real list of frameworks (the
`@huggingface/tasks` npm package, whose `EVALUATION_FRAMEWORKS` the Hub validates against)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile

import pytest
import yaml
from conftest import require, unavailable
from respondeoqa_eval import evaluate
from respondeoqa_eval.cli import main
from respondeoqa_eval.harness.eval_results import (
    EVALUATION_FRAMEWORK,
    FRAMEWORK_REGISTERED,
    eval_yaml_text,
    task_ids,
)

HF_TASKS = "@huggingface/tasks@0.21.54"

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
    assert values["public-accuracy"] == pytest.approx(100 * 40 / 797, abs=1e-4)
    for lang in ("english", "latin"):
        bleu = report["bleu"][lang]["overall"]
        assert values[f"public-bleu-{lang}"] == pytest.approx(bleu["score"], abs=1e-4)
        assert values[f"public-bleu-{lang}-unpadded"] == pytest.approx(
            bleu["variable_refs"], abs=1e-4
        )
        assert values[f"public-chrf-{lang}"] == pytest.approx(bleu["chrf"], abs=1e-4)
        # half the translations are unanswered: the padding hides it, the others do not
        assert values[f"public-bleu-{lang}"] > values[f"public-bleu-{lang}-unpadded"]
    assert set(values) == set(task_ids("public").values())


def test_eval_yaml_follows_the_hub_spec_and_pairs_with_the_results(tmp_path, public_dir):
    from respondeoqa_eval.dataset.export import build_folder

    out = build_folder(tmp_path / "ds", data_dir=public_dir, eval_yaml=True).folder
    text = (out / "eval.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    # https://huggingface.co/docs/hub/eval-results#evalyaml-specification
    assert set(data) == {"name", "description", "evaluation_framework", "tasks"}
    assert all(isinstance(data[k], str) and data[k] for k in ("name", "description"))
    assert data["evaluation_framework"] == EVALUATION_FRAMEWORK
    ids = [t["id"] for t in data["tasks"]]
    assert len(ids) == len(set(ids)) and set(ids) == set(task_ids("public").values())
    for task in data["tasks"]:
        assert set(task) <= {"id", "config", "split"} and task["split"] == "test"
        assert (out / task["config"]).is_dir()  # the config it names exists in the build
    assert "NOT YET ACCEPTED BY THE HUB" in text
    assert yaml.safe_load(eval_yaml_text(["public", "all"]))["tasks"][-1]["config"] == "all"


def test_dataset_build_says_the_hub_rejects_the_framework(tmp_path, public_dir, capsys):
    argv = ["dataset", "build", "--data-dir", str(public_dir), "--output", str(tmp_path / "ds")]
    assert main([*argv, "--eval-yaml"]) == 0
    printed = capsys.readouterr().out
    assert (
        "note: eval.yaml: evaluation_framework 'respondeoqa-eval' is not on the Hub's list"
        in printed
    )


@pytest.fixture(scope="session")
def hub_frameworks(tmp_path_factory) -> list[str]:
    """The Hub's list of evaluation frameworks, from the real @huggingface/tasks package."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if not (npm and node):
        unavailable("npm and node are needed to read @huggingface/tasks")
    folder = tmp_path_factory.mktemp("hf-tasks")
    packed = subprocess.run(
        [npm, "pack", HF_TASKS, "--silent"], cwd=folder, capture_output=True, text=True, timeout=300
    )
    assert packed.returncode == 0, packed.stderr[-2000:]
    with tarfile.open(folder / packed.stdout.strip().splitlines()[-1]) as tar:
        tar.extractall(folder, filter="data")
    script = (
        "console.log(JSON.stringify(Object.keys(require(process.argv[1]).EVALUATION_FRAMEWORKS)))"
    )
    listed = subprocess.run(
        [node, "-e", script, str(folder / "package" / "dist" / "commonjs" / "eval.js")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr[-2000:]
    return json.loads(listed.stdout)


def test_framework_registration_flag_matches_the_hubs_list(hub_frameworks):
    assert "inspect-ai" in hub_frameworks and len(hub_frameworks) > 10
    # FRAMEWORK_REGISTERED (and so the README's and the command's warning) says the truth
    assert (EVALUATION_FRAMEWORK in hub_frameworks) is FRAMEWORK_REGISTERED
