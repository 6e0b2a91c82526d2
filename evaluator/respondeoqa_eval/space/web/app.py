"""The Gradio UI: wires the pages (each in its own module) and the app's routes to
`service.Space`, and launches the app.

Every user string reaches the page as text: in plain-text components (Textbox, "str" Dataframe
cells, Dropdown labels, escaped plotly labels) or in the board's and the entry detail's HTML,
which their templates escape cell by cell. Markdown holds only our own text (`copy.py`); the
scripts, stylesheet and HTML templates are the files in `static/` and `views/templates/`.
"""

from __future__ import annotations

import os

# before gradio is imported: no usage analytics, no version check from the server
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gc
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from typing import Any

import gradio as gr

from ..config import SpaceConfig
from ..readmodel import BOARD_ROUTE, board_query
from ..service import Space
from ..views.columns import OVERVIEW
from ..views.frames import MOST_ENTRIES
from . import clients, copy
from .compare_page import compare_page
from .events import READ
from .items_page import items_page
from .request_page import request_page
from .routes import (
    ABOUT_PAGE,
    COMPARE_PAGE,
    DETAIL_ROUTE,
    ITEMS_PAGE,
    REQUEST_PAGE,
    SIZE_PAGE,
    SUBMIT_PAGE,
    read_routes,
)
from .submit_page import submit_page

log = logging.getLogger(__name__)


@cache
def static(name: str) -> str:
    """A file of `static/` (the board's script, stylesheet and template)."""
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def prefetch_script() -> str:
    """The script that starts the board's fetch (static/board_prefetch.js), as the page and
    the config's `head` carry it."""
    return f"<script>{static('board_prefetch.js')}</script>"


# The system's own fonts, in the theme rather than in the page's CSS: the default theme's web
# font comes in two weights only (text in any other weight, bold headings, mixed its letters with
# a fallback font of another size), and a font rule over every element in the page's CSS made
# the browser lay the page out again once the CSS arrived (about 0.1 s of a first visit).
SANS = ["-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "Liberation Sans"]
SANS += ["Noto Sans", "DejaVu Sans", "system-ui", "sans-serif"]
MONO = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "Liberation Mono"]
MONO += ["DejaVu Sans Mono", "monospace"]


def theme() -> gr.themes.Base:
    """The page's theme: Gradio's default with the system's fonts."""
    return gr.themes.Default(font=SANS, font_mono=MONO)


def build_app(space: Space) -> gr.Blocks:
    """The Space's Blocks (not launched): the board on the main page, every other part on a
    page of its own (Gradio's multipage routes), so that a visitor's first page loads only the
    board's components, not the charts, tables and upload widgets of the others."""

    def leaderboard(view: str = OVERVIEW, coverage: str = MOST_ENTRIES) -> dict:
        """Every row of one breakdown view and coverage, as the CSV has them: {"view",
        "coverage", "headers", "data"}; numbers as numbers, null where missing."""
        return space.snapshot().api(view, coverage)

    # uploaded predictions leave Gradio's cache (clients.delete_cache)
    with gr.Blocks(
        title="RespondeoQA leaderboard",
        analytics_enabled=False,
        delete_cache=clients.delete_cache(space.limits),
    ) as demo:
        _navbar()
        gr.Markdown(copy.HEADER, elem_id="page-title")
        gr.Markdown(copy.INTRO, elem_id="page-intro")
        # The board and the entry detail are HTML the page fetches from the app's routes (no
        # Gradio event, no session, no queue): the board's own pickers (breakdown, coverage,
        # columns, filters) fetch another table; a row click fetches that entry's detail. The
        # page's config holds no rows.
        _fetched_html(
            "board",
            "leaderboard-table",
            board_src=f"{BOARD_ROUTE}?{board_query(OVERVIEW, MOST_ENTRIES)}",
            board_error=copy.BOARD_ERROR,
        )
        _fetched_html(
            "detail", "entry-detail", detail_src=DETAIL_ROUTE, detail_error=copy.DETAIL_ERROR
        )
        # API clients read the board as data (every row, like the CSV), in their own group
        gr.api(leaderboard, api_name="leaderboard", concurrency_id="read-api")
    with _page(demo, "Compare", COMPARE_PAGE):
        compare_page(space, READ)
    with _page(demo, "Items", ITEMS_PAGE):
        items_page(space, demo, READ)
    with _page(demo, "Size", SIZE_PAGE):
        gr.Markdown(copy.SIZE_HELP)
        size_plot = gr.Plot(label="Accuracy against model size", elem_id="plot-size")
        demo.load(space.size_figure, None, [size_plot], api_visibility="private", **READ)
    with _page(demo, "Submit", SUBMIT_PAGE):
        submit_page(space)
    with _page(demo, "Request an evaluation", REQUEST_PAGE):
        request_page(space, demo, READ)
    with _page(demo, "About", ABOUT_PAGE):
        gr.Markdown(copy.ABOUT, header_links=True, elem_id="about")  # anchors: "#h-the-bound"
    return demo


