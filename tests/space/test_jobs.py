"""Evaluation requests on Hugging Face Jobs (`respondeoqa-space dispatch`): the flavor and price table, one
request as one Job, and the dispatcher against the Jobs stand-in (kit/jobstub.py), whose Jobs
are local processes running the real `respondeoqa-space worker --once --request ID` on a stand-in engine
that never answers (`hang`: a run in progress) or runs out of GPU memory (`oom`).

A Job killed mid-run gives its request back, run again by a new Job, nothing stored twice; one
that reaches its timeout fails its request with the time allowed; one out of memory is run once
more on the next flavor up, then no more; two dispatchers at once launch one Job per request
and never more than the limit of Jobs together; the caps per request and per day hold; the
lease is renewed while a Job waits for hardware. The whole path to verified entries on a real
`transformers serve` is test_jobs_e2e.py.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from respondeoqa_eval.errors import InputError
from respondeoqa_space import __version__
from respondeoqa_space.config import Limits
from respondeoqa_space.jobs.command import (
    OOM_LINE,
    SCRIPT,
    JobRun,
    job_spec,
    job_timeout,
)
from respondeoqa_space.jobs.flavors import (
    billed_cost,
    billed_minutes,
    flavor_for,
    next_up,
    weight_bytes,
)
from respondeoqa_space.requests.model import FAILED, PENDING, RUNNING, Request

from .jobskit import dispatcher_of, mount_jobs, put_gold
from .requestkit import MODEL, add_tiny_model, desk_of, requests_in_record

B = 10**9


def test_the_flavor_table_follows_the_rule() -> None:
    # 16-bit weights: up to 8B on one L4, 34B on one A100 80 GB, 72B on two H200, above refused
    for billions, flavor in ((0.5, "l4x1"), (8, "l4x1"), (8.5, "a100-large"), (34, "a100-large"),
                             (35, "h200x2"), (72, "h200x2")):  # fmt: skip
        assert flavor_for(weight_bytes({"BF16": int(billions * B)}, None)).name == flavor
    assert flavor_for(weight_bytes({"BF16": 73 * B}, None)) is None
    # the precision counts: 16B in 8 bits fits an L4, 8B in 32 bits does not
    assert flavor_for(weight_bytes({"F8_E4M3": 16 * B}, None)).name == "l4x1"
    assert flavor_for(weight_bytes({"F32": 8 * B}, None)).name == "a100-large"
    assert weight_bytes(None, 7 * B) == 14 * B and weight_bytes(None, None) is None
    ladder = ["l4x1"]
    while (up := next_up(ladder[-1])) is not None:
        ladder.append(up.name)
    assert ladder == ["l4x1", "a100-large", "h200x2", "h200x4"]
    assert [flavor_for(weight_bytes({"BF16": 72 * B}, None)).gpus, next_up("h200x2").gpus] == [2, 4]
    # billed by the started minute, at the Hub's hourly price ($0.80 an hour for one L4)
    assert [billed_minutes(s) for s in (0, 1, 60, 60.5, 3600)] == [0, 1, 1, 2, 60]
    assert billed_cost(61, 0.80) == pytest.approx(2 * 0.80 / 60)
    # a larger token budget, a larger model: a longer timeout
    l4 = flavor_for(B)
    assert job_timeout(B, 8000, 1024, l4) < job_timeout(B, 8000, 16384, l4)
    assert job_timeout(B, 8000, 1024, l4) < job_timeout(15 * B, 8000, 1024, l4)


def _request(parameters: int = 7 * B) -> Request:
    return Request(
        id="0123456789ab", model="org/model-7b", revision="a" * 40, asked_revision="main",
        preset="paper", reasoning=False, max_new_tokens=1024, requester="alice",
        created="2026-12-01T00:00:00+00:00", parameters=parameters,
    )  # fmt: skip


@pytest.mark.slow
def test_one_request_as_one_job() -> None:
    flavor = flavor_for(weight_bytes({"BF16": 70 * B}, None))
    spec = job_spec(
        _request(70 * B), "job-abc", flavor, 7200, repo="org/record", record_token="hf_write",
        weights=140 * B, lease=900, gold_repo="org/gold", gold_token="hf_read",
    )  # fmt: skip
    assert spec.image.startswith("vllm/vllm-openai:v") and spec.flavor == "h200x2"
    assert spec.command[:3] == ["sh", "-c", SCRIPT]
    args = spec.command[4:]
    assert args[:1] == ["worker"]
    for option, value in (("--request", "0123456789ab"), ("--worker-id", "job-abc"),
                          ("--repo", "org/record")):  # fmt: skip
        assert args[args.index(option) + 1] == value
    assert "--once" in args
    serve = args[args.index("--serve-command") + 1]
    assert serve == (
        "vllm serve {model} --revision {revision} --tensor-parallel-size 2 --port {port}"
    )
    assert spec.env["RESPONDEOQA_PACKAGE"] == f"respondeoqa-space=={__version__}"
    assert spec.env["RESPONDEOQA_GOLD_REPO"] == "org/gold"
    # the tokens are secrets, never plain environment
    assert spec.secrets == {"HF_TOKEN": "hf_write", "RESPONDEOQA_GOLD_TOKEN": "hf_read"}
    assert "hf_write" not in json.dumps([spec.env, spec.command, spec.labels])
    assert spec.timeout == 7200 and spec.labels["respondeoqa-request"] == "0123456789ab"
    checked = subprocess.run(["sh", "-n", "-c", SCRIPT], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    # what the Job's worker reads back; a wrong value is one line naming it
    env = {"RESPONDEOQA_JOB_FLAVOR": "l4x1", "RESPONDEOQA_JOB_PRICE": "0.8"}
    assert JobRun.from_env({}) is None
    assert JobRun.from_env({**env, "RESPONDEOQA_JOB_STARTED": "1764547200"}).price_per_hour == 0.8
    with pytest.raises(InputError, match="RESPONDEOQA_JOB_STARTED"):
        JobRun.from_env({**env, "RESPONDEOQA_JOB_STARTED": "soon"})


# -- the dispatcher on the Jobs stand-in ---------------------------------------------------


@pytest.fixture
def jobs(hub: HubStub, tmp_path: Path, private_dir: Path, tiny_model: Path):
    add_tiny_model(hub, tiny_model)
    put_gold(hub, private_dir)
    stub = mount_jobs(hub, tmp_path / "jobs", engine="hang")
    try:
        yield stub
    finally:
        stub.stop_all()


def requested(hub: HubStub, tmp_path: Path, preset: str = "greedy") -> str:
    desk = desk_of(hub, tmp_path / f"desk-{preset}", Limits(request_tokens=8))
    outcome = desk.request(MODEL, "main", preset, False, "alice")
    assert outcome.ok, outcome.message
    return outcome.request.id


def now_of(hub: HubStub, rid: str) -> Request:
    return Request.from_dict(requests_in_record(hub)[rid])


def wait_for_log(stub, job_id: str, text: str, timeout: float = 180) -> None:
    """Until the Job's log shows `text` (its worker got that far); the Job must not end first."""
    deadline = time.monotonic() + timeout
    while text not in stub.log_text(job_id):
        job = stub.jobs[job_id]
        assert job.finished is None, f"the Job ended:\n{stub.log_text(job_id)}"
        assert time.monotonic() < deadline, f"no {text!r} in:\n{stub.log_text(job_id)}"
        time.sleep(0.2)


