"""A board longer than a page, on the real server (issue 40): search over HTTP and in chromium
finds an entry ranked beyond the first page of its coverage, with its rank; the pager reaches
it; the Compare picker finds it by typing; every download is sent compressed when the client
accepts it (real HTTP client, raw bytes decompressed here), with Vary: Accept-Encoding.

The store holds 450 entries made from thirty really scored files (tests/kit/scale_store.py):
the default coverage has more rows than a board page (BOARD_MAX_ROWS)."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import brotli
import httpx
import pytest
from conftest import require
from kit.scale_store import fill, score_pool
from kit.space_server import start_server
from respondeoqa_space.readmodel import BOARD_MAX_ROWS

from .helpers import open_page, parse_board

pytestmark = pytest.mark.slow

MOST = "most entries"
ENTRIES = 450


@pytest.fixture(scope="module")
def long_board(public_dir, public_gold, tmp_path_factory: pytest.TempPathFactory):
    """The server on a store whose default coverage is longer than a board page."""
    work = tmp_path_factory.mktemp("long-board")
    pool = work / "pool.sqlite3"
    score_pool(pool, public_gold, work / "files", 30, bootstrap=100, every=10)
    fill(work / "space" / "leaderboard.sqlite3", pool, ENTRIES)
    srv = start_server(public_dir, work / "space")
    yield srv
    srv.stop()


def _ranking(url: str) -> list[dict[str, str]]:
    """The default coverage's rows, best first, as its CSV has them."""
    text = httpx.get(url + "board.csv", params={"coverage": MOST}, timeout=120).text
    return list(csv.DictReader(io.StringIO(text)))


def _deep(rows: list[dict[str, str]]) -> dict[str, str]:
    """A row ranked beyond the first page (entries made from one scored file share its scores,
    and so its rank: the first of a tie ranked after BOARD_MAX_ROWS)."""
    return next(r for r in rows if int(r["Rank"]) > BOARD_MAX_ROWS)


def test_search_and_pages_reach_an_entry_beyond_the_first_page(long_board) -> None:
    url = long_board.url
    rows = _ranking(url)
    assert len(rows) > BOARD_MAX_ROWS
    deep = _deep(rows)
    assert int(deep["Rank"]) > BOARD_MAX_ROWS
    first = parse_board(httpx.get(url + "board", timeout=120).text)[1]
    assert len(first) == BOARD_MAX_ROWS and deep["Model"] not in {r["Model"] for r in first}
    for query in (deep["Model"], deep["Entry"]):  # its name; its number ("#123")
        html = httpx.get(url + "board", params={"q": query}, timeout=120).text
        found = [r for r in parse_board(html)[1] if r["Model"] == deep["Model"]]
        assert found and found[0]["Rank"] == deep["Rank"], (query, found)
        assert found[0]["Entry"] == deep["Entry"]
    # the second page: the rows after the first BOARD_MAX_ROWS, in order
    second = httpx.get(url + "board", params={"page": "2"}, timeout=120).text
    got = [r["Model"] for r in parse_board(second)[1]]
    assert got == [r["Model"] for r in rows[BOARD_MAX_ROWS : 2 * BOARD_MAX_ROWS]]
    assert deep["Model"] in got


DOWNLOADS = ("board.csv?coverage=all+coverages", "entry.csv?entry=e:1", "example.jsonl")


def _raw(url: str, encoding: str) -> httpx.Response:
    with httpx.stream("GET", url, headers={"Accept-Encoding": encoding}, timeout=300) as resp:
        resp.raw_bytes = b"".join(resp.iter_raw())  # type: ignore[attr-defined]  # as sent
        return resp


