"""The Gradio UI: wires `service.Space` methods to components. No logic lives here.

Every user string reaches the page as text: in plain-text components (Textbox, "str" Dataframe
cells, Dropdown labels, escaped plotly labels) or in the board's HTML, which
`table.board_html` escapes cell by cell. Markdown holds only our own text.
"""

from __future__ import annotations

import os

# before gradio is imported: no usage analytics, no version check from the server
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import html  # noqa: E402
import logging  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import urlencode  # noqa: E402

import gradio as gr  # noqa: E402

from ..sources import PAPER_BIBTEX  # noqa: E402
from . import compare, detail, table, uploads  # noqa: E402
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
```bibtex
{PAPER_BIBTEX}
```
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

# The board is our own HTML table (table.board_html escapes every cell): a Dataframe of a few
# hundred rows cost the server a traversal of every cell per page load and the browser seconds.
# Rank and Model stay in view whatever the horizontal scroll (sticky cells, fixed Rank width);
# the header row stays in view whatever the vertical scroll.
_RANK_W = 64
_MODEL_W, _MODEL_W_PHONE = 220, 124
_PIN = "#leaderboard-table"
CSS = f"""
{_PIN} .board-search {{
  width: min(420px, 100%); margin: 0 0 8px; padding: 6px 10px; font-size: 14px;
  border: 1px solid var(--border-color-primary); border-radius: 6px;
  background: var(--background-fill-primary); color: var(--body-text-color);
}}
{_PIN} .board-csv {{
  float: right; margin: 2px 0 8px; padding: 5px 12px; font-size: 14px; text-decoration: none;
  border: 1px solid var(--border-color-primary); border-radius: 6px;
  color: var(--body-text-color); background: var(--button-secondary-background-fill);
}}
{_PIN} .board-caption {{ clear: both; margin: 0 0 6px; font-size: 13px; color: var(--body-text-color-subdued); }}
{_PIN} .board-wrap {{
  clear: both; overflow: auto; max-height: 620px; border: 1px solid var(--border-color-primary);
  border-radius: 8px;
}}
{_PIN} table.board {{
  border-collapse: separate; border-spacing: 0; width: max-content; min-width: 100%;
  font-size: 14px; color: var(--body-text-color);
}}
{_PIN} .board th, {_PIN} .board td {{
  padding: 6px 10px; border-bottom: 1px solid var(--border-color-primary); text-align: left;
  white-space: nowrap; background-color: var(--background-fill-primary); box-sizing: border-box;
}}
{_PIN} .board tbody tr:nth-child(even) td {{
  background-color: var(--background-fill-secondary);
}}
{_PIN} .board thead th {{
  position: sticky; top: 0; z-index: 2; white-space: normal; vertical-align: bottom;
  line-height: 1.2; cursor: pointer; user-select: none;
  background-color: var(--background-fill-secondary); font-weight: 600;
}}
{_PIN} .board th[aria-sort="ascending"]::after {{ content: " \\25B2"; font-size: 10px; }}
{_PIN} .board th[aria-sort="descending"]::after {{ content: " \\25BC"; font-size: 10px; }}
{_PIN} .board td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
{_PIN} .board td.b {{
  font-weight: 700; background-image: linear-gradient(rgba(34, 160, 90, 0.18),
  rgba(34, 160, 90, 0.18));
}}
{_PIN} .board tbody tr[data-key] {{ cursor: pointer; }}
{_PIN} .board tbody tr[data-key]:hover td, {_PIN} .board tbody tr.picked td {{
  background-image: linear-gradient(rgba(60, 110, 220, 0.10), rgba(60, 110, 220, 0.10));
}}
{_PIN} .board td:nth-child(1), {_PIN} .board th:nth-child(1) {{
  position: sticky; left: 0; z-index: 1; width: {_RANK_W}px; min-width: {_RANK_W}px !important;
  max-width: {_RANK_W}px;
}}
{_PIN} .board td:nth-child(2), {_PIN} .board th:nth-child(2) {{
  position: sticky; left: {_RANK_W}px; z-index: 1; width: {_MODEL_W}px;
  min-width: {_MODEL_W}px !important; max-width: {_MODEL_W}px; white-space: normal;
  overflow-wrap: anywhere; box-shadow: 2px 0 0 var(--border-color-primary);
}}
{_PIN} .board thead th:nth-child(-n+2) {{ z-index: 3; }}
#disagreements th .header-content span, #differences th .header-content span {{
  white-space: normal; line-height: 1.2;
}}
.msg-ok textarea {{ border-left: 6px solid #1f9d55 !important; background: #effaf3 !important; }}
.msg-error textarea {{ border-left: 6px solid #c53030 !important; background: #fdf0f0 !important; }}
.msg-warn textarea {{ border-left: 6px solid #c27c0e !important; background: #fff8e6 !important; }}
@media (max-width: 640px) {{
  {_PIN} .board td:nth-child(2), {_PIN} .board th:nth-child(2) {{
    width: {_MODEL_W_PHONE}px; min-width: {_MODEL_W_PHONE}px !important;
    max-width: {_MODEL_W_PHONE}px;
  }}
}}
"""

