"""What the pages' events share: how reads run, who is asking, how a message looks."""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

# Reads run outside Gradio's queue: the board's page makes no Gradio call at all (routes.py),
# and the events a reader fires elsewhere (the Compare picker, the Items filters, the Items,
# Size and requests pages filling themselves when opened) never wait behind a submission being
# scored, nor count toward the queue's size. API clients (gradio_client always joins the queue)
# get their own concurrency group, apart from "submit". Every read is served from the read
# model's snapshot of the current data version.
READ: dict[str, Any] = {"queue": False, "concurrency_id": "read", "concurrency_limit": None}


def username(profile: Any) -> str:
    """The Hugging Face username of a `gr.OAuthProfile` ("" when not logged in): the only
    personal datum the Space keeps."""
    return "" if profile is None else str(getattr(profile, "username", "") or "")


def page_heading(title: str, lead: str = "") -> None:
    """A page's heading (Markdown "# ...": its h1) and the lines under it (`lead`)."""
    gr.Markdown(title + (f"\n\n{lead}" if lead else ""), elem_id="page-title")


def folded_help(label: str, text: str) -> None:
    """A page's longer help, folded under `label`: the page's controls come first on a
    phone's first screen."""
    with gr.Accordion(label, open=False, elem_classes=["page-help"]):
        gr.Markdown(text)


def message_box(elem_id: str) -> Any:
    """Where a page shows a result message, hidden until it has one: HTML as tall as its text
    at any width. A Textbox cuts it: Gradio 6 sizes its textarea to the text when the value
    comes and keeps that height when the window narrows (a phone turned, a window dragged).
    An event with an API gives its clients the message as plain text, in a hidden Textbox of
    its outputs, and a private step after it fills the box (`message`)."""
    return gr.HTML(visible=False, elem_id=elem_id, elem_classes=["msg"], js_on_load=None)


def message(
    text: str,
    ok: bool | None = None,
    link: tuple[str, str] | None = None,
    more: tuple[str, str] | None = None,
) -> Any:
    """A result message for a `message_box`: a success (ok), a refusal (not ok) or plain
    (None); `link` (address, words: our own) on a line of its own under the text; `more`
    (label, text) folded under it, opened by a click."""
    return _shown(text, "" if ok is None else "msg-ok" if ok else "msg-error", link, more)


def warning(text: str) -> Any:
    """A warning for a `message_box` (none shown when `text` is empty)."""
    return _shown(text, "msg-warn")


def _shown(
    text: str,
    kind: str,
    link: tuple[str, str] | None = None,
    more: tuple[str, str] | None = None,
) -> Any:
    # escaped: messages quote what users typed (model names, ids), and gr.HTML runs script
    value = html.escape(text)
    if link is not None and text:
        href, words = (html.escape(part) for part in link)
        value += f'<br><a class="msg-link" href="{href}">{words}</a>'
    if more is not None and text:
        label, said = (html.escape(part) for part in more)
        value += f'<details class="msg-more"><summary>{label}</summary>{said}</details>'
    return gr.HTML(
        value=value,
        visible=bool(text),
        elem_classes=["msg", kind] if kind else ["msg"],
    )
