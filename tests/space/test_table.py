"""Table builders: leaderboard rows per view, paper rows, ranks and rank ranges by coverage, the
board's sections, columns, n and intervals, small groups, CSV, breakdown."""

from __future__ import annotations

import csv
import html
import io
import math
import re
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser

import pytest
from respondeoqa_eval.report.model import Accuracy, BleuScore, Report, Score
from respondeoqa_eval.report.numbers import MISSING, percent_text, round1
from respondeoqa_space.metadata import ModelInfo
from respondeoqa_space.paper import PAPER_ROWS
from respondeoqa_space.rows import PAPER_LABEL, coverage_label
from respondeoqa_space.views.board import board_html
from respondeoqa_space.views.columns import TRANSLATION_VIEW, VIEWS
from respondeoqa_space.views.detail import EntryDetail, detail_html
from respondeoqa_space.views.entry import breakdown_frame, metadata_frame
from respondeoqa_space.views.frames import (
    ALL_COVERAGES,
    MOST_ENTRIES,
    columns,
    coverage_choices,
    default_coverage,
    leaderboard_frame,
    records,
    to_csv,
)
from respondeoqa_space.views.legend import legend, legend_html

from .helpers import make_report, parse_board

OVERALL = "Overall accuracy"


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
    info: ModelInfo = field(default_factory=ModelInfo)
    flag: str = ""
    kind: str = field(default="scored")


def rows_by_model(df):
    return {r["Model"]: r for r in df.to_dict("records")}


def with_overall(report: Report, score: float, n: int, ci: tuple[float, float] | None) -> Report:
    return replace(report, accuracy=replace(report.accuracy, overall=Score(score, n, ci)))


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
    assert rows["LLaMa 3.3 70B"][OVERALL] == 71.9  # 71.92, one decimal
    assert rows["Qwen QwQ 32B"]["Multiple choice"] == 90.9
    assert rows["o3-mini"]["Knowledge"] == 69.5 and rows["o3-mini"]["Skill"] == 66.8
    assert rows["LLaMa 3.3 70B"]["BLEU \u2192 Latin (paper, padded)"] == 23.7
    assert rows["o3-mini"]["BLEU \u2192 English (paper, padded)"] == 43.1
    assert math.isnan(rows["o3-mini"]["BLEU \u2192 English (no padding)"])  # not published
    assert rows["Qwen QwQ 32B"]["Scansion"] == 21.1
    assert all(r["Type"] == PAPER_LABEL and r["Made with"] == PAPER_LABEL for r in rows.values())
    assert [r["Rank"] for r in df.to_dict("records")] == [1, 2, 3]
    # the paper's model facts: sizes from the names, open weights, reasoning models
    assert (rows["LLaMa 3.3 70B"]["Params (B)"], rows["LLaMa 3.3 70B"]["Weights"]) == (
        70.0,
        "open weights",
    )
    assert rows["Qwen QwQ 32B"]["Reasoning"] == "yes" and rows["o3-mini"]["Weights"] == "API only"
    assert math.isnan(rows["o3-mini"]["Params (B)"])  # not published
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


def test_views_have_the_issue_columns_and_fit() -> None:
    assert len(VIEWS["Content type"].columns) == 10
    assert len(VIEWS["Language pair"].columns) == 4
    assert len(VIEWS["Source"].columns) == 4
    assert len(VIEWS["Format"].columns) == 2
    for view, spec in VIEWS.items():
        cols = columns(view)
        assert cols[:6] == ["Rank", "Rank low", "Rank high", "Model", "Coverage", spec.score_header]
        df = leaderboard_frame(list(PAPER_ROWS), view)
        assert list(df.columns) == cols
        names, _rows = parse_board(board_html(df, view, "caption"))
        assert names[:3] == ["Rank", "Model", spec.score_header]
        # every score column of the CSV is a column of the board; n and intervals ride along
        assert [c.header for c in spec.columns] == names[3 : 3 + len(spec.columns)]
        for col in spec.columns:
            assert f"{col.header} n" in cols
            assert (f"{col.header} CI low" in cols) == col.interval
            # short headers on the board, the full name in the tooltip
            assert len(col.short) <= 16, col.short
        # no view shows the paper's padded BLEU without BLEU without padding beside it
        padded = [c for c in names if c.endswith("(paper, padded)")]
        assert all(c.replace("(paper, padded)", "(no padding)") in names for c in padded)
    # the compact default: at most fifteen columns before a reader picks more
    for view, spec in VIEWS.items():
        shown = 3 + sum(not c.optional for c in spec.columns) + 2  # + Items, Type
        assert shown <= 15, (view, shown)
    # the Overview: five accuracy groups, BLEU without padding to each language, and what
    # the answer format cost (unanswered share, lenient gap)
    assert sum(not c.optional for c in VIEWS["Overview"].columns) == 9
    assert [c.short for c in VIEWS["Overview"].columns if not c.optional][-2:] == [
        "No ans.",
        "Fmt gap",
    ]


