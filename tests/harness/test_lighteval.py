"""lighteval 0.13.0 for real, in its own venv (its pins clash with lm_eval's): a run of our
custom-task module on a tiny random model and a run with a model replaying known responses;
every number lighteval reports equals `respondeoqa-eval score` on its details files, per item
too. The committed fixture (data/lighteval/) is checked against the tiny-model run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from kit.venvs import session_venv
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.dataset.export import build_folder
from respondeoqa_eval.harness import lighteval_task_arg, lighteval_task_names
from respondeoqa_eval.runner.prompts import SYSTEM_PROMPT, TEMPERATURE, user_prompt
from synthetic import write_private

from .lightevalkit import MODEL, PINS, VENV_VARIABLE, make_venv, run_lighteval, sanitise
from .lmkit import gold_of_ids, score_cli
from .make_lighteval_details import real_run
from .replies import replies

pytestmark = pytest.mark.slow
HERE = Path(__file__).parent
FIXTURE = HERE / "data" / "lighteval"
BLEU_FIELDS = {
    "bleu_{lang}": "score",
    "bleu_{lang}_variable_refs": "variable_refs",
    "chrf_{lang}": "chrf",
}


@pytest.fixture(scope="session")
def lighteval_python(tmp_path_factory) -> Path:
    """lighteval's venv: the one `$RESPONDEOQA_LIGHTEVAL_VENV` names (.ci/run makes it when it
    installs the suite's packages; made there if missing or made for another checkout), else
    one made for this session (about a minute and a half from a warm pip cache)."""
    scratch = tmp_path_factory.mktemp("lighteval") / "venv"
    return session_venv(VENV_VARIABLE, PINS, make_venv, scratch)


@pytest.fixture(scope="module")
def tiny_run(lighteval_python, tmp_path_factory):
    work = tmp_path_factory.mktemp("lighteval-tiny")
    out, export = real_run(lighteval_python, work, max_samples=4)
    return out, export


def _details(out: Path) -> dict[str, list[dict]]:
    """Task name (`respondeoqa_accuracy`, ...) -> rows of its details Parquet."""
    rows = {}
    for path in sorted(out.rglob("details_*.parquet")):
        task = path.name.removeprefix("details_").split("|")[0]
        rows[task] = pq.read_table(path).to_pylist()
    return rows


def _results(out: Path) -> dict:
    (path,) = out.rglob("results_*.json")
    return json.loads(path.read_text(encoding="utf-8"))["results"]


def _record(row: dict) -> Record:
    spec = row["doc"]["specific"]
    return Record(**{k: spec[k] for k in Record.__dataclass_fields__})


def _gold_of_details(details, gold_dir: Path, out: Path) -> Path:
    wanted: dict[str, set[str]] = {}
    for rows in details.values():
        for row in rows:
            spec = row["doc"]["specific"]
            wanted.setdefault(spec["file"], set()).add(spec["question_id"])
    return gold_of_ids(wanted, gold_dir, out)


def _check_equal(results: dict, details: dict, report: dict, prefix: str) -> int:
    """lighteval's task numbers and per-item acc against the report's; how many compared."""
    accuracy, *translations = lighteval_task_names(prefix)
    got = results[f"{accuracy}|0"]["acc"]
    assert got == pytest.approx(report["accuracy"]["overall"]["score"], abs=1e-12)
    compared = 1
    score_of = {it["id"]: it["score"] for it in report["items"]}
    for row in details[accuracy]:
        assert row["metric"]["acc"] == score_of[row["doc"]["specific"]["id"]]
        compared += 1
    for task, lang in zip(translations, ("english", "latin"), strict=True):
        bleu = report["bleu"][lang]["overall"]
        assert bleu["n"] == len(details[task])
        for name, field in BLEU_FIELDS.items():
            key = name.format(lang=lang)
            assert results[f"{task}|0"][key] == pytest.approx(bleu[field], abs=1e-9), (task, key)
            # lighteval's automatic `all` (a mean per metric name over the tasks run) repeats
            # each task's number: no mean of the two BLEUs
            assert results["all"][key] == results[f"{task}|0"][key]
            compared += 1
    assert results["all"]["acc"] == got and "bleu" not in results["all"]
    return compared


def test_tiny_model_run_scores_like_respondeoqa_eval(tiny_run, public_dir, tmp_path):
    """`lighteval accelerate` (transformers backend) on a tiny random model, our module's
    tasks, the paper's system prompt in the model config."""
    out, _ = tiny_run
    details = _details(out)
    assert sorted(details) == sorted(lighteval_task_names())
    for rows in details.values():
        assert len(rows) == 4
        for row in rows:  # the paper's user message; our ids in `specific`
            assert row["doc"]["query"] == user_prompt(_record(row))
    (results_file,) = out.rglob("results_*.json")
    general = json.loads(results_file.read_text("utf-8"))["config_general"]
    assert general["model_config"]["system_prompt"] == SYSTEM_PROMPT
    gold = _gold_of_details(details, public_dir, tmp_path / "gold")
    report = score_cli(out / "details", gold, tmp_path / "report.json")
    assert report["n_items"] == 12 and report["missing"] == 0
    assert _check_equal(_results(out), details, report, "respondeoqa") >= 8
    prov = report["provenance"]
    assert prov["tool"] == "lighteval" and prov["model"] == MODEL
    assert prov["params"]["temperature"] == TEMPERATURE and len(prov["tasks"]) == 3


