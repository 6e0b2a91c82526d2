"""The record (a Hub dataset repo, here the loopback stand-in that huggingface_hub's own client
talks to): outbox and batched pushes, restore entry by entry, hostile characters, unreadable and
forged record files, a Hub outage, ids never given twice, changes pulled from elsewhere,
withdrawals that are pending until the record holds them."""

from __future__ import annotations

import gzip
import json
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
from kit.hubstub import RECORD_REPO, HubStub
from respondeoqa_eval import evaluate, load_predictions
from respondeoqa_space import rows
from respondeoqa_space.admin import Admin
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.store import Store, Submission, entry_path, sha256_bytes
from respondeoqa_space.store import record as record_format
from respondeoqa_space.store.hub import HubUnavailable
from respondeoqa_space.store.sync import READY, UNAVAILABLE

from .helpers import (
    file_records,
    intake_of,
    k_correct_predictions,
    record_repo,
    stored,
    syncer_of,
    write_jsonl,
)

FEET = "prosody_feet_questions_english.json"
METER = "prosody_caesura_scansion_latin.json"
CERTAMEN_MC = "certamen_mc.json"


def feet_rows(gold, k: int, note: str = "") -> list[dict[str, str]]:
    """Raw responses for the feet file: the first k right, `note` inside every response."""
    out = []
    for i, rec in enumerate(file_records(gold, FEET)):
        answer = rec.answers[0] if i < k else "dactyl"
        out.append({"id": rec.id, "response": f"Scanning{note} the line.\nAnswer: {answer}"})
    return out


def entry_files(hub: HubStub) -> set[str]:
    return {p for p in hub.files(RECORD_REPO) if p.startswith("entries/")}


def test_outbox_batches_pushes_and_restore_is_idempotent(
    hub: HubStub, private_gold, tmp_path: Path
) -> None:
    store = Store(tmp_path / "a.sqlite3")
    intake = intake_of(store, private_gold)
    syncer = syncer_of(store, record_repo(hub, tmp_path / "c1"), private_gold)
    syncer.read()  # an empty record: read, so writes are open
    assert hub.private[f"dataset:{RECORD_REPO}"] is True
    certamen = k_correct_predictions(file_records(private_gold, CERTAMEN_MC), 5)[0]
    a = stored(intake, tmp_path, certamen + feet_rows(private_gold, 3), "A", submitter="alice")
    b = stored(intake, tmp_path, feet_rows(private_gold, 9), "B")
    assert store.pending_pushes() == [(a.id, 1), (b.id, 1)]
    assert syncer.push() == 2
    assert len(hub.commits) == 1  # one commit for both entries
    assert sorted(hub.commits[-1].added) == sorted(
        [entry_path(a.file_sha256), entry_path(b.file_sha256), "index.json"]
    )
    # the Hub keeps *.gz in LFS: the entries went through its LFS endpoint
    assert {f"dataset:{RECORD_REPO}:{entry_path(a.file_sha256)}"} <= hub.lfs_paths
    assert store.pending_pushes() == [] and syncer.push() == 0 and len(hub.commits) == 1
    # the pushed record holds everything a restore and a re-score need, private items too
    data = json.loads(gzip.decompress(hub.files(RECORD_REPO)[entry_path(a.file_sha256)]))
    assert data["submitter"] == "alice" and data["model"] == "A" and data["id"] == a.id
    sources = {i["source"] for i in data["items"]}
    assert sources == {"certamen", "lat-pros"}
    assert {r["id"] for r in data["predictions"]} == {r["id"] for r in certamen} | {
        r["id"] for r in feet_rows(private_gold, 3)
    }
    assert json.loads(hub.files(RECORD_REPO)["index.json"])["max_entry_id"] == b.id

    # a change (hide) and a deletion wait in the outbox, then go in one more commit
    store.set_hidden(a.id, True)
    store.delete(b.id)
    assert syncer.push() == 2 and len(hub.commits) == 2
    assert hub.commits[-1].deleted == [entry_path(b.file_sha256)]
    assert entry_files(hub) == {entry_path(a.file_sha256)}

    # a restarted Space with an empty disk gets every entry back, hidden state and all
    fresh = Store(tmp_path / "fresh.sqlite3")
    again = syncer_of(fresh, record_repo(hub, tmp_path / "c2"), private_gold)
    result = again.read()
    assert (result.added, result.problems) == (1, [])
    back = fresh.get(a.id)
    assert back is not None and back.model == "A" and back.hidden and back.submitter == "alice"
    assert back.created == a.created and back.report == store.get(a.id).report
    assert fresh.item_scores(a.id, public_only=False) == store.item_scores(a.id, public_only=False)
    assert fresh.predictions(a.id) == store.predictions(a.id)
    assert fresh.pending_pushes() == []  # restored entries are not pushed back

    def entry_downloads() -> int:
        return sum(
            1 for m, p in hub.requests if m == "GET" and "/resolve/" in p and "entries/" in p
        )

    downloads = entry_downloads()
    assert again.read().added == 0  # by file hash and content identity: nothing again
    assert entry_downloads() == downloads  # nor downloaded again
    assert fresh.count() == 1
    # ids keep counting from the record: #b was given out, never again
    c = stored(intake_of(fresh, private_gold), tmp_path, feet_rows(private_gold, 12), "C")
    assert c.id == b.id + 1


