"""The attacks of issue 11, each against the real service (real SQLite) or the running app (real
server on loopback): raced quotas, forged forwarded headers, probing small private groups,
duplicates by content, upload floods, retries after a lost reply, API compare by id."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from gradio_client import Client
from kit.space_server import start_server
from respondeoqa_eval.data.breakdowns import DIMENSIONS
from respondeoqa_space import privacy
from respondeoqa_space.config import Limits
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.store import Store, Submission
from respondeoqa_space.store.quota import DAY, PENDING_TTL, RateLimitError
from respondeoqa_space.views.columns import VIEWS
from respondeoqa_space.web.clients import UploadBudget, client_address, client_of

from .helpers import file_records, k_correct_predictions, make_report, submit, write_jsonl

FEET = "prosody_feet_questions_latin.json"
MC = "certamen_mc.json"  # synthetic stand-in: 12 private items, groups of 1-2 items


def stored_ids(message: str) -> int:
    found = re.match(r"Stored as entry #(\d+)", message)
    assert found, message
    return int(found.group(1))


# -- quotas as reservations (in process: threads on one service, injected clock) ---------------


@pytest.fixture
def space(private_gold, tmp_path: Path) -> Space:
    limits = Limits(submissions_per_day=5, attempts_per_day=40)
    return Space(
        SpaceConfig(db=tmp_path / "lb.sqlite3", gold=private_gold, limits=limits, bootstrap=20)
    )


def test_concurrent_submissions_never_pass_the_quota(space: Space, public_gold, tmp_path) -> None:
    records = file_records(public_gold, FEET)
    paths = [
        write_jsonl(tmp_path / f"race{i}.jsonl", k_correct_predictions(records, i)[0])
        for i in range(12)
    ]
    barrier = threading.Barrier(len(paths))
    messages: list[str] = []

    def go(path: Path) -> None:
        barrier.wait()
        messages.append(space.submit(path, f"race {path.stem}", client="racer").message)

    threads = [threading.Thread(target=go, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = [m for m in messages if m.startswith("Stored as entry #")]
    refused = [m for m in messages if "at most 5 stored submissions" in m]
    assert (len(stored), len(refused)) == (5, 7), messages
    assert space.store.count() == 5


def test_reservation_counts_before_scoring_and_expires(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite3")
    limits = Limits(submissions_per_day=2, attempts_per_day=3)
    now = 100 * DAY
    first = store.reserve("k", limits, now)
    store.reserve("k", limits, now)  # two pending: both slots taken before any scoring ends
    with pytest.raises(RateLimitError, match="at most 2 stored submissions"):
        store.reserve("k", limits, now)
    store.release(first)  # a failed try frees its slot, and still counts as an attempt
    store.reserve("k", limits, now + 1)
    with pytest.raises(RateLimitError, match="at most 0 submission attempts"):
        store.reserve("other", Limits(submissions_per_day=9, attempts_per_day=0), now)
    # a reservation whose process died holds its slot only for PENDING_TTL
    later = now + PENDING_TTL + 10
    with pytest.raises(RateLimitError, match="at most 3 submission attempts"):
        store.reserve("k", limits, later)  # 3 attempts within the day
    assert store.reserve("k", limits, now + DAY + 2).key == "k"  # a day later: all expired


def test_entry_and_its_attempt_are_one_transaction(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite3")
    limits = Limits(submissions_per_day=1, attempts_per_day=9)
    res = store.reserve("k", limits, 10.0)
    sub = Submission(model="m", file_sha256="a" * 64)
    entry = store.add(sub, make_report(0.5), reservation=res, content_key="c:x")
    assert store.stored_by(entry.id, "k") and not store.stored_by(entry.id, "someone else")
    assert store.count_attempts("k", 0.0, ok_only=True) == 1
    # a reservation of another key cannot be settled by this entry: nothing is stored
    other = store.reserve("j", limits, 10.0)
    bad = type(other)(other.id, "k", other.ts)
    with pytest.raises(RuntimeError):
        store.add(Submission(model="n", file_sha256="b" * 64), make_report(0.4), reservation=bad)
    assert store.count() == 1


def test_retry_after_lost_reply_is_already_stored(space: Space, public_gold, tmp_path) -> None:
    rows, _ = k_correct_predictions(file_records(public_gold, FEET), 3)
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    first = space.submit(path, "lost reply", client="k")
    n = stored_ids(first.message)
    # the server was killed after storing: the client never saw `first` and sends again
    again = space.submit(path, "lost reply", client="k")
    assert again.ok and again.message.startswith(f"Already stored as entry #{n} (lost reply)")
    assert space.store.count() == 1
    other = space.submit(path, "copy", client="someone else")
    assert not other.ok and f"identical to entry #{n}" in other.message


def _csv_text(rows: list[dict[str, str]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["id", "answer"])
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


# -- duplicates by content -------------------------------------------------------------------


def test_four_duplicate_variants_refused(space: Space, public_gold, tmp_path: Path) -> None:
    rows, _ = k_correct_predictions(file_records(public_gold, FEET), 6)
    original = write_jsonl(tmp_path / "orig.jsonl", rows)
    n = stored_ids(space.submit(original, "orig", client="a").message)
    text = original.read_text(encoding="utf-8")
    variants = {
        "newline.jsonl": text + "\n",
        "reordered.jsonl": "".join(reversed(text.splitlines(keepends=True))),
        "spaces.jsonl": "".join(
            json.dumps({"id": r["id"], "answer": f"  {r['answer']} \t"}) + "\n" for r in rows
        ),
        "as.csv": _csv_text(rows),
    }
    for i, (name, content) in enumerate(variants.items()):
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        out = space.submit(path, f"variant {name}", client=f"other-{i}")
        assert not out.ok, (name, out.message)
        assert out.message.startswith(f"Not accepted: these predictions are the same as entry #{n}")
    assert space.store.count() == 1
    changed = write_jsonl(tmp_path / "changed.jsonl", [*rows[:-1], {**rows[-1], "answer": "q"}])
    assert space.submit(changed, "one answer differs", client="b").ok


# -- small private groups --------------------------------------------------------------------


def test_probing_single_items_reveals_nothing_below_k(space: Space, private_gold, tmp_path) -> None:
    records = file_records(private_gold, MC)
    k = space.limits.min_private_items
    assert len(records) >= 2
    # a probe file: one letter for one item, "Z" everywhere else, and its control
    probe = [{"id": r.id, "answer": "A" if i == 0 else "Z"} for i, r in enumerate(records)]
    control = [{"id": r.id, "answer": "Z"} for r in records]
    outs = [
        space.submit(write_jsonl(tmp_path / f"{t}.jsonl", rows), t, client=t)
        for t, rows in (("probe", probe), ("control", control))
    ]
    ids = [stored_ids(out.message) for out in outs]
    assert privacy.note(k) in outs[0].message  # the submitter is told why values are missing
    own = {r["Group"]: r["Score"] for r in outs[0].breakdown.to_dict("records")}
    assert math.isnan(own["Literary devices"]) and not math.isnan(own["Multiple choice"])
    small = {  # every (dimension, group) of this file resting on 1..k-1 private items
        (key, g)
        for key, dim in DIMENSIONS.items()
        for g in dim.groups
        if 0 < sum(dim.group_of(r) == g for r in records if r.task != "translation") < k
    }
    assert small  # the synthetic file has groups of one item, like the real one
    checked = 0
    for key, g in small:
        dim = DIMENSIONS[key]
        if dim.name not in VIEWS:
            continue
        frame = space.table(dim.name)
        for entry_id in ids:
            row = frame[frame["Entry"] == f"#{entry_id}"].iloc[0]
            assert math.isnan(row[dim.label(g)]), (dim.name, dim.label(g), row.to_dict())
            checked += 1
    assert checked >= 10
    csv_rows = list(
        csv.DictReader(io.StringIO(space.snapshot().csv("Content type", None)[1].decode("utf-8")))
    )
    for r in csv_rows:
        if r["Entry"] in {f"#{i}" for i in ids}:
            assert r["Literary devices"] in ("", "nan", "—"), r
    for entry_id in ids:
        report = space._shown(space.store.get(entry_id)).report
        for key, g in small:
            assert math.isnan(report.group(key, g).score), (key, g)
        assert not math.isnan(report.accuracy.overall.score)  # 12 private items >= k
    out = space.compare([f"e:{ids[0]}", f"e:{ids[1]}"])
    # the paired comparison is over public items only: these entries have none
    assert out.differences.empty and out.disagreements.empty
    assert "Paired bootstrap over the 0 public scored items" in out.message
    bars = [t for t in out.by_content.data]
    assert bars and all(y is None or math.isnan(y) for t in bars for y in t.x)


def test_public_items_are_never_suppressed(space: Space, public_gold, tmp_path) -> None:
    records = file_records(public_gold, FEET)  # public file with small groups
    out = space.submit(write_jsonl(tmp_path / "f.jsonl", k_correct_predictions(records, 2)[0]), "f")
    assert out.ok
    report = space._shown(out.entry).report
    assert report == out.entry.report and privacy.withheld_cells(report) == 0


# -- client identity -------------------------------------------------------------------------


class FakeHeaders:
    """Starlette's multi-valued headers: getlist gives every line of a header."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    def getlist(self, name: str) -> list[str]:
        return self.lines if name == "x-forwarded-for" else []


