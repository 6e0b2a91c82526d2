"""Builders shared by the Space tests: typed reports (respondeoqa_eval.report), predictions files."""

from __future__ import annotations

import functools
import html
import json
import re
import string
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest
from respondeoqa_eval.data.breakdowns import groups_of
from respondeoqa_eval.data.gold import GoldSet
from respondeoqa_eval.data.records import Record
from respondeoqa_eval.report.model import Accuracy, BleuScore, GoldInfo, ItemResult, Report, Score
from respondeoqa_space.config import Limits
from respondeoqa_space.metadata import clean_metadata
from respondeoqa_space.store import Entry, Store
from respondeoqa_space.store.hub import HubRepo
from respondeoqa_space.store.sync import Syncer
from respondeoqa_space.submission import Intake

WRONG = "zzqqxx"  # never a gold answer; an extracted answer that scores 0


def group(score: float, n: int = 10) -> Score:
    return Score(score, n, (max(0.0, score - 0.05), min(1.0, score + 0.05)))


def item_result(record: Record, score: float | None, extracted: str | None = "x") -> ItemResult:
    """A stored per-item result of a gold record (its groups from the breakdown registry)."""
    return ItemResult(
        record.id,
        record.question_id,
        record.question_language,
        record.task,
        record.source,
        record.question_content,
        extracted,
        score,
        False,
        groups_of(record),
    )


def make_report(
    overall: float,
    *,
    items: list[ItemResult] | None = None,
    sources: tuple[str, ...] = ("jun-schol", "lat-pros"),
    n: int = 100,
    content: dict[str, float] | None = None,
    bleu_latin: float | None = 20.0,
) -> Report:
    """A typed report with chosen numbers (only what the Space reads is filled in)."""
    content = content or {"grammar": overall, "scansion": overall / 2}
    if items is None:
        items = [
            ItemResult(
                f"item-{i}",
                f"item-{i}",
                "english",
                "short_answer",
                sources[0],
                "grammar",
                "x",
                float(i % 2),
                False,
                {"by_task": "short_answer", "by_content": "grammar"},
            )
            for i in range(4)
        ]
    bleu_group = None if bleu_latin is None else BleuScore(bleu_latin, 5, ci=(1.0, 2.0))
    return Report(
        accuracy=Accuracy(
            group(overall, n),
            {
                "by_task": {"short_answer": group(overall, n)},
                "by_content": {k: group(v) for k, v in content.items()},
                "by_language_pair": {"english-latin": group(overall)},
                "by_category": {"knowledge": group(overall), "skill": group(overall)},
                "by_source": {s: group(overall) for s in sources},
            },
        ),
        bleu={"latin": {"overall": bleu_group, "constrained": None, "unconstrained": None}},
        gold=GoldInfo(n_items=n, sources=sources),
        n_items=n,
        items=tuple(items),
    )


def _normalizes_nonempty(text: str) -> bool:
    # PROTOCOL 4: exact match deletes ASCII punctuation; an empty normalised gold cannot be hit
    return any(c not in string.punctuation and not c.isspace() for c in text)


def k_correct_predictions(records: list[Record], k: int) -> tuple[list[dict[str, str]], int]:
    """Rows {id, answer}: the gold answer for the first k accuracy items, WRONG for the others.

    Returns the rows and the number of items that score 1 (k, counted from the protocol: an
    item scores 1 when the extracted answer equals the gold one after normalisation).
    """
    rows, correct = [], 0
    for rec in records:
        gold = rec.answers[0]
        if rec.task != "translation" and correct < k and _normalizes_nonempty(gold):
            answer = gold[0] if rec.task == "multiple_choice" else gold
            correct += 1
        else:
            answer = WRONG
        rows.append({"id": rec.id, "answer": answer})
    return rows, correct


def planted_rows(
    records: list[Record], planted_id: str, right: int, wrong: str, planted: str
) -> list[dict[str, str]]:
    """Answers given already extracted: the first `right` items whose gold can be hit with
    their gold, the planted item with `planted`, every other item with `wrong` (an answer of
    this entry's own)."""
    ok = {r.id for r in [r for r in records if _normalizes_nonempty(r.answers[0])][:right]}
    rows = []
    for r in records:
        answer = r.answers[0] if r.id in ok else wrong
        rows.append({"id": r.id, "answer": planted if r.id == planted_id else answer})
    return rows