def test_push_failure_keeps_the_outbox(hub: HubStub, public_gold, tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    syncer = syncer_of(store, record_repo(hub, tmp_path / "c"), public_gold)
    syncer.read()
    entry = stored(intake_of(store, public_gold), tmp_path, feet_rows(public_gold, 4), "z")
    hub.token = "rotated"  # the Space's token no longer works: 401 on every call
    assert syncer.safe_push() == 0
    assert store.pending_pushes() == [(entry.id, 1)] and store.count() == 1
    hub.fail("POST", "/commit/", 503, times=2)  # then the Hub has a bad minute: retried
    hub.token = "hf_test_token_not_real"
    assert syncer.push() == 1 and store.pending_pushes() == []


HOSTILE = ["\u2028", "\u2029", "\x85", "\r", "\x0b", "\x1c", "\u200f", "\ufeff", "\U0001f3db", "\t"]


def test_hostile_characters_survive_push_and_restore(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    """Ten entries, each with one character that `str.splitlines` splits on or that JSON or a
    terminal treats specially, pushed and restored on a fresh disk: all ten come back whole."""
    store = Store(tmp_path / "a.sqlite3")
    intake = intake_of(store, public_gold)
    syncer = syncer_of(store, record_repo(hub, tmp_path / "c1"), public_gold)
    syncer.read()
    sent = {}
    for i, char in enumerate(HOSTILE):
        entry = stored(intake, tmp_path, feet_rows(public_gold, i + 1, note=char), f"model {i}")
        sent[entry.id] = store.predictions(entry.id)
        assert any(char in r["response"] for r in sent[entry.id]), repr(char)
    assert syncer.push() == len(HOSTILE)
    fresh = Store(tmp_path / "fresh.sqlite3")
    result = syncer_of(fresh, record_repo(hub, tmp_path / "c2"), public_gold).read()
    assert result.problems == [] and result.added == len(HOSTILE)
    assert {i: fresh.predictions(i) for i in sent} == sent
    # and the operator's export is one line per entry, whatever the responses hold
    out = tmp_path / "export.jsonl"
    admin = Admin(fresh, lambda: intake_of(fresh, public_gold), actor="operator:t")
    assert admin.export(out) == len(HOSTILE)
    lines = out.read_text(encoding="utf-8").split("\n")
    assert len([line for line in lines if line]) == len(HOSTILE)
    assert len(out.read_text(encoding="utf-8").splitlines()) == len(HOSTILE)  # even splitlines


def _gz(data: object) -> bytes:
    return gzip.compress(json.dumps(data).encode("utf-8"))


def test_unreadable_and_forged_record_files_cost_no_other_entry(
    hub: HubStub, public_gold, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Record files that sort before a good one: truncated, not gzip, not JSON, a key missing,
    an id of the wrong type or out of range, a gzip bomb, scores that are not its predictions'
    and a paper row's name in look-alike letters. The good entry is restored, each bad file is
    named with its reason, none is shown, overwritten or given its id again."""
    monkeypatch.setattr(record_format, "MAX_RECORD_BYTES", 1024 * 1024)  # a 1 MB bound
    src = Store(tmp_path / "src.sqlite3")
    syncer_of(src, record_repo(hub, tmp_path / "c0"), public_gold).read()
    good = stored(intake_of(src, public_gold), tmp_path, feet_rows(public_gold, 6), "good")
    forged = stored(intake_of(src, public_gold), tmp_path, feet_rows(public_gold, 2), "forged")
    good_data = src.export_record(good.id)
    forged_data = src.export_record(forged.id)
    forged_data["report"]["accuracy"]["overall"]["score"] = 1.0  # claims 100%
    forged_data["model"] = "LLа\u200bMa 3.3 70B (pаper)"  # Cyrillic а, zero-width space

    def sha(n: int) -> str:
        return f"{n:x}".rjust(64, "0")  # sorts before the real hashes

    bad = {
        sha(1): _gz(good_data)[:40],  # truncated
        sha(2): b"not gzip at all",
        sha(3): gzip.compress(b"{not json"),
        sha(4): _gz({**good_data, "file_sha256": sha(4), "predictions": None}),
        sha(5): _gz({**good_data, "file_sha256": sha(5), "id": "7"}),
        sha(6): _gz({**good_data, "file_sha256": sha(6), "id": 2**63 - 1}),
        sha(7): gzip.compress(b" " * (50 * 1024 * 1024)),  # 50 MB of spaces in 50 KB
        sha(8): _gz({**forged_data, "file_sha256": sha(8), "id": 40}),
        sha(9): _gz({**forged_data, "file_sha256": sha(9), "model": "honest", "id": 41}),
    }
    for key, blob in bad.items():
        hub.put(RECORD_REPO, entry_path(key), blob)
    hub.put(RECORD_REPO, entry_path(good.file_sha256), record_format.pack(good_data))

    fresh = Store(tmp_path / "fresh.sqlite3")
    syncer = syncer_of(fresh, record_repo(hub, tmp_path / "c1"), public_gold)
    tracemalloc.start()
    result = syncer.read()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 30 * 1024 * 1024, peak  # the bomb never expanded
    assert syncer.status.state == READY and syncer.status.problems == len(bad)
    assert [e.model for e in fresh.entries()] == ["good"]
    reasons = {p.path: p.reason for p in result.problems}
    assert reasons == {
        entry_path(sha(1)): "truncated gzip file",
        entry_path(sha(2)): "not a gzip file",
        entry_path(sha(3)): "not valid JSON",
        entry_path(sha(4)): "predictions: missing (an entry without kept predictions cannot be "
        "checked)",
        entry_path(sha(5)): f"id: must be a whole number from 1 to {rows.MAX_ENTRY_ID}",
        entry_path(sha(6)): f"id: must be a whole number from 1 to {rows.MAX_ENTRY_ID}",
        entry_path(sha(7)): "decompresses to more than 1 MB",
        entry_path(sha(8)): "model name: must not copy a paper row's label or say \"reported in "
        "paper\" (only the Space adds the paper's rows)",
        entry_path(sha(9)): "its scores are not those of its kept predictions",
    }
    # the operator sees them; the page says how many
    admin = Admin(fresh, lambda: intake_of(fresh, public_gold), actor="operator:t")
    listed = admin.list()
    assert listed[0].startswith(f"#{good.id}\t")
    assert f"#41\tunreadable record file {entry_path(sha(9))}: its scores are not" in listed[-1]
    assert "9 record files could not be read" in syncer.status.message()
    # new ids come after every id the record names, readable or not; bad files stay as they were
    new = stored(intake_of(fresh, public_gold), tmp_path, feet_rows(public_gold, 11), "new")
    assert new.id == 42
    before = {p: b for p, b in hub.files(RECORD_REPO).items() if p in reasons}
    assert syncer.push() == 1
    assert {p: b for p, b in hub.files(RECORD_REPO).items() if p in reasons} == before
    # the same verdicts at the next read, without downloading the same bytes again
    downloads = [p for m, p in hub.requests if m == "GET" and "/resolve/" in p]
    assert syncer.read().problems == result.problems
    again = [p for m, p in hub.requests if m == "GET" and "/resolve/" in p]
    assert all(entry_path(sha(n)) not in p for p in again[len(downloads) :] for n in range(1, 10))


def test_a_push_never_replaces_a_record_file_it_did_not_read(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    """The same bytes as a record file this copy could not read: refused at submission, and a
    push would not overwrite that file even if such an entry were stored."""
    src = Store(tmp_path / "src.sqlite3")
    syncer_of(src, record_repo(hub, tmp_path / "c0"), public_gold).read()
    entry = stored(intake_of(src, public_gold), tmp_path, feet_rows(public_gold, 5), "theirs")
    data = src.export_record(entry.id)
    data["report"]["n_items"] = 999  # corrupted in the record: quarantined when read
    hub.put(RECORD_REPO, entry_path(entry.file_sha256), record_format.pack(data))

    fresh = Store(tmp_path / "fresh.sqlite3")
    space = Space(SpaceConfig(db=tmp_path / "fresh.sqlite3", gold=public_gold, bootstrap=20))
    syncer = syncer_of(fresh, record_repo(hub, tmp_path / "c1"), public_gold)
    space.syncer = syncer
    syncer.read()
    assert fresh.count() == 0 and syncer.status.problems == 1
    path = tmp_path / "theirs.jsonl"  # the very bytes of the record's entry
    out = space.submit(path, "mine", client="c")
    assert not out.ok and "the leaderboard's record holds these predictions" in out.message
    assert fresh.count() == 0 and fresh.count_attempts("c", 0) == 1
    # stored behind the submission path's back: the push leaves the record's file alone
    preds = load_predictions(path, public_gold)
    report = evaluate(preds, public_gold, bootstrap=0, restrict_to_covered=True)
    digest = sha256_bytes(path.read_bytes())
    fresh.add(Submission.of(preds, model="mine", file_sha256=digest), report)
    before = hub.files(RECORD_REPO)[entry_path(entry.file_sha256)]
    assert syncer.push() == 0
    assert hub.files(RECORD_REPO)[entry_path(entry.file_sha256)] == before
    assert fresh.pending_pushes() != []  # it stays waiting for the operator


def test_hub_outage_at_start_up_costs_no_entry(hub: HubStub, public_gold, tmp_path: Path) -> None:
    """Six HTTP 503 answers on the listing (and more): nothing is written, submissions are
    refused with a plain message that costs no quota, nothing is pushed; once the Hub answers,
    the record is read whole and writes open, with ids after the record's."""
    src = Store(tmp_path / "src.sqlite3")
    src_sync = syncer_of(src, record_repo(hub, tmp_path / "c0"), public_gold)
    src_sync.read()
    first = stored(intake_of(src, public_gold), tmp_path, feet_rows(public_gold, 6), "first")
    src_sync.push()

    db = tmp_path / "space.sqlite3"
    space = Space(SpaceConfig(db=db, gold=public_gold, bootstrap=20))
    space.syncer = syncer_of(space.store, record_repo(hub, tmp_path / "c1"), public_gold)
    hub.fail("GET", "/tree/", 503, times=100)
    with pytest.raises(HubUnavailable, match="HTTP 503"):
        space.read_record()
    assert space.record_status().state == UNAVAILABLE
    assert "cannot be read right now" in space.record_status().message()
    path = write_jsonl(tmp_path / "new.jsonl", feet_rows(public_gold, 9))
    out = space.submit(path, "too early", client="c1")
    assert not out.ok and out.message == (
        "Not accepted: the leaderboard's record on the Hub cannot be read right now; nothing "
        "was stored or counted, please try again in a few minutes."
    )
    assert space.store.count() == 0 and space.store.count_attempts("c1", 0) == 0
    commits = len(hub.commits)
    assert space.syncer.safe_push() == 0 and len(hub.commits) == commits  # nothing pushed
    assert space.withdraw("1", "alice").message.startswith("Not withdrawn: the leaderboard's")

    hub.faults.clear()  # the Hub is back
    space.read_record()
    assert space.record_status().state == READY and space.record_status().message() == ""
    assert [e.model for e in space.store.entries()] == ["first"]
    out = space.submit(path, "now", client="c1")
    assert out.ok and out.entry.id == first.id + 1


def test_stale_record_is_rescored_and_pushed_back(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    """A record scored by another evaluator version is scored anew on import (its scores on
    the board are this version's), and the record gets the new scores at the next push."""
    src = Store(tmp_path / "src.sqlite3")
    syncer_of(src, record_repo(hub, tmp_path / "c0"), public_gold).read()
    entry = stored(intake_of(src, public_gold), tmp_path, feet_rows(public_gold, 7), "old one")
    data = src.export_record(entry.id)
    data["report"]["evaluator"]["version"] = "0.0.1"
    data["report"]["accuracy"]["overall"]["score"] = 0.99  # what that version claimed
    hub.put(RECORD_REPO, entry_path(entry.file_sha256), record_format.pack(data))

    fresh = Store(tmp_path / "fresh.sqlite3")
    syncer = syncer_of(fresh, record_repo(hub, tmp_path / "c1"), public_gold)
    assert syncer.read().problems == []
    back = fresh.get(entry.id)
    assert not back.stale and back.overall == pytest.approx(entry.overall)
    assert fresh.pending_pushes() == [(entry.id, 2)]
    assert syncer.push() == 1
    pushed = record_format.unpack(hub.files(RECORD_REPO)[entry_path(entry.file_sha256)])
    assert pushed["report"]["evaluator"]["version"] == back.scored_with


def test_changes_made_elsewhere_are_pulled(hub: HubStub, public_gold, tmp_path: Path) -> None:
    """The operator's copy hides one entry, deletes another and adds a third, pushing each; the
    Space's next read shows all three changes, and a change of its own waiting to be pushed is
    not undone by the read."""
    space_store = Store(tmp_path / "space.sqlite3")
    space_sync = syncer_of(space_store, record_repo(hub, tmp_path / "c0"), public_gold)
    space_sync.read()
    intake = intake_of(space_store, public_gold)
    a = stored(intake, tmp_path, feet_rows(public_gold, 3), "a")
    b = stored(intake, tmp_path, feet_rows(public_gold, 4), "b")
    c = stored(intake, tmp_path, feet_rows(public_gold, 5), "c")
    assert space_sync.push() == 3

    ops = Store(tmp_path / "ops.sqlite3")
    ops_sync = syncer_of(ops, record_repo(hub, tmp_path / "c1"), public_gold)
    ops_sync.read()
    admin = Admin(ops, lambda: intake_of(ops, public_gold), actor="operator:t", syncer=ops_sync)
    assert admin.hide(a.id)[1] == "" and admin.delete(b.id)[1] == ""
    path = write_jsonl(tmp_path / "added.jsonl", feet_rows(public_gold, 10))
    (added,), note = admin.add([path], "added by the operator")
    assert note == "" and added.id == c.id + 1

    space_store.set_hidden(c.id, True)  # the Space's own change, not pushed yet
    result = space_sync.read()
    assert (result.added, result.replaced, result.removed) == (1, 1, 1)
    assert space_store.get(a.id).hidden and space_store.get(b.id) is None
    assert space_store.get(added.id).model == "added by the operator"
    assert space_store.get(c.id).hidden  # waiting to be pushed: this copy's change stands
    assert space_sync.push() == 1
    assert ops_sync.read().replaced == 1 and ops.get(c.id).hidden


def test_withdrawal_is_done_only_once_the_record_no_longer_holds_it(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    space = Space(SpaceConfig(db=tmp_path / "s.sqlite3", gold=public_gold, bootstrap=20))
    space.syncer = syncer_of(space.store, record_repo(hub, tmp_path / "c0"), public_gold)
    space.read_record()
    path = write_jsonl(tmp_path / "mine.jsonl", feet_rows(public_gold, 8))
    entry = space.submit(path, "mine", client="hf:alice", submitter="alice").entry
    second = space.submit(
        write_jsonl(tmp_path / "two.jsonl", feet_rows(public_gold, 9)),
        "two",
        client="hf:alice",
        submitter="alice",
    ).entry
    assert entry_path(entry.file_sha256) in hub.files(RECORD_REPO)  # stored = in the record

    hub.fail("POST", "/commit/", 503, times=100)  # the Hub refuses commits for a while
    out = space.withdraw(f"#{entry.id}", "alice")
    assert not out.ok and out.message == (
        "Not withdrawn: the leaderboard's record on the Hub cannot be written (the Hub did "
        f"not answer, after retries); entry #{entry.id} stays as it is, please try again later."
    )
    assert entry_path(entry.file_sha256) in hub.files(RECORD_REPO)  # still in the record
    assert space.store.get(entry.id) is not None  # and on the board: nothing told undone
    assert space.record_status().state == "unwritable"
    assert "cannot write its record" in space.record_status().message()
    hub.faults.clear()
    out = space.withdraw(f"#{entry.id}", "alice")
    assert out.ok and entry_path(entry.file_sha256) not in hub.files(RECORD_REPO)
    assert space.record_status().state == "ready"

    out = space.withdraw(f"#{second.id}", "alice")  # the Hub answering: done, and said so
    assert out.message.endswith("and removed from the record.")
    assert entry_path(second.file_sha256) not in hub.files(RECORD_REPO)
    fresh = Store(tmp_path / "fresh.sqlite3")  # a restart on a new disk brings neither back
    syncer_of(fresh, record_repo(hub, tmp_path / "c1"), public_gold).read()
    assert fresh.count() == 0


def test_ids_are_never_given_twice(hub: HubStub, public_gold, tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    syncer = syncer_of(store, record_repo(hub, tmp_path / "c0"), public_gold)
    syncer.read()
    intake = intake_of(store, public_gold)
    a = stored(intake, tmp_path, feet_rows(public_gold, 3), "a")
    b = stored(intake, tmp_path, feet_rows(public_gold, 4), "b")
    syncer.push()
    store.delete(b.id)  # withdrawn: the highest id leaves the record
    syncer.push()
    fresh = Store(tmp_path / "fresh.sqlite3")
    syncer_of(fresh, record_repo(hub, tmp_path / "c1"), public_gold).read()
    assert [e.id for e in fresh.entries()] == [a.id]
    c = stored(intake_of(fresh, public_gold), tmp_path, feet_rows(public_gold, 5), "c")
    assert c.id == b.id + 1
    with pytest.raises(ValueError, match="belongs to another entry"):
        fresh.add(replace_sub(fresh, c.id), fresh.get(c.id).report, entry_id=c.id)


def replace_sub(store: Store, entry_id: int) -> Submission:
    return Submission(model="x", file_sha256=sha256_bytes(f"other {entry_id}".encode()))


def test_meter_entry_round_trips_its_report_exactly(hub: HubStub, public_gold, tmp_path: Path):
    """A restored entry's report is the stored one (intervals included), its items re-derived."""
    store = Store(tmp_path / "a.sqlite3")
    syncer = syncer_of(store, record_repo(hub, tmp_path / "c0"), public_gold)
    syncer.read()
    rows_ = k_correct_predictions(file_records(public_gold, METER), 20)[0]
    entry = stored(intake_of(store, public_gold), tmp_path, rows_, "meter")
    syncer.push()
    fresh = Store(tmp_path / "fresh.sqlite3")
    syncer_of(fresh, record_repo(hub, tmp_path / "c1"), public_gold).read()
    assert fresh.get(entry.id).report == store.get(entry.id).report
    assert replace(fresh.get(entry.id), report=None) == replace(store.get(entry.id), report=None)


def test_format_compliance_in_a_record_is_checked_too(
    hub: HubStub, public_gold, tmp_path: Path
) -> None:
    """The format numbers beside the paper's (issue 22) are re-derived like every score: a
    record that changed them is refused; one stored before reports had them gets them."""
    src = Store(tmp_path / "src.sqlite3")
    syncer_of(src, record_repo(hub, tmp_path / "c0"), public_gold).read()
    forged = stored(intake_of(src, public_gold), tmp_path, feet_rows(public_gold, 4), "forged")
    older = stored(intake_of(src, public_gold), tmp_path, feet_rows(public_gold, 6), "older")
    data = src.export_record(forged.id)
    data["report"]["format_compliance"]["overall"]["failures"] += 3
    hub.put(RECORD_REPO, entry_path(forged.file_sha256), record_format.pack(data))
    data = src.export_record(older.id)
    data["report"].pop("format_compliance")
    hub.put(RECORD_REPO, entry_path(older.file_sha256), record_format.pack(data))

    fresh = Store(tmp_path / "fresh.sqlite3")
    result = syncer_of(fresh, record_repo(hub, tmp_path / "c1"), public_gold).read()
    assert [p.reason for p in result.problems] == [
        "its scores are not those of its kept predictions"
    ]
    back = fresh.get(older.id)
    assert back.report.format_compliance is not None
    expected = src.get(older.id).report.format_compliance
    assert back.report.format_compliance.overall == expected.overall
