"""The Gradio UI: wires `service.Space` methods to components. No logic lives here.

Every user string reaches the page through plain-text components (Textbox, "str" Dataframe
cells, Dropdown labels, escaped plotly labels); Markdown and HTML hold only our own text.
"""

from __future__ import annotations

import os

# before gradio is imported: no usage analytics, no version check from the server
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import logging  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import gradio as gr  # noqa: E402

from . import compare, detail, table, uploads  # noqa: E402
from .paper import PAPER_CITATION  # noqa: E402
from .service import WITHDRAW_REFUSED, Space, SpaceConfig  # noqa: E402

log = logging.getLogger(__name__)

HEADER = """# RespondeoQA leaderboard
Latin-English question answering: multiple choice, 1-word short answers, scansion and
translation, scored with the paper's protocol (Hudspeth, Burns and O'Connor 2026).
Rows marked *reported in paper* are the published numbers; every other row was scored here.
Ranks count only among entries scored on the same sources (the *Coverage* column)."""

ABOUT = f"""## The benchmark
RespondeoQA has 7,829 Latin-English questions from the NJCL Certamen (1996-2009), the National
Latin Exam (NLE: 2015, 2020, 2025), *Latin Grammar and Junior Scholarship Papers* (shown as
Junior Scholarship) and *Exercises in Latin Prosody and Versification* (shown as Latin Prosody).
The last two are public domain and published upstream (github.com/slanglab/RespondeoQA);
Certamen and NLE questions are not redistributed.

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
- **BLEU** is corpus BLEU (sacreBLEU, lowercased, 13a tokens) per target language.
  {table.PADDING_SENTENCE} The leaderboard therefore shows **BLEU (paper, padded)** only beside
  **BLEU (no padding)** and **chrF** (character n-gram F-score).
- Intervals are 95% bootstrap intervals over items (1,000 resamples, seed 12345). Compare uses a
  paired bootstrap over the items both entries were scored on.
- Numbers: accuracy in %, BLEU and chrF in points, one decimal everywhere (the CSV too);
  "\u2014" marks a value that is not reported in the paper, not covered by the entry's sources,
  or hidden because it rests on too few private items.
- The paper's overall accuracy for LLaMa 3.3 70B is 71.92; its released notebook prints 71.29.

## Data terms
Certamen questions are copyrighted and hosted by the Junior Classical League; the National Latin
Exam may not be used to generate profit. This Space never shows their gold answers: the
disagreement table in Compare and the per-item download of an entry list public items only.

## Citation
{PAPER_CITATION}: *RespondeoQA: a Benchmark for Bilingual Latin-English Question Answering*.
"""

SUBMIT_REFUSED = "Not accepted"  # how service.submit starts every refusal

SUBMIT_HELP = """Upload predictions in any format the evaluator accepts (`.jsonl`, `.csv` or the
paper's `.json` layout), or a harness log as it is: an lm-evaluation-harness `samples_*.jsonl`
file or a lighteval `details_*.parquet` file (raw generations, scored with the paper's
extraction). The file is scored at once and appears on the leaderboard; the same predictions are
not stored twice. Model name, link and note are shown as plain text; links must be http(s)."""

WITHDRAW_HELP = """**Withdraw my entry**: logged in, you can remove an entry you submitted
(its number is in the *Entry* column). It leaves the leaderboard, Compare and the CSV at once."""

COMPARE_HELP = """Pick two or more entries and press Compare: bars by content type and by language
pair (95% intervals as error bars, item counts on the bars). For exactly two scored submissions,
also the paired difference per category and the public items where they disagree."""

DETAIL_HELP = """**Entry detail**: pick an entry here or click its row in the table: its full
breakdown, what is known about it, and a download of its per-item results on public items."""

