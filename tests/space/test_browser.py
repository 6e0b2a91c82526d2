"""A real browser (Debian chromium via playwright) against the real server.

Upload a file, see the new row with the right score, switch the breakdown view, compare two
entries and see the charts; a hostile model name stays text and runs no script. Screenshots go
to $SCREENSHOT_DIR (default screenshots/). Every response the browser receives is searched for
the private gold marker.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import require
from gradio_client import Client
from respondeoqa_space.views.columns import VIEWS
from synthetic import SECRET_MARKER

from .helpers import (
    assert_laid_out,
    assert_message_whole,
    choose,
    compare_entries,
    file_records,
    k_correct_predictions,
    leaderboard,
    message_after,
    open_page,
    submit,
    write_jsonl,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = require("playwright.sync_api")

HOSTILE = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>${window.__xss=3}'
SHORT = "junior_scholarship_short_answer.json"


def entry_id(message: str) -> str:
    match = re.match(r"Stored as entry #(\d+):", message)
    assert match, message
    return match.group(1)


def _pick(page, elem: str, name: str) -> None:
    """Choose `name` in the dropdown `elem` (a Gradio Dropdown: type, then pick the option)."""
    box = page.locator(f"{elem} input").first
    box.click()
    box.fill(name)
    page.get_by_role("option", name=name, exact=True).first.click()
    sync_api.expect(box).to_have_value(name)


def test_browser_submit_view_compare_escape(
    browser, server, public_gold, tmp_path: Path, screenshot_dir: Path
) -> None:
    records = file_records(public_gold, SHORT)
    rows, k = k_correct_predictions(records, 123)
    n = sum(r.task != "translation" for r in records)
    expected = f"{100 * k / n:.1f}"  # 123 of 675 short answers right: 18.2
    upload = write_jsonl(tmp_path / "browser-preds.jsonl", rows)
    # a second scored entry to compare with, submitted by another client
    base_rows, _ = k_correct_predictions(records, 400)
    base_msg = submit(
        Client(server.url, verbose=False),
        write_jsonl(tmp_path / "base.jsonl", base_rows),
        "browser-baseline",
    )[0]
    base_id = entry_id(base_msg)

    page = browser.new_page(viewport={"width": 1500, "height": 1100})
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    leaks: list[str] = []

    def check(response) -> None:
        try:
            body = response.body()
        except Exception:  # streamed or aborted responses have no body to read
            return
        if SECRET_MARKER.encode() in body:
            leaks.append(response.url)

    page.on("response", check)
    page.goto(server.url, wait_until="networkidle")
    table = page.locator("#leaderboard-table")
    sync_api.expect(table.locator("tbody tr[data-key]").first).to_be_visible(timeout=30_000)
    choose(page, "coverage", "all coverages")  # the paper's rows are on all sources
    sync_api.expect(table).to_contain_text("LLaMa 3.3 70B", timeout=30_000)
    sync_api.expect(table).to_contain_text("reported in paper")
    page.screenshot(path=str(screenshot_dir / "01-leaderboard.png"), full_page=True)

    open_page(page, "Submit")
    page.locator("#upload input[type=file]").set_input_files(str(upload))
    page.locator("#model textarea, #model input").first.fill(HOSTILE)
    page.locator("#link textarea, #link input").first.fill("https://example.org/hostile")
    sync_api.expect(page.locator("#upload")).to_contain_text(re.compile(r"browser-preds\W*jsonl"))
    message = message_after(page, "#submit-btn", "#submit-msg")
    assert re.match(r"^Stored as entry #\d+", message), message
    assert f"{100 * k / n:.1f}%" in message and HOSTILE in message  # shown as text
    sync_api.expect(page.locator("#breakdown")).to_contain_text("Content type")
    page.screenshot(path=str(screenshot_dir / "02-submitted.png"), full_page=True)
    my_id = entry_id(message)

    open_page(page, "Board")
    row = table.get_by_role("row").filter(has_text=f"#{my_id}")
    sync_api.expect(row).to_contain_text(HOSTILE)
    sync_api.expect(row).to_contain_text(expected)
    sync_api.expect(row).to_contain_text("https://example.org/hostile")
    page.screenshot(path=str(screenshot_dir / "03-new-row.png"), full_page=True)

    with page.expect_download() as download:
        page.locator("#csv").click()
    csv_text = Path(download.value.path()).read_text(encoding="utf-8")
    assert SECRET_MARKER not in csv_text
    csv_rows = {r["Entry"]: r for r in csv.DictReader(io.StringIO(csv_text))}
    assert csv_rows[f"#{my_id}"]["Model"] == HOSTILE
    assert float(csv_rows[f"#{my_id}"]["Overall accuracy"]) == float(expected)

    search = page.locator("#leaderboard-table").get_by_placeholder("Search")
    search.fill("browser-baseline")
    shown = table.locator("tbody tr:visible")
    sync_api.expect(shown.filter(has_text="LLaMa 3.3 70B")).to_have_count(0, timeout=10_000)
    sync_api.expect(shown.filter(has_text="browser-baseline")).to_have_count(1)
    search.fill("")
    sync_api.expect(shown.filter(has_text="LLaMa 3.3 70B")).to_have_count(1, timeout=10_000)

    choose(page, "view", "Content type")
    sync_api.expect(table.locator('th[data-name="Literary devices"]')).to_have_count(
        1, timeout=20_000
    )
    sync_api.expect(table.get_by_role("row").filter(has_text=f"#{my_id}")).to_contain_text(HOSTILE)
    choose(page, "view", "Language pair")
    sync_api.expect(table.locator('th[data-name="Latin \u2192 English"]')).to_have_count(
        1, timeout=20_000
    )
    page.screenshot(path=str(screenshot_dir / "04-language-pair-view.png"), full_page=True)

    open_page(page, "Compare")
    compare_entries(page, [my_id, base_id])
    sync_api.expect(page.locator("#compare-msg .msg")).to_have_text(
        re.compile(rf"^A = #{my_id} "), timeout=60_000
    )
    bars = page.locator("#plot-content .js-plotly-plot g.trace.bars")
    sync_api.expect(bars).to_have_count(2, timeout=30_000)
    sync_api.expect(page.locator("#plot-diff .js-plotly-plot")).to_have_count(1)
    legend = page.locator("#plot-content .legendtext").first
    sync_api.expect(legend).to_contain_text("<img src=x")  # the escaped name, as text
    sync_api.expect(page.locator("#disagreements")).to_contain_text("zzqqxx")
    page.screenshot(path=str(screenshot_dir / "05-compare.png"), full_page=True)

    # the hostile name never became markup anywhere on the page
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("script", has_text="window.__xss").count() == 0
    assert dialogs == []
    assert leaks == []
    page.close()


# -- a leaderboard read at a glance (issues 9 and 17) ----------------------------------------

NUMBER = re.compile(r"^(\d+\.\d\*?|\u2014)$")  # one decimal (marked when small), or missing
ALL_VIEWS = list(VIEWS)


def _assert_table_name_whole(page, elem: str) -> None:
    """A Gradio table's name (its label) takes at least half the table's width, not squeezed
    beside its search box into a column a word wide (on a phone)."""
    label, row = page.locator(f"{elem} .header-row").first.evaluate(
        "r => [r.querySelector('.label').getBoundingClientRect().width, r.clientWidth]"
    )
    assert label >= 0.5 * row, (elem, label, row)


def _assert_detail_whole(page, where: str) -> None:
    """The entry detail: its full breakdown as long as the page (no inner box that scrolls up
    and down, so the page does not seem to end early), laid out whole."""
    wrap = page.locator("#detail-breakdown").evaluate(
        "t => [t.parentElement.scrollHeight, t.parentElement.clientHeight]"
    )
    assert wrap[0] <= wrap[1] + 1, (where, wrap)
    assert_laid_out(page, where)


def _wait_scrolled_to(page, elem: str) -> None:
    """Until the page's smooth scroll to `elem` (the entry detail's `scrollIntoView`, block
    start) has arrived: its top at its scroll margin, or the page scrolled to its end."""
    page.wait_for_function(
        """(sel) => {
            const el = document.querySelector(sel);
            const top = el.getBoundingClientRect().top;
            const margin = parseFloat(getComputedStyle(el).scrollMarginTop) || 0;
            const doc = document.scrollingElement;
            const end = doc.scrollTop + doc.clientHeight >= doc.scrollHeight - 1;
            return Math.abs(top - margin) <= 1 || (end && top >= 0 && top < innerHeight);
        }""",
        arg=elem,
        timeout=20_000,
    )


def _default_coverage(client) -> str:
    """The coverage with most rows on the board, the paper's counted (ties: more submitted
    entries), counted from the API's rows."""
    rows = leaderboard(client, "Overview", "all coverages")
    total = Counter(r["Coverage"] for r in rows)
    submitted = Counter(r["Coverage"] for r in rows if r["Entry"] != "paper")
    return max(total, key=lambda c: (total[c], submitted[c]))


