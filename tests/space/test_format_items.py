"""Format compliance and item analysis on the board (issue 22's Space parts), from hand-made
submissions whose right answers are known: the Overview's unanswered share and lenient gap,
the entry detail's format rows, Compare's gap per category, the Items view (a planted gold
error flagged, private items only counted), its CSV, and the operator's `respondeoqa-space admin items`."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from respondeoqa_eval.analysis.items import AGREE, GOLD_FORMAT
from respondeoqa_space.admin import Admin
from respondeoqa_space.config import Limits
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.views import items as item_views
from respondeoqa_space.views.columns import LENIENT_GAP, UNANSWERED
from respondeoqa_space.views.frames import ALL_COVERAGES
from synthetic import SECRET_MARKER

from .helpers import (
    GRADED,
    WRONG,
    _normalizes_nonempty,
    file_records,
    planted_rows,
    write_jsonl,
)

SHORT = "junior_scholarship_short_answer.json"
PAPER_RIGHT, FORMAT_FAILURES = 40, 30


def _eligible(records):
    return [r for r in records if _normalizes_nonempty(r.answers[0])]


@pytest.fixture
def space(private_gold, tmp_path: Path) -> Space:
    limits = Limits(submissions_per_day=50, attempts_per_day=50)
    return Space(
        SpaceConfig(db=tmp_path / "lb.sqlite3", gold=private_gold, limits=limits, bootstrap=50)
    )


def _format_rows(records) -> list[dict[str, str]]:
    """PAPER_RIGHT items answered as the paper asks, FORMAT_FAILURES right answers behind a
    lowercase marker (the paper's rule reads nothing there, PROTOCOL 3; the lenient marker rule
    reads them), every other item wrong in the right format."""
    ok = _eligible(records)
    plain = {r.id for r in ok[:PAPER_RIGHT]}
    lower = {r.id for r in ok[PAPER_RIGHT : PAPER_RIGHT + FORMAT_FAILURES]}
    rows = []
    for r in records:
        if r.id in plain:
            response = f"Let me think.\nAnswer: {r.answers[0]}"
        elif r.id in lower:
            response = f"Let me think.\nanswer: {r.answers[0]}"
        else:
            response = f"Let me think.\nAnswer: {WRONG}"
        rows.append({"id": r.id, "response": response})
    return rows


def test_overview_detail_and_compare_show_what_the_format_cost(
    space: Space, private_gold, tmp_path: Path
) -> None:
    records = file_records(private_gold, SHORT)
    n = len(records)
    out = space.submit(write_jsonl(tmp_path / "f.jsonl", _format_rows(records)), "fmt", client="a")
    assert out.ok, out.message
    clean = [{"id": r.id, "response": f"Answer: {r.answers[0]}"} for r in records]
    other = space.submit(write_jsonl(tmp_path / "c.jsonl", clean), "clean", client="b")
    assert other.ok, other.message

    df = space.table("Overview", ALL_COVERAGES)
    row = df[df["Model"] == "fmt"].iloc[0]
    # the paper's rules read nothing from the lowercase markers: that share is unanswered,
    # and a lenient reading of each is right, so the gap is the same share in points
    assert row["Overall accuracy"] == round(100 * PAPER_RIGHT / n, 1)
    assert row[UNANSWERED] == round(100 * FORMAT_FAILURES / n, 1)
    assert row[UNANSWERED + " n"] == n
    assert row[LENIENT_GAP] == round(100 * FORMAT_FAILURES / n, 1)
    clean_row = df[df["Model"] == "clean"].iloc[0]
    assert clean_row[UNANSWERED] == 0.0 and clean_row[LENIENT_GAP] == 0.0
    paper = df[df["Type"] == "reported in paper"]
    assert paper[UNANSWERED].isna().all()  # the paper publishes no such number

    board = space.snapshot().board("Overview", ALL_COVERAGES)
    assert "No ans." in board and "Fmt gap" in board

    detail = space.detail(f"e:{out.entry.id}")
    by = {(r["Breakdown"], r["Group"]): r["Score"] for r in detail.breakdown.to_dict("records")}
    fmt = "Answer format (beyond the paper)"
    assert by[(fmt, "no answer the paper's rules read (% of items)")] == round(
        100 * FORMAT_FAILURES / n, 1
    )
    assert by[(fmt, "format failures a lenient rule reads (% of items)")] == round(
        100 * FORMAT_FAILURES / n, 1
    )
    assert by[(fmt, "lenient accuracy, all scored items")] == round(
        100 * (PAPER_RIGHT + FORMAT_FAILURES) / n, 1
    )
    assert by[("Overall accuracy", "all scored items (not translation)")] == round(
        100 * PAPER_RIGHT / n, 1
    )

    cmp = space.compare([f"e:{out.entry.id}", f"e:{other.entry.id}", "p:paper-llama-3.3-70b"])
    gaps = cmp.format_gaps.set_index(["Breakdown", "Group"])
    fmt_label, clean_label = cmp.format_gaps.columns[2], cmp.format_gaps.columns[3]
    gap = f"+{round(100 * FORMAT_FAILURES / n, 1):.1f} (n={n})"
    assert gaps.loc[("Overall", "all scored items"), fmt_label] == gap
    assert gaps.loc[("Task", "Short answer"), fmt_label] == gap
    assert gaps.loc[("Overall", "all scored items"), clean_label] == f"0.0 (n={n})"
    assert (gaps.iloc[:, 2] == "\u2014").all()  # the paper's row: no format part


def _private_rows(private_gold) -> list[dict]:
    rows = []
    for name in sorted({r.file for r in private_gold.records if r.is_private}):
        rows += [{"id": r.id, "answer": WRONG} for r in file_records(private_gold, name)]
    return rows


def test_items_view_flags_a_planted_gold_error_and_lists_public_items_only(
    space: Space, private_gold, tmp_path: Path
) -> None:
    records = file_records(private_gold, SHORT)
    planted = _eligible(records)[-1]  # past every entry's right items: only the gold's answer
    private = _private_rows(private_gold)
    for model, right, wrong, answer in GRADED:  # graded: the strong ones agree on the planted
        rows = planted_rows(records, planted.id, right, wrong, answer) + private
        out = space.submit(write_jsonl(tmp_path / f"{model}.jsonl", rows), model, client=model)
        assert out.ok, out.message

    view = space.items_view()
    table = view.table.set_index("Item")
    assert len(table) == len(records)  # every public item of the covered file, nothing else
    assert set(table["Source"]) == {"Junior Scholarship"}
    flag = table.loc[planted.id, "Suspected gold error"]
    assert flag.startswith("3 of 6 entries answer 'plantedwrong' (they average ")
    assert "times likelier if the gold is wrong; chance the gold is wrong: " in flag
    assert float(flag.rsplit(" ", 1)[1]) >= 0.7
    assert table.loc[planted.id, "Right %"] == 0.0
    assert table.loc[planted.id, "Most common wrong answer"] == "plantedwrong"
    assert table.loc[planted.id, "Given by"] == 3
    # each entry's own wrong answers never agree: nothing else is flagged by agreement
    agree = table["Suspected gold error"].str.contains("entries answer")
    assert list(table.index[agree]) == [planted.id]
    # an item all six get right is the easiest; the planted one is among the hardest
    easy = _eligible(records)[0].id
    assert table.loc[easy, "Right %"] == 100.0
    assert list(table.index).index(planted.id) < list(table.index).index(easy)

    n_private = sum(1 for r in private_gold.records if r.is_private and r.task != "translation")
    assert f"{n_private:,} private (Certamen, NLE) items are counted" in view.message
    assert "; 1 suspected gold error." in view.message
    assert "Suspected gold error: more entries agree on one other answer" in view.terms
    assert "wrong reaches 0.7; items with 5 or more entries" in view.terms
    flagged = space.items_view(flagged_only=True).table
    assert planted.id in set(flagged["Item"])
    assert (flagged["Suspected gold error"] != "").all()
    nothing = space.items_view(["certamen", item_views.ANY, item_views.ANY]).table
    assert nothing.empty  # private sources are never listed, even when asked for
    grammar = space.items_view([item_views.ANY, "grammar", item_views.ANY]).table
    assert 0 < len(grammar) < len(records) and set(grammar["Content"]) == {"Grammar"}

    name, data = space.item_analysis_csv()
    text = data.decode("utf-8")
    csv_rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["source"] for r in csv_rows} == {"jun-schol"}
    assert SECRET_MARKER not in text and SECRET_MARKER not in view.table.to_csv()
    private_questions = {r.question for r in private_gold.records if r.is_private}
    assert not any(q in text for q in private_questions)

    # the operator's review: every item, private ones with their question and gold
    admin = Admin(space.store, lambda: space.intake, actor="operator:test")
    summary = admin.items(tmp_path / "all-items.csv", top=3)
    assert "Suspected gold errors" in summary
    full = list(csv.DictReader((tmp_path / "all-items.csv").open(encoding="utf-8")))
    assert next(r for r in full if r["id"] == planted.id)["strong_answer"] == "plantedwrong"
    by_source = {r["source"] for r in full}
    assert {"certamen", "jun-schol"} <= by_source
    secret = [r for r in full if r["source"] == "certamen"]
    assert all(SECRET_MARKER in r["gold"] for r in secret)
    # every entry answered the private items with the same wrong answer: the operator's view
    # tests them too, and every private short answer is flagged by agreement; in multiple
    # choice that answer ("z", no option's letter) is every item's, so agreement there is the
    # task's norm, not surprising: only the gold format rule flags
    short = [r for r in secret if r["task"] == "short_answer"]
    assert short and all(r["reasons"] == AGREE for r in short)
    choice = [r for r in secret if r["task"] == "multiple_choice"]
    assert any(r["gold_problem"] for r in choice) and not all(r["gold_problem"] for r in choice)
    assert all(r["reasons"] == (GOLD_FORMAT if r["gold_problem"] else "") for r in choice)


def test_the_summary_says_entry_for_one_and_entries_for_more():
    from respondeoqa_eval.analysis.items import analyze_items
    from respondeoqa_eval.report.model import ItemResult

    def results(answer: str) -> list[ItemResult]:
        return [
            ItemResult(f"q{i}", f"q{i}", "english", "short_answer", "jun-schol", "grammar",
                       answer, float(answer == "a"), False)
            for i in range(3)
        ]  # fmt: skip

    one, _ = item_views.summary(analyze_items({"solo": results("a")}), 3)
    assert one.startswith("Item analysis of the 1 entry on the board over 3 public items")
    two, terms = item_views.summary(analyze_items({"x": results("a"), "y": results("b")}), 3)
    assert two.startswith("Item analysis of the 2 entries on the board")
    assert two.endswith("; 0 suspected gold errors.")  # what is shown, then what it means
    assert terms.startswith("Right %: the share of entries that get the item right.")
