"""Table builders: leaderboard rows per view, paper rows, ranks by coverage, CSV, breakdown."""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser

import pytest
from respondeoqa_eval.numbers import MISSING, percent_text, round1
from respondeoqa_eval.report import BleuScore, Report, Score
from respondeoqa_eval.space.paper import PAPER_ROWS
from respondeoqa_eval.space.rows import PAPER_LABEL
from respondeoqa_eval.space.views.board import board_html
from respondeoqa_eval.space.views.columns import (
    TRANSLATION_VIEW,
    VIEWS,
    column_widths,
    columns,
    display_columns,
)
from respondeoqa_eval.space.views.entry import breakdown_frame
from respondeoqa_eval.space.views.frames import (
    ALL_COVERAGES,
    coverage_choices,
    display_frame,
    leaderboard_frame,
    records,
    to_csv,
)
from respondeoqa_eval.space.views.legend import legend

from .helpers import make_report, parse_board


@dataclass
class FakeEntry:
    """Shaped like store.Entry (what rows.Row needs), with a typed report."""

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


def test_round1_rounds_halves_up_as_written() -> None:
    assert [round1(v) for v in (17.95, 0.05, 71.92, 90.25, -0.15)] == [
        18.0,
        0.1,
        71.9,
        90.3,
        -0.2,
    ]
    assert math.isnan(round1(None)) and percent_text(None) == MISSING
    assert percent_text(0.59149) == "59.1%" and percent_text(2 / 3) == "66.7%"


def test_paper_rows_carry_published_numbers() -> None:
    # PROTOCOL section 6, typed in from the table there
    df = leaderboard_frame(list(PAPER_ROWS))
    rows = rows_by_model(df)
    assert set(rows) == {"LLaMa 3.3 70B", "Qwen QwQ 32B", "o3-mini"}
    assert rows["LLaMa 3.3 70B"]["Overall"] == 71.9  # 71.92, one decimal
    assert rows["Qwen QwQ 32B"]["Multiple choice"] == 90.9
    assert rows["o3-mini"]["Knowledge"] == 69.5 and rows["o3-mini"]["Skill"] == 66.8
    assert rows["LLaMa 3.3 70B"]["BLEU \u2192 Latin (paper, padded)"] == 23.7
    assert rows["o3-mini"]["BLEU \u2192 English (paper, padded)"] == 43.1
    assert math.isnan(rows["o3-mini"]["BLEU \u2192 English (no padding)"])  # not published
    assert rows["Qwen QwQ 32B"]["Scansion"] == 21.1
    assert all(r["Type"] == PAPER_LABEL for r in rows.values())
    assert [r["Rank"] for r in df.to_dict("records")] == [1, 2, 3]
    content = rows_by_model(leaderboard_frame(list(PAPER_ROWS), "Content type"))
    assert content["LLaMa 3.3 70B"]["Literary devices"] == 35.7
    assert content["o3-mini"]["Reading comprehension"] == 94.0
    pairs = rows_by_model(leaderboard_frame(list(PAPER_ROWS), "Language pair"))
    assert pairs["Qwen QwQ 32B"]["Latin \u2192 English"] == 90.2
    assert pairs["o3-mini"]["Latin \u2192 Latin"] == 44.7
    bleu = rows_by_model(leaderboard_frame(list(PAPER_ROWS), TRANSLATION_VIEW))
    # published 17.95: halves round up as written (float rounding would show 17.9)
    assert bleu["Qwen QwQ 32B"]["BLEU \u2192 English, constrained (paper, padded)"] == 18.0
    assert bleu["o3-mini"]["BLEU \u2192 Latin, unconstrained (paper, padded)"] == 23.4