def _visible_rows(page):
    return page.locator("#leaderboard-table tbody tr[data-key]:visible")


def _column(page, name: str) -> int:
    """The position of the board column named `name` (its CSV name)."""
    names = page.locator("#leaderboard-table thead th").evaluate_all(
        "hs => hs.map(h => h.dataset.name)"
    )
    return names.index(name)


def _cell_texts(page, name: str) -> list[str]:
    """The main texts (not the line under them) of a board column's shown cells."""
    col = _column(page, name)
    return page.locator("#leaderboard-table tbody tr[data-key]:visible").evaluate_all(
        f"rows => rows.map(r => (r.children[{col}].firstChild || {{textContent: ''}}).textContent)"
    )


def _shown_headers(page) -> list[str]:
    return page.locator("#leaderboard-table thead th:visible").evaluate_all(
        "hs => hs.map(h => h.dataset.name)"
    )


def _dataframe_headers(page, elem: str) -> list[str]:
    return [t.strip() for t in page.locator(f"{elem} th .header-content").all_inner_texts()]


def _assert_model_pinned(page, scrolls: bool) -> None:
    """The board scrolls sideways in its own box if and only if `scrolls` (a phone: yes; 1400
    px: no, the table fits the page); scrolled to the far right, the first row's rank and model
    name are still inside the table's box, and so is the Model header."""
    viewport = page.locator("#leaderboard-table .board-wrap")
    fits = viewport.evaluate("e => e.scrollWidth <= e.clientWidth + 2")
    assert fits != scrolls, f"the board {'fits' if fits else 'scrolls sideways'}"
    viewport.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    # scrolled as far as it goes (0 where it fits)
    page.wait_for_function(
        "e => e.scrollLeft >= e.scrollWidth - e.clientWidth - 1", arg=viewport.element_handle()
    )
    assert (viewport.evaluate("e => e.scrollLeft") > 0) == scrolls
    box = viewport.bounding_box()
    first = page.locator("#leaderboard-table tbody tr[data-key]").first
    for column in (0, 1):
        b = first.locator("td").nth(column).bounding_box()
        assert b is not None and b["width"] > 20, column
        assert box["x"] - 1 <= b["x"] and b["x"] + b["width"] <= box["x"] + box["width"] + 1, (
            column,
            b,
            box,
        )
    header = page.locator('#leaderboard-table th[data-heading="1"]').bounding_box()
    assert box["x"] - 1 <= header["x"] <= box["x"] + box["width"]
    viewport.evaluate("e => { e.scrollLeft = 0; }")


