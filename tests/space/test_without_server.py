"""The switch without suspected gold errors on a real server (`without.py`, web/routes.py): the
board, an entry's detail and the CSV under `?without=flagged` hold the numbers of a re-score
without the flagged items, labelled, with the link to their walk; without the switch no label
and the paper's numbers; in chromium at 1400x900 and 390x844 the switch, its label and its
address on the board, an entry's detail and Compare."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from respondeoqa_space.config import Limits
from respondeoqa_space.service import Space, SpaceConfig

from .helpers import assert_laid_out, compare_entries, settled
from .test_without import _expected, _flagged_private
from .withoutkit import get

pytestmark = pytest.mark.slow


def _flagged(url: str) -> frozenset[str]:
    """The public items the served item analysis flags (its own CSV, not the switch's)."""
    status, body, _ = get(f"{url}item_analysis.csv")
    assert status == 200
    rows = csv.DictReader(io.StringIO(body))
    return frozenset(r["id"] for r in rows if r["suspected_gold_error"] == "True")


def test_the_routes_serve_a_rescore_without_the_flagged_items(flagged_server, private_gold):
    server, planted = flagged_server.server, flagged_server.planted
    public = _flagged(server.url)
    assert planted in public
    # the private ones the evaluator's analysis of every item flags (the same store read here)
    here = Space(SpaceConfig(db=server.db, gold=private_gold, limits=Limits(), bootstrap=20))
    private = _flagged_private(here)
    assert flagged_server.private in private
    flagged = public | private
    status, board, _ = get(f"{server.url}board?without=flagged")
    assert status == 200
    assert f"Without {len(flagged)} suspected gold errors" in board
    assert f"({len(public)} public, {len(private)} private)" in board and planted in board
    assert 'href="answers?filter=flagged"' in board
    assert "without=flagged" in re.search(r'class="board-csv" href="([^"]+)"', board)[1]
    # without the switch (or with any other value): no label, the paper's numbers
    for query in ("", "?without=yes"):
        status, paper, _ = get(f"{server.url}board{query}")
        assert status == 200 and "without-note" not in paper and "without=flagged" not in paper
    # the CSV under the switch: every number, interval and rank of a re-score without them
    # (the same store read here, each entry's kept predictions scored by evaluate())
    expected = _expected(here, flagged)
    for view, coverage in (("Overview", "all coverages"), ("Knowledge", "all coverages")):
        query = f"view={view}&coverage={coverage.replace(' ', '+')}"
        status, data, headers = get(f"{server.url}board.csv?{query}&without=flagged")
        assert status == 200
        assert "without-suspected-gold-errors" in headers["content-disposition"]
        assert data == expected.csv(view, coverage)[1].decode("utf-8")
        _, paper, headers = get(f"{server.url}board.csv?{query}")
        assert paper != data and "without" not in headers["content-disposition"]
    # an entry's detail: labelled under the switch only
    entry = f"e:{flagged_server.ids[0]}"
    status, detail, _ = get(f"{server.url}entry?entry={entry}&without=flagged")
    assert status == 200 and "without-note" in detail and planted in detail
    status, detail, _ = get(f"{server.url}entry?entry={entry}")
    assert status == 200 and "without-note" not in detail


def test_browser_switch(browser, flagged_server, screenshot_dir: Path):
    from playwright import sync_api

    server, planted = flagged_server.server, flagged_server.planted
    a, b = flagged_server.ids[:2]
    shots = screenshot_dir / "without"
    shots.mkdir(parents=True, exist_ok=True)
    note = "#leaderboard-table .without-note"
    for width, height in ((1400, 900), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        # the address turns the switch on: labelled, the link one click away
        page.goto(f"{server.url}?without=flagged")
        sync_api.expect(page.locator(note)).to_contain_text("suspected gold error", timeout=60_000)
        sync_api.expect(page.locator(note)).to_contain_text(planted)
        sync_api.expect(page.locator("#leaderboard-table input[data-without]")).to_be_checked()
        # a row's detail carries the label too
        page.locator(f"#leaderboard-table tr[data-key='e:{a}']").first.click()
        detail = page.locator("#entry-detail .without-note")
        sync_api.expect(detail).to_contain_text(planted, timeout=30_000)
        page.wait_for_function("() => location.search.includes('without=flagged')")
        page.screenshot(path=str(shots / f"{width}-board-on.png"), full_page=True)
        assert_laid_out(page, f"{width} board, switch on")
        # off: no label, the address without it, the detail asked for again
        page.locator("#leaderboard-table input[data-without]").click()
        sync_api.expect(page.locator(note)).to_have_count(0, timeout=30_000)
        sync_api.expect(detail).to_have_count(0, timeout=30_000)
        page.wait_for_function("() => !location.search.includes('without=')")
        page.screenshot(path=str(shots / f"{width}-board-off.png"), full_page=True)
        # on again, by the switch: the address holds it, then the link to the excluded list
        page.locator("#leaderboard-table input[data-without]").click()
        sync_api.expect(page.locator(note)).to_contain_text(planted, timeout=30_000)
        page.wait_for_function("() => location.search.includes('without=flagged')")
        page.locator(f"{note} a.without-list").click()
        page.wait_for_url(re.compile(r"/answers\?.*filter=flagged"), timeout=30_000)
        sync_api.expect(page.locator("body")).to_contain_text(
            "Suspected gold error", timeout=60_000
        )
        # Compare: the address turns its switch on, and the comparison is labelled
        page.goto(f"{server.url}compare?without=flagged")
        switch = page.locator("#compare-without-switch input[type=checkbox]")
        sync_api.expect(switch).to_be_checked(timeout=60_000)
        compare_entries(page, [a, b])
        sync_api.expect(page.locator("#compare-without")).to_contain_text(planted, timeout=90_000)
        settled(page)
        page.screenshot(path=str(shots / f"{width}-compare-on.png"), full_page=True)
        switch.click()
        sync_api.expect(page.locator("#compare-without")).to_be_hidden(timeout=90_000)
        page.wait_for_function("() => !location.search.includes('without=')")
        page.close()
