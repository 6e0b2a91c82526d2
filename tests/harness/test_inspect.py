"""The Inspect AI tasks, run by the real inspect_ai: `mockllm/model` (its default output: nothing
extractable) and a replaying mock (mockllm with a callable that answers each user message with
a known response). Every per-item score and aggregate equals `respondeoqa-eval score`."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from conftest import require
from respondeoqa_eval.data.configs import CONFIGS
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.runner.prompts import SYSTEM_PROMPT, TEMPERATURE, user_prompt
from synthetic import write_private

from .lmkit import gold_of_ids, score_cli
from .replies import replies

require("inspect_ai")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from respondeoqa_eval.harness import inspect_tasks  # noqa: E402

pytestmark = pytest.mark.slow

MODULE = Path(inspect_tasks.__file__)


@pytest.fixture(scope="module")
def export(tmp_path_factory, public_dir):
    from respondeoqa_eval.dataset.export import build_folder

    return build_folder(
        tmp_path_factory.mktemp("inspect") / "respondeoqa", data_dir=public_dir
    ).folder


def test_one_task_per_config():
    tree = ast.parse(MODULE.read_text(encoding="utf-8"))
    decorated = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any(getattr(d, "id", None) == "task" for d in node.decorator_list)
    }
    assert decorated == {"respondeoqa"} | {f"respondeoqa_{c.replace('-', '_')}" for c in CONFIGS}


def _replay_model(by_prompt: dict[str, str], seen: list, default: str = "no answer"):
    """mockllm/model answering each user message with its known response. Usage is set: left
    unset, mockllm counts tokens with tiktoken, whose encoding is a download (unreachable here)."""

    def output(messages, tools, tool_choice, config):
        seen.append((messages, config))
        user = next(m.text for m in messages if m.role == "user")
        out = ModelOutput.from_content("mockllm/model", by_prompt.get(user, default))
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    return get_model("mockllm/model", custom_outputs=output)


def _run(task, model, log_dir: Path, limit: int | None):
    (log,) = inspect_eval(task, model=model, limit=limit, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return log


def _metrics(log) -> dict[str, float]:
    (score,) = log.results.scores
    return {name: m.value for name, m in score.metrics.items()}


def _predictions(log, path: Path) -> Path:
    """The raw responses of an Inspect log as a predictions file."""
    rows = [{"id": s.id, "response": s.output.completion} for s in log.samples]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _cut_gold(log, gold_dir: Path, out: Path) -> Path:
    wanted: dict[str, set[str]] = {}
    for s in log.samples:
        record = s.metadata["record"]
        wanted.setdefault(record["file"], set()).add(record["question_id"])
    return gold_of_ids(wanted, gold_dir, out)


def _check_equal(log, report: dict) -> int:
    metrics = _metrics(log)
    acc = report["accuracy"]
    assert metrics["accuracy"] == pytest.approx(acc["overall"]["score"], abs=1e-12)
    compared = 1
    for key, dim in (("content", "by_content"), ("language_pair", "by_language_pair")):
        groups = {
            k.split("/", 1)[-1]: v for k, v in metrics.items() if k.startswith(key) or k in acc[dim]
        }
        for group, score in acc[dim].items():
            assert metrics[group] == pytest.approx(score["score"], abs=1e-12), (dim, group)
            compared += 1
        assert groups  # the breakdown is reported
    for lang in ("english", "latin"):
        bleu = report["bleu"][lang]["overall"]
        for key, field in (
            (f"bleu_{lang}", "score"),
            (f"bleu_{lang}_variable_refs", "variable_refs"),
            (f"chrf_{lang}", "chrf"),
        ):
            assert metrics[key] == pytest.approx(bleu[field], abs=1e-9), key
            compared += 1
    ours = {it["id"]: it for it in report["items"]}
    for s in log.samples:  # per item: our score and our extraction
        (score,) = s.scores.values()
        item = ours[s.id]
        if item["score"] is None:
            assert score.value == inspect_tasks.CORPUS_VALUE
        else:
            assert score.value == item["score"], s.id
        assert score.answer == (item["extracted"] or "")
        compared += 1
    return compared


def test_replayed_responses_equal_score_on_the_public_benchmark(
    export, public_dir, public_gold, tmp_path
):
    by_prompt = {
        user_prompt(r): text
        for r, text in zip(public_gold.records, replies(public_gold.records).values(), strict=True)
    }
    seen: list = []
    task = inspect_tasks.respondeoqa_public(dataset=str(export))
    log = _run(task, _replay_model(by_prompt, seen), tmp_path / "logs", limit=None)
    assert len(log.samples) == len(public_gold.records)
    messages, config = seen[0]
    assert [m.role for m in messages] == ["system", "user"] and messages[0].text == SYSTEM_PROMPT
    assert config.temperature == TEMPERATURE
    report = score_cli(_predictions(log, tmp_path / "p.jsonl"), public_dir, tmp_path / "r.json")
    assert report["missing"] == 0
    assert 0.2 < report["accuracy"]["overall"]["score"] < 0.8
    assert any(0 < it["score"] < 1 for it in report["items"] if it["score"] is not None)  # feet
    assert _check_equal(log, report) > len(public_gold.records)


def test_replayed_responses_equal_score_on_the_whole_benchmark(tmp_path):
    """respondeoqa_all over synthetic Certamen / NLE (a private export): the pooled BLEU."""
    from respondeoqa_eval.dataset.export import build_folder

    gold = write_private(tmp_path / "gold", with_public=True)
    export = build_folder(tmp_path / "export", data_dir=gold, include_private=True).folder
    records = read_folder(gold).records
    by_prompt = {user_prompt(r): t for r, t in zip(records, replies(records).values(), strict=True)}
    log = _run(
        inspect_tasks.respondeoqa_all(dataset=str(export)),
        _replay_model(by_prompt, []),
        tmp_path / "logs",
        limit=None,
    )
    assert {s.metadata["record"]["source"] for s in log.samples} >= {"certamen", "nle"}
    report = score_cli(_predictions(log, tmp_path / "p.jsonl"), gold, tmp_path / "r.json")
    assert report["missing"] == 0 and report["n_items"] == len(log.samples)
    assert _check_equal(log, report) > len(log.samples)


def test_private_exports_stay_out_of_inspects_cache_and_never_mix(tmp_path, monkeypatch):
    """Two private exports of one folder name in one project cache: each task gets its own
    items, and no copy goes to Inspect's `~/.cache/inspect_ai/hf_datasets`."""
    from inspect_ai._util.appdirs import inspect_cache_dir
    from respondeoqa_eval.data.fetch import ENV_CACHE
    from respondeoqa_eval.dataset.export import build_folder

    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "cache"))
    inspect_cache = inspect_cache_dir("hf_datasets")
    before = set(inspect_cache.iterdir())
    ids = []
    for n, size in enumerate((7, 3)):
        gold = write_private(tmp_path / f"gold{n}", with_public=True, n_nle=size)
        export = build_folder(
            tmp_path / f"e{n}" / "respondeoqa", data_dir=gold, include_private=True
        ).folder
        task = inspect_tasks.respondeoqa_nle_multiple_choice(dataset=str(export))
        ids.append([s.id for s in task.dataset])
        assert ids[-1] == [r.id for r in read_folder(gold).records if r.source == "nle"]
    assert set(ids[1]) < set(ids[0])
    assert set(inspect_cache.iterdir()) == before
    assert any((tmp_path / "cache" / "datasets").iterdir())


def test_mockllm_default_output_is_unanswered_everywhere(export, public_dir, tmp_path):
    """mockllm/model's own default output has no `Answer:`: every item unanswered, 0 accuracy,
    and the paper's padded BLEU of empty hypotheses, as `score` computes it."""
    task = inspect_tasks.respondeoqa_jun_schol_translation(dataset=str(export))
    log = _run(
        task,
        _replay_model({}, [], default="Default output from mockllm/model"),
        tmp_path / "logs",
        limit=40,
    )
    report = score_cli(
        _predictions(log, tmp_path / "p.jsonl"),
        _cut_gold(log, public_dir, tmp_path / "g"),
        tmp_path / "r.json",
    )
    assert report["unanswered"] == 40
    metrics = _metrics(log)
    for lang in ("english", "latin"):
        assert metrics[f"bleu_{lang}"] == pytest.approx(
            report["bleu"][lang]["overall"]["score"], abs=1e-9
        )
        assert metrics[f"bleu_{lang}_variable_refs"] == 0.0
