"""Several writers on one record (the Space, the operator's worker, `respondeoqa-space admin`), each with its own
copy, on the Hub stand-in: a push commits only on the head its copy read (a stale head is the
Hub's 412), an id is never given twice (an unpushed entry whose id another writer gave out first
moves to the next free id, its quota attempt with it), a push carries other files in the same
commit, and a verified entry's evaluation survives the record, checked like everything else."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path

import pytest
from kit.hubstub import RECORD_REPO, HubStub
from respondeoqa_space.config import Limits
from respondeoqa_space.metadata import clean_metadata
from respondeoqa_space.store import Store, entry_path
from respondeoqa_space.store.evaluation import Evaluation
from respondeoqa_space.store.hub import HeadMoved
from respondeoqa_space.store.sync import Syncer

from .helpers import file_records, intake_of, record_repo, stored, syncer_of, write_jsonl

FEET = "prosody_feet_questions_english.json"
METER = "prosody_caesura_scansion_latin.json"

EVALUATION = Evaluation(
    request="0123456789ab",
    model="org/model-7b",
    revision="a" * 40,
    preset="paper",
    temperature=0.6,
    top_p=0.95,
    seed=0,
    max_new_tokens=1024,
    reasoning=False,
    engine="vllm",
    engine_version="0.6.3",
    endpoint="started",
    prompt_version="paper-v1",
    runner_version="0.1.0",
    licence="apache-2.0",
    parameters=7_000_000_000,
    run_sources=("lat-pros",),
    items=40,
    empty=0,
    prompt_tokens=12_000,
    completion_tokens=3_000,
    seconds=12.5,
    started="2026-01-01T00:00:00+00:00",
    finished="2026-01-01T00:00:12+00:00",
)


def rows_of(gold, name: str, word: str) -> list[dict[str, str]]:
    return [{"id": r.id, "response": f"Answer: {word}"} for r in file_records(gold, name)]


def copy_of(hub: HubStub, gold, folder: Path, name: str) -> tuple[Store, Syncer]:
    """A writer's own copy of the record (a store and its sync), read once."""
    store = Store(folder / f"{name}.sqlite3")
    sync = syncer_of(store, record_repo(hub, folder / f"cache-{name}"), gold)
    sync.read()
    return store, sync


def ids_in_record(hub: HubStub) -> dict[str, int]:
    return {
        path: json.loads(gzip.decompress(data))["id"]
        for path, data in hub.files(RECORD_REPO).items()
        if path.startswith("entries/")
    }


