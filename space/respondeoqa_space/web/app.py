"""The Space's server: the board's own page at `/` (board_page.py) and the app's routes, with
the Gradio app mounted on the same FastAPI app for every other page (each in its own module),
its API and its login routes; wires them to `service.Space` and serves them (uvicorn).

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
import warnings
from functools import cache
from importlib import resources
from typing import Any

import gradio as gr

from ..config import SpaceConfig
from ..service import Space
from ..views.columns import OVERVIEW, VIEWS
from ..views.frames import MOST_ENTRIES
from . import clients, copy
from .compare_page import compare_page
from .events import READ, page_heading
from .items_page import items_page
from .request_page import request_page
from .routes import (
    ABOUT_PAGE,
    BOARD_NAME,
    COMPARE_PAGE,
    DOWNLOADS,
    ITEMS_PAGE,
    PAGES,
    REQUEST_PAGE,
    SIZE_PAGE,
    SUBMIT_PAGE,
    read_routes,
)
from .submit_page import submit_page

log = logging.getLogger(__name__)


@cache
def static(name: str) -> str:
    """A file of `static/` (the page's template, scripts and stylesheets)."""
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


PAGE_SCRIPTS = ("table_links.js", "pages.js")
"""The Gradio pages' scripts, each a function Gradio would run once when a page loads."""


def pages_script() -> str:
    """The Gradio pages' one script (`mount_gradio_app(js=...)` takes one function): each of
    `PAGE_SCRIPTS` called in turn."""
    calls = "\n".join(f"({static(name).strip()})();" for name in PAGE_SCRIPTS)
    return f"() => {{\n{calls}\n}}"


# The system's own fonts, in the theme rather than in the page's CSS: the default theme's web
# font comes in two weights only (text in any other weight, bold headings, mixed its letters with
# a fallback font of another size), and a font rule over every element in the page's CSS made
# the browser lay the page out again once the CSS arrived (about 0.1 s of a first visit).
SANS = ["-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "Liberation Sans"]
SANS += ["Noto Sans", "DejaVu Sans", "system-ui", "sans-serif"]
MONO = ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "Liberation Mono"]
MONO += ["DejaVu Sans Mono", "monospace"]


def theme() -> gr.themes.Base:
    """The page's theme: Gradio's default with the system's fonts, and text that reads at
    WCAG AA (4.5:1) on its background: the default's subdued grey (the navigation bar, the
    footer, an upload box's "- or -") was 1.9:1 on white, and white on its orange buttons
    2.8:1 (each now its hue's darker shade)."""
    return gr.themes.Default(font=SANS, font_mono=MONO).set(
        body_text_color_subdued="*neutral_600",
        button_primary_background_fill="*primary_700",
        button_primary_background_fill_hover="*primary_800",
        button_primary_background_fill_dark="*primary_700",
        button_primary_background_fill_hover_dark="*primary_800",
        button_cancel_background_fill="#b91c1c",  # withdrawing an entry: white on red (6.5:1)
        button_cancel_background_fill_hover="#991b1b",
    )


MESSAGES = gr.I18n(en={"common.complete": "Done"})
"""Messages Gradio's frontend lacks: its status tracker tells screen readers an event has
finished with the key `common.complete`, which Gradio 6.31's English dictionary does not
have, so its role=status region read out "common.complete". English is every locale's
fallback."""


def build_app(space: Space) -> gr.Blocks:
    """The Space's Blocks (not launched): every part beside the board on a page of its own
    (Gradio's multipage routes), so that a page loads only its own components. The main page
    is the board's own HTML (board_page.py, served in front of Gradio at `/`): Gradio's main
    page holds only the navigation bar and the API's board endpoint."""

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
        # API clients read the board as data (every row, like the CSV), in their own group
        gr.api(leaderboard, api_name="leaderboard", concurrency_id="read-api")
    pages = {
        COMPARE_PAGE: lambda: compare_page(space, demo, READ),
        ITEMS_PAGE: lambda: items_page(space, demo, READ),
        SIZE_PAGE: lambda: _size_page(space, demo),
        SUBMIT_PAGE: lambda: submit_page(space),
        REQUEST_PAGE: lambda: request_page(space, demo, READ),
        # anchors: "#h-the-bound"
        ABOUT_PAGE: lambda: _about_page(space),
    }
    for name, path in PAGES:
        with demo.route(name, path):
            _navbar()
            pages[path]()
    return demo


def _about_page(space: Space) -> None:
    page_heading(copy.ABOUT_TITLE)
    gr.Markdown(
        copy.ABOUT + copy.details_note(space.config.details_url),
        header_links=True,
        elem_id="about",
    )


def _size_page(space: Space, demo: gr.Blocks) -> None:
    page_heading(copy.SIZE_TITLE, copy.SIZE_HELP)
    size_plot = gr.Plot(label="Accuracy against model size", elem_id="plot-size")
    demo.load(space.size_figure, None, [size_plot], api_visibility="private", **READ)


def _navbar() -> None:
    """Every Gradio page's navigation bar: the main page (the board) first, as its own page's
    plain links have it."""
    gr.Navbar(main_page_name=BOARD_NAME, elem_id="nav")


DOWNLOADS_KEPT = 64 << 20
"""Bytes of compressed downloads kept (each at most a quarter of it; a larger one goes out as
it is)."""

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


def _warm(space: Space, page: Any) -> None:
    """The main board of the current data version built (every stored entry decoded, the
    cyclic collector paused meanwhile: its passes would walk the growing heap again and again,
    and decoded reports make no cycles) and every view's records, then the collector told they
    live long (settle_gc), then the item analysis asked for."""
    gc.disable()
    try:
        snap = space.reads.refresh()
        # each view's records too (about 0.3 s each at 10,000 entries, kept and updated by
        # the rows a write changes): a view's first load is then its ranking and its page
        for view in VIEWS:
            snap.table(view)
    except Exception:  # the first visitor builds what they need
        log.exception("the boards were not built at start-up")
    finally:
        gc.enable()
    settle_gc()
    page.save()  # (a restart after a crash finds it too, if nothing changed since)
    space.analyse_after_writes()
    space.publish_details_after_writes()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def launch(config: SpaceConfig | Space, *, prevent_thread_lock: bool = False) -> gr.Blocks:
    """Build, start (record sync, warm-up) and serve the Space on its host and port: a
    FastAPI app with the board's page at `/` and the app's own routes, and the Gradio app
    mounted on it at `/` (`gr.mount_gradio_app`: its pages, `/gradio_api`, its login routes
    and frontend files answer every other path). Returns the Blocks, whose `close()` stops
    the server; without `prevent_thread_lock`, serves until interrupted (SIGTERM too)."""
    space = config if isinstance(config, Space) else Space(config)
    limits = space.limits
    demo = build_app(space)
    demo.queue(default_concurrency_limit=limits.concurrency, max_size=limits.queue_size)
    import atexit
    import signal

    # a Space restart sends SIGTERM: leave through the server's shutdown, then push the outbox
    # while the interpreter still runs (huggingface_hub uploads 2+ files through a thread pool,
    # which refuses work once the interpreter shuts down: an atexit push of 2+ files fails);
    # atexit stays as the fallback of a server started with prevent_thread_lock
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    atexit.register(space.close)
    space.start()
    settle_gc()
    app = _serving_app(space, demo)
    page = app.state.board_page
    if page.restore():  # the page kept at the last shutdown shows what the store holds
        log.info("the main page kept at the last shutdown is served until it is built again")
    atexit.register(page.save)
    server = _server(app, space.config.host, space.config.port)
    server.run_in_thread()
    # the server listens as soon as the store is readable; the entries are decoded and the
    # main page built now, in the background (a visitor who comes first waits for that build,
    # not for a second one, unless the kept page is served), then the item analysis is made
    threading.Thread(target=_warm, args=(space, page), name="warm-boards", daemon=True).start()
    # what Blocks.launch() sets, so that demo.close() stops the queue and this server
    demo.server, demo.app = server, app.state.gradio_app
    demo.server_name, demo.server_port = space.config.host, space.config.port
    if not prevent_thread_lock:
        try:
            while server.thread.is_alive():
                server.thread.join(timeout=0.5)
        except KeyboardInterrupt:
            pass
        finally:
            demo.close(verbose=False)
            page.save()
            space.close()  # a second close (atexit) finds nothing waiting
    return demo


def _serving_app(space: Space, demo: gr.Blocks) -> Any:
    """The FastAPI app the server runs: the board's page and the app's own routes first, then
    Gradio mounted at `/`, behind the upload guard and the caches (pagecache.py)."""
    from fastapi import FastAPI
    from starlette.middleware import Middleware
    from starlette.routing import Mount, Route

    from .answers_page import AnswersPage
    from .board_page import SAVED_PAGE, BoardPage, font_stack
    from .pagecache import AssetCache, CompressedAnswers, PageCache

    page = BoardPage(
        space,
        saved=space.config.db.with_name(space.config.db.name + SAVED_PAGE),
        static=static,
        sans=SANS,
        mono=MONO,
        api_href="gradio_api/info",
        details_href=space.config.details_url,
    )
    answers = AnswersPage(
        space,
        static=static,
        sans=font_stack(SANS),
        mono=font_stack(MONO),
        api_href="gradio_api/info",
    )
    middleware = [
        Middleware(
            clients.UploadGuard,
            budget=clients.UploadBudget(space.limits),
            trusted_proxies=space.config.trusted_proxies,
        ),
        # Gradio's pages and frontend files from memory, and the board, compressed once
        Middleware(PageCache, paths=tuple(f"/{path}" for _, path in PAGES)),
        Middleware(AssetCache),
        Middleware(CompressedAnswers),
        # the downloads too (the CSV of 10,000 entries: 3.4 MB as it is, a tenth compressed)
        Middleware(
            CompressedAnswers,
            paths=tuple(f"/{path}" for path in DOWNLOADS),
            max_bytes=DOWNLOADS_KEPT,
            max_answer=DOWNLOADS_KEPT // 4,
        ),
    ]
    routes = [Route("/", page, methods=["GET", "HEAD"]), *read_routes(space), *answers.routes()]
    app = FastAPI(routes=routes, middleware=middleware, openapi_url=None, docs_url=None)
    app.state.board_page = page
    with warnings.catch_warnings():
        # Gradio warns that a mounted multipage app has no SSR (off here anyway)
        warnings.filterwarnings("ignore", "SSR mode is not supported", UserWarning)
        _mount(app, demo, space)
    mounted = app.routes[-1]
    assert isinstance(mounted, Mount)  # what gr.mount_gradio_app added
    app.state.gradio_app = mounted.app  # the mounted Gradio app
    return app


def _mount(app: Any, demo: gr.Blocks, space: Space) -> None:
    gr.mount_gradio_app(
        app,
        demo,
        path="/",
        server_name=space.config.host,
        server_port=space.config.port,
        footer_links=["api"],
        css=static("board.css"),  # Gradio 6 takes page CSS and theme here, not in Blocks()
        js=pages_script(),
        theme=theme(),
        i18n=MESSAGES,
        max_file_size=space.limits.max_file_bytes,
        ssr_mode=False,
        show_error=False,
    )


def _server(app: Any, host: str, port: int) -> Any:
    """A uvicorn server of `app` (Gradio's, which runs in a thread and stops on close())."""
    import uvicorn
    from gradio.http_server import Server

    # uvicorn would take the client address from X-Forwarded-For of any loopback peer; the
    # Space reads that header itself, only as far as SpaceConfig.trusted_proxies allows
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", proxy_headers=False)
    return Server(config)
