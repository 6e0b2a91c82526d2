"""The *Items* page: the item analysis of the board's entries on the public items, filtered and
charted (`service.Space.items_view`; the pure parts in `views/items.py`).

Built by `build_app` inside its route (`items_page(space, demo, read)`). Filled when the page
is opened and again on every filter change, from the last item analysis made (with its age):
the analysis is made in the background after writes (`analyst.py`), never while a page waits.
"""

from __future__ import annotations

from typing import Any

import gradio as gr
from respondeoqa_eval.data import DIMENSIONS

from ..service import Space
from ..views import items as item_views
from . import copy
from .events import folded_help, message, message_box, page_heading

RECHECK_SECONDS = 3.0
"""How often an Items page showing an older analysis asks whether a newer one is made."""


def items_page(space: Space, demo: gr.Blocks, read: dict[str, Any]) -> None:
    """The page's components and events (inside `demo.route(...)`); `read` are the keyword
    arguments of the app's read events (outside the queue)."""
    page_heading(copy.ITEMS_TITLE, copy.ITEMS_LEAD)
    folded_help(copy.ITEMS_HELP_LABEL, copy.ITEMS_HELP)
    with gr.Row(equal_height=True):
        filters = [
            gr.Dropdown(
                [(item_views.ANY, item_views.ANY)],
                value=item_views.ANY,
                label=DIMENSIONS[key].name,
                elem_id=f"items-{DIMENSIONS[key].column}",
                min_width=160,
            )
            for key in item_views.FILTERS
        ]
        flagged = gr.Checkbox(
            False, label="Suspected gold errors only", elem_id="items-flagged", min_width=160
        )
    summary = message_box("items-msg")  # what is shown, in words
    table = gr.Dataframe(
        headers=item_views.COLUMNS,
        datatype=item_views.DATATYPES,
        column_widths=item_views.WIDTHS,
        latex_delimiters=[],  # a question's "$$" stays text
        interactive=False,
        wrap=True,
        show_search="search",
        max_height=620,
        label="Public items, hardest first",
        elem_id="items-table",
    )
    chart_by = gr.Radio(
        [(DIMENSIONS[k].name, k) for k in item_views.CHART_DIMENSIONS],
        value=item_views.CHART_DIMENSIONS[0],
        label="Difficulty by",
        elem_id="items-chart-by",
    )
    chart = gr.Plot(label="Difficulty by category", elem_id="items-chart")

    # while the analysis shown is not of the board as it is (or none is made yet), the page
    # asks again every few seconds, and shows the new one when it is made
    newer = gr.Timer(RECHECK_SECONDS, active=False)

    def show(*args: Any) -> tuple[Any, ...]:
        *picks, only, by = args
        out = space.items_view(picks, only, by, wait=False)  # the last made: never waits
        more = (copy.ITEMS_TERMS_LABEL, out.terms) if out.terms else None
        return (
            message(out.message, more=more),
            item_views.items_display(out.table),
            out.difficulty,
            gr.Timer(active=not out.fresh),
        )

    def opened(*args: Any) -> tuple[Any, ...]:
        """Today's filter choices (a pick no longer present falls back to any), then the
        view."""
        *picks, only, by = args
        analysis = space.item_analysis(wait=False)
        updates, kept = [], []
        for key, pick in zip(item_views.FILTERS, picks, strict=True):
            choices = item_views.filter_choices(analysis, key)
            value = pick if pick in {g for _, g in choices} else item_views.ANY
            updates.append(gr.update(choices=choices, value=value))
            kept.append(value)
        return (*updates, *show(*kept, only, by))

    inputs = [*filters, flagged, chart_by]
    outputs = [summary, table, chart, newer]
    demo.load(opened, inputs, [*filters, *outputs], api_visibility="private", **read)
    newer.tick(opened, inputs, [*filters, *outputs], api_visibility="private", **read)
    controls: list[gr.Dropdown | gr.Checkbox | gr.Radio] = [*filters, flagged, chart_by]
    for control in controls:
        control.input(show, inputs, outputs, api_visibility="private", **read)