def test_headers_are_cased_alike_and_claim_only_what_cells_hold() -> None:
    # one casing of the languages in narrow headers: "En\u2192La" as "BLEU\u2192La"
    shorts = [c.short for spec in VIEWS.values() for c in spec.columns if "\u2192" in c.short]
    assert {"En\u2192La", "La\u2192En", "BLEU\u2192En", "BLEU\u2192La pad"} <= set(shorts)
    for short in shorts:
        assert re.fullmatch(r"(BLEU|chrF)?\u2192?(En|La)(\u2192(En|La))?( c\.| u\.)?( pad)?", short)
    # the Translation view's score (a mean over the languages) has no interval, and its
    # header's tooltip does not promise one; the Overview's does and has one
    entry = FakeEntry(1, "a", with_overall(make_report(0.5), 0.5, 100, (0.45, 0.55)))
    for view, promised in ((TRANSLATION_VIEW, False), ("Overview", True)):
        spec = VIEWS[view]
        html = board_html(leaderboard_frame([entry], view), view, "caption")
        title = re.search(rf'data-name="{re.escape(spec.score_header)}"[^>]* title="([^"]*)"', html)
        assert title and ("95% interval" in title.group(1)) is promised, (view, title)
        row = parse_board(html)[1][0]
        assert bool(row["_sub"][spec.score_header]) is promised, (view, row["_sub"])
        assert ("95% CI" in row["_title"][spec.score_header]) is promised


def test_scored_rows_rank_within_coverage_with_rank_ranges() -> None:
    entries = [
        FakeEntry(1, "public-low", with_overall(make_report(0.40), 0.40, 100, (0.30, 0.50))),
        FakeEntry(2, "public-high", with_overall(make_report(0.80), 0.80, 100, (0.75, 0.85))),
        FakeEntry(3, "public-mid", with_overall(make_report(0.45), 0.45, 100, (0.35, 0.55))),
        FakeEntry(
            4,
            "full",
            make_report(0.70, sources=("certamen", "nle", "jun-schol", "lat-pros")),
            sources=("certamen", "jun-schol", "lat-pros", "nle"),
        ),
        FakeEntry(
            5, "certamen-only", make_report(0.99, sources=("certamen",)), sources=("certamen",)
        ),
    ]
    df = leaderboard_frame([*PAPER_ROWS, *entries])
    rows = rows_by_model(df)
    # full coverage ranks with the paper rows: 71.92 > 70 > 68.61 > 68.11
    assert rows["LLaMa 3.3 70B"]["Rank"] == 1 and rows["full"]["Rank"] == 2
    assert rows["o3-mini"]["Rank"] == 3
    assert [rows[m]["Rank"] for m in ("public-high", "public-mid", "public-low")] == [1, 2, 3]
    assert rows["certamen-only"]["Rank"] == 1  # the best score, but alone in its coverage
    # rank ranges from the intervals: high (75-85) is surely first; mid (35-55) and low
    # (30-50) overlap, so each could be second or third
    assert (rows["public-high"]["Rank low"], rows["public-high"]["Rank high"]) == (1, 1)
    assert (rows["public-mid"]["Rank low"], rows["public-mid"]["Rank high"]) == (2, 3)
    assert (rows["public-low"]["Rank low"], rows["public-low"]["Rank high"]) == (2, 3)
    assert (rows["o3-mini"]["Rank low"], rows["o3-mini"]["Rank high"]) == (3, 3)  # no interval
    # the paper's rows count as their values: full (65-75) could be below all three of them
    # (71.92, 68.61, 68.11), and above none for sure
    assert (rows["full"]["Rank low"], rows["full"]["Rank high"]) == (1, 4)
    # the coverage with most rows first (all sources: the paper's three and "full"), the
    # three public entries next
    assert list(df["Coverage"].unique()) == [
        "all sources",
        "public (Junior Scholarship + Latin Prosody)",
        "Certamen",
    ]
    assert list(df["Model"])[4:7] == ["public-high", "public-mid", "public-low"]
    assert rows["public-high"][OVERALL] == 80.0 and rows["public-high"]["Items"] == 100
    assert (rows["public-high"]["CI low"], rows["public-high"]["CI high"]) == (75.0, 85.0)
    assert rows["public-high"]["Entry"] == "#2" and rows["public-high"]["Date"] == "2026-05-01"
    assert math.isnan(rows["public-high"]["Multiple choice"])  # no multiple choice in the report
    only = leaderboard_frame([*PAPER_ROWS, *entries], coverage="Certamen")
    assert list(only["Model"]) == ["certamen-only"]
    rows_all = [*PAPER_ROWS, *entries]
    assert coverage_choices(rows_all)[:3] == [MOST_ENTRIES, ALL_COVERAGES, "all sources"]
    # the paper's rows count: 4 rows on all sources against 3 public entries
    assert default_coverage(rows_all) == "all sources"
    assert default_coverage(list(PAPER_ROWS)) == "all sources"
    # one early public upload does not hide the paper's three rows
    assert default_coverage([*PAPER_ROWS, entries[0]]) == "all sources"
    # a tie (4 rows each): the coverage with more submitted entries
    public = [e for e in entries if e.model.startswith("public")]
    more = [*public, replace(public[0], id=99, model="public-4")]
    assert default_coverage([*PAPER_ROWS, *more]) == "public (Junior Scholarship + Latin Prosody)"


