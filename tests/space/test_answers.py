"""The answers page in a real browser (Debian chromium via playwright) against the real server:
an item row of Items opens its answers, Compare's disagreement rows open both entries' answers
on the item, an entry's detail opens its answers; the filters, the walk (links and arrow keys)
and the URL's choice work; hostile text stays text; nothing is cut or sticks out at 1400 and
390 px. Every response the browser receives is searched for every private string.
Screenshots go to $SCREENSHOT_DIR (default screenshots/)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import require
from gradio_client import Client

from .answerskit import FEET, FORMAT_FAILURES, SHORT, private_strings, two_entries
from .helpers import (
    assert_laid_out,
    compare_entries,
    file_records,
    open_page,
    submit,
    write_jsonl,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = require("playwright.sync_api")


def _entry_id(message: str) -> int:
    match = re.match(r"Stored as entry #(\d+):", message)
    assert match, message
    return int(match.group(1))


def _query(url: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def _position(page) -> str:
    return page.locator("#answers-pos").inner_text()


def _assert_whole(page, where: str) -> None:
    """The page laid out (nothing sticks out sideways, no word broken), and every entry's
    column inside the window."""
    assert_laid_out(page, where)
    width = page.evaluate("document.documentElement.clientWidth")
    for box in page.locator(".answer").all():
        right = box.bounding_box()
        assert right["x"] >= 0 and right["x"] + right["width"] <= width + 1, (where, right)
    # nothing inside an entry's column reaches past it (a long rule name, a long word)
    out = page.evaluate(
        """() => [...document.querySelectorAll(".answer")].flatMap((col) => {
            const edge = col.getBoundingClientRect().right;
            return [...col.querySelectorAll("*")]
                .filter((el) => [...el.getClientRects()].some((r) => r.right > edge + 1))
                .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${el.textContent.slice(0, 40)}`);
        })"""
    )
    assert out == [], (where, out)
    broken = page.evaluate(
        f"(s) => ({Path(__file__).parents[1].joinpath('kit', 'layout.js').read_text()})"
        ".brokenWords(s)",
        ".answer h3, .answer dt, .answer dd, .answers-facts, .answers-walk, .answers-form label",
    )
    assert broken == [], (where, broken)


def test_browser_answers(browser, server, private_gold, tmp_path: Path, screenshot_dir: Path):
    rows_a, rows_b, failures, hostile = two_entries(private_gold)
    client = Client(server.url, verbose=False)
    ids = []
    for name, rows in (("answers-a", rows_a), ("answers-b", rows_b)):
        message = submit(client, write_jsonl(tmp_path / f"{name}.jsonl", rows), name)[0]
        ids.append(_entry_id(message))
    a, b = ids
    short = file_records(private_gold, SHORT)
    in_order = [r.id for r in short if r.id in failures]
    disagreeing = len(in_order) + len(file_records(private_gold, FEET))  # A right, B wrong
    sent_b = {r["id"]: r["response"] for r in rows_b}
    secrets = [s.encode() for s in private_strings(private_gold)]
    shots = screenshot_dir / "answers"
    shots.mkdir(parents=True, exist_ok=True)

    for width, height in ((1400, 900), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        leaks: list[str] = []

        def check(response, leaks=leaks) -> None:
            try:
                body = response.body()
            except Exception:  # streamed or aborted responses have no body to read
                return
            leaks.extend(f"{response.url}: {s!r}" for s in secrets if s in body)

        page.on("response", check)

        # Items: an item row's question opens the item's answers
        page.goto(server.url + "items")
        search = page.locator("#items-table input[placeholder='Search...']")
        search.wait_for(timeout=60_000)
        item = in_order[1]
        search.fill(item)
        link = page.locator(f"#items-table [role=gridcell] a[href*='item={item}']").first
        sync_api.expect(link).to_be_visible(timeout=30_000)
        page.screenshot(path=str(shots / f"{width}-items.png"), full_page=True)
        link.click()
        page.wait_for_url(re.compile(r"/answers\?"), timeout=30_000)
        sync_api.expect(page.locator("#answers-item")).to_contain_text(item)
        # the address names the entries shown (the board's best, none having been chosen)
        page.wait_for_function("() => location.search.includes('entries=')")
        shown = _query(page.url)["entries"].split(",")
        assert 1 <= len(shown) <= 6 and page.locator(".answer").count() == len(shown)
        for column in page.locator(".answer").all():
            sync_api.expect(column).to_contain_text("Score")
            sync_api.expect(column).to_contain_text("Paper's answer")
        page.screenshot(path=str(shots / f"{width}-from-items.png"), full_page=True)
        _assert_whole(page, f"{width} from items")

        # Compare: a disagreement row opens both entries' answers on its item
        open_page(page, "Compare")
        compare_entries(page, [a, b])
        rows = page.locator("#disagreements [role=gridcell] a[href*='answers?item=']")
        sync_api.expect(rows.first).to_be_visible(timeout=60_000)
        page.screenshot(path=str(shots / f"{width}-compare.png"), full_page=True)
        target = _query(rows.first.get_attribute("href"))["item"]
        rows.first.click()
        page.wait_for_url(re.compile(r"/answers\?"), timeout=30_000)
        assert _query(page.url) == {"item": target, "entries": f"e:{a},e:{b}"}
        columns = page.locator(".answer")
        sync_api.expect(columns).to_have_count(2)
        sync_api.expect(columns.nth(0).locator("h3")).to_have_text(re.compile(rf"^#{a} "))
        sync_api.expect(columns.nth(1).locator("h3")).to_have_text(re.compile(rf"^#{b} "))
        # B's raw response exactly as it was sent, line breaks and all
        assert columns.nth(1).locator("pre.response").inner_text() == sent_b[target]
        page.screenshot(path=str(shots / f"{width}-from-compare.png"), full_page=True)
        _assert_whole(page, f"{width} from compare")

        # the filters: the format failures of the short answers, then every disagreement
        page.locator("select[name=task]").select_option("short_answer")
        page.wait_for_url(re.compile(r"task=short_answer"), timeout=30_000)
        page.locator("select[name=filter]").select_option("format")
        page.wait_for_url(re.compile(r"filter=format"), timeout=30_000)
        assert _position(page) == f"Item 1 of {FORMAT_FAILURES}"
        assert _query(page.url)["item"] == in_order[0]
        sync_api.expect(columns.nth(1)).to_contain_text("the format cost points")
        sync_api.expect(columns.nth(1)).to_contain_text("nothing its rules could read")
        page.locator(".answers-walk a[rel=next]").first.click()
        page.wait_for_url(re.compile(f"item={re.escape(in_order[1])}"), timeout=30_000)
        assert _position(page) == f"Item 2 of {FORMAT_FAILURES}"
        page.keyboard.press("ArrowRight")
        page.wait_for_url(re.compile(f"item={re.escape(in_order[2])}"), timeout=30_000)
        page.keyboard.press("ArrowLeft")
        page.wait_for_url(re.compile(f"item={re.escape(in_order[1])}"), timeout=30_000)
        # a link keeps every choice: opened afresh, the same view
        kept = page.url
        page.goto(kept)
        assert page.url == kept and _position(page) == f"Item 2 of {FORMAT_FAILURES}"
        page.screenshot(path=str(shots / f"{width}-format-filter.png"), full_page=True)
        _assert_whole(page, f"{width} format filter")
        page.locator("select[name=task]").select_option("")
        page.wait_for_url(lambda url: "task=" not in url, timeout=30_000)
        page.locator("select[name=filter]").select_option("disagree")
        page.wait_for_url(re.compile(r"filter=disagree"), timeout=30_000)
        assert re.fullmatch(rf"Item \d+ of {disagreeing}", _position(page)), _position(page)

        # hostile text stays text; a long response is folded, its last lines shown
        page.goto(f"{server.url}answers?entries=e:{a}&item={hostile}")
        response = page.locator(".answer pre.response").last
        assert "<script>window.__x=1</script>" in (response.text_content() or "")
        assert page.evaluate("() => window.__x") is None
        sync_api.expect(page.locator(".answer .ctl").first).to_have_text("U+202E")
        whole = page.locator(".answer details.response-whole")
        sync_api.expect(whole.locator("pre")).to_be_hidden()
        whole.locator("summary").click()
        sync_api.expect(whole.locator("pre")).to_be_visible()
        page.screenshot(path=str(shots / f"{width}-hostile.png"), full_page=True)
        _assert_whole(page, f"{width} hostile")

        # an entry's detail links to its answers
        page.goto(f"{server.url}?entry=e:{a}")
        detail_link = page.locator("#entry-detail .detail-answers a")
        sync_api.expect(detail_link).to_be_visible(timeout=30_000)
        detail_link.click()
        page.wait_for_url(re.compile(r"/answers\?"), timeout=30_000)
        assert _query(page.url)["entries"] == f"e:{a}"
        sync_api.expect(page.locator(".answer")).to_have_count(1)
        page.screenshot(path=str(shots / f"{width}-from-detail.png"), full_page=True)
        _assert_whole(page, f"{width} from detail")

        # a private item is not shown: the same page as an unknown item
        private = next(r for r in private_gold.records if r.is_private)
        for asked in (private.id, "no-such-item"):
            reply = page.goto(f"{server.url}answers?entries=e:{a}&item={asked}")
            assert reply is not None and reply.status == 404
            sync_api.expect(page.locator(".answers-empty")).to_have_text(
                "No such public item (Certamen and NLE items are never shown)."
            )
        page.close()
        assert leaks == [], leaks
