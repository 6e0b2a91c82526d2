"""What is kept between processes (`cache.py`, issue 31): the parsed and checked gold
(`data/gold_cache.py`), the BLEU and chrF reference n-grams, the bootstrap's resample matrices.
A second read of the same bytes gives the same records without reading the files' rows again;
a changed file, a corrupt or foreign cache file, or a cache folder that cannot be written never
gives other records or numbers, nor an error."""

from __future__ import annotations

import json
import marshal
import shutil
import stat
import zlib

import pytest
from respondeoqa_eval import cache
from respondeoqa_eval.data import gold_cache, upstream
from respondeoqa_eval.data.fetch import ENV_CACHE
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.errors import InputError
from synthetic import write_private


def _framed(payload: bytes) -> bytes:
    return cache._HEADER.pack(len(payload), zlib.crc32(payload)) + payload


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "cache"))
    return write_private(tmp_path / "gold", n_mc=6, n_sa=8, n_tr=5, n_nle=4)


@pytest.fixture
def rows_read(monkeypatch):
    """How many files' rows the upstream reader has checked since the test began."""
    calls = []
    original = upstream.read_file

    def counting(path, spec=None):
        calls.append(path.name)
        return original(path, spec)

    monkeypatch.setattr(upstream, "read_file", counting)
    return calls


def test_second_read_comes_from_the_cache(folder, rows_read) -> None:
    first = read_folder(folder)
    assert rows_read and len(list(cache.cache_folder().glob("gold-*.marshal"))) == 1
    rows_read.clear()
    again = read_folder(folder)
    assert rows_read == []
    assert again.records == first.records and again.files == first.files
    # both as the upstream reader builds them, field by field
    direct = [rec for name in first.files for rec in upstream.read_file(folder / name)]
    assert [vars(r) for r in again.records] == [vars(r) for r in direct]
    assert {type(r) for r in again.records} == {type(r) for r in direct} and again.records[0]
    (kept,) = cache.cache_folder().glob("gold-*.marshal")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600  # Certamen / NLE gold: the user's only


def test_a_changed_file_is_read_again(folder, rows_read) -> None:
    read_folder(folder)
    path = folder / "certamen_short_answer.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    rows[0]["answers"] = ["changed"]
    path.write_text(json.dumps(rows), encoding="utf-8")
    rows_read.clear()
    records = read_folder(folder).records
    assert "certamen_short_answer.json" in rows_read
    assert next(r for r in records if r.question_id == rows[0]["question_id"]).answers == [
        "changed"
    ]


def test_a_bad_file_is_never_kept(folder) -> None:
    (folder / "certamen_mc.json").write_text('[{"question_id": 3}]', encoding="utf-8")
    for _ in range(2):  # the second read checks the file again: the same one-line error
        with pytest.raises(InputError, match="certamen_mc.json: record 0"):
            read_folder(folder)
    assert not list(cache.cache_folder().glob("gold-*.marshal"))


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b[:100] + bytes([b[100] ^ 1]) + b[101:],  # one bit flipped
        lambda b: b"",
        lambda b: b"\x00" * 12 + b"not marshal",
        lambda b: _framed(marshal.dumps(["not", "records"])),  # well formed, another shape
        lambda b: _framed(marshal.dumps([("too", "few", "fields")])),
    ],
)
def test_a_corrupt_cache_file_is_a_miss(folder, rows_read, damage) -> None:
    first = read_folder(folder).records
    (kept,) = cache.cache_folder().glob("gold-*.marshal")
    kept.write_bytes(damage(kept.read_bytes()))
    rows_read.clear()
    assert read_folder(folder).records == first
    assert rows_read  # read from the files again, and kept again
    rows_read.clear()
    assert read_folder(folder).records == first and rows_read == []


def test_an_unwritable_cache_folder_costs_only_time(folder, tmp_path, monkeypatch) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv(ENV_CACHE, str(blocked))
    assert read_folder(folder).records == read_folder(folder).records


def test_only_the_most_recent_versions_are_kept(folder, tmp_path) -> None:
    for i in range(gold_cache.KEPT + 3):
        copy = tmp_path / f"copy{i}"
        shutil.copytree(folder, copy)
        path = copy / "certamen_mc.json"
        rows = json.loads(path.read_text(encoding="utf-8"))
        rows[0]["answers"] = [f"version {i}"]
        path.write_text(json.dumps(rows), encoding="utf-8")
        read_folder(copy)
    assert len(list(cache.cache_folder().glob("gold-*.marshal"))) == gold_cache.KEPT


def test_kept_reference_ngrams_give_the_same_numbers(folder) -> None:
    """BLEU's and chrF's reference side, kept between processes, read back or damaged: the same
    statistics as counted afresh."""
    import numpy as np
    from respondeoqa_eval.metrics import bleu

    items = [r for r in read_folder(folder).records if r.task == "translation"]
    hyps = [r.answers[-1][: len(r.answers[-1]) // 2] for r in items]

    def stats():
        bleu._references.cache_clear()  # as a new process: only the kept files
        s = bleu.CorpusStatistics(hyps, [r.answers for r in items], items[0].answer_language)
        return s.rows, s.padded_ref_len, s.result()

    first = stats()  # counted, and kept
    kinds = ("bleu-references", "chrf-references")
    kept = [p for p in cache.cache_folder().glob("*.marshal") if p.name.startswith(kinds)]
    assert {p.name.split("-")[0] for p in kept} == {"bleu", "chrf"}
    for again in (stats(), None):  # read back; then every kept file damaged
        if again is None:
            for path in kept:
                raw = path.read_bytes()
                path.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
            again = stats()
        assert np.array_equal(again[0], first[0]) and np.array_equal(again[1], first[1])
        assert again[2] == first[2]


def test_a_duplicate_item_is_refused_by_name(folder) -> None:
    """GoldSet's checks (the kept records meet them too): a key or id given twice is one line
    naming both files."""
    import dataclasses

    from respondeoqa_eval.data.gold import GoldSet

    records = read_folder(folder).records
    first = records[0]
    again = dataclasses.replace(first, file="other.json")
    with pytest.raises(InputError, match=rf"^other.json: item \({first.question_id}, "):
        GoldSet([*records, again])
    same_id = dataclasses.replace(first, question_language="latin", file="other.json")
    if first.question_language == "latin":
        same_id = dataclasses.replace(first, question_language="english", file="other.json")
    with pytest.raises(
        InputError, match=rf"^other.json: id {first.id} also appears in {first.file}"
    ):
        GoldSet([*records, same_id])


def test_kept_resamples_are_the_draw(folder) -> None:
    """The resample matrix read back is the one drawn; a damaged or foreign one is drawn again."""
    import numpy as np
    from respondeoqa_eval.scoring import aggregate

    boot = aggregate.Bootstrap(resamples=40, seed=3)
    drawn = boot._draw(57, 2)
    aggregate.clear_counts()
    assert np.array_equal(boot.counts(57, salt=2), drawn)  # drawn, and kept
    (kept,) = cache.cache_folder().glob("resamples-*.marshal")
    for damage in (None, lambda b: b[:-1] + bytes([b[-1] ^ 1]), lambda b: _framed(b"|u1     ")):
        if damage is not None:
            kept.write_bytes(damage(kept.read_bytes()))
        aggregate.clear_counts()
        again = boot.counts(57, salt=2)
        assert np.array_equal(again, drawn) and again.dtype == drawn.dtype
        assert not again.flags.writeable