def test_board_sections_restart_ranks_and_carry_n_and_intervals() -> None:
    report = with_overall(make_report(0.5), 0.5, 100, (0.45, 0.55))
    grammar = replace(
        report,
        accuracy=Accuracy(
            report.accuracy.overall,
            {**report.accuracy.breakdowns, "by_content": {"grammar": Score(0.6, 12, (0.3, 0.9))}},
        ),
    )
    entries = [
        FakeEntry(1, "a", with_overall(make_report(0.25), 0.25, 100, (0.2, 0.3))),
        FakeEntry(2, "b", grammar),
    ]
    df = leaderboard_frame([*PAPER_ROWS, *entries], "Content type")
    names, rows = parse_board(board_html(df, "Content type", "Leaderboard"))
    by_model = {r["Model"]: r for r in rows}
    # the coverage of most rows first: the paper's three before the two public entries
    assert [r["_coverage"] for r in rows] == [
        "all sources",
        "all sources",
        "all sources",
        "public (Junior Scholarship + Latin Prosody)",
        "public (Junior Scholarship + Latin Prosody)",
    ]
    assert [r["Rank"] for r in rows] == ["1", "2", "3", "1", "2"]  # restart per section
    # one decimal, the interval under the score and in its tooltip with the items
    assert by_model["b"][OVERALL] == "50.0" and by_model["b"]["_sub"][OVERALL] == "45.0\u201355.0"
    assert by_model["b"]["_title"][OVERALL] == "n=100 \u00b7 95% CI 45.0 to 55.0"
    assert by_model["LLaMa 3.3 70B"][OVERALL] == "71.9"  # 71.92 in the paper
    assert by_model["LLaMa 3.3 70B"]["_title"][OVERALL] == "items not published"
    assert by_model["LLaMa 3.3 70B"]["Items"] == MISSING and by_model["b"]["Items"] == "100"
    # a group on 12 items: marked, with its n, never shaded best (a's grammar is missing)
    assert by_model["b"]["Grammar"] == "60.0*" and "Grammar" in by_model["b"]["_small"]
    assert by_model["b"]["_title"]["Grammar"].startswith("n=12 \u00b7 95% CI 30.0 to 90.0")
    assert "Grammar" not in by_model["b"]["_best"]
    # the best value per coverage: b among the public entries, LLaMa among the paper's
    assert OVERALL in by_model["b"]["_best"] and OVERALL not in by_model["a"]["_best"]
    assert OVERALL in by_model["LLaMa 3.3 70B"]["_best"]
    assert by_model["b"]["_key"] == "e:2"
    o3 = next(p for p in PAPER_ROWS if p.model == "o3-mini")
    assert by_model["o3-mini"]["_key"] == f"p:{o3.key}"
    assert by_model["o3-mini"]["_data"]["data-kind"] == "paper"
    assert by_model["LLaMa 3.3 70B"]["_data"]["data-params"] == "70"
    assert by_model["Qwen QwQ 32B"]["_data"]["data-reasoning"] == "yes"