# The board's search box sits outside the table, in the component's template; until the table
# arrives the template says so.
BOARD_TEMPLATE = (
    '<input type="search" class="board-search" placeholder="Search models, coverage, entries"'
    ' aria-label="Search the leaderboard">'
    "${value || '<p class=\"board-caption\">Loading the leaderboard\u2026</p>'}"
)

# Our own script for the board (the HTML component runs it once, with `element` its root,
# `props` its properties and `trigger` its events). A page load fetches the table from the
# BOARD_ROUTE (cached HTML, no Gradio event, no session, no queue); then it sorts on a header
# click, filters as the search box is typed in, and a click on an entry's row fires `select`
# with the row's key (the entry detail). Listeners sit on the root, which Gradio keeps when a new
# table arrives; sort and filter are re-applied then.
BOARD_JS = """
let query = "", sortCol = null, sortDir = 1;
if (!props.value) {
  fetch(new URL(props.board_src, location.href), {cache: "no-store"})
    .then((r) => (r.ok ? r.text() : Promise.reject(r.status)))
    .then((html) => { if (!props.value) props.value = html; })
    .catch(() => {
      if (!props.value) props.value = props.board_error;
    });
}
const rows = () => Array.from(element.querySelectorAll("table.board tbody tr"));
function filterRows() {
  const q = query.trim().toLowerCase();
  for (const tr of rows()) tr.hidden = q !== "" && !tr.textContent.toLowerCase().includes(q);
}
function sortRows() {
  const body = element.querySelector("table.board tbody");
  const th = element.querySelector(`table.board th[data-heading="${sortCol}"]`);
  if (!body || !th) return;
  const num = th.dataset.type === "num";
  const key = (tr) => {
    const td = tr.children[sortCol];
    if (!td) return null;
    const text = td.textContent;
    if (!num) return text;
    const value = parseFloat(text);
    return Number.isNaN(value) ? null : value;  // the missing mark
  };
  const sorted = rows().sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null);  // missing values last
    return (num ? x - y : String(x).localeCompare(String(y))) * sortDir;
  });
  for (const tr of sorted) body.appendChild(tr);
  for (const h of element.querySelectorAll("table.board th")) h.removeAttribute("aria-sort");
  th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
}
element.addEventListener("input", (e) => {
  if (!e.target.classList.contains("board-search")) return;
  query = e.target.value;
  filterRows();
});
element.addEventListener("click", (e) => {
  const th = e.target.closest("table.board th");
  if (th) {
    const col = Number(th.dataset.heading);
    const higherFirst = th.dataset.type === "num" && col !== 0;
    sortDir = col === sortCol ? -sortDir : (higherFirst ? -1 : 1);
    sortCol = col;
    sortRows();
    return;
  }
  const tr = e.target.closest("table.board tbody tr[data-key]");
  if (!tr) return;
  for (const r of rows()) r.classList.remove("picked");
  tr.classList.add("picked");
  trigger("select", {index: [rows().indexOf(tr), 0], value: tr.dataset.key, selected: true});
});
new MutationObserver(() => {
  const box = element.querySelector(".board-search");
  if (box && box.value !== query) box.value = query;
  if (sortCol !== null) sortRows();
  filterRows();
}).observe(element, {childList: true});
"""


def _view(value: Any) -> str:
    return value if value in table.VIEWS else "Overview"