def _menu(page, name: str) -> None:
    page.locator(f"#leaderboard-table .board-{name} > summary").click()


def test_browser_leaderboard_at_a_glance(
    browser, server, public_gold, tmp_path: Path, screenshot_dir: Path
) -> None:
    """One ranking per coverage (the default: the coverage most entries share; sections with
    restarting ranks in "all coverages"), compact columns with the rest in the Columns menu,
    each number's n and interval on hover, filters, the size chart, the entry detail full
    width and scrolled into view, Compare's stable colours; at 1400 px and 390 px (every page's
    link in view, the ranking on the first screen); screenshots of every page and view."""
    shots = screenshot_dir / "board"
    shots.mkdir(parents=True, exist_ok=True)
    client = Client(server.url, verbose=False)
    short = file_records(public_gold, SHORT)
    feet = file_records(public_gold, "prosody_feet_questions_english.json")
    ids = []
    # different coverage (Junior Scholarship vs both public sources), the short answers shared
    for tag, records, k, extra in (
        ("glance-short", short, 200, {"params": "7B", "weights": "open weights"}),
        ("glance-short-2", short, 260, {"params": "70B", "reasoning": "yes"}),
        ("glance-feet", short + feet, 120, {"hub_model": "org/glance-feet", "params": "500M"}),
    ):
        rows, _ = k_correct_predictions(records, k)
        path = write_jsonl(tmp_path / f"{tag}.jsonl", rows)
        params = extra.pop("params", "")
        ids.append(entry_id(submit(client, path, tag, params=params, **extra)[0]))

    for width, height in ((1400, 1000), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(server.url, wait_until="networkidle")
        table = page.locator("#leaderboard-table")
        sync_api.expect(table.locator("tbody tr[data-key]").first).to_be_visible(timeout=30_000)
        # the first screen shows the top of the ranking, under its coverage's section header
        first = table.locator("tbody tr[data-key]").first.bounding_box()
        assert first["y"] + first["height"] <= height, (width, first)
        section = table.locator("tr.section").first
        default = _default_coverage(client)
        # the coverage most entries share, the paper's rows counted, as the caption says
        assert section.locator(".cov").inner_text() == default
        sync_api.expect(table.locator(".board-caption")).to_contain_text(
            f"{default} (the coverage most entries share)"
        )
        assert table.locator("tr.section").count() == 1  # one ranking, not three interleaved
        # the pickers look like pickers: an arrow drawn (Gradio's reset takes the native one)
        for picker in ("view", "coverage"):
            arrow = table.locator(f'select[data-board="{picker}"]').evaluate(
                "s => getComputedStyle(s).backgroundImage"
            )
            assert "gradient" in arrow, (picker, arrow)
        assert_laid_out(page, f"{width} board")
        page.screenshot(path=str(shots / f"{width}-first-screen.png"))
        # the system's fonts in every weight (the theme's web font has two: bold capitals
        # mixed in a fallback font of another size), and no web font is fetched
        family = page.evaluate(
            "getComputedStyle(document.querySelector('#page-title h1')).fontFamily"
        )
        assert family.startswith("-apple-system"), family
        assert not page.evaluate(
            "performance.getEntriesByType('resource').filter(r => /\\.woff2?$/.test(r.name)).length"
        )
        for tab, button in (("Compare", "#compare-btn"), ("Submit", "#submit-btn")):
            open_page(page, tab)
            # the page is drawn (its button in view) before anything is said to be missing
            sync_api.expect(page.locator(button)).to_be_visible()
            for elem in ("#plot-content", "#plot-pair", "#plot-diff", "#differences"):
                sync_api.expect(page.locator(elem)).to_be_hidden()
            for elem in ("#disagreements", "#breakdown", "#submit-msg", "#compare-msg"):
                sync_api.expect(page.locator(elem)).to_be_hidden()
            headers = page.locator("th .header-content").all_inner_texts()
            assert not {"1", "2", "3"} & {h.strip() for h in headers}, (tab, headers)
            page.screenshot(path=str(shots / f"{width}-{tab.lower()}-empty.png"), full_page=True)
        open_page(page, "About")
        sync_api.expect(page.get_by_text("The benchmark")).to_be_visible()
        # what it cites, it links (in the page): no PROTOCOL or README a reader cannot open
        about = page.locator("#about")
        target = about.locator('a[href="#h-the-bound"]').first
        sync_api.expect(target).to_be_visible()
        assert about.locator("#h-the-bound").count() == 1
        assert "PROTOCOL" not in about.inner_text() and "README" not in about.inner_text()
        assert_laid_out(page, f"{width} about")
        page.screenshot(path=str(shots / f"{width}-about.png"), full_page=True)
        open_page(page, "Board")

        choose(page, "coverage", "all coverages")
        coverages = {r["Coverage"] for r in leaderboard(client, "Overview", "all coverages")}
        assert len(coverages) >= 3
        sync_api.expect(table.locator("tr.section")).to_have_count(len(coverages), timeout=20_000)
        for body in table.locator("tbody").all():
            ranks = [
                t.strip()
                for t in body.locator("tr[data-key] td:first-child").evaluate_all(
                    "cs => cs.map(c => c.firstChild.textContent)"
                )
            ]
            assert ranks[0] == "1", ranks  # every section ranks from 1
        assert_laid_out(page, f"{width} all coverages")
        page.screenshot(path=str(shots / f"{width}-all-coverages.png"), full_page=True)
        # the longest coverage name, whole in its picker and its section line at 390 px too
        choose(page, "coverage", "public (Junior Scholarship + Latin Prosody)")
        assert_laid_out(page, f"{width} public coverage")
        page.screenshot(path=str(shots / f"{width}-public.png"))
        # the rest on the coverage these entries share (the default is the paper's until more
        # than three entries share one, as in a run of this test alone)
        choose(page, "coverage", "Junior Scholarship")
        # the legend waits in its accordion
        page.locator("#legend-box").get_by_text("How to read the board").click()
        sync_api.expect(page.locator("#legend")).to_be_visible()

        for view in ALL_VIEWS:
            choose(page, "view", view)
            spec = VIEWS[view]
            sync_api.expect(
                page.locator('#leaderboard-table th[data-heading="2"]')
            ).to_have_attribute("data-name", spec.score_header, timeout=20_000)
            headers = _shown_headers(page)
            assert headers[:3] == ["Rank", "Model", spec.score_header], (view, headers)
            # compact: no view shows more than 15 columns before a reader picks more
            assert len(headers) <= 15, (view, headers)
            # the table fits the page at 1400 px; on a phone it scrolls sideways in its own box
            # with the rank and model pinned
            _assert_model_pinned(page, scrolls=width < 1400)
            assert_laid_out(page, f"{width} {view}")
            page.screenshot(path=str(shots / f"{width}-view-{view.split()[0]}.png"), full_page=True)
            # one number style: every score cell one decimal (or the missing mark)
            # ranks are whole numbers; no rank ("—") where there is no score to rank by
            ranks = _cell_texts(page, "Rank")
            scores = _cell_texts(page, spec.score_header)
            for rank, score in zip(ranks, scores, strict=True):
                assert rank.strip().isdigit() or (rank == score == "\u2014"), (view, rank, score)
            for name in headers[2:]:
                if name in ("Items", "Type"):
                    continue
                texts = [t.strip() for t in _cell_texts(page, name)]
                assert texts and all(NUMBER.match(t) for t in texts), (view, name, texts)
            # every number's items and interval on hover
            if not view.startswith("Translation"):  # (this board's entries translate nothing)
                cell = table.locator("tbody tr[data-key]").first.locator("td").nth(2)
                title = cell.get_attribute("title") or ""
                assert re.match(r"^n=\d+ \u00b7 95% CI \d", title), (view, title)
            if view.startswith("Translation"):
                legend = page.locator("#legend")
                sync_api.expect(legend).to_contain_text("brevity penalty")
                sync_api.expect(legend).to_contain_text("not reported in the paper")
            if view == "Source":
                sync_api.expect(page.locator("#legend")).to_contain_text(
                    "The paper reports no numbers for this breakdown"
                )

        choose(page, "view", "Overview")
        # the Columns menu: the paper's padded BLEU and the model facts, one click away
        _menu(page, "columns")
        padded = "BLEU \u2192 Latin (paper, padded)"
        assert padded not in _shown_headers(page)
        table.get_by_label(padded).check()
        assert padded in _shown_headers(page)
        table.get_by_label("Params").check()
        sync_api.expect(
            table.locator("tbody tr[data-key]").filter(has_text="glance-short-2")
        ).to_contain_text("70B")
        page.screenshot(path=str(shots / f"{width}-columns.png"))
        _menu(page, "columns")
        # filters: size range, reasoning models, on this test's own entries (the session's
        # server holds other tests' entries too, in whatever order the tests ran)
        search = table.get_by_placeholder("Search")
        search.fill("glance")
        sync_api.expect(_visible_rows(page)).to_have_count(2, timeout=10_000)  # not glance-feet
        before = _visible_rows(page).count()
        _menu(page, "filters")
        # a search the server answers (another query, the same rows) brings a new table: the
        # open menu stays open (it closed when the answer came after the click)
        search.fill("lance")
        sync_api.expect(table.locator(".board-caption")).to_contain_text("\u201clance\u201d")
        sync_api.expect(table.locator("details.board-filters")).to_have_attribute("open", "")
        sync_api.expect(_visible_rows(page)).to_have_count(before)
        table.locator('input[data-filter="max"]').fill("10")
        sync_api.expect(_visible_rows(page)).to_have_count(1, timeout=10_000)
        sync_api.expect(_visible_rows(page)).to_contain_text("glance-short")
        table.locator('input[data-filter="max"]').fill("")
        table.locator('select[data-filter="reasoning"]').select_option("yes")
        sync_api.expect(_visible_rows(page)).to_have_count(1, timeout=10_000)
        sync_api.expect(_visible_rows(page)).to_contain_text("glance-short-2")
        page.screenshot(path=str(shots / f"{width}-filters.png"))
        table.locator('select[data-filter="reasoning"]').select_option("")
        _menu(page, "filters")
        sync_api.expect(_visible_rows(page)).to_have_count(before)
        search.fill("")
        # the server's answer to the cleared search (every row of the coverage) is in
        sync_api.expect(table.locator(".board-caption")).not_to_contain_text("Search")

        with page.expect_download() as download:
            page.locator("#csv").click()
        rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text("utf-8"))))
        mine = next(r for r in rows if r["Entry"] == f"#{ids[0]}")
        assert re.fullmatch(r"\d+", mine["Rank"]) and re.fullmatch(r"\d+", mine["Items"])
        low, high, overall = (
            float(mine["CI low"]),
            float(mine["CI high"]),
            float(mine["Overall accuracy"]),
        )
        assert low <= overall <= high and mine["Knowledge n"].isdigit()
        assert mine["Params (B)"] == "7.0" and mine["Weights"] == "open weights"

        # sorting within the section: a click on Model sorts by name, again reverses
        models = page.locator("#leaderboard-table tbody tr[data-key] td:nth-child(2)")
        page.locator('#leaderboard-table th[data-heading="1"]').click()
        names = [t.strip() for t in models.all_inner_texts()]
        ordered = page.evaluate("n => [...n].sort((a, b) => a.localeCompare(b))", names)
        assert names == ordered, names  # the browser's own collation
        page.locator('#leaderboard-table th[data-heading="1"]').click()
        assert [t.strip() for t in models.all_inner_texts()] == names[::-1]
        page.locator('#leaderboard-table th[data-heading="0"]').click()  # back to rank order

        # entry detail: a row click opens it full width and scrolls it into view
        row = table.get_by_role("row").filter(has_text="glance-short-2")
        row.locator("td").nth(1).click()
        sync_api.expect(page.locator("#entry-detail .detail-msg")).to_have_text(
            re.compile(rf"^Entry #{ids[1]}"), timeout=20_000
        )
        _wait_scrolled_to(page, "#entry-detail")
        pick = page.locator("#detail-pick").bounding_box()
        assert 0 <= pick["y"] < height, pick  # scrolled to the detail
        sync_api.expect(page.locator("#detail-meta")).to_contain_text("glance-short-2")
        sync_api.expect(page.locator("#detail-meta")).to_contain_text("Reasoning model")
        breakdown = page.locator("#detail-breakdown")
        sync_api.expect(breakdown).to_contain_text("Content type")
        wide = page.locator("#leaderboard-table").bounding_box()["width"]
        assert breakdown.bounding_box()["width"] >= 0.9 * wide
        assert page.locator("#detail-breakdown thead th").all_inner_texts() == [
            "Breakdown",
            "Group",
            "Score",
            "95% CI",
            "Items",
        ]
        with page.expect_download() as download:
            page.locator("#entry-detail .detail-csv a").click()
        items = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text("utf-8"))))
        assert len(items) == len(short)
        assert not {"gold", "answer", "answers"} & set(items[0])
        assert {r["source"] for r in items} == {"Junior Scholarship"}
        _assert_detail_whole(page, f"{width} entry detail")
        page.screenshot(path=str(shots / f"{width}-entry-detail.png"), full_page=True)

        # an entry by its number, in the detail's own form
        page.locator("#detail-pick").fill(f"#{ids[0]}")
        page.locator("#detail-pick").press("Enter")
        sync_api.expect(page.locator("#entry-detail .detail-msg")).to_have_text(
            re.compile(rf"^Entry #{ids[0]}"), timeout=20_000
        )
        page.locator("#detail-pick").fill("#99999")
        page.locator("#detail-pick").press("Enter")
        sync_api.expect(page.locator("#entry-detail .detail-msg")).to_have_text(
            re.compile("^No such entry"), timeout=20_000
        )
        # a link to an entry opens the board on its detail
        page.goto(f"{server.url}?entry=e:{ids[2]}", wait_until="networkidle")
        sync_api.expect(page.locator("#entry-detail .detail-msg")).to_have_text(
            re.compile(rf"^Entry #{ids[2]}"), timeout=20_000
        )
        # a size typed as 500M is written as model cards write it
        size = page.locator("#detail-meta tr").filter(has_text="Parameters").locator("td")
        sync_api.expect(size).to_have_text("0.5B")
        # a breakdown no item has a value for: one line, not a row "Unknown" of every item
        difficulty = page.locator("#detail-breakdown tr").filter(has_text="Difficulty")
        sync_api.expect(difficulty).to_have_count(1)
        sync_api.expect(difficulty.locator("td").nth(1)).to_have_text(
            "not given for any of these items"
        )

        # the size chart, on its own page
        open_page(page, "Size")
        sync_api.expect(page.locator("#plot-size .js-plotly-plot")).to_have_count(1, timeout=30_000)
        assert page.locator("#plot-size .scatterlayer .point").count() >= 3
        # every point of the size chart named beside it, its subtitle whole
        sync_api.expect(page.locator("#plot-size .js-plotly-plot")).to_have_count(1, timeout=30_000)
        labels = page.locator("#plot-size .scatterlayer .textpoint").evaluate_all(
            "ps => ps.map(p => p.textContent)"
        )
        assert {"glance-short", "glance-short-2", "LLaMa 3.3 70B"} <= set(labels), labels
        assert_laid_out(page, f"{width} size")
        page.screenshot(path=str(shots / f"{width}-size.png"), full_page=True)

        # Compare: a warning that matches what is drawn, n under each group, stable colours
        open_page(page, "Compare")
        compare_entries(page, [ids[0], ids[2]])
        sync_api.expect(page.locator("#compare-warning .msg")).to_have_text(
            re.compile("^Different coverage"), timeout=60_000
        )
        sync_api.expect(page.locator("#compare-msg .msg")).to_have_text(
            re.compile(rf"^A = #{ids[0]} "), timeout=60_000
        )
        sync_api.expect(page.locator("#plot-content .js-plotly-plot")).to_have_count(
            1, timeout=30_000
        )
        assert page.locator("#plot-content .errorbar").count() > 0  # 95% intervals
        sync_api.expect(page.locator("#plot-content")).to_contain_text("n=")
        sync_api.expect(page.locator("#plot-diff")).to_contain_text("Overall (n=")
        fills = page.locator("#plot-content g.trace.bars path").evaluate_all(
            "ps => [...new Set(ps.map(p => p.style.fill).filter(f => f))]"
        )
        assert len(fills) == 2, fills  # one colour per entry, by entry (Okabe-Ito)
        assert _dataframe_headers(page, "#disagreements")[:4] == [
            "Question",
            "Gold",
            "A answer",
            "B answer",
        ]
        # the gold's own emphasis in italics too, never as raw asterisks
        gold_cells = page.locator("#disagreements div[role=row]").evaluate_all(
            "rs => rs.map(r => r.querySelectorAll('[role=gridcell]')[1].textContent.trim())"
        )
        assert gold_cells and not [g for g in gold_cells if "*" in g], gold_cells
        # at phone width too: the table scrolls sideways, no column shrinks to a letter
        for h in page.locator("#disagreements th").all():
            assert h.bounding_box()["width"] >= 60
        assert_message_whole(page, "#compare-msg", f"{width} compare")
        assert_message_whole(page, "#compare-warning", f"{width} compare")
        _assert_table_name_whole(page, "#disagreements")
        # the picker names each entry's coverage
        options = page.locator("#compare-pick .token").all_inner_texts()
        assert any("\u00b7 Junior Scholarship" in o for o in options), options
        # what the format cost each picked entry, per category
        sync_api.expect(page.locator("#format-gaps")).to_be_visible(timeout=30_000)
        assert _dataframe_headers(page, "#format-gaps")[:2] == ["Breakdown", "Group"]
        page.screenshot(path=str(shots / f"{width}-compare.png"), full_page=True)

        # Items: public items hardest first, filters, the difficulty chart
        open_page(page, "Items")
        msg = page.locator("#items-msg .msg")
        sync_api.expect(msg).to_have_text(re.compile("^Item analysis of the"), timeout=30_000)
        all_shown = int(
            re.search(r"; ([\d,]+) shown", msg.text_content()).group(1).replace(",", "")
        )
        assert all_shown >= len([r for r in short + feet if r.task != "translation"])
        page.screenshot(path=str(shots / f"{width}-items.png"), full_page=True)
        assert _dataframe_headers(page, "#items-table")[:3] == ["Question", "Gold", "Right %"]
        sync_api.expect(page.locator("#items-table div[role=row]").nth(5)).to_be_visible()
        sync_api.expect(page.locator("#items-chart .js-plotly-plot")).to_have_count(
            1, timeout=30_000
        )
        sync_api.expect(page.locator("#items-chart")).to_contain_text("(n=")
        assert_message_whole(page, "#items-msg", f"{width} items")
        _assert_table_name_whole(page, "#items-table")
        page.screenshot(path=str(shots / f"{width}-items.png"), full_page=True)
        # the question's own Markdown emphasis in italics, not as raw asterisks
        page.locator("#items-table input[placeholder='Search...']").fill("Thisbe")
        sync_api.expect(page.locator("#items-table em").first).to_have_text("Thisbe")
        assert "*Thisbe*" not in page.locator("#items-table").inner_text()
        # and the gold's (upstream writes a gold as *Fas*)
        starred = next(m[1] for r in short if (m := re.fullmatch(r"\*(\w+)\*\W*", r.answers[0])))
        page.locator("#items-table input[placeholder='Search...']").fill(starred)
        sync_api.expect(page.locator("#items-table em").filter(has_text=starred)).not_to_have_count(
            0
        )
        assert f"*{starred}*" not in page.locator("#items-table").inner_text()
        page.locator("#items-table input[placeholder='Search...']").fill("")
        _pick(page, "#items-content", "Scansion")
        sync_api.expect(msg).not_to_have_text(re.compile(f"; {all_shown:,} shown"), timeout=30_000)
        scansion = int(re.search(r"; ([\d,]+) shown", msg.text_content()).group(1).replace(",", ""))
        assert 0 < scansion < all_shown
        _pick(page, "#items-content", "any")

        # failure and success look different
        open_page(page, "Submit")
        refused = message_after(page, "#submit-btn", "#submit-msg", timeout=30_000)
        assert refused.startswith("Not accepted"), refused
        assert "msg-error" in (page.locator("#submit-msg").get_attribute("class") or "")
        assert_message_whole(page, "#submit-msg", f"{width} submit error")
        sync_api.expect(page.locator("#breakdown")).to_be_hidden()
        page.screenshot(path=str(shots / f"{width}-submit-error.png"), full_page=True)
        page.close()


