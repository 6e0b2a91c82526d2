"""The main page (`/`): the board as the app's own HTML, without Gradio's frontend.

The page (static/board_page.html) holds the navigation bar as plain links, the header, the
board's default table (the `board` route's HTML, inline), the entry detail's form, the page's
stylesheets and its scripts: board.js and detail.js, run by board_page.js with what Gradio's
HTML component would give them. It is rendered once per board the read model serves (a new
data version's, built before a write made here is acknowledged, or in the background after
another's), compressed once (pagecache.Kept: brotli, else gzip) and then served from memory
to every visitor: the page holds no per-visitor data, so one copy fits all. A query string
(`/?entry=e:12`) is read by the page's script, not by the server: the same bytes.

The other pages (Compare, Items, Size, Submit, Request an evaluation, About) are Gradio's,
mounted beside this one (app.py); their navigation bars link back here.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup
from respondeoqa_eval import __version__ as eval_version
from starlette.concurrency import run_in_threadpool

from .. import __version__ as space_version
from ..readmodel import BOARD_ROUTE, board_query
from ..service import Space
from ..views.columns import OVERVIEW
from ..views.frames import MOST_ENTRIES
from ..views.html import own_markdown
from . import copy
from .pagecache import Kept, Receive, Scope, Send
from .routes import BOARD_NAME, DETAIL_ROUTE, PAGES

log = logging.getLogger(__name__)

NO_CACHE = (b"cache-control", b"no-cache")
SAVED_PAGE = ".page"  # beside the store: the main page kept for the next start  # a browser asks again: a new entry shows at once


@cache
def page_template(name: str) -> jinja2.Template:
    """A whole page's template of static/ (autoescaped): the board's, the answers page's."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader(__package__, "static"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template(name)


def font_stack(families: list[str]) -> Markup:
    """A CSS font-family value of `families` (our own names; those with spaces quoted), as
    markup: a style element decodes no entities."""
    return Markup(", ".join(f"'{f}'" if " " in f else f for f in families))


def page_html(
    board: str,
    *,
    static: Callable[[str], str],
    sans: list[str],
    mono: list[str],
    api_href: str,
    details_href: str = "",
) -> str:
    """The whole page around `board` (the board route's HTML of the default view and
    coverage); `static(name)` reads a file of static/, `api_href` is the footer's link to the
    API's description and `details_href` to the details dataset (none when "")."""
    props = {
        "board_src": f"{BOARD_ROUTE}?{board_query(OVERVIEW, MOST_ENTRIES)}",
        "board_error": copy.BOARD_ERROR,
    }
    return page_template("board_page.html").render(
        title="RespondeoQA leaderboard",
        board_name=BOARD_NAME,
        pages=PAGES,
        header=own_markdown(copy.HEADER),
        intro=own_markdown(copy.INTRO),
        board=Markup(board),  # the views' template escaped every cell
        board_props=props,
        detail_props={"detail_src": DETAIL_ROUTE, "detail_error": copy.DETAIL_ERROR},
        sans=font_stack(sans),
        mono=font_stack(mono),
        css=Markup(static("page.css") + static("board.css")),
        api_href=api_href,
        details_href=details_href,
        scripts=Markup(static("board_page.js")),
        # each component's root (its element id) and its script
        components={
            "leaderboard-table": Markup(static("board.js")),
            "entry-detail": Markup(static("detail.js")),
        },
    )


class BoardPage:
    """The ASGI app of `/` (GET and HEAD): the page around the board the read model serves
    (`ReadModel.board`: the current version's, or the last one built while the current one is
    built in the background), rendered and compressed once per board, from memory.

    With `saved` (a file beside the store), the page served is kept there at shutdown and
    after start-up (`save`), and read back at the next start (`restore`) when what it shows
    is still what the store holds (`ReadModel.content_key`, with the code's versions, the gold
    and the limits): the page answers as soon as the server listens, before the entries are
    decoded again."""

    def __init__(self, space: Space, saved: Path | None = None, **page: Any) -> None:
        self.space = space
        self.saved = saved
        self.page = page  # page_html's keywords
        self._kept: tuple[Any, str | None, Kept] | None = None  # (version, board, page)
        self._lock = threading.Lock()
        space.reads.warmers.append(self._warm)

    def _content_key(self) -> str:
        space = self.space
        return space.reads.content_key(
            f"respondeoqa-space {space_version}",
            f"respondeoqa-eval {eval_version}",
            space.gold_fingerprint,
            repr(space.limits),
        )

    def save(self) -> None:
        """Keep the page served now in `saved`, if it is the current data version's."""
        kept = self._kept
        if self.saved is None or kept is None or kept[0] != self.space.reads.version():
            return
        page = kept[2]
        head = {
            "key": self._content_key(),
            "headers": [[k.decode("latin-1"), v.decode("latin-1")] for k, v in page.headers],
            "lengths": {encoding: len(body) for encoding, body in page.bodies.items()},
        }
        temporary = self.saved.with_name(self.saved.name + ".tmp")
        try:
            with temporary.open("wb") as out:
                out.write(json.dumps(head).encode("utf-8") + b"\n")
                for body in page.bodies.values():
                    out.write(body)
            os.replace(temporary, self.saved)
        except OSError as exc:  # only the next start is slower
            log.warning("the main page was not kept for the next start (%s)", exc.strerror)

    def restore(self) -> bool:
        """Serve the page kept in `saved` when it shows what the store holds now (True)."""
        if self.saved is None or not self.saved.is_file():
            return False
        try:
            with self.saved.open("rb") as src:
                head = json.loads(src.readline())
                bodies = {encoding: src.read(n) for encoding, n in head["lengths"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return False
        if head.get("key") != self._content_key():
            return False
        if any(len(body) != head["lengths"][encoding] for encoding, body in bodies.items()):
            return False
        headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in head["headers"]]
        self._kept = (self.space.reads.version(), None, Kept(headers, bodies))
        return True

    def _warm(self, snapshot: Any) -> None:
        """The page of a snapshot the read model refreshed, made before anyone asks."""
        self._page(snapshot.version, snapshot.board(OVERVIEW, MOST_ENTRIES))

    def current(self) -> Kept:
        """The page of the board the read model serves now: rendered and compressed when the
        board is new (one thread renders; the others wait for it), else as kept."""
        version, board = self.space.reads.served_board(OVERVIEW, MOST_ENTRIES)
        return self._page(version, board)

    def _page(self, version: Any, board: str) -> Kept:
        kept = self._kept
        if kept is not None and kept[1] is board:
            return kept[2]
        with self._lock:
            kept = self._kept
            if kept is None or kept[1] is not board:
                html = page_html(board, **self.page)
                headers = [(b"content-type", b"text/html; charset=utf-8"), NO_CACHE]
                kept = self._kept = (version, board, Kept.of(headers, html.encode("utf-8")))
            return kept[2]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # the version is one small query (WAL: a reader waits for no writer), asked here; a new
        # version's page is found (or built) in the thread pool, never on the event loop
        kept = self._kept
        if kept is not None and kept[0] == self.space.reads.version():
            return await kept[2].send(scope, send)
        await (await run_in_threadpool(self.current)).send(scope, send)
