"""Every Eval Ever export (`score --eee DIR`), validated by the `every-eval-ever` package's own
validator (its pydantic models, JSON schemas and datastore checks, `eee-validate`), which needs
Python >= 3.12 and huggingface_hub < 2: it gets its own venv (tests/harness/eeekit.py), the
one .ci/run keeps or one made for the session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import unavailable
from kit.venvs import session_venv
from respondeoqa_eval import evaluate
from respondeoqa_eval.cli import main
from respondeoqa_eval.harness.eee import SCHEMA_VERSION, WITHHELD
from synthetic import SECRET_MARKER, write_private

from .eeekit import VENV_VARIABLE, make_venv, pins, python312
from .replies import replies

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def eee_python(tmp_path_factory) -> Path:
    """every-eval-ever's venv: the one .ci/run keeps, else made for this session."""
    if python312() is None:
        unavailable("every-eval-ever 0.3.0 needs Python >= 3.12, and none runs here")
    scratch = tmp_path_factory.mktemp("eee") / "venv"
    return session_venv(VENV_VARIABLE, pins(), make_venv, scratch)


def _validate(python: Path, files: list[Path]) -> list[dict]:
    """`eee-validate --format json FILES` (exit 0: clean, 1: errors, 2: warnings only)."""
    run = subprocess.run(
        [str(python), "-m", "every_eval_ever.validate", "--format", "json", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    reports = json.loads(run.stdout)
    assert run.returncode == 0, json.dumps(reports, indent=1)[:4000]
    return reports


def _schema_version(python: Path) -> str:
    code = "from every_eval_ever.schema import get_schema_version; print(get_schema_version())"
    return subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def _write(tmp_path: Path, gold, **extra) -> Path:
    rows = [{"id": k, "response": v, **extra} for k, v in replies(gold.records).items()]
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _records(out: Path) -> tuple[Path, dict, list[dict]]:
    (aggregate,) = out.rglob("*.json")
    (samples,) = out.rglob("*_samples.jsonl")
    rows = [json.loads(line) for line in samples.read_text("utf-8").splitlines()]
    return aggregate, json.loads(aggregate.read_text("utf-8")), rows


def test_public_record_validates_and_carries_every_number(
    eee_python, tmp_path, public_gold, public_dir
):
    preds = _write(tmp_path, public_gold, model="org/model", params={"temperature": 0.6})
    out = tmp_path / "eee"
    argv = ["score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "50", "-q"]
    assert main([*argv, "--eee", str(out), "--eee-model", "bad id"]) == 2
    assert main([*argv, "--eee", str(out), "--eee-deployment", "cloud"]) == 2
    assert main([*argv, "--eee", str(out), "--eee-deployment", "externally_managed"]) == 0
    aggregate, data, rows = _records(out)
    assert aggregate.parent.relative_to(out) == Path("data/respondeoqa/org/model")
    reports = _validate(
        eee_python, [aggregate, aggregate.with_name(aggregate.stem + "_samples.jsonl")]
    )
    assert all(r["valid"] and not r["warnings"] for r in reports)
    assert SCHEMA_VERSION == _schema_version(eee_python)

    report = evaluate(preds, public_gold, bootstrap=50).to_dict()
    results = {r["evaluation_result_id"]: r for r in data["evaluation_results"]}
    assert results["accuracy"]["score_details"]["score"] == report["accuracy"]["overall"]["score"]
    ci = results["accuracy"]["score_details"]["uncertainty"]["confidence_interval"]
    assert [ci["lower"], ci["upper"]] == report["accuracy"]["overall"]["ci"]
    for dim in ("by_content", "by_language_pair", "by_source", "by_task"):
        for group, score in report["accuracy"][dim].items():
            assert results[f"accuracy.{dim}.{group}"]["score_details"]["score"] == score["score"]
    for lang in ("english", "latin"):
        bleu = report["bleu"][lang]["overall"]
        for key, field in (
            ("padded", "score"),
            ("variable_refs", "variable_refs"),
            ("chrf", "chrf"),
        ):
            got = results[f"bleu.{lang}.overall.{key}"]["score_details"]["score"]
            assert got == pytest.approx(bleu[field], abs=1e-9), (lang, key)
    assert results["accuracy"]["generation_config"]["generation_args"]["temperature"] == 0.6
    # per item: every gold item once, our score and extraction, the raw response
    ours = {it["id"]: it for it in report["items"]}
    assert {r["sample_id"] for r in rows} == set(ours) and len(rows) == len(ours)
    for row in rows:
        item = ours[row["sample_id"]]
        if item["score"] is not None:
            assert row["evaluation"]["score"] == item["score"]
        assert row["answer_attribution"][0]["extracted_value"] == (item["extracted"] or "")
        assert row["output"]["raw"] and row["input"]["raw"]


def test_private_items_are_validated_but_their_text_is_never_written(eee_python, tmp_path):
    folder = write_private(tmp_path / "gold", with_public=True)
    from respondeoqa_eval.data.gold import read_folder

    gold = read_folder(folder)
    preds = _write(tmp_path, gold)
    out = tmp_path / "eee"
    argv = ["score", str(preds), "--data-dir", str(folder), "--bootstrap", "0", "-q"]
    assert main([*argv, "--eee", str(out)]) == 2  # no model id anywhere
    assert main([*argv, "--eee", str(out), "--eee-model", "acme/api-model"]) == 0
    aggregate, data, rows = _records(out)
    _validate(eee_python, [aggregate, aggregate.with_name(aggregate.stem + "_samples.jsonl")])
    text = "".join(p.read_text("utf-8") for p in out.rglob("*") if p.is_file())
    assert SECRET_MARKER not in text  # no private gold, passage or response
    private = [r for r in rows if r["metadata"]["source"] in ("certamen", "nle")]
    assert private and all(
        r["metadata"]["text"] == WITHHELD and not r["input"]["raw"] for r in private
    )
    assert data["evaluation_results"][0]["source_data"]["source_type"] == "other"


def test_validator_rejects_a_broken_record(eee_python, tmp_path, public_gold, public_dir):
    """The validator used above can fail: a record missing a required field does."""
    preds = _write(tmp_path, public_gold)
    out = tmp_path / "eee"
    argv = ["score", str(preds), "--data-dir", str(public_dir), "--bootstrap", "0", "-q"]
    assert main([*argv, "--eee", str(out), "--eee-model", "org/model"]) == 0
    aggregate, data, _ = _records(out)
    del data["model_info"]["additional_details"]
    aggregate.write_text(json.dumps(data), "utf-8")
    run = subprocess.run(
        [str(eee_python), "-m", "every_eval_ever.validate", "--format", "json", str(aggregate)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1 and "additional_details" in run.stdout
