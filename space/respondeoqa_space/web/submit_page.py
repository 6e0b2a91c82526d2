"""The *Submit* page: upload predictions, see them scored and stored (`service.Space.submit`),
and, logged in, withdraw one's own entry. API clients: `/submit` (inputs files, model, link,
params, note, hub_model, weights, reasoning, confirm; outputs message, breakdown, ok,
needs_confirmation)."""

from __future__ import annotations

from typing import Any

import gradio as gr

from ..service import Space, own_entry, stored_entry
from ..views.entry import BREAKDOWN_DATATYPES, BREAKDOWN_WIDTHS, breakdown_display
from . import clients, copy
from .events import folded_help, message, message_box, page_heading, username

UPLOAD_TYPES = [".jsonl", ".csv", ".json", ".parquet", ".zip"]


def entry_link(number: int) -> tuple[str, str]:
    """(address, words) of entry #`number` on the board: the main page opens on its coverage
    with its row marked and its detail shown (board.js, detail.js)."""
    return f"./?entry=e:{number}", f"See entry #{number} on the board"


def submit_page(space: Space) -> None:
    """The page's components and events (inside `demo.route(...)`)."""
    limits = space.limits
    page_heading(copy.SUBMIT_TITLE, copy.SUBMIT_LEAD)
    folded_help(copy.SUBMIT_HELP_LABEL, copy.SUBMIT_HELP)
    if space.config.oauth:  # a Space with `hf_oauth: true`: submitting needs a login
        gr.LoginButton(elem_id="login")
    upload = gr.File(
        # short: the box's buttons cover the end of a longer label on a phone (the formats
        # are in the lines above)
        label="Predictions file(s)",
        file_types=UPLOAD_TYPES,
        file_count="multiple",
        type="filepath",
        elem_id="upload",
    )
    with gr.Row():
        model = gr.Textbox(label="Model name", max_length=limits.max_model_chars, elem_id="model")
        hub_model = gr.Textbox(
            "",  # an initial value: API clients may leave it out
            label="Hugging Face model id (optional, e.g. Qwen/QwQ-32B)",
            max_length=200,
            elem_id="hub-model",
        )
    with gr.Row():
        params = gr.Textbox(
            "", label="Parameters (optional, e.g. 70B, 0.5B, 8x7B)", elem_id="params"
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
    # an initial value makes a field optional to API clients (`view_api`); its name there is
    # the handler's parameter name, docs/leaderboard-api.md's
    link = gr.Textbox("", label="Link (optional, http/https)", elem_id="link")
    note = gr.Textbox(
        "", label="How the predictions were produced (optional)", lines=3, elem_id="note"
    )
    confirm = gr.Checkbox(
        False,
        label="Store it anyway: most answers cannot be read by the paper's extraction",
        visible=False,
        elem_id="confirm",
    )
    button = gr.Button("Submit", variant="primary", elem_id="submit-btn")
    result = gr.Textbox(label="Result", visible=False)  # the message API clients get
    shown = message_box("submit-msg")
    breakdown = gr.Dataframe(
        label="Your entry's breakdown",
        interactive=False,
        elem_id="breakdown",
        datatype=BREAKDOWN_DATATYPES,
        column_widths=BREAKDOWN_WIDTHS,
        wrap=True,
        visible=False,
    )
    # whether it was stored (API clients read it too); no gr.State: a stateful component makes
    # every page keep a heartbeat connection open
    stored = gr.Checkbox(False, visible=False, label="Stored", elem_id="submit-ok")
    ask = gr.Checkbox(False, visible=False, label="Needs confirmation", elem_id="submit-ask")

    def do_submit(
        files: Any,
        model: str,
        link: str = "",
        params: str = "",
        note: str = "",
        hub_model: str = "",
        weights: str = "not said",
        reasoning: str = "not said",
        confirm: bool = False,
        request: gr.Request = None,  # type: ignore[assignment]  # Gradio passes it (found by this annotation)
        profile: Any = None,
    ) -> tuple[Any, ...]:
        # logged in: the quota is per Hugging Face user and the entry shows the username
        user = username(profile)
        client = f"hf:{user}" if user else clients.client_of(request, space.config.trusted_proxies)
        outcome = space.submit(
            files,
            model,
            link,
            params,
            note,
            client=client,
            submitter=user,
            weights=weights,
            reasoning=reasoning,
            hub_model=hub_model,
            confirmed=bool(confirm),
        )
        shown = breakdown_display(outcome.breakdown) if outcome.ok else outcome.breakdown
        # API outputs stay plain values; look and visibility follow in `style`
        return outcome.message, shown, outcome.ok, outcome.needs_confirmation

    def do_submit_logged_in(
        files: Any,
        model: str,
        link: str = "",
        params: str = "",
        note: str = "",
        hub_model: str = "",
        weights: str = "not said",
        reasoning: str = "not said",
        confirm: bool = False,
        request: gr.Request = None,  # type: ignore[assignment]  # Gradio passes it (found by this annotation)
        profile: gr.OAuthProfile | None = None,
    ) -> tuple[Any, ...]:
        return do_submit(
            files,
            model,
            link,
            params,
            note,
            hub_model,
            weights,
            reasoning,
            confirm,
            request,
            profile,
        )

    def style(text: str | None, ok: bool, needs: bool) -> tuple[Any, ...]:
        number = stored_entry(text) if ok else own_entry(text)
        link = None if number is None else entry_link(number)
        return (
            message(text or "", bool(ok), link),
            gr.Dataframe(visible=bool(ok)),
            gr.Checkbox(visible=bool(needs), value=False),
        )

    def prefill(files: Any, m: str, hub: str, pm: str, nt: str) -> tuple[Any, ...]:
        """What the uploaded file records of its run, in the fields still empty."""
        found = space.suggest(files)
        current = {"model": m, "hub_model": hub, "params": pm, "note": nt}
        return tuple(
            gr.update(value=found[k]) if found.get(k) and not current[k] else gr.update()
            for k in ("model", "hub_model", "params", "note")
        )

    # Gradio adds its login routes when a handler takes gr.OAuthProfile; off a Space (no OAuth
    # app) those need a local HF login, so the address-limited handler is used there
    button.click(
        do_submit_logged_in if space.config.oauth else do_submit,
        [upload, model, link, params, note, hub_model, weights, reasoning, confirm],
        [result, breakdown, stored, ask],
        api_name="submit",
        concurrency_limit=limits.submit_concurrency,
        concurrency_id="submit",
    ).then(style, [result, stored, ask], [shown, breakdown, confirm], api_visibility="private")
    upload.upload(
        prefill,
        [upload, model, hub_model, params, note],
        [model, hub_model, params, note],
        api_visibility="private",
        concurrency_id="submit",  # reads the file like a submission: in line with them
    )
    if space.config.oauth:
        _withdraw(space)


def _withdraw(space: Space) -> None:
    """Withdrawing one's own entry: needs to know who is asking, a login."""
    gr.Markdown(copy.WITHDRAW_HELP)
    with gr.Row():
        entry_id = gr.Textbox(
            label="Number of your entry (e.g. #12)", max_length=20, elem_id="withdraw-id"
        )
        button = gr.Button("Withdraw my entry", variant="stop", elem_id="withdraw-btn", scale=0)
    result = message_box("withdraw-msg")

    def do_withdraw(text: str, profile: gr.OAuthProfile | None) -> Any:
        out = space.withdraw(text, username(profile))
        return message(out.message, out.ok)

    button.click(
        do_withdraw,
        [entry_id],
        [result],
        api_visibility="private",
        concurrency_id="submit",  # a write: in line with submissions
    )