def test_views_have_the_issue_columns() -> None:
    assert len(VIEWS["Content type"]) == 10
    assert len(VIEWS["Language pair"]) == 4
    assert len(VIEWS["Source"]) == 4
    assert len(VIEWS["Format"]) == 2
    for view in VIEWS:
        cols = columns(view)
        assert cols[:3] == ["Rank", "Model", "Overall"]  # pinned, then the overall score
        assert display_columns(view)[:4] == ["Rank", "Model", "Overall", "95% CI"]
        cols = display_columns(view)
        df = leaderboard_frame(list(PAPER_ROWS), view)
        headers, _rows = parse_board(board_html(df, view))
        assert headers == cols
        assert list(df.columns) == columns(view)
        assert list(display_frame(df).columns) == cols
        assert len(column_widths(view)) == len(cols)
        # no view shows the paper's padded BLEU without BLEU without padding beside it
        padded = [c for c in cols if c.endswith("(paper, padded)")]
        assert all(c.replace("(paper, padded)", "(no padding)") in cols for c in padded)


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
    df = leaderboard_frame([*PAPER_ROWS, *entries])
    rows = rows_by_model(df)
    # full coverage ranks with the paper rows: 71.92 > 70 > 68.61 > 68.11
    assert rows["LLaMa 3.3 70B"]["Rank"] == 1 and rows["full"]["Rank"] == 2
    assert rows["o3-mini"]["Rank"] == 3
    assert rows["public-high"]["Rank"] == 1 and rows["public-low"]["Rank"] == 2
    assert rows["certamen-only"]["Rank"] == 1  # the best score, but alone in its coverage
    assert list(df["Model"])[:4] == ["LLaMa 3.3 70B", "full", "o3-mini", "Qwen QwQ 32B"]
    assert rows["public-high"]["Coverage"] == "public (Junior Scholarship + Latin Prosody)"
    assert rows["public-high"]["Overall"] == 80.0
    assert (rows["public-high"]["CI low"], rows["public-high"]["CI high"]) == (75.0, 85.0)
    assert rows["public-high"]["Entry"] == "#2" and rows["public-high"]["Date"] == "2026-05-01"
    assert math.isnan(rows["public-high"]["Multiple choice"])  # no multiple choice in the report
    only = leaderboard_frame([*PAPER_ROWS, *entries], coverage="Certamen")
    assert list(only["Model"]) == ["certamen-only"]
    assert coverage_choices([*PAPER_ROWS, *entries])[:2] == [
        ALL_COVERAGES,
        "all sources",
    ]


def test_unknown_view_and_empty() -> None:
    with pytest.raises(ValueError):
        leaderboard_frame([], "Nonsense")
    assert leaderboard_frame([]).empty


def test_csv_neutralises_formulas_and_keeps_text() -> None:
    entries = [
        FakeEntry(1, '=HYPERLINK("http://evil")', make_report(0.5)),
        FakeEntry(2, "<script>alert(1)</script>", make_report(0.6)),
    ]
    text = to_csv(leaderboard_frame(entries))
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
    df = breakdown_frame(report)
    rows = {(r["Breakdown"], r["Group"]): r for r in df.to_dict("records")}
    assert rows[("Overall", "all scored items")]["Score"] == 50.0
    assert rows[("Content type", "Grammar")]["Score"] == 25.0
    assert rows[("Extra", "Short answer, macrons kept")]["Score"] == 40.0
    bleu = {
        r["Metric"]: r
        for r in df.to_dict("records")
        if r["Breakdown"] == "Translation \u2192 Latin"
    }
    assert bleu["BLEU (paper, padded)"]["Score"] == 20.0
    assert bleu["BLEU (no padding)"]["Score"] == 21.5
    assert math.isnan(bleu["chrF"]["Score"])  # not in this report: shown as missing
    assert {r["Group"] for r in bleu.values()} == {"all"}  # null splits are skipped