def test_a_push_on_a_stale_head_is_refused_and_made_on_the_new_one(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    repo = record_repo(hub, tmp_path / "c0")
    head = repo.head()
    repo.commit({"a.txt": b"a"}, "one", parent_commit=head)
    with pytest.raises(HeadMoved):  # what the Hub answers a writer that read an older head
        repo.commit({"b.txt": b"b"}, "two", parent_commit=head)
    assert "b.txt" not in hub.files(RECORD_REPO)

    store, sync = copy_of(hub, public_gold, tmp_path, "a")
    stored(intake_of(store, public_gold), tmp_path, rows_of(public_gold, FEET, "dactyl"), "m1")
    hub.put(RECORD_REPO, "elsewhere.txt", b"another writer's commit")  # the head moves
    before = len(hub.requests)
    assert sync.push() == 1
    # one commit refused (the old head), the record read again, the push on the new head
    commits = [p for m, p in hub.requests[before:] if m == "POST" and "/commit/" in p]
    assert len(commits) == 2
    assert hub.commits[-1].message.startswith("leaderboard: 1 entries")
    assert "elsewhere.txt" in hub.files(RECORD_REPO)


def test_an_id_another_writer_gave_out_first_moves_the_unpushed_entry(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    space_store, space_sync = copy_of(hub, public_gold, tmp_path, "space")
    worker_store, worker_sync = copy_of(hub, public_gold, tmp_path, "worker")
    # the Space accepts a submission (entry #1, waiting in its outbox, its quota attempt counted)
    intake = intake_of(space_store, public_gold)
    path = write_jsonl(tmp_path / "mine.jsonl", rows_of(public_gold, FEET, "dactyl"))
    meta = clean_metadata("submitted", "", "", "", Limits())
    mine = intake.submit(path, meta, client="hf:alice", submitter="alice").entry
    assert mine.id == 1
    # meanwhile the worker stores and pushes its own entry: #1 in its copy too
    theirs = stored(
        intake_of(worker_store, public_gold), tmp_path, rows_of(public_gold, METER, "x"), "run"
    )
    assert theirs.id == 1 and worker_sync.push() == 1

    assert space_sync.push() == 1  # refused on the old head, read again, pushed
    moved = space_store.find_by_hash(mine.file_sha256)
    assert moved.id == 2 and space_store.get(1).model == "run"
    assert space_store.stored_by(2, "hf:alice")  # the quota attempt followed its entry
    assert space_store.item_scores(2) and space_store.predictions(2)
    assert sorted(ids_in_record(hub).values()) == [1, 2]  # no id given twice
    assert json.loads(hub.files(RECORD_REPO)["index.json"])["max_entry_id"] == 2
    worker_sync.read()
    assert {e.id: e.model for e in worker_store.entries()} == {1: "run", 2: "submitted"}
    assert not space_store.record_problems() and not worker_store.record_problems()


def test_a_push_carries_other_files_in_the_same_commit(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    store, sync = copy_of(hub, public_gold, tmp_path, "a")
    stored(intake_of(store, public_gold), tmp_path, rows_of(public_gold, FEET, "dactyl"), "m1")
    heads: list[str] = []

    def extra(head: str) -> dict[str, bytes]:
        heads.append(head)
        return {"requests/x.json": b"{}"}

    hub.put(RECORD_REPO, "elsewhere.txt", b"moved")  # the first try is refused, the second not
    sync.push(extra=extra)
    last = hub.commits[-1]
    assert "requests/x.json" in last.added and any(p.startswith("entries/") for p in last.added)
    assert len(heads) == 2 and heads[0] != heads[1]  # made again for the head it commits on


def test_a_verified_entry_keeps_its_evaluation_through_the_record(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    store, sync = copy_of(hub, public_gold, tmp_path, "a")
    intake = intake_of(store, public_gold)
    path = write_jsonl(tmp_path / "run.jsonl", rows_of(public_gold, FEET, "dactyl"))
    meta = clean_metadata("org/model-7b", "", "7B", "", Limits())
    entry = intake.submit(path, meta, client=None, evaluation=EVALUATION).entry
    assert entry.verified and store.get(entry.id).evaluation == EVALUATION
    with pytest.raises(ValueError, match="only the operator's worker"):
        intake.submit(path, meta, client="hf:alice", evaluation=EVALUATION)
    sync.push()
    restored, _ = copy_of(hub, public_gold, tmp_path, "b")
    assert restored.get(entry.id).evaluation == EVALUATION

    # a record file whose evaluation block is forged is not an entry (and costs no other)
    name = entry_path(entry.file_sha256)
    data = json.loads(gzip.decompress(hub.files(RECORD_REPO)[name]))
    for bad in (
        {**data["evaluation"], "revision": "main"},
        {**data["evaluation"], "engine": "<script>"},
        {**data["evaluation"], "run_sources": ["lat-pros", "lat-pros"]},
        "verified",
    ):
        hub.put(RECORD_REPO, name, gzip.compress(json.dumps({**data, "evaluation": bad}).encode()))
        fresh, _ = copy_of(hub, public_gold, tmp_path, f"forged-{len(hub.commits)}")
        assert fresh.get(entry.id) is None
        [problem] = fresh.record_problems()
        assert problem.reason.startswith("evaluation"), problem.reason
    assert replace(EVALUATION, seed=None).to_dict()["seed"] is None