def test_forwarded_addresses_only_when_configured() -> None:
    forged = FakeHeaders("6.6.6.6", "1.2.3.4, 10.0.0.9")
    assert client_address("127.0.0.1", forged, 0) == "127.0.0.1"
    assert client_address("127.0.0.1", forged, 1) == "10.0.0.9"  # all lines joined: the last
    assert client_address("127.0.0.1", forged, 2) == "1.2.3.4"
    assert client_address("127.0.0.1", FakeHeaders(), 1) == "127.0.0.1"

    class Req:
        headers = FakeHeaders("6.6.6.6", "10.0.0.9")
        client = type("C", (), {"host": "127.0.0.1"})()

    assert client_of(Req(), 0) == client_of(type("R", (), {"client": Req.client})(), 0)


def test_upload_budget_cuts_a_flood() -> None:
    now = [0.0]
    limits = Limits(uploads_per_hour=3, upload_mb_per_hour=1, upload_disk_mb=2)
    budget = UploadBudget(limits, clock=lambda: now[0])
    assert [budget.admit("a", 10) for _ in range(3)] == [None] * 3
    assert "at most 3 uploads per hour" in budget.admit("a", 10)
    assert "at most 1 MB" in budget.admit("b", 2 * 1024 * 1024)
    assert budget.admit("b", 1024 * 1024) is None
    assert budget.admit("c", 1024 * 1024 - 100) is None  # 2 MB - 70 bytes in all
    assert "too many uploads" in budget.admit("d", 200)  # the disk bound, for everyone
    now[0] += 3601  # an hour later, files are deleted and budgets are free again
    assert budget.admit("a", 10) is None and budget.admit("d", 10) is None


