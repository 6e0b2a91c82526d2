"""The *Compare* page: two or more entries side by side (`service.Space.compare`; the pure parts
in `views/compare.py`). API clients: `/compare` (a list of entry keys, and whether to leave the
suspected gold errors out: the switch, `?without=flagged` in the page's address)."""

from __future__ import annotations

from importlib import resources
from typing import Any

import gradio as gr

from ..rows import picker_label
from ..service import Space
from ..views import compare
from ..without import FLAGGED, WITHOUT, wanted
from . import copy
from .events import message, message_box, page_heading, warning


def static_text(name: str) -> str:
    """A file of static/ (a script an event runs in the browser)."""
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


def compare_page(space: Space, demo: gr.Blocks, read: dict[str, Any]) -> None:
    """The page's components and events (inside `demo.route(...)`); `read` are the keyword
    arguments of the app's read events (outside the queue)."""
    page_heading(copy.COMPARE_TITLE, copy.COMPARE_HELP)
    pick = gr.Dropdown(
        [],  # choices when the page opens
        multiselect=True,
        label="Entries to compare (two or more)",
        # entries newer than this page are not in its choices; the service resolves (and
        # ignores unknown) keys itself
        allow_custom_value=True,
        elem_id="compare-pick",
    )
    switch = gr.Checkbox(
        False,
        label="Without suspected gold errors (every number computed without the items the "
        "item analysis flags; beyond the paper)",
        elem_id="compare-without-switch",
    )
    button = gr.Button("Compare", elem_id="compare-btn")
    without_note = gr.HTML(visible=False, elem_id="compare-without")
    result = gr.Textbox(label="Comparison", visible=False)  # the message API clients get
    shown = message_box("compare-msg")
    warned = message_box("compare-warning")
    with gr.Row():
        plot_content = gr.Plot(label="By content type", visible=False, elem_id="plot-content")
        plot_pair = gr.Plot(label="By language pair", visible=False, elem_id="plot-pair")
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
        "accuracy (points, beyond the paper; docs/format-compliance.md)",
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
        latex_delimiters=[],  # a question's "$$" stays text
        show_search="search",
        wrap=True,
        visible=False,
        max_height=600,
        elem_id="disagreements",
    )

    def do_compare(keys: list[str] | None, without: bool = False) -> tuple[Any, ...]:
        out = space.compare(keys, FLAGGED if without else None)
        return (
            out.message,
            out.by_content,
            out.by_pair,
            out.difference,
            compare.differences_display(out.differences),
            compare.disagreements_display(out.disagreements, out.keys),
            out.format_gaps,
        )

    def show_parts(keys: list[str] | None, without: bool = False) -> tuple[Any, ...]:
        # the comparison just made, from the cache
        out = space.compare(keys, FLAGGED if without else None)
        drawn, paired = out.drawn, out.paired
        return (
            gr.HTML(out.without, visible=bool(out.without)),
            message(out.message),
            warning(out.warning),
            gr.Plot(visible=drawn),
            gr.Plot(visible=drawn),
            gr.Plot(visible=paired),
            gr.Dataframe(visible=paired),
            gr.Dataframe(visible=paired),
            gr.Dataframe(visible=drawn and not out.format_gaps.empty),
        )

    parts = [plot_content, plot_pair, plot_diff, diff_table, dis_table, format_table]

    def compared(event: Any, **api: Any) -> None:
        """After `event`: the picks compared (a bootstrap per new pair: queued, bounded, in its
        own group, never behind "submit"), then the parts shown."""
        event(
            do_compare,
            [pick, switch],
            [result, *parts],
            concurrency_id="compare",
            concurrency_limit=space.limits.concurrency,
            **api,
        ).then(
            show_parts,
            [pick, switch],
            [without_note, shown, warned, *parts],
            api_visibility="private",
            **read,
        )

    compared(button.click, api_name="compare")
    # the switch: into the page's address (compare_without.js), then the picks compared again
    switched = switch.input(None, [switch], [switch], js=static_text("compare_without.js"))
    compared(switched.then, api_visibility="private")

    def opened(request: gr.Request = None) -> Any:  # type: ignore[assignment]  # Gradio passes it (found by this annotation)
        """The switch as the page's address says (`?without=flagged`)."""
        asked = request.query_params.get(WITHOUT) if request is not None else None
        return gr.update(value=wanted(asked))

    demo.load(opened, None, [switch], api_visibility="private", **read)
    # the choices when the page opens: the board's first page of each coverage (thousands of
    # options would cost the browser seconds); typing reaches every entry, found on the
    # server. (Not on focus: its answer could come after a typed one's and replace it.)
    demo.load(
        lambda: gr.update(choices=space.snapshot().choices()),
        None,
        [pick],
        api_visibility="private",
        **read,
    )

    def typed(picked: list[str] | None, key: gr.KeyUpData) -> Any:
        """The choices for what is typed: any row of the board whose number, model or
        coverage holds it (`Snapshot.find`), beside the rows picked already."""
        snap = space.snapshot()
        found = snap.find(key.input_value)
        kept = [(picker_label(row), k) for k in picked or [] if (row := snap.resolve(k))]
        return gr.update(choices=list(dict.fromkeys([*kept, *found])))

    pick.key_up(
        typed,
        [pick],
        [pick],
        api_visibility="private",
        show_progress="hidden",
        # every key asks ("always_last" sent the first key's text again in Gradio 6.31; "once"
        # drops the keys typed while one is asked)
        trigger_mode="multiple",
        **read,
    )
