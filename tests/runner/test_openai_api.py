"""The API runner against a real local chat-completions server that fails at times."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from respondeoqa_eval import evaluate
from respondeoqa_eval.cli import main
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.errors import InputError
from respondeoqa_eval.runner.openai_api import (
    ApiSettings,
    _Retryable,
    chat_url,
    complete,
    parse_retry_after,
    retry_wait,
)
from tenacity import RetryCallState

from .chat_server import ChatServer

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = (
    "You are a Classicist with expert knowledge in Greek and Roman history, language, and culture."
)
LONG = "At the end of your response, give your answer as:\nAnswer: answer text"
ONE_WORD = "At the end of your response, give your answer as a single word like this:\nAnswer: Word"
FEET = {
    "english": "The possible feet are: ",
    "latin": "Pedes possibiles sunt: ",
}
FEET_LIST = (
    "amphibrac, anapest, choriamb, dactyl, dichoree, great ionic, iambus, pyrrhic, "
    "second epitrit, small ionic, spondee, tribrac, trochee"
)


def expected_user(rec) -> str:
    """The user prompt per PROTOCOL section 2, for the public tasks (written independently)."""
    if rec.task == "short_answer":
        return f"{rec.question}\n{ONE_WORD}"
    if rec.task == "feet":
        return f"{rec.question}\n{FEET[rec.question_language]}{FEET_LIST}\n{LONG}"
    return f"{rec.question}\n{LONG}"


@pytest.fixture(scope="module")
def gold(public_dir):
    return read_folder(public_dir)


def perfect_replies(records) -> dict[str, str]:
    return {expected_user(r): f"Let me think.\nAnswer: {r.answers[0]}" for r in records}


def run_args(server, out, public_dir, *extra):
    return [
        "run",
        "--api-base",
        server.base,
        "--model",
        "served-model",
        "-o",
        str(out),
        "--data-dir",
        str(public_dir),
        "--no-progress",
        "--backoff-base",
        "0.01",
        "--backoff-max",
        "0.05",
        *extra,
    ]


def read_rows(path):
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return [json.loads(x) for x in data.decode("utf-8").splitlines()]


def test_end_to_end_scored_by_the_evaluator(gold, public_dir, tmp_path):
    lat_pros = [r for r in gold.records if r.source == "lat-pros"]
    out = tmp_path / "preds.jsonl"
    with ChatServer(perfect_replies(lat_pros)) as server:
        assert main(run_args(server, out, public_dir, "--config", "lat-pros")) == 0
        body = server.bodies[0]
    rows = read_rows(out)
    assert len(rows) == 122 and len({r["id"] for r in rows}) == 122
    assert set(rows[0]) >= {
        "id",
        "question_id",
        "question_language",
        "response",
        "model",
        "prompt_version",
        "params",
    }
    assert rows[0]["model"] == "served-model"
    assert rows[0]["params"]["temperature"] == 0.6 and rows[0]["params"]["top_p"] == 0.95
    # the server's token counts of each answer are kept (what an operator's cost comes from)
    for row in rows:
        assert row["usage"]["completion_tokens"] == len(row["response"].split())
        assert row["usage"]["prompt_tokens"] > 0
    # the request: the paper's sampling and the PROTOCOL messages
    assert body["model"] == "served-model"
    assert body["temperature"] == 0.6 and body["top_p"] == 0.95
    assert body["messages"][0] == {"role": "system", "content": SYSTEM}
    assert body["messages"][1]["content"] in perfect_replies(lat_pros)
    # every answer was right, so the evaluator must score 100% on the covered files
    report = evaluate(out, gold, restrict_to_covered=True, bootstrap=0).to_dict()
    assert report["missing"] == 0
    assert report["accuracy"]["overall"]["n"] == 122
    assert report["accuracy"]["overall"]["score"] == 1.0


def test_retries_on_429_500_and_timeouts(gold, public_dir, tmp_path):
    recs = [r for r in gold.records if r.task == "short_answer"][:12]
    replies = perfect_replies(recs)
    prompts = list(replies)
    out = tmp_path / "preds.jsonl"
    with ChatServer(replies) as server:
        server.faults[prompts[0]] = [("status", 429, {"Retry-After": "0"})]
        server.faults[prompts[1]] = [("status", 500, {}), ("status", 503, {})]
        server.faults[prompts[2]] = [("status", 502, {}), ("status", 429, {}), ("status", 500, {})]
        server.faults[prompts[3]] = [("sleep", 2.5)]  # longer than --timeout
        server.faults[prompts[4]] = [("status", 429, {"Retry-After": "0"})]
        args = run_args(
            server,
            out,
            public_dir,
            "--config",
            "jun-schol-short_answer",
            "--limit",
            "12",
            "--timeout",
            "1.0",
            "--concurrency",
            "4",
        )
        assert main(args) == 0
        attempts = dict(server.attempts)
    assert attempts[prompts[0]] == 2
    assert attempts[prompts[1]] == 3
    assert attempts[prompts[2]] == 4
    assert attempts[prompts[3]] == 2
    assert attempts[prompts[4]] == 2
    assert all(attempts[p] == 1 for p in prompts[5:])
    # how long each retry waits is tested with an injected sleep below
    rows = read_rows(out)
    assert sorted(r["id"] for r in rows) == sorted(r.id for r in recs)
    by_id = {r["id"]: r["response"] for r in rows}
    assert all(by_id[r.id] == replies[expected_user(r)] for r in recs)


def test_gives_up_after_max_retries(gold, public_dir, tmp_path, capsys):
    recs = [r for r in gold.records if r.task == "short_answer"][:6]
    replies = perfect_replies(recs)
    bad = recs[2]
    out = tmp_path / "preds.jsonl"
    with ChatServer(replies) as server:
        server.faults[expected_user(bad)] = [("status", 500, {})] * 10
        args = run_args(
            server,
            out,
            public_dir,
            "--config",
            "jun-schol-short_answer",
            "--limit",
            "6",
            "--max-retries",
            "2",
            "--concurrency",
            "1",
        )
        assert main(args) == 2
        assert server.attempts[expected_user(bad)] == 3
    err = capsys.readouterr().err
    assert f"item {bad.id} failed after 3 attempts" in err and "Traceback" not in err
    done = {r["id"] for r in read_rows(out)}
    assert done == {r.id for r in recs[:2]}  # answered before the failure, kept
    # the same command resumes once the server is healthy again
    with ChatServer(replies) as server:
        args = run_args(
            server, out, public_dir, "--config", "jun-schol-short_answer", "--limit", "6"
        )
        assert main(args) == 0
        assert set(server.attempts) == {expected_user(r) for r in recs[2:]}
    assert sorted(r["id"] for r in read_rows(out)) == sorted(r.id for r in recs)


def test_client_errors_are_not_retried(gold, public_dir, tmp_path, capsys, monkeypatch):
    out = tmp_path / "preds.jsonl"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with ChatServer() as server:
        server.required_key = "sekrit"
        args = run_args(server, out, public_dir, "--limit", "3", "--concurrency", "1")
        assert main(args) == 2
        assert sum(server.attempts.values()) == 1
    err = capsys.readouterr().err
    assert "HTTP 401" in err and "invalid api key" in err


def test_api_key_from_env(gold, public_dir, tmp_path, monkeypatch, capsys):
    out = tmp_path / "preds.jsonl"
    monkeypatch.setenv("MY_SERVER_KEY", "sekrit")
    with ChatServer() as server:
        server.required_key = "sekrit"
        args = run_args(server, out, public_dir, "--limit", "3", "--api-key-env", "MY_SERVER_KEY")
        assert main(args) == 0
        assert server.auth == {"Bearer sekrit"}
    assert len(read_rows(out)) == 3 and "sekrit" not in out.read_text(encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "default-key")  # the default variable
    with ChatServer() as server:
        assert main(run_args(server, tmp_path / "b.jsonl", public_dir, "--limit", "1")) == 0
        assert server.auth == {"Bearer default-key"}
    capsys.readouterr()
    assert main(run_args(server, out, public_dir, "--api-key-env", "NOT_SET_ANYWHERE_X")) == 2
    assert "NOT_SET_ANYWHERE_X" in capsys.readouterr().err


@pytest.mark.parametrize("concurrency", [1, 4])
def test_concurrency_is_respected(gold, public_dir, tmp_path, concurrency):
    out = tmp_path / "preds.jsonl"
    with ChatServer(delay=0.1) as server:
        args = run_args(server, out, public_dir, "--limit", "16", "--concurrency", str(concurrency))
        assert main(args) == 0
        assert server.max_inflight == concurrency
    assert len(read_rows(out)) == 16


def test_sampling_can_be_left_out(gold, public_dir, tmp_path):
    with ChatServer() as server:
        args = run_args(
            server,
            tmp_path / "p.jsonl",
            public_dir,
            "--limit",
            "1",
            "--temperature",
            "none",
            "--top-p",
            "none",
            "--seed",
            "none",
            "--max-new-tokens",
            "77",
        )
        assert main(args) == 0
        body = server.bodies[0]
    assert "temperature" not in body and "top_p" not in body and "seed" not in body
    assert body["max_tokens"] == 77


def _cli_env() -> dict[str, str]:
    path = [str(ROOT / "evaluator"), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def _start_run(cmd: list[str], out: Path, rows: int) -> subprocess.Popen:
    """Start the runner in its own process; return once `out` holds `rows` rows.

    The process gets SIGINT's default action, as a command in a terminal has: a shell that
    starts the suite in the background (`pytest &`) hands its children SIGINT ignored, and
    Python then installs no KeyboardInterrupt handler at all."""
    proc = subprocess.Popen(
        cmd,
        env=_cli_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if out.exists() and out.read_bytes().count(b"\n") >= rows:
            break
        time.sleep(0.01)
    return proc


def _run_cmd(server, out, public_dir, *extra) -> list[str]:
    return [
        sys.executable,
        "-m",
        "respondeoqa_eval.cli",
        *run_args(server, out, public_dir, *extra),
    ]


@pytest.mark.slow
def test_resume_after_kill(gold, public_dir, tmp_path):
    """SIGKILL the runner mid-run: no torn line, no duplicates, and a rerun answers the rest."""
    n = 60
    out = tmp_path / "preds.jsonl"
    env = _cli_env()
    with ChatServer(answer_only=14) as server:
        cmd = _run_cmd(server, out, public_dir, "--limit", str(n), "--concurrency", "3")
        proc = _start_run(cmd, out, rows=10)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
        first = read_rows(out)  # asserts the file ends with a newline: no torn line
        assert 10 <= len(first) < n
        assert len({r["id"] for r in first}) == len(first)
        before = dict(server.attempts)
        server.released.set()  # the rerun is answered in full
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        rerun = {p for p, c in server.attempts.items() if c > before.get(p, 0)}
    rows = read_rows(out)
    ids = [r["id"] for r in rows]
    assert len(ids) == n and len(set(ids)) == n
    assert rows[: len(first)] == first  # the first run's rows are untouched
    selected = [r.id for r in gold.records[:n]]
    assert sorted(ids) == sorted(selected)
    assert f"{len(first)} already answered" in proc.stderr
    # the rerun asked only for the items the killed run had not written
    answered = {r["id"] for r in first}
    assert rerun == {expected_user(r) for r in gold.records[:n] if r.id not in answered}


def _complete(server, settings, user: str, slept: list[float]):
    """`complete()` against the real server with a sleep that records the delay, never waits."""
    import httpx

    async def recorded_sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go():
        async with httpx.AsyncClient(timeout=30) as client:
            return await complete(
                client,
                chat_url(server.base),
                {"model": "m", "messages": [{"role": "user", "content": user}]},
                {},
                item_id="item-1",
                settings=settings,
                sleep=recorded_sleep,
            )

    return asyncio.run(go())


def test_retry_waits_follow_retry_after_and_the_backoff():
    settings = ApiSettings(
        api_base="unused", model="m", backoff_base=2.0, backoff_max=3.0, max_retries=5
    )
    slept: list[float] = []
    with ChatServer({"q": "Answer: x"}) as server:
        server.faults["q"] = [
            ("status", 429, {"Retry-After": "30"}),
            ("status", 503, {}),
            ("status", 500, {}),
        ]
        content, finish, attempts, usage = _complete(server, settings, "q", slept)
        assert server.attempts["q"] == 4
    assert (content, finish, attempts) == ("Answer: x", "stop", 4)
    assert usage == {"prompt_tokens": 1, "completion_tokens": 2}  # the server's own counts
    assert len(slept) == 3
    assert slept[0] == 30.0  # Retry-After wins over a backoff of at most 2 s
    # then 2 * 2**1 and 2 * 2**2, both capped at 3, with jitter in the upper half: [1.5, 3]
    assert all(1.5 <= s <= 3.0 for s in slept[1:])


def test_retry_gives_up_without_a_last_wait():
    settings = ApiSettings(api_base="unused", model="m", backoff_base=1.0, max_retries=2)
    slept: list[float] = []
    with ChatServer() as server:
        server.faults["q"] = [("status", 500, {})] * 5
        with pytest.raises(InputError, match="item item-1 failed after 3 attempts"):
            _complete(server, settings, "q", slept)
        assert server.attempts["q"] == 3
    assert len(slept) == 2  # between attempts only
    assert 0.5 <= slept[0] <= 1.0 and 1.0 <= slept[1] <= 2.0


def _failed(attempt: int, retry_after: float | None) -> RetryCallState:
    """tenacity's state after attempt number `attempt + 1` failed (retry_after: the server's)."""
    state = RetryCallState(None, None, (), {})
    state.attempt_number = attempt + 1
    state.set_exception((_Retryable, _Retryable("HTTP 429", retry_after), None))
    return state


def test_backoff_and_retry_after_rules():
    wait = retry_wait(base=0.5, cap=8.0)
    for attempt in range(6):
        expo = min(8.0, 0.5 * 2**attempt)
        for _ in range(50):
            d = wait(_failed(attempt, None))
            assert expo / 2 <= d <= expo
    assert wait(_failed(0, 5.0)) >= 5.0  # Retry-After wins
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    date = "Wed, 21 Oct 2015 07:28:00 GMT"
    now = 1445412480.0 - 10  # ten seconds before that date
    assert parse_retry_after(date, now=now) == pytest.approx(10.0)
    assert chat_url("http://h:1/v1/") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/v1/chat/completions") == "http://h:1/v1/chat/completions"


@pytest.mark.slow
def test_prompts_and_api_run_work_without_torch(public_dir, tmp_path):
    """Block torch/transformers imports in a fresh interpreter: prompts and the API run still work."""
    script = f"""
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in ('torch', 'transformers'):
            raise ImportError('blocked ' + name)