# Rank and Model stay in view whatever the horizontal scroll: Gradio 6's Dataframe renders cells
# as divs with data-col / data-heading; the widths come from table.column_widths.
_RANK_W = 64
_MODEL_W, _MODEL_W_PHONE = 220, 124
_PIN = "#leaderboard-table"
CSS = f"""
{_PIN} .body-cell[data-col="0"], {_PIN} .body-cell[data-col="1"],
{_PIN} th[data-heading="0"], {_PIN} th[data-heading="1"] {{
  position: sticky; z-index: 3;
  background: var(--table-even-background-fill, var(--background-fill-primary));
}}
{_PIN} .row-odd .body-cell[data-col="0"], {_PIN} .row-odd .body-cell[data-col="1"] {{
  background: var(--table-odd-background-fill, var(--background-fill-secondary));
}}
{_PIN} th[data-heading="0"], {_PIN} th[data-heading="1"] {{
  z-index: 5; background: var(--table-even-background-fill, var(--background-fill-primary));
}}
{_PIN} .body-cell[data-col="0"], {_PIN} th[data-heading="0"] {{ left: 0; }}
{_PIN} .body-cell[data-col="1"], {_PIN} th[data-heading="1"] {{
  left: {_RANK_W}px; box-shadow: 2px 0 0 var(--border-color-primary);
}}
#leaderboard-table th .header-content span, #disagreements th .header-content span,
#differences th .header-content span {{ white-space: normal; line-height: 1.2; }}
.msg-ok textarea {{ border-left: 6px solid #1f9d55 !important; background: #effaf3 !important; }}
.msg-error textarea {{ border-left: 6px solid #c53030 !important; background: #fdf0f0 !important; }}
.msg-warn textarea {{ border-left: 6px solid #c27c0e !important; background: #fff8e6 !important; }}
@media (max-width: 640px) {{
  {_PIN} .body-cell[data-col="1"], {_PIN} th[data-heading="1"] {{
    width: {_MODEL_W_PHONE}px !important; min-width: {_MODEL_W_PHONE}px !important;
    max-width: {_MODEL_W_PHONE}px !important; flex: 0 0 {_MODEL_W_PHONE}px !important;
  }}
}}
"""


def _view(value: Any) -> str:
    return value if value in table.VIEWS else "Overview"


# Reads (board, legend, entry detail, the page's load event) run outside Gradio's queue: a page
# load never waits behind a submission being scored, nor counts toward the queue's size. API
# clients (gradio_client always joins the queue) get their own concurrency group, apart from
# "submit". Every read is served from the Space's per-data-version cache (Space.cached).
READ = {"queue": False, "concurrency_id": "read", "concurrency_limit": None}

# The board (and the pickers) show this many best rows of each coverage, the CSV every entry:
# a page of 10,000 entries would send and render megabytes.
BOARD_MAX_ROWS = 300
BOARD_LABEL = "Leaderboard"


def _render_board(
    space: Space, view: str, coverage: str | None, board: gr.Dataframe
) -> dict[str, Any]:
    """The board as its Dataframe sends it (headers, cells, display values, styling):
    rendered once per database change, view and coverage."""
    df = space.table(view, coverage)
    submitter = table.SUBMITTER in df.columns
    top = df.groupby("Coverage", sort=False).head(BOARD_MAX_ROWS).reset_index(drop=True)
    payload = board.postprocess(table.styled(top)).model_dump()
    shown = {
        "value": payload,
        "datatype": table.datatypes(view, submitter),
        "column_widths": table.column_widths(view, submitter),
        "label": BOARD_LABEL
        if len(top) == len(df)
        else f"{BOARD_LABEL}: the best {BOARD_MAX_ROWS} rows of each coverage ({len(top):,} of "
        f"{len(df):,} rows; the CSV holds every entry)",
    }
    return {"table": shown, "csv": str(space.csv_file(view, coverage))}


def _shown_board(
    space: Space, view: str, coverage: str | None, board: gr.Dataframe
) -> dict[str, Any]:
    return space.cached(
        ("board", view, coverage), lambda: _render_board(space, view, coverage, board)
    )


def _board(space: Space, view: str, coverage: str | None, board: gr.Dataframe) -> tuple[Any, Any]:
    shown = _shown_board(space, _view(view), coverage, board)
    return gr.Dataframe(**shown["table"]), gr.DownloadButton(value=shown["csv"])


def _picker_choices(space: Space) -> list[tuple[str, str]]:
    """The Entry and Compare pickers' choices: every entry, or on a board too long to show
    whole, the entries of its shown rows (thousands of options cost the browser seconds)."""
    choices = space.choices()
    overview = space.table("Overview")
    if len(overview) <= BOARD_MAX_ROWS:
        return choices
    shown = overview.groupby("Coverage", sort=False).head(BOARD_MAX_ROWS)["Entry"]
    keep = {f"e:{e[1:]}" for e in shown if str(e).startswith("#")}
    return [c for c in choices if not c[1].startswith("e:") or c[1] in keep]


