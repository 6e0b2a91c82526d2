"""The *Request an evaluation* page: the request form (logged-in users) and everyone's
requests.

Built by `build_app` inside its route (`request_page(space, demo, read)`); its workflows are
the Space's request desk (`requests/desk.py`). The list is filled when the page is opened and
after each request. API clients: `/request` (model, revision, preset, reasoning) and
`/requests` (every request as {"headers", "data"}).
"""

from __future__ import annotations

import time
from typing import Any

import gradio as gr

from ..requests.model import DEFAULT_PRESET, PRESETS
from ..service import Space
from ..views.requests import REQUEST_COLUMNS, REQUEST_WIDTHS, requests_frame
from . import copy
from .events import message, message_box, page_heading, username


def request_page(space: Space, demo: gr.Blocks, read: dict[str, Any]) -> None:
    """The page's components and events (inside `demo.route(...)`); `read` are the keyword
    arguments of the app's read events (outside the queue)."""
    desk = space.requests
    limits = space.limits
    page_heading(copy.REQUEST_TITLE, copy.REQUEST_HELP)
    if desk is None:
        gr.Markdown(copy.REQUEST_OFF)
        return
    if space.config.oauth:
        gr.LoginButton(elem_id="request-login")
    with gr.Row():
        model = gr.Textbox(
            label="Hub model id",
            placeholder="e.g. Qwen/Qwen2.5-7B-Instruct",
            max_length=200,
            min_width=280,  # a row of its own on a phone
            elem_id="request-model",
        )
        revision = gr.Textbox(
            label="Revision (branch, tag or commit)",
            value="main",
            max_length=120,
            elem_id="request-revision",
        )
    preset = gr.Radio(
        [(p.label, p.name) for p in PRESETS.values()],
        value=DEFAULT_PRESET,
        label="Sampling",
        elem_id="request-preset",
    )
    reasoning = gr.Checkbox(
        False,
        label=f"Reasoning model: up to {limits.reasoning_tokens:,} new tokens per item "
        f"(otherwise {limits.request_tokens:,})",
        elem_id="request-reasoning",
    )
    gr.Markdown(
        f"At most {limits.requests_pending} requests per user waiting or running, and "
        f"{limits.requests_per_week} per 7 days."
    )
    button = gr.Button("Request evaluation", variant="primary", elem_id="request-btn")
    result = gr.Textbox(label="Request", visible=False)  # the message API clients get
    shown = message_box("request-msg")
    ok = gr.Checkbox(False, visible=False, label="Stored", elem_id="request-ok")
    gr.Markdown(copy.REQUESTS_LIST)
    table = gr.Dataframe(
        headers=REQUEST_COLUMNS,
        datatype="str",
        interactive=False,
        wrap=True,
        column_widths=REQUEST_WIDTHS,
        label="Requests",
        elem_id="requests-table",
    )
    refresh = gr.Button("Refresh", size="sm", elem_id="requests-refresh", scale=0)

    def listing() -> Any:
        return requests_frame(desk.requests(), time.time())

    def requests_data() -> dict[str, Any]:
        """Every request, newest first: {"headers", "data"} (all values text)."""
        frame = listing()
        return {"headers": list(frame.columns), "data": frame.values.tolist()}

    def do_request(m: str, rev: str, pre: str, reason: bool, profile: Any = None) -> tuple:
        outcome = desk.request(m, rev, pre, reason, username(profile))
        return outcome.message, listing(), outcome.ok

    def do_request_logged_in(
        m: str, rev: str, pre: str, reason: bool, profile: gr.OAuthProfile | None
    ) -> tuple:
        return do_request(m, rev, pre, reason, profile)

    def style(text: str | None, stored: bool) -> Any:
        return message(text or "", bool(stored))

    # Gradio adds its login routes when a handler takes gr.OAuthProfile (see app.py's submit)
    button.click(
        do_request_logged_in if space.config.oauth else do_request,
        [model, revision, preset, reasoning],
        [result, table, ok],
        api_name="request",
        concurrency_id="request",  # one check-and-store at a time; the Hub is asked each time
        concurrency_limit=1,
    ).then(style, [result, ok], [shown], api_visibility="private")
    demo.load(listing, None, [table], api_visibility="private", **read)
    refresh.click(listing, None, [table], api_visibility="private", **read)
    gr.api(requests_data, api_name="requests", concurrency_id="read-api")
