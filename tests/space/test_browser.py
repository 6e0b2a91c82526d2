"""A real browser (Debian chromium via playwright) against the real server.

Upload a file, see the new row with the right score, switch the breakdown view, compare two
entries and see the charts; a hostile model name stays text and runs no script. Screenshots go
to $SCREENSHOT_DIR (default screenshots/). Every response the browser receives is searched for
the private gold marker.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from conftest import require, require_chromium
from gradio_client import Client

from .conftest import SECRET_MARKER
from .helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    file_records,
    k_correct_predictions,
    submit,
    write_jsonl,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = require("playwright.sync_api")

HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
SHORT = "junior_scholarship_short_answer.json"


@pytest.fixture(scope="module")
def browser():
    executable = require_chromium(CHROMIUM)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)
        yield b
        b.close()


def entry_id(message: str) -> str:
    match = re.match(r"Stored as entry #(\d+):", message)
    assert match, message
    return match.group(1)


def test_browser_submit_view_compare_escape(
    browser, server, public_gold, tmp_path: Path, screenshot_dir: Path
) -> None:
    records = file_records(public_gold, SHORT)
    rows, k = k_correct_predictions(records, 123)
    n = sum(r.task != "translation" for r in records)
    expected = f"{100 * k / n:.2f}"  # 123 of 675 short answers right: 18.22
    upload = write_jsonl(tmp_path / "browser-preds.jsonl", rows)
    # a second scored entry to compare with, submitted by another client
    base_rows, _ = k_correct_predictions(records, 400)
    base_msg = submit(
        Client(server.url, verbose=False),
        write_jsonl(tmp_path / "base.jsonl", base_rows),
        "browser-baseline",
    )[0]
    base_id = entry_id(base_msg)

    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    leaks: list[str] = []

    def check(response) -> None:
        try:
            body = response.body()
        except Exception:  # streamed or aborted responses have no body to read
            return
        if SECRET_MARKER.encode() in body:
            leaks.append(response.url)

    page.on("response", check)
    page.goto(server.url, wait_until="networkidle")
    table = page.locator("#leaderboard-table")
    sync_api.expect(table).to_contain_text("LLaMa 3.3 70B", timeout=30_000)
    sync_api.expect(table).to_contain_text("reported in paper")
    page.screenshot(path=str(screenshot_dir / "01-leaderboard.png"), full_page=True)

    page.get_by_role("tab", name="Submit").click()
    page.locator("#upload input[type=file]").set_input_files(str(upload))
    page.locator("#model textarea, #model input").first.fill(HOSTILE)
    page.locator("#link textarea, #link input").first.fill("https://example.org/hostile")
    sync_api.expect(page.locator("#upload")).to_contain_text(re.compile(r"browser-preds\W*jsonl"))
    page.locator("#submit-btn").click()
    result = page.locator("#submit-msg textarea")
    sync_api.expect(result).to_have_value(re.compile(r"^Stored as entry #\d+"), timeout=90_000)
    message = result.input_value()
    assert f"{expected}%" in message and HOSTILE in message  # shown as text in a textbox
    sync_api.expect(page.locator("#breakdown")).to_contain_text("Content type")
    page.screenshot(path=str(screenshot_dir / "02-submitted.png"), full_page=True)
    my_id = entry_id(message)

    page.get_by_role("tab", name="Leaderboard").click()
    row = table.get_by_role("row").filter(has_text=f"#{my_id}")
    sync_api.expect(row).to_contain_text(HOSTILE)
    sync_api.expect(row).to_contain_text(expected)
    sync_api.expect(row).to_contain_text("https://example.org/hostile")
    page.screenshot(path=str(screenshot_dir / "03-new-row.png"), full_page=True)

    with page.expect_download() as download:
        page.locator("#csv").click()
    csv_text = Path(download.value.path()).read_text(encoding="utf-8")
    assert SECRET_MARKER not in csv_text
    csv_rows = {r["Entry"]: r for r in csv.DictReader(io.StringIO(csv_text))}
    assert csv_rows[f"#{my_id}"]["Model"] == HOSTILE
    assert float(csv_rows[f"#{my_id}"]["Overall"]) == float(expected)

    search = page.locator("#leaderboard-table").get_by_placeholder("Search")
    search.fill("browser-baseline")
    sync_api.expect(table).not_to_contain_text("LLaMa 3.3 70B", timeout=10_000)
    sync_api.expect(table).to_contain_text("browser-baseline")
    search.fill("")
    sync_api.expect(table).to_contain_text("LLaMa 3.3 70B", timeout=10_000)

    page.locator("#view").get_by_text("Content type", exact=True).click()
    sync_api.expect(table).to_contain_text("Literary devices", timeout=20_000)
    sync_api.expect(table.get_by_role("row").filter(has_text=f"#{my_id}")).to_contain_text(HOSTILE)
    page.locator("#view").get_by_text("Language pair", exact=True).click()
    sync_api.expect(table).to_contain_text("Latin \u2192 English", timeout=20_000)
    page.screenshot(path=str(screenshot_dir / "04-language-pair-view.png"), full_page=True)

    page.get_by_role("tab", name="Compare").click()
    pick = page.locator("#compare-pick input").first
    for ident in (my_id, base_id):
        pick.click()
        pick.fill(f"#{ident} ")
        page.get_by_role("option").filter(has_text=f"#{ident} ").first.click()
    page.locator("#compare-btn").click()
    sync_api.expect(page.locator("#compare-msg textarea")).to_have_value(
        re.compile(rf"^A = #{my_id} "), timeout=60_000
    )
    bars = page.locator("#plot-content .js-plotly-plot g.trace.bars")
    sync_api.expect(bars).to_have_count(2, timeout=30_000)
    sync_api.expect(page.locator("#plot-diff .js-plotly-plot")).to_have_count(1)
    legend = page.locator("#plot-content .legendtext").first
    sync_api.expect(legend).to_contain_text("<img src=x")  # the escaped name, as text
    sync_api.expect(page.locator("#disagreements")).to_contain_text("zzqqxx")
    page.screenshot(path=str(screenshot_dir / "05-compare.png"), full_page=True)

    # the hostile name never became markup anywhere on the page
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script", has_text="window.__xss").count() == 0
    assert dialogs == []
    assert leaks == []
    page.close()
