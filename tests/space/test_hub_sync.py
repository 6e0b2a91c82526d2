"""Durable entries against a local Hub stand-in (a real HTTP server that `huggingface_hub`'s own
client talks to): outbox, batched pushes, idempotent restore, and a kill -9 between acceptance
and push that loses nothing."""

from __future__ import annotations

import gzip
import json
import os
import signal
from pathlib import Path

import pytest
from respondeoqa_eval.report import ItemResult
from respondeoqa_eval.space.hub import HubRepo
from respondeoqa_eval.space.store import Store, Submission, hub_path, sha256_bytes
from respondeoqa_eval.space.sync import Syncer

from .helpers import (
    file_records,
    k_correct_predictions,
    leaderboard,
    make_report,
    submit,
    write_jsonl,
)
from .hubstub import HubStub

REPO = "operator/leaderboard-data"
TOKEN = "hf_test_token_not_real"


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import huggingface_hub.constants

    # the suite runs with HF_HUB_OFFLINE=1 (tests/conftest.py); these tests reach 127.0.0.1 only
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    stub = HubStub(tmp_path / "hub", token=TOKEN).start()
    yield stub
    stub.stop()


def repo_of(stub: HubStub, tmp_path: Path) -> HubRepo:
    repo = HubRepo(REPO, token=TOKEN, endpoint=stub.url, cache_dir=tmp_path / "hub-cache")
    repo.create(private=True)
    return repo


def sub(tag: str, model: str = "m", **kw) -> Submission:
    return Submission(model=model, file_sha256=sha256_bytes(tag.encode()), **kw)


ITEMS = [
    ItemResult(
        "pub-1", "pub-1", "latin", "short_answer", "jun-schol", "grammar", "amo", 1.0, False
    ),
    ItemResult("priv-1", "priv-1", "latin", "short_answer", "certamen", "grammar", "x", 0.0, False),
]


def test_outbox_batches_pushes_and_restore_is_idempotent(hub: HubStub, tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    repo = repo_of(hub, tmp_path)
    syncer = Syncer(store, repo, interval=3600)
    assert hub.private[f"dataset:{REPO}"] is True
    a = store.add(
        sub("a", "A", submitter="alice", predictions=b"x\x9c\x03\x00\x00\x00\x00\x01"),
        make_report(0.5, items=ITEMS),
    )
    b = store.add(sub("b", "B"), make_report(0.25))
    assert store.pending_pushes() == [(a.id, 1), (b.id, 1)]
    assert syncer.push() == 2
    assert len(hub.commits) == 1  # one commit for both entries
    assert sorted(hub.commits[0].added) == sorted(
        [hub_path(a.file_sha256), hub_path(b.file_sha256)]
    )
    assert store.pending_pushes() == [] and syncer.push() == 0 and len(hub.commits) == 1
    # the pushed record holds everything a restore and a re-score need, private items included
    data = json.loads(gzip.decompress(hub.files(REPO)[hub_path(a.file_sha256)]))
    assert data["submitter"] == "alice" and data["model"] == "A"
    assert {i["id"] for i in data["items"]} == {"pub-1", "priv-1"}
    assert data["predictions"] is not None

    # a change (hide) and a deletion wait in the outbox, then go in one more commit
    store.set_hidden(a.id, True)
    store.delete(b.id)
    assert syncer.push() == 2 and len(hub.commits) == 2
    assert hub.commits[1].deleted == [hub_path(b.file_sha256)]
    assert set(hub.files(REPO)) == {hub_path(a.file_sha256)}

    # a restarted Space with an empty disk gets every entry back, hidden state and all
    fresh = Store(tmp_path / "fresh.sqlite3")
    again = Syncer(fresh, HubRepo(REPO, token=TOKEN, endpoint=hub.url, cache_dir=tmp_path / "c2"))
    assert again.restore() == 1
    back = fresh.get(a.id)
    assert back is not None and back.model == "A" and back.hidden and back.submitter == "alice"
    assert back.created == a.created and back.report == a.report
    assert set(fresh.item_scores(a.id, public_only=False)) == {"pub-1", "priv-1"}
    assert fresh.pending_pushes() == []  # restored entries are not pushed back
    assert again.restore() == 0  # keyed by file hash: running it again adds nothing
    assert fresh.count() == 1


def test_push_failure_keeps_the_outbox(hub: HubStub, tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    repo = repo_of(hub, tmp_path)
    entry = store.add(sub("z"), make_report(0.5))
    hub.token = "rotated"  # the Space's token no longer works: 401 on every call
    syncer = Syncer(store, repo, interval=3600)
    assert syncer.safe_push() == 0
    assert store.pending_pushes() == [(entry.id, 1)] and store.count() == 1
    hub.token = TOKEN
    assert syncer.push() == 1 and store.pending_pushes() == []


def test_restore_ignores_foreign_and_mislabelled_files(hub: HubStub, tmp_path: Path) -> None:
    repo = repo_of(hub, tmp_path)
    src = Store(tmp_path / "src.sqlite3")
    entry = src.add(sub("real"), make_report(0.5))
    good = gzip.compress(json.dumps(src.export_entry(entry.id)).encode())
    wrong_key = hub_path(sha256_bytes(b"other"))
    repo.commit(
        {hub_path(entry.file_sha256): good, wrong_key: good, "README.md": b"# data\n"},
        "seed",
    )
    dest = Store(tmp_path / "dest.sqlite3")
    assert Syncer(dest, repo).restore() == 1
    assert [e.file_sha256 for e in dest.entries()] == [entry.file_sha256]


def test_kill_9_between_acceptance_and_push_loses_nothing(
    hub: HubStub, private_dir: Path, public_gold, tmp_path: Path
) -> None:
    from gradio_client import Client

    from .conftest import start_server

    env = {
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",  # the stand-in on 127.0.0.1 is the only Hub reachable
        "HF_TOKEN": TOKEN,
        "RESPONDEOQA_SPACE_MIRROR": REPO,
        "RESPONDEOQA_SPACE_SYNC_SECONDS": "3600",  # no timed push during the test
        "HF_HUB_CACHE": str(tmp_path / "hf-cache"),
    }
    records = file_records(public_gold, "prosody_feet_questions_english.json")
    rows, _ = k_correct_predictions(records, 5)
    path = write_jsonl(tmp_path / "feet.jsonl", rows)

    first = start_server(private_dir, tmp_path / "space", env_extra=env)
    try:
        message, *_ = submit(Client(first.url, verbose=False), path, "durable model")
        message = message.get("value", message) if isinstance(message, dict) else message
        assert message.startswith("Stored as entry #1"), message
        assert not any(p.startswith("entries/") for p in hub.files(REPO))  # not pushed yet
    finally:
        os.kill(first.proc.pid, signal.SIGKILL)  # no shutdown push
        first.proc.wait(timeout=30)
    assert not any(p.startswith("entries/") for p in hub.files(REPO))

    second = start_server(private_dir, tmp_path / "space", env_extra=env)  # same disk
    second.stop()
    sha = sha256_bytes(path.read_bytes())
    assert hub_path(sha) in hub.files(REPO)  # pushed at start-up from the outbox

    third = start_server(private_dir, tmp_path / "new-disk", env_extra=env)  # the disk is gone
    try:
        models = [r["Model"] for r in leaderboard(Client(third.url, verbose=False))]
        assert "durable model" in models
    finally:
        third.stop()
    restored = Store(third.db).find_by_hash(sha)
    assert restored is not None and restored.model == "durable model"
    assert Store(third.db).predictions(restored.id) is not None
