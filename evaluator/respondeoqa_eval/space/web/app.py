"""The Gradio UI: wires `service.Space` methods to components, and launches the app.

Every user string reaches the page as text: in plain-text components (Textbox, "str" Dataframe
cells, Dropdown labels, escaped plotly labels) or in the board's HTML, which the board template
escapes cell by cell. Markdown holds only our own text (`copy.py`); the board's script and
stylesheet are the files in `static/`.
"""

from __future__ import annotations

import os

# before gradio is imported: no usage analytics, no version check from the server
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gc
import html
import logging
import threading
from functools import cache
from importlib import resources
from typing import Any

import gradio as gr

from ..config import SpaceConfig
from ..readmodel import BOARD_ROUTE, board_query
from ..rows import key_of
from ..service import Space
from ..views import compare
from ..views.columns import OVERVIEW, VIEWS, view_of
from ..views.entry import BREAKDOWN_DATATYPES, breakdown_display
from ..views.frames import MOST_ENTRIES
from ..views.legend import legend
from . import clients, copy
from .items_tab import items_tab
from .requests_tab import request_tab
from .routes import ITEMS_ROUTE, read_routes

log = logging.getLogger(__name__)


@cache
def static(name: str) -> str:
    """A file of `static/` (the board's script, stylesheet and template)."""
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def prefetch_script() -> str:
    """The script that starts the board's fetch (static/board_prefetch.js), as the page and
    the config's `head` carry it."""
    return f"<script>{static('board_prefetch.js')}</script>"


UPLOAD_TYPES = [".jsonl", ".csv", ".json", ".parquet", ".zip"]

# Reads run outside Gradio's queue: a page load (routes.py: no Gradio call at all) and the
# events a reader fires (view, coverage, legend, entry detail, pickers) never wait behind a
# submission being scored, nor count toward the queue's size. API clients (gradio_client always
# joins the queue) get their own concurrency group, apart from "submit". Every read is served
# from the read model's snapshot of the current data version.
READ = {"queue": False, "concurrency_id": "read", "concurrency_limit": None}


def _username(profile: Any) -> str:
    """The Hugging Face username of a `gr.OAuthProfile` ("" when not logged in): the only
    personal datum the Space keeps."""
    return "" if profile is None else str(getattr(profile, "username", "") or "")


def _message(text: str, ok: bool) -> Any:
    return gr.Textbox(value=text, visible=True, elem_classes=["msg-ok" if ok else "msg-error"])


def _download_link(key: str) -> str:
    href = html.escape(f"{ITEMS_ROUTE}?entry={key}")
    return f'<a href="{href}" download>Download its public per-item results (CSV)</a>'


