"""A board of many entries, in-process (issue 40): rank ranges by bisection agree with every
pair compared; the record tables a reader keeps across data versions give the frames a fresh
build gives; search and paging reach every entry."""

from __future__ import annotations

import html
import math
import random
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from respondeoqa_space import readmodel
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.store import Store
from respondeoqa_space.views.columns import OVERVIEW, TRANSLATION_VIEW
from respondeoqa_space.views.frames import (
    ALL_COVERAGES,
    coverage_choices,
    default_coverage,
    leaderboard_frame,
    rank_ranges,
)

from .helpers import file_records, k_correct_predictions, parse_board, wait_until, write_jsonl

NAN = math.nan
SHORT = "junior_scholarship_short_answer.json"


def brute_rank_ranges(
    coverage: list[str], score: list[float], low: list[float], high: list[float], rank: list[int]
) -> tuple[list[int], list[int]]:
    """The definition, every pair compared: a row with an interval ranks from 1 + the rows of
    its coverage surely above it (their low end above its high end) to 1 + those maybe above
    it (their high end at or above its low end); a row without an interval counts as its value
    alone and keeps its rank; a row without a score counts for nothing."""
    out_low, out_high = list(rank), list(rank)
    spans = []
    for i, s in enumerate(score):
        if math.isnan(s):
            continue
        has_ci = not (math.isnan(low[i]) or math.isnan(high[i]))
        spans.append((i, low[i] if has_ci else s, high[i] if has_ci else s, has_ci))
    for i, lo, hi, has_ci in spans:
        if not has_ci:
            continue
        others = [(lo2, hi2) for j, lo2, hi2, _ in spans if j != i and coverage[j] == coverage[i]]
        out_low[i] = 1 + sum(1 for lo2, _ in others if lo2 > hi)
        out_high[i] = 1 + sum(1 for _, hi2 in others if hi2 >= lo)
    return out_low, out_high


def _case(rng: random.Random) -> tuple[list, list, list, list, list]:
    """Random rows: scores on a coarse grid (ties), some without a score, some without an
    interval or with half of one, intervals that touch, a few with their ends swapped."""
    n = rng.randrange(0, 40)
    coverage = [rng.choice("abc") for _ in range(n)]
    score, low, high = [], [], []
    for _ in range(n):
        s = rng.choice([NAN, *[v / 4 for v in range(9)]]) if rng.random() < 0.9 else NAN
        lo = s - rng.choice([0, 0.25, 0.5, 1])
        hi = s + rng.choice([0, 0.25, 0.5, 1])
        kind = rng.random()
        if kind < 0.15:
            lo = hi = NAN  # no interval (a published number)
        elif kind < 0.2:
            lo = NAN  # half an interval counts as none
        elif kind < 0.23:
            lo, hi = hi, lo  # ends swapped: the definition still says what follows
        score.append(s)
        low.append(lo)
        high.append(hi)
    rank = [rng.randrange(0, n + 1) for _ in range(n)]
    return coverage, score, low, high, rank


@pytest.mark.parametrize("seed", range(400))
def test_rank_ranges_agree_with_every_pair_compared(seed: int) -> None:
    coverage, score, low, high, rank = _case(random.Random(seed))
    got = rank_ranges(coverage, np.array(score), np.array(low), np.array(high), np.array(rank))
    want = brute_rank_ranges(coverage, score, low, high, rank)
    assert [list(map(int, part)) for part in got] == [list(part) for part in want]


# -- the read model on a store of many entries -----------------------------------------------


