"""An operator's bad day against a running Space (the real CLI in a subprocess, the loopback Hub
stand-in): SIGTERM and kill -9 with 1, 2, 3 and 20 submissions in flight, a read-only record,
a record deleted and made again, two Spaces writing one record. "Stored as entry #N" is told
only once the record holds entry #N, and what is told stays true."""

from __future__ import annotations

import gzip
import json
import re
import signal
import sqlite3
import threading
from pathlib import Path

import httpx
import pytest
from gradio_client import Client
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from kit.space_server import Server, start_server
from respondeoqa_space.cli import main
from respondeoqa_space.store import Store
from respondeoqa_space.store.sync import RecordDiverged

from .helpers import (
    SUBMIT_OK,
    intake_of,
    page_board,
    record_repo,
    stored,
    submit,
    syncer_of,
    wait_until,
    write_jsonl,
)
from .test_record_e2e import board_models, env_for, feet, message_of

TOLD = re.compile(r"Stored as entry #(\d+): (.+?)\. ")


def record_ids(hub: HubStub) -> dict[str, int]:
    """Model name -> id of every entry the record holds."""
    out = {}
    for path, data in hub.files(RECORD_REPO).items():
        if path.startswith("entries/"):
            rec = json.loads(gzip.decompress(data))
            out[rec["model"]] = rec["id"]
    return out


def writing_copy(hub: HubStub, gold, folder: Path, name: str):
    """A writer's own copy (store, sync, intake) that stores new entries through the record."""
    store = Store(folder / f"{name}.sqlite3")
    sync = syncer_of(store, record_repo(hub, folder / f"c-{name}"), gold)
    sync.read()
    intake = intake_of(store, gold)
    intake.keep = sync.land_entries
    return store, sync, intake


def submit_all(
    srv: Server, paths: dict[str, Path]
) -> tuple[dict[str, int], list[threading.Thread]]:
    """Submit every file at once (one client each); the ids told, filled in as answers come."""
    told: dict[str, int] = {}

    def one(model: str, path: Path) -> None:
        try:
            message = message_of(submit(Client(srv.url, verbose=False), path, model)[0])
        except Exception:  # the Space was killed before it answered: nothing told
            return
        found = TOLD.match(message)
        if found:
            told[found.group(2)] = int(found.group(1))

    threads = [threading.Thread(target=one, args=item, daemon=True) for item in paths.items()]
    for thread in threads:
        thread.start()
    return told, threads


def end(srv: Server, sig: int, hub: HubStub) -> None:
    """Signal the Space while the Hub holds a commit; the Hub then lands it: after the process
    died (kill -9), or while it shuts down (SIGTERM, which waits for it)."""
    srv.proc.send_signal(sig)
    if sig == signal.SIGKILL:
        srv.proc.wait(timeout=30)
    hub.release()
    try:
        srv.proc.wait(timeout=60)
    except Exception:
        srv.proc.kill()
        srv.proc.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("in_flight", "sig"),
    [(1, signal.SIGKILL), (2, signal.SIGTERM), (3, signal.SIGKILL), (20, signal.SIGTERM)],
    ids=["1-kill9", "2-sigterm", "3-kill9", "20-sigterm"],
)
def test_a_restart_or_kill_with_entries_in_flight_loses_none_told_stored(
    in_flight: int, sig: int, hub: HubStub, private_dir: Path, public_gold, tmp_path: Path
) -> None:
    env = env_for(hub, tmp_path)
    srv = start_server(private_dir, tmp_path / "space", env_extra=env)
    wait_until(lambda: "reading its record" not in page_board(srv.url), seconds=60, every=0.3)
    # the first commit lands (its submitters are told), the next stays with the Hub: the
    # signal comes while the Hub works on it, as a restart or an out-of-memory kill would
    hub.hold_commits(after=0 if in_flight == 1 else 1)
    paths = {
        f"model {k}": write_jsonl(tmp_path / f"m{k}.jsonl", feet(public_gold, k))
        for k in range(1, in_flight + 1)
    }
    told, threads = submit_all(srv, paths)
    assert hub.held.wait(timeout=120), "no commit reached the Hub"
    if in_flight > 1:
        wait_until(
            lambda: len(told) >= 1, seconds=60, every=0.3
        )  # the first commit's answers are out
    end(srv, sig, hub)  # the Space dies (or shuts down) with a commit in the Hub's hands
    for thread in threads:
        thread.join(timeout=60)
    in_record = record_ids(hub)
    assert all(in_record.get(model) == number for model, number in told.items()), (told, in_record)
    assert len(set(told.values())) == len(told)
    if in_flight == 1:
        assert told == {}  # killed before the record answered: nobody was told
    assert "Traceback" not in srv.log_text()

    # the same disk after the restart: whatever the record holds is on the board, and nothing
    # stays "waiting" (the entry that landed as the Space died is reconciled from the record)
    again = start_server(private_dir, tmp_path / "space", env_extra=env)
    try:
        wait_until(lambda: set(in_record) <= set(board_models(again)), seconds=60, every=0.3)
    finally:
        again.stop()
    held = Store(again.db)
    assert {e.model: e.id for e in held.entries()} == in_record
    assert held.pending_pushes() == []
    assert "not pushed" not in again.log_text()


