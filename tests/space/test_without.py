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
from respondeoqa_space.config import Limits
from respondeoqa_space.readmodel import Snapshot
from respondeoqa_space.rows import short_label
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.views import figures
from respondeoqa_space.views.columns import VIEWS
from respondeoqa_space.views.detail import entry_detail
from respondeoqa_space.views.frames import ALL_COVERAGES
from respondeoqa_space.without import FLAGGED

from .answerskit import SHORT, gold_of, private_rows, two_entries
from .helpers import GRADED, _normalizes_nonempty, file_records, planted_rows, write_jsonl

pytestmark = pytest.mark.slow  # the rescoring and the item analysis run in processes of their own

WAIT = (
    300.0  # seconds the analysis and the variant may take on a busy machine (a bound, not a pace)
)


@pytest.fixture(scope="module")
def flagged_space(private_dir, tmp_path_factory) -> tuple[Space, str]:
    """A Space with six graded entries that flag a planted gold error (with every private item
    answered) and two more of every task (format failures, feet, translations); its analysis
    and its variant made."""
    from respondeoqa_eval.data.gold import read_folder

    gold = read_folder(private_dir)
    tmp = tmp_path_factory.mktemp("without")
    limits = Limits(submissions_per_day=50, attempts_per_day=50)
    space = Space(SpaceConfig(db=tmp / "lb.sqlite3", gold=gold, limits=limits, bootstrap=20))
    short = file_records(gold, SHORT)
    planted = [r for r in short if _normalizes_nonempty(gold_of(r))][-1]
    rows_a, rows_b, _, _ = two_entries(gold)
    submissions = [
        (model, planted_rows(short, planted.id, right, wrong, answer) + private_rows(gold))
        for model, right, wrong, answer in GRADED
    ] + [("model-a", rows_a), ("model-b", rows_b)]
    for model, rows in submissions:
        out = space.submit(write_jsonl(tmp / f"{model}.jsonl", rows), model, client=model)
        assert out.ok, out.message
    space.analyst.current(timeout=WAIT)
    assert space.without.wait(WAIT) is not None
    return space, planted.id


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
        stored = replace(e, report=replace(again, predictions=e.report.predictions))
        entries.append(space._shown(stored, flagged))
    return Snapshot(snap.version, entries, snap.stale, snap.status, without=FLAGGED)


def test_the_switched_numbers_are_a_rescore_without_the_flagged_items(flagged_space):
    space, planted = flagged_space
    variant = space.without.current()
    assert variant is not None
    flagged = variant.excluded.ids
    assert planted in flagged and variant.excluded.private == 0
    expected, default = _expected(space, flagged), space.snapshot()
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

    space, planted = flagged_space
    variant = space.without.current()
    html = str(label_html(variant.excluded, variant.unscored))
    n = len(variant.excluded.public)
    assert f"Without {n} suspected gold error" in html and f"({n} public, 0 private)" in html
    assert planted in html and 'href="answers?filter=flagged"' in html
    # the paper's numbers stay the default
    assert space.variant(None)[1] is None and space.variant("yes")[1] is None
    assert space.variant(FLAGGED)[1] is variant
