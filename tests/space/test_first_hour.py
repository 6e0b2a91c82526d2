"""The leaderboard's first hour (issue 41), in chromium at 1400x900 and 390x844: a fresh Space
on the public files, a submitter uploads `respondeoqa-eval example -o preds.jsonl`, then a
second file made with another seed.

- After a submission its entry is one click away and marked: the answer (in view when it
  comes) links to `/?entry=e:N`, which opens the board on the entry's coverage with its row
  marked and in view; a row click puts `?entry=e:N` in the address, which shows the same again;
  screen readers are never told a raw message key.
- Nothing cut, hidden or mislabelled: the upload label whole, the result table's scores in view
  on a phone, headings on every page, text at WCAG AA contrast, no word broken in a table cell
  (an id wraps only after "_", "-" or "."), a readable difference chart on a phone, no claim of
  significance without its interval, a legend that mentions hatching only for a hatched bar,
  the entry detail's number headers over their numbers, the Items table on its first screen.

Screenshots go to $SCREENSHOT_DIR/first-hour (default screenshots/).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from conftest import require, run_cli
from gradio_client import Client
from kit.space_server import start_server

from .helpers import (
    assert_apart,
    assert_headers_aligned,
    assert_in_view,
    assert_laid_out,
    assert_message_whole,
    assert_no_raw_keys,
    assert_readable,
    assert_uncovered,
    compare_entries,
    message_after,
    open_page,
    status_after,
    status_texts,
    submit,
    watch_status,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = require("playwright.sync_api")

SIZES = [(1400, 900), (390, 844)]
SEEDS = {1400: 0, 390: 7}  # each width submits its own file: the example, then another seed
PAGES = ("Board", "Compare", "Items", "Size", "Submit", "Request an evaluation", "About")
STORED = re.compile(r"^(?:Already stored|Stored) as entry #(\d+)")
COVERAGE = re.compile(r"items of its coverage, (.+?)\. ")  # how the answer names it


@pytest.fixture(scope="module")
def fresh(public_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    """A Space started afresh on the public files alone (no private ones: the embedded
    defaults), and the example predictions files of each seed, made by the evaluator's CLI."""
    work = tmp_path_factory.mktemp("first-hour")
    files = {}
    for seed in sorted(SEEDS.values()):
        path = work / f"preds-{seed}.jsonl"
        made = run_cli(
            "example", "--data-dir", str(public_dir), "-o", str(path), "--seed", str(seed)
        )
        assert made.returncode == 0, made.stderr
        files[seed] = path
    srv = start_server(public_dir, work / "space")
    yield srv, files
    srv.stop()


@pytest.fixture(scope="module")
def shots(screenshot_dir: Path) -> Path:
    folder = screenshot_dir / "first-hour"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _stored(message: str) -> str:
    found = STORED.match(message)
    assert found, message
    return found.group(1)


def _entries(fresh) -> dict[int, tuple[str, str]]:
    """Both example files stored (again, when a test runs alone: the Space answers with the
    entry that already holds them): per seed, (entry number, coverage), from the answers."""
    srv, files = fresh
    client = Client(srv.url, verbose=False)
    out = {}
    for width, seed in SEEDS.items():
        message = submit(client, files[seed], f"first hour {width}")[0]
        out[seed] = (_stored(message), COVERAGE.search(message).group(1))
    return out


def _page(browser, width: int, height: int):
    page = browser.new_page(viewport={"width": width, "height": height})
    watch_status(page)
    return page


