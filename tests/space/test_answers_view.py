"""The answers view in-process (web/answers_page.py, views/answers.py, answers.py): the walk
through a task's public items, its filters (disagreements, format failures, suspected gold
errors), the entries' raw responses, paper and lenient answers and scores exactly as submitted
and scored, every character escaped, the choice in the URL; and no private item, question,
answer or response in any answer, a private id answered as an unknown one. The browser checks
are tests/space/test_answers.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markupsafe import Markup, escape
from respondeoqa_space.config import Limits
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.views.answers import href, shown, view_html, view_json
from respondeoqa_space.web.answers_page import AnswersPage
from respondeoqa_space.web.app import MONO, SANS, static
from respondeoqa_space.web.board_page import font_stack

from .answerskit import (
    FEET,
    FORMAT_FAILURES,
    PRIVATE_RESPONSE,
    SHORT,
    TRANSLATION,
    gold_of,
    private_rows,
    private_strings,
    two_entries,
)
from .helpers import GRADED, _normalizes_nonempty, file_records, planted_rows, write_jsonl


@pytest.fixture
def space(private_gold, tmp_path: Path) -> Space:
    limits = Limits(submissions_per_day=50, attempts_per_day=50)
    return Space(
        SpaceConfig(db=tmp_path / "lb.sqlite3", gold=private_gold, limits=limits, bootstrap=20)
    )


def _page(space: Space) -> AnswersPage:
    return AnswersPage(
        space, static=static, sans=font_stack(SANS), mono=font_stack(MONO), api_href="info"
    )


def _submit(space: Space, tmp_path: Path, name: str, rows: list[dict]) -> int:
    out = space.submit(write_jsonl(tmp_path / f"{name}.jsonl", rows), name, client=name)
    assert out.ok, out.message
    return out.entry.id


def test_the_walk_filters_and_answers_as_submitted(space, private_gold, tmp_path):
    rows_a, rows_b, failures, hostile = two_entries(private_gold)
    a = _submit(space, tmp_path, "model-a", rows_a)
    b = _submit(space, tmp_path, "model-b", rows_b)
    page = _page(space)
    short = file_records(private_gold, SHORT)
    entries = f"e:{a},e:{b}"

    every = page.view({"entries": entries, "task": "short_answer"})
    assert (every.position, every.total) == (1, len(short))
    assert every.record.id == short[0].id and every.prev is None and every.next == short[1].id
    # the walk's items in gold order, each step's neighbours the next ones
    step = page.view({"entries": entries, "task": "short_answer", "item": short[5].id})
    assert (step.position, step.prev, step.next) == (6, short[4].id, short[6].id)

    in_order = [r.id for r in short if r.id in failures]
    for kind in ("format", "disagree"):
        walk = page.view({"entries": entries, "task": "short_answer", "filter": kind})
        assert walk.total == FORMAT_FAILURES and walk.record.id == in_order[0], kind
        last = page.view(
            {"entries": entries, "task": "short_answer", "filter": kind, "item": in_order[-1]}
        )
        assert (last.position, last.next, last.prev) == (
            FORMAT_FAILURES,
            None,
            in_order[-2],
        )
    # an item outside the walk: the walk's first, said so
    moved = page.view({"entries": entries, "filter": "format", "item": short[-1].id})
    assert moved.record.id == in_order[0] and any("not in this walk" in n for n in moved.notes)

    # what each entry wrote on a format failure, as submitted and as scored
    data = view_json(page.view({"entries": entries, "item": in_order[0]}))
    record = private_gold.by_id[in_order[0]]
    sent_a = next(r["response"] for r in rows_a if r["id"] == record.id)
    sent_b = next(r["response"] for r in rows_b if r["id"] == record.id)
    got_a, got_b = (e["answer"] for e in data["entries"])
    assert [e["key"] for e in data["entries"]] == [f"e:{a}", f"e:{b}"]
    assert got_a["response"] == sent_a and got_b["response"] == sent_b
    assert got_a["extracted"] == gold_of(record) and got_a["score"] == 1.0
    assert got_b["extracted"] is None and got_b["score"] == 0.0 and got_b["format_cost"]
    assert got_b["lenient"] == {"answer": gold_of(record), "rule": "short:marker", "score": 1.0}
    assert data["item"]["gold"] == [gold_of(record)] and data["item"]["question"] == record.question
    # the entries' per-item scores are the board's (the stored ones)
    stored = space.store.item_scores(b)
    sheet = page.sheets.sheet(space.store.get(b))
    assert {i: x.score for i, x in sheet.answers.items()} == {i: x.score for i, x in stored.items()}

    # a translation: scored as a corpus, its response still shown
    translation = file_records(private_gold, TRANSLATION)[0]
    data = view_json(page.view({"entries": entries, "item": translation.id}))
    assert data["entries"][0]["answer"]["score"] is None
    assert data["entries"][0]["answer"]["response"] == f"Answer: {gold_of(translation)}"
    assert data["item"]["gold"] == translation.answers


def test_every_character_is_escaped_and_long_responses_fold(space, private_gold, tmp_path):
    rows_a, rows_b, _, hostile = two_entries(private_gold)
    a = _submit(space, tmp_path, "model-a", rows_a)
    page = _page(space)
    view = page.view({"entries": f"e:{a}", "item": hostile})
    html = view_html(view, page.options)
    assert "<script>window.__x" not in html and "&lt;script&gt;window.__x=1&lt;/script&gt;" in html
    assert "\u202e" not in html and "U+202E" in html and "U+200B" in html
    assert "&amp; " in html
    # folded: the last lines shown, the whole behind a click
    assert html.count('<details class="response-whole">') == 1
    last = html.split('<pre class="response tail">', 1)[1].split("</pre>", 1)[0]
    sent = next(r["response"] for r in rows_a if r["id"] == hostile)
    assert last.endswith(str(escape(sent.splitlines()[-1]))) and len(last) < len(sent) / 2
    assert shown("a\u202eb<") == Markup(
        'a<span class="ctl" title="an invisible character">U+202E</span>b&lt;'
    )


def test_the_url_holds_the_choice_and_bad_parts_are_not_echoed(space, private_gold, tmp_path):
    rows_a, rows_b, _, _ = two_entries(private_gold)
    a = _submit(space, tmp_path, "model-a", rows_a)
    b = _submit(space, tmp_path, "model-b", rows_b)
    space.store.set_hidden(b, True)
    page = _page(space)
    short = file_records(private_gold, SHORT)
    view = page.view(
        {
            "entries": f"#{a}, e:{b} 99999 <b>x</b> p:paper-o3-mini",
            "task": "short_answer",
            "content": "<img src=x>",
            "filter": "everything",
            "item": short[3].id,
        }
    )
    assert view.choice.entries == (f"e:{a}",)
    assert view.choice.groups == {"task": "short_answer"} and view.choice.filter is None
    # a hidden entry reads as one that does not exist; a bad token is counted, not echoed
    assert (
        f"#{b} is not on the board." in view.notes and "#99999 is not on the board." in view.notes
    )
    assert "1 of the entries given is no entry number." in view.notes
    assert any("(paper) has no per-item answers" in n for n in view.notes)
    html = view_html(view, page.options)
    assert "<b>x</b>" not in html and "<img src=x>" not in html and "&lt;img" not in html
    link = href(view.choice)
    assert link == f"answers?item={short[3].id}&entries=e:{a}&task=short_answer"
    query = dict(re.findall(r"([a-z]+)=([^&]*)", link.split("?", 1)[1]))
    again = page.view(query)
    assert view_json(again) == {**view_json(view), "notes": []}  # the link reproduces it
    twice = page.view({"entries": f"e:{a},#{a},{a}"})
    assert twice.choice.entries == (f"e:{a}",)


def test_without_entries_the_boards_best_are_shown(space, private_gold, tmp_path):
    rows_a, rows_b, _, _ = two_entries(private_gold)
    a = _submit(space, tmp_path, "model-a", rows_a)
    b = _submit(space, tmp_path, "model-b", rows_b)
    view = _page(space).view({"item": file_records(private_gold, FEET)[0].id})
    assert view.choice.entries == (f"e:{a}", f"e:{b}")  # A is the better one
    assert any("No entries were chosen" in n for n in view.notes)
    assert href(view.choice).endswith(f"&entries=e:{a},e:{b}")


def test_no_private_item_in_any_answer(space, private_gold, tmp_path):
    rows_a, rows_b, _, _ = two_entries(private_gold)
    a = _submit(space, tmp_path, "model-a", rows_a)
    b = _submit(space, tmp_path, "model-b", rows_b)
    page = _page(space)
    private = [r for r in private_gold.records if r.is_private]
    assert page.view({"item": private[0].id}) is None
    assert page.view({"item": "made-up-item"}) is None
    texts = []
    for kind in (None, "format", "disagree", "flagged"):
        for source in ("", "certamen", "nle", "jun-schol"):
            query = {"entries": f"e:{a},e:{b}", "source": source} | (
                {"filter": kind} if kind else {}
            )
            view = page.view(query)
            texts += [view_html(view, page.options), json.dumps(view_json(view))]
            assert view.record is None or not view.record.is_private
            assert view.choice.groups.get("source") in (None, "jun-schol")
    # every public item of every walk, whole
    view = page.view({"entries": f"e:{a},e:{b}"})
    while view is not None:
        texts += [view_html(view, page.options), json.dumps(view_json(view), ensure_ascii=False)]
        view = page.view({"entries": f"e:{a},e:{b}", "item": view.next}) if view.next else None
    assert len(texts) > 1000
    leaks = [s for s in private_strings(private_gold) for t in texts if s in t]
    assert leaks == []
    # the sheets hold no private item: nothing built on them can show one
    for entry in (a, b):
        sheet = page.sheets.sheet(space.store.get(entry))
        assert not any(private_gold.by_id[i].is_private for i in sheet.answers)
    # and the check can fail: the store does hold the private responses
    kept = space.store.predictions(a) or []
    assert any(PRIVATE_RESPONSE in row.get("response", "") for row in kept)


def test_suspected_gold_errors_and_more_than_six_entries(space, private_gold, tmp_path):
    short = file_records(private_gold, SHORT)
    planted = [r for r in short if _normalizes_nonempty(gold_of(r))][-1]
    # graded entries: the three strongest agree on the planted item; a seventh, weak
    graded = [*GRADED, ("weak-d", 20, "wrongg", "wrongg")]
    ids = []
    for model, right, wrong, answer in graded:
        rows = planted_rows(short, planted.id, right, wrong, answer) + private_rows(private_gold)
        ids.append(_submit(space, tmp_path, model, rows))
    page = _page(space)
    every = ",".join(f"e:{i}" for i in ids)
    # before the board's item analysis is made, only the flagged walk waits for it
    assert page.view({"entries": every, "item": planted.id}).flag == ""
    view = page.view({"entries": every, "filter": "flagged"})
    assert len(view.columns) == 6 and view.choice.entries == tuple(f"e:{i}" for i in ids[:6])
    assert f"At most 6 entries side by side: #{ids[6]} left out." in view.notes
    flagged = space.items_view(flagged_only=True).table
    expected = [r.id for r in short if r.id in set(flagged["Item"])]
    assert planted.id in expected and view.total == len(expected)
    at = page.view({"entries": every, "filter": "flagged", "item": planted.id})
    why = flagged.set_index("Item").loc[planted.id, "Suspected gold error"]
    assert at.record.id == planted.id and at.flag == why and why.startswith("3 of 7 entries")
    assert page.view({"entries": every, "item": planted.id}).flag == why  # made: shown
    data = view_json(at)
    assert data["item"]["suspected_gold_error"] == why
    assert [e["answer"]["extracted"] for e in data["entries"][:3]] == ["plantedwrong"] * 3
    assert all(e["answer"]["given"] and e["answer"]["response"] for e in data["entries"])
    html = view_html(at, page.options)
    assert html.count("The submission gave this answer already extracted") == 6
    assert "Suspected gold error" in html
