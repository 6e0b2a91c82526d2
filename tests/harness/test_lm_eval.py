"""The lm-evaluation-harness task folder, run by the real lm_eval 0.4.13 (no download).

Every number lm-eval reports must equal `respondeoqa-eval score` on the samples file it logs.
`--limit` runs only the first items of each task, so the score side reads a gold folder holding
exactly the logged items (the upstream files cut down to them): the CLI then scores the same
items lm-eval did. Public tasks read `dataset_path` (the Hub dataset): here a local
`respondeoqa-eval dataset build` folder put in its place by an override group in a second
include path, as docs/harnesses.md tells users with a local build to do.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import require
from respondeoqa_eval.cli import main
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.data.sources import HUB_DATASET
from respondeoqa_eval.harness import TASKS, task_dir
from respondeoqa_eval.harness.lm_eval_task import DATASET_ENV, plain_prompt
from respondeoqa_eval.runner.prompts import (
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    TEMPERATURE,
    TOP_P,
    build_messages,
    user_prompt,
)
from runner.tiny_model import build_tiny_model
from synthetic import write_private

from . import paper_rules
from .lmkit import gold_of_ids, score_cli

require("lm_eval")  # CI=true: a missing lm_eval fails, never skips

FILTER = "paper_extraction"
PUBLIC_LEAVES = [
    "respondeoqa_jun_schol_short_answer",
    "respondeoqa_lat_pros_feet",
    "respondeoqa_lat_pros_meter",
    "respondeoqa_jun_schol_translation_english",
    "respondeoqa_jun_schol_translation_latin",
]
GROUPS = [
    "respondeoqa",
    "respondeoqa_accuracy",
    "respondeoqa_greedy",
    "respondeoqa_full",
    "respondeoqa_full_accuracy",
    "respondeoqa_full_greedy",
    "respondeoqa_jun_schol_translation",
    "respondeoqa_certamen_translation",
]
ACC_OF = {"short_answer", "feet", "meter", "multiple_choice"}


def _yaml(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8").replace("!function ", ""))


@pytest.fixture(scope="module")
def export(tmp_path_factory, public_dir):
    """`respondeoqa-eval dataset build` of the public configs (what `dataset_path` serves)."""
    from respondeoqa_eval.dataset.export import build_folder

    out = tmp_path_factory.mktemp("export") / "respondeoqa"
    build_folder(out, data_dir=public_dir)
    return out


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """Synthetic Certamen / NLE beside the public files, and their full private export."""
    from respondeoqa_eval.dataset.export import build_folder

    gold = write_private(tmp_path_factory.mktemp("full-gold"), with_public=True)
    out = tmp_path_factory.mktemp("full-export") / "respondeoqa"
    build_folder(out, data_dir=gold, include_private=True)
    return gold, out


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_HOME=str(tmp / "hf_home"),
        TOKENIZERS_PARALLELISM="false",
        **extra,
    )
    for key in (DATASET_ENV, "RESPONDEOQA_DATA_DIR"):
        env.pop(key, None)
    return env


def _samples(folder: Path) -> dict[str, list[dict]]:
    out = {}
    for path in sorted(folder.rglob("samples_*.jsonl")):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        out[task] = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return out


def _gold_of_logged(samples: dict[str, list[dict]], gold_dir: Path, out: Path) -> Path:
    wanted: dict[str, set[str]] = {}
    for rows in samples.values():
        for row in rows:
            wanted.setdefault(row["doc"]["file"], set()).add(row["doc"]["question_id"])
    return gold_of_ids(wanted, gold_dir, out)


def _check_equal(results: dict, report: dict, accuracy_group: str, samples: dict) -> int:
    """lm-eval's numbers against the report's; returns how many were compared."""
    res = results["results"]
    group = results["groups"][accuracy_group][f"acc,{FILTER}"]
    assert group == pytest.approx(report["accuracy"]["overall"]["score"], abs=1e-12)
    compared = 1
    score_of = {it["id"]: it["score"] for it in report["items"]}
    for name, metrics in res.items():
        task = TASKS.get(name)
        if task is None:
            continue  # a group
        if task.translation:
            bleu = report["bleu"][task.language]["overall"]
            assert metrics["sample_len"] == bleu["n"]  # every document counted
            for key, field in (
                ("bleu", "score"),
                ("bleu_variable_refs", "variable_refs"),
                ("chrf", "chrf"),
            ):
                assert metrics[f"{key},{FILTER}"] == pytest.approx(bleu[field], abs=1e-9), (
                    name,
                    key,
                )
                compared += 1
        else:  # the mean of our item scores over the task's documents
            ours = [score_of[row["doc"]["id"]] for row in samples[name]]
            assert f"bleu,{FILTER}" not in metrics and metrics["sample_len"] == len(ours)
            assert metrics[f"acc,{FILTER}"] == pytest.approx(sum(ours) / len(ours), abs=1e-12)
            compared += 1
    return compared


def test_task_folder_matches_the_task_table_and_the_papers_settings():
    folder = task_dir()
    assert {p.stem for p in folder.glob("respondeoqa_*.yaml")} == set(TASKS)
    for name, task in TASKS.items():
        data = _yaml(folder / f"{name}.yaml")
        assert data["task"] == name
        template = "_translation_template_yaml" if task.translation else "_accuracy_template_yaml"
        assert data["include"] == template
        assert data["dataset_kwargs"] == {"config": task.config}  # what load_docs reads
        if task.private:
            assert "dataset_path" not in data
        else:  # upstream convention: a Hub dataset, our config as its name
            assert (data["dataset_path"], data["dataset_name"]) == (HUB_DATASET, task.config)
        if task.translation:
            assert data["process_docs"] == f"utils.process_docs_into_{task.language}"
    base = _yaml(folder / "_respondeoqa_template_yaml")
    gen = base["generation_kwargs"]
    from respondeoqa_eval.runner.hf import DEFAULT_MAX_NEW_TOKENS

    assert (gen["temperature"], gen["top_p"], gen["max_gen_toks"], gen["do_sample"]) == (
        TEMPERATURE,
        TOP_P,
        DEFAULT_MAX_NEW_TOKENS,
        True,
    )
    assert base["filter_list"][0]["name"] == FILTER and base["num_fewshot"] == 0
    for group in ("respondeoqa_greedy", "respondeoqa_full_greedy"):
        greedy = _yaml(folder / f"_group_{group}.yaml")
        assert greedy["generation_kwargs"]["do_sample"] is False
        assert greedy["task"] == [group.removesuffix("_greedy")]


def _leaves(name: str, folder: Path) -> list[str]:
    if name in TASKS:
        return [name]
    data = _yaml(folder / f"_group_{name}.yaml")
    return [leaf for child in data["task"] for leaf in _leaves(child, folder)]


def test_groups_report_one_metric_set_per_task_and_every_item_once():
    folder = task_dir()
    assert {p.stem.removeprefix("_group_") for p in folder.glob("_group_*.yaml")} == set(GROUPS)
    assert sorted(_leaves("respondeoqa", folder)) == sorted(PUBLIC_LEAVES)
    assert all(not TASKS[t].private for t in PUBLIC_LEAVES)
    full = _leaves("respondeoqa_full", folder)
    # every accuracy config once, and the pooled translations (config `all`) per language
    accuracy = {TASKS[t].config for t in full if not TASKS[t].translation}
    assert accuracy == {t.config for t in TASKS.values() if not t.translation}
    assert {(TASKS[t].config, TASKS[t].language) for t in full if TASKS[t].translation} == {
        ("all", "english"),
        ("all", "latin"),
    }
    for group in GROUPS:
        data = _yaml(folder / f"_group_{group}.yaml")
        if "aggregate_metric_list" in data:  # only accuracy tasks under an acc aggregate
            assert [m["metric"] for m in data["aggregate_metric_list"]] == ["acc"]
            assert all(not TASKS[t].translation for t in _leaves(group, folder))


@pytest.mark.slow
def test_lm_eval_validate_passes_every_task_and_group(tmp_path):
    """`lm-eval validate` (lm_eval 0.4.13's CLI), as CI runs it on the folder."""
    names = ",".join([*GROUPS, *TASKS])
    cmd = [sys.executable, "-m", "lm_eval", "validate", "--include_path", str(task_dir())]
    run = subprocess.run(
        [*cmd, "--tasks", names], env=_env(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "All tasks found and valid" in run.stdout
    bad = subprocess.run(
        [*cmd, "--tasks", "respondeoqa,respondeoqa_nope"],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert bad.returncode == 1 and "respondeoqa_nope" in bad.stdout


def test_cli_prints_the_include_path(capsys):
    assert main(["harness", "path"]) == 0
    assert Path(capsys.readouterr().out.strip()) == task_dir()


def _manager(metadata: dict | None = None):
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=str(task_dir()), include_defaults=False, metadata=metadata)


def test_private_tasks_without_files_say_what_to_pass(monkeypatch):
    monkeypatch.delenv(DATASET_ENV, raising=False)
    monkeypatch.delenv("RESPONDEOQA_DATA_DIR", raising=False)
    with pytest.raises(Exception, match="Certamen"):
        _manager().load(["respondeoqa_nle_multiple_choice"])


@pytest.mark.slow
def test_lm_eval_cli_end_to_end_on_a_tiny_model(tmp_path, export, public_dir):
    """`lm_eval --model hf ... --apply_chat_template --log_samples` on a tiny random model."""
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
        "--metadata",
        json.dumps({"dataset": str(export)}),
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
    run = subprocess.run(cmd, env=_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    # one metric set on every document of every task: no warning about it
    assert "not scored on the same number" not in run.stderr
    assert "is missing in" not in run.stderr
    results = json.loads(Path(glob.glob(str(out / "*" / "results_*.json"))[0]).read_text())
    samples = _samples(out)
    assert sorted(samples) == sorted(PUBLIC_LEAVES) and all(len(v) == 8 for v in samples.values())

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
    report = score_cli(out, gold, tmp_path / "report.json")
    assert report["n_items"] == 40 and report["missing"] == 0
    assert _check_equal(results, report, "respondeoqa_accuracy", samples) >= 9
    # per item as well: lm-eval's acc is our item score, its filtered_resps our extraction
    ours = {it["id"]: it for it in report["items"]}
    for task, rows in samples.items():
        for row in rows:
            item = ours[row["doc"]["id"]]
            assert row["filtered_resps"] == [item["extracted"] or ""], (task, row["doc"]["id"])
            if "acc" in row:
                assert row["acc"] == item["score"], (task, row["doc"]["id"])
    prov = report["provenance"]  # docs/report.md
    assert prov["tool"] == "lm-evaluation-harness" and prov["model"] == str(model)
    assert prov["tool_version"] == "0.4.13" and prov["prompt_version"] == PROMPT_VERSION
    assert prov["params"]["temperature"] == TEMPERATURE and len(prov["tasks"]) == 5


class _Oracle:
    """An lm_eval LM that answers from the gold for most items (non-trivial numbers)."""

    @staticmethod
    def make():
        from lm_eval.api.model import LM

        class Oracle(LM):
            requests: list = []

            def loglikelihood(self, requests):
                raise NotImplementedError

            def loglikelihood_rolling(self, requests):
                raise NotImplementedError

            def generate_until(self, requests):
                out = []
                for i, req in enumerate(requests):
                    self.requests.append(req)
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


def _run_oracle(tmp_path: Path, manager, tasks: list[str], limit: int):
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker

    model = _Oracle.make()
    results = simple_evaluate(
        model=model,
        tasks=tasks,
        task_manager=manager,
        limit=limit,
        log_samples=True,
        bootstrap_iters=0,
    )
    out = tmp_path / "out"
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.model_name_sanitized = "oracle"
    tracker.save_results_aggregated(results=dict(results), samples=results["samples"])
    for task in results["configs"]:
        tracker.save_results_samples(task_name=task, samples=results["samples"][task])
    return results, _samples(out), out, model


@pytest.fixture(scope="module")
def public_oracle_run(tmp_path_factory, export):
    """`respondeoqa_greedy` over the first 30 items of each public task, the oracle answering."""
    manager = _manager(metadata={"dataset": str(export)})
    work = tmp_path_factory.mktemp("public-oracle")
    return _run_oracle(work, manager, ["respondeoqa_greedy"], 30)


@pytest.mark.slow
def test_lm_eval_public_numbers_equal_score_and_plain_prompts_separate_the_system(
    tmp_path, public_oracle_run, public_dir
):
    """The real lm_eval pipeline (tasks, filter, process_results, aggregations, group weighting,
    sample logging), without a chat template and greedy: every number equals `score`."""
    results, samples, out, model = public_oracle_run
    assert sorted(samples) == sorted(PUBLIC_LEAVES)
    for req in model.requests:
        prompt, gen = req.args
        record = Record(**{k: req.doc[k] for k in Record.__dataclass_fields__})
        assert prompt == plain_prompt(SYSTEM_PROMPT, user_prompt(record))
        assert prompt.startswith(SYSTEM_PROMPT + "\n\n")  # not "...culture.What is"
        assert gen["do_sample"] is False and gen["temperature"] == 0.0
    gold = _gold_of_logged(samples, public_dir, tmp_path / "gold")
    report = score_cli(out, gold, tmp_path / "report.json")
    assert report["n_items"] == 150 and report["missing"] == 0
    assert 0.3 < report["accuracy"]["overall"]["score"] < 0.9  # not a trivial 0 or 1
    assert report["bleu"]["latin"]["overall"]["score"] > 10
    assert _check_equal(results, report, "respondeoqa_accuracy", samples) >= 9


@pytest.mark.slow
def test_reference_implementation_of_the_papers_rules_agrees_per_item(public_oracle_run):
    """The task README's reference-implementation check: lm-eval's per-item extraction and
    score, each task's BLEU and the group's accuracy against `paper_rules`, written from
    PROTOCOL sections 3-5 without importing respondeoqa_eval's scorer."""
    results, samples, _, _ = public_oracle_run
    scores: list[float] = []
    compared = 0
    for name, rows in samples.items():
        task = TASKS[name]
        pairs = []
        for row in rows:
            doc = row["doc"]
            answer = paper_rules.extract(doc["task"], row["resps"][0][0])
            assert row["filtered_resps"] == [answer or ""], (name, doc["id"])
            if task.translation:
                pairs.append((answer or "", list(doc["answers"])))
                continue
            ours = paper_rules.score(doc["task"], doc["answers"], doc["answer_language"], answer)
            assert row["acc"] == pytest.approx(ours, abs=1e-12), (name, doc["id"])
            scores.append(ours)
            compared += 1
        if task.translation:
            bleu = paper_rules.corpus_bleu(
                [h for h, _ in pairs], [r for _, r in pairs], task.language
            )
            assert results["results"][name][f"bleu,{FILTER}"] == pytest.approx(bleu, abs=1e-9)
            compared += 1
    group = results["groups"]["respondeoqa_accuracy"][f"acc,{FILTER}"]
    assert group == pytest.approx(sum(scores) / len(scores), abs=1e-12)
    assert compared == 3 * 30 + 2 and 0 < sum(scores) < len(scores)


@pytest.mark.slow
def test_lm_eval_full_numbers_equal_score_with_the_papers_pooled_bleu(tmp_path, full, monkeypatch):
    """respondeoqa_full on synthetic Certamen / NLE, every task reading one private export
    (`--metadata '{"dataset": EXPORT}'`)."""
    gold, export = full
    monkeypatch.delenv(DATASET_ENV, raising=False)
    manager = _manager(metadata={"dataset": str(export)})
    results, samples, out, _ = _run_oracle(tmp_path, manager, ["respondeoqa_full"], 12)
    assert set(samples) == set(_leaves("respondeoqa_full", task_dir()))
    langs = {row["doc"]["source"] for row in samples["respondeoqa_full_translation_latin"]}
    assert langs <= {"certamen", "jun-schol"}
    report = score_cli(out, _gold_of_logged(samples, gold, tmp_path / "gold"), tmp_path / "r.json")
    assert report["missing"] == 0 and report["n_items"] == 12 * 8
    assert _check_equal(results, report, "respondeoqa_full_accuracy", samples) >= 13


@pytest.mark.slow
def test_private_tasks_read_metadata_data_dir(tmp_path, full, monkeypatch):
    """`--metadata '{"data_dir": DIR}'`: the Certamen / NLE tasks read the upstream files."""
    gold, _ = full
    monkeypatch.delenv(DATASET_ENV, raising=False)
    manager = _manager(metadata={"data_dir": str(gold)})
    results, samples, out, _ = _run_oracle(
        tmp_path, manager, ["respondeoqa_certamen_translation"], 10
    )
    assert sorted(samples) == [
        "respondeoqa_certamen_translation_english",
        "respondeoqa_certamen_translation_latin",
    ]
    report = score_cli(out, _gold_of_logged(samples, gold, tmp_path / "gold"), tmp_path / "r.json")
    assert report["n_items"] == sum(map(len, samples.values())) > 2
    for lang in ("english", "latin"):
        task = results["results"][f"respondeoqa_certamen_translation_{lang}"]
        assert task[f"bleu,{FILTER}"] == pytest.approx(
            report["bleu"][lang]["overall"]["score"], abs=1e-9
        )


@pytest.mark.slow
def test_two_exports_of_one_name_in_one_cache_each_give_their_own_items(
    tmp_path, full, monkeypatch
):
    """The issue-30 bug: `datasets` names a local folder's cache by the folder's name, so a
    second export called `respondeoqa` was served the first one's rows. Both run here in one
    cache (the project's, $RESPONDEOQA_CACHE), and nothing lands in `datasets`' own cache."""
    import datasets
    from respondeoqa_eval.data.fetch import ENV_CACHE
    from respondeoqa_eval.dataset.export import build_folder

    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "cache"))
    hf_cache = Path(datasets.config.HF_DATASETS_CACHE)
    before = set(hf_cache.rglob("*")) if hf_cache.is_dir() else set()
    first_gold, first = full
    second_gold = write_private(tmp_path / "gold-2", with_public=True, n_sa=5)
    second = build_folder(tmp_path / "two" / first.name, data_dir=second_gold, include_private=True)
    task = "respondeoqa_certamen_short_answer"
    for n, (gold, export) in enumerate([(first_gold, first), (second_gold, second.folder)]):
        manager = _manager(metadata={"dataset": str(export)})
        _, samples, out, _ = _run_oracle(tmp_path / f"run-{n}", manager, [task], 100)
        logged = [row["doc"]["id"] for row in samples[task]]
        expected = [r.id for r in read_folder(gold).records if r.task == "short_answer"]
        assert sorted(logged) == sorted(i for i in expected if "Certamen" in i), n
        cut = _gold_of_logged(samples, gold, tmp_path / f"gold-cut-{n}")
        assert score_cli(out, cut, tmp_path / f"r{n}.json")["missing"] == 0
    assert len(logged) == 5
    assert (set(hf_cache.rglob("*")) if hf_cache.is_dir() else set()) == before
    assert any((tmp_path / "cache" / "datasets").iterdir())
