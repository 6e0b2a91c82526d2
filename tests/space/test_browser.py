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
from pathlib import Path

import pytest
from conftest import require
from gradio_client import Client
from respondeoqa_eval.space.views.columns import display_columns as columns_of
from synthetic import SECRET_MARKER

from .helpers import (
    file_records,
    k_correct_predictions,
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


def _compare(page, ids: list[str]) -> None:
    """In the Compare tab: pick the entries `ids` (typed as "#12 ") and press Compare."""
    pick = page.locator("#compare-pick input").first
    for ident in ids:
        pick.click()
        pick.fill(f"#{ident} ")
        page.get_by_role("option").filter(has_text=f"#{ident} ").first.click()
    page.keyboard.press("Escape")
    page.locator("#compare-btn").click()


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
    sync_api.expect(table).to_contain_text("LLaMa 3.3 70B", timeout=30_000)
    sync_api.expect(table).to_contain_text("reported in paper")
    page.screenshot(path=str(screenshot_dir / "01-leaderboard.png"), full_page=True)

    page.get_by_role("tab", name="Submit").click()
    page.locator("#upload input[type=file]").set_input_files(str(upload))
    page.locator("#model textarea, #model input").first.fill(HOSTILE)
    page.locator("#link textarea, #link input").first.fill("https://example.org/hostile")
    sync_api.expect(page.locator("#upload")).to_contain_text(re.compile(r"browser-preds\W*jsonl"))
    page.locator("#submit-btn").click()
    result = page.locator("#submit-msg textarea")
    sync_api.expect(result).to_have_value(re.compile(r"^Stored as entry #\d+"), timeout=90_000)
    message = result.input_value()
    assert f"{100 * k / n:.1f}%" in message and HOSTILE in message  # shown as text in a textbox
    sync_api.expect(page.locator("#breakdown")).to_contain_text("Content type")
    page.screenshot(path=str(screenshot_dir / "02-submitted.png"), full_page=True)
    my_id = entry_id(message)

    page.get_by_role("tab", name="Leaderboard").click()
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
    assert float(csv_rows[f"#{my_id}"]["Overall"]) == float(expected)

    search = page.locator("#leaderboard-table").get_by_placeholder("Search")
    search.fill("browser-baseline")
    shown = table.locator("tbody tr:visible")
    sync_api.expect(shown.filter(has_text="LLaMa 3.3 70B")).to_have_count(0, timeout=10_000)
    sync_api.expect(shown.filter(has_text="browser-baseline")).to_have_count(1)
    search.fill("")
    sync_api.expect(shown.filter(has_text="LLaMa 3.3 70B")).to_have_count(1, timeout=10_000)

    page.locator("#view").get_by_text("Content type", exact=True).click()
    sync_api.expect(table).to_contain_text("Literary devices", timeout=20_000)
    sync_api.expect(table.get_by_role("row").filter(has_text=f"#{my_id}")).to_contain_text(HOSTILE)
    page.locator("#view").get_by_text("Language pair", exact=True).click()
    sync_api.expect(table).to_contain_text("Latin \u2192 English", timeout=20_000)
    page.screenshot(path=str(screenshot_dir / "04-language-pair-view.png"), full_page=True)

    page.get_by_role("tab", name="Compare").click()
    _compare(page, [my_id, base_id])
    sync_api.expect(page.locator("#compare-msg textarea")).to_have_value(
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


# -- issue 9: a leaderboard read at a glance -------------------------------------------------

NUMBER = re.compile(r"^(\d+\.\d|\u2014)$")  # one decimal, or the missing mark
ALL_VIEWS = [
    "Overview",
    "Task",
    "Content type",
    "Language pair",
    "Format",
    "Source",
    "Difficulty",
    "Translation (BLEU, chrF)",
]


def _cell_texts(page, column: int) -> list[str]:
    """The shown texts of a board column (0-based)."""
    cells = page.locator(f"#leaderboard-table tbody tr:visible td:nth-child({column + 1})")
    return cells.all_inner_texts()


def _header_texts(page) -> list[str]:
    return [t.strip() for t in page.locator("#leaderboard-table th").all_inner_texts()]


def _dataframe_headers(page, elem: str) -> list[str]:
    return [t.strip() for t in page.locator(f"{elem} th .header-content").all_inner_texts()]


def _assert_model_pinned(page) -> None:
    """Scrolled to the far right, the first row's rank and model name are still inside the
    table's box, and so is the Model header."""
    viewport = page.locator("#leaderboard-table .board-wrap")
    wide = viewport.evaluate("e => e.scrollWidth > e.clientWidth + 50")
    viewport.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    page.wait_for_timeout(300)
    assert viewport.evaluate("e => e.scrollLeft") > 0 or not wide
    box = viewport.bounding_box()
    first = page.locator("#leaderboard-table tbody tr").first
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


def _open_tab(page, name: str) -> None:
    """Click a tab; at phone width Gradio puts some tabs into its overflow menu."""
    tab = page.get_by_role("tab", name=name)
    if not tab.is_visible():
        page.locator(".overflow-menu button").first.click()
        tab = page.locator(".overflow-dropdown button").filter(has_text=name).first
    tab.click()


def _pick_view(page, name: str) -> None:
    page.locator("#view").get_by_text(name, exact=True).click()
    page.wait_for_timeout(200)


def test_browser_leaderboard_at_a_glance(
    browser, server, public_gold, tmp_path: Path, screenshot_dir: Path
) -> None:
    """Pinned Rank and Model in every view (1400 px and 390 px), one number style in the table
    and the CSV, BLEU beside BLEU without padding, no placeholder tables, the coverage warning
    in Compare and the entry detail; screenshots of every tab and view."""
    shots = screenshot_dir / "issue9"
    shots.mkdir(parents=True, exist_ok=True)
    client = Client(server.url, verbose=False)
    short = file_records(public_gold, SHORT)
    feet = file_records(public_gold, "prosody_feet_questions_english.json")
    ids = []
    # different coverage (Junior Scholarship vs both public sources), the short answers shared
    for tag, records, k in (("glance-short", short, 200), ("glance-feet", short + feet, 120)):
        rows, _ = k_correct_predictions(records, k)
        ids.append(entry_id(submit(client, write_jsonl(tmp_path / f"{tag}.jsonl", rows), tag)[0]))

    for width in (1400, 390):
        page = browser.new_page(viewport={"width": width, "height": 1000})
        page.goto(server.url, wait_until="networkidle")
        table = page.locator("#leaderboard-table")
        sync_api.expect(table).to_contain_text("glance-feet", timeout=30_000)
        # no placeholder tables ("1 2 3" headers) and no empty plots before any action
        for tab in ("Compare", "Submit"):
            _open_tab(page, tab)
            page.wait_for_timeout(300)
            for elem in ("#plot-content", "#plot-pair", "#plot-diff", "#differences"):
                assert not page.locator(elem).is_visible(), (tab, elem)
            for elem in ("#disagreements", "#breakdown", "#submit-msg", "#compare-msg"):
                assert not page.locator(elem).is_visible(), (tab, elem)
            headers = page.locator("th .header-content").all_inner_texts()
            assert not {"1", "2", "3"} & {h.strip() for h in headers}, (tab, headers)
            page.screenshot(path=str(shots / f"{width}-{tab.lower()}-empty.png"), full_page=True)
        _open_tab(page, "About")
        sync_api.expect(page.get_by_text("The benchmark")).to_be_visible()
        page.screenshot(path=str(shots / f"{width}-about.png"), full_page=True)
        _open_tab(page, "Leaderboard")

        for view in ALL_VIEWS:
            _pick_view(page, view)
            fifth = columns_of(view)[4]  # the view's first breakdown column
            sync_api.expect(
                page.locator('#leaderboard-table th[data-heading="4"]')
            ).to_have_attribute("title", fifth, timeout=20_000)
            sync_api.expect(table).to_contain_text("glance-feet", timeout=20_000)
            headers = _header_texts(page)
            assert headers[:3] == ["Rank", "Model", "Overall"], (view, headers)
            _assert_model_pinned(page)
            page.screenshot(path=str(shots / f"{width}-view-{view.split()[0]}.png"), full_page=True)
            if width != 1400:
                continue
            # one number style: every score cell one decimal (or the missing mark), ranks integers
            assert all(t.strip().isdigit() for t in _cell_texts(page, 0)), view
            for col, name in enumerate(headers):
                if name in ("Overall", "Multiple choice", "Latin Prosody", "Grammar") or (
                    name.startswith(("BLEU", "chrF"))
                ):
                    texts = [t.strip() for t in _cell_texts(page, col)]
                    assert texts and all(NUMBER.match(t) for t in texts), (view, name, texts)
            if view == "Overview":
                assert "BLEU \u2192 Latin (paper, padded)" in headers
                assert "BLEU \u2192 Latin (no padding)" in headers
                assert headers.index("95% CI") == 3
            if view.startswith("Translation"):
                for target in ("Latin", "English"):
                    for variant in ("(paper, padded)", "(no padding)"):
                        assert f"BLEU \u2192 {target} {variant}" in headers
                    assert f"chrF \u2192 {target}" in headers
                legend = page.locator("#legend")
                sync_api.expect(legend).to_contain_text("brevity penalty")
                sync_api.expect(legend).to_contain_text("not reported in the paper")
            if view == "Source":
                sync_api.expect(page.locator("#legend")).to_contain_text(
                    "The paper reports no numbers for this breakdown"
                )
                assert "Junior Scholarship" in headers and "jun-schol" not in headers

        if width == 1400:
            _pick_view(page, "Overview")
            with page.expect_download() as download:
                page.locator("#csv").click()
            rows = list(csv.DictReader(io.StringIO(Path(download.value.path()).read_text("utf-8"))))
            mine = next(r for r in rows if r["Entry"] == f"#{ids[0]}")
            assert re.fullmatch(r"\d+", mine["Rank"]) and re.fullmatch(r"\d+", mine["Items"])
            low, high, overall = (
                float(mine["CI low"]),
                float(mine["CI high"]),
                float(mine["Overall"]),
            )
            assert low <= overall <= high
            for r in rows:
                for name in ("Overall", "Multiple choice", "BLEU \u2192 Latin (no padding)"):
                    assert r[name] == "" or re.fullmatch(r"\d+\.\d", r[name]), (name, r[name])
                assert re.fullmatch(r"\d+", r["Rank"]), r["Rank"]
            assert "95% CI" not in rows[0]  # the interval is two numeric columns

            # entry detail: click a row, see its breakdown and metadata, download public items
            # sorting: a click on Model sorts by name, a second click reverses
            models = page.locator("#leaderboard-table tbody tr td:nth-child(2)")
            page.locator('#leaderboard-table th[data-heading="1"]').click()
            names = models.all_inner_texts()
            assert len(names) >= 3
            ordered = page.evaluate("n => [...n].sort((a, b) => a.localeCompare(b))", names)
            assert names == ordered, names  # the browser's own collation
            page.locator('#leaderboard-table th[data-heading="1"]').click()
            assert models.all_inner_texts() == names[::-1]
            page.locator('#leaderboard-table th[data-heading="0"]').click()  # back to rank order

            row = table.get_by_role("row").filter(has_text="glance-short")
            row.locator("td").nth(1).click()
            sync_api.expect(page.locator("#detail-msg textarea")).to_have_value(
                re.compile(rf"^Entry #{ids[0]}"), timeout=20_000
            )
            sync_api.expect(page.locator("#detail-meta")).to_contain_text("glance-short")
            sync_api.expect(page.locator("#detail-breakdown")).to_contain_text("Content type")
            with page.expect_download() as download:
                page.locator("#detail-csv a").click()
            items = list(
                csv.DictReader(io.StringIO(Path(download.value.path()).read_text("utf-8")))
            )
            assert len(items) == len(short)
            assert not {"gold", "answer", "answers"} & set(items[0])
            assert {r["source"] for r in items} == {"Junior Scholarship"}
            page.screenshot(path=str(shots / "1400-entry-detail.png"), full_page=True)

        # Compare two entries of different coverage: warning, counts, intervals, readable table
        _open_tab(page, "Compare")
        _compare(page, ids)
        sync_api.expect(page.locator("#compare-warning textarea")).to_have_value(
            re.compile("^Different coverage"), timeout=60_000
        )
        sync_api.expect(page.locator("#compare-msg textarea")).to_have_value(
            re.compile(rf"^A = #{ids[0]} "), timeout=60_000
        )
        sync_api.expect(page.locator("#plot-content .js-plotly-plot")).to_have_count(
            1, timeout=30_000
        )
        assert page.locator("#plot-content .errorbar").count() > 0  # 95% intervals
        sync_api.expect(page.locator("#plot-content")).to_contain_text("n=")
        sync_api.expect(page.locator("#plot-diff")).to_contain_text("Overall (n=")
        assert _dataframe_headers(page, "#disagreements")[:4] == [
            "Question",
            "Gold",
            "A answer",
            "B answer",
        ]
        # at phone width too: the table scrolls sideways, no column shrinks to a letter
        for h in page.locator("#disagreements th").all():
            assert h.bounding_box()["width"] >= 60
        page.screenshot(path=str(shots / f"{width}-compare.png"), full_page=True)

        # failure and success look different
        _open_tab(page, "Submit")
        page.locator("#submit-btn").click()
        sync_api.expect(page.locator("#submit-msg textarea")).to_have_value(
            re.compile("^Not accepted"), timeout=30_000
        )
        assert "msg-error" in (page.locator("#submit-msg").get_attribute("class") or "")
        assert not page.locator("#breakdown").is_visible()
        page.screenshot(path=str(shots / f"{width}-submit-error.png"), full_page=True)
        page.close()