@pytest.mark.slow
def test_a_read_only_record_never_answers_stored_and_the_page_says_why(
    hub: HubStub, private_dir: Path, public_gold, tmp_path: Path
) -> None:
    env = env_for(hub, tmp_path)
    srv = start_server(private_dir, tmp_path / "space", env_extra=env)
    try:
        wait_until(lambda: "reading its record" not in page_board(srv.url), seconds=60, every=0.3)
        client = Client(srv.url, verbose=False)
        first = write_jsonl(tmp_path / "a.jsonl", feet(public_gold, 3))
        out = submit(client, first, "kept")
        assert out[SUBMIT_OK] and message_of(out[0]).startswith("Stored as entry #1: kept.")
        hub.deny_writes(RECORD_REPO)  # the token lost write access: every commit is a 403
        for k, model in ((4, "refused one"), (5, "refused two")):
            path = write_jsonl(tmp_path / f"{k}.jsonl", feet(public_gold, k))
            out = submit(client, path, model)
            assert not out[SUBMIT_OK] and message_of(out[0]) == (
                "Not stored: the leaderboard's record on the Hub cannot be written (the Hub "
                "refuses this Space's writes (its token cannot write the record)), so nothing "
                "was stored; please try again later."
            )
        assert "cannot write its record on the Hub right now" in page_board(srv.url)
        shown = set(board_models(srv))
        assert "kept" in shown and not {"refused one", "refused two"} & shown
        hub.deny_writes(RECORD_REPO, on=False)  # write access back: the next one is stored
        path = write_jsonl(tmp_path / "6.jsonl", feet(public_gold, 6))
        out = submit(client, path, "later")
        assert message_of(out[0]).startswith("Stored as entry #2: later.")
        assert "cannot write its record" not in page_board(srv.url)
    finally:
        srv.stop()
    assert record_ids(hub) == {"kept": 1, "later": 2}
    assert "Traceback" not in srv.log_text()


@pytest.mark.slow
def test_a_record_deleted_and_made_again_costs_no_entry(
    hub: HubStub, private_dir: Path, public_gold, tmp_path: Path, capsys
) -> None:
    env = env_for(hub, tmp_path)
    srv = start_server(private_dir, tmp_path / "space", env_extra=env)
    admin = ["admin", "--db", str(tmp_path / "ops.sqlite3"), "--create"]
    try:
        wait_until(lambda: "reading its record" not in page_board(srv.url), seconds=60, every=0.3)
        client = Client(srv.url, verbose=False)
        for k in (2, 3, 4):
            submit(client, write_jsonl(tmp_path / f"{k}.jsonl", feet(public_gold, k)), f"m{k}")
        assert record_ids(hub) == {"m2": 1, "m3": 2, "m4": 3}
        hub.delete_repo(RECORD_REPO)  # deleted on the Hub, then made again: empty
        record_repo(hub, tmp_path / "c0").create()
        pull = httpx.post(srv.url + "record/pull", headers={"X-Record-Token": TOKEN}, timeout=30)
        assert pull.status_code == 202
        # not applied: the entries stay, the page says why, and writes are refused
        wait_until(
            lambda: "is not the one this Space read" in page_board(srv.url), seconds=60, every=0.3
        )
        assert {"m2", "m3", "m4"} <= set(board_models(srv))
        out = submit(client, write_jsonl(tmp_path / "5.jsonl", feet(public_gold, 5)), "m5")
        assert not out[SUBMIT_OK] and "is not the one this Space read" in message_of(out[0])
        assert record_ids(hub) == {}

        # the operator chooses: the Space's entries go back into the new record, same ids
        assert main([*admin, "--space-url", srv.url, "record", "repush"]) == 0
        assert "the Space re-pushed: 3 entry files committed" in capsys.readouterr().out
        assert record_ids(hub) == {"m2": 1, "m3": 2, "m4": 3}
        assert "is not the one this Space read" not in page_board(srv.url)
        out = submit(client, write_jsonl(tmp_path / "6.jsonl", feet(public_gold, 6)), "m6")
        assert message_of(out[0]).startswith("Stored as entry #4: m6.")
    finally:
        srv.stop()
    assert "Traceback" not in srv.log_text()