def test_browser_unreadable_answers_need_a_confirmation(
    browser, server, public_gold, tmp_path: Path, screenshot_dir: Path
) -> None:
    """Responses without the paper's "Answer:" line: not stored, said why, no quota slot
    used; stored once the submitter ticks "Store it anyway"."""
    feet = file_records(public_gold, "prosody_feet_questions_latin.json")
    rows = [{"id": r.id, "response": f"I think the feet are {r.answers[0]}."} for r in feet]
    path = write_jsonl(tmp_path / "chatty.jsonl", rows)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server.url, wait_until="networkidle")
    open_page(page, "Submit")
    page.locator("#upload input[type=file]").set_input_files(str(path))
    page.locator("#model textarea, #model input").first.fill("chatty model")
    sync_api.expect(page.locator("#upload")).to_contain_text(re.compile(r"chatty\W*jsonl"))
    refused = message_after(page, "#submit-btn", "#submit-msg", timeout=60_000)
    assert refused.startswith("Not accepted: not stored yet"), refused
    assert f"{len(feet)} of {len(feet)} covered items have no answer" in refused
    confirm = page.locator("#confirm input[type=checkbox]")
    sync_api.expect(confirm).to_be_visible()
    page.screenshot(path=str(screenshot_dir / "board" / "1400-confirm.png"), full_page=True)
    confirm.check()
    stored = message_after(page, "#submit-btn", "#submit-msg", timeout=60_000)
    assert re.match(r"^Stored as entry #\d+", stored), stored
    sync_api.expect(page.locator("#submit-msg")).to_have_class(re.compile("msg-ok"))
    sync_api.expect(confirm).to_be_hidden()
    page.close()