sys.meta_path.insert(0, Block())
sys.path.insert(0, {str(ROOT)!r})
from tests.runner.chat_server import ChatServer
from respondeoqa_eval.cli import main
data = {str(public_dir)!r}
assert main(['prompts', '--data-dir', data, '--limit', '5', '-o', {str(tmp_path / "p.jsonl")!r}]) == 0
with ChatServer() as s:
    assert main(['run', '--api-base', s.base, '--model', 'm', '--data-dir', data, '--limit', '5',
                 '--no-progress', '-o', {str(tmp_path / "r.jsonl")!r}]) == 0
assert main(['run', '--model', 'x', '--data-dir', data, '--limit', '1', '--no-progress',
             '-o', {str(tmp_path / "h.jsonl")!r}]) == 2
import os
assert not os.path.exists({str(tmp_path / "h.jsonl")!r})
assert 'torch' not in sys.modules
print('OK')
"""
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("OK")
    assert "pip install 'respondeoqa-eval[run]'" in proc.stderr
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 5


@pytest.mark.slow
def test_ctrl_c_says_how_many_answers_are_saved_and_how_to_resume(gold, public_dir, tmp_path):
    n = 60
    out = tmp_path / "preds.jsonl"
    with ChatServer(answer_only=8) as server:
        cmd = _run_cmd(server, out, public_dir, "--limit", str(n), "--concurrency", "2")
        proc = _start_run(cmd, out, rows=5)
        proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    saved = len(read_rows(out))  # counted in the file, after the runner stopped
    assert 5 <= saved < n
    assert err.decode().splitlines()[-1] == (
        f"respondeoqa-eval: interrupted: {saved} answers saved by this run, {saved} of {n} items "
        f"answered in {out}; rerun the same command to resume"
    )
    assert b"Traceback" not in err


def test_changed_settings_warn_only_when_something_runs(gold, public_dir, tmp_path, capsys):
    out = tmp_path / "preds.jsonl"
    with ChatServer() as server:
        assert main(run_args(server, out, public_dir, "--limit", "4")) == 0
        capsys.readouterr()
        # the same items with --temperature 0: nothing is left to run, so nothing gets mixed
        assert main(run_args(server, out, public_dir, "--limit", "4", "--temperature", "0")) == 0
        err = capsys.readouterr().err
        assert "warning" not in err and "4 already answered" in err
        # two more items at temperature 0: the warning names the one setting that changed
        assert main(run_args(server, out, public_dir, "--limit", "6", "--temperature", "0")) == 0
        err = capsys.readouterr().err
    (warning,) = [line for line in err.splitlines() if "warning" in line]
    assert "earlier rows were made with temperature 0.6; this run uses temperature 0.0," in warning
    assert "top_p" not in warning and "seed" not in warning


def test_the_runner_version_reaches_the_report(gold, public_dir, tmp_path):
    from wheelkit import checkout_version

    out = tmp_path / "preds.jsonl"
    with ChatServer() as server:
        assert main(run_args(server, out, public_dir, "--limit", "3")) == 0
    report = evaluate(out, gold, predicted_only=True, bootstrap=0).to_dict()
    assert report["provenance"]["tool"] == "respondeoqa-eval"
    assert report["provenance"]["tool_version"] == checkout_version()
