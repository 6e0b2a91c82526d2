"""How the page reaches a browser, on the real Space (web/pagecache.py, static/): visitors who
carry cookies of their own (analytics, the Hub's, a theme) share one rendering of the page; the
page, Gradio's frontend files and the board go out compressed and decode to what Gradio serves
uncompressed; and a browser fetches the board once per page load, whether the page's head
started the fetch (board_prefetch.js) or the board's script had to.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urljoin

import brotli
import httpx
import pytest
from conftest import require
from kit.net import free_port
from respondeoqa_eval.space.config import SpaceConfig
from respondeoqa_eval.space.service import Space
from respondeoqa_eval.space.web.app import launch, prefetch_script
from respondeoqa_eval.space.web.pagecache import PageCache

# what Debian's chromium sends with a page request (the encodings are what matter here)
CHROME = {
    "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/140.0.0.0 Safari/537.36",
    "accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "accept-encoding": "gzip, deflate, br, zstd",
    "accept-language": "en-US,en;q=0.9",
}
IDENTITY = {**CHROME, "accept-encoding": "identity"}
HEAD_SCRIPT = re.compile(r'"head":"\\u003cscript\\u003e(?:[^"\\]|\\.)*"')  # in the config JSON


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


def _refs(page: str) -> list[str]:
    """The scripts and stylesheets the page's HTML names."""
    return re.findall(
        r'<script[^>]* src="([^"]+)"|<link rel="stylesheet"[^>]* href="([^"]+)"', page
    )


def test_visitors_share_one_page_and_get_every_part_compressed(public_gold, tmp_path: Path):
    config = SpaceConfig.from_env(
        {}, db=tmp_path / "lb.sqlite3", gold=public_gold, host="127.0.0.1", port=free_port()
    )
    space = Space(config)
    demo = launch(space, prevent_thread_lock=True)
    url = f"http://127.0.0.1:{config.port}/"
    try:
        plain = httpx.get(url, headers=IDENTITY, timeout=60)
        assert plain.status_code == 200 and "content-encoding" not in plain.headers
        cache = _page_cache(demo.app)
        pages = set()
        for n in range(6):  # first visits, each with its own cookie jar
            resp, body = _raw(url, CHROME, _visitor_cookies(n))
            assert resp.headers["content-encoding"] == "br", resp.headers
            assert "accept-encoding" in resp.headers["vary"].lower()
            assert "set-cookie" not in resp.headers
            pages.add(brotli.decompress(body))
        assert pages == {plain.content}
        assert len(body) * 3 < len(plain.content)  # the config inlined in it compresses well
        assert len(cache._kept) == 1, "a visitor's own cookies made another page"
        # Gradio's own user cookie is another key (the page carries the user)
        _raw(
            url, CHROME, {**_visitor_cookies(0), f"access-token-unsecure-{demo.app.cookie_id}": "t"}
        )
        assert len(cache._kept) == 2

        # the page's script and stylesheet (Gradio's build) and the board, as the page asks
        refs = [a or b for a, b in _refs(plain.text)]
        assert any(r.endswith(".js") for r in refs) and any(r.endswith(".css") for r in refs)
        board_src = json.loads(re.search(r'"board_src":\s*("[^"]+")', plain.text).group(1))
        for ref in [*refs, board_src]:
            part = urljoin(url, ref)
            want = httpx.get(part, headers=IDENTITY, timeout=60)
            assert want.status_code == 200 and "content-encoding" not in want.headers
            for _ in range(2):  # the first answer is kept, the second comes from memory
                resp, body = _raw(part, CHROME)
                assert resp.headers["content-encoding"] == "br", (ref, resp.headers)
                assert brotli.decompress(body) == want.content, ref
        assert "LLaMa 3.3 70B" in want.text  # the board: the paper's rows
    finally:
        demo.close()
        space.close()


def _without_head(route) -> None:
    """Fulfil the page with the board's prefetch script taken out: the one in the page, after
    the config, and the one in the config's `head`."""
    resp = route.fetch()
    page, found = HEAD_SCRIPT.subn('"head":null', resp.text())
    assert found == 1, "the page's config has no head script"
    after_config = ";</script>" + prefetch_script()
    assert page.count(after_config) == 1, "the page has no prefetch script after its config"
    page = page.replace(after_config, ";</script>")
    route.fulfill(response=resp, body=page)


@pytest.mark.browser
@pytest.mark.parametrize("prefetch", [True, False], ids=["head-started", "script-fetched"])
def test_a_page_load_fetches_the_board_once(browser, server, prefetch: bool) -> None:
    sync_api = require("playwright.sync_api")
    context = browser.new_context()
    page = context.new_page()
    if not prefetch:  # the page as Gradio would send it without the Space's `head`
        page.route(server.url, _without_head)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    boards: list[str] = []
    page.on("request", lambda r: boards.append(r.url) if "/board?" in r.url else None)
    try:
        page.goto(server.url)
        rows = page.locator("#leaderboard-table tbody tr[data-key]")
        sync_api.expect(rows.first).to_be_visible(timeout=60_000)
        sync_api.expect(page.locator("#leaderboard-table")).not_to_contain_text("Loading")
        page.wait_for_load_state("networkidle")
        assert len(boards) == 1, boards
        assert not errors, errors
    finally:
        context.close()
