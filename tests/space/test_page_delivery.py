"""How the pages reach a browser, on the real Space (web/board_page.py, web/pagecache.py): the
main page is the board's own HTML with the board in it, one copy per data version for every
visitor whatever cookies they carry, compressed, and a new entry is in the next page at once;
Gradio's pages beside it are kept and compressed too; a browser loading the main page asks the
server for nothing else (no Gradio frontend, no board fetch) unless its tab picked another
table, and then for that table once.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urljoin

import brotli
import httpx
import pytest
from conftest import require
from kit.net import free_port
from respondeoqa_space.config import SpaceConfig
from respondeoqa_space.service import Space
from respondeoqa_space.web.app import launch
from respondeoqa_space.web.pagecache import PageCache

from .helpers import file_records, k_correct_predictions, parse_board, stored

# what Debian's chromium sends with a page request (the encodings are what matter here)
CHROME = {
    "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/140.0.0.0 Safari/537.36",
    "accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "accept-encoding": "gzip, deflate, br, zstd",
    "accept-language": "en-US,en;q=0.9",
}
IDENTITY = {**CHROME, "accept-encoding": "identity"}
SHORT = "junior_scholarship_short_answer.json"


def _visitor_cookies(n: int) -> dict[str, str]:
    return {
        "_ga": f"GA1.1.{1000 + n}.1700000000",
        "theme": "dark" if n % 2 else "light",
        "spaces-session": f"visitor-{n}",
    }


def _page_cache(app) -> PageCache:
    """The PageCache in the running app's middleware stack."""
    node = app.middleware_stack
    while node is not None and not isinstance(node, PageCache):
        node = getattr(node, "app", None)
    assert node is not None, "the Space runs without its page cache"
    return node


def _raw(url: str, headers: dict[str, str], cookies: dict[str, str] | None = None):
    """An answer and its body as sent (not decoded)."""
    with httpx.Client(cookies=cookies, timeout=60) as http:
        with http.stream("GET", url, headers=headers) as resp:
            assert resp.status_code == 200, (url, resp.status_code)
            return resp, b"".join(resp.iter_raw())


def test_one_compressed_page_per_data_version(public_gold, tmp_path: Path) -> None:
    config = SpaceConfig.from_env(
        {}, db=tmp_path / "lb.sqlite3", gold=public_gold, host="127.0.0.1", port=free_port()
    )
    space = Space(config)
    demo = launch(space, prevent_thread_lock=True)
    url = f"http://127.0.0.1:{config.port}/"
    try:
        plain = httpx.get(url, headers=IDENTITY, timeout=60)
        assert plain.status_code == 200 and "content-encoding" not in plain.headers
        assert plain.headers["content-type"].startswith("text/html")
        # the board is in the page: the paper's rows, the pickers, the entry detail's form
        _, rows = parse_board(plain.text)
        assert "LLaMa 3.3 70B" in [r["Model"] for r in rows]
        assert 'select data-board="view"' in plain.text and 'id="detail-pick"' in plain.text
        # nothing else to fetch: no script, stylesheet or config from elsewhere
        assert not re.search(r"<script[^>]* src=|<link[^>]* rel=\"stylesheet\"", plain.text)
        assert "gradio_config" not in plain.text
        pages = set()
        for n in range(6):  # first visits, each with its own cookie jar
            resp, body = _raw(url, CHROME, _visitor_cookies(n))
            assert resp.headers["content-encoding"] == "br", resp.headers
            assert "accept-encoding" in resp.headers["vary"].lower()
            assert "set-cookie" not in resp.headers
            assert int(resp.headers["content-length"]) == len(body)
            pages.add(brotli.decompress(body))
        assert pages == {plain.content}
        assert len(body) * 3 < len(plain.content)
        kept = demo.server.running_app.state.board_page._kept
        assert httpx.get(url + "?entry=e:1", timeout=60).content == plain.content  # the same
        assert demo.server.running_app.state.board_page._kept is kept  # rendered once

        # a new entry: the next page is a new one (a new data version), and its board knows it
        # (its coverage is a choice; the default coverage still holds the paper's three rows)
        assert '<option value="Junior Scholarship"' not in plain.text
        records = file_records(public_gold, SHORT)
        rows_in, _ = k_correct_predictions(records, 100)
        stored(space.intake, tmp_path, rows_in, "delivery model")
        fresh = httpx.get(url, headers=CHROME, timeout=60)
        assert demo.server.running_app.state.board_page._kept is not kept
        assert '<option value="Junior Scholarship"' in fresh.text

        # Gradio's pages beside it: kept once for visitors with their own cookies, compressed
        cache = _page_cache(demo.server.running_app)
        compare = url + "compare"
        want = httpx.get(compare, headers=IDENTITY, timeout=60)
        assert want.status_code == 200 and "gradio_config" in want.text
        for n in range(3):
            resp, body = _raw(compare, CHROME, _visitor_cookies(n))
            assert resp.headers["content-encoding"] == "br"
            assert brotli.decompress(body) == want.content
        assert len([k for k in cache._kept.keys() if k[0] == "/compare"]) == 1
        # Gradio's own user cookie is another key (the page carries the user)
        cookie = f"access-token-unsecure-{demo.app.cookie_id}"
        _raw(compare, CHROME, {**_visitor_cookies(0), cookie: "t"})
        assert len([k for k in cache._kept.keys() if k[0] == "/compare"]) == 2
        # its script and stylesheet (Gradio's build) and the board a picker fetches
        refs = re.findall(
            r'<script[^>]* src="([^"]+)"|<link rel="stylesheet"[^>]* href="([^"]+)"', want.text
        )
        refs = [a or b for a, b in refs]
        assert any(r.endswith(".js") for r in refs) and any(r.endswith(".css") for r in refs)
        for ref in [*refs, "board?view=Overview"]:
            part = urljoin(url, ref)
            plain_part = httpx.get(part, headers=IDENTITY, timeout=60)
            assert plain_part.status_code == 200 and "content-encoding" not in plain_part.headers
            for _ in range(2):  # the first answer is kept, the second comes from memory
                resp, body = _raw(part, CHROME)
                assert resp.headers["content-encoding"] == "br", (ref, resp.headers)
                assert brotli.decompress(body) == plain_part.content, ref
    finally:
        demo.close()
        space.close()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("picked", [False, True], ids=["defaults", "tab-picked"])
def test_a_page_load_asks_for_nothing_else(browser, server, picked: bool) -> None:
    sync_api = require("playwright.sync_api")
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    try:
        if picked:  # this tab picked another breakdown on an earlier page load
            page.goto(server.url)
            page.evaluate(
                "sessionStorage.setItem('respondeoqa-board', "
                "JSON.stringify({view: 'Content type', coverage: 'all coverages'}))"
            )
            asked.clear()
        page.goto(server.url)
        rows = page.locator("#leaderboard-table tbody tr[data-key]")
        sync_api.expect(rows.first).to_be_visible(timeout=60_000)
        if picked:
            heading = page.locator('#leaderboard-table th[data-name="Literary devices"]')
            sync_api.expect(heading).to_have_count(1, timeout=30_000)
            assert page.locator('select[data-board="view"]').input_value() == "Content type"
        page.wait_for_load_state("networkidle")
        boards = [u for u in asked if "/board?" in u]
        assert asked[0] == server.url and len(boards) == (1 if picked else 0), asked
        assert len(asked) == 1 + len(boards), asked  # no Gradio frontend, config or API call
        assert not errors, errors
    finally:
        context.close()