def test_translation_view_ranks_by_bleu_without_padding() -> None:
    def bleu(padded: float, plain: float) -> dict:
        return {"overall": BleuScore(padded, 30, ci=(padded - 2, padded + 2), variable_refs=plain)}

    # a ranks higher by the paper's padded BLEU, b by BLEU without padding
    a = FakeEntry(1, "a", replace(make_report(0.5), bleu={"latin": bleu(40.0, 10.0)}))
    b = FakeEntry(2, "b", replace(make_report(0.5), bleu={"latin": bleu(30.0, 20.0)}))
    df = leaderboard_frame([a, b], TRANSLATION_VIEW)
    rows = rows_by_model(df)
    assert (rows["b"]["Rank"], rows["a"]["Rank"]) == (1, 2)
    assert rows["b"]["BLEU (no padding), mean over target languages"] == 20.0
    assert rows["a"]["BLEU \u2192 Latin (paper, padded) CI low"] == 38.0  # the padded interval
    _, shown = parse_board(board_html(df, TRANSLATION_VIEW, "c"))
    assert "95% CI 38.0 to 42.0" in shown[1]["_title"]["BLEU \u2192 Latin (paper, padded)"]


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
    assert {r[OVERALL] for r in rows} == {"50.0", "60.0"}


def test_csv_and_api_types() -> None:
    entries = [
        FakeEntry(1, "a", with_overall(make_report(0.25), 0.25, 100, (0.2, 0.3))),
        FakeEntry(2, "b", with_overall(make_report(0.5), 0.5, 100, (0.45, 0.55))),
    ]
    df = leaderboard_frame([*PAPER_ROWS, *entries])
    rows = list(csv.DictReader(io.StringIO(to_csv(df))))
    assert [r["Rank"] for r in rows] == ["1", "2", "3", "1", "2"]  # the paper's section first
    assert rows[3]["Items"] == "100" and rows[0]["Items"] == ""
    assert rows[3]["Knowledge n"] == "10"  # every score's items ride along
    assert float(rows[3]["CI low"]) == 45.0 and float(rows[3]["CI high"]) == 55.0
    api = records(df)
    assert api["headers"] == list(df.columns)
    at = api["headers"].index(OVERALL)
    assert api["data"][3][at] == 50.0 and api["data"][0][api["headers"].index("CI low")] is None


def test_breakdown_frame_lists_every_group_once() -> None:
    base = make_report(0.5, content={"grammar": 0.25})
    report = replace(
        base,
        extra={"short_answer_macron_sensitive": Score(0.4, 10, (0.3, 0.5))},
        bleu={"latin": {"overall": BleuScore(20.0, 5, variable_refs=21.5)}},
    )
    df = breakdown_frame(report)
    rows = {(r["Breakdown"], r["Group"]): r for r in df.to_dict("records")}
    assert rows[("Overall accuracy", "all scored items (not translation)")]["Score"] == 50.0
    assert rows[("Content type", "Grammar")]["Score"] == 25.0
    assert rows[("Beyond the paper", "Short answer, macrons kept")]["Score"] == 40.0
    bleu = {
        r["Group"]: r
        for r in df.to_dict("records")
        if r["Breakdown"] == "Translation \u2192 Latin (points)"
    }
    assert bleu["all: BLEU (paper, padded)"]["Score"] == 20.0
    assert bleu["all: BLEU (no padding)"]["Score"] == 21.5
    assert math.isnan(bleu["all: chrF"]["Score"])  # not in this report: shown as missing
    assert len(bleu) == 3  # null splits are skipped
    assert "Metric" not in df.columns


def test_metadata_says_each_fact_once() -> None:
    entry = FakeEntry(
        3,
        "m",
        make_report(0.5),
        info=ModelInfo(7.0, "open", False, "org/m-7b"),
        flag="duplicate of #2 under another name",
    )
    meta = dict(zip(*metadata_frame(entry).T.values, strict=True))
    assert meta["On the Hub"] == "https://huggingface.co/org/m-7b"
    assert meta["Parameters"] == "7B" and meta["Weights"] == "open weights"
    assert meta["Reasoning model"] == "no" and meta["Made with"] == "file"
    assert meta["Flagged by the operator"] == "duplicate of #2 under another name"
    assert "Scored with evaluator" not in meta and "Link" not in meta  # no empty rows
    assert list(meta).count("Scored with") == 1


