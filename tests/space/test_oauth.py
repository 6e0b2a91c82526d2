"""Logins on a Space (`hf_oauth: true`): a real Gradio server on Gradio's Space code path
(SYSTEM=spaces, OAUTH_* and OPENID_PROVIDER_URL as the Hub sets them), authlib's real OpenID
Connect code flow against a loopback provider (oidcstub.py: login form, code, signed ID token,
JWKS), and real chromium sessions logging in as two users from one address.

What is not the Hub: the provider (a stub of the OpenID endpoints Gradio uses) and plain http
on 127.0.0.1 (the Space runs behind https; chromium accepts the Secure session cookie on loopback).

Covered: not logged in -> refused with a message to log in (browser and API); two users behind
one address each get their own daily quota; the board and the entry detail show the username;
a user withdraws their own entry (gone from the board, the API, Compare and the CSV; audit row;
outbox delete pending) and cannot withdraw another's. Off a Space: no login, no withdraw control.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import require
from gradio_client import Client
from kit.oidcstub import OidcStub
from kit.space_server import Server, start_server
from respondeoqa_space.config import SpaceConfig
from respondeoqa_space.store import Store
from respondeoqa_space.store import entry_path as hub_path

from .helpers import (
    board_rows,
    choose,
    file_records,
    k_correct_predictions,
    message_after,
    open_page,
    write_jsonl,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = require("playwright.sync_api")

SHORT = "junior_scholarship_short_answer.json"


@pytest.fixture(scope="module")
def oauth_server(private_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A Space with OAuth on, one stored submission per user and day, behind no proxy."""
    with OidcStub() as stub:
        env = {**stub.env, "RESPONDEOQA_SPACE_DAILY": "1", "RESPONDEOQA_SPACE_TRUSTED_PROXIES": "0"}
        srv = start_server(private_dir, tmp_path_factory.mktemp("oauth-space"), env_extra=env)
        srv.provider = stub.provider  # type: ignore[attr-defined]
        yield srv
        srv.stop()


def open_submit(page) -> None:
    open_page(page, "Submit")
    sync_api.expect(page.locator("#submit-btn")).to_be_visible()


def login(browser, url: str, username: str):
    """A fresh browser session that logs in through the login button and the provider's form."""
    page = browser.new_context().new_page()
    page.goto(url)
    open_submit(page)
    page.locator("#login").click()
    page.wait_for_url("**/oauth/authorize**", timeout=30_000)
    page.fill("#username", username)
    page.click("#signin")
    page.wait_for_url(url + "**", timeout=30_000)
    open_submit(page)
    sync_api.expect(page.locator("#login")).to_contain_text(username, timeout=30_000)
    return page


def submit_in(page, path: Path, model: str) -> str:
    page.reload()  # an empty upload field (the session cookie keeps the login)
    open_submit(page)
    page.locator("#upload input[type=file]").set_input_files(str(path))
    page.locator("#model textarea, #model input").first.fill(model)
    sync_api.expect(page.locator("#upload")).to_contain_text(path.stem)
    message = message_after(page, "#submit-btn", "#submit-msg")
    assert re.match(r"^(Stored|Not accepted)", message), message
    return message


def withdraw_in(page, entry: str) -> str:
    open_submit(page)
    page.locator("#withdraw-id textarea, #withdraw-id input").first.fill(entry)
    return message_after(page, "#withdraw-btn", "#withdraw-msg")


def entry_of(message: str) -> int:
    match = re.match(r"Stored as entry #(\d+):", message)
    assert match, message
    return int(match.group(1))


