"""Harness logs as predictions: lm-eval samples files, lighteval details files, their
provenance, and every bad log as one clear line with exit status 2.

lm-eval samples lines are written here as lm_eval 0.4.13 writes them
(`EvaluationTracker.save_results_samples`, lm_eval/loggers/evaluation_tracker.py, and the
`example` dict of lm_eval/evaluator.py; test_lm_eval.py checks real ones). The lighteval file in
data/lighteval/ was written by the real lighteval 0.13.0 (make_lighteval_details.py; its
`EvaluationTracker.save` in lighteval/logging/evaluation_tracker.py, github.com/huggingface/lighteval
at 3fd15266bc8448b797e61462d293aa3fd40b3580 has the same writer); the Parquet files built below
reuse that file's exact Arrow schema.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from respondeoqa_eval import evaluate
from respondeoqa_eval.cli import main
from respondeoqa_eval.errors import InputError
from respondeoqa_eval.predictions.load import load_predictions

from .logkit import DATA, DATE, LIGHTEVAL_DETAILS, details_like_lighteval, lm_eval_sample


def _write(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _answers(public_gold, n_per_task=6):
    """(record, response) pairs over every public task: right, wrong and unanswered."""
    out, count = [], {}
    for r in public_gold.records:
        i = count.get(r.file, 0)
        if i >= n_per_task:
            continue
        count[r.file] = i + 1
        gold = r.answers[0]
        text = ["Answer: " + gold, "Answer: nope", "no marker", f"x\n**Answer: {gold}**"][i % 4]
        out.append((r, text))
    return out


@pytest.fixture
def cli_error(capsys, public_dir):
    """Run `score ARGS` and return its one-line error (exit status 2)."""

    def run(*argv) -> str:
        args = ["score", *map(str, argv), "--data-dir", str(public_dir), "--bootstrap", "0", "-q"]
        assert main(args) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and err.startswith("respondeoqa-eval: error: ")
        return err

    return run


@pytest.fixture
def folder(tmp_path, public_gold):
    """An lm-eval output folder: one samples file per task, and the run's results file."""
    out = tmp_path / "out" / "org__model"
    pairs = _answers(public_gold)
    by_task: dict[str, list] = {}
    for r, text in pairs:
        by_task.setdefault(f"respondeoqa_{r.source}_{r.task}".replace("-", "_"), []).append(
            (r, text)
        )
    for task, items in by_task.items():
        _write(
            out / f"samples_{task}_{DATE}.jsonl",
            [lm_eval_sample(i, r, t) for i, (r, t) in enumerate(items)],
        )
    (out / f"results_{DATE}.json").write_text(
        json.dumps({"model_name": "org/model", "lm_eval_version": "0.4.13", "config": {}}), "utf-8"
    )
    return tmp_path / "out", pairs


def test_lm_eval_folder_scores_like_the_same_rows_as_jsonl(folder, public_gold, tmp_path):
    out, pairs = folder
    from_logs = evaluate(out, public_gold, bootstrap=0).to_dict()
    rows = tmp_path / "rows.jsonl"
    _write(rows, [{"id": r.id, "response": t} for r, t in pairs])
    from_rows = evaluate(rows, public_gold, bootstrap=0).to_dict()
    assert from_logs["accuracy"] == from_rows["accuracy"] and from_logs["bleu"] == from_rows["bleu"]
    assert from_logs["n_items"] - from_logs["missing"] == len(pairs)
    assert 0 < from_logs["accuracy"]["overall"]["score"] < 1


def test_lm_eval_files_given_one_by_one_and_provenance(folder, public_gold):
    out, pairs = folder
    files = sorted(out.rglob("samples_*.jsonl"))
    preds = load_predictions([str(p) for p in files], public_gold)
    assert len(preds) == len(pairs)
    prov = preds.provenance
    assert prov.tool == "lm-evaluation-harness" and prov.tool_version == "0.4.13"
    assert prov.model == "org/model" and prov.prompt_version == "paper-v1"
    assert prov.params["temperature"] == 0.6 and prov.params["top_p"] == 0.95
    assert len(prov.tasks) == len(files) and all(t.startswith("respondeoqa_") for t in prov.tasks)
    one = load_predictions(files[0], public_gold)
    assert one.origin == files[0].name and len(one) < len(pairs)


def test_lm_eval_same_doc_under_a_second_filter_counts_once(tmp_path, public_gold):
    r = public_gold.records[0]
    path = _write(
        tmp_path / f"samples_respondeoqa_public_{DATE}.jsonl",
        [lm_eval_sample(0, r, "Answer: a"), lm_eval_sample(0, r, "Answer: a", filter="strict")],
    )
    assert len(load_predictions(path, public_gold)) == 1