def build_app(space: Space) -> gr.Blocks:
    """The Space's Blocks (not launched)."""
    min_private = space.limits.min_private_items

    def board_of(v: Any, cov: Any) -> str:
        return space.snapshot().board(v, cov)

    def page_after_write(v: Any, cov: Any) -> tuple[Any, ...]:
        """Board, coverage and entry choices after a write (update dicts, not components:
        building a Dropdown costs more than the rest of the reply)."""
        snap = space.snapshot()
        return (
            snap.board(v, cov),
            gr.update(choices=snap.coverages()),
            gr.update(choices=snap.choices()),
        )

    # uploaded predictions leave Gradio's cache (clients.delete_cache)
    with gr.Blocks(
        title="RespondeoQA leaderboard",
        analytics_enabled=False,
        delete_cache=clients.delete_cache(space.limits),
    ) as demo:
        gr.Markdown(copy.HEADER, elem_id="page-title")
        gr.Markdown(copy.INTRO, elem_id="page-intro")
        # on a phone every tab stays in view (two rows if need be), none in an overflow menu
        with gr.Tabs(overflow_behavior="wrap"):
            with gr.Tab("Board", id="leaderboard"):
                with gr.Row(equal_height=True):
                    view = gr.Dropdown(
                        list(VIEWS),
                        value=OVERVIEW,
                        label="Breakdown",
                        elem_id="view",
                        min_width=200,
                    )
                    coverage = gr.Dropdown(
                        space.snapshot().coverages(),
                        value=MOST_ENTRIES,
                        label="Coverage",
                        elem_id="coverage",
                        min_width=140,
                    )
                # the page's config holds no rows: the board's script fetches them
                board = gr.HTML(
                    "",
                    html_template=static("board_template.html").strip(),
                    js_on_load=static("board.js"),
                    apply_default_css=False,
                    elem_id="leaderboard-table",
                    board_src=f"{BOARD_ROUTE}?{board_query(OVERVIEW, MOST_ENTRIES)}",
                    board_error=copy.BOARD_ERROR,
                )
                with gr.Accordion("How to read the board", open=False, elem_id="legend-box"):
                    legend_md = gr.Markdown(legend(OVERVIEW, min_private), elem_id="legend")
                with gr.Accordion(
                    "Accuracy against model size", open=False, elem_id="size-box"
                ) as size_box:
                    size_plot = gr.Plot(label="Accuracy against model size", elem_id="plot-size")
                gr.Markdown(copy.DETAIL_HELP)
                detail_pick = gr.Dropdown(
                    [], value=None, label="Entry to show", elem_id="detail-pick"
                )  # choices when it gets the focus
                detail_msg = gr.Textbox(
                    label="About the entry", interactive=False, visible=False, elem_id="detail-msg"
                )
                with gr.Column():
                    detail_meta = gr.Dataframe(
                        headers=["Field", "Value"],
                        datatype=["str", "str"],
                        interactive=False,
                        wrap=True,
                        column_widths=["30%", "70%"],
                        label="About this entry",
                        visible=False,
                        elem_id="detail-meta",
                    )
                    detail_breakdown = gr.Dataframe(
                        datatype=BREAKDOWN_DATATYPES,
                        interactive=False,
                        label="Full breakdown",
                        visible=False,
                        max_height=520,
                        elem_id="detail-breakdown",
                    )
                detail_csv = gr.HTML("", visible=False, elem_id="detail-csv")
            with gr.Tab("Compare", id="compare"):
                gr.Markdown(copy.COMPARE_HELP)
                pick = gr.Dropdown(
                    [],  # choices when it gets the focus
                    multiselect=True,
                    label="Entries to compare (two or more)",
                    # entries newer than this page are not in its choices; the service
                    # resolves (and ignores unknown) keys itself
                    allow_custom_value=True,
                    elem_id="compare-pick",
                )
                compare_btn = gr.Button("Compare", elem_id="compare-btn")
                compare_msg = gr.Textbox(
                    label="Comparison", interactive=False, visible=False, elem_id="compare-msg"
                )
                compare_warn = gr.Textbox(
                    label="Warning",
                    interactive=False,
                    visible=False,
                    elem_id="compare-warning",
                    elem_classes=["msg-warn"],
                )
                with gr.Row():
                    plot_content = gr.Plot(
                        label="By content type", visible=False, elem_id="plot-content"
                    )
                    plot_pair = gr.Plot(
                        label="By language pair", visible=False, elem_id="plot-pair"
                    )
                plot_diff = gr.Plot(label="Difference A - B", visible=False, elem_id="plot-diff")
                diff_table = gr.Dataframe(
                    label="A - B per category (accuracy points, paired bootstrap)",
                    interactive=False,
                    datatype=compare.DIFFERENCE_DATATYPES,
                    visible=False,
                    elem_id="differences",
                )
                format_table = gr.Dataframe(
                    label="What the answer format cost, per category: lenient minus paper "
                    "accuracy (points, beyond the paper; README: Format compliance)",
                    interactive=False,
                    visible=False,
                    max_height=420,
                    elem_id="format-gaps",
                )
                dis_table = gr.Dataframe(
                    label="Public items where they disagree (gold shown for public items only; "
                    "scores per item, 0 to 1)",
                    interactive=False,
                    datatype=compare.DISAGREEMENT_DATATYPES,
                    column_widths=compare.DISAGREEMENT_WIDTHS,
                    show_search="search",
                    wrap=True,
                    visible=False,
                    max_height=600,
                    elem_id="disagreements",
                )
            items_tab(space, READ)
            with gr.Tab("Submit", id="submit"):
                gr.Markdown(copy.SUBMIT_HELP)
                if space.config.oauth:  # a Space with `hf_oauth: true`: submitting needs a login
                    gr.LoginButton(elem_id="login")
                upload = gr.File(
                    label="Predictions file(s): .jsonl, .csv, .json, .parquet, or a .zip",
                    file_types=UPLOAD_TYPES,
                    file_count="multiple",
                    type="filepath",
                    elem_id="upload",
                )
                with gr.Row():
                    model = gr.Textbox(
                        label="Model name", max_length=space.limits.max_model_chars, elem_id="model"
                    )
                    hub_model = gr.Textbox(
                        "",  # an initial value: API clients may leave it out
                        label="Hugging Face model id (optional, e.g. Qwen/QwQ-32B)",
                        max_length=200,
                        elem_id="hub-model",
                    )
                with gr.Row():
                    params = gr.Textbox(
                        label="Parameters (optional, e.g. 70B, 0.5B, 8x7B)", elem_id="params"
                    )
                    weights = gr.Radio(
                        ["not said", "open weights", "API only"],
                        value="not said",
                        label="Weights",
                        elem_id="weights",
                    )
                    reasoning = gr.Radio(
                        ["not said", "yes", "no"],
                        value="not said",
                        label="Reasoning model",
                        elem_id="reasoning",
                    )
                link = gr.Textbox(label="Link (optional, http/https)", elem_id="link")
                note = gr.Textbox(
                    label="How the predictions were produced (optional)", lines=3, elem_id="note"
                )
                confirm = gr.Checkbox(
                    False,
                    label="Store it anyway: most answers cannot be read by the paper's extraction",
                    visible=False,
                    elem_id="confirm",
                )
                submit_btn = gr.Button("Submit", variant="primary", elem_id="submit-btn")
                submit_msg = gr.Textbox(
                    label="Result", interactive=False, visible=False, elem_id="submit-msg"
                )
                breakdown = gr.Dataframe(
                    label="Your entry's breakdown",
                    interactive=False,
                    elem_id="breakdown",
                    datatype=BREAKDOWN_DATATYPES,
                    visible=False,
                )
                # whether it was stored (API clients read it too); no gr.State: a stateful
                # component makes every page keep a heartbeat connection open
                submit_ok = gr.Checkbox(False, visible=False, label="Stored", elem_id="submit-ok")
                submit_ask = gr.Checkbox(
                    False, visible=False, label="Needs confirmation", elem_id="submit-ask"
                )
                if space.config.oauth:  # withdrawing needs to know who is asking: a login
                    gr.Markdown(copy.WITHDRAW_HELP)
                    with gr.Row():
                        withdraw_id = gr.Textbox(
                            label="Number of your entry (e.g. #12)",
                            max_length=20,
                            elem_id="withdraw-id",
                        )
                        withdraw_btn = gr.Button(
                            "Withdraw my entry", variant="stop", elem_id="withdraw-btn", scale=0
                        )
                    withdraw_msg = gr.Textbox(
                        label="Withdrawal", interactive=False, visible=False, elem_id="withdraw-msg"
                    )
            request_tab(space, READ)
            with gr.Tab("About", id="about"):
                gr.Markdown(copy.ABOUT)

        def leaderboard(view: str = OVERVIEW, coverage: str = MOST_ENTRIES) -> dict:
            """Every row of one breakdown view and coverage, as the CSV has them: {"view",
            "coverage", "headers", "data"}; numbers as numbers, null where missing."""
            return space.snapshot().api(view, coverage)

        def do_submit(
            files: Any,
            m: str,
            lk: str,
            pm: str,
            nt: str,
            v: str,
            cov: str | None,
            hub: str = "",
            wt: str = "not said",
            rs: str = "not said",
            sure: bool = False,
            request: gr.Request = None,  # type: ignore[assignment]
            profile: Any = None,
        ) -> tuple[Any, ...]:
            # logged in: the quota is per Hugging Face user and the entry shows the username
            user = _username(profile)
            client = (
                f"hf:{user}" if user else clients.client_of(request, space.config.trusted_proxies)
            )
            outcome = space.submit(
                files,
                m,
                lk,
                pm,
                nt,
                client=client,
                submitter=user,
                weights=wt,
                reasoning=rs,
                hub_model=hub,
                confirmed=bool(sure),
            )
            shown = breakdown_display(outcome.breakdown) if outcome.ok else outcome.breakdown
            # API outputs stay plain values; look and visibility follow in `style_submit`
            return (
                outcome.message,
                shown,
                *page_after_write(v, cov),
                outcome.ok,
                outcome.needs_confirmation,
            )

        def do_submit_logged_in(
            files: Any,
            m: str,
            lk: str,
            pm: str,
            nt: str,
            v: str,
            cov: str | None,
            hub: str = "",
            wt: str = "not said",
            rs: str = "not said",
            sure: bool = False,
            request: gr.Request = None,  # type: ignore[assignment]
            profile: gr.OAuthProfile | None = None,
        ) -> tuple[Any, ...]:
            return do_submit(files, m, lk, pm, nt, v, cov, hub, wt, rs, sure, request, profile)

        def style_submit(message: str | None, ok: bool, ask: bool) -> tuple[Any, ...]:
            return (
                _message(message or "", bool(ok)),
                gr.Dataframe(visible=bool(ok)),
                gr.update(choices=space.snapshot().choices()),
                gr.Checkbox(visible=bool(ask), value=False),
            )

        def prefill(files: Any, m: str, hub: str, pm: str, nt: str) -> tuple[Any, ...]:
            """What the uploaded file records of its run, in the fields still empty."""
            found = space.suggest(files)
            current = {"model": m, "hub_model": hub, "params": pm, "note": nt}
            return tuple(
                gr.update(value=found[k]) if found.get(k) and not current[k] else gr.update()
                for k in ("model", "hub_model", "params", "note")
            )

        def do_withdraw(
            entry_id: str, v: str, cov: str | None, profile: gr.OAuthProfile | None
        ) -> tuple[Any, ...]:
            out = space.withdraw(entry_id, _username(profile))
            board_value, cov_value, choices = page_after_write(v, cov)
            return _message(out.message, out.ok), board_value, cov_value, choices, choices

        def do_compare(keys: list[str] | None) -> tuple[Any, ...]:
            out = space.compare(keys)
            return (
                out.message,
                out.by_content,
                out.by_pair,
                out.difference,
                compare.differences_display(out.differences),
                out.disagreements,
                out.format_gaps,
            )

        def show_compare_parts(keys: list[str] | None) -> tuple[Any, ...]:
            out = space.compare(keys)  # the comparison just made, from the cache
            drawn, paired, warning = out.drawn, out.paired, out.warning
            return (
                gr.Textbox(visible=True),
                gr.Textbox(value=warning, visible=bool(warning)),
                gr.Plot(visible=drawn),
                gr.Plot(visible=drawn),
                gr.Plot(visible=paired),
                gr.Dataframe(visible=paired),
                gr.Dataframe(visible=paired),
                gr.Dataframe(visible=drawn and not out.format_gaps.empty),
            )

        def show_detail(key: str | None) -> tuple[Any, ...]:
            found = space.detail(key)
            if found is None:
                hide = gr.update(visible=False)
                return hide, hide, hide, hide
            row = space.snapshot().resolve(key)
            link = "" if found.items_csv is None or row is None else _download_link(key_of(row))
            return (
                gr.Textbox(value=found.message, visible=True),
                gr.Dataframe(value=found.metadata, visible=True),
                gr.Dataframe(value=breakdown_display(found.breakdown), visible=True),
                gr.HTML(value=link, visible=bool(link)),
            )

        def pick_row(evt: gr.SelectData) -> Any:
            snap = space.snapshot()
            row = snap.resolve(evt.value)  # a row's data-key, sent by the browser
            return gr.update(value=key_of(row), choices=snap.choices()) if row else gr.update()

        def refresh_choices() -> Any:
            return gr.update(choices=space.snapshot().choices())

        view.change(board_of, [view, coverage], [board], api_visibility="private", **READ)
        view.change(
            lambda v: legend(view_of(v), min_private),
            [view],
            [legend_md],
            api_visibility="private",
            **READ,
        )
        coverage.change(board_of, [view, coverage], [board], api_visibility="private", **READ)
        board.select(pick_row, None, [detail_pick], api_visibility="private", **READ)
        detail_pick.change(
            show_detail,
            [detail_pick],
            [detail_msg, detail_meta, detail_breakdown, detail_csv],
            api_visibility="private",
            **READ,
        )
        # Gradio adds its login routes when a handler takes gr.OAuthProfile; off a Space (no
        # OAuth app) those need a local HF login, so the address-limited handler is used there
        submit_btn.click(
            do_submit_logged_in if space.config.oauth else do_submit,
            [
                upload,
                model,
                link,
                params,
                note,
                view,
                coverage,
                hub_model,
                weights,
                reasoning,
                confirm,
            ],
            [submit_msg, breakdown, board, coverage, pick, submit_ok, submit_ask],
            api_name="submit",
            concurrency_limit=space.limits.submit_concurrency,
            concurrency_id="submit",
        ).then(
            style_submit,
            [submit_msg, submit_ok, submit_ask],
            [submit_msg, breakdown, detail_pick, confirm],
            api_visibility="private",
        )
        upload.upload(
            prefill,
            [upload, model, hub_model, params, note],
            [model, hub_model, params, note],
            api_visibility="private",
            concurrency_id="submit",  # reads the file like a submission: in line with them
        )
        size_box.expand(
            lambda: space.size_figure(), None, [size_plot], api_visibility="private", **READ
        )
        if space.config.oauth:
            withdraw_btn.click(
                do_withdraw,
                [withdraw_id, view, coverage],
                [withdraw_msg, board, coverage, pick, detail_pick],
                api_visibility="private",
                concurrency_id="submit",  # a write: in line with submissions
            )
        compare_parts = [plot_content, plot_pair, plot_diff, diff_table, dis_table, format_table]
        compare_btn.click(
            do_compare,
            [pick],
            [compare_msg, *compare_parts],
            api_name="compare",
            # a bootstrap per new pair: queued (bounded), in its own group, never behind "submit"
            concurrency_id="compare",
            concurrency_limit=space.limits.concurrency,
        ).then(
            show_compare_parts,
            [pick],
            [compare_msg, compare_warn, *compare_parts],
            api_visibility="private",
            **READ,
        )
        # API clients read the board as data (every row, like the CSV), in their own group
        gr.api(leaderboard, api_name="leaderboard", concurrency_id="read-api")
        # a page load makes no Gradio call (the board comes from its route): the pickers and
        # the coverage filter get today's choices when they get the focus
        for picker in (pick, detail_pick):
            picker.focus(refresh_choices, None, [picker], api_visibility="private", **READ)
        coverage.focus(
            lambda: gr.update(choices=space.snapshot().coverages()),
            None,
            [coverage],
            api_visibility="private",
            **READ,
        )
    return demo


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
        css=static("board.css"),  # Gradio 6 takes page CSS in launch(), not in Blocks()
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