@pytest.fixture(scope="session")
def pool(public_gold, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve really scored files of the three public coverages, half of them covering every
    public file (kit/scale_store.py)."""
    from kit.scale_store import score_pool

    folder = tmp_path_factory.mktemp("scale-pool")
    score_pool(folder / "pool.sqlite3", public_gold, folder / "work", 12, bootstrap=100, every=4)
    return folder / "pool.sqlite3"


def _space(pool: Path, public_gold, db: Path, entries: int) -> Space:
    from kit.scale_store import fill

    fill(db, pool, entries)
    return Space(SpaceConfig(db=db, gold=public_gold, bootstrap=50))


def _same_frames(space: Space) -> None:
    """Every frame of the snapshot (kept tables, updated by the rows that changed) is the
    frame a fresh build of its rows gives; so are its coverages and stale marks (counted as
    rows come and go)."""
    snap = space.snapshot()
    assert snap.default_coverage() == default_coverage(snap.rows)
    assert snap.coverages() == coverage_choices(snap.rows)
    assert snap.stale == frozenset(e.id for e in snap.entries if space.is_stale(e))
    for view in (OVERVIEW, "Content type", TRANSLATION_VIEW):
        for coverage in (ALL_COVERAGES, snap.default_coverage(), "Latin Prosody"):
            for verified in (False, True):
                kept = snap.frame(view, coverage, verified)
                fresh = leaderboard_frame(snap.rows, view, coverage, snap.stale, verified)
                pd.testing.assert_frame_equal(kept, fresh)


def test_kept_tables_give_the_frames_a_fresh_build_gives(pool, public_gold, tmp_path) -> None:
    space = _space(pool, public_gold, tmp_path / "lb.sqlite3", 40)
    _same_frames(space)
    other = Store(tmp_path / "lb.sqlite3")  # another writer (the operator's tools)
    first = space.snapshot().entries
    other.set_hidden(first[3].id, True)
    other.set_flag(first[5].id, "checked by hand")
    other.delete(first[7].id)
    _same_frames(space)
    records = file_records(public_gold, SHORT)
    rows, _ = k_correct_predictions(records, 600)
    assert space.submit(write_jsonl(tmp_path / "new.jsonl", rows), "new one", client="c").ok
    other.set_hidden(first[3].id, False)  # back, as it was
    _same_frames(space)
    assert {e.id for e in space.snapshot().entries} == {e.id for e in first} - {first[7].id} | {
        max(e.id for e in space.snapshot().entries)
    }


def _models(html: str) -> list[str]:
    return [r["Model"] for r in parse_board(html)[1]]


def test_a_board_is_served_while_its_next_version_is_built(pool, public_gold, tmp_path) -> None:
    """A write made here is on every board read lately before it is acknowledged; after
    another writer's, the last board is served while the new one is built in the background
    if the write only adds rows, and never a row the write hid."""
    space = _space(pool, public_gold, tmp_path / "lb.sqlite3", 30)
    reads = space.reads
    before = _models(reads.board(OVERVIEW, ALL_COVERAGES))
    assert len(before) == 33  # the paper's rows too
    records = file_records(public_gold, SHORT)
    rows, _ = k_correct_predictions(records, 650)
    assert space.submit(write_jsonl(tmp_path / "here.jsonl", rows), "made here", client="c").ok
    built = reads.snapshot().version
    assert reads.served_board(OVERVIEW, ALL_COVERAGES)[0] == built
    assert "made here" in _models(reads.board(OVERVIEW, ALL_COVERAGES))

    # another writer adds an entry: the board read lately is served as it was, then the new one
    from respondeoqa_space.config import Limits
    from respondeoqa_space.metadata import clean_metadata
    from respondeoqa_space.submission import Intake

    elsewhere = Intake(Store(tmp_path / "lb.sqlite3"), public_gold, limits=Limits(), bootstrap=50)
    rows, _ = k_correct_predictions(records, 640)
    meta = clean_metadata("made elsewhere", "", "", "", Limits())
    elsewhere.submit(write_jsonl(tmp_path / "elsewhere.jsonl", rows), meta, client=None)
    version, html = reads.served_board(OVERVIEW, ALL_COVERAGES)
    if version != reads.snapshot().version:  # served before the background build was done
        assert "made elsewhere" not in _models(html)
    wait_until(
        lambda: "made elsewhere" in _models(reads.board(OVERVIEW, ALL_COVERAGES)),
        "the background build never came",
        seconds=60,
    )
    # another writer hides an entry: gone from the next read, whatever was built before
    hidden = next(e for e in reads.snapshot().entries if e.model == "made here")
    Store(tmp_path / "lb.sqlite3").set_hidden(hidden.id, True)
    assert "made here" not in _models(reads.board(OVERVIEW, ALL_COVERAGES))
    assert "made here" not in _models(reads.board(OVERVIEW, None))


def test_pages_and_search_reach_every_row(pool, public_gold, tmp_path, monkeypatch) -> None:
    """Pages of a coverage beyond its first rows; a search over every row of the coverage,
    each match with its rank; the Compare picker finds any row by typing."""
    monkeypatch.setattr(readmodel, "BOARD_MAX_ROWS", 7)
    space = _space(pool, public_gold, tmp_path / "lb.sqlite3", 60)
    snap = space.snapshot()
    coverage = snap.default_coverage()
    ranked = snap.frame(OVERVIEW, coverage)
    assert len(ranked) > 3 * 7
    first = parse_board(space.reads.board(OVERVIEW, coverage))[1]
    assert [r["Rank"] for r in first] == [str(x) for x in ranked["Rank"][:7]]
    third = space.reads.board(OVERVIEW, coverage, page="3")
    assert [r["_key"] for r in parse_board(third)[1]] == list(ranked.index[14:21])
    assert "Rows 15\u201321 of" in html.unescape(third) and 'data-page="4"' in third
    last = -(-len(ranked) // 7)
    beyond = space.reads.board(OVERVIEW, coverage, page="999")  # the last page
    assert [r["_key"] for r in parse_board(beyond)[1]] == list(ranked.index[(last - 1) * 7 :])
    assert space.reads.board(OVERVIEW, coverage, page="x") == space.reads.board(OVERVIEW, coverage)

    # the row ranked last but one, found by its number, its name and its submitter
    key = ranked.index[-2]
    row = ranked.loc[key]
    for query in (row["Entry"], row["Model"].upper(), f"  {row['Model']} "):
        found = parse_board(space.reads.board(OVERVIEW, coverage, query=query))[1]
        mine = [r for r in found if r["_key"] == key]
        assert mine and mine[0]["Rank"] == str(row["Rank"]), query
    found = parse_board(space.reads.board(OVERVIEW, coverage, query="no such model"))[1]
    assert found == []
    # an entry asked for by its key (the submitter's link): the page that holds its row
    for at in (0, 9, len(ranked) - 2):
        shown = parse_board(space.reads.board(OVERVIEW, coverage, entry=ranked.index[at]))[1]
        assert [r["_key"] for r in shown] == list(ranked.index[at // 7 * 7 :][:7]), at
    unknown = space.reads.board(OVERVIEW, coverage, page="2", entry="e:999999")
    assert unknown == space.reads.board(OVERVIEW, coverage, page="2")
    # every coverage: a section each, the first page of each, and a way to the next
    every = space.reads.board(OVERVIEW, ALL_COVERAGES)
    assert f'class="board-more" data-coverage="{coverage}" data-page="2"' in every
    # the Compare picker: the first page of each coverage on focus, any row when typed
    choices = {k for _, k in snap.choices()}
    assert key not in choices
    assert key in {k for _, k in snap.find(row["Entry"] + " ")} | {
        k for _, k in snap.find(row["Model"])
    }


@pytest.mark.slow  # the analyses run in processes of their own (multiprocessing), 15 s of them
def test_the_item_analysis_is_made_in_the_background_and_served_as_last_made(
    pool, public_gold, tmp_path
) -> None:
    """A page never waits for the item analysis: before the first is made it says so; then
    the last one made, with its age, while the next is made after a write; the operator's
    call (and the CSV) wait for the current one, whose numbers are `analyze_items`' own."""
    from respondeoqa_eval.analysis import analyze_items
    from respondeoqa_space.views import items as item_views

    space = _space(pool, public_gold, tmp_path / "lb.sqlite3", 30)
    gate = threading.Event()
    made = space._analyse
    space.analyst._analyse = lambda: (gate.wait(60), made())[1]  # held until the test says
    first = space.items_view(wait=False)  # asks for one, gets none yet: no wait
    assert first.message == item_views.BEING_MADE and first.table.empty and not first.fresh
    assert space.analyst.running()
    gate.set()
    current = space.analyst.current(timeout=120)
    assert current is not None and current.version == space.store.data_version()
    shown = space.items_view(wait=False)
    assert shown.fresh and shown.message.startswith("Item analysis of the 30 entries")
    assert shown.message.endswith("Made less than a minute ago, from the board as it is now.")

    gate.clear()  # the next one is held: a write meanwhile leaves the last one served
    records = file_records(public_gold, SHORT)
    rows, _ = k_correct_predictions(records, 660)
    assert space.submit(write_jsonl(tmp_path / "w.jsonl", rows), "a write", client="c").ok
    stale = space.items_view(wait=False)
    assert not stale.fresh and "of the 30 entries" in stale.message
    assert stale.message.endswith("an analysis of the board as it is now is being made.")
    gate.set()
    name, data = space.item_analysis_csv()  # waits for the current one
    assert name.endswith(".csv") and data.count(b"\n") > 100
    # the numbers: analyze_items of the entries on the board's first page, as they are stored
    snap = space.snapshot()
    entries = {
        f"#{e.id}": [
            it
            for it in space.store.item_scores(e.id, public_only=False).values()
            if not it.is_private
        ]
        for e in snap.entries
    }
    want = analyze_items(entries, public_gold.by_id)
    got = space.item_analysis()
    assert got.items == want.items and got.entries == want.entries and len(got.entries) == 31


def test_the_main_page_kept_at_shutdown_answers_the_next_start(pool, public_gold, tmp_path):
    """The page served at shutdown is served at the next start before any entry is decoded,
    only when the store still holds what it shows (and the same code, gold and limits)."""
    from respondeoqa_space.web.app import MONO, SANS, static
    from respondeoqa_space.web.board_page import BoardPage

    db = tmp_path / "lb.sqlite3"
    saved = tmp_path / "lb.sqlite3.page"
    space = _space(pool, public_gold, db, 30)

    def page_of(space: Space) -> BoardPage:
        return BoardPage(space, saved=saved, static=static, sans=SANS, mono=MONO, api_href="api")

    first = page_of(space)
    served = first.current()
    first.save()
    restarted = Space(SpaceConfig(db=db, gold=public_gold, bootstrap=50))
    again = page_of(restarted)
    assert again.restore()
    assert again._kept is not None and again._kept[2].bodies == served.bodies
    assert restarted.reads._snapshot is None  # nothing decoded to answer it
    # the same page the restarted Space renders itself once it has decoded its entries
    assert again.current().bodies["identity"] == served.bodies["identity"]

    Store(db).set_flag(space.snapshot().entries[0].id, "a note")  # the store moved on
    assert not page_of(Space(SpaceConfig(db=db, gold=public_gold, bootstrap=50))).restore()
    first.save()  # not the current version's page any more: nothing kept
    assert not page_of(Space(SpaceConfig(db=db, gold=public_gold, bootstrap=50))).restore()
    saved.write_bytes(b'{"key": 1}\n')  # a broken file is not served
    assert not page_of(Space(SpaceConfig(db=db, gold=public_gold, bootstrap=50))).restore()
