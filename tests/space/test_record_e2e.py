"""The record against a running Space (the real CLI in a subprocess, the loopback Hub stand-in):
a kill -9 after "Stored", a corrupt record file and a Hub outage at start-up, and an operator's
change from elsewhere, each costing no entry and said on the page."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest
from gradio_client import Client
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from kit.space_server import Server, start_server
from respondeoqa_space.cli import main
from respondeoqa_space.store import Store, entry_path, sha256_bytes

from .helpers import (
    SUBMIT_OK,
    file_records,
    intake_of,
    k_correct_predictions,
    leaderboard,
    page_board,
    parse_board,
    record_repo,
    stored,
    submit,
    syncer_of,
    wait_until,
    write_jsonl,
)

pytestmark = pytest.mark.slow

FEET = "prosody_feet_questions_english.json"


def env_for(hub: HubStub, tmp_path: Path) -> dict[str, str]:
    return {
        "HF_ENDPOINT": hub.url,
        "HF_HUB_OFFLINE": "0",  # the stand-in on 127.0.0.1 is the only Hub reachable
        "HF_TOKEN": TOKEN,
        "RESPONDEOQA_SPACE_MIRROR": RECORD_REPO,
        "RESPONDEOQA_SPACE_SYNC_SECONDS": "3600",  # no timed push or pull during a test
        "RESPONDEOQA_SPACE_PULL_SECONDS": "3600",
        "HF_HUB_CACHE": str(tmp_path / "hf-cache"),
    }


def feet(gold, k: int) -> list[dict[str, str]]:
    return k_correct_predictions(file_records(gold, FEET), k)[0]


def board_models(srv: Server) -> list[str]:
    return [r["Model"] for r in parse_board(page_board(srv.url))[1]]


def message_of(value) -> str:
    return value.get("value", value) if isinstance(value, dict) else value


def test_stored_is_told_once_the_record_holds_it_so_a_kill_9_loses_nothing(
    hub: HubStub, private_dir: Path, public_gold, tmp_path: Path
) -> None:
    env = env_for(hub, tmp_path)
    path = write_jsonl(tmp_path / "feet.jsonl", feet(public_gold, 5))
    sha = sha256_bytes(path.read_bytes())
    first = start_server(private_dir, tmp_path / "space", env_extra=env)
    try:
        wait_until(lambda: "reading its record" not in page_board(first.url), seconds=60, every=0.3)
        message, *_ = submit(Client(first.url, verbose=False), path, "durable model")
        assert message_of(message).startswith("Stored as entry #1"), message
        assert entry_path(sha) in hub.files(RECORD_REPO)  # told only once the record holds it
    finally:
        os.kill(first.proc.pid, signal.SIGKILL)  # no shutdown push
        first.proc.wait(timeout=30)

    third = start_server(private_dir, tmp_path / "new-disk", env_extra=env)  # the disk is gone
    try:
        wait_until(lambda: "durable model" in board_models(third), seconds=60, every=0.3)
        models = [r["Model"] for r in leaderboard(Client(third.url, verbose=False))]
        assert "durable model" in models
    finally:
        third.stop()
    restored = Store(third.db).find_by_hash(sha)
    assert restored is not None and restored.model == "durable model" and restored.id == 1


def test_corrupt_record_file_and_operator_changes_reach_a_running_space(
    hub: HubStub, private_dir: Path, private_gold, tmp_path: Path, capsys
) -> None:
    src = Store(tmp_path / "src.sqlite3")
    sync = syncer_of(src, record_repo(hub, tmp_path / "c0"), private_gold)
    sync.read()
    intake = intake_of(src, private_gold)
    a = stored(intake, tmp_path, feet(private_gold, 4), "alpha")
    b = stored(intake, tmp_path, feet(private_gold, 6), "beta")
    sync.push()
    hub.put(RECORD_REPO, entry_path("0" * 64), b"\x1f\x8b truncated")  # sorts first

    srv = start_server(private_dir, tmp_path / "space", env_extra=env_for(hub, tmp_path))
    try:
        wait_until(lambda: {"alpha", "beta"} <= set(board_models(srv)), seconds=60, every=0.3)
        html = page_board(srv.url)
        assert "1 record file could not be read and is not shown; the operator has been told." in (
            html
        )
        new = write_jsonl(tmp_path / "gamma.jsonl", feet(private_gold, 9))
        out = submit(Client(srv.url, verbose=False), new, "gamma")
        assert out[SUBMIT_OK] and message_of(out[0]).startswith(f"Stored as entry #{b.id + 1}")
        items = httpx.get(srv.url + "entry.csv", params={"entry": f"e:{a.id}"}, timeout=30)
        assert items.status_code == 200 and items.text.startswith("id,question_id")

        # the operator, elsewhere: the record is read whole (the bad file listed), then a change
        admin = [
            "admin", "--db", str(tmp_path / "ops.sqlite3"), "--repo", RECORD_REPO,
            "--data-dir", str(private_dir),
        ]  # fmt: skip
        assert main([*admin, "list"]) == 0
        listed = capsys.readouterr().out
        assert f"#{a.id}\t" in listed and f"#{b.id}\t" in listed
        assert f"unreadable record file {entry_path('0' * 64)}: not a gzip file" in listed
        assert main([*admin, "--space-url", srv.url, "hide", str(a.id)]) == 0
        assert "the Space reads the record now" in capsys.readouterr().out
        wait_until(lambda: "alpha" not in board_models(srv), seconds=30, every=0.3)
        refused = httpx.get(srv.url + "entry.csv", params={"entry": f"e:{a.id}"}, timeout=30)
        assert refused.status_code == 404  # hidden: its download is refused at request time
        assert httpx.post(srv.url + "record/pull", timeout=30).status_code == 403  # no token
    finally:
        srv.stop()
    assert "Traceback" not in srv.log_text()


def test_hub_outage_at_start_up_closes_writes_until_the_record_is_read(
    hub: HubStub, private_dir: Path, private_gold, tmp_path: Path
) -> None:
    """The Hub answers 503 to the listing at start-up: the page says the record is being read,
    a submission is refused and costs nothing; once the Hub answers, the entries are back and
    the next submission gets the next id."""
    src = Store(tmp_path / "src.sqlite3")
    sync = syncer_of(src, record_repo(hub, tmp_path / "c0"), private_gold)
    sync.read()
    first = stored(intake_of(src, private_gold), tmp_path, feet(private_gold, 5), "first")
    sync.push()
    # huggingface_hub retries the listing five times (1+2+4+8+8 s): the sixth call answers
    hub.fail("GET", "/tree/", 503, times=5)
    srv = start_server(private_dir, tmp_path / "space", env_extra=env_for(hub, tmp_path))
    try:
        html = page_board(srv.url)
        assert "The leaderboard is reading its record from the Hub" in html, html[:300]
        path = write_jsonl(tmp_path / "early.jsonl", feet(private_gold, 8))
        client = Client(srv.url, verbose=False)
        out = submit(client, path, "too early")
        assert not out[SUBMIT_OK] and message_of(out[0]) == (
            "Not accepted: the leaderboard is still reading its record from the Hub; nothing "
            "was stored or counted, please try again in a few minutes."
        )
        wait_until(lambda: "first" in board_models(srv), seconds=90, every=0.3)
        assert "reading its record" not in page_board(srv.url)
        out = submit(client, path, "in time")
        assert out[SUBMIT_OK] and message_of(out[0]).startswith(f"Stored as entry #{first.id + 1}")
    finally:
        srv.stop()
    assert sum(1 for m, p in hub.requests if m == "GET" and "/tree/" in p) >= 6