def _page(
    space: Space, view: str, coverage: str | None, board: gr.Dataframe, plain: bool = False
) -> tuple[Any, ...]:
    """Board, CSV, coverage and entry choices after a load or a write (one cache read).

    `plain` (the page's load event): the board and the CSV as plain values when the board's
    columns are the page's own, so that Gradio builds no component per page load; API outputs
    keep their update form.
    """
    view = _view(view)

    def build() -> tuple[Any, ...]:
        shown = _shown_board(space, view, coverage, board)
        return shown, space.coverage_choices(), _picker_choices(space)

    shown, coverages, choices = space.cached(("page", view, coverage), build)
    args = board.constructor_args
    plain = plain and all(
        shown["table"][k] == args.get(k) for k in ("datatype", "column_widths", "label")
    )
    return (
        shown["table"]["value"] if plain else gr.Dataframe(**shown["table"]),
        shown["csv"] if plain else gr.DownloadButton(value=shown["csv"]),
        gr.Dropdown(choices=coverages),
        gr.Dropdown(choices=choices),
        gr.Dropdown(choices=choices),
    )


def _min_private(space: Space) -> int | None:
    return getattr(space.limits, "min_private_items", None)


def _username(profile: Any) -> str:
    """The Hugging Face username of a `gr.OAuthProfile` ("" when not logged in): the only
    personal datum the Space keeps."""
    return "" if profile is None else str(getattr(profile, "username", "") or "")