def test_committed_fixture_is_a_real_run_without_upstream_text(tiny_run, tmp_path, public_gold):
    out, export = tiny_run
    fresh = tmp_path / "fresh"
    sanitise(out, fresh, export)

    def by_task(folder: Path) -> dict[str, pq.ParquetSchema]:
        return {
            p.name.removeprefix("details_").split("|")[0]: pq.read_schema(p)
            for p in folder.rglob("details_*.parquet")
        }

    committed = by_task(FIXTURE)
    assert committed and set(committed) == set(by_task(fresh))
    for task, schema in by_task(fresh).items():  # what lighteval 0.13.0 writes, column by column
        assert committed[task].remove_metadata() == schema.remove_metadata(), task
    # no upstream text: every question and reference of the public gold is absent
    text = b"".join(p.read_bytes() for p in FIXTURE.rglob("*") if p.is_file()).decode("latin-1")
    for record in public_gold.records:
        assert record.question[:40] not in text
        assert all(len(a) < 12 or a not in text for a in record.answers)


def test_replayed_responses_score_like_respondeoqa_eval_on_the_full_benchmark(
    lighteval_python, tmp_path
):
    """`lighteval custom` with a model replaying known responses over the whole benchmark
    (synthetic Certamen / NLE in a private export): non-trivial numbers, the paper's pooled BLEU."""
    gold = write_private(tmp_path / "gold", with_public=True)
    export = build_folder(tmp_path / "export", data_dir=gold, include_private=True).folder
    responses = tmp_path / "replies.json"
    responses.write_text(json.dumps(replies(read_folder(gold).records)), encoding="utf-8")
    args = ["custom", "replay", str(HERE / "lighteval_replay_model.py")]
    args += [lighteval_task_arg("respondeoqa_full"), "--max-samples", "40"]
    cache = tmp_path / "project-cache"
    out = run_lighteval(
        lighteval_python,
        tmp_path,
        args,
        export,
        RESPONDEOQA_REPLAY=str(responses),
        RESPONDEOQA_CACHE=str(cache),
    )
    # the private export's Arrow copy is in the project's cache, none in datasets' own
    assert list((cache / "datasets").rglob("*.arrow"))
    assert not list((tmp_path / "hf_home").rglob("*.arrow"))
    details = _details(out)
    assert sorted(details) == sorted(lighteval_task_names("respondeoqa_full"))
    cut = _gold_of_details(details, gold, tmp_path / "cut")
    report = score_cli(out / "details", cut, tmp_path / "report.json")
    assert report["missing"] == 0 and report["n_items"] == sum(map(len, details.values()))
    acc = report["accuracy"]["overall"]["score"]
    assert 0.2 < acc < 0.8 and report["bleu"]["latin"]["overall"]["score"] > 5
    assert _check_equal(_results(out), details, report, "respondeoqa_full") >= 40


def test_harness_path_prints_the_module_and_the_system_prompt(capsys):
    from respondeoqa_eval.cli import main

    assert main(["harness", "path", "--lighteval"]) == 0
    out, err = capsys.readouterr()
    path = Path(out.strip())
    assert path.name == "lighteval_tasks.py" and path.is_file()
    assert "TASKS_TABLE" in path.read_text(encoding="utf-8")
    assert SYSTEM_PROMPT in err and lighteval_task_arg() in err


SAME_PROCESS = """
import json, sys
order, details, data_dir = sys.argv[1:]
if order == "tasks-first":  # lighteval imports the tasks (--custom-tasks), then one scores
    import respondeoqa_eval.harness.lighteval_tasks
    import respondeoqa_eval.predictions.harness_logs
else:
    import respondeoqa_eval.predictions.harness_logs
    import respondeoqa_eval.harness.lighteval_tasks
import respondeoqa_eval.harness
from respondeoqa_eval import evaluate

tasks = respondeoqa_eval.harness.lighteval_tasks
assert tasks.__name__ == "respondeoqa_eval.harness.lighteval_tasks", tasks
report = evaluate(details, data_dir=data_dir, bootstrap=0).to_dict()
print(json.dumps([report["accuracy"]["overall"], report["provenance"]["tool"], len(tasks.TASKS_TABLE)]))
"""


@pytest.mark.parametrize("order", ["tasks-first", "logs-first"])
def test_the_tasks_module_and_the_log_readers_in_one_process(
    lighteval_python, order, public_dir, tmp_path
):
    """A lighteval user's notebook: the custom-task module imported (as lighteval does) and the
    details of a run scored in the same process, in either order; the same numbers as here."""
    import subprocess

    from respondeoqa_eval import evaluate

    details = FIXTURE / "details"
    script = tmp_path / "same_process.py"
    script.write_text(SAME_PROCESS, encoding="utf-8")
    done = subprocess.run(
        [str(lighteval_python), str(script), order, str(details), str(public_dir)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    overall, tool, n_tasks = json.loads(done.stdout.splitlines()[-1])
    here = evaluate(details, data_dir=public_dir, bootstrap=0).to_dict()
    assert overall == json.loads(json.dumps(here["accuracy"]["overall"])) and overall["n"] > 0
    assert tool == "lighteval" and n_tasks == 6