def _assert_row_marked(page, number: str, coverage: str, height: int, where: str) -> None:
    """The board shows entry #`number`'s coverage with its row marked and in the window, and
    its detail."""
    row = page.locator(f'#leaderboard-table tbody tr[data-key="e:{number}"]')
    sync_api.expect(row).to_have_class(re.compile(r"\bpicked\b"), timeout=30_000)
    sync_api.expect(row).to_have_attribute("aria-current", "true")
    select = page.locator('#leaderboard-table select[data-board="coverage"]')
    assert select.input_value() == coverage, (where, select.input_value())
    sync_api.expect(page.locator("#entry-detail .detail-msg")).to_have_text(
        re.compile(rf"^Entry #{number},"), timeout=30_000
    )
    assert page.locator("#leaderboard-table tbody tr.picked").count() == 1
    assert_in_view(page, f'#leaderboard-table tbody tr[data-key="e:{number}"]', where)
    assert parse_qs(urlsplit(page.url).query).get("entry") == [f"e:{number}"], page.url


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["1400", "390"])
def test_a_submitter_is_taken_to_the_entry(browser, fresh, shots, width, height) -> None:
    srv, files = fresh
    page = _page(browser, width, height)
    page.goto(srv.url, wait_until="networkidle")
    sync_api.expect(page.locator("#leaderboard-table tbody tr[data-key]").first).to_be_visible(
        timeout=30_000
    )
    open_page(page, "Submit")
    sync_api.expect(page.locator("h1")).to_have_text("Submit predictions")
    # on a phone too the upload box starts on the first screen, under a whole label
    assert page.locator("#upload").bounding_box()["y"] + 60 <= height, "upload below the fold"
    page.screenshot(path=str(shots / f"{width}-submit-first-screen.png"))
    page.locator("#upload input[type=file]").set_input_files(str(files[SEEDS[width]]))
    page.locator("#model textarea, #model input").first.fill(f"first hour {width}")
    sync_api.expect(page.locator("#upload")).to_contain_text(re.compile(r"preds-\d+\W*jsonl"))
    assert_uncovered(page, "#upload label", f"{width} upload label")
    assert_readable(page, f"{width} submit")

    seen = len(status_texts(page))
    said = message_after(page, "#submit-btn", "#submit-msg")
    number = _stored(said)
    coverage = COVERAGE.search(said).group(1)
    # the answer is seen when it comes, whole, and says where the entry is
    assert_in_view(page, "#submit-msg", f"{width} answer")
    assert_message_whole(page, "#submit-msg", f"{width} answer")
    link = page.locator("#submit-msg a")
    sync_api.expect(link).to_have_text(f"See entry #{number} on the board")
    assert urljoin(page.url, link.get_attribute("href")) == f"{srv.url}?entry=e:{number}"
    # screen readers hear that it is done, in words
    status_after(page, seen)
    assert_no_raw_keys(page, f"{width} submit")
    # the breakdown's scores in view beside their groups, at 390 px too
    table = page.locator("#breakdown")
    sync_api.expect(table).to_contain_text("Content type")
    for name in ("Score", "95% CI", "Items"):
        head = table.locator("th .header-content").filter(has_text=re.compile(rf"^\s*{name}\s*$"))
        box = head.bounding_box()
        assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= width, (name, box)
    assert_laid_out(page, f"{width} submitted")
    assert_readable(page, f"{width} submitted")
    page.screenshot(path=str(shots / f"{width}-submitted.png"))
    page.screenshot(path=str(shots / f"{width}-submitted-full.png"), full_page=True)

    # one click: the board on the entry's coverage (not the one most entries share), its row
    # marked and in view, its detail below
    link.click()
    page.wait_for_url(re.compile(r"\?entry=e(:|%3A)\d+$"))
    _assert_row_marked(page, number, coverage, height, f"{width} after the link")
    assert_laid_out(page, f"{width} board at the entry")
    assert_readable(page, f"{width} board at the entry")
    page.screenshot(path=str(shots / f"{width}-board-at-entry.png"))
    page.close()


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["1400", "390"])
def test_a_row_click_puts_the_entry_in_the_address(browser, fresh, shots, width, height) -> None:
    srv, _ = fresh
    entries = _entries(fresh)
    number, coverage = entries[SEEDS[390 if width == 1400 else 1400]]
    page = _page(browser, width, height)
    page.goto(srv.url, wait_until="networkidle")
    select = page.locator('#leaderboard-table select[data-board="coverage"]')
    select.select_option(coverage)
    row = page.locator(f'#leaderboard-table tbody tr[data-key="e:{number}"]')
    row.locator("td").nth(1).click()
    page.wait_for_function(
        "(key) => new URLSearchParams(location.search).get('entry') === key", arg=f"e:{number}"
    )
    sync_api.expect(page.locator("#entry-detail .detail-msg")).to_have_text(
        re.compile(rf"^Entry #{number},"), timeout=30_000
    )
    shared = page.url
    # the detail: its number headers over their numbers, nothing cut, readable
    assert_headers_aligned(page, "#detail-breakdown", f"{width} detail")
    assert_laid_out(page, f"{width} detail")
    assert_readable(page, f"{width} detail")
    page.screenshot(path=str(shots / f"{width}-entry-detail.png"), full_page=True)
    page.close()

    # the address, loaded afresh in another tab, shows the same: its coverage, its row marked
    again = _page(browser, width, height)
    again.goto(shared, wait_until="networkidle")
    _assert_row_marked(again, number, coverage, height, f"{width} shared address")
    again.screenshot(path=str(shots / f"{width}-shared-address.png"))
    again.close()