GRADED = (
    ("strong-a", 500, "wronga", "plantedwrong"),
    ("strong-b", 450, "wrongb", "plantedwrong"),
    ("strong-c", 400, "wrongc", "plantedwrong"),
    ("weak-a", 300, "wrongd", "wrongd"),
    ("weak-b", 150, "wronge", "wronge"),
    ("weak-c", 50, "wrongf", "wrongf"),
)
"""Six entries of graded strength on the short answers (model, items right, its own wrong
answer, its answer to the planted item): the three strongest agree on the planted item, the
three weak ones give their own word (one entry giving the key's string is, at key_weight 0.1,
evidence enough to keep the posterior under 0.7): the item analysis flags the planted item."""


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def file_records(gold: GoldSet, name: str) -> list[Record]:
    return [r for r in gold.records if r.file == name]


SUBMIT_OK, SUBMIT_ASK = 2, 3  # the /submit outputs: stored?, needs a confirmation?


def submit(
    client: Any,
    path: Path | list[Path],
    model: str,
    link: str = "",
    params: str = "",
    note: str = "",
    **fields: Any,
) -> tuple[Any, ...]:
    """Call the Space's /submit endpoint through gradio_client: the message, the breakdown,
    whether it was stored and whether it needs a confirmation. `fields`: hub_model, weights,
    reasoning, confirm."""
    from gradio_client import handle_file

    paths = path if isinstance(path, list) else [path]
    return client.predict(
        [handle_file(str(p)) for p in paths],
        model,
        link,
        params,
        note,
        fields.get("hub_model", ""),
        fields.get("weights", "not said"),
        fields.get("reasoning", "not said"),
        fields.get("confirm", False),
        api_name="/submit",
    )


# -- the leaderboard as a client reads it ----------------------------------------------------


def board_rows(board: dict[str, Any]) -> list[dict[str, Any]]:
    """A table as an API client gets it (the /leaderboard value, or a Dataframe output's
    {"value": {"headers", "data"}}) as one dict per row."""
    value = board.get("value", board)
    return [dict(zip(value["headers"], row, strict=True)) for row in value["data"]]


def leaderboard(
    client: Any, view: str = "Overview", coverage: str = "all coverages"
) -> list[dict[str, Any]]:
    """Every row of a view through the /leaderboard API (gradio_client)."""
    return board_rows(client.predict(view, coverage, api_name="/leaderboard"))


VOID_TAGS = {"wbr", "br"}  # no end tag, no text: a break opportunity inside a cell's text


