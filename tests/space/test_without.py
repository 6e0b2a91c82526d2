"""Scores without the suspected gold errors (issue 42; `without.py`), in-process with a real store:
the switched board (every view and coverage, as its CSV holds every number, interval and
rank), an entry's detail and Compare equal, number for number, a board of the same entries
scored again by `evaluate()` against the gold without the flagged items (a planted gold error
flagged); the label names the public items and links to their walk; the paper's numbers stay
the default. Routes and the browser: tests/space/test_without_server.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from respondeoqa_eval import evaluate
from respondeoqa_eval.analysis import analyze_items
from respondeoqa_space import privacy
from respondeoqa_space.config import Limits
from respondeoqa_space.readmodel import Snapshot
from respondeoqa_space.rows import short_label
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.views import figures
from respondeoqa_space.views.columns import VIEWS
from respondeoqa_space.views.detail import entry_detail
from respondeoqa_space.views.frames import ALL_COVERAGES
from respondeoqa_space.without import FLAGGED, Variants

from .helpers import write_jsonl
from .withoutkit import Graded, graded

pytestmark = pytest.mark.slow  # the rescoring and the item analysis run in processes of their own

WAIT = (
    300.0  # seconds the analysis and the variant may take on a busy machine (a bound, not a pace)
)


@pytest.fixture(scope="module")
def flagged_space(private_dir, tmp_path_factory) -> tuple[Space, Graded]:
    """A Space with the `graded` entries (a planted public and a planted private gold error
    flagged); its analysis and its variant made."""
    from respondeoqa_eval.data.gold import read_folder

    gold = read_folder(private_dir)
    tmp = tmp_path_factory.mktemp("without")
    limits = Limits(submissions_per_day=50, attempts_per_day=50)
    space = Space(SpaceConfig(db=tmp / "lb.sqlite3", gold=gold, limits=limits, bootstrap=20))
    found = graded(gold)
    for model, rows in found.submissions:
        out = space.submit(write_jsonl(tmp / f"{model}.jsonl", rows), model, client=model)
        assert out.ok, out.message
    space.analyst.current(timeout=WAIT)
    assert space.without.wait(WAIT) is not None
    return space, found


def _flagged_private(space: Space) -> frozenset[str]:
    """The private items the evaluator's item analysis of every item flags: the board's
    entries (all on its first page here), each scored again by `evaluate()` on its kept
    predictions (the store keeps no extracted answer of a private item)."""
    entries = {
        f"#{e.id}": evaluate(space.store.predictions(e.id) or [], space.gold, bootstrap=0).items
        for e in space.snapshot().entries
    }
    whole = analyze_items(entries, space.gold.by_id)
    return frozenset(it.id for it in whole.flagged if it.is_private)


def _expected(space: Space, flagged: frozenset[str]) -> Snapshot:
    """The board of the same entries, each scored again by `evaluate()` on its kept
    predictions against the gold without `flagged`, released as the Space releases any."""
    snap = space.snapshot()
    gold = space.gold.subset(lambda r: r.id not in flagged)
    entries = []
    for e in snap.entries:
        rows = [r for r in space.store.predictions(e.id) or [] if r["id"] not in flagged]
        resamples = int(e.report.evaluator.bootstrap["resamples"])  # as it was scored
        again = evaluate(rows, gold, restrict_to_covered=True, bootstrap=resamples)
        # released as any entry is: its private points are those of the items scored again
        points = privacy.private_points(again.items)
        report = replace(again, predictions=e.report.predictions)
        entries.append(space._shown(replace(e, report=report, private_points=points), flagged))
    return Snapshot(snap.version, entries, snap.stale, snap.status, without=FLAGGED)


def test_the_switched_numbers_are_a_rescore_without_the_flagged_items(flagged_space):
    space, found = flagged_space
    planted = found.planted
    variant = space.without.current()
    assert variant is not None
    flagged = variant.excluded.ids
    # both planted gold errors are left out: the public one named, the private one counted
    assert planted in variant.excluded.public and found.private in flagged
    assert found.private not in variant.excluded.public
    assert variant.excluded.private_ids == _flagged_private(space)
    expected, default = _expected(space, flagged), space.snapshot()
    public_only = _expected(space, frozenset(variant.excluded.public))
    switched = variant.snapshot
    coverages = [ALL_COVERAGES, *(value for value, _ in switched.coverage_options())]
    changed = 0
    for view in VIEWS:
        for coverage in dict.fromkeys(coverages):
            name, data = switched.csv(view, coverage)
            assert name.endswith("-without-suspected-gold-errors.csv")
            # every number, interval and rank of every row
            assert data == expected.csv(view, coverage)[1], (view, coverage)
            changed += data != default.csv(view, coverage)[1]
    assert changed  # the flagged items did move numbers: the check can fail
    # and the private ones did too (their items and points are out of the released values)
    assert any(
        expected.csv(view, ALL_COVERAGES)[1] != public_only.csv(view, ALL_COVERAGES)[1]
        for view in VIEWS
    )
    # an entry's detail: its breakdown without them, and its per-item results without them
    for e in switched.entries:
        key = f"e:{e.id}"
        shown = space.detail(key, variant)
        items = {i: it for i, it in space.store.item_scores(e.id).items() if i not in flagged}
        want = entry_detail(expected.resolve(key), items, stale=False)
        assert shown.breakdown.equals(want.breakdown) and shown.items_csv == want.items_csv
        assert shown.message == want.message
    # Compare: the charts' values and the paired bootstrap over the items left
    a, b = (f"e:{e.id}" for e in switched.entries[:2])
    out = space.compare([a, b], FLAGGED)
    assert "Without" in out.without and planted in out.without
    paired = space.compare([a, b])
    assert out.without and not paired.without
    assert planted not in set(out.disagreements.get("Item", []))
    series = [
        figures.Series(short_label(r), r.report, r.id)
        for r in (expected.resolve(a), expected.resolve(b))
    ]
    for dim, fig in (("by_content", out.by_content), ("by_language_pair", out.by_pair)):
        assert fig.to_json() == figures.grouped_bars(series, dim).to_json()
    assert out.by_content.to_json() != paired.by_content.to_json()


def test_the_label_names_public_items_and_links_their_walk(flagged_space):
    from respondeoqa_space.without import label_html

    space, found = flagged_space
    variant = space.without.current()
    html = str(label_html(variant.excluded, variant.unscored))
    public, private = len(variant.excluded.public), len(variant.excluded.private_ids)
    assert found.private in variant.excluded.private_ids  # the planted private one, counted
    assert f"Without {public + private} suspected gold errors" in html
    assert f"({public} public, {private} private)" in html
    assert f"{private} private (Certamen/NLE) items, counted, never named" in html
    assert found.planted in html and 'href="answers?filter=flagged"' in html
    # no private id is named, nor is any part of the set in the excluded's repr (a log line)
    assert not any(i in html or i in repr(variant.excluded) for i in variant.excluded.private_ids)
    # the paper's numbers stay the default
    assert space.variant(None)[1] is None and space.variant("yes")[1] is None
    assert space.variant(FLAGGED)[1] is variant


def test_the_flagged_private_set_changes_at_most_once_per_period(flagged_space):
    """A new set of flagged private items (a write can move it) is taken only once the
    period (`private_flags_hours`) since the last one has passed: each new set releases every
    entry's switched values again."""
    space, _ = flagged_space
    variants = Variants(space, lambda ids, excluded: {})  # its own clock and taken set
    now = [1_000_000.0]
    variants.clock = lambda: now[0]
    hours = space.limits.private_flags_hours
    assert hours == 24  # the default
    analysed = _flagged_private(space)
    assert analysed  # the fixture flags private items, so the set can change
    first = variants.excluded()
    assert first is not None and first.private_ids == analysed
    shrunk = frozenset(sorted(analysed)[1:])  # as if a write had moved the flags
    now[0] += hours * 3600 - 1
    assert variants._private_ids(shrunk) == analysed  # kept within the period
    now[0] += 1
    assert variants._private_ids(shrunk) == shrunk  # taken once it has passed
    now[0] += 1
    assert variants._private_ids(analysed) == shrunk  # and kept again