@pytest.mark.parametrize("route", [*DOWNLOADS, "item_analysis.csv"])
def test_downloads_are_sent_compressed(long_board, route: str) -> None:
    url = long_board.url + route
    if route == "item_analysis.csv":  # made in the background: asked until it is there
        for _ in range(20):
            if httpx.get(url, timeout=300).status_code == 200:
                break
        plain = _raw(url, "identity")
        assert plain.status_code == 200
        assert plain.headers["last-modified"].endswith(" GMT")
        assert int(plain.headers["x-analysis-age"]) >= 0
    plain = _raw(url, "identity")
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    body = plain.raw_bytes  # type: ignore[attr-defined]
    assert len(body) > 10_000
    for encoding, decode in (("gzip", gzip.decompress), ("br", brotli.decompress)):
        resp = _raw(url, encoding)
        assert resp.headers["content-encoding"] == encoding, resp.headers
        assert "accept-encoding" in resp.headers["vary"].lower()
        assert "attachment" in resp.headers["content-disposition"]
        sent = resp.raw_bytes  # type: ignore[attr-defined]
        assert int(resp.headers["content-length"]) == len(sent) < len(body) / 3
        assert decode(sent) == body
    # and an ordinary client (httpx decodes what it asked for) reads the same file
    assert httpx.get(url, timeout=300).content == body


@pytest.mark.browser
@pytest.mark.parametrize("width,height", [(1400, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_page_finds_and_pages_to_an_entry_beyond_the_first_page(
    browser, long_board, screenshot_dir: Path, width: int, height: int
) -> None:
    sync_api = require("playwright.sync_api")
    shots = screenshot_dir / "scale"
    shots.mkdir(parents=True, exist_ok=True)
    deep = _deep(_ranking(long_board.url))
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(long_board.url)
        table = page.locator("#leaderboard-table")
        rows = table.locator("tbody tr[data-key]")
        sync_api.expect(rows.first).to_be_visible(timeout=60_000)
        assert rows.filter(has_text=deep["Model"]).count() == 0  # not on the first page

        # search: typed, it reaches every row of the coverage, the match with its rank
        search = table.get_by_placeholder("Search")
        search.press_sequentially(deep["Model"], delay=20)
        mine = table.locator(f'tbody tr[data-key="e:{deep["Entry"][1:]}"]')
        sync_api.expect(mine).to_be_visible(timeout=30_000)
        sync_api.expect(mine.locator("td").first).to_contain_text(deep["Rank"])
        sync_api.expect(table.locator(".board-caption")).to_contain_text("1 of ")
        page.screenshot(path=str(shots / f"{width}-search.png"), full_page=True)
        search.fill("")  # cleared: the board's first page again
        sync_api.expect(rows).to_have_count(BOARD_MAX_ROWS, timeout=30_000)

        # the pager: the next page holds it
        table.locator(".board-pager button", has_text="Next").first.click()
        sync_api.expect(table.locator(".board-rows").first).to_contain_text(
            f"Rows {BOARD_MAX_ROWS + 1}\u2013", timeout=30_000
        )
        sync_api.expect(mine).to_be_visible()
        assert mine.locator("td").first.inner_text().startswith(deep["Rank"])
        page.screenshot(path=str(shots / f"{width}-page-2.png"), full_page=True)
        # a row click on the second page shows that entry's detail
        mine.locator("td").nth(1).click()
        sync_api.expect(page.locator("#entry-detail")).to_contain_text(
            deep["Model"], timeout=30_000
        )

        # the Compare picker: typing finds it (its first choices are the first page's rows)
        open_page(page, "Compare")
        pick = page.locator("#compare-pick input").first
        pick.click()
        options = page.get_by_role("option")
        sync_api.expect(options.first).to_be_visible(timeout=30_000)  # the page's choices
        mine_option = options.filter(has_text=f"{deep['Entry']} {deep['Model']} \u00b7")
        assert mine_option.count() == 0
        pick.press_sequentially(deep["Model"], delay=20)
        found = mine_option
        sync_api.expect(found).to_have_count(1, timeout=30_000)
        page.screenshot(path=str(shots / f"{width}-compare-typed.png"), full_page=True)
        found.click()
        sync_api.expect(page.locator("#compare-pick .token")).to_contain_text(deep["Model"])
        assert not errors, errors
    finally:
        page.close()
