"""The lm-evaluation-harness task package, run by the real lm_eval 0.4.13 (no download).

Every number lm-eval reports must equal `respondeoqa-eval score` on the samples file it logs.
`--limit` runs only the first items of each task, so the score side reads a gold folder holding
exactly the logged items (the upstream files cut down to them): the CLI then scores the same
items lm-eval did.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require
from respondeoqa_eval.cli import main
from respondeoqa_eval.configs import CONFIGS
from respondeoqa_eval.harness import TASKS, task_dir
from respondeoqa_eval.harness.lm_eval_task import DATASET_ENV
from respondeoqa_eval.records import Record
from respondeoqa_eval.runner.prompts import (
    PROMPT_VERSION,
    TEMPERATURE,
    TOP_P,
    build_messages,
)
from runner.tiny_model import build_tiny_model

require("lm_eval")  # CI=true: a missing lm_eval fails, never skips

PUBLIC_GROUP = [
    "respondeoqa_jun_schol_short_answer",
    "respondeoqa_jun_schol_translation",
    "respondeoqa_lat_pros_feet",
    "respondeoqa_lat_pros_meter",
]


@pytest.fixture(scope="module")
def export(tmp_path_factory, public_dir):
    """`respondeoqa-eval dataset build` of the public configs (what the tasks load)."""
    from respondeoqa_eval.dataset.export import build_folder

    out = tmp_path_factory.mktemp("export") / "respondeoqa"
    build_folder(out, data_dir=public_dir)
    return out


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(tmp / "hf_home"),
        TOKENIZERS_PARALLELISM="false",
        **extra,
    )
    env.pop("RESPONDEOQA_DATA_DIR", None)
    return env


def _samples(folder: Path) -> dict[str, list[dict]]:
    out = {}
    for path in sorted(folder.rglob("samples_*.jsonl")):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        out[task] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return out


def _gold_of_logged(samples: dict[str, list[dict]], public_dir: Path, out: Path) -> Path:
    """The upstream files cut down to the logged items (same rows, same order)."""
    wanted: dict[str, set[str]] = {}
    for rows in samples.values():
        for row in rows:
            wanted.setdefault(row["doc"]["file"], set()).add(row["doc"]["question_id"])
    out.mkdir()
    for name, qids in wanted.items():
        rows = json.loads((public_dir / name).read_text(encoding="utf-8"))
        kept = [r for r in rows if r["question_id"] in qids]
        (out / name).write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
    return out


def _score(preds: Path, data_dir: Path, report: Path) -> dict:
    code = main(
        [
            "score",
            str(preds),
            "--data-dir",
            str(data_dir),
            "--report",
            str(report),
            "--bootstrap",
            "0",
            "-q",
        ]
    )
    assert code == 0
    return json.loads(report.read_text(encoding="utf-8"))


def _check_equal(results: dict, report: dict) -> int:
    """lm-eval's numbers against the report's; returns how many were compared."""
    res = results["results"]
    acc = report["accuracy"]
    compared = 0
    group = results["groups"]["respondeoqa"]["acc,none"]
    assert group == pytest.approx(acc["overall"]["score"], abs=1e-12)
    compared += 1
    task_of = {
        "respondeoqa_jun_schol_short_answer": "short_answer",
        "respondeoqa_lat_pros_feet": "feet",
        "respondeoqa_lat_pros_meter": "meter",
    }
    for task, key in task_of.items():
        assert res[task]["acc,none"] == pytest.approx(acc["by_task"][key]["score"], abs=1e-12)
        compared += 1
    translation = res["respondeoqa_jun_schol_translation"]
    for lang in ("english", "latin"):
        overall = report["bleu"][lang]["overall"] if report["bleu"].get(lang) else None
        if f"bleu_{lang},none" not in translation:
            assert overall is None or overall["n"] == 0
            continue
        assert translation[f"bleu_{lang},none"] == pytest.approx(overall["score"], abs=1e-9)
        assert translation[f"bleu_{lang}_variable_refs,none"] == pytest.approx(
            overall["variable_refs"], abs=1e-9
        )
        compared += 2
    return compared


def test_task_files_cover_every_config_with_the_papers_generation_settings():
    import yaml

    folder = task_dir()
    assert {p.stem for p in folder.glob("respondeoqa_*.yaml")} == set(TASKS)
    for name, config in TASKS.items():
        data = yaml.safe_load((folder / f"{name}.yaml").read_text(encoding="utf-8"))
        assert data["task"] == name and data["dataset_kwargs"] == {"config": config}
    template = (folder / "_respondeoqa_template_yaml").read_text(encoding="utf-8")
    gen = yaml.safe_load(template.replace("!function ", ""))["generation_kwargs"]
    from respondeoqa_eval.runner.hf import DEFAULT_MAX_NEW_TOKENS

    assert (gen["temperature"], gen["top_p"], gen["max_gen_toks"], gen["do_sample"]) == (
        TEMPERATURE,
        TOP_P,
        DEFAULT_MAX_NEW_TOKENS,
        True,
    )
    group = yaml.safe_load((folder / "_group_respondeoqa.yaml").read_text(encoding="utf-8"))
    assert group["task"] == PUBLIC_GROUP
    assert all(not CONFIGS[TASKS[t]].private for t in group["task"])
    full = yaml.safe_load((folder / "_group_respondeoqa_full.yaml").read_text(encoding="utf-8"))
    # one task per source and task: every item once
    assert {TASKS[t] for t in full["task"]} == {c for c in CONFIGS if len(CONFIGS[c].tasks) == 1}


def test_cli_prints_the_include_path(capsys):
    assert main(["harness", "path"]) == 0
    assert Path(capsys.readouterr().out.strip()) == task_dir()


@pytest.mark.slow
def test_lm_eval_cli_end_to_end_on_a_tiny_model(tmp_path, export, public_dir):
    """`lm_eval --model hf ... --tasks respondeoqa --apply_chat_template --log_samples`."""
    model = build_tiny_model(tmp_path / "tiny")
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "lm_eval",
        "--model",
        "hf",
        "--model_args",
        f"pretrained={model},dtype=float32",
        "--include_path",
        str(task_dir()),
        "--tasks",
        "respondeoqa",
        "--apply_chat_template",
        "--limit",
        "8",
        "--batch_size",
        "8",
        "--device",
        "cpu",
        "--gen_kwargs",
        "max_gen_toks=12",
        "--log_samples",
        "--output_path",
        str(out),
    ]
    run = subprocess.run(
        cmd,
        env=_env(tmp_path, **{DATASET_ENV: str(export)}),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(Path(glob.glob(str(out / "*" / "results_*.json"))[0]).read_text())
    samples = _samples(out)
    assert sorted(samples) == PUBLIC_GROUP and all(len(v) == 8 for v in samples.values())

    # the prompt is the paper's two messages through the model's chat template
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model)
    for rows in samples.values():
        for row in rows[:3]:
            record = Record(**{k: row["doc"][k] for k in Record.__dataclass_fields__})
            expected = tok.apply_chat_template(
                build_messages(record), tokenize=False, add_generation_prompt=True
            )
            assert row["arguments"]["gen_args_0"]["arg_0"] == expected
            assert row["arguments"]["gen_args_0"]["arg_1"]["temperature"] == TEMPERATURE

    gold = _gold_of_logged(samples, public_dir, tmp_path / "gold")
    report = _score(out, gold, tmp_path / "report.json")
    assert report["n_items"] == 32 and report["missing"] == 0
    assert _check_equal(results, report) >= 5
    # per item as well: lm-eval's logged acc is our item score
    ours = {it["id"]: it["score"] for it in report["items"]}
    for task, rows in samples.items():
        for row in rows:
            if "acc" in row:
                assert row["acc"] == ours[row["doc"]["id"]], (task, row["doc"]["id"])
    prov = report["provenance"]  # docs/report.md
    assert prov["tool"] == "lm-evaluation-harness" and prov["model"] == str(model)
    assert prov["tool_version"] == "0.4.13" and prov["prompt_version"] == PROMPT_VERSION
    assert prov["params"]["temperature"] == TEMPERATURE and len(prov["tasks"]) == 4


class _Oracle:
    """An lm_eval LM that answers from the gold for most items (non-trivial numbers)."""

    @staticmethod
    def make():
        from lm_eval.api.model import LM

        class Oracle(LM):
            def loglikelihood(self, requests):
                raise NotImplementedError

            def loglikelihood_rolling(self, requests):
                raise NotImplementedError

            def generate_until(self, requests):
                out = []
                for i, req in enumerate(requests):
                    doc = req.doc
                    gold = doc["answers"][0]
                    if doc["task"] == "translation":
                        words = gold.split()
                        text = "Answer: " + " ".join(words[: max(1, len(words) * (i % 3) // 2)])
                    elif i % 3 == 0:
                        text = "Thinking.\nAnswer: wrong"
                    else:
                        text = f"Thinking.\n**Answer: {gold}**"
                    out.append(text)
                return out

        return Oracle()


def test_lm_eval_numbers_equal_score_on_its_samples(tmp_path, public_dir):
    """The real lm_eval pipeline (tasks, process_results, aggregations, group weighting, sample
    logging) with answers that are partly right: every number equals `respondeoqa-eval score`."""
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    os.environ.pop(DATASET_ENV, None)
    manager = TaskManager(
        include_path=str(task_dir()),
        include_defaults=False,
        metadata={"data_dir": str(public_dir)},  # as `lm_eval --metadata '{"data_dir": ...}'`
    )
    results = simple_evaluate(
        model=_Oracle.make(),
        tasks=["respondeoqa"],
        task_manager=manager,
        limit=30,
        log_samples=True,
        bootstrap_iters=0,
    )
    out = tmp_path / "out"
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.model_name_sanitized = "oracle"
    tracker.save_results_aggregated(results=dict(results), samples=results["samples"])
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=results["samples"][task])
    samples = _samples(out)
    assert sorted(samples) == PUBLIC_GROUP

    gold = _gold_of_logged(samples, public_dir, tmp_path / "gold")
    report = _score(out, gold, tmp_path / "report.json")
    assert report["n_items"] == 120 and report["missing"] == 0
    assert 0.3 < report["accuracy"]["overall"]["score"] < 0.9  # not a trivial 0 or 1
    assert report["bleu"]["latin"]["overall"]["score"] > 10
    assert _check_equal(results, report) >= 5