class _BoardParser(HTMLParser):
    """Reads the board's HTML table: the columns (by their CSV name, `data-name`), and per data
    row its cells' main text, the text under it, its tooltip, its marks and the row's facts."""

    def __init__(self) -> None:
        super().__init__()
        self.headers: list[str] = []
        self.shown: list[str] = []  # the header texts as the page shows them
        self.rows: list[dict[str, Any]] = []
        self._in_head = False
        self._coverage = ""
        self._row: dict[str, str] | None = None
        self._cells: list[dict[str, Any]] = []
        self._cell: dict[str, Any] | None = None
        self._head: list[str] | None = None
        self._inner: list[str] = []  # the element inside a cell the text goes to

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "thead":
            self._in_head = True
        elif tag == "tbody":
            self._coverage = a.get("data-coverage", "")
        elif tag == "th" and self._in_head:
            self.headers.append(a.get("data-name", ""))
            self._head = []
        elif tag == "tr" and not self._in_head and "data-key" in a:
            self._row, self._cells = a, []
        elif tag == "td" and self._row is not None:
            self._cell = {"text": [], "sub": [], "title": a.get("title", "")}
            self._cell["classes"] = a.get("class", "").split()
            self._inner = []
        elif self._cell is not None and tag not in VOID_TAGS:
            self._inner.append("sub" if "sub" in a.get("class", "").split() else tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "thead":
            self._in_head = False
        elif tag == "th" and self._head is not None:
            self.shown.append("".join(self._head))
            self._head = None
        elif tag == "td" and self._cell is not None:
            self._cells.append(self._cell)
            self._cell = None
        elif self._cell is not None and self._inner:
            self._inner.pop()
        elif tag == "tr" and self._row is not None:
            cells = self._cells
            row: dict[str, Any] = {
                h: "".join(c["text"]).strip() for h, c in zip(self.headers, cells, strict=True)
            }
            row["_key"] = self._row.get("data-key")
            row["_best"] = [
                h for h, c in zip(self.headers, cells, strict=True) if "b" in c["classes"]
            ]
            row["_small"] = [
                h for h, c in zip(self.headers, cells, strict=True) if "s" in c["classes"]
            ]
            row["_sub"] = {h: "".join(c["sub"]) for h, c in zip(self.headers, cells, strict=True)}
            row["_title"] = {h: c["title"] for h, c in zip(self.headers, cells, strict=True)}
            row["_coverage"] = self._coverage
            row["_data"] = {k: v for k, v in self._row.items() if k.startswith("data-")}
            self.rows.append(row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._head is not None:
            self._head.append(data)
        elif self._cell is not None:
            if not self._inner:
                self._cell["text"].append(data)
            elif self._inner[-1] == "sub":
                self._cell["sub"].append(data)
            # text of other elements inside a cell (the Hub link's arrow) is not the value


def parse_board(board_html: str) -> tuple[list[str], list[dict[str, Any]]]:
    """(column names, rows) of the board's HTML; each row maps a column's CSV name to its
    cell's main text (HTML entities decoded, as a browser shows them), plus "_key" (its
    data-key), "_best" / "_small" (the columns marked best / resting on few items), "_sub"
    (the text under each value: an interval, a rank range), "_title" (each tooltip),
    "_coverage" (its section) and "_data" (its data- attributes)."""
    parser = _BoardParser()
    parser.feed(board_html)
    parser.close()
    return parser.headers, parser.rows


def page_board(url: str, view: str = "Overview", coverage: str = "all coverages") -> str:
    """The board's HTML as the page's pickers fetch it: from the URL its root's properties
    (`data-props` on `#leaderboard-table` in the page at `/`) name."""
    page = httpx.get(url, timeout=30)
    page.raise_for_status()
    found = re.search(r"<div id=\"leaderboard-table\" data-props='([^']*)'", page.text)
    assert found, "the page has no board"
    src = json.loads(html.unescape(found.group(1)))["board_src"]
    path = src.split("?", 1)[0]
    resp = httpx.get(url + path, params={"view": view, "coverage": coverage}, timeout=60)
    resp.raise_for_status()
    return resp.text


# -- real entries, and a record on the Hub stand-in ---------------------------------------


def intake_of(store: Store, gold: GoldSet, bootstrap: int = 20) -> Intake:
    """The Space's one path from predictions to entries, on `store` and `gold`."""
    return Intake(store, gold, limits=Limits(), bootstrap=bootstrap)


def stored(
    intake: Intake, folder: Path, rows: list[dict[str, Any]], model: str, submitter: str = ""
) -> Entry:
    """`rows` written to a file in `folder`, scored and stored as the operator would."""
    path = write_jsonl(folder / f"{model.replace(' ', '-')}.jsonl", rows)
    meta = clean_metadata(model, "", "", "", Limits())
    return intake.submit(path, meta, client=None, submitter=submitter).entry


def record_repo(hub: Any, cache: Path) -> HubRepo:
    """The record repo on the stand-in (created; retries without waiting)."""
    from kit.hubstub import RECORD_REPO, TOKEN

    repo = HubRepo(
        RECORD_REPO, token=TOKEN, endpoint=hub.url, cache_dir=cache, sleep=lambda s: None
    )
    repo.create(private=True)
    return repo


def syncer_of(store: Store, repo: HubRepo, gold: GoldSet, **kwargs: Any) -> Syncer:
    """A Syncer that verifies what it reads against `gold`, as the Space does."""
    return Syncer(store, repo, verify=intake_of(store, gold).verify, limits=Limits(), **kwargs)


# -- the page in a browser -------------------------------------------------------------------


def open_page(page: Any, name: str) -> None:
    """Go to the Space's page `name` by its link in the navigation bar (in view at every width:
    none hides in a menu) and wait until it has loaded."""
    link = page.get_by_role("link", name=name, exact=True)
    link.wait_for(state="visible", timeout=30_000)  # a page still loading shows it soon
    link.click()
    # the new page is up once its navigation bar marks its own link (not "networkidle": a
    # page with a login button keeps a connection open, and a loaded machine never idles)
    page.locator("nav a.active").filter(has_text=name).wait_for(timeout=30_000)
    page.wait_for_load_state("load")


def compare_entries(page: Any, ids: list[Any]) -> None:
    """On the Compare page: pick the entries `ids` (typed as "#12 ") and press Compare."""
    pick = page.locator("#compare-pick input").first
    for ident in ids:
        pick.click()
        pick.fill(f"#{ident} ")
        page.get_by_role("option").filter(has_text=f"#{ident} ").first.click()
    page.keyboard.press("Escape")
    page.locator("#compare-btn").click()


def choose(page: Any, picker: str, text: str) -> None:
    """Pick, in the board's own picker `picker` ("view" or "coverage"), the option labelled
    `text` (or ending in "(text)"), and wait for the new table."""
    select = page.locator(f'#leaderboard-table select[data-board="{picker}"]')
    labels = [t.strip() for t in select.locator("option").all_inner_texts()]
    label = next((t for t in labels if t == text or t.endswith(f"({text})")), None)
    assert label is not None, (picker, text, labels)
    select.select_option(label=label)
    # the board's script marks the table busy until the new one is in
    page.wait_for_function(
        "() => !document.querySelector("
        "'#leaderboard-table[aria-busy=true], #leaderboard-table [aria-busy=true]')",
        timeout=30_000,
    )


# -- layout in the browser (tests/kit/layout.js) -----------------------------------------------


@functools.cache
def _layout() -> str:
    """tests/kit/layout.js, read when a browser check first needs it (not at import: test_store
    imports a copy of this module from a temporary folder)."""
    return (Path(__file__).parents[1] / "kit" / "layout.js").read_text(encoding="utf-8")


CELLS = "th, td, [role=gridcell]"  # every table's headers and cells (Gradio's body cells are
# gridcell divs): the board's, the detail's, the Gradio tables'
INSIDE_CELLS = "th, td, [role=gridcell], [role=gridcell] *"  # and the boxes in them
SHOWN = "p, label, h1, h2, h3, th, td, select, button, summary, .gtitle, .line"


def assert_laid_out(page: Any, where: str) -> None:
    """No table header or cell breaks a word across lines or cuts its text off (a box that
    does not scroll), and nothing sticks out of the window without a scrolling box around it
    (tests/kit/layout.js)."""
    broken = page.evaluate(f"(s) => ({_layout()}).brokenWords(s)", CELLS)
    assert broken == [], (where, broken)
    cut = page.evaluate(f"(s) => ({_layout()}).cut(s)", SHOWN)
    cut += page.evaluate(f"(s) => ({_layout()}).clipped(s)", INSIDE_CELLS)
    assert cut == [], (where, cut)


def _check(page: Any, check: str, arg: Any) -> Any:
    """Run the layout check `check` of tests/kit/layout.js in the page with `arg`."""
    return page.evaluate(f"(a) => ({_layout()}).{check}(a)", arg)


def settled(page: Any, timeout: float = 30_000) -> None:
    """Wait until no Gradio event is under way in the page: its progress timers (faded text
    over a component, for as long as the event runs) are gone."""
    page.wait_for_function(
        "() => ![...document.querySelectorAll('.progress-text, .eta-bar')]"
        ".some((e) => e.checkVisibility())",
        timeout=timeout,
    )


def assert_readable(page: Any, where: str, selector: str = "body") -> None:
    """Every shown text in `selector` reads at WCAG AA against what is behind it (4.5:1, large
    text 3:1), from the page's computed styles (layout.js `contrast`), once the page has
    settled (`settled`)."""
    settled(page)
    low = _check(page, "contrast", selector)
    assert low == [], (where, low)


def assert_headers_aligned(page: Any, table: str, where: str) -> None:
    """Each header of the table `table` is aligned as the values under it are ("95% CI" over
    right-aligned numbers at the right too)."""
    off = _check(page, "misaligned", table)
    assert off == [], (where, off)


def assert_apart(page: Any, selector: str, where: str) -> None:
    """No two of the elements `selector` (a chart's labels and titles) overlap."""
    over = _check(page, "overlapping", selector)
    assert over == [], (where, over)


def assert_uncovered(page: Any, selector: str, where: str) -> None:
    """No element lies over the text of `selector` (a label under a box's buttons)."""
    page.locator(selector).first.scroll_into_view_if_needed()
    under = _check(page, "covered", selector)
    assert under == [], (where, under)


def assert_in_view(page: Any, selector: str, where: str, timeout: float = 10_000) -> None:
    """The first shown element of `selector` comes whole into the window (or, taller than the
    window, fills it from its top) within `timeout` ms: a message is seen when it appears."""
    try:
        page.wait_for_function(
            f"(s) => ({_layout()}).outOfView(s) === null", arg=selector, timeout=timeout
        )
    except Exception:  # the page's own words for where it is instead
        pytest.fail(f"{where}: {_check(page, 'outOfView', selector)}")


# -- what screen readers are told (role=status regions) -----------------------------------------

RAW_KEY = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+")
"""A message key that was never translated ("common.complete"), as a whole text."""


def watch_status(page: Any) -> None:
    """From the page's next load on, keep every text a role=status region shows (layout.js
    `recordStatus`; Gradio empties its status region a second after each message)."""
    page.add_init_script(f"({_layout()}).recordStatus()")


def status_texts(page: Any) -> list[str]:
    """What the page's role=status regions have said since it loaded (`watch_status`)."""
    return list(page.evaluate("window.__statusTexts || []"))


def status_after(page: Any, seen: int, timeout: float = 30_000) -> list[str]:
    """Wait until a role=status region says something beyond `seen` earlier texts that is not
    a progress word ("Loading"): an event's end; every text said after the first `seen`."""
    page.wait_for_function(
        "(n) => (window.__statusTexts || []).slice(n).some((t) => !/^Loading/.test(t))",
        arg=seen,
        timeout=timeout,
    )
    return status_texts(page)[seen:]


def assert_no_raw_keys(page: Any, where: str) -> None:
    """No role=status region has said an untranslated message key."""
    said = status_texts(page)
    assert not [t for t in said if RAW_KEY.fullmatch(t)], (where, said)


# -- a page's result message (web/events.py: message_box) ---------------------------------------


def message_text(page: Any, box: str) -> str:
    """The text the result message `box` (e.g. "#request-msg") shows ("" before it has one):
    its value's own element (Gradio puts the box's classes on it too), not the progress
    shown over it."""
    shown = page.locator(f"{box} .msg")
    return (shown.text_content() or "").strip() if shown.is_visible() else ""


def message_after(page: Any, button: str, box: str, timeout: float = 90_000) -> str:
    """Press `button` and wait until the result message `box` shows a new text; that text."""
    before = message_text(page, box)
    page.locator(button).click()
    page.wait_for_function(
        "([sel, before]) => { const el = document.querySelector(sel);"
        " const text = el && el.checkVisibility() ? el.textContent.trim() : '';"
        " return text !== '' && text !== before; }",
        arg=[f"{box} .msg", before],
        timeout=timeout,
    )
    return message_text(page, box)


def assert_message_whole(page: Any, box: str, where: str) -> None:
    """The result message `box` whole: no box in it holds more than it shows (nothing to
    scroll inside it, nothing cut), its text within the window's width, no word broken
    across lines; and the page laid out (`assert_laid_out`)."""
    assert page.locator(box).is_visible(), (where, box, "not shown")
    held = page.locator(box).evaluate(
        """(el) => [el, ...el.querySelectorAll("*")]
            .filter((e) => e.getClientRects().length)
            .filter((e) => e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)
            .map((e) => `${e.tagName.toLowerCase()}.${e.classList[0] || ""}: `
                + `${e.scrollHeight}x${e.scrollWidth} in ${e.clientHeight}x${e.clientWidth}`)"""
    )
    assert held == [], (where, box, held)
    right = page.locator(box).evaluate(
        """(el) => { const range = document.createRange(); range.selectNodeContents(el);
            return [range.getBoundingClientRect().right, document.documentElement.clientWidth]; }"""
    )
    assert right[0] <= right[1] + 1, (where, box, right)
    broken = page.evaluate(f"(s) => ({_layout()}).brokenWords(s)", box)
    assert broken == [], (where, box, broken)
    assert_laid_out(page, where)


def wait_until(done, what: str = "timed out", seconds: float = 30.0, every: float = 0.05) -> None:
    """Poll `done()` every `every` seconds, `seconds` at most: the kernel, init, background
    threads and running servers act on their own time."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(every)
