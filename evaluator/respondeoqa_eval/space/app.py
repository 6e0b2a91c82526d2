"""The Gradio UI: wires `service.Space` methods to components. No logic lives here.

Every user string reaches the page through plain-text components (Textbox, "str" Dataframe
cells, Dropdown labels, escaped plotly labels); Markdown and HTML hold only our own text.
"""

from __future__ import annotations

import os

# before gradio is imported: no usage analytics, no version check from the server
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import logging  # noqa: E402
from typing import Any  # noqa: E402

import gradio as gr  # noqa: E402

from . import table  # noqa: E402
from .paper import PAPER_CITATION  # noqa: E402
from .service import Space, SpaceConfig  # noqa: E402

log = logging.getLogger(__name__)

HEADER = """# RespondeoQA leaderboard
Latin-English question answering: multiple choice, 1-word short answers, scansion and
translation, scored with the paper's protocol (Hudspeth, Burns and O'Connor 2026).
Rows marked **reported in paper** are the published numbers; every other row was scored here.
Ranks count only among entries scored on the same sources (the *Coverage* column)."""

ABOUT = f"""## The benchmark
RespondeoQA has 7,829 Latin-English questions from the NJCL Certamen (1996-2009), the National
Latin Exam (2015, 2020, 2025), *Latin Grammar and Junior Scholarship Papers* and *Exercises in
Latin Prosody and Versification*. The last two are public domain and published upstream
(github.com/slanglab/RespondeoQA); Certamen and NLE questions are not redistributed.

## How a submission is scored
- Upload a JSONL, CSV or JSON file with one row per item: `id` (or `question_id` plus
  `question_language`) and either `response` (the raw model output; the answer is extracted
  with the paper's rules) or `answer` (already extracted).
- A submission is scored on the upstream files it covers; items of a covered file that have no
  prediction score 0. The *Coverage* column says which sources an entry was scored on, and ranks
  compare only entries with the same coverage.
- **Accuracy** is the mean per-item score over every non-translation item: multiple choice
  (first letter), 1-word short answer (exact match after lowercasing and removing punctuation;
  Latin answers also lose macrons and get j->i, v->u), meter manipulation (word lists equal) and
  feet identification (share of feet right, with the paper's spelling variants).
- **BLEU** is corpus BLEU (sacreBLEU, lowercased, 13a tokens) per target language. As in the
  paper, every item's references are padded with empty strings up to the largest count in its
  group, which changes the brevity penalty; the report also gives BLEU without padding.
- Intervals are 95% bootstrap intervals over items (1,000 resamples, seed 12345). Compare uses a
  paired bootstrap over the items both entries were scored on.
- The paper's overall accuracy for LLaMa 3.3 70B is 71.92; its released notebook prints 71.29.

## Data terms
Certamen questions are copyrighted and hosted by the Junior Classical League; the National Latin
Exam may not be used to generate profit. This Space never shows their gold answers: the
disagreement table in Compare lists public items only.

## Citation
{PAPER_CITATION}: *RespondeoQA: a Benchmark for Bilingual Latin-English Question Answering*.
"""

SUBMIT_HELP = """Upload predictions in any format the evaluator accepts (`.jsonl`, `.csv` or the
paper's `.json` layout). The file is scored at once and appears on the leaderboard; identical
files are refused. Model name, link and note are shown as plain text; links must be http(s)."""


def _view(value: Any) -> str:
    return value if value in table.VIEWS else "Overview"


def _board(space: Space, view: str, coverage: str | None) -> tuple[Any, Any]:
    view = _view(view)
    df = space.table(view, coverage)
    return (
        gr.Dataframe(value=df, datatype=table.datatypes(view)),
        gr.DownloadButton(value=str(space.csv_file(view, coverage))),
    )