def test_number_style_best_values_and_csv_types() -> None:
    entries = [
        FakeEntry(1, "a", make_report(0.25)),
        FakeEntry(2, "b", make_report(0.5)),
    ]
    df = leaderboard_frame([*PAPER_ROWS, *entries])
    shown = display_frame(df)
    assert shown.loc[shown["Model"] == "a", "95% CI"].item() == "20.0 to 30.0"
    assert shown.loc[shown["Model"] == "LLaMa 3.3 70B", "95% CI"].item() == MISSING
    headers, rows = parse_board(board_html(df, "Leaderboard"))
    assert headers == display_columns("Overview")
    by_model = {r["Model"]: r for r in rows}
    # one decimal for every score, the missing mark for a missing value, integers for counts
    assert by_model["b"]["Overall"] == "50.0" and by_model["a"]["Overall"] == "25.0"
    assert by_model["LLaMa 3.3 70B"]["Overall"] == "71.9"  # 71.92 in the paper
    assert by_model["LLaMa 3.3 70B"]["Items"] == MISSING
    assert by_model["b"]["Items"] == "100" and by_model["b"]["Rank"] == "1"
    # the best value per coverage: b (50.0) among the public entries, LLaMa among the paper's
    assert "Overall" in by_model["b"]["_best"] and "Overall" not in by_model["a"]["_best"]
    assert "Overall" in by_model["LLaMa 3.3 70B"]["_best"]
    assert "Overall" not in by_model["o3-mini"]["_best"]
    # rows carry the key the entry detail opens
    assert by_model["b"]["_key"] == "e:2"
    o3 = next(p for p in PAPER_ROWS if p.model == "o3-mini")
    assert by_model["o3-mini"]["_key"] == f"p:{o3.key}"
    rows = list(csv.DictReader(io.StringIO(to_csv(df))))
    assert [r["Rank"] for r in rows] == ["1", "2", "3", "1", "2"]
    assert rows[3]["Items"] == "100" and rows[0]["Items"] == ""
    assert float(rows[3]["CI low"]) == 45.0 and float(rows[3]["CI high"]) == 55.0
    api = records(df)
    assert api["headers"] == list(df.columns)
    assert api["data"][3][:3] == [1, "b", 50.0] and api["data"][0][3] is None  # no NaN in JSON


HOSTILE = [
    '<img src=x onerror="window.__xss=1">',
    "</td></tr></table><script>alert(1)</script>",
    '" data-key="e:1" onclick="alert(1)',
    "${alert(1)} {{constructor.constructor('alert(1)')()}} `x`",
    "&amp; &lt;b&gt;",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_board_html_keeps_every_user_string_text(name: str) -> None:
    """Model names, links and parameter counts are escaped: the parsed table reads back the
    exact strings, and no markup of theirs survives in the HTML."""
    entry = FakeEntry(7, name, make_report(0.5), params=name, link=name)
    board = board_html(
        leaderboard_frame([entry]), f"caption {name}", csv_href=f"board.csv?{name}", status=name
    )
    headers, rows = parse_board(board)
    assert [(r["Model"], r["Params"], r["Link"]) for r in rows] == [(name, name, name)]
    assert rows[0]["_key"] == "e:7"
    tags = _Tags()
    tags.feed(board)
    # the table's own tags, the CSV link and the record notice; nothing of the user's
    allowed = {"p", "div", "table", "thead", "tbody", "tr", "th", "td", "a"}
    assert tags.names <= allowed, tags.names
    allowed_attrs = {"class", "data-heading", "data-type", "title", "style", "data-key", "id"}
    assert tags.attrs <= allowed_attrs | {"href", "download", "role"}
    assert tags.keys == ["e:7"]


class _Tags(HTMLParser):
    """Every tag and attribute name in an HTML text, and the data-key values."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.attrs: set[str] = set()
        self.keys: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.names.add(tag)
        self.attrs |= {k for k, _ in attrs}
        self.keys += [v for k, v in attrs if k == "data-key"]


def test_legend_explains_missing_and_bleu() -> None:
    text = legend(TRANSLATION_VIEW, 10)
    assert "brevity penalty" in text and "no padding" in text
    assert "fewer than 10 private" in text and "not reported in the paper" in text
    assert "The paper reports no numbers" in legend("Source")
    assert "The paper reports no numbers" not in legend("Content type")
