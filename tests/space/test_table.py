"""Table builders: leaderboard rows per view, paper rows, ranks by coverage, CSV, breakdown."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field, replace

import pytest
from respondeoqa_eval.report import BleuScore, Report, Score
from respondeoqa_eval.space import table
from respondeoqa_eval.space.paper import PAPER_LABEL, PAPER_ROWS

from .helpers import make_report


@dataclass
class FakeEntry:
    """Shaped like store.Entry (what table.Row needs), with a typed report."""

    id: int
    model: str
    report: Report
    sources: tuple[str, ...] = ("jun-schol", "lat-pros")
    created: str = "2026-05-01T10:00:00+00:00"
    params: str = ""
    link: str = ""
    kind: str = field(default="scored")


def rows_by_model(df):
    return {r["Model"]: r for r in df.to_dict("records")}


def test_paper_rows_carry_published_numbers() -> None:
    # PROTOCOL section 6, typed in from the table there
    df = table.leaderboard_frame(list(PAPER_ROWS))
    rows = rows_by_model(df)
    assert set(rows) == {"LLaMa 3.3 70B", "Qwen QwQ 32B", "o3-mini"}
    assert rows["LLaMa 3.3 70B"]["Overall"] == 71.92
    assert rows["Qwen QwQ 32B"]["MC"] == 90.86
    assert rows["o3-mini"]["Knowledge"] == 69.46 and rows["o3-mini"]["Skill"] == 66.76
    assert rows["LLaMa 3.3 70B"]["BLEU to Latin"] == 23.71
    assert rows["o3-mini"]["BLEU to English"] == 43.14
    assert rows["Qwen QwQ 32B"]["Scansion"] == 21.1
    assert all(r["Type"] == PAPER_LABEL for r in rows.values())
    assert [r["Rank"] for r in df.to_dict("records")] == [1, 2, 3]
    content = rows_by_model(table.leaderboard_frame(list(PAPER_ROWS), "Content type"))
    assert content["LLaMa 3.3 70B"]["Literary devices"] == 35.7
    assert content["o3-mini"]["Reading comprehension"] == 94.0
    pairs = rows_by_model(table.leaderboard_frame(list(PAPER_ROWS), "Language pair"))
    assert pairs["Qwen QwQ 32B"]["Latin \u2192 English"] == 90.2
    assert pairs["o3-mini"]["Latin \u2192 Latin"] == 44.7
    bleu = rows_by_model(table.leaderboard_frame(list(PAPER_ROWS), "Translation (BLEU)"))
    assert bleu["Qwen QwQ 32B"]["BLEU to English constrained"] == 17.95
    assert bleu["o3-mini"]["BLEU to Latin unconstrained"] == 23.42


def test_views_have_the_issue_columns() -> None:
    assert len(table.VIEWS["Content type"]) == 10
    assert len(table.VIEWS["Language pair"]) == 4
    assert len(table.VIEWS["Source"]) == 4
    assert len(table.VIEWS["Format"]) == 2
    for view in table.VIEWS:
        cols = table.columns(view)
        assert cols[:2] == ["Rank", "Model"]  # the pinned columns
        types = table.datatypes(view)
        assert len(types) == len(cols)
        assert not {"html", "markdown"} & set(types)
        assert types[cols.index("Model")] == "str" and types[cols.index("Link")] == "str"
        df = table.leaderboard_frame(list(PAPER_ROWS), view)
        assert list(df.columns) == cols


def test_scored_rows_rank_within_coverage() -> None:
    entries = [
        FakeEntry(1, "public-low", make_report(0.40)),
        FakeEntry(2, "public-high", make_report(0.80)),
        FakeEntry(
            3,
            "full",
            make_report(0.70, sources=("certamen", "nle", "jun-schol", "lat-pros")),
            sources=("certamen", "jun-schol", "lat-pros", "nle"),
        ),
        FakeEntry(
            4, "certamen-only", make_report(0.99, sources=("certamen",)), sources=("certamen",)
        ),
    ]
    df = table.leaderboard_frame([*PAPER_ROWS, *entries])
    rows = rows_by_model(df)
    # full coverage ranks with the paper rows: 71.92 > 70 > 68.61 > 68.11
    assert rows["LLaMa 3.3 70B"]["Rank"] == 1 and rows["full"]["Rank"] == 2
    assert rows["o3-mini"]["Rank"] == 3
    assert rows["public-high"]["Rank"] == 1 and rows["public-low"]["Rank"] == 2
    assert rows["certamen-only"]["Rank"] == 1  # the best score, but alone in its coverage
    assert list(df["Model"])[:4] == ["LLaMa 3.3 70B", "full", "o3-mini", "Qwen QwQ 32B"]
    assert rows["public-high"]["Coverage"] == "public (jun-schol + lat-pros)"
    assert rows["public-high"]["Overall"] == 80.0
    assert rows["public-high"]["95% CI"] == "75.0 to 85.0"
    assert rows["public-high"]["Entry"] == "#2" and rows["public-high"]["Date"] == "2026-05-01"
    assert math.isnan(rows["public-high"]["MC"])  # no multiple choice in the report
    only = table.leaderboard_frame([*PAPER_ROWS, *entries], coverage="certamen")
    assert list(only["Model"]) == ["certamen-only"]
    assert table.coverage_choices([*PAPER_ROWS, *entries])[:2] == [
        table.ALL_COVERAGES,
        "all sources",
    ]


def test_unknown_view_and_empty() -> None:
    with pytest.raises(ValueError):
        table.leaderboard_frame([], "Nonsense")
    assert table.leaderboard_frame([]).empty


def test_csv_neutralises_formulas_and_keeps_text() -> None:
    entries = [
        FakeEntry(1, '=HYPERLINK("http://evil")', make_report(0.5)),
        FakeEntry(2, "<script>alert(1)</script>", make_report(0.6)),
    ]
    text = table.to_csv(table.leaderboard_frame(entries))
    rows = list(csv.DictReader(io.StringIO(text)))
    models = {r["Model"] for r in rows}
    assert '\'=HYPERLINK("http://evil")' in models
    assert "<script>alert(1)</script>" in models
    assert {r["Overall"] for r in rows} == {"50.0", "60.0"}


def test_breakdown_frame_lists_every_group() -> None:
    base = make_report(0.5, content={"grammar": 0.25})
    report = replace(
        base,
        extra={"short_answer_macron_sensitive": Score(0.4, 10, (0.3, 0.5))},
        bleu={"latin": {"overall": BleuScore(20.0, 5, variable_refs=21.5)}},
    )
    df = table.breakdown_frame(report)
    rows = {(r["Group"], r["Key"]): r for r in df.to_dict("records")}
    assert rows[("Overall", "accuracy")]["Score"] == 50.0
    assert rows[("Content type", "Grammar")]["Score"] == 25.0
    assert rows[("Extra", "short answer, macron-sensitive")]["Score"] == 40.0
    assert rows[("BLEU to Latin", "overall")]["Score"] == 20.0
    assert rows[("BLEU to Latin", "overall, variable refs")]["Score"] == 21.5
    assert ("BLEU to Latin", "constrained") not in rows  # null groups are skipped