def no_entries(hub: HubStub) -> bool:
    return not any(p.startswith("entries/") for p in hub.files(RECORD_REPO))


@pytest.mark.slow
def test_a_killed_job_gives_its_request_back_and_a_new_job_runs_it(
    hub: HubStub, jobs, tmp_path: Path
) -> None:
    rid = requested(hub, tmp_path)
    dispatcher = dispatcher_of(hub, tmp_path / "d")
    done = dispatcher.round()
    assert len(done.launched) == 1 and "1x Nvidia L4" in done.launched[0], done.lines()
    (first,) = jobs.jobs.values()
    # the Job's worker holds the dispatcher's claim and has its engine up (its engine check, on
    # the stand-in's "hang" engine, then waits for an answer that never comes: mid-run)
    wait_for_log(jobs, first.id, "engine ready: ")
    claimed = now_of(hub, rid)
    assert (
        claimed.status == RUNNING and claimed.worker == first.spec["labels"]["respondeoqa-worker"]
    )
    assert claimed.attempts == 1
    jobs.kill(first.id)
    done = dispatcher.round()
    assert f"request {rid} pending again" in done.settled[0], done.lines()
    assert len(done.launched) == 1  # run again at once, by a new Job under a new claim
    second = [j for j in jobs.jobs.values() if j.id != first.id]
    assert len(second) == 1
    again = now_of(hub, rid)
    assert (
        again.status == RUNNING and again.worker == second[0].spec["labels"]["respondeoqa-worker"]
    )
    assert again.worker != claimed.worker and no_entries(hub)
    assert any(f"its Job {first.id} ended (error)" in h for h in again.history)
    # the Job's log quotes no private item, and no token
    logs = "\n".join(dispatcher.api.fetch_job_logs(job_id=first.id, namespace="operator"))
    assert "engine ready: " in logs and TOKEN not in logs
    from synthetic import SECRET_MARKER

    assert SECRET_MARKER not in logs
    # a third end: interrupted as often as allowed, it fails with a public reason
    wait_for_log(jobs, second[0].id, "engine ready: ")
    jobs.kill(second[0].id)
    dispatcher.settings.max_attempts = 2
    done = dispatcher.round()
    assert now_of(hub, rid).status == FAILED and "interrupted 2 times" in now_of(hub, rid).reason
    assert not done.launched and len(jobs.jobs) == 2 and no_entries(hub)