# -- against the running app -----------------------------------------------------------------


def _upload(url: str, path: Path, headers: Any = None) -> httpx.Response:
    return httpx.post(
        url + "gradio_api/upload",
        files={"files": (path.name, path.read_bytes())},
        headers=headers,
        timeout=60,
    )


def _direct_submit(url: str, path: Path, model: str, headers: Any = None) -> str:
    """POST /gradio_api/run/submit: Gradio's route that skips the queue."""
    reply = _upload(url, path, headers)
    reply.raise_for_status()
    data = {
        "data": [
            [{"path": reply.json()[0], "meta": {"_type": "gradio.FileData"}}],
            model,
            "",
            "",
            "",
            "",
            "not said",
            "not said",
            False,
        ]
    }
    out = httpx.post(url + "gradio_api/run/submit", json=data, headers=headers, timeout=300)
    out.raise_for_status()
    return out.json()["data"][0]


@pytest.fixture(scope="module")
def strict(private_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    srv = start_server(
        private_dir,
        tmp_path_factory.mktemp("strict-space"),
        env_extra={
            "RESPONDEOQA_SPACE_DAILY": "3",
            "RESPONDEOQA_SPACE_UPLOADS": "30",
            "FORWARDED_ALLOW_IPS": "*",  # even if the operator's shell says so: not trusted
        },
    )
    yield srv
    srv.stop()


@pytest.mark.slow
def test_running_app_quota_holds_across_routes_and_forged_headers(
    strict, public_gold, tmp_path: Path
) -> None:
    records = file_records(public_gold, FEET)
    paths = [
        write_jsonl(tmp_path / f"s{i}.jsonl", k_correct_predictions(records, i)[0])
        for i in range(10)
    ]
    barrier = threading.Barrier(8)
    messages: list[str] = []

    def direct(path: Path, headers: Any) -> None:
        barrier.wait()
        messages.append(_direct_submit(strict.url, path, f"direct {path.stem}", headers))

    def queued(path: Path) -> None:
        client = Client(strict.url, verbose=False)
        barrier.wait()
        messages.append(submit(client, path, f"queued {path.stem}")[0])

    forged = [
        None,
        {"X-Forwarded-For": "198.51.100.1"},
        [("X-Forwarded-For", "198.51.100.2"), ("X-Forwarded-For", "198.51.100.3")],
        {"X-Real-IP": "198.51.100.4"},
    ]
    threads = [
        threading.Thread(target=direct, args=(paths[i], forged[i % len(forged)])) for i in range(5)
    ]
    threads += [threading.Thread(target=queued, args=(paths[i],)) for i in range(5, 8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = [m for m in messages if m.startswith("Stored as entry #")]
    assert len(messages) == 8 and len(stored) == 3, messages
    assert all("at most 3 stored submissions" in m for m in messages if m not in stored)
    # later forged headers (single and multi-line) are the same client: still refused
    for headers in forged[1:3]:
        late = _direct_submit(strict.url, paths[8], "late", headers)
        assert "at most 3 stored submissions" in late, late


@pytest.fixture(scope="module")
def proxied(private_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    srv = start_server(
        private_dir,
        tmp_path_factory.mktemp("proxied-space"),
        env_extra={
            "RESPONDEOQA_SPACE_DAILY": "1",
            "RESPONDEOQA_SPACE_TRUSTED_PROXIES": "1",
            "RESPONDEOQA_SPACE_UPLOADS": "6",
        },
    )
    yield srv
    srv.stop()


@pytest.mark.slow
def test_configured_proxy_uses_the_last_forwarded_entry_of_all_lines(
    proxied, public_gold, tmp_path: Path
) -> None:
    records = file_records(public_gold, FEET)
    paths = [
        write_jsonl(tmp_path / f"p{i}.jsonl", k_correct_predictions(records, i)[0])
        for i in range(3)
    ]
    one = {"X-Forwarded-For": "forged, 203.0.113.1"}
    assert _direct_submit(proxied.url, paths[0], "p0", one).startswith("Stored as entry #")
    # the same proxy-seen address with a different forged first line: the same client
    two_lines = [("X-Forwarded-For", "198.51.100.9"), ("X-Forwarded-For", "203.0.113.1")]
    refused = _direct_submit(proxied.url, paths[1], "p1", two_lines)
    assert "at most 1 stored submissions" in refused, refused
    # another address as the proxy saw it: another client
    other = {"X-Forwarded-For": "203.0.113.2"}
    assert _direct_submit(proxied.url, paths[2], "p2", other).startswith("Stored as entry #")


@pytest.mark.slow
def test_upload_flood_is_cut_off(proxied, tmp_path: Path) -> None:
    path = tmp_path / "flood.jsonl"
    path.write_bytes(b'{"id": "x", "answer": "a"}\n' * 1000)
    headers = {"X-Forwarded-For": "192.0.2.77"}  # one client of this proxied Space
    codes = [_upload(proxied.url, path, headers).status_code for _ in range(20)]
    assert codes[:6] == [200] * 6 and set(codes[6:]) == {429}, codes
    refused = _upload(proxied.url, path, headers)
    assert "at most 6 uploads per hour" in refused.text
    assert _upload(proxied.url, path, {"X-Forwarded-For": "192.0.2.78"}).status_code == 200


@pytest.mark.slow
def test_api_compare_by_id_from_a_fresh_session(server, public_gold, tmp_path: Path) -> None:
    records = file_records(public_gold, "prosody_caesura_scansion_english.json")
    ids = []
    for i, k in enumerate((20, 5)):
        rows, _ = k_correct_predictions(records, k)
        msg = _direct_submit(server.url, write_jsonl(tmp_path / f"c{i}.jsonl", rows), f"api-{k}")
        ids.append(stored_ids(msg))
    fresh = Client(server.url, verbose=False)  # a new session; the entries are newer than
    # the server's start, so not in the picker's initial choices
    out = fresh.predict([f"e:{ids[0]}", f"e:{ids[1]}"], api_name="/compare")
    assert out[0].startswith(f"A = #{ids[0]} api-20; B = #{ids[1]} api-5"), out[0]
    unknown = fresh.predict(["e:99999", "e:abc"], api_name="/compare")
    assert unknown[0] == "Pick two or more entries to compare."


@pytest.mark.slow
def test_smaller_defects_through_the_running_app(server, tmp_path: Path) -> None:
    client = Client(server.url, verbose=False)
    collected: list[str] = []
    dot = tmp_path / ".hidden.jsonl"
    dot.write_text('{"id": "x", "answer": "a"}\n', encoding="utf-8")
    # the upload guard refuses dot files (and paths) with our message before Gradio keeps
    # them; the service's own InputError covers other callers
    import httpx

    before = Store(server.db).count()
    with pytest.raises(httpx.HTTPStatusError) as refused:
        submit(client, dot, "dot file")
    assert refused.value.response.status_code == 400
    assert "'.hidden.jsonl' is a path or begins with a dot" in refused.value.response.text
    assert Store(server.db).count() == before
    ok = tmp_path / "p.jsonl"
    ok.write_text('{"id": "x", "answer": "a"}\n', encoding="utf-8")
    for name in ("LLaMa 3.3 70B (reported in paper)", "o3-mini (paper)"):
        msg = submit(client, ok, name)[0]
        collected.append(msg)
        assert msg.startswith("Not accepted: model name: must not copy a paper row"), msg
    hostile = {
        "deep.jsonl": '{"id": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
        "bigint.jsonl": '{"id": "x", "answer": ' + "9" * 50_000 + "}\n",
        "long.csv": "id,response\nx," + "a" * 300_000 + "\n",
    }
    for name, content in hostile.items():
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        msg = submit(client, path, f"hostile {name}")[0]
        collected.append(msg)
        assert msg.startswith("Not accepted:") and "internal error" not in msg, (name, msg)
        assert name in msg, msg
    for view in ("Overview", "Content type"):
        collected.append(json.dumps(client.predict(view, "all coverages", api_name="/leaderboard")))
    folders = {str(server.data_dir), str(server.db.parent), str(tmp_path)}
    for text in collected:
        for folder in folders:
            assert folder not in text.replace(str(server.db.parent / "gradio-tmp"), ""), text