HOSTILE = [
    '<img src=x onerror="window.__xss=1">',
    "</td></tr></table><script>alert(1)</script>",
    '" data-key="e:1" onclick="alert(1)',
    "${alert(1)} {{constructor.constructor('alert(1)')()}} `x`",
    "&amp; &lt;b&gt;",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_board_html_keeps_every_user_string_text(name: str) -> None:
    """Model names, links, parameter counts and flags are escaped: the parsed table reads back
    the exact strings, and no markup of theirs survives in the HTML."""
    entry = FakeEntry(7, name, make_report(0.5), params=name, link=name, flag=name)
    board = board_html(
        leaderboard_frame([entry]),
        "Overview",
        f"caption {name}",
        csv_href=f"board.csv?{name}",
        status=name,
        coverage=name,
        coverages=[("all coverages", "all coverages"), (name, name)],
        legend=legend_html("Overview"),
    )
    _, rows = parse_board(board)
    assert [(r["Model"], r["Link"]) for r in rows] == [(name, name)]
    assert rows[0]["_title"]["Type"] == f"flagged by the operator: {name}"
    assert rows[0]["_key"] == "e:7"
    tags = _Tags()
    tags.feed(board)
    # the table's own tags, its menus, the CSV link and the record notice; none of the user's
    allowed = {"p", "div", "table", "thead", "tbody", "tr", "th", "td", "a", "span"}
    allowed |= {"details", "summary", "label", "input", "select", "option"}
    allowed |= {"ul", "li", "strong", "em", "code"}  # the legend: our own Markdown
    allowed |= {"wbr"}  # where a model's name may wrap (after "_", "-", "." or "/")
    assert tags.names <= allowed, tags.names
    allowed_attrs = {"class", "data-heading", "data-name", "data-type", "title", "data-key", "id"}
    allowed_attrs |= {"href", "download", "role", "colspan", "data-coverage", "type", "min"}
    allowed_attrs |= {"step", "aria-label", "value", "checked", "data-filter", "data-col"}
    allowed_attrs |= {"data-kind", "data-made", "data-params", "data-weights", "data-reasoning"}
    allowed_attrs |= {"data-verified", "data-board", "selected", "data-without"}
    assert tags.attrs <= allowed_attrs, tags.attrs - allowed_attrs
    assert tags.keys == ["e:7"]
    # the coverage picker offers the hostile coverage as text, picked
    assert tags.selected == ["Overview", name]  # the breakdown, the coverage


@pytest.mark.parametrize("name", HOSTILE)
def test_entry_detail_html_keeps_every_user_string_text(name: str) -> None:
    """The entry detail a row click fetches: the metadata and the breakdown escaped cell by
    cell, no markup of the user's."""
    entry = FakeEntry(7, name, make_report(0.5), params=name, link=name, flag=name)
    found = EntryDetail(
        f"Entry #7: {name}",
        metadata_frame(entry),
        breakdown_frame(entry.report),
        b"",
    )
    page = detail_html(found, f"entry.csv?entry={name}", row=entry)
    tags = _Tags()
    tags.feed(page)
    assert tags.names <= {
        "p",
        "a",
        "table",
        "caption",
        "tbody",
        "thead",
        "tr",
        "th",
        "td",
        "div",
    } | {
        "wbr"  # where a value may wrap (after "_", "-", "." or "/")
    }
    allowed = {"class", "id", "href", "download", "scope", "role", "data-key", "data-coverage"}
    assert tags.attrs <= allowed, tags.attrs
    # the message names the entry's row on the board: its key and its coverage
    assert 'data-key="e:7"' in page
    assert f'data-coverage="{html.escape(coverage_label(entry.sources))}"' in page
    texts = _Texts()
    texts.feed(page)
    assert f"Entry #7: {name}" in texts.parts and name in texts.parts
    assert ["Breakdown", "Group", "Score", "95% CI", "Items"] == texts.parts[
        texts.parts.index("Breakdown") : texts.parts.index("Breakdown") + 5
    ]
    assert "No such entry" in detail_html(None)


class _DetailRows(HTMLParser):
    """The rows of the entry detail's full breakdown (its cells' text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._inside = ("id", "detail-breakdown") in attrs
        elif tag == "tr" and self._inside:
            self.rows.append([])
        elif tag == "td" and self._inside:
            self.rows[-1].append("")

    def handle_data(self, data: str) -> None:
        if self._inside and self.rows and self.rows[-1]:
            self.rows[-1][-1] += data.strip()


def _detail_rows(report: Report) -> list[list[str]]:
    entry = FakeEntry(7, "m", report)
    page = detail_html(EntryDetail("Entry #7", metadata_frame(entry), breakdown_frame(report), b""))
    parser = _DetailRows()
    parser.feed(page)
    return [r for r in parser.rows if r]


def test_entry_detail_says_a_breakdown_of_only_unknown_is_not_given_as_the_summary_does(
    public_gold,
) -> None:
    """The public files give no difficulty: the detail lists no "Unknown" row of all 797
    items (it says nothing) but one line, the `score` summary's; a breakdown where some items
    have a value keeps its Unknown group."""
    from respondeoqa_eval import evaluate

    first = public_gold.records[0]
    report = evaluate([{"id": first.id, "answer": "x"}], public_gold, bootstrap=0)
    rows = _detail_rows(report)
    difficulty = [r for r in rows if r[0] == "Difficulty"]
    assert difficulty == [["Difficulty", "not given for any of these items", "—", "—", "—"]]
    assert "  Difficulty: not given for any of these items" in report.summary().splitlines()
    # some items with a difficulty: every group listed, Unknown among them
    acc = report.accuracy
    mixed = {"advanced": Score(0.5, 100, (0.4, 0.6)), "unknown": Score(0.25, 697, (0.2, 0.3))}
    known = replace(
        report, accuracy=replace(acc, breakdowns={**acc.breakdowns, "by_difficulty": mixed})
    )
    difficulty = [r[:3] for r in _detail_rows(known) if r[0] == "Difficulty"]
    assert difficulty == [["Difficulty", "Unknown", "25.0"], ["Difficulty", "Advanced", "50.0"]]


class _Texts(HTMLParser):
    """Every text of an HTML text, entities decoded; text on both sides of a <wbr> (a place
    it may wrap) is one."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._glue = False  # the next text goes on the last one (after a <wbr>)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._glue = tag == "wbr" and bool(self.parts)

    def handle_endtag(self, tag: str) -> None:
        self._glue = False

    def handle_data(self, data: str) -> None:
        if self._glue:
            self.parts[-1] += data.rstrip()
        elif data.strip():
            self.parts.append(data.strip())
        self._glue = False


class _Tags(HTMLParser):
    """Every tag and attribute name in an HTML text, and the data-key values."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.attrs: set[str] = set()
        self.keys: list[str | None] = []
        self.selected: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.names.add(tag)
        self.attrs |= {k for k, _ in attrs}
        self.keys += [v for k, v in attrs if k == "data-key"]
        if tag == "option" and any(k == "selected" for k, _ in attrs):
            self.selected += [v for k, v in attrs if k == "value"]


def test_legend_explains_missing_small_and_bleu() -> None:
    text = legend(TRANSLATION_VIEW, 10)
    assert "brevity penalty" in text and "no padding" in text
    assert "fewer than 10 private" in text and "not reported in the paper" in text
    assert "BLEU without padding (the mean over the target languages" in text
    # the Translation view's score is a mean with no interval: its legend claims none (nor a
    # range of ranks from one), the Overview's does
    assert "interval allows" not in text and "under it, its 95%" not in text
    assert "a mean, with no interval of its own" in text
    overview = legend("Overview")
    assert "interval allows" in overview and "under it, its 95% bootstrap interval" in overview
    entry = FakeEntry(1, "a", make_report(0.5))
    titles = {}
    for view in (TRANSLATION_VIEW, "Overview"):
        html = board_html(leaderboard_frame([entry], view), view, "caption")
        titles[view] = re.search(r'data-heading="0"[^>]* title="([^"]*)"', html).group(1)
    assert titles == {
        TRANSLATION_VIEW: "Rank within the coverage",
        "Overview": "Rank within the coverage; under it, the ranks its interval allows",
    }
    assert "fewer than 30 items" in legend("Overview")
    assert "**Gram.** Grammar" in legend("Content type")
    assert "The paper reports no numbers" in legend("Source")
    assert "The paper reports no numbers" not in legend("Content type")


def test_the_pickers_name_each_rows_coverage() -> None:
    from respondeoqa_space.rows import picker_label

    entry = FakeEntry(12, "m", make_report(0.5), sources=("jun-schol",))
    assert picker_label(entry) == "#12 m \u00b7 Junior Scholarship"
    assert picker_label(PAPER_ROWS[0]) == "LLaMa 3.3 70B (reported in paper) \u00b7 all sources"