def _fetched_html(name: str, elem_id: str, **props: str) -> None:
    """An HTML component whose content its script (static/NAME.js) fetches from one of the
    app's routes, shown in its template (static/NAME_template.html); `props` reach the script
    as `props`."""
    gr.HTML(
        "",
        html_template=static(f"{name}_template.html").strip(),
        js_on_load=static(f"{name}.js"),
        apply_default_css=False,
        elem_id=elem_id,
        **props,
    )


def _navbar() -> None:
    """Every page's navigation bar (the main page is the board)."""
    gr.Navbar(main_page_name="Board", elem_id="nav")


@contextmanager
def _page(demo: gr.Blocks, name: str, path: str) -> Iterator[None]:
    """A page beside the board (`demo.route`), with the navigation bar."""
    with demo.route(name, path):
        _navbar()
        yield


GC_THRESHOLD = 20_000
"""Allocations between two young-generation collections (Python's default: 700)."""


def settle_gc() -> None:
    """Tune the cyclic garbage collector for a server that scores large submissions.

    The gold and everything loaded so far live as long as the process: frozen, they are out of
    the collector's sight, and its full passes during scoring no longer walk them again. Scoring
    a full-size submission makes hundreds of thousands of short-lived objects; a larger first
    threshold collects them in a few passes instead of hundreds (together about 0.1 s of each
    submission). Neither changes what is freed by reference counting, which is nearly all.
    """
    gc.freeze()
    first, *older = gc.get_threshold()
    gc.set_threshold(max(first, GC_THRESHOLD), *older)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def launch(config: SpaceConfig | Space, *, prevent_thread_lock: bool = False) -> gr.Blocks:
    """Build, start (record sync, warm-up), queue and launch the Space on its host and port."""
    space = config if isinstance(config, Space) else Space(config)
    limits = space.limits
    demo = build_app(space)
    demo.queue(default_concurrency_limit=limits.concurrency, max_size=limits.queue_size)
    # uvicorn would take the client address from X-Forwarded-For of any loopback peer; the
    # Space reads that header itself, only as far as SpaceConfig.trusted_proxies allows
    os.environ["FORWARDED_ALLOW_IPS"] = ""
    from starlette.middleware import Middleware

    from .pagecache import AssetCache, CompressedAnswers, PageCache

    guard = Middleware(
        clients.UploadGuard,
        budget=clients.UploadBudget(limits),
        trusted_proxies=space.config.trusted_proxies,
    )
    import atexit
    import signal

    # a Space restart sends SIGTERM: leave through Gradio's shutdown, then push the outbox
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    atexit.register(space.close)
    space.start()
    # the default board built before the server listens: the first visitor after a restart
    # does not wait for every stored entry to be decoded and released (8 s at 10,000 entries)
    space.snapshot().board(None, None)
    settle_gc()
    # the board's fetch starts with the page, not once its component is mounted: in the kept
    # page as it is parsed, else (a page not kept: deep links) when Gradio reads its config
    prefetch = prefetch_script()
    # the page and Gradio's frontend files from memory, and the board, compressed once
    shell = [
        Middleware(PageCache, head_script=prefetch.encode()),
        Middleware(AssetCache),
        Middleware(CompressedAnswers),
    ]
    demo.launch(
        app_kwargs={"middleware": [guard, *shell], "routes": read_routes(space)},
        css=static("board.css"),  # Gradio 6 takes page CSS and theme in launch(), not Blocks()
        theme=theme(),
        head=prefetch,
        server_name=space.config.host,
        server_port=space.config.port,
        max_file_size=limits.max_file_bytes,
        ssr_mode=False,
        show_error=False,
        prevent_thread_lock=prevent_thread_lock,
        quiet=True,
        footer_links=["api"],
    )
    return demo