def _scroll_to(page, cell) -> None:
    """Scroll the Gradio table around `cell` sideways until the cell is at its left edge (or
    the table is scrolled as far as it goes), and wait until it is there."""
    target = cell.evaluate(
        "c => { const v = c.closest('.virtual-table-viewport'); "
        "v.scrollLeft = Math.max(0, c.offsetLeft - 8); "
        "return Math.min(Math.max(0, c.offsetLeft - 8), v.scrollWidth - v.clientWidth); }"
    )
    page.wait_for_function(
        "([c, target]) => Math.abs(c.closest('.virtual-table-viewport').scrollLeft - target) <= 1",
        arg=[cell.element_handle(), target],
    )


def _a_seed_that_flags(records: list, gold, planted: dict[str, int]) -> int:
    """The first planted-benchmark seed whose ten entries get a planted error flagged (in
    process, as the Items page will): what this test checks is how a flag's evidence is laid
    out, so it must not depend on which seed the flags' constants happen to flag."""
    from planted_gold import plant, simulate
    from respondeoqa_eval.analysis.items import AGREE, analyze_items

    for seed in range(20):
        copy = plant(records, seed, planted, ())
        entries = simulate([copy.gold[r.id] for r in records], gold.by_id, seed)
        flagged = {it.id for it in analyze_items(entries, gold.by_id).items if AGREE in it.reasons}
        if flagged & set(copy.true):
            return seed
    raise AssertionError(f"no seed of 0-19 gets a planted error flagged ({planted})")