# Reads run outside Gradio's queue: a page load (read_routes, no Gradio call at all) and the
# events a reader fires (view, coverage, legend, entry detail, pickers) never wait behind a
# submission being scored, nor count toward the queue's size. API clients (gradio_client always
# joins the queue) get their own concurrency group, apart from "submit". Every read is served
# from the Space's per-data-version cache (Space.cached).
READ = {"queue": False, "concurrency_id": "read", "concurrency_limit": None}

# The board (and the pickers) show this many best rows of each coverage, the CSV every entry:
# a page of 10,000 entries would send and render megabytes.
BOARD_MAX_ROWS = 300
BOARD_LABEL = "Leaderboard"


BOARD_ROUTE, CSV_ROUTE = "board", "board.csv"  # GET ?view=...&coverage=... (app routes)
BOARD_ERROR = '<p class="board-caption">The leaderboard could not be loaded: reload the page.</p>'


def _coverage(space: Space, value: Any) -> str:
    """A coverage the board knows (else all coverages): cache keys never hold client strings."""
    return value if value in space.coverage_choices() else table.ALL_COVERAGES


def _query(view: str, coverage: str) -> str:
    return urlencode({"view": view, "coverage": coverage})


def _render_board(space: Space, view: str, coverage: str) -> str:
    """The board's HTML (its CSV link, caption and table): rendered once per database change,
    view and coverage."""
    df = space.table(view, coverage)
    submitter = table.SUBMITTER in df.columns
    top = df.groupby("Coverage", sort=False).head(BOARD_MAX_ROWS).reset_index(drop=True)
    caption = (
        BOARD_LABEL
        if len(top) == len(df)
        else f"{BOARD_LABEL}: the best {BOARD_MAX_ROWS} rows of each coverage ({len(top):,} of "
        f"{len(df):,} rows; the CSV holds every entry)"
    )
    href = html.escape(f"{CSV_ROUTE}?{_query(view, coverage)}")
    link = f'<a id="csv" class="board-csv" href="{href}" download>Download CSV</a>'
    return link + table.board_html(top, caption, table.column_widths(view, submitter))


def _board(space: Space, view: Any, coverage: Any) -> str:
    """The board's HTML for a view and coverage, from the cache."""
    view, coverage = _view(view), _coverage(space, coverage)
    return space.cached(("board", view, coverage), lambda: _render_board(space, view, coverage))


def _csv_name(view: str, coverage: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", f"{view} {coverage}".lower()).strip("-")
    return f"respondeoqa-leaderboard-{slug}.csv"


def read_routes(space: Space) -> list[Any]:
    """The app's own read routes, served outside Gradio (no session, no queue) from the cache:
    the board's HTML (what a page load fetches) and its CSV."""
    from starlette.responses import HTMLResponse, Response
    from starlette.routing import Route

    no_store = {"Cache-Control": "no-store"}

    def board(request: Any) -> Response:
        q = request.query_params
        return HTMLResponse(_board(space, q.get("view"), q.get("coverage")), headers=no_store)

    def board_csv(request: Any) -> Response:
        q = request.query_params
        view, coverage = _view(q.get("view")), _coverage(space, q.get("coverage"))
        return Response(
            space.csv_file(view, coverage).read_bytes(),
            media_type="text/csv; charset=utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="{_csv_name(view, coverage)}"',
                **no_store,
            },
        )

    # sync endpoints: Starlette runs them in its thread pool, never on the event loop
    return [Route(f"/{BOARD_ROUTE}", board), Route(f"/{CSV_ROUTE}", board_csv)]


def _picker_choices(space: Space) -> list[tuple[str, str]]:
    """The Entry and Compare pickers' choices (cached): every entry, or on a board too long to
    show whole, the entries of its shown rows (thousands of options cost the browser seconds).
    A page load sends none (it makes no Gradio call at all): a picker gets them with the focus.
    """

    def build() -> list[tuple[str, str]]:
        choices = space.choices()
        overview = space.table("Overview")
        if len(overview) <= BOARD_MAX_ROWS:
            return choices
        shown = overview.groupby("Coverage", sort=False).head(BOARD_MAX_ROWS)["Entry"]
        keep = {f"e:{e[1:]}" for e in shown if str(e).startswith("#")}
        return [c for c in choices if not c[1].startswith("e:") or c[1] in keep]

    return space.cached("picker", build)