@pytest.mark.slow
def test_a_job_that_reaches_its_timeout_fails_its_request(
    hub: HubStub, jobs, tmp_path: Path
) -> None:
    rid = requested(hub, tmp_path)
    dispatcher = dispatcher_of(hub, tmp_path / "d")
    dispatcher.round()
    (job,) = jobs.jobs.values()
    wait_for_log(jobs, job.id, "engine ready: ")
    jobs.timeout_now(job.id)
    done = dispatcher.round()
    ended = now_of(hub, rid)
    minutes = job.spec["timeoutSeconds"] // 60
    assert ended.status == FAILED, done.lines()
    assert ended.reason == (
        f"the evaluation did not finish within the {minutes:,} minutes the operator allows on "
        "1x Nvidia L4"
    )
    assert not done.launched and len(jobs.jobs) == 1 and no_entries(hub)


@pytest.mark.slow
def test_out_of_memory_is_run_once_more_on_the_next_flavor(
    hub: HubStub, jobs, tmp_path: Path
) -> None:
    jobs.engines.update({"l4x1": "oom", "a100-large": "oom"})
    rid = requested(hub, tmp_path)
    dispatcher = dispatcher_of(hub, tmp_path / "d")
    dispatcher.round()
    (small,) = jobs.jobs.values()
    jobs.wait(small.id, timeout=180)
    assert OOM_LINE in jobs.log_text(small.id)
    assert "CUDA out of memory" not in jobs.log_text(small.id)  # the engine's words stay inside
    done = dispatcher.round()
    assert "out of GPU memory on 1x Nvidia L4: to be run on Nvidia A100 - large" in done.settled[0]
    (large,) = [j for j in jobs.jobs.values() if j.id != small.id]
    assert large.spec["flavor"] == "a100-large"
    jobs.wait(large.id, timeout=180)
    done = dispatcher.round()
    ended = now_of(hub, rid)
    assert ended.status == FAILED and not done.launched and len(jobs.jobs) == 2, done.lines()
    assert "fit" in ended.reason and no_entries(hub)