def test_a_copy_that_accepts_a_new_record_takes_it_as_it_is(
    hub: HubStub, public_gold, tmp_path: Path, capsys
) -> None:
    """The other choice, on an operator's copy: `record accept` takes the new record."""
    store, sync, intake = writing_copy(hub, public_gold, tmp_path, "ops")
    for k in range(1, 8):
        stored(intake, tmp_path, feet(public_gold, k), f"m{k}")
    hub.delete_repo(RECORD_REPO)
    record_repo(hub, tmp_path / "c1").create()
    with pytest.raises(RecordDiverged, match="history no longer holds the last commit"):
        sync.read()
    assert store.count() == 7 and sync.status.state == "diverged"
    assert not sync.status.writable
    admin = ["admin", "--db", str(store.path), "--repo", RECORD_REPO]
    assert main([*admin, "list"]) == 2  # every other action is refused, and says why
    assert "choose with `respondeoqa-space admin record repush`" in capsys.readouterr().err
    assert main([*admin, "record", "accept"]) == 0
    assert "accepted the record: 7 entries removed here" in capsys.readouterr().out
    assert Store(store.path).count() == 0


def test_an_id_told_by_one_of_two_writers_always_names_that_entry(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    """Two Spaces on one record, three submitters each at once: every id told is the id the
    record gives that entry, no id is told twice, and both copies agree afterwards."""
    writers = [writing_copy(hub, public_gold, tmp_path, name) for name in ("a", "b")]
    told: dict[str, int] = {}

    def one(intake, k: int) -> None:
        told[f"m{k}"] = stored(intake, tmp_path, feet(public_gold, k), f"m{k}").id

    threads = [threading.Thread(target=one, args=(writers[k % 2][2], k)) for k in range(1, 7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert record_ids(hub) == told and sorted(told.values()) == list(range(1, 7))
    for store, sync, _ in writers:
        sync.read()
        assert {e.model: e.id for e in store.entries()} == told


def test_a_full_disk_is_one_plain_sentence(
    hub: HubStub, public_gold, tmp_path: Path, monkeypatch
) -> None:
    from respondeoqa_space.config import SpaceConfig
    from respondeoqa_space.service import Space

    space = Space(SpaceConfig(db=tmp_path / "s.sqlite3", gold=public_gold, bootstrap=20))
    path = write_jsonl(tmp_path / "p.jsonl", feet(public_gold, 4))

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Store, "reserve", full)
    out = space.submit(path, "m", client="someone")
    assert not out.ok and out.message == "Not stored: The Space's disk is full; nothing was stored."
    monkeypatch.setattr(Store, "add", full)
    out = space.submit(path, "m", client=None)
    assert out.message == "Not stored: The Space's disk is full; nothing was stored."
    monkeypatch.undo()  # space again: the same upload is stored, nothing was half-kept
    assert space.submit(path, "m", client="someone").message.startswith("Stored as entry #1")


def test_the_genuine_entry_keeps_its_id_whatever_file_name_a_colliding_writer_picks(
    hub: HubStub, public_gold, tmp_path: Path, capsys
) -> None:
    from respondeoqa_space.store import entry_path, sha256_bytes
    from respondeoqa_space.store.record import pack

    store, sync, intake = writing_copy(hub, public_gold, tmp_path, "a")
    genuine = stored(intake, tmp_path, feet(public_gold, 10), "genuine")
    # another writer's file claiming #1, under a name that sorts before the genuine one's
    other = Store(tmp_path / "other.sqlite3")
    rogue_intake = intake_of(other, public_gold)
    for k in range(1, 21):
        rows = feet(public_gold, k)
        path = write_jsonl(tmp_path / f"rogue-{k}.jsonl", rows)
        if k != 10 and sha256_bytes(path.read_bytes()) < genuine.file_sha256:
            break
    rogue = stored(rogue_intake, tmp_path, rows, "rogue")
    assert rogue.id == genuine.id == 1 and entry_path(rogue.file_sha256) < entry_path(
        genuine.file_sha256
    )
    hub.put(RECORD_REPO, entry_path(rogue.file_sha256), pack(other.export_record(rogue.id)))

    for name in ("same-disk", "new-disk"):
        copy = store if name == "same-disk" else Store(tmp_path / "new.sqlite3")
        s = (
            sync
            if name == "same-disk"
            else syncer_of(copy, record_repo(hub, tmp_path / "c1"), public_gold)
        )
        s.read()
        assert {e.model: e.id for e in copy.entries()} == {"genuine": 1}, name
        (problem,) = copy.record_problems()
        assert problem.path == entry_path(rogue.file_sha256) and problem.entry_id == 1
    admin = ["admin", "--db", str(tmp_path / "ops.sqlite3"), "--repo", RECORD_REPO]
    assert main([*admin, "list"]) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("#1\t") and "\tgenuine\t" in listed
    assert f"#1\tunreadable record file {entry_path(rogue.file_sha256)}" in listed


def test_an_entry_whose_commit_landed_before_a_kill_is_reconciled_not_left_waiting(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    """An outbox entry (a worker's verified run, or a copy from before records were written
    first) whose commit landed just before a kill -9: the next read finds it in the record,
    and nothing stays "waiting for the operator"."""
    store = Store(tmp_path / "a.sqlite3")
    sync = syncer_of(store, record_repo(hub, tmp_path / "c0"), public_gold)
    sync.read()
    entry = stored(intake_of(store, public_gold), tmp_path, feet(public_gold, 7), "outboxed")
    assert store.pending_pushes() == [(entry.id, 1)]
    # the disk as a kill leaves it: the commit lands after this moment, the bookkeeping never
    with sqlite3.connect(store.path) as src, sqlite3.connect(tmp_path / "copy.sqlite3") as dst:
        src.backup(dst)
    landed = Store(tmp_path / "copy.sqlite3")
    sync.push()
    again = syncer_of(landed, record_repo(hub, tmp_path / "c1"), public_gold)
    again.read()
    assert landed.pending_pushes() == [] and again.push() == 0
    assert [e.model for e in landed.entries()] == ["outboxed"]


def test_a_burst_of_submissions_shares_one_commit(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    """Six at once: the first commit is with the Hub while the other five are scored and
    queued; they land together in the next one, each with its own id."""
    _, sync, intake = writing_copy(hub, public_gold, tmp_path, "a")
    hub.hold_commits(after=0)
    told: dict[str, int] = {}

    def one(k: int) -> None:
        told[f"m{k}"] = stored(intake, tmp_path, feet(public_gold, k), f"m{k}").id

    threads = [threading.Thread(target=one, args=(k,)) for k in range(1, 7)]
    for thread in threads:
        thread.start()
    assert hub.held.wait(timeout=60)
    wait_until(lambda: len(sync.land_entries._waiting) == 5, seconds=120, every=0.3)
    hub.release()
    for thread in threads:
        thread.join(timeout=60)
    added = [c.message for c in hub.commits if c.message.startswith("leaderboard:")]
    assert added == ["leaderboard: 1 entries added", "leaderboard: 5 entries added"]
    assert record_ids(hub) == told and sorted(told.values()) == list(range(1, 7))
