"""The local transformers runner, end to end on a tiny random model built here (no download)."""

from __future__ import annotations

import json

import pytest
from conftest import require

require("torch")
require("transformers")
require("tokenizers")

from respondeoqa_eval import evaluate  # noqa: E402
from respondeoqa_eval.cli import main  # noqa: E402
from respondeoqa_eval.data.gold import read_folder  # noqa: E402
from respondeoqa_eval.runner.hf import HFSettings, load_model, render_prompt  # noqa: E402
from respondeoqa_eval.runner.prompts import build_messages  # noqa: E402

from .tiny_model import build_tiny_model  # noqa: E402

SYSTEM = (
    "You are a Classicist with expert knowledge in Greek and Roman history, language, and culture."
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def tiny_plain(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "plain", chat_template=False)


def rows_of(path):
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def run(tiny, out, public_dir, *extra):
    return main(
        [
            "run",
            "--model",
            str(tiny),
            "-o",
            str(out),
            "--data-dir",
            str(public_dir),
            "--no-progress",
            "--max-new-tokens",
            "6",
            "--device",
            "cpu",
            *extra,
        ]
    )


def test_end_to_end_scored(tiny, public_dir, tmp_path):
    out = tmp_path / "preds.jsonl"
    assert (
        run(tiny, out, public_dir, "--config", "lat-pros", "--limit", "10", "--batch-size", "4")
        == 0
    )
    rows = rows_of(out)
    gold = read_folder(public_dir)
    expected = [r.id for r in gold.records if r.source == "lat-pros"][:10]
    assert sorted(r["id"] for r in rows) == sorted(expected)
    for row in rows:
        assert row["model"] == str(tiny) and row["prompt_version"] == "paper-v1"
        assert row["params"] == {
            "backend": "transformers",
            "temperature": 0.6,
            "top_p": 0.95,
            "seed": 0,
            "max_new_tokens": 6,
        }
        assert isinstance(row["response"], str)
        assert "Classicist" not in row["response"]  # only the new tokens, not the prompt
    report = evaluate(out, gold, restrict_to_covered=True, bootstrap=0).to_dict()
    scored = {item["id"] for item in report["items"] if not item["missing"]}
    assert scored == set(expected)
    # a rerun has nothing left to do and leaves the file as it was
    before = out.read_bytes()
    assert run(tiny, out, public_dir, "--config", "lat-pros", "--limit", "10") == 0
    assert out.read_bytes() == before


def test_left_padding_batches_match_single(tiny, public_dir, tmp_path):
    """Greedy decoding: a batch of prompts of different lengths gives each row's single answer."""
    one, four = tmp_path / "b1.jsonl", tmp_path / "b4.jsonl"
    common = ["--config", "public", "--limit", "8", "--temperature", "0"]
    assert run(tiny, one, public_dir, *common, "--batch-size", "1") == 0
    assert run(tiny, four, public_dir, *common, "--batch-size", "4") == 0
    a = {r["id"]: r["response"] for r in rows_of(one)}
    b = {r["id"]: r["response"] for r in rows_of(four)}
    assert a == b and len(a) == 8
    assert rows_of(one)[0]["params"]["temperature"] == 0.0


def test_sampling_seed(tiny, public_dir, tmp_path):
    outs = [tmp_path / f"s{i}.jsonl" for i in range(3)]
    for out, seed in zip(outs, ["1", "1", "2"], strict=True):
        assert (
            run(tiny, out, public_dir, "--limit", "6", "--seed", seed, "--max-new-tokens", "12")
            == 0
        )
    a, b, c = ({r["id"]: r["response"] for r in rows_of(o)} for o in outs)
    assert a == b
    assert a != c


def test_chat_template_and_plain_fallback(tiny, tiny_plain, public_dir):
    rec = read_folder(public_dir).records[0]
    messages = build_messages(rec)
    _, tok, _ = load_model(HFSettings(model=str(tiny), device="cpu"))
    text, templated = render_prompt(tok, messages)
    assert templated
    assert (
        text == f"<s><|system|>{SYSTEM}<|end|><|user|>{messages[1]['content']}<|end|><|assistant|>"
    )
    assert tok.padding_side == "left"
    _, plain, _ = load_model(HFSettings(model=str(tiny_plain), device="cpu"))
    text, templated = render_prompt(plain, messages)
    assert not templated
    assert text == f"System: {SYSTEM}\n\nUser: {messages[1]['content']}\n\nAssistant:"
    # a template that refuses the system role gets it merged into the user message
    tok.chat_template = (
        "{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('no system') }}"
        "{% endif %}[{{ m['role'] }}]{{ m['content'] }}{% endfor %}[assistant]"
    )
    text, templated = render_prompt(tok, messages)
    assert templated and text == f"[user]{SYSTEM}\n\n{messages[1]['content']}[assistant]"


def test_plain_model_runs(tiny_plain, public_dir, tmp_path):
    out = tmp_path / "p.jsonl"
    assert run(tiny_plain, out, public_dir, "--limit", "3", "--batch-size", "3") == 0
    assert len(rows_of(out)) == 3


def test_bad_model_and_device(public_dir, tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    assert (
        main(
            [
                "run",
                "--model",
                str(tmp_path / "nope"),
                "-o",
                str(out),
                "--data-dir",
                str(public_dir),
                "--limit",
                "1",
                "--no-progress",
                "--device",
                "cpu",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "cannot load it" in err and "Traceback" not in err
    import torch

    if not torch.cuda.is_available():
        assert (
            main(
                [
                    "run",
                    "--model",
                    "x",
                    "-o",
                    str(out),
                    "--data-dir",
                    str(public_dir),
                    "--limit",
                    "1",
                    "--device",
                    "cuda",
                ]
            )
            == 2
        )
        assert "no CUDA device" in capsys.readouterr().err


def test_progress_starts_once_the_model_is_loaded(tiny, public_dir, tmp_path, monkeypatch):
    """The bar's clock starts with the answering, not while the weights load."""
    from respondeoqa_eval.runner import hf
    from respondeoqa_eval.runner.output import PredictionWriter
    from respondeoqa_eval.runner.progress import Progress

    events: list[str] = []
    real_load = hf.load_model

    def load_and_note(settings):
        loaded = real_load(settings)
        events.append("loaded")
        return loaded

    class Noted(Progress):
        def start(self) -> None:
            if not self.started:
                events.append("bar")
            super().start()

        def update(self, n: int = 1) -> None:
            events.append("answers")
            super().update(n)

    monkeypatch.setattr(hf, "load_model", load_and_note)
    records = read_folder(public_dir).records[:4]
    settings = HFSettings(model=str(tiny), batch_size=2, max_new_tokens=2, device="cpu")
    bar = Noted(len(records), enabled=False)
    out = tmp_path / "p.jsonl"
    with PredictionWriter(out, model=str(tiny), prompt_version="paper-v1") as writer:
        assert hf.run_hf(records, writer, settings, bar) == 4
    assert events == ["loaded", "bar", "answers", "answers"]  # two batches of two
    assert len(rows_of(out)) == 4