FEET = ("prosody_feet_questions_english.json", "prosody_feet_questions_latin.json")


@pytest.mark.parametrize(
    ("files", "task", "count"),
    [((SHORT,), "short_answer", 3), (FEET, "feet", 2)],
    ids=["short", "feet"],
)
def test_browser_gold_error_evidence_is_whole_beside_each_flag(
    browser,
    private_dir: Path,
    public_gold,
    tmp_path: Path,
    screenshot_dir: Path,
    files: tuple[str, ...],
    task: str,
    count: int,
) -> None:
    """Ten graded entries of the planted-error benchmark (benchmarks/planted_gold.py) that give
    planted answers (short answers, or feet with one foot changed; a seed with one of them
    flagged) where the board's gold differs, on a board of their own: the Items page flags
    planted items, and the evidence beside each flag is readable at 1400 and 390 px (scrolled
    to on a phone: whole inside the window, no word broken, no text cut off); a feet flag's
    evidence names its foot."""
    from kit.space_server import start_server
    from planted_gold import plant, simulate

    shots = screenshot_dir / "items" / task
    shots.mkdir(parents=True, exist_ok=True)
    items = [r for name in files for r in file_records(public_gold, name)]
    seed = _a_seed_that_flags(items, public_gold, {task: count})
    planted = plant(items, seed, {task: count}, ())
    # the entries know the planted answers: against the true gold, those are agreeing errors
    entries = simulate([planted.gold[r.id] for r in items], public_gold.by_id, seed)
    lures = {planted.gold[i].answers[0] for i in planted.true}
    srv = start_server(private_dir, tmp_path / "flags-space")
    try:
        client = Client(srv.url, verbose=False)
        for name, results in entries.items():
            rows = [{"id": it.id, "answer": it.extracted or ""} for it in results]
            message = submit(client, write_jsonl(tmp_path / f"{name}.jsonl", rows), name)[0]
            entry_id(message)  # stored
        for width, height in ((1400, 1000), (390, 844)):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(srv.url, wait_until="networkidle")
            open_page(page, "Items")
            msg = page.locator("#items-msg .msg")
            analysed = re.compile("^Item analysis of the 10 entries")
            sync_api.expect(msg).to_have_text(analysed, timeout=30_000)
            page.locator("#items-flagged input").check()
            sync_api.expect(msg).to_have_text(re.compile(r"; [1-9]\d* shown"), timeout=30_000)
            sync_api.expect(msg).not_to_have_text(
                re.compile(rf"; {len(items)} shown"), timeout=30_000
            )
            shown = int(re.search(r"; (\d+) shown", msg.text_content()).group(1))
            headers = _dataframe_headers(page, "#items-table")
            wrong, evidence = (
                headers.index(h) for h in ("Most common wrong answer", "Suspected gold error")
            )
            rows = page.locator("#items-table div[role=row]")
            sync_api.expect(rows).to_have_count(shown, timeout=30_000)
            page.screenshot(path=str(shots / f"{width}-flagged.png"), full_page=True)
            answers, feet = set(), []
            for i in range(shown):
                cells = rows.nth(i).locator("[role=gridcell]")
                answers.add(cells.nth(wrong).inner_text().strip())
                cell = cells.nth(evidence)
                _scroll_to(page, cell)
                cell.scroll_into_view_if_needed()
                text = cell.inner_text().strip()
                assert len(text) > 40, (width, i, text)  # a sentence, not a mark
                feet.append(
                    re.search(r"^at foot [1-9], |, the gold's feet but foot [1-9] \(", text)
                )
                box = cell.bounding_box()
                assert 0 <= box["x"] and box["x"] + box["width"] <= width, (width, box)
                assert 0 <= box["y"] and box["y"] + box["height"] <= height, (width, box)
                assert_laid_out(page, f"{width} flagged item {i}")
                if i == 0:
                    page.screenshot(path=str(shots / f"{width}-evidence.png"))
            if task == "feet":  # a changed foot is found in its place, and said so
                assert any(feet), feet
            else:
                assert answers & lures, (answers, lures)  # the planted answers are flagged
            page.close()
    finally:
        srv.stop()