def test_login_quota_submitter_withdraw(
    oauth_server: Server, browser, public_gold, tmp_path: Path, screenshot_dir: Path
) -> None:
    url = oauth_server.url
    records = file_records(public_gold, SHORT)
    files = [
        write_jsonl(tmp_path / f"preds-{k}.jsonl", k_correct_predictions(records, k)[0])
        for k in (50, 60, 70)
    ]

    # not logged in: the page offers a login and refuses to score
    anon = browser.new_context().new_page()
    anon.goto(url)
    open_submit(anon)
    sync_api.expect(anon.locator("#login")).to_contain_text("Sign in")
    message = submit_in(anon, files[0], "anonymous-model")
    assert message.startswith("Not accepted") and "log in with Hugging Face" in message
    assert "msg-error" in (anon.locator("#submit-msg").get_attribute("class") or "")
    assert withdraw_in(anon, "1").startswith("Not withdrawn: log in with Hugging Face")
    # the API as well: no session, no entry
    api = Client(url, verbose=False)
    from gradio_client import handle_file

    refused = api.predict([handle_file(str(files[0]))], "api-model", "", "", "", api_name="/submit")
    assert refused[0].startswith("Not accepted") and "log in" in refused[0]
    assert Store(oauth_server.db).count() == 0

    # two users from one address (127.0.0.1): one stored submission a day each
    alice = login(browser, url, "alice")
    alice_id = entry_of(submit_in(alice, files[0], "alice-model"))
    again = submit_in(alice, files[1], "alice-second")
    assert again.startswith("Not accepted: daily limit") and "per Hugging Face user" in again
    bob = login(browser, url, "bob")
    bob_id = entry_of(submit_in(bob, files[1], "bob-model"))
    assert oauth_server.provider.logins == ["alice", "bob"]  # type: ignore[attr-defined]
    store = Store(oauth_server.db)
    assert {e.id: e.submitter for e in store.entries()} == {alice_id: "alice", bob_id: "bob"}

    # the board shows who submitted, and so does the entry detail
    open_page(bob, "Board")
    table = bob.locator("#leaderboard-table")
    sync_api.expect(table.locator("th")).to_contain_text(["Submitter"], timeout=30_000)
    # two entries: the default coverage is still the paper's (three rows); theirs is picked
    choose(bob, "coverage", "Junior Scholarship")
    row = table.get_by_role("row").filter(has_text=f"#{alice_id}")
    sync_api.expect(row).to_contain_text("alice")
    sync_api.expect(row).to_contain_text("alice-model")
    row.locator("td").nth(1).click()  # the entry detail of the clicked row
    sync_api.expect(bob.locator("#entry-detail .detail-msg")).to_have_text(
        re.compile(rf"^Entry #{alice_id}"), timeout=30_000
    )
    meta = bob.locator("#detail-meta")
    sync_api.expect(meta).to_contain_text("Submitter", timeout=30_000)
    sync_api.expect(meta.get_by_role("row").filter(has_text="Submitter")).to_contain_text("alice")
    bob.screenshot(path=str(screenshot_dir / "oauth-submitter.png"), full_page=True)

    # bob cannot withdraw alice's entry
    refused_msg = withdraw_in(bob, f"#{alice_id}")
    assert refused_msg.startswith("Not withdrawn") and "not one of your entries" in refused_msg
    assert "msg-error" in (bob.locator("#withdraw-msg").get_attribute("class") or "")
    assert store.get(alice_id) is not None

    # alice withdraws hers
    done = withdraw_in(alice, f"#{alice_id}")
    assert done.startswith(f"Entry #{alice_id} (alice-model) was withdrawn"), done
    assert "msg-ok" in (alice.locator("#withdraw-msg").get_attribute("class") or "")
    alice.screenshot(path=str(screenshot_dir / "oauth-withdrawn.png"), full_page=True)
    open_page(alice, "Board")
    board = alice.locator("#leaderboard-table")
    choose(alice, "coverage", "Junior Scholarship")  # one entry left: not the default coverage
    sync_api.expect(board).to_contain_text("bob-model")
    sync_api.expect(board).not_to_contain_text("alice-model")

    assert store.get(alice_id) is None
    assert hub_path(_sha(files[0])) in store.pending_deletes()
    audit = [(actor, action, entry) for _ts, actor, action, entry, _d in store.audit_log()]
    assert ("hf:alice", "withdraw", alice_id) in audit
    assert not any(action == "withdraw" and entry == bob_id for _a, action, entry in audit)

    # gone from the API, Compare and the CSV as any visitor sees them
    board_value = api.predict("Overview", "all coverages", api_name="/leaderboard")
    models = [r["Model"] for r in board_rows(board_value)]
    assert "bob-model" in models and "alice-model" not in models
    csv_text = httpx.get(
        url + "board.csv", params={"view": "Overview", "coverage": "all coverages"}, timeout=30
    ).text
    assert "bob-model" in csv_text and "alice-model" not in csv_text
    assert [r["Submitter"] for r in csv.DictReader(io.StringIO(csv_text)) if r["Submitter"]] == [
        "bob"
    ]
    message, *_ = api.predict([f"e:{alice_id}", f"e:{bob_id}"], api_name="/compare")
    assert message.startswith("Pick two or more"), message  # the withdrawn one is unknown now
    # the page's data as a fresh visitor loads it holds no trace of the withdrawn entry
    page_config = httpx.get(url + "config", timeout=30).text
    assert "alice-model" not in page_config


def _sha(path: Path) -> str:
    from respondeoqa_space.store import sha256_bytes

    return sha256_bytes(path.read_bytes())


def test_off_a_space_no_login_needed(server: Server) -> None:
    """The session's local server (no SPACE_ID, no OAuth app): no login button, no withdraw
    control, Gradio's login routes absent; submitting works by address (test_e2e_client)."""
    config = httpx.get(server.url + "config", timeout=30).json()
    elem_ids = {c.get("props", {}).get("elem_id") for c in config["components"]}
    assert "upload" in elem_ids and "submit-btn" in elem_ids
    assert not elem_ids & {"login", "withdraw-btn", "withdraw-id"}
    assert httpx.get(server.url + "login/huggingface", timeout=30).status_code == 404


def test_oauth_setting_needs_a_space_and_an_oauth_app() -> None:
    assert not SpaceConfig.from_env({}).oauth
    assert not SpaceConfig.from_env({"OAUTH_CLIENT_ID": "x"}).oauth  # no Space: no login
    assert not SpaceConfig.from_env({"SPACE_ID": "o/s"}).oauth  # hf_oauth off on the Space
    assert SpaceConfig.from_env({"SPACE_ID": "o/s", "OAUTH_CLIENT_ID": "x"}).oauth