def test_bad_lm_eval_logs_are_one_line_errors(tmp_path, public_gold, cli_error):
    r = public_gold.records[0]
    other = lm_eval_sample(0, r, "x")
    other["doc"] = {"question": "2+2?", "answer": "4"}  # another task's document
    path = _write(tmp_path / f"samples_arc_easy_{DATE}.jsonl", [other])
    err = cli_error(path)
    assert "line 1" in err and "'arc_easy', not a RespondeoQA task" in err

    no_resps = lm_eval_sample(0, r, "x")
    del no_resps["resps"]
    path = _write(
        tmp_path / f"samples_respondeoqa_public_{DATE}.jsonl", [lm_eval_sample(1, r, "y"), no_resps]
    )
    err = cli_error(path)
    assert "line 2: no 'resps'" in err

    unknown = lm_eval_sample(0, r, "x")
    unknown["doc"]["id"] = "not-an-item"
    path = _write(tmp_path / "run" / f"samples_respondeoqa_public_{DATE}.jsonl", [unknown])
    err = cli_error(tmp_path / "run")
    assert f"samples_respondeoqa_public_{DATE}.jsonl: line 1" in err and "'not-an-item'" in err

    bad = lm_eval_sample(0, r, "x")
    bad["resps"] = [[{"text": "x"}]]
    path = _write(tmp_path / f"samples_respondeoqa_x_{DATE}.jsonl", [bad])
    assert "'resps' must hold the generated text" in cli_error(path)


def test_lighteval_details_written_by_lighteval(public_gold, public_dir, tmp_path):
    """data/lighteval/: a real lighteval 0.13.0 run of our custom tasks (2 items per task),
    upstream text replaced (test_lighteval.py checks it against a fresh run)."""
    folder = DATA / "lighteval"
    preds = load_predictions(folder, public_gold)
    assert len(preds) == 6
    texts = {p.text for p in preds.by_id.values()}
    assert texts == {"Some reasoning.\nAnswer: Dactyl, Spondee", "**Answer: nothing**"}
    prov = preds.provenance
    assert prov.tool == "lighteval" and prov.model == "org/tiny-model"
    assert prov.params == {"max_new_tokens": 8, "temperature": 0.6, "top_p": 0.95}
    assert set(prov.tasks) == {
        "respondeoqa_accuracy|0",
        "respondeoqa_translation_english|0",
        "respondeoqa_translation_latin|0",
    }
    single = load_predictions(LIGHTEVAL_DETAILS, public_gold)
    assert len(single) == 2 and single.provenance.model == "org/tiny-model"
    # the output folder works through the CLI, and the report names its provenance
    report = tmp_path / "r.json"
    argv = ["score", str(folder), "--data-dir", str(public_dir), "--report", str(report)]
    assert main([*argv, "--bootstrap", "0", "-q"]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["n_items"] - data["missing"] == 6 and data["provenance"]["tool"] == "lighteval"


def test_lighteval_details_score_like_the_same_rows(tmp_path, public_gold):
    pairs = _answers(public_gold)
    path = details_like_lighteval(
        tmp_path / f"details_custom|respondeoqa|0_{DATE}.parquet", [(r.id, t) for r, t in pairs]
    )
    rows = _write(tmp_path / "rows.jsonl", [{"id": r.id, "response": t} for r, t in pairs])
    a = evaluate(path, public_gold, bootstrap=0).to_dict()
    b = evaluate(rows, public_gold, bootstrap=0).to_dict()
    assert a["accuracy"] == b["accuracy"] and a["bleu"] == b["bleu"]
    assert 0 < a["accuracy"]["overall"]["score"] < 1


def test_bad_lighteval_details_are_one_line_errors(tmp_path, public_gold, cli_error):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / f"details_x_{DATE}.parquet"
    pq.write_table(pa.table({"doc": [{"query": "q"}], "metric": [{"em": 1.0}]}), path)
    err = cli_error(path)
    assert "no 'model_response' column: not a lighteval details file" in err

    other = details_like_lighteval(
        tmp_path / "o" / f"details_leaderboard|arc|0_{DATE}.parquet", [("x", "y")]
    )
    table = pq.read_table(other).to_pylist()
    table[0]["doc"]["specific"] = None
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_table(other).schema), other)
    err = cli_error(other)
    assert "row 1" in err and "'leaderboard|arc|0', not a RespondeoQA task" in err

    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1 this is not parquet")
    assert "not a readable Parquet file" in cli_error(junk)

    unknown = details_like_lighteval(
        tmp_path / "u" / f"details_c|r|0_{DATE}.parquet", [("nope", "y")]
    )
    err = cli_error(unknown)
    assert "row 1" in err and "'nope'" in err


def test_runner_rows_carry_their_provenance(tmp_path, public_gold):
    r = public_gold.records[0]
    path = _write(
        tmp_path / "run.jsonl",
        [
            {
                "id": r.id,
                "response": "Answer: x",
                "model": "Qwen/Qwen2.5-0.5B-Instruct",
                "prompt_version": "paper-v1",
                "params": {"temperature": 0.6, "top_p": 0.95, "seed": 0, "nested": {"a": 1}},
            }
        ],
    )
    prov = load_predictions(path, public_gold).provenance
    assert prov.tool == "respondeoqa-eval" and prov.model == "Qwen/Qwen2.5-0.5B-Instruct"
    assert prov.params == {"temperature": 0.6, "top_p": 0.95, "seed": 0}  # nested dropped
    assert prov.prompt_version == "paper-v1"
    from respondeoqa_eval.report.model import Report

    report = evaluate(path, public_gold, bootstrap=0)
    assert report.to_dict()["provenance"] == prov.to_dict()
    assert Report.from_dict(json.loads(report.to_json())).provenance == prov
    plain = _write(tmp_path / "plain.jsonl", [{"id": r.id, "response": "x"}])
    assert load_predictions(plain, public_gold).provenance is None
    assert evaluate(plain, public_gold, bootstrap=0).to_dict()["provenance"] is None
    with pytest.raises(InputError):
        load_predictions(tmp_path / "missing.jsonl", public_gold)