def _page(space: Space, view: str, coverage: str | None) -> tuple[Any, ...]:
    """Board, coverage and entry choices after a write (each from the cache)."""
    # update dicts, not components: building a Dropdown costs more than the rest of the reply
    return (
        _board(space, view, coverage),
        gr.update(choices=space.coverage_choices()),
        gr.update(choices=_picker_choices(space)),
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
    # the page's config holds no rows: the board's script fetches them from BOARD_ROUTE
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
                board = gr.HTML(
                    "",
                    html_template=BOARD_TEMPLATE,
                    js_on_load=BOARD_JS,
                    apply_default_css=False,
                    elem_id="leaderboard-table",
                    board_src=f"{BOARD_ROUTE}?{_query('Overview', table.ALL_COVERAGES)}",
                    board_error=BOARD_ERROR,
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

        def show_board(v: str, cov: str | None) -> str:
            return _board(space, v, cov)

        def show_legend(v: str) -> str:
            return table.legend(_view(v), _min_private(space))

        def refresh(v: str, cov: str | None) -> tuple[Any, ...]:
            return _page(space, v, cov)

        def leaderboard(view: str = "Overview", coverage: str = table.ALL_COVERAGES) -> dict:
            """Every row of one breakdown view and coverage, as the CSV has them: {"view",
            "coverage", "headers", "data"}; numbers as numbers, null where missing."""
            view, coverage = _view(view), _coverage(space, coverage)
            return space.cached(
                ("api", view, coverage),
                lambda: {
                    "view": view,
                    "coverage": coverage,
                    **table.records(space.table(view, coverage)),
                },
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
            profile: Any = None,
        ) -> tuple[Any, ...]:
            from .limits import client_of

            # logged in: the quota is per Hugging Face user and the entry shows the username
            user = _username(profile)
            client = f"hf:{user}" if user else client_of(request, space.config.trusted_proxies)
            outcome = space.submit(path, m, lk, pm, nt, client=client, submitter=user)
            board_value, cov_value, pick_value = refresh(v, cov)
            shown = table.breakdown_display(outcome.breakdown) if outcome.ok else outcome.breakdown
            # API outputs stay plain values; look and visibility follow in `style_submit`
            return (outcome.message, shown, board_value, cov_value, pick_value)

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

        def pick_row(evt: gr.SelectData) -> Any:
            key = space.canonical(evt.value)  # a row's data-key, sent by the browser
            return gr.update(value=key, choices=_picker_choices(space)) if key else gr.update()

        view.change(show_board, [view, coverage], [board], api_visibility="private", **READ)
        view.change(show_legend, [view], [legend], api_visibility="private", **READ)
        coverage.change(show_board, [view, coverage], [board], api_visibility="private", **READ)
        board.select(pick_row, None, [detail_pick], api_visibility="private", **READ)
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
            board_value, cov_value, choices = refresh(v, cov)
            return shown, board_value, cov_value, choices, choices

        # Gradio adds its login routes when a handler takes gr.OAuthProfile; off a Space (no
        # OAuth app) those need a local HF login, so the address-limited handler is used there
        submit_btn.click(
            do_submit_logged_in if space.config.oauth else do_submit,
            [upload, model, link, params, note, view, coverage],
            [submit_msg, breakdown, board, coverage, pick],
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
                [withdraw_msg, board, coverage, pick, detail_pick],
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
        # API clients read the board as data (every row, like the CSV), in their own group
        gr.api(leaderboard, api_name="leaderboard", concurrency_id="read-api")
        # a page load makes no Gradio call (the board comes from BOARD_ROUTE): the pickers and
        # the coverage filter get today's choices when they get the focus
        for picker in (pick, detail_pick):
            picker.focus(
                lambda: gr.update(choices=_picker_choices(space)),
                None,
                [picker],
                api_visibility="private",
                **READ,
            )
        coverage.focus(
            lambda: gr.update(choices=space.coverage_choices()),
            None,
            [coverage],
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

    from .pagecache import PageCache

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
        app_kwargs={"middleware": [guard, Middleware(PageCache)], "routes": read_routes(space)},
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