def build_app(config: SpaceConfig | Space) -> gr.Blocks:
    """The Space's Blocks (not launched); `config` may be a ready `Space`."""
    space = config if isinstance(config, Space) else Space(config)
    views = list(table.VIEWS)
    first = space.table("Overview")

    # uploaded predictions and generated CSVs leave Gradio's cache after a day
    with gr.Blocks(
        title="RespondeoQA leaderboard", analytics_enabled=False, delete_cache=(86400, 86400)
    ) as demo:
        gr.Markdown(HEADER)
        with gr.Tabs():
            with gr.Tab("Leaderboard", id="leaderboard"):
                with gr.Row():
                    view = gr.Radio(views, value="Overview", label="Breakdown", elem_id="view")
                    coverage = gr.Dropdown(
                        space.coverage_choices(),
                        value=table.ALL_COVERAGES,
                        label="Coverage",
                        elem_id="coverage",
                        scale=0,
                        min_width=260,
                    )
                board = gr.Dataframe(
                    value=first,
                    datatype=table.datatypes("Overview"),
                    interactive=False,
                    show_search="search",
                    pinned_columns=2,
                    max_height=720,
                    label="Leaderboard",
                    elem_id="leaderboard-table",
                )
                csv = gr.DownloadButton(
                    "Download CSV", value=str(space.csv_file("Overview")), elem_id="csv"
                )
            with gr.Tab("Compare", id="compare"):
                pick = gr.Dropdown(
                    space.choices(),
                    multiselect=True,
                    label="Entries to compare (two or more)",
                    elem_id="compare-pick",
                )
                compare_btn = gr.Button("Compare", elem_id="compare-btn")
                compare_msg = gr.Textbox(
                    label="Comparison", interactive=False, elem_id="compare-msg"
                )
                with gr.Row():
                    plot_content = gr.Plot(label="By content type", elem_id="plot-content")
                    plot_pair = gr.Plot(label="By language pair", elem_id="plot-pair")
                plot_diff = gr.Plot(label="Difference A - B", elem_id="plot-diff")
                diff_table = gr.Dataframe(
                    label="A - B per category (paired bootstrap)",
                    interactive=False,
                    datatype=["str", "str", "number", "number", "number", "number", "str", "str"],
                )
                dis_table = gr.Dataframe(
                    label="Public items where they disagree (gold shown for public items only)",
                    interactive=False,
                    datatype="str",
                    show_search="search",
                    wrap=True,
                    elem_id="disagreements",
                )
            with gr.Tab("Submit", id="submit"):
                gr.Markdown(SUBMIT_HELP)
                upload = gr.File(
                    label="Predictions file",
                    file_types=[".jsonl", ".csv", ".json"],
                    type="filepath",
                    elem_id="upload",
                )
                with gr.Row():
                    model = gr.Textbox(
                        label="Model name", max_length=space.limits.max_model_chars, elem_id="model"
                    )
                    link = gr.Textbox(label="Link (optional, http/https)", elem_id="link")
                    params = gr.Textbox(label="Parameters (optional, e.g. 70B)", elem_id="params")
                note = gr.Textbox(
                    label="How the predictions were produced (optional)", lines=3, elem_id="note"
                )
                submit_btn = gr.Button("Submit", variant="primary", elem_id="submit-btn")
                submit_msg = gr.Textbox(label="Result", interactive=False, elem_id="submit-msg")
                breakdown = gr.Dataframe(
                    label="Your entry's breakdown",
                    interactive=False,
                    elem_id="breakdown",
                    datatype=["str", "str", "str", "number", "str", "number"],
                )
            with gr.Tab("About", id="about"):
                gr.Markdown(ABOUT)

        def show_board(v: str, cov: str | None) -> tuple[Any, Any]:
            return _board(space, v, cov)

        def refresh(v: str, cov: str | None) -> tuple[Any, ...]:
            board_value, csv_value = _board(space, v, cov)
            return (
                board_value,
                csv_value,
                gr.Dropdown(choices=space.coverage_choices()),
                gr.Dropdown(choices=space.choices()),
            )

        def do_submit(
            path: str | None,
            m: str,
            lk: str,
            pm: str,
            nt: str,
            v: str,
            cov: str | None,
            request: gr.Request,
        ) -> tuple[Any, ...]:
            from .limits import client_of

            client = client_of(request, space.config.trust_proxy)
            outcome = space.submit(path, m, lk, pm, nt, client=client)
            return (outcome.message, outcome.breakdown, *refresh(v, cov))

        def do_compare(keys: list[str] | None) -> tuple[Any, ...]:
            out = space.compare(keys)
            return (
                out.message,
                out.by_content,
                out.by_pair,
                gr.Plot(value=out.difference, visible=out.difference is not None),
                out.differences,
                out.disagreements,
            )

        view.change(show_board, [view, coverage], [board, csv], api_name="leaderboard")
        coverage.change(show_board, [view, coverage], [board, csv], api_visibility="private")
        submit_btn.click(
            do_submit,
            [upload, model, link, params, note, view, coverage],
            [submit_msg, breakdown, board, csv, coverage, pick],
            api_name="submit",
            concurrency_limit=space.limits.submit_concurrency,
            concurrency_id="submit",
        )
        compare_btn.click(
            do_compare,
            [pick],
            [compare_msg, plot_content, plot_pair, plot_diff, diff_table, dis_table],
            api_name="compare",
        )
        demo.load(refresh, [view, coverage], [board, csv, coverage, pick], api_visibility="private")
    return demo


def launch(config: SpaceConfig | Space, *, prevent_thread_lock: bool = False) -> gr.Blocks:
    """Build, queue and launch the Space on `config.host:config.port`."""
    space = config if isinstance(config, Space) else Space(config)
    limits = space.limits
    demo = build_app(space)
    demo.queue(default_concurrency_limit=limits.concurrency, max_size=limits.queue_size)
    demo.launch(
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
