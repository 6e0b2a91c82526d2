"""What the pages' events share: how reads run, who is asking, how a message looks."""

from __future__ import annotations

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


def message(text: str, ok: bool) -> Any:
    """A result message, styled as a success or a refusal."""
    return gr.Textbox(value=text, visible=True, elem_classes=["msg-ok" if ok else "msg-error"])
