"""Evaluation requests on the Hub stand-in: what the Space's desk refuses (storing nothing), the
limits per user, duplicates, the Hub's model info, and the claims of the operator's workers
(two workers never win the same request; a lease that runs out makes it claimable again; too
many interrupted attempts fail it). Clocks are injected: no test waits for a lease."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from respondeoqa_space.config import Limits
from respondeoqa_space.requests.ledger import LostClaim
from respondeoqa_space.requests.model import FAILED, PENDING, RUNNING, Request, request_path
from respondeoqa_space.service import Space, SpaceConfig

from .requestkit import MODEL, add_tiny_model, desk_of, ledger_of, requests_in_record

HOSTILE_MODELS = [
    "",
    "   ",
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">/x',
    "../../etc/passwd",
    "org/name/extra",
    "org/na me",
    "\u043ergan/model",  # Cyrillic o: a look-alike of "organ/model"
    "org/x\x00y",
    "org/--x",
    "org/name@main",
    "a" * 300 + "/b",
    "org/name\u202e",
]
HOSTILE_REVISIONS = ["../main", "main branch", "a" * 200, "\u202emain", "ma\nin"]


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def model(hub: HubStub, tiny_model: Path) -> str:
    """The tiny model as a public model on the stand-in; its head commit."""
    return add_tiny_model(hub, tiny_model)


def record_commits(hub: HubStub) -> int:
    return sum(1 for c in hub.commits if c.repo == f"dataset:{RECORD_REPO}")


def test_bad_request_input_gets_a_message_and_stores_nothing(
    hub: HubStub, model: str, tiny_model: Path, tmp_path: Path
) -> None:
    add_tiny_model(hub, tiny_model, "someone/private-model", private=True)
    add_tiny_model(hub, tiny_model, "someone/encoder", card="---\npipeline_tag: fill-mask\n---\n")
    desk = desk_of(hub, tmp_path / "c0")
    before = record_commits(hub)
    refusals = [desk.request(MODEL, "main", "paper", False, "")]  # not logged in
    refusals += [desk.request(m, "main", "paper", False, "alice") for m in HOSTILE_MODELS]
    refusals += [desk.request(MODEL, r, "paper", False, "alice") for r in HOSTILE_REVISIONS]
    refusals += [
        desk.request(MODEL, "main", "hot", False, "alice"),  # an API client's own preset
        desk.request(MODEL, "main", "paper", "yes", "alice"),
        desk.request("tiny-org/no-such-model", "main", "paper", False, "alice"),
        desk.request("someone/private-model", "main", "paper", False, "alice"),
        desk.request(MODEL, "v9.9", "paper", False, "alice"),  # no such revision
        desk.request("someone/encoder", "main", "paper", False, "alice"),
    ]
    for outcome in refusals:
        assert not outcome.ok and outcome.message.startswith("Not requested: "), outcome
        assert "\n" not in outcome.message and "<" not in outcome.message
        assert "Traceback" not in outcome.message and TOKEN not in outcome.message
    messages = [o.message for o in refusals]
    assert "log in with Hugging Face" in messages[0]
    assert all("model: " in m for m in messages[1 : 1 + len(HOSTILE_MODELS)])
    assert all("revision: " in m for m in messages[-11:-6])
    assert "sampling: one of paper, greedy" in messages[-6]
    assert "reasoning: yes or no" in messages[-5]
    assert (
        "no public model tiny-org/no-such-model (it does not exist, or it is private)"
        in (messages[-4])
    )
    assert "no public model someone/private-model" in messages[-3]  # private: as if missing
    assert f"{MODEL} has no revision 'v9.9'" in messages[-2]
    assert "fill-mask model, not one that generates text" in messages[-1]
    assert record_commits(hub) == before and not requests_in_record(hub)
    assert desk.requests() == []

    # the Hub does not answer: nothing stored, and the requester is told to try again
    hub.fail("GET", f"/api/models/{MODEL}", status=503, times=10)
    down = desk.request(MODEL, "main", "paper", False, "alice")
    assert down.message == (
        "Not requested: the Hub did not answer; nothing was stored, please try again."
    )
    hub.faults.clear()
    hub.fail("POST", f"/api/datasets/{RECORD_REPO}/commit", status=500, times=50)
    refused = desk.request(MODEL, "main", "paper", False, "alice")
    assert refused.message.startswith("Not requested: the leaderboard's record on the Hub")
    hub.faults.clear()
    assert record_commits(hub) == before and not requests_in_record(hub)

    # the record not read yet (the Space at start-up): closed, nothing asked of the Hub
    desk.closed = lambda: "the leaderboard is still reading its record from the Hub"
    asked = len(hub.requests)
    assert desk.request(MODEL, "main", "paper", False, "alice").message == (
        "Not requested: the leaderboard is still reading its record from the Hub"
    )
    assert len(hub.requests) == asked


def test_a_request_records_the_hub_facts_and_duplicates_point_to_it(
    hub: HubStub, model: str, tmp_path: Path
) -> None:
    desk = desk_of(hub, tmp_path / "c0", Limits(request_tokens=512, reasoning_tokens=4096))
    first = desk.request(f"  {MODEL} ", "", "paper", True, "alice")
    assert first.ok, first.message
    stored = Request.from_dict(requests_in_record(hub)[first.request.id])
    assert (stored.model, stored.revision, stored.asked_revision) == (MODEL, model, "main")
    assert (stored.licence, stored.preset, stored.reasoning) == ("apache-2.0", "paper", True)
    assert stored.max_new_tokens == 4096 and stored.status == PENDING
    assert stored.parameters == 44_192  # the stand-in counted the safetensors header
    assert stored.requester == "alice" and stored.history[0].endswith("requested")
    # the same model at the same commit (named by branch or by commit), preset and reasoning
    # budget: the same
    for revision in ("main", model, model[:12]):
        again = desk.request(MODEL, revision, "paper", True, "bob")
        assert not again.ok and again.request == first.request
        assert f"request {first.request.id}, pending." in again.message
    other = desk.request(MODEL, "main", "greedy", False, "bob")  # another preset: another run
    assert other.ok and other.request.id != first.request.id
    # without the reasoning budget: another run too (issue 27: it was refused as a duplicate)
    plain = desk.request(MODEL, "main", "paper", False, "carol")
    assert plain.ok and plain.request.id not in (first.request.id, other.request.id)
    assert plain.request.max_new_tokens == 512 and not plain.request.reasoning
    assert len(requests_in_record(hub)) == 3


def test_per_user_limits_from_the_settings(hub: HubStub, tiny_model: Path, tmp_path: Path):
    for i in range(4):
        add_tiny_model(hub, tiny_model, f"tiny-org/m{i}")
    clock = Clock()
    desk = desk_of(hub, tmp_path / "c0", Limits(requests_pending=2, requests_per_week=3), clock)
    assert desk.request("tiny-org/m0", "main", "paper", False, "alice").ok
    clock.now += 1  # workers take the oldest first
    assert desk.request("tiny-org/m1", "main", "paper", False, "alice").ok
    clock.now += 1
    over = desk.request("tiny-org/m2", "main", "paper", False, "alice")
    assert over.message.startswith("Not requested: you have 2 requests waiting or running")
    assert desk.request("tiny-org/m0", "main", "greedy", False, "bob").ok  # per user
    # alice's first one finishes: a pending slot again, and the third of her week
    ledger = ledger_of(hub, tmp_path / "c1", clock)
    claimed = ledger.claim("w1", 600)
    ledger.fail(claimed, "w1", "the engine exited")
    desk.ledger.read_now()
    assert desk.request("tiny-org/m2", "main", "paper", False, "alice").ok
    clock.now += 3600
    ledger.fail(ledger.claim("w1", 600), "w1", "x")
    desk.ledger.read_now()
    week = desk.request("tiny-org/m3", "main", "paper", False, "alice")
    assert week.message.startswith("Not requested: at most 3 requests per user in 7 days")
    clock.now += 7 * 24 * 3600
    assert desk.request("tiny-org/m3", "main", "paper", False, "alice").ok


def test_two_workers_never_win_the_same_request(
    hub: HubStub, tiny_model: Path, tmp_path: Path
) -> None:
    desk = desk_of(hub, tmp_path / "desk")
    for i in range(3):
        add_tiny_model(hub, tiny_model, f"tiny-org/m{i}")
        assert desk.request(f"tiny-org/m{i}", "main", "paper", False, f"user{i}").ok
    claims: dict[str, list[str]] = {}
    start = threading.Barrier(4)

    def work(name: str) -> None:
        ledger = ledger_of(hub, tmp_path / name)  # its own machine: its own client and cache
        start.wait()
        while (got := ledger.claim(name, 600)) is not None:
            claims.setdefault(got.id, []).append(name)

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert sorted(claims) == sorted(requests_in_record(hub))
    assert all(len(who) == 1 for who in claims.values()), claims  # each claimed exactly once
    for rid, (who,) in claims.items():
        request = Request.from_dict(requests_in_record(hub)[rid])
        assert (request.status, request.worker, request.attempts) == (RUNNING, who, 1)


def test_a_lease_that_ran_out_makes_the_request_claimable_again(
    hub: HubStub, model: str, tmp_path: Path
) -> None:
    clock = Clock()
    desk = desk_of(hub, tmp_path / "desk", clock=clock)
    rid = desk.request(MODEL, "main", "paper", False, "alice").request.id
    first, second = ledger_of(hub, tmp_path / "a", clock), ledger_of(hub, tmp_path / "b", clock)
    claimed = first.claim("crashed-worker", 600)
    assert claimed.id == rid and claimed.attempts == 1
    clock.now += 599
    assert second.claim("w2", 600) is None  # still held
    desk.ledger.read_now()
    assert desk.requests()[0].shown_status(clock.now) == RUNNING
    clock.now += 2  # the crashed worker never renewed
    assert desk.requests()[0].shown_status(clock.now).startswith("pending (its worker stopped")
    retried = second.claim("w2", 600)
    assert retried.id == rid and retried.attempts == 2 and retried.worker == "w2"
    with pytest.raises(LostClaim):
        first.renew(claimed, "crashed-worker", 600)  # the first worker came back: too late
    assert first.release(claimed, "crashed-worker", "stopped") is None
    clock.now += 200  # a third of the lease later: the heartbeat renews it
    renewed = second.renew(retried, "w2", 600)
    assert renewed.lease_until > retried.lease_until
    # given back by its worker (stopped by the operator): pending, the attempt not counted
    back = second.release(renewed, "w2", "the worker was stopped")
    assert (back.status, back.attempts) == (PENDING, 1)
    # every further claim is cut short by a crash: after three attempts it fails
    for _ in range(2):
        assert first.claim("w1", 600).id == rid
        clock.now += 601
    assert first.claim("w1", 600) is None
    ended = Request.from_dict(requests_in_record(hub)[rid])
    assert ended.status == FAILED and ended.attempts == 3
    assert ended.reason.startswith("its evaluation was interrupted 3 times")
    reopened = first.reopen(ended, "asked again by the operator")
    assert (reopened.status, reopened.attempts, reopened.reason) == (PENDING, 0, "")


def test_request_files_read_back_are_checked(
    hub: HubStub, model: str, tmp_path: Path, private_dir: Path, public_gold
) -> None:
    desk = desk_of(hub, tmp_path / "desk")
    good = desk.request(MODEL, "main", "paper", False, "alice").request
    data = good.to_dict()
    forged = {
        "requests/aaaaaaaaaaaa.json": b"not json",
        "requests/bbbbbbbbbbbb.json": Request.pack(good),  # another id's content
        request_path("c" * 12): str({**data, "id": "c" * 12}).encode(),
    }
    hostile = {**data, "requester": "<b>x</b>"}
    forged["requests/dddddddddddd.json"] = repr(hostile).encode()
    for path, blob in forged.items():
        hub.put(RECORD_REPO, path, blob)
    hub.put(RECORD_REPO, request_path(good.id), Request.pack(good).replace(b'"pending"', b'"won"'))
    # the Space reads the requests with its record (the sync's readers), skipping what is wrong
    space = Space(
        SpaceConfig(
            db=tmp_path / "space.sqlite3",
            gold=public_gold,
            mirror_repo=RECORD_REPO,
            hub_token=TOKEN,
            hub_endpoint=hub.url,
            bootstrap=20,
        )
    )
    space.read_record()
    assert space.requests.requests() == []
    problems = space.requests.ledger.problems
    assert set(problems) == {*forged, request_path(good.id)}
    assert problems[request_path(good.id)] == "status: unknown"
    assert problems["requests/bbbbbbbbbbbb.json"] == "id: does not match the file's name"
    hub.put(RECORD_REPO, request_path(good.id), Request.pack(good))
    space.read_record()
    assert [r.id for r in space.requests.requests()] == [good.id]


def test_a_failed_request_can_be_asked_again_and_operator_faults_cost_nothing(
    hub: HubStub, tiny_model: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    from respondeoqa_space.cli import main

    for i in range(3):
        add_tiny_model(hub, tiny_model, f"tiny-org/m{i}")
    clock = Clock()
    desk = desk_of(hub, tmp_path / "desk", Limits(requests_pending=1, requests_per_week=2), clock)
    ledger = ledger_of(hub, tmp_path / "w", clock)
    first = desk.request("tiny-org/m0", "main", "paper", False, "alice").request
    # the model's side: a failure the requester sees, and may ask again; nobody else may
    ledger.fail(ledger.claim("w1", 600), "w1", "too many unanswered items")
    desk.ledger.read_now()
    other = desk.request("tiny-org/m0", "main", "paper", False, "bob")
    assert not other.ok and f"request {first.id}, failed: too many unanswered" in other.message
    again = desk.request("tiny-org/m0", "main", "paper", False, "alice")
    assert again.ok and again.message.startswith(f"Asked again: request {first.id} ")
    assert "had failed (too many unanswered items); it is pending again." in again.message
    back = Request.from_dict(requests_in_record(hub)[first.id])
    assert (back.status, back.attempts, back.reason) == (PENDING, 0, "")
    assert back.history[-1].endswith("asked again by alice")
    # the operator's side: interrupted three times (the worker kept dying) fails it without
    # counting toward alice's week, and anyone may ask it again
    for _ in range(3):
        assert ledger.claim("w1", 600).id == first.id
        clock.now += 601
    failed: list[Request] = []
    assert ledger.claim("w1", 600, failed=failed) is None
    assert [(r.id, r.status, r.operator_fault) for r in failed] == [(first.id, FAILED, True)]
    desk.ledger.read_now()
    assert desk.request("tiny-org/m1", "main", "paper", False, "alice").ok
    ledger.fail(ledger.claim("w1", 600), "w1", "the engine exited")  # m1: the model's side
    desk.ledger.read_now()
    assert desk.request("tiny-org/m2", "main", "paper", False, "alice").ok  # 2 of 2 this week
    bob = desk.request("tiny-org/m0", "main", "paper", False, "bob")
    assert bob.ok and bob.message.startswith(f"Asked again: request {first.id}"), bob.message

    # the operator reopens a failed request: `respondeoqa-space admin requests reopen ID`
    m1 = next(r for r in desk.ledger.read_now()[1].values() if r.model == "tiny-org/m1")
    assert m1.status == FAILED
    base = ["admin", "--repo", RECORD_REPO, "--actor", "op", "requests"]
    assert main([*base, "reopen", m1.id]) == 0
    assert capsys.readouterr().out.strip() == f"request {m1.id} (tiny-org/m1): failed -> pending"
    reopened = Request.from_dict(requests_in_record(hub)[m1.id])
    assert reopened.status == PENDING and reopened.history[-1].endswith("reopened by operator:op")
    assert main([*base, "reopen", m1.id]) == 0
    assert capsys.readouterr().out.strip() == f"request {m1.id} is pending already"
    assert main([*base, "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 3 and any(m1.id in line and "pending" in line for line in listed)
    from dataclasses import replace

    done = replace(reopened, status="finished", entries=(1,))
    hub.put(RECORD_REPO, request_path(m1.id), done.pack())
    for bad, said in (
        ("nope", "not a request id"),
        ("a" * 12, "no such request"),
        (m1.id, "it finished (finished: entry #1); nothing to run again"),
    ):
        assert main([*base, "reopen", bad]) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, err


def test_a_request_given_back_by_the_operator_side_says_so(hub: HubStub, model: str, tmp_path):
    from respondeoqa_space.requests.desk import describe

    clock = Clock()
    desk = desk_of(hub, tmp_path / "desk", clock=clock)
    ledger = ledger_of(hub, tmp_path / "w", clock)
    rid = desk.request(MODEL, "main", "paper", False, "alice").request.id
    claimed = ledger.claim("w1", 600)
    back = ledger.release(claimed, "w1", "the operator's side: x", note="the engine was missing")
    assert (back.id, back.status, back.attempts) == (rid, PENDING, 0)
    assert describe(back, clock.now) == (
        "pending (its last attempt was given back: the engine was missing)"
    )
    assert ledger.claim("w1", 600).reason == "the engine was missing"  # kept until it ends


def test_hub_facts_name_the_pipeline_with_its_article_and_counts_in_one_style() -> None:
    from types import SimpleNamespace

    from respondeoqa_eval.errors import InputError
    from respondeoqa_space.config import Limits as L
    from respondeoqa_space.metadata import clean_metadata, params_text, parse_params
    from respondeoqa_space.requests.desk import facts_of, parameter_text

    def info(pipeline: str) -> SimpleNamespace:
        return SimpleNamespace(id="org/m", sha="a" * 40, pipeline_tag=pipeline)

    for pipeline, said in (("image-classification", "an"), ("fill-mask", "a")):
        with pytest.raises(InputError) as caught:
            facts_of(info(pipeline), "org/m")
        assert f"org/m is {said} {pipeline} model, not one" in str(caught.value)
    # one number style: the request's message, the entry's metadata and the board's detail;
    # from 0.1B to 1B in B as model cards write it (Qwen2.5-0.5B has 494,032,768 parameters)
    for count, text in (
        (44_192, "44.2K"),
        (60_000_000, "60M"),
        (494_032_768, "0.494B"),
        (7_615_616_512, "7.6B"),
    ):
        assert parameter_text(count) == text
        assert params_text(count / 1e9) == text
        assert clean_metadata("org/m", "", parameter_text(count), "", L()).params == text
        assert params_text(parse_params(text)) == text
    sizes = (70, 0.5, 0.35, 0.125, 0.1, 0.0999, 671, 0.9997, 0.9994)
    shown = ["70B", "0.5B", "0.35B", "0.125B", "0.1B", "99.9M", "671B", "1B", "0.999B"]
    assert [params_text(b) for b in sizes] == shown
    # what a submitter types is written the board's way, and reads back as itself
    for typed, text in (("0.5B", "0.5B"), ("500M", "0.5B"), ("350m", "0.35B"), ("99.96M", "0.1B")):
        assert clean_metadata("org/m", "", typed, "", L()).params == text
        assert params_text(parse_params(text)) == text


def test_reasoning_is_part_of_a_request_id_and_older_files_still_read() -> None:
    from dataclasses import replace

    from respondeoqa_space.requests.model import RequestError, request_id

    sha = "a" * 40
    plain, reasoning = request_id("org/m", sha, "paper"), request_id("org/m", sha, "paper", True)
    assert plain != reasoning and request_id("ORG/m", sha, "paper", True) == reasoning
    # a reasoning request stored before reasoning was part of the id: still read
    old = Request(
        id=plain, model="org/m", revision=sha, asked_revision="main", preset="paper",
        reasoning=True, max_new_tokens=8, requester="alice", created="2026-01-01T00:00:00+00:00",
    )  # fmt: skip
    assert Request.unpack(old.pack(), request_path(plain)) == old
    forged = replace(old, id=request_id("org/m", sha, "greedy"))
    with pytest.raises(RequestError, match="id: not the id of its model"):
        Request.unpack(forged.pack(), request_path(forged.id))