def test_two_dispatchers_at_once_launch_one_job_per_request_and_keep_the_limit(
    hub: HubStub, jobs, tmp_path: Path
) -> None:
    jobs.hold = True  # the Jobs wait for hardware: no process runs
    first, second = requested(hub, tmp_path, "greedy"), requested(hub, tmp_path, "paper")
    dispatchers = [dispatcher_of(hub, tmp_path / f"d{i}", max_jobs=1) for i in range(2)]
    threads = [threading.Thread(target=d.round) for d in dispatchers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(jobs.created) == 1  # at most one Job at once, whoever asked
    for d in dispatchers:
        d.round()
    assert len(jobs.created) == 1
    states = {rid: now_of(hub, rid).status for rid in (first, second)}
    assert sorted(states.values()) == [PENDING, RUNNING]
    # with room for both, each request still has one Job
    for d in dispatchers:
        d.settings.max_jobs = 5
    threads = [threading.Thread(target=d.round) for d in dispatchers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    labels = [spec["labels"]["respondeoqa-request"] for spec in jobs.created]
    assert sorted(labels) == sorted([first, second])


def test_the_caps_and_the_size_limit_hold(hub: HubStub, jobs, tmp_path: Path) -> None:
    jobs.hold = True
    rid = requested(hub, tmp_path)
    # a day's cap below the Job's largest cost: the request waits, nothing launched
    dispatcher = dispatcher_of(hub, tmp_path / "d", daily_cap=0.05)
    done = dispatcher.round()
    assert not jobs.created and now_of(hub, rid).status == PENDING
    assert "of the $0.05 a day are spent or reserved" in done.waiting[0], done.lines()
    # launched under a larger cap; a running Job counts at its timeout towards the next one
    dispatcher.settings.daily_cap = 5.0
    dispatcher.round()
    assert len(jobs.created) == 1
    other = requested(hub, tmp_path, "paper")
    cost = float(done.waiting[0].split("may cost $")[1].split(";")[0])
    dispatcher.settings.daily_cap = cost * 1.5
    dispatcher.settings.max_jobs = 3
    done = dispatcher.round()
    assert len(jobs.created) == 1 and now_of(hub, other).status == PENDING, done.lines()
    # a request whose Job may cost more than the operator allows per request is refused
    dispatcher.settings.request_cap = 0.01
    dispatcher.settings.daily_cap = 100.0
    done = dispatcher.round()
    refused = now_of(hub, other)
    assert (
        refused.status == FAILED
        and "more than the $0.01 the operator allows per request" in refused.reason
    )
    assert len(jobs.created) == 1


def test_too_large_a_model_is_refused(hub: HubStub, jobs, tmp_path: Path) -> None:
    jobs.hold = True
    rid = requested(hub, tmp_path)
    dispatcher = dispatcher_of(hub, tmp_path / "d", max_params=1000)  # the tiny model: ~40K
    dispatcher.round()
    ended = now_of(hub, rid)
    assert ended.status == FAILED and "the 1K the operator evaluates" in ended.reason
    assert not jobs.created


def test_the_lease_is_renewed_while_the_job_waits_for_hardware(
    hub: HubStub, jobs, tmp_path: Path
) -> None:
    jobs.hold = True
    rid = requested(hub, tmp_path)
    clock = [time.time()]
    dispatcher = dispatcher_of(hub, tmp_path / "d", clock=lambda: clock[0])
    dispatcher.round()
    before = now_of(hub, rid).lease_until
    clock[0] += 600
    dispatcher.round()
    after = now_of(hub, rid)
    assert after.status == RUNNING and after.lease_until > before
    # a request another worker holds now: its Job is cancelled (never two runs)
    (job,) = jobs.jobs.values()
    from respondeoqa_space.requests.ledger import RequestLedger

    clock[0] += 2000  # the lease ran out; another worker claimed it
    other = RequestLedger(dispatcher.ledger.repo, clock=lambda: clock[0])
    assert other.claim("w-other", 900).id == rid
    dispatcher.round()
    for _ in range(50):
        if job.stage == "CANCELED":
            break
        time.sleep(0.1)
    assert job.stage == "CANCELED"


def test_a_jobs_run_shows_its_hardware_time_and_cost_and_older_entries_read_as_before() -> None:
    from dataclasses import replace

    from respondeoqa_space.store.evaluation import Evaluation, EvaluationError
    from respondeoqa_space.views.verified import evaluation_fields

    from .test_record_writers import EVALUATION

    old = EVALUATION.to_dict()
    for key in ("hardware", "price_per_hour", "job_seconds"):
        del old[key]  # an entry stored before Jobs existed
    assert Evaluation.from_dict(old) == EVALUATION
    assert "Cost" not in dict(evaluation_fields(EVALUATION))
    on_job = replace(EVALUATION, hardware="a100-large", price_per_hour=2.5, job_seconds=1801.0)
    fields = dict(evaluation_fields(Evaluation.from_dict(on_job.to_dict())))
    assert fields["Hardware"] == "a100-large (Nvidia A100 - large), a Hugging Face Job"
    assert fields["Job wall time"] == "1,801 s from its start to its results: 31 billed min"
    assert fields["Cost"].startswith("$1.29 (31 min x $2.50/h")  # 31 x 2.50 / 60
    names = [name for name, _ in evaluation_fields(on_job)]
    assert names.index("Tokens") + 1 == names.index("Hardware")  # beside the token counts
    for bad in ({"hardware": "<b>x</b>"}, {"price_per_hour": -1}, {"job_seconds": "soon"}):
        with pytest.raises(EvaluationError, match="evaluation\\."):
            Evaluation.from_dict({**on_job.to_dict(), **bad})


def test_the_jobs_api_failing_changes_nothing_and_a_job_not_started_gives_its_request_back(
    hub: HubStub, jobs, tmp_path: Path
) -> None:
    from respondeoqa_space.store.hub import HubUnavailable

    jobs.hold = True
    rid = requested(hub, tmp_path)
    dispatcher = dispatcher_of(hub, tmp_path / "d")
    commits = len(hub.commits)
    hub.fail("GET", "/api/jobs/operator", 500, times=20)  # the list of Jobs: an outage
    with pytest.raises(HubUnavailable, match="the Jobs of operator"):
        dispatcher.round()
    assert len(hub.commits) == commits and now_of(hub, rid).status == PENDING
    hub.faults.clear()
    hub.fail("POST", "/api/jobs/operator", 402)  # no credit: the Job is refused
    done = dispatcher.round()
    assert "could not be started (HfHubHTTPError)" in done.waiting[0], done.lines()
    back = now_of(hub, rid)
    assert back.status == PENDING and back.attempts == 0 and not jobs.created
    dispatcher.round()
    assert len(jobs.created) == 1 and now_of(hub, rid).status == RUNNING


@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-jobs", "0"], "--max-jobs, --max-attempts and --items must be at least 1"),
        (["--daily-cap", "-1"], "--daily-cap must be a positive number"),
        (["--request-cap", "nan"], "--request-cap must be a positive number"),
        (["--loop", "--poll", "600"], "--poll must be at most a third of --lease"),
        (["--job-token-env", "NO_SUCH_TOKEN_VAR"], "--job-token-env NO_SUCH_TOKEN_VAR: that"),
    ],
)
def test_bad_dispatch_options_are_one_line(
    args: list[str], message: str, capsys, monkeypatch
) -> None:
    from respondeoqa_space.cli import main

    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.delenv("NO_SUCH_TOKEN_VAR", raising=False)
    code = main(["dispatch", "--repo", RECORD_REPO, *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_the_worker_takes_a_request_id_only_with_once(capsys, monkeypatch) -> None:
    from respondeoqa_space.cli import main

    monkeypatch.setenv("HF_TOKEN", TOKEN)
    for args, message in (
        (["--request", "0123456789ab"], "--request needs --once"),
        (["--once", "--request", "../etc"], "--request '../etc': not a request id"),
    ):
        code = main(["worker", "--repo", RECORD_REPO, "--api-base", "x", *args])
        err = capsys.readouterr().err
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


# -- the Job's two tokens ------------------------------------------------------------------

RECORD_ONLY, GOLD_ONLY = "hf_record_write_only", "hf_gold_read_only"


def job_worker(
    hub: HubStub, tmp_path: Path, monkeypatch, capsys, rid: str, record_token: str, gold_token: str
) -> tuple[int, str]:
    """`respondeoqa-space worker --once --request RID` as a Job runs it (the dispatcher's claim, the gold
    read from the gold repo), in this process, with the Job's two tokens; (status, stderr)."""
    from respondeoqa_space.cli import main
    from respondeoqa_space.requests.ledger import RequestLedger

    from .jobskit import GOLD_REPO
    from .requestkit import repo_of
    from .test_worker import stub_serve

    claimed = RequestLedger(repo_of(hub, tmp_path / "dispatcher")).claim("job-0123abcd", 900)
    assert claimed.id == rid
    monkeypatch.setenv("HF_TOKEN", record_token)
    monkeypatch.setenv("RESPONDEOQA_GOLD_REPO", GOLD_REPO)
    monkeypatch.setenv("RESPONDEOQA_GOLD_TOKEN", gold_token)
    code = main(
        ["worker", "--repo", RECORD_REPO, "--work-dir", str(tmp_path / "job"),
         "--once", "--request", rid, "--worker-id", "job-0123abcd", "--check-model", MODEL,
         "--serve-command", stub_serve()]
    )  # fmt: skip
    return code, capsys.readouterr().err


def test_a_mis_scoped_token_is_one_line_naming_it_and_the_request_waits(
    hub: HubStub, tmp_path: Path, private_dir: Path, tiny_model: Path, monkeypatch, capsys
) -> None:
    from .jobskit import GOLD_REPO

    add_tiny_model(hub, tiny_model)
    put_gold(hub, private_dir)
    rid = requested(hub, tmp_path)
    record, gold = f"dataset:{RECORD_REPO}", f"dataset:{GOLD_REPO}"
    # the gold token was scoped to another repo: the private gold is "not found" to it
    hub.grant(RECORD_ONLY, write=(record,))
    hub.grant(GOLD_ONLY, read=("dataset:operator/other",))
    code, err = job_worker(hub, tmp_path, monkeypatch, capsys, rid, RECORD_ONLY, GOLD_ONLY)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert (
        f"$RESPONDEOQA_GOLD_TOKEN has no read access to the gold repo {GOLD_REPO} (the Hub "
        f"answered HTTP 404); request {rid} is pending again"
    ) in err
    back = now_of(hub, rid)
    assert (back.status, back.attempts, back.worker) == (PENDING, 0, "")  # not the requester's
    assert "could not read the gold" in back.reason
    assert GOLD_REPO not in back.reason  # the note is public; the operator's line names it
    # the record token may read the record but not write it: the claim cannot be taken over
    hub.grant(GOLD_ONLY, read=(gold,))
    hub.grant(RECORD_ONLY, read=(record,))
    code, err = job_worker(hub, tmp_path, monkeypatch, capsys, rid, RECORD_ONLY, GOLD_ONLY)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert (
        f"$HF_TOKEN has no write access to the record repo {RECORD_REPO} (the Hub answered "
        "HTTP 403)"
    ) in err
    assert now_of(hub, rid).worker == "job-0123abcd" and no_entries(hub)  # the lease frees it
    # each token used for its own repo only: the gold token read the gold and nothing else
    assert all("/respondeoqa-gold" in p for t, _, p in hub.seen if t == GOLD_ONLY)
    assert not any("/respondeoqa-gold" in p for t, _, p in hub.seen if t == RECORD_ONLY)
