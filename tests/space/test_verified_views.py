"""Verified and self-reported entries as the board, its CSV and the detail show them (real entries
in a real SQLite store, the Space's own read model and routes): the Type cell, the "verified only"
filter, the detail's provenance of the run, and the requests list."""

from __future__ import annotations

import csv
import io
from dataclasses import replace
from pathlib import Path

from respondeoqa_space.config import Limits
from respondeoqa_space.metadata import clean_metadata
from respondeoqa_space.paper import PAPER_ROWS
from respondeoqa_space.requests.model import Request
from respondeoqa_space.rows import PAPER_LABEL
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.views.frames import STALE_MARK, leaderboard_frame, type_label
from respondeoqa_space.views.requests import requests_frame
from respondeoqa_space.web.routes import read_routes
from starlette.applications import Starlette
from starlette.testclient import TestClient

from .helpers import file_records, parse_board, write_jsonl
from .test_record_writers import EVALUATION

FEET = "prosody_feet_questions_english.json"


def space_with_two_entries(public_gold, tmp_path: Path) -> tuple[Space, int, int]:
    space = Space(SpaceConfig(db=tmp_path / "s.sqlite3", gold=public_gold, bootstrap=20))
    rows = [{"id": r.id, "response": "Answer: dactyl"} for r in file_records(public_gold, FEET)]
    run = write_jsonl(tmp_path / "run.jsonl", rows)
    upload = write_jsonl(tmp_path / "upload.jsonl", [{**r, "response": "dactyl"} for r in rows])
    meta = clean_metadata("org/model-7b", "", "7B", "", Limits())
    verified = space.intake.submit(run, meta, client=None, evaluation=EVALUATION).entry
    uploaded = space.intake.submit(upload, replace(meta, model="my model"), client="c").entry
    return space, verified.id, uploaded.id


def test_the_type_cell_and_the_verified_only_filter(public_gold, tmp_path: Path) -> None:
    space, verified, uploaded = space_with_two_entries(public_gold, tmp_path)
    board = space.table("Overview")
    types = dict(zip(board["Entry"], board["Type"], strict=True))
    assert types[f"#{verified}"] == "verified"
    assert types[f"#{uploaded}"] == "self-reported"
    assert types["paper"] == PAPER_LABEL
    entry = space.store.get(verified)
    assert type_label(entry, stale=True) == f"verified, {STALE_MARK}"

    only = leaderboard_frame([*PAPER_ROWS, *space.snapshot().entries], verified_only=True)
    assert list(only["Entry"]) == [f"#{verified}"] and only["Rank"].tolist() == [1]

    # the board's route and the CSV take the same filter (what the page's checkbox asks)
    app = Starlette(routes=read_routes(space))
    client = TestClient(app)
    every = {"coverage": "all coverages"}
    _, shown = parse_board(client.get("/board", params={**every, "verified": "1"}).text)
    assert [r["Entry"] for r in shown] == [f"#{verified}"]
    _, everything = parse_board(client.get("/board", params=every).text)
    assert {r["Entry"] for r in everything} >= {f"#{verified}", f"#{uploaded}", "paper"}
    assert 'href="board.csv?view=Overview&amp;coverage=all+coverages&amp;verified=1"' in (
        client.get("/board", params={**every, "verified": "1"}).text
    )
    got = client.get("/board.csv", params={**every, "verified": "1"})
    assert "verified" in got.headers["content-disposition"]
    assert [r["Entry"] for r in csv.DictReader(io.StringIO(got.text))] == [f"#{verified}"]
    assert client.get("/board", params={"verified": "yes please"}).text == (
        client.get("/board").text
    )  # anything but "1" is the whole board


def test_the_detail_of_a_verified_entry_gives_its_run(public_gold, tmp_path: Path) -> None:
    space, verified, uploaded = space_with_two_entries(public_gold, tmp_path)
    fields = dict(space.detail(f"e:{verified}").metadata.values.tolist())
    assert fields["Type"] == "verified"
    assert fields["Evaluated by"] == "the leaderboard (verified)"
    assert fields["Request"] == "0123456789ab (Request an evaluation page)"
    assert fields["Model revision"] == "a" * 40
    assert fields["Engine"] == "vllm 0.6.3"
    assert fields["Engine was"] == "started by the worker at this revision"
    assert fields["Sampling"] == "paper: temperature 0.6, top-p 0.95, seed 0"
    assert fields["Token budget"] == "1,024 new tokens per item"
    assert fields["Tokens"] == "12,000 prompt + 3,000 generated (the engine's own counts)"
    assert fields["Run covered"] == "40 items: Latin Prosody"
    assert fields["Gold fingerprint"] == space.gold_fingerprint
    other = dict(space.detail(f"e:{uploaded}").metadata.values.tolist())
    assert other["Type"] == "self-reported" and "Evaluated by" not in other


def test_the_requests_list_says_where_each_stands() -> None:
    base = Request(
        id="0123456789ab",
        model="org/model-7b",
        revision="b" * 40,
        asked_revision="main",
        preset="paper",
        reasoning=True,
        max_new_tokens=16384,
        requester="alice",
        created="2026-01-01T00:00:00+00:00",
        licence="apache-2.0",
        parameters=7_615_616_512,
    )
    finished = replace(base, id="1" * 12, status="finished", entries=(12, 13, 14))
    failed = replace(base, id="2" * 12, status="failed", reason="the engine exited", requester="")
    stalled = replace(base, id="3" * 12, status="running", lease_until="2026-01-01T00:10:00+00:00")
    now = 1767226200.0  # 2026-01-01T00:10:00 UTC: the stalled one's lease has just run out
    frame = requests_frame([base, finished, failed, stalled], now)
    rows = frame.to_dict("records")
    assert rows[0]["Revision"] == "bbbbbbbbbbbb (main)" and rows[0]["Parameters"] == "7.6B"
    assert rows[0]["Reasoning"] == "yes" and rows[0]["Status"] == "pending"
    assert rows[1]["Status"] == "finished: entry #12 (+2 on other coverages)"
    assert rows[2]["Status"] == "failed: the engine exited" and rows[2]["Requested by"] == (
        "operator"
    )
    assert rows[3]["Status"] == "pending (its worker stopped; to be run again)"
