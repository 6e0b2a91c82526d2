"""Issue 21 end to end: a researcher requests a model in the Space's page and the operator's worker
evaluates it on a serving engine this project did not write.

Real parts only: the Space is the real CLI in a subprocess on Gradio's Space code path (OAuth
through the loopback OpenID provider, kit/oidcstub.py); its record and the model live on the
Hub stand-in (kit/hubstub.py, which huggingface_hub and transformers talk to unchanged); the
worker is `respondeoqa-space worker` in a subprocess, whose `--serve-command` starts
`transformers serve` on the tiny random model, downloaded from the stand-in at the requested
commit. The request is made by chromium, logged in as a user; it ends as verified entries on
the board (every coverage of the run), with their provenance in the detail, whose numbers are
`respondeoqa-eval score` of the worker's own saved predictions.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import require
from kit.hubstub import RECORD_REPO, HubStub
from kit.oidcstub import OidcStub
from kit.space_server import Server, start_server
from respondeoqa_eval.report.model import Report
from respondeoqa_space.store import Store
from respondeoqa_space.submission import point_values
from synthetic import SECRET_MARKER

from .helpers import (
    assert_message_whole,
    choose,
    message_after,
    open_page,
    page_board,
    parse_board,
    wait_until,
)
from .requestkit import MODEL, add_tiny_model, requests_in_record
from .test_oauth import login
from .test_record_e2e import env_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = require("playwright.sync_api")

SERVE = "transformers serve {model}@{revision} --host 127.0.0.1 --port {port} --device cpu"


@pytest.fixture
def space(hub: HubStub, private_dir: Path, tmp_path: Path, tiny_model: Path) -> Iterator[Server]:
    """A Space with OAuth and a record on the stand-in, whose requests get 8 new tokens."""
    add_tiny_model(hub, tiny_model)
    with OidcStub() as oidc:
        env = {
            **oidc.env,
            **env_for(hub, tmp_path / "space"),  # no timed pull: the worker asks it to read
            "RESPONDEOQA_SPACE_TRUSTED_PROXIES": "0",
            "RESPONDEOQA_REQUEST_TOKENS": "8",  # a tiny random model: a few tokens are enough
        }
        srv = start_server(private_dir, tmp_path / "space", env_extra=env)
        try:
            yield srv
        finally:
            srv.stop()


def board_rows(srv: Server) -> list[dict]:
    return parse_board(page_board(srv.url))[1]


def all_coverages(page) -> None:
    """Every coverage on the board, one section each (the board's Coverage picker)."""
    choose(page, "coverage", "all coverages")


def verified_only(page) -> None:
    """The board's Filters menu: only the entries the leaderboard evaluated itself."""
    menu = page.locator("#leaderboard-table .board-filters > summary")
    menu.click()
    page.locator('#leaderboard-table input[data-filter="verified"]').check()
    menu.click()  # closed again: the menu covers the first rows


def request_in(page, model: str, preset_label: str | None = None) -> str:
    """Fill the request form and press the button; the message shown."""
    open_page(page, "Request an evaluation")
    page.locator("#request-model textarea, #request-model input").first.fill(model)
    if preset_label:
        page.locator("#request-preset").get_by_label(preset_label).check()
    return message_after(page, "#request-btn", "#request-msg")


def run_worker(
    space: Server, private_dir: Path, work: Path, hub: HubStub, tmp_path: Path
) -> subprocess.CompletedProcess:
    env = {**os.environ, **env_for(hub, tmp_path / "worker")}
    cmd = [
        sys.executable, "-m", "respondeoqa_space", "worker",
        "--repo", RECORD_REPO, "--data-dir", str(private_dir), "--work-dir", str(work),
        "--serve-command", SERVE, "--once", "--space-url", space.url, "--concurrency", "8",
        "--engine-timeout", "300", "--check-model", MODEL,
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


def test_request_in_the_page_ends_as_verified_entries(
    space: Server,
    hub: HubStub,
    browser,
    private_dir: Path,
    tmp_path: Path,
    screenshot_dir: Path,
) -> None:
    shots = screenshot_dir / "issue21"
    shots.mkdir(parents=True, exist_ok=True)
    commits = len(hub.commits)

    # a visitor who is not logged in is asked to log in, and nothing is stored
    anon = browser.new_context().new_page()
    anon.goto(space.url)
    message = request_in(anon, MODEL)
    assert message.startswith("Not requested: log in with Hugging Face"), message
    assert len(hub.commits) == commits

    page = login(browser, space.url, "alice")
    page.set_viewport_size({"width": 1400, "height": 1000})
    # hostile input: a plain refusal in the page, nothing stored, nothing run in the page
    hostile = request_in(page, '<img src=x onerror="window.__xss=1">')
    assert hostile.startswith("Not requested: model: not a Hub model id"), hostile
    assert page.evaluate("window.__xss") is None
    sync_api.expect(page.locator("#request-msg")).to_have_class(re.compile(r"\bmsg-error\b"))
    assert len(hub.commits) == commits and not requests_in_record(hub)

    message = request_in(page, MODEL, preset_label="greedy decoding: temperature 0")
    assert message.startswith(f"Requested {MODEL} at revision "), message
    assert "up to 8 new tokens per item" in message and "licence apache-2.0" in message
    sync_api.expect(page.locator("#request-msg")).to_have_class(re.compile(r"\bmsg-ok\b"))
    (rid, request), *others = requests_in_record(hub).items()
    assert not others and request["status"] == "pending" and request["requester"] == "alice"
    assert request["revision"] == hub.head(MODEL, "model") and request["preset"] == "greedy"
    table = page.locator("#requests-table")
    sync_api.expect(table).to_contain_text(rid)
    sync_api.expect(table.get_by_role("row").filter(has_text=rid)).to_contain_text("pending")
    page.screenshot(path=str(shots / "1400-request-pending.png"), full_page=True)

    # the same model, revision and preset again: pointed to the first request
    again = request_in(page, MODEL, preset_label="greedy decoding: temperature 0")
    assert again.startswith("Not requested") and f"request {rid}, pending" in again, again

    # the operator's worker: transformers serve started for the request, every item answered
    work = tmp_path / "worker"
    done = run_worker(space, private_dir, work, hub, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"request {rid} finished: entries #" in done.stdout, done.stdout
    finished = requests_in_record(hub)[rid]
    assert finished["status"] == "finished" and finished["attempts"] == 1
    entry_ids = finished["entries"]
    assert len(entry_ids) == 15  # every combination of the four sources the operator holds
    engine_log = (work / "requests" / rid / "engine.log").read_text(encoding="utf-8")
    assert "Uvicorn running" in engine_log  # the engine's own output, kept for the operator

    # the numbers are those of `respondeoqa-eval score` on the worker's saved predictions
    predictions = work / "requests" / rid / "predictions.jsonl"
    rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len({r["id"] for r in rows}) > 1000
    assert all(r["usage"]["completion_tokens"] <= 8 for r in rows)
    report_path = tmp_path / "score.json"
    scored = subprocess.run(
        [sys.executable, "-m", "respondeoqa_eval.cli", "score", str(predictions),
         "--data-dir", str(private_dir), "--covered-only", "--report", str(report_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    cli_report = Report.from_dict(json.loads(report_path.read_text(encoding="utf-8")))
    # the worker asked the running Space to read the record (no restart): it does so at once
    wait_until(
        lambda: sum(r["Type"] == "verified" for r in board_rows(space)) == len(entry_ids),
        seconds=60,
        every=0.3,
    )
    store = Store(space.db)
    main_entry = store.get(entry_ids[0])
    assert main_entry is not None and main_entry.verified
    assert set(main_entry.sources) == {"certamen", "nle", "jun-schol", "lat-pros"}
    assert point_values(main_entry.report) == point_values(cli_report)
    assert main_entry.report.accuracy.overall.ci == cli_report.accuracy.overall.ci
    ev = main_entry.evaluation
    assert (ev.request, ev.model, ev.revision) == (rid, MODEL, request["revision"])
    assert (ev.engine, ev.endpoint, ev.preset, ev.temperature) == (
        "transformers", "started", "greedy", 0.0
    )  # fmt: skip
    assert ev.engine_version and ev.prompt_version == "paper-v1" and ev.max_new_tokens == 8
    assert ev.completion_tokens == sum(r["usage"]["completion_tokens"] for r in rows)
    assert main_entry.gold_fingerprint and main_entry.scored_with
    assert all(store.get(i).verified for i in entry_ids)

    # on the board, without a restart: verified rows on every coverage, the filter, the detail
    verified = [r for r in board_rows(space) if r["Type"] == "verified"]
    assert sorted(int(r["Entry"].lstrip("#")) for r in verified) == sorted(entry_ids)
    assert {r["Coverage"] for r in verified} >= {"all sources", "Latin Prosody", "Certamen"}
    assert any(r["Coverage"].startswith("public") for r in verified)
    only = httpx.get(space.url + "board", params={"verified": "1"}, timeout=30).text
    assert {r["Type"] for r in parse_board(only)[1]} == {"verified"}
    page.reload()
    open_page(page, "Board")
    all_coverages(page)
    verified_only(page)
    table = page.locator("#leaderboard-table")
    sync_api.expect(table).not_to_contain_text("reported in paper", use_inner_text=True)
    row = table.locator(f'tr[data-key="e:{entry_ids[0]}"]')
    sync_api.expect(row).to_contain_text("verified")
    row.locator("td").nth(1).click()
    meta = page.locator("#detail-meta")
    for field, value in (
        ("Evaluated by", "the leaderboard (verified)"),
        ("Request", rid),
        ("Model revision", request["revision"]),
        ("Engine", f"transformers {ev.engine_version}"),
        ("Sampling", "greedy (temperature 0)"),
        ("Prompt version", "paper-v1"),
        ("Runner version", ev.runner_version),
    ):
        cell = page.get_by_role("rowheader", name=field, exact=True)
        sync_api.expect(meta.get_by_role("row").filter(has=cell)).to_contain_text(
            value, timeout=30_000
        )
    print(meta.get_by_role("row").all_inner_texts())
    page.screenshot(path=str(shots / "1400-verified-board-detail.png"), full_page=True)

    # the requests list says finished, with the entries, to every visitor
    anon.reload()
    open_page(anon, "Request an evaluation")
    listed = anon.locator("#requests-table").get_by_role("row").filter(has_text=rid)
    sync_api.expect(listed).to_contain_text(f"finished: entry #{entry_ids[0]}")
    for width in (1400, 390):
        anon.set_viewport_size({"width": width, "height": 900})
        anon.screenshot(path=str(shots / f"{width}-requests-finished.png"), full_page=True)
    phone = browser.new_context(viewport={"width": 390, "height": 900}).new_page()
    phone.goto(space.url)
    verified_only(phone)
    sync_api.expect(phone.locator("#leaderboard-table")).to_contain_text(
        "verified", use_inner_text=True
    )
    phone.screenshot(path=str(shots / "390-verified-board.png"), full_page=True)

    # private gold went to the operator's engine only: never to the Space's log or the record
    assert SECRET_MARKER not in space.log_text()
    assert SECRET_MARKER not in json.dumps(requests_in_record(hub))


def test_the_request_message_is_whole_at_every_width(
    space: Server, browser, screenshot_dir: Path
) -> None:
    """Issue 29: the message after a request is read whole on a phone: filed at 1400 px and
    the window narrowed to 390 px (a Textbox kept its desktop height there and cut the text
    after two lines), filed at 390 px, and widened again."""
    shots = screenshot_dir / "issue29"
    shots.mkdir(parents=True, exist_ok=True)
    page = login(browser, space.url, "carol")
    page.set_viewport_size({"width": 1400, "height": 900})
    first = request_in(page, MODEL)
    assert first.startswith(f"Requested {MODEL} at revision ") and "pending" in first, first
    sync_api.expect(page.locator("#request-msg")).to_have_class(re.compile(r"\bmsg-ok\b"))
    assert_message_whole(page, "#request-msg", "filed at 1400")
    page.screenshot(path=str(shots / "1400-request-filed.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 900})
    assert_message_whole(page, "#request-msg", "filed at 1400, read at 390")
    page.screenshot(path=str(shots / "390-request-filed-at-1400.png"), full_page=True)

    second = request_in(page, MODEL, preset_label="greedy decoding: temperature 0")
    assert second.startswith(f"Requested {MODEL} at revision ") and second != first, second
    assert_message_whole(page, "#request-msg", "filed at 390")
    page.screenshot(path=str(shots / "390-request-filed.png"), full_page=True)
    # a third: refused (two waiting at most); the refusal replaces it, styled as one
    third = request_in(page, MODEL, preset_label="the paper's sampling: temperature 0.6")
    assert third.startswith("Not requested: you have 2 requests waiting"), third
    sync_api.expect(page.locator("#request-msg")).to_have_class(re.compile(r"\bmsg-error\b"))
    assert_message_whole(page, "#request-msg", "refused at 390")
    page.set_viewport_size({"width": 1400, "height": 900})
    assert_message_whole(page, "#request-msg", "refused at 390, read at 1400")