DIFF_TEXTS = (
    "#plot-diff .gtitle, #plot-diff .g-xtitle text, #plot-diff .xtick text, "
    "#plot-diff .ytick text, #plot-diff .annotation-text"
)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["1400", "390"])
def test_compare_reads_at_both_widths(browser, fresh, shots, width, height) -> None:
    srv, _ = fresh
    numbers = [number for number, _ in _entries(fresh).values()]
    page = _page(browser, width, height)
    page.goto(srv.url, wait_until="networkidle")
    open_page(page, "Compare")
    sync_api.expect(page.locator("h1")).to_have_text("Compare entries")
    compare_entries(page, numbers)
    sync_api.expect(page.locator("#compare-msg .msg")).to_have_text(
        re.compile(rf"^A = #{numbers[0]} "), timeout=60_000
    )
    assert_in_view(page, "#compare-msg", f"{width} compare answer")
    sync_api.expect(page.locator("#plot-diff .js-plotly-plot")).to_have_count(1, timeout=30_000)
    sync_api.expect(page.locator("#disagreements [role=gridcell]").first).to_be_visible()

    # no claim of significance without its interval: "—" beside "—"
    rows = page.locator("#differences div[role=row]").evaluate_all(
        "rs => rs.map(r => [...r.querySelectorAll('[role=gridcell]')].map(c => c.textContent.trim()))"
    )
    heads = [t.strip() for t in page.locator("#differences th .header-content").all_inner_texts()]
    ci, claim = heads.index("95% CI (points)"), heads.index("Interval excludes 0")
    assert any(r[ci] == "\u2014" for r in rows), rows  # a group of one item (History)
    wrong = [r for r in rows if (r[ci] == "\u2014") != (r[claim] == "\u2014")]
    assert wrong == [], wrong
    assert {r[claim] for r in rows} <= {"yes", "no", "\u2014"}

    # the difference chart: a plot as wide as most of the chart, its texts whole and apart
    plot, chart = page.locator("#plot-diff").evaluate(
        "e => [e.querySelector('.nsewdrag').getBoundingClientRect().width,"
        " e.querySelector('svg.main-svg').getBoundingClientRect().width]"
    )
    assert plot >= 0.6 * chart, (width, plot, chart)
    page.locator("#plot-diff").scroll_into_view_if_needed()
    assert_apart(page, DIFF_TEXTS, f"{width} difference chart")
    cut = page.evaluate(
        "(s) => [...document.querySelectorAll(s)].filter(t => { const b = t.getBoundingClientRect();"
        " const svg = t.ownerSVGElement.getBoundingClientRect();"
        " return b.left < svg.left - 1 || b.right > svg.right + 1; }).map(t => t.textContent)",
        DIFF_TEXTS,
    )
    assert cut == [], (width, cut)
    # no paper row picked: no bar is hatched, and no legend says so
    for chart_id in ("#plot-content", "#plot-pair"):
        assert "hatched" not in page.locator(chart_id).inner_text(), chart_id

    # no word broken in any cell, an item id wrapping only between its parts
    ids = page.locator("#disagreements div[role=row]").first.locator("[role=gridcell]").last
    assert re.fullmatch(r"[\w.\-]+", ids.inner_text().strip()), ids.inner_text()
    assert_laid_out(page, f"{width} compare")
    assert_readable(page, f"{width} compare")
    page.screenshot(path=str(shots / f"{width}-compare.png"), full_page=True)
    page.locator("#plot-diff").screenshot(path=str(shots / f"{width}-difference-chart.png"))
    page.locator("#disagreements").screenshot(path=str(shots / f"{width}-disagreements.png"))
    # and scrolled to its last column, the ids
    page.locator("#disagreements .virtual-table-viewport").evaluate(
        "v => { v.scrollLeft = v.scrollWidth; }"
    )
    page.wait_for_function(
        "v => v.scrollLeft >= v.scrollWidth - v.clientWidth - 1",
        arg=page.locator("#disagreements .virtual-table-viewport").element_handle(),
    )
    page.locator("#disagreements").screenshot(path=str(shots / f"{width}-disagreement-ids.png"))

    if width == 1400:  # with a published row picked, its hatched bars are explained
        pick = page.locator("#compare-pick input").first
        pick.click()
        pick.fill("LLaMa")
        page.get_by_role("option").filter(has_text="LLaMa").first.click()
        page.keyboard.press("Escape")
        page.locator("#compare-btn").click()
        sync_api.expect(page.locator("#plot-content")).to_contain_text(
            "hatched: published", timeout=60_000
        )
    page.close()


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["1400", "390"])
def test_items_show_the_table_on_the_first_screen(browser, fresh, shots, width, height) -> None:
    srv, _ = fresh
    _entries(fresh)
    page = _page(browser, width, height)
    page.goto(srv.url, wait_until="networkidle")
    open_page(page, "Items")
    sync_api.expect(page.locator("h1")).to_have_text("Items")
    sync_api.expect(page.locator("#items-msg .msg")).to_have_text(
        re.compile("^Item analysis of the"), timeout=30_000
    )
    # the introduction folded: the filters and the table start on the first screen
    sync_api.expect(page.locator("#items-table div[role=row]").first).to_be_visible()
    for elem in ("#items-source", "#items-table"):
        box = page.locator(elem).bounding_box()
        assert box is not None and box["y"] < height - 40, (width, elem, box)
    assert page.evaluate("scrollY") == 0  # without scrolling
    page.screenshot(path=str(shots / f"{width}-items-first-screen.png"))
    assert_laid_out(page, f"{width} items")
    assert_readable(page, f"{width} items")
    assert_no_raw_keys(page, f"{width} items")
    page.close()


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["1400", "390"])
def test_every_page_has_a_heading_and_readable_text(browser, fresh, shots, width, height) -> None:
    srv, _ = fresh
    page = _page(browser, width, height)
    page.goto(srv.url, wait_until="networkidle")
    for name in PAGES:
        if name != "Board":
            open_page(page, name)
        heading = page.locator("h1")
        sync_api.expect(heading).to_have_count(1)
        sync_api.expect(heading).to_be_visible()
        assert heading.inner_text().strip(), name
        assert_readable(page, f"{width} {name}")
    page.close()