def build_app(config: SpaceConfig | Space) -> gr.Blocks:
    """The Space's Blocks (not launched); `config` may be a ready `Space`."""
    space = config if isinstance(config, Space) else Space(config)
    views = list(table.VIEWS)
    # the page's config holds no rows (it is copied for every page request); the load event
    # fills the board from the cache at once
    first = space.table("Overview").head(0)
    first_submitter = table.SUBMITTER in space.table("Overview").columns
    detail_dir = Path(tempfile.mkdtemp(prefix="respondeoqa-detail-"))

    # uploaded predictions and generated CSVs leave Gradio's cache (uploads.delete_cache)
    with gr.Blocks(
        title="RespondeoQA leaderboard",
        analytics_enabled=False,
        delete_cache=uploads.delete_cache(space.limits),
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
                    value=table.styled(first),
                    datatype=table.datatypes("Overview", first_submitter),
                    column_widths=table.column_widths("Overview", first_submitter),
                    interactive=False,
                    show_search="search",
                    max_height=620,
                    label=BOARD_LABEL,
                    elem_id="leaderboard-table",
                )
                csv = gr.DownloadButton(
                    "Download CSV", value=str(space.csv_file("Overview")), elem_id="csv"
                )
                legend = gr.Markdown(
                    table.legend("Overview", _min_private(space)), elem_id="legend"
                )
                gr.Markdown(DETAIL_HELP)
                detail_pick = gr.Dropdown(
                    [], value=None, label="Entry", elem_id="detail-pick"
                )  # choices from the load event
                detail_msg = gr.Textbox(
                    label="Entry", interactive=False, visible=False, elem_id="detail-msg"
                )
                with gr.Row():
                    detail_meta = gr.Dataframe(
                        headers=["Field", "Value"],
                        datatype=["str", "str"],
                        interactive=False,
                        wrap=True,
                        column_widths=["35%", "65%"],
                        label="About this entry",
                        visible=False,
                        elem_id="detail-meta",
                    )
                    detail_breakdown = gr.Dataframe(
                        datatype=table.BREAKDOWN_DATATYPES,
                        interactive=False,
                        label="Full breakdown",
                        visible=False,
                        max_height=520,
                        elem_id="detail-breakdown",
                    )
                detail_csv = gr.DownloadButton(
                    "Download its public per-item results (CSV)",
                    visible=False,
                    elem_id="detail-csv",
                )
            with gr.Tab("Compare", id="compare"):
                gr.Markdown(COMPARE_HELP)
                pick = gr.Dropdown(
                    [],  # choices from the load event
                    multiselect=True,
                    label="Entries to compare (two or more)",
                    # entries newer than this session are not in its choices; the service
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
            with gr.Tab("Submit", id="submit"):
                gr.Markdown(SUBMIT_HELP)
                if space.config.oauth:  # a Space with `hf_oauth: true`: submitting needs a login
                    gr.LoginButton(elem_id="login")
                upload = gr.File(
                    label="Predictions file",
                    file_types=[".jsonl", ".csv", ".json", ".parquet"],
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
                submit_msg = gr.Textbox(
                    label="Result", interactive=False, visible=False, elem_id="submit-msg"
                )
                breakdown = gr.Dataframe(
                    label="Your entry's breakdown",
                    interactive=False,
                    elem_id="breakdown",
                    datatype=table.BREAKDOWN_DATATYPES,
                    visible=False,
                )
                if space.config.oauth:  # withdrawing needs to know who is asking: a login
                    gr.Markdown(WITHDRAW_HELP)
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
            with gr.Tab("About", id="about"):
                gr.Markdown(ABOUT)

        def show_board(v: str, cov: str | None) -> tuple[Any, Any]:
            return _board(space, v, cov, board)

        def show_legend(v: str) -> str:
            return table.legend(_view(v), _min_private(space))

        def refresh(v: str, cov: str | None) -> tuple[Any, ...]:
            return _page(space, v, cov, board)

        def load_page(v: str, cov: str | None) -> tuple[Any, ...]:
            return _page(space, v, cov, board, plain=True)

        def do_submit(
            path: str | None,
            m: str,
            lk: str,
            pm: str,
            nt: str,
            v: str,
            cov: str | None,
            request: gr.Request,
            profile: Any = None,
        ) -> tuple[Any, ...]:
            from .limits import client_of

            # logged in: the quota is per Hugging Face user and the entry shows the username
            user = _username(profile)
            client = f"hf:{user}" if user else client_of(request, space.config.trusted_proxies)
            outcome = space.submit(path, m, lk, pm, nt, client=client, submitter=user)
            board_value, csv_value, cov_value, pick_value, _ = refresh(v, cov)
            shown = table.breakdown_display(outcome.breakdown) if outcome.ok else outcome.breakdown
            # API outputs stay plain values; look and visibility follow in `style_submit`
            return (outcome.message, shown, board_value, csv_value, cov_value, pick_value)

        def style_submit(message: str | None) -> tuple[Any, Any]:
            ok = bool(message) and not str(message).startswith(SUBMIT_REFUSED)
            return (
                gr.Textbox(visible=True, elem_classes=["msg-ok" if ok else "msg-error"]),
                gr.Dataframe(visible=ok),
            )

        def do_compare(keys: list[str] | None) -> tuple[Any, ...]:
            out = space.compare(keys)
            return (
                out.message,
                out.by_content,
                out.by_pair,
                out.difference,
                compare.differences_display(out.differences),
                out.disagreements,
            )

        def show_compare_parts(keys: list[str] | None) -> tuple[Any, ...]:
            drawn, paired = detail.compare_shape(space, keys)
            text = detail.coverage_warning(space, keys)
            return (
                gr.Textbox(visible=True),
                gr.Textbox(value=text, visible=bool(text)),
                gr.Plot(visible=drawn),
                gr.Plot(visible=drawn),
                gr.Plot(visible=paired),
                gr.Dataframe(visible=paired),
                gr.Dataframe(visible=paired),
            )

        def show_detail(key: str | None) -> tuple[Any, ...]:
            row = space.canonical(key)
            found = (
                None
                if row is None
                else space.cached(
                    ("detail", row), lambda: detail.entry_detail(space, row, detail_dir)
                )
            )
            if found is None:
                hide = gr.update(visible=False)
                return hide, hide, hide, hide
            return (
                gr.Textbox(value=found.message, visible=True),
                gr.Dataframe(value=found.metadata, visible=True),
                gr.Dataframe(value=table.breakdown_display(found.breakdown), visible=True),
                gr.DownloadButton(
                    value=None if found.items_csv is None else str(found.items_csv),
                    visible=found.items_csv is not None,
                ),
            )

        def pick_row(evt: gr.SelectData, v: str) -> Any:
            headers = table.display_columns(_view(v), table.SUBMITTER in space.table(_view(v)))
            key = detail.key_of_row(evt.row_value or [], headers)
            return gr.Dropdown(value=key) if key else gr.update()

        view.change(show_board, [view, coverage], [board, csv], api_name="leaderboard", **READ)
        view.change(show_legend, [view], [legend], api_visibility="private", **READ)
        coverage.change(
            show_board, [view, coverage], [board, csv], api_visibility="private", **READ
        )
        board.select(pick_row, [view], [detail_pick], api_visibility="private", **READ)
        detail_pick.change(
            show_detail,
            [detail_pick],
            [detail_msg, detail_meta, detail_breakdown, detail_csv],
            api_visibility="private",
            **READ,
        )

        def do_submit_logged_in(
            path: str | None,
            m: str,
            lk: str,
            pm: str,
            nt: str,
            v: str,
            cov: str | None,
            request: gr.Request,
            profile: gr.OAuthProfile | None,
        ) -> tuple[Any, ...]:
            return do_submit(path, m, lk, pm, nt, v, cov, request, profile)

        def do_withdraw(
            entry_id: str, v: str, cov: str | None, profile: gr.OAuthProfile | None
        ) -> tuple[Any, ...]:
            out = space.withdraw(entry_id, _username(profile))
            ok = not out.message.startswith(WITHDRAW_REFUSED)
            shown = gr.Textbox(
                value=out.message, visible=True, elem_classes=["msg-ok" if ok else "msg-error"]
            )
            return (shown, *refresh(v, cov))

        # Gradio adds its login routes when a handler takes gr.OAuthProfile; off a Space (no
        # OAuth app) those need a local HF login, so the address-limited handler is used there
        submit_btn.click(
            do_submit_logged_in if space.config.oauth else do_submit,
            [upload, model, link, params, note, view, coverage],
            [submit_msg, breakdown, board, csv, coverage, pick],
            api_name="submit",
            concurrency_limit=space.limits.submit_concurrency,
            concurrency_id="submit",
        ).then(
            lambda m: (*style_submit(m), gr.Dropdown(choices=space.choices())),
            [submit_msg],
            [submit_msg, breakdown, detail_pick],
            api_visibility="private",
        )
        if space.config.oauth:
            withdraw_btn.click(
                do_withdraw,
                [withdraw_id, view, coverage],
                [withdraw_msg, board, csv, coverage, pick, detail_pick],
                api_visibility="private",
                concurrency_id="submit",  # a write: in line with submissions
            )
        compare_btn.click(
            do_compare,
            [pick],
            [compare_msg, plot_content, plot_pair, plot_diff, diff_table, dis_table],
            api_name="compare",
            # a bootstrap per new pair: queued (bounded), in its own group, never behind "submit"
            concurrency_id="compare",
            concurrency_limit=space.limits.concurrency,
        ).then(
            show_compare_parts,
            [pick],
            [compare_msg, compare_warn, plot_content, plot_pair, plot_diff, diff_table, dis_table],
            api_visibility="private",
            **READ,
        )
        demo.load(
            load_page,
            [view, coverage],
            [board, csv, coverage, pick, detail_pick],
            api_visibility="private",
            **READ,
        )
    return demo


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def launch(config: SpaceConfig | Space, *, prevent_thread_lock: bool = False) -> gr.Blocks:
    """Build, queue and launch the Space on `config.host:config.port`."""
    space = config if isinstance(config, Space) else Space(config)
    limits = space.limits
    demo = build_app(space)
    demo.queue(default_concurrency_limit=limits.concurrency, max_size=limits.queue_size)
    # uvicorn would take the client address from X-Forwarded-For of any loopback peer; the
    # Space reads that header itself, only as far as SpaceConfig.trusted_proxies allows
    os.environ["FORWARDED_ALLOW_IPS"] = ""
    from starlette.middleware import Middleware

    guard = Middleware(
        uploads.UploadGuard,
        budget=uploads.UploadBudget(limits),
        trusted_proxies=space.config.trusted_proxies,
    )
    import atexit
    import signal

    # a Space restart sends SIGTERM: leave through Gradio's shutdown, then push the outbox
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    atexit.register(space.close)
    demo.launch(
        app_kwargs={"middleware": [guard]},
        css=CSS,  # Gradio 6 takes page CSS in launch(), not in Blocks()
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
