"""The operator's worker (`respondeoqa-space worker`) against the Hub stand-in's record and real engines:
`transformers serve` (started per request, or failing to start), a plain HTTP server that never
becomes ready, and the chat-completions stand-in as the operator's own endpoint (`--api-base`).

Two workers started at once run a request once; a worker stopped (SIGTERM) gives its request
back, one killed (SIGKILL) holds it until its lease runs out, then another takes it and goes on
from the saved answers; an engine that does not start, a run with too many empty answers, or an
engine refusing an item end the request as failed with a plain reason that quotes nothing
private, the logs kept for the operator; the operator seeds a reference entry with `--once
--model`; bad worker options are one line each. Clocks are injected where a lease or a start-up
timeout is waited for.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from respondeoqa_eval.runner.prompts import user_prompt
from respondeoqa_space.cli import main
from respondeoqa_space.config import Limits
from respondeoqa_space.requests.model import FAILED, FINISHED, PENDING, RUNNING, Request
from respondeoqa_space.worker import procs
from respondeoqa_space.worker.engine import Endpoint, ServeCommand, StartedEngine
from runner.chat_server import ChatServer
from synthetic import SECRET_MARKER

from .helpers import wait_until
from .requestkit import MODEL, add_tiny_model, desk_of, requests_in_record, worker_of

pytestmark = pytest.mark.slow

SERVE = "transformers serve {model}@{revision} --host 127.0.0.1 --port {port} --device cpu"
STUB = Path(__file__).parent.parent / "kit" / "engine_stub.py"


def stub_serve(*options: str) -> str:
    """The engine stand-in (kit/engine_stub.py) as a --serve-command."""
    return (
        f"{sys.executable} {STUB} --port {{port}} --model {{model}} --revision {{revision}} "
        + " ".join(options)
    )


@pytest.fixture
def hub_env(hub: HubStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment an engine or a worker process gets: the stand-in as the only Hub."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    return dict(os.environ)


def requested(
    hub: HubStub,
    tmp_path: Path,
    model: str = MODEL,
    user: str = "alice",
    preset: str = "paper",
    tokens: int = 1024,
) -> str:
    desk = desk_of(hub, tmp_path / f"desk-{user}", Limits(request_tokens=tokens))
    outcome = desk.request(model, "main", preset, False, user)
    assert outcome.ok, outcome.message
    return outcome.request.id


def request_now(hub: HubStub, rid: str) -> Request:
    return Request.from_dict(requests_in_record(hub)[rid])


def worker_cmd(work: Path, private_dir: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "respondeoqa_space", "worker",
        "--repo", RECORD_REPO, "--data-dir", str(private_dir), "--work-dir", str(work), *extra,
    ]  # fmt: skip


def rows_in(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def wait_for_rows(proc: subprocess.Popen, path: Path, rows: int) -> None:
    """Until the running worker has saved `rows` answers (it must not end first)."""
    deadline = time.monotonic() + 120
    while rows_in(path) < rows:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the worker saved no answers"
        time.sleep(0.05)


class Clock:
    """A clock the test moves: `sleep` advances it instead of waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_two_workers_at_once_run_a_request_once(
    hub: HubStub, tiny_model: Path, private_dir: Path, tmp_path: Path, hub_env: dict
) -> None:
    add_tiny_model(hub, tiny_model)
    rid = requested(hub, tmp_path)
    with ChatServer(models=(MODEL,), default="Let me see.\nAnswer: A") as server:
        procs = [
            subprocess.Popen(
                worker_cmd(
                    tmp_path / f"w{i}",
                    private_dir,
                    "--api-base",
                    server.base,
                    "--once",
                    "--worker-id",
                    f"w{i}",
                ),
                env=hub_env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for i in range(2)
        ]
        outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    said = [out for out, _ in outs]
    assert sum(f"request {rid} finished" in s for s in said) == 1, said
    assert sum("no request is waiting" in s for s in said) == 1, said
    done = request_now(hub, rid)
    assert done.status == FINISHED and done.attempts == 1 and len(done.entries) == 15
    # the engine was asked 1214 times, once per item: only one worker ran it
    assert len(server.bodies) == 1214


def test_the_worker_loop_runs_every_request_and_rides_out_an_outage(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path
) -> None:
    add_tiny_model(hub, tiny_model)
    first = requested(hub, tmp_path)
    second = requested(hub, tmp_path, user="bob", preset="greedy")
    stop = threading.Event()

    def reply(body: dict) -> str:  # the two presets sample differently
        return "Answer: A" if body.get("temperature") else "Answer: B"

    with ChatServer(models=(MODEL,), default=reply) as server:
        worker = worker_of(hub, private_gold, tmp_path / "w", Endpoint(server.base), poll=0.01)
        # the record does not answer (after the client's own retries) when the loop first looks
        hub.fail("GET", f"/api/datasets/{RECORD_REPO}/revision/main", status=503, times=5)

        def until_both_finished() -> None:
            deadline = time.monotonic() + 120
            try:  # the loop must end whatever happens here
                while time.monotonic() < deadline and not stop.is_set():
                    try:
                        states = {request_now(hub, r).status for r in (first, second)}
                    except OSError:  # a file the stand-in was replacing as it was read
                        states = set()
                    if states == {FINISHED}:
                        break
                    time.sleep(0.1)
            finally:
                stop.set()

        watcher = threading.Thread(target=until_both_finished)
        watcher.start()
        worker.loop(stop)
        watcher.join(timeout=60)
    assert request_now(hub, first).status == request_now(hub, second).status == FINISHED
    assert len(server.bodies) == 2 * 1214
    # another model whose every answer is the same as a stored run's: nothing new to rank
    add_tiny_model(hub, tiny_model, "tiny-org/copycat")
    third = requested(hub, tmp_path, "tiny-org/copycat")
    with ChatServer(models=("tiny-org/copycat",), default=reply) as server:
        ended = worker_of(hub, private_gold, tmp_path / "w", Endpoint(server.base)).run_once()
    assert ended.id == third and ended.status == FAILED
    # the copycat answers as the first request's preset did; which of the two requests made in
    # the same second ran first (and so holds #1-#15) is the ledger's order, not the test's
    repeated = ", ".join(f"#{i}" for i in request_now(hub, first).entries[:3])
    assert ended.reason == (
        "every answer of the run is the same as in entries already on the board "
        f"({repeated}, ...): nothing new to rank"
    )


def test_a_stopped_or_killed_worker_leaves_the_request_to_be_run_again(
    hub: HubStub,
    tiny_model: Path,
    private_dir: Path,
    private_gold,
    tmp_path: Path,
    hub_env: dict,
) -> None:
    add_tiny_model(hub, tiny_model)
    rid = requested(hub, tmp_path)
    work = tmp_path / "worker"
    saved = work / "requests" / rid / "predictions.jsonl"
    slow = ["--api-base", None, "--once", "--concurrency", "2", "--lease", "600"]
    with ChatServer(models=(MODEL,), default="Hm.\nAnswer: B", delay=0.02) as server:
        slow[1] = server.base
        # stopped (SIGTERM, as a Space restart or Ctrl-C): the request is given back at once
        first = subprocess.Popen(
            worker_cmd(work, private_dir, *slow, "--worker-id", "first"),
            env=hub_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        wait_for_rows(first, saved, 40)
        first.send_signal(signal.SIGTERM)
        out, err = first.communicate(timeout=60)
        assert first.returncode == 130, out + err
        back = request_now(hub, rid)
        assert (back.status, back.attempts, back.worker) == (PENDING, 0, "")
        assert back.history[-1].endswith("released by first: the worker was stopped")
        # its answering time is kept beside the answers; say earlier attempts took long
        spent = work / "requests" / rid / "answering.json"
        assert json.loads(spent.read_text())["seconds"] > 0
        spent.write_text(json.dumps({"seconds": 5000.0}))

        # killed (SIGKILL: a crash, no goodbye): the claim holds until its lease runs out
        second = subprocess.Popen(
            worker_cmd(work, private_dir, *slow, "--worker-id", "second"),
            env=hub_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_for_rows(second, saved, rows_in(saved) + 40)
        os.kill(second.pid, signal.SIGKILL)
        second.wait(timeout=30)
        held = request_now(hub, rid)
        assert (held.status, held.worker, held.attempts) == (RUNNING, "second", 1)
        answered = rows_in(saved)

    # the third asks an engine of its own: what the killed worker had in flight may still reach
    # the first server after the kill, and is no question of the third's
    with ChatServer(models=(MODEL,), default="Hm.\nAnswer: B") as server:
        now = worker_of(hub, private_gold, work, Endpoint(server.base), worker_id="third")
        assert now.run_once() is None  # the lease still holds
        later = time.time() + 601
        third = worker_of(
            hub, private_gold, work, Endpoint(server.base), worker_id="third", clock=lambda: later
        )
        ended = third.run_once()
        asked = len(server.bodies)
    assert ended.status == FINISHED and ended.attempts == 2, ended
    # the answering time of every attempt on this machine, not only of the last one
    assert 5000 < third.store.get(ended.entries[0]).evaluation.seconds < 5600
    claims = [h for h in ended.history if "claimed by" in h]
    assert [c.split(": ", 1)[1] for c in claims] == [
        "claimed by first (attempt 1)",
        "claimed by second (attempt 1)",
        "claimed by third (attempt 2)",
    ]
    # the third went on from the answers saved on this machine: it asked only for the rest
    assert asked == 1214 - answered
    rows = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len({r["id"] for r in rows}) == 1214


def test_an_engine_that_does_not_start_fails_the_request_with_a_reason(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path, hub_env: dict
) -> None:
    # a model transformers cannot load (an architecture it does not know): the engine exits
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({"model_type": "no-such-architecture"}))
    add_tiny_model(hub, broken, "tiny-org/broken")
    add_tiny_model(hub, tiny_model)
    rid = requested(hub, tmp_path, "tiny-org/broken")
    engine = StartedEngine(ServeCommand(SERVE), timeout=120, poll=0.5)
    worker = worker_of(hub, private_gold, tmp_path / "w", engine)
    ended = worker.run_once()
    assert ended.status == FAILED and ended.id == rid
    assert ended.reason.startswith("the engine exited with status "), ended.reason
    assert "may not fit the operator's GPUs, or not load with this engine" in ended.reason
    logs = tmp_path / "w" / "requests" / rid
    engine_log = (logs / "engine.log").read_text(encoding="utf-8")
    assert "no-such-architecture" in engine_log  # the engine's own words, for the operator
    assert "no-such-architecture" not in ended.reason  # and not in the public reason
    assert "failed: the engine exited" in (logs / "worker.log").read_text(encoding="utf-8")
    assert request_now(hub, rid).status == FAILED
    assert not any(e.verified for e in worker.store.entries())

    # an engine that never becomes ready (a web server without the API): the start-up
    # timeout, on a clock that moves only when the worker waits
    rid = requested(hub, tmp_path, user="bob")
    clock = Clock()
    never = StartedEngine(
        ServeCommand(
            f"{sys.executable} -m http.server {{port}} --bind 127.0.0.1 "
            f"--directory {tmp_path}/{{model}}@{{revision}}"
        ),
        timeout=30,
        poll=1,
        clock=clock,
        sleep=clock.sleep,
    )
    ended = worker_of(hub, private_gold, tmp_path / "w2", never).run_once()
    # the operator's side (issue 27): the request goes back to the queue with the reason as
    # its note, the attempt not counted (it failed the request before)
    assert ended.status == PENDING and ended.id == rid and ended.attempts == 0
    assert ended.reason.startswith("the engine did not answer within 30 seconds of starting")
    assert never.proc is None  # stopped


def test_an_engine_that_dies_during_the_run_fails_the_request_with_a_reason(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path, hub_env: dict
) -> None:
    """`transformers serve` killed (as by the kernel's OOM killer) after its first answers."""
    add_tiny_model(hub, tiny_model)
    rid = requested(hub, tmp_path, tokens=4)
    engine = StartedEngine(ServeCommand(SERVE), timeout=120, poll=0.5)
    worker = worker_of(hub, private_gold, tmp_path / "w", engine, max_retries=1, concurrency=2)
    saved = tmp_path / "w" / "requests" / rid / "predictions.jsonl"

    def kill_after_some_answers() -> None:
        deadline = time.monotonic() + 120
        while rows_in(saved) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(engine.proc.pid, signal.SIGKILL)

    killer = threading.Thread(target=kill_after_some_answers)
    killer.start()
    ended = worker.run_once()
    killer.join(timeout=60)
    assert ended.status == FAILED and ended.id == rid
    assert re.fullmatch(
        r"the engine stopped during the run \(exit status -9\) after [0-9,]+ of 1,214 items; "
        r"the operator has its log",
        ended.reason,
    ), ended.reason
    assert 20 <= rows_in(saved) < 1214  # the answers so far are kept for a later attempt


def test_failed_runs_say_why_without_quoting_anything_private(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path
) -> None:
    add_tiny_model(hub, tiny_model)
    rid = requested(hub, tmp_path)
    with ChatServer(models=(MODEL,), default="") as server:  # answers nothing at all
        ended = worker_of(hub, private_gold, tmp_path / "w1", Endpoint(server.base)).run_once()
    assert ended.status == FAILED and ended.id == rid
    assert ended.reason.startswith(
        "too many unanswered items: 1,214 of 1,214 answers were empty (at most 50% may be)"
    )
    # an engine refusing a private item (HTTP 400): the status only, never the item or text
    rid = requested(hub, tmp_path, user="bob", preset="greedy")
    private = next(r for r in private_gold.records if r.is_private)
    with ChatServer(models=(MODEL,), default="Answer: A") as server:
        server.faults[user_prompt(private)] = [("status", 400, {})]
        ended = worker_of(hub, private_gold, tmp_path / "w2", Endpoint(server.base)).run_once()
    assert ended.status == FAILED and ended.id == rid
    assert ended.reason.startswith("the engine refused or failed an item (HTTP 400)")
    record = json.dumps(requests_in_record(hub))
    assert private.id not in record and SECRET_MARKER not in record
    log = (tmp_path / "w2" / "requests" / rid / "worker.log").read_text(encoding="utf-8")
    assert private.id in log  # the operator's log says which item


def test_the_operator_seeds_a_reference_entry(
    hub: HubStub, tiny_model: Path, private_dir: Path, tmp_path: Path, hub_env: dict
) -> None:
    add_tiny_model(hub, tiny_model)
    with ChatServer(models=(MODEL,), default="Answer: C") as server:
        cmd = worker_cmd(
            tmp_path / "w", private_dir, "--api-base", server.base, "--once",
            "--model", MODEL, "--preset", "greedy",
        )  # fmt: skip
        seeded = subprocess.run(cmd, env=hub_env, capture_output=True, text=True, timeout=300)
        assert seeded.returncode == 0, seeded.stdout + seeded.stderr
        again = subprocess.run(cmd, env=hub_env, capture_output=True, text=True, timeout=300)
    [(rid, data)] = requests_in_record(hub).items()
    request = Request.from_dict(data)
    assert request.requester == "" and request.status == FINISHED and request.preset == "greedy"
    assert f"request {rid} finished: entries #1, #2" in seeded.stdout
    assert server.bodies[0]["temperature"] == 0 and "top_p" not in server.bodies[0]
    assert again.returncode == 0 and "evaluated already:" in again.stdout  # not run twice
    assert len(server.bodies) == 1214


@pytest.mark.parametrize(
    "args, message",
    [
        (["--api-base", "http://127.0.0.1:9/v1", "--model", MODEL], "--model needs --once"),
        (["--serve-command", "vllm serve {model} --revision {revision}"], "needs {port}"),
        (["--serve-command", "vllm serve {model} --port {port}"], "needs {revision}"),
        (["--serve-command", "vllm serve {model} --port {port} {gpus}"], "unknown placeholder"),
        (["--serve-command", "vllm 'serve {model}"], "cannot be split into words"),
        (["--api-base", "http://127.0.0.1:9/v1"], "no answer from http://127.0.0.1:9/v1/models"),
        (["--api-base", "x", "--max-unanswered", "2"], "--max-unanswered must be a share"),
        (["--api-base", "x", "--lease", "5"], "--lease must be at least 30 seconds"),
    ],
)
def test_bad_worker_options_are_one_line(
    args: list[str], message: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    code = main(["worker", "--repo", RECORD_REPO, "--work-dir", str(tmp_path), *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    monkeypatch.delenv("HF_TOKEN")
    assert main(["worker", "--repo", RECORD_REPO, "--api-base", "x"]) == 2
    assert "$HF_TOKEN: the worker needs a token" in capsys.readouterr().err


def test_a_killed_worker_leaves_no_engine_behind(
    hub: HubStub, tiny_model: Path, private_dir: Path, tmp_path: Path, hub_env: dict
) -> None:
    """kill -9 of the worker mid-run: its engine dies with it (PR_SET_PDEATHSIG); what the
    engine started itself (here a helper process in its group) is ended by the next worker
    that starts in the work dir, before it starts an engine of its own."""
    assert procs.PDEATHSIG  # Linux: the guarantee this test checks
    add_tiny_model(hub, tiny_model)
    rid = requested(hub, tmp_path)
    work = tmp_path / "worker"
    saved = work / "requests" / rid / "predictions.jsonl"
    serve = stub_serve("--delay", "0.02", "--children", "1")
    opts = ["--serve-command", serve, "--once", "--concurrency", "2", "--lease", "600"]
    worker = subprocess.Popen(
        worker_cmd(work, private_dir, *opts, "--worker-id", "crashing"),
        env=hub_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait_for_rows(worker, saved, 20)
    record = procs.EngineRecord.load(work / "engine.json")
    assert record is not None and record.worker_pid == worker.pid and record.pgid == record.pid
    assert procs.alive(record.pid, record.started)
    wait_until(lambda: len(procs.group_members(record.pgid, record.started)) == 2, "no helper")
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=30)
    wait_until(lambda: not procs.alive(record.pid, record.started), "the engine outlived it")
    [helper] = procs.group_members(record.pgid, record.started)  # the kernel left it running
    # the next worker ends the group before its own engine starts (the lease still holds, so
    # it runs nothing: the point is what it ends)
    nxt = subprocess.run(
        worker_cmd(work, private_dir, *opts, "--worker-id", "next"),
        env=hub_env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert f"ended the engine a stopped worker left (processes {helper})" in nxt.stdout, nxt
    assert not procs.group_members(record.pgid, record.started)
    assert not (work / "engine.json").exists()
    assert request_now(hub, rid).worker == "crashing"  # untouched: its lease still holds


def small_gold(gold, per_source: int = 6):
    """A few items of each source (public and private), for runs on a real engine."""
    from respondeoqa_eval.data.gold import GoldSet

    picked: dict[str, list] = {}
    for r in gold.records:
        if len(picked.setdefault(r.source, [])) < per_source:
            picked[r.source].append(r)
    return GoldSet(records=[r for rs in picked.values() for r in rs])


def worker_main(work: Path, private_dir: Path, *args: str) -> int:
    """`respondeoqa-space worker` in this process (the hub fixture's environment)."""
    argv = ["worker", "--repo", RECORD_REPO, "--data-dir", str(private_dir)]
    return main([*argv, "--work-dir", str(work), *args])


def test_a_broken_engine_fails_no_request_and_the_worker_stops_after_its_check(
    hub: HubStub, tiny_model: Path, private_dir: Path, tmp_path: Path, capsys
) -> None:
    add_tiny_model(hub, tiny_model)
    rid = requested(hub, tmp_path)
    before = request_now(hub, rid)
    broken = "no-such-binary {model} {revision} {port}"
    assert worker_main(tmp_path / "w", private_dir, "--serve-command", broken) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1, err
    assert (
        "the engine check on HuggingFaceTB/SmolLM2-135M-Instruct failed: the engine command "
        "could not be started (FileNotFoundError); the operator has to fix --serve-command; "
        "no request was claimed"
    ) in err
    assert request_now(hub, rid) == before  # not claimed, not touched
    # the check alone, on an engine that works: it says what it found and claims nothing
    serve = stub_serve()
    assert worker_main(tmp_path / "w", private_dir, "--serve-command", serve, "--check") == 0
    out = capsys.readouterr().out
    assert "the engine check on HuggingFaceTB/SmolLM2-135M-Instruct passed" in out, out
    assert "it samples when asked to" in out and request_now(hub, rid) == before
    ignoring = stub_serve("--greedy-only")
    assert worker_main(tmp_path / "w", private_dir, "--serve-command", ignoring, "--check") == 0
    out = capsys.readouterr().out
    assert "it ignores sampling: requests for paper are not taken" in out, out
    assert not (tmp_path / "w" / "engine.json").exists()  # every engine it started ended


def test_operator_side_failures_give_requests_back_and_stop_the_worker(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path
) -> None:
    """An engine that runs out of GPU memory for every model (its log says so): each request
    goes back to the queue with a note (this worker does not take it again: one model too
    large for its GPUs does not hold up the rest), and after three in a row the worker stops;
    the fourth request was not touched."""
    from respondeoqa_space.worker.worker import WorkerStopped

    rids = []
    for i, user in enumerate(("alice", "bob", "carol", "dave")):
        add_tiny_model(hub, tiny_model, f"tiny-org/m{i}")
        rids.append(requested(hub, tmp_path, f"tiny-org/m{i}", user=user))
    oom = stub_serve("--exit", "1", "--say", "'torch.OutOfMemoryError: CUDA out of memory.'")
    engine = StartedEngine(ServeCommand(oom), timeout=60, poll=0.2)
    worker = worker_of(hub, private_gold, tmp_path / "w", engine, poll=0.01)
    with pytest.raises(WorkerStopped) as stopped:
        worker.loop(threading.Event())
    assert "failed on the operator's side for 3 requests in a row" in str(stopped.value)
    states = [request_now(hub, rid) for rid in rids]
    assert [s.status for s in states] == [PENDING] * 4 and all(s.attempts == 0 for s in states)
    # the oldest first (requests of the same second: by id)
    *tried, last = sorted(states, key=lambda s: (s.created, s.id))
    for s in tried:
        assert s.reason == (
            "the engine ran out of memory while starting (exit status 1); the operator's GPUs "
            "are too small or busy"
        )
        [given_back] = [h for h in s.history if "released by w1: the operator's side" in h]
        assert "the engine ran out of memory" in given_back
    assert last.reason == "" and len(last.history) == 1  # never claimed
    assert worker.idle_text() == (
        "no request is waiting that this worker can run: 3 pending (3 given back by it on the "
        "operator's side)"
    )


def test_once_says_why_nothing_ran_and_fails_with_a_failed_request(
    hub: HubStub, tiny_model: Path, private_dir: Path, tmp_path: Path, capsys
) -> None:
    from dataclasses import replace

    from respondeoqa_space.requests.model import iso, request_path

    add_tiny_model(hub, tiny_model)
    add_tiny_model(hub, tiny_model, "tiny-org/other")
    with ChatServer(models=(MODEL,), default="Answer: A") as server:
        once = ["--api-base", server.base, "--once"]
        assert worker_main(tmp_path / "w", private_dir, *once) == 0
        assert capsys.readouterr().out.endswith("no request is waiting (nothing pending)\n")
        # a claim whose lease still holds (its worker may be dead)
        rid = requested(hub, tmp_path)
        held = request_now(hub, rid)
        lease = iso(time.time() + 9.5 * 60)
        running = replace(held, status=RUNNING, worker="ghost", attempts=1, lease_until=lease)
        hub.put(RECORD_REPO, request_path(rid), running.pack())
        for only in ([], ["--request", rid]):  # any request, or this one (a Job's)
            assert worker_main(tmp_path / "w", private_dir, *once, *only) == 0
            assert capsys.readouterr().out.endswith(
                f"no request is waiting: request {rid} is claimed by worker ghost; if that "
                "worker stopped, its lease frees the request in 10 min\n"
            )
        assert worker_main(tmp_path / "w", private_dir, *once, "--request", "f" * 12) == 0
        assert capsys.readouterr().out.endswith(f"no request {'f' * 12} in the record\n")
        assert worker_main(tmp_path / "w", private_dir, *once, "--request", "x;y") == 2
        assert "--request 'x;y': not a request id" in capsys.readouterr().err
        # interrupted as often as allowed: this worker fails it, and says so with status 1
        gone = replace(running, attempts=3, lease_until=iso(time.time() - 1))
        hub.put(RECORD_REPO, request_path(rid), gone.pack())
        assert worker_main(tmp_path / "w", private_dir, *once) == 1
        out = capsys.readouterr().out
        assert f"request {rid} failed: its evaluation was interrupted 3 times" in out, out
        # --once --model of a model this endpoint does not serve: a user's failed request for
        # it stays as it is
        other = requested(hub, tmp_path, "tiny-org/other", user="bob")
        failed = replace(request_now(hub, other), status=FAILED, reason="the engine exited")
        hub.put(RECORD_REPO, request_path(other), failed.pack())
        seeded = [*once, "--model", "tiny-org/other"]
        assert worker_main(tmp_path / "w", private_dir, *seeded) == 2
        err = capsys.readouterr().err
        assert "--model tiny-org/other: the engine at --api-base does not serve it" in err
        assert request_now(hub, other) == failed
        assert worker_main(tmp_path / "w", private_dir, *once, "--request", other) == 0
        out = capsys.readouterr().out
        assert out.endswith(f"request {other} failed: the engine exited; nothing to run\n")
        assert not server.bodies  # nothing was run
        # the check alone on the operator's endpoint measures it: this stand-in answers the
        # same whatever the sampling, so the presets that sample would be declined
        assert worker_main(tmp_path / "w", private_dir, "--api-base", server.base, "--check") == 0
        out = capsys.readouterr().out
        assert f"the engine check on {MODEL} passed" in out, out
        assert "it ignores sampling: requests for paper are not taken" in out


def test_an_engine_that_ignores_sampling_declines_the_presets_that_sample(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path
) -> None:
    from respondeoqa_eval.errors import InputError

    add_tiny_model(hub, tiny_model)
    paper = requested(hub, tmp_path)
    engine = StartedEngine(ServeCommand(stub_serve("--greedy-only")), timeout=60, poll=0.2)
    worker = worker_of(hub, small_gold(private_gold), tmp_path / "w", engine)
    assert "it ignores sampling: requests for paper are not taken" in worker.preflight()
    assert worker.run_once() is None and request_now(hub, paper).status == PENDING
    said = worker.idle_text()
    assert said.startswith(
        "no request is waiting that this worker can run: 1 pending (1 for presets it declines "
        "(the engine (python) ignored the temperature in the worker's check"
    ), said
    with pytest.raises(InputError, match="--preset paper: the engine .* cannot honour"):
        worker.seed(MODEL, "main", "paper", False)
    greedy = requested(hub, tmp_path, user="bob", preset="greedy")
    ended = worker.run_once()
    assert (ended.id, ended.status) == (greedy, FINISHED)
    ev = worker.store.get(ended.entries[0]).evaluation
    assert (ev.preset, ev.temperature, ev.top_p) == ("greedy", 0.0, None)


def test_provenance_says_the_sampling_transformers_serve_applied(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path, hub_env: dict
) -> None:
    """`transformers serve` ignores the temperature of a model whose generation config
    disables sampling; the worker sends a generation config that enables it (its check
    measures that the engine then samples), and the entry records what ran: answers that are
    not the greedy ones, under the sampling of the paper preset."""
    import shutil

    from respondeoqa_eval.runner.prompts import build_messages
    from respondeoqa_space.worker import sampling

    model = tmp_path / "greedy-config"
    shutil.copytree(tiny_model, model)
    config = json.loads((model / "generation_config.json").read_text())
    (model / "generation_config.json").write_text(json.dumps({**config, "do_sample": False}))
    name = "tiny-org/greedy-config"
    add_tiny_model(hub, model, name)
    gold = small_gold(private_gold)
    engine = StartedEngine(ServeCommand(SERVE), timeout=120, poll=0.5)
    worker = worker_of(hub, gold, tmp_path / "w", engine, concurrency=4)
    # the engine's own behaviour, as the issue found it: the request's temperature is ignored
    # unless a generation config enabling sampling comes with it (the worker's check)
    with engine.serve_model(name, "main", tmp_path) as served:
        api, served_as = served.api_base, served.model
        msgs = build_messages(next(r for r in gold.records if not r.is_private))
        assert sampling.samples(api, served_as, msgs, "unknown") is False
        assert sampling.samples(api, served_as, msgs, "transformers") is True
        greedy = {
            r.id: sampling.answer(api, served_as, build_messages(r), body={"max_tokens": 6})
            for r in gold.records
        }
    rid = requested(hub, tmp_path, name, preset="paper", tokens=6)
    ended = worker.run_once()
    assert (ended.id, ended.status) == (rid, FINISHED), ended
    entry = worker.store.get(ended.entries[0])
    ev = entry.evaluation
    assert (ev.engine, ev.temperature, ev.top_p, ev.seed) == ("transformers", 0.6, 0.95, 0)
    assert "Sampling: given to transformers serve as the request's generation config" in (
        entry.note
    )
    path = tmp_path / "w" / "requests" / rid / "predictions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    sent = json.loads(rows[0]["params"]["extra_body"]["generation_config"])
    assert sent == {"do_sample": True, "temperature": 0.6, "top_p": 0.95}
    assert sorted(greedy) == sorted(r["id"] for r in rows) and all(greedy.values())
    differ = sum(r["response"] != greedy[r["id"]] for r in rows)
    assert differ >= len(gold) // 2, differ  # it sampled: not the greedy answers


def test_the_checked_engine_serves_a_request_on_its_model_with_no_second_start(
    hub: HubStub, tiny_model: Path, private_gold, tmp_path: Path
) -> None:
    """With --once (a Job's worker, checking the requested model itself) the engine the check
    started serves the request: one start. One that died after its check is started again
    (a broken engine fails no request); one checked on another revision is stopped first."""
    gold = small_gold(private_gold)

    def starts(folder: Path) -> int:
        path = folder / "engine.log"
        return path.read_text().count("engine stub ready") if path.exists() else 0

    rids = []
    for n in range(3):
        add_tiny_model(hub, tiny_model, f"tiny-org/m{n}")
        rids.append(requested(hub, tmp_path, f"tiny-org/m{n}", user=f"u{n}", preset="greedy"))
    for n, (revision, kill) in enumerate(((None, False), (None, True), ("main", False))):
        work = tmp_path / f"w{n}"
        reply = f"'Answer: {'ABC'[n]}'"  # each run new to the board (no copycat)
        engine = StartedEngine(ServeCommand(stub_serve("--reply", reply)), timeout=60, poll=0.2)
        model = f"tiny-org/m{n}"
        head = hub.head(model, "model")
        worker = worker_of(
            hub, gold, work, engine, check_model=model, check_revision=revision or head,
            keep_engine=True,
        )  # fmt: skip
        assert "passed" in worker.preflight()
        kept = engine.proc
        assert kept is not None and kept.poll() is None  # kept up for the request
        if kill:
            os.killpg(kept.pid, signal.SIGKILL)
            kept.wait(timeout=30)
        ended = worker.run_once(only=rids[n])
        assert (ended.id, ended.status) == (rids[n], FINISHED), ended
        assert kept.poll() is not None and engine.proc is None  # stopped with the run
        again = work / "requests" / rids[n]
        assert (starts(work / "check"), starts(again)) == (1, 0 if n == 0 else 1)
    # without --once the check's engine is stopped at once
    engine = StartedEngine(ServeCommand(stub_serve()), timeout=60, poll=0.2)
    worker_of(hub, gold, tmp_path / "w3", engine, check_model="tiny-org/m0").preflight()
    assert engine.proc is None
