"""The Space service in-process (real evaluator, real SQLite): limits and failure paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from respondeoqa_space.config import Limits
from respondeoqa_space.service import Space, SpaceConfig, own_entry, stored_entry

from .helpers import file_records, k_correct_predictions, write_jsonl

FEET = "prosody_feet_questions_latin.json"


@pytest.fixture
def space(public_gold, tmp_path: Path) -> Space:
    limits = Limits(submissions_per_day=2, attempts_per_day=5, max_file_mb=1)
    return Space(
        SpaceConfig(db=tmp_path / "lb.sqlite3", gold=public_gold, limits=limits, bootstrap=100)
    )


def test_expected_score_and_breakdown(space: Space, public_gold, tmp_path: Path) -> None:
    records = file_records(public_gold, FEET)
    rows, k = k_correct_predictions(records, 7)
    out = space.submit(write_jsonl(tmp_path / "p.jsonl", rows), "feet-7", client="a")
    assert out.ok, out.message
    # feet: score = correct positions / gold feet; gold given -> 1, WRONG -> 0 (PROTOCOL 4)
    assert out.entry.overall == pytest.approx(k / len(records))
    by = {(r["Breakdown"], r["Group"]): r["Score"] for r in out.breakdown.to_dict("records")}
    assert by[("Task", "Feet identification")] == round(100 * k / len(records), 1)
    assert by[("Language pair", "Latin \u2192 English")] == round(100 * k / len(records), 1)


def test_daily_limit_and_attempts(space: Space, public_gold, tmp_path: Path) -> None:
    records = file_records(public_gold, FEET)
    for i in range(2):
        rows, _ = k_correct_predictions(records, i)
        assert space.submit(write_jsonl(tmp_path / f"{i}.jsonl", rows), f"m{i}", client="a").ok
    rows, _ = k_correct_predictions(records, 9)
    out = space.submit(write_jsonl(tmp_path / "third.jsonl", rows), "m3", client="a")
    assert not out.ok and "at most 2 stored submissions" in out.message
    assert space.submit(tmp_path / "third.jsonl", "m3", client="b").ok  # another address


def test_size_limit(space: Space, tmp_path: Path) -> None:
    big = tmp_path / "big.jsonl"
    big.write_bytes(b" " * (1024 * 1024 + 1))
    out = space.submit(big, "big", client="a")
    assert out.message == "Not accepted: big.jsonl: 1.0 MB is over the 1 MB limit"


def test_no_file_and_internal_error_are_plain_messages(
    space: Space, tmp_path: Path, caplog, monkeypatch
) -> None:
    assert space.submit(None, "m", client="a").message.startswith("Not accepted: no file")
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    out = space.submit(folder, "m", client="a")
    assert out.message == "Not accepted: folder.jsonl: is a folder, not a predictions file"

    def broken(*args, **kwargs):  # a bug inside scoring, quoting what it was working on
        raise IsADirectoryError(f"{folder}: SECRET gold text")

    monkeypatch.setattr("respondeoqa_space.submission.score_for_board", broken)
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "prosody_app.I.1.1-la", "answer": "x"}\n', encoding="utf-8")
    out = space.submit(path, "m", client="a")
    assert out.message.startswith("Not accepted: the file could not be scored because of an")
    assert "IsADirectoryError" in caplog.text and "SECRET" not in caplog.text
    assert str(folder) not in out.message and "SECRET" not in out.message


def test_compare_needs_two(space: Space) -> None:
    out = space.compare(["p:paper-o3-mini"])
    assert out.message == "Pick two or more entries to compare."
    out = space.compare(["p:paper-o3-mini", "p:paper-qwq-32b", "e:999"])
    assert out.message.startswith("Comparing 2 entries.") and out.difference is None
    assert len(out.by_content.data) == 2


def test_csv_file(space: Space) -> None:
    text = space.snapshot().csv("Language pair", None)[1].decode("utf-8")
    assert text.splitlines()[0].startswith(
        "Rank,Rank low,Rank high,Model,Coverage,Overall accuracy,CI low,CI high,Items,"
        "English \u2192 English,English \u2192 English n,English \u2192 English CI low"
    )
    assert "o3-mini" in text and "93.1" in text


def test_compare_picks_are_deduplicated_capped_and_cached_in_bounded_bytes(
    public_gold, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = Limits(compare_max_entries=3, compare_cache_mb=1)
    space = Space(
        SpaceConfig(db=tmp_path / "lb.sqlite3", gold=public_gold, limits=limits, bootstrap=50)
    )
    records = file_records(public_gold, "junior_scholarship_short_answer.json")
    ids = []
    for k in range(200, 700, 100):  # five entries of different content
        path = write_jsonl(tmp_path / f"p{k}.jsonl", k_correct_predictions(records, k)[0])
        ids.append(space.submit(path, f"model {k}", client=f"c{k}").entry.id)
    from respondeoqa_space.readmodel import approx_size
    from respondeoqa_space.views import figures

    drawn = []
    real = figures.grouped_bars
    monkeypatch.setattr(figures, "grouped_bars", lambda *a: drawn.append(1) or real(*a))
    a, b = f"e:{ids[0]}", f"e:{ids[1]}"
    once = space.compare([a, b])
    again = space.compare([a, b, a, b] * 40 + ["e:999999", "nonsense", None])  # 163 picks
    assert again is once and len(drawn) == 2  # the same two rows: no second build
    assert once.paired and once.message.startswith(f"A = #{ids[0]} model 200")

    too_many = space.compare([f"e:{i}" for i in ids])
    assert too_many.message == "Pick at most 3 different entries to compare."
    assert len(drawn) == 2 and not too_many.drawn  # refused before any work
    # more picks than any picker offers are refused unread, duplicates or not
    assert space.compare([a] * 5000).message == "Pick at most 3 different entries to compare."

    for x in ids:  # every pair: more comparisons than 1 MB holds
        for y in ids:
            if x != y:
                space.compare([f"e:{x}", f"e:{y}"])
    cache = space.reads._cache
    assert 0 < cache.currsize <= cache.maxsize == 1024 * 1024
    assert len(cache) < 20  # older comparisons left to stay in bounds
    assert sum(approx_size(v) for v in cache.values()) == cache.currsize


def test_the_answer_names_the_entry_the_submit_page_links(
    space: Space, public_gold, tmp_path: Path
) -> None:
    """Stored, sent again under the same name, or refused because the same predictions are
    already the submitter's entry under another name: each answer names that entry, so the
    Submit page links to it; another submitter's refusal names none of theirs."""
    rows, _ = k_correct_predictions(file_records(public_gold, FEET), 5)
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    first = space.submit(path, "model-x", client="a")
    assert first.ok and stored_entry(first.message) == first.entry.id
    again = space.submit(path, "model-x", client="a")
    assert again.ok and stored_entry(again.message) == first.entry.id
    renamed = space.submit(path, "model-y", client="a")
    assert not renamed.ok and stored_entry(renamed.message) is None
    assert own_entry(renamed.message) == first.entry.id
    other = space.submit(path, "model-z", client="b")
    assert not other.ok and own_entry(other.message) is None
