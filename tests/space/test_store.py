"""The SQLite store: round trip, duplicates, concurrency (threads, processes), crashes.

The Hub repo of record (outbox, push, restore) is tested in test_hub_sync.py."""

from __future__ import annotations

import multiprocessing
import sqlite3
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from respondeoqa_space.store import (
    DuplicateSubmissionError,
    Store,
    Submission,
    sha256_bytes,
)

from .helpers import make_report


def sub(tag: str, model: str = "m") -> Submission:
    return Submission(model=model, file_sha256=sha256_bytes(tag.encode()), link="https://e.org")


def test_round_trip(tmp_path: Path) -> None:
    store = Store(tmp_path / "db" / "lb.sqlite3")
    report = make_report(0.61)
    entry = store.add(sub("a", "Model A"), report)
    assert entry.id == 1 and entry.model == "Model A" and entry.overall == pytest.approx(0.61)
    again = Store(tmp_path / "db" / "lb.sqlite3").get(1)  # a new handle reads the file
    assert again is not None
    assert again.report.accuracy == report.accuracy
    assert again.report.items == ()  # items live in their own table
    assert again.report == report.without_items()
    assert again.sources == ("jun-schol", "lat-pros")
    scores = store.item_scores(1)
    assert set(scores) == {f"item-{i}" for i in range(4)}
    assert scores["item-1"].score == 1.0 and scores["item-0"].score == 0.0


def test_duplicate_refused_with_pointer(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite3")
    first = store.add(sub("same", "First model"), make_report(0.5))
    with pytest.raises(DuplicateSubmissionError) as err:
        store.add(sub("same", "Second model"), make_report(0.9))
    assert err.value.existing.id == first.id
    assert f"#{first.id}" in str(err.value) and "First model" in str(err.value)
    assert store.count() == 1 and store.get(1).model == "First model"


def test_bad_report_refused_and_nothing_stored(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite3")
    # an item id repeated violates the primary key: the whole entry is rolled back
    base = make_report(0.5)
    report = replace(base, items=(*base.items, base.items[0]))
    with pytest.raises(sqlite3.IntegrityError):
        store.add(sub("y"), report)
    assert store.count() == 0 and store.integrity_ok()


def test_concurrent_threads(tmp_path: Path) -> None:
    store = Store(tmp_path / "lb.sqlite3")
    errors: list[BaseException] = []
    duplicates: list[int] = []

    def worker(t: int) -> None:
        for i in range(6):
            # every thread also submits the shared file "dup": exactly one copy may be stored
            tag = "dup" if i == 0 else f"t{t}-{i}"
            try:
                Store(store.path).add(sub(tag, f"thread {t}"), make_report(0.1 * i))
            except DuplicateSubmissionError:
                duplicates.append(t)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert len(duplicates) == 7
    assert store.count() == 8 * 5 + 1
    assert store.integrity_ok()
    hashes = [e.file_sha256 for e in store.entries()]
    assert len(hashes) == len(set(hashes))
    assert all(len(store.item_scores(e.id)) == 4 for e in store.entries())


def _process_worker(path: str, proc: int, out: multiprocessing.Queue) -> None:
    store = Store(path)
    stored = dup = 0
    for i in range(5):
        tag = "shared" if i == 0 else f"p{proc}-{i}"
        try:
            store.add(sub(tag, f"proc {proc}"), make_report(0.2))
            stored += 1
        except DuplicateSubmissionError:
            dup += 1
    out.put((stored, dup))


def test_concurrent_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "lb.sqlite3")
    Store(path)
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_process_worker, args=(path, p, out)) for p in range(4)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert sum(s for s, _ in results) == 4 * 4 + 1
    assert sum(d for _, d in results) == 3
    store = Store(path)
    assert store.count() == 17 and store.integrity_ok()


CRASH = textwrap.dedent(
    """
    import os, sys
    from dataclasses import replace
    from respondeoqa_eval.report import ItemResult
    from respondeoqa_space import store as st
    from tests_helpers import make_report

    s = st.Store(sys.argv[1])
    rows = [ItemResult(f"c{i}", f"c{i}", "english", "short_answer", "jun-schol", "grammar",
                       "a", 1.0, False) for i in range(50)]

    class DyingItems(tuple):
        def __iter__(self):
            for i, item in enumerate(tuple.__iter__(self)):
                if i == 25:
                    os._exit(9)  # the process dies halfway through writing the items
                yield item

    # the store iterates the items inside its transaction
    report = replace(make_report(0.3), items=DyingItems(rows))
    s.add(st.Submission(model="crashed", file_sha256="f" * 64), report)
    """
)


@pytest.mark.slow
def test_crash_mid_write_leaves_db_intact(tmp_path: Path) -> None:
    path = tmp_path / "lb.sqlite3"
    store = Store(path)
    kept = store.add(sub("before", "kept"), make_report(0.7))
    helpers = Path(__file__).with_name("helpers.py")
    (tmp_path / "tests_helpers.py").write_text(helpers.read_text(), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", CRASH, str(path)], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 9, proc.stderr
    store = Store(path)
    assert store.integrity_ok()
    assert [e.model for e in store.entries()] == ["kept"]
    assert store.get(kept.id).report.accuracy.overall.score == 0.7
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT COUNT(*) FROM entry_items").fetchone()[0] == 1
    assert len(store.item_scores(kept.id)) == 4
    # the store still takes writes after the crash
    assert store.add(sub("after"), make_report(0.1)).id == 2


def test_attempt_counting(tmp_path: Path) -> None:
    from respondeoqa_space.config import Limits

    store = Store(tmp_path / "lb.sqlite3")
    # an attempt that stored an entry, one that stored nothing, and another client's
    store.add(sub("c1-ok"), make_report(0.5), reservation=store.reserve("c1", Limits(), now=100.0))
    store.release(store.reserve("c1", Limits(), now=200.0))
    store.add(sub("c2-ok"), make_report(0.5), reservation=store.reserve("c2", Limits(), now=200.0))
    assert store.count_attempts("c1", since=0) == 2
    assert store.count_attempts("c1", since=0, ok_only=True) == 1
    assert store.count_attempts("c1", since=150) == 1
    assert store.count_attempts("c3", since=0) == 0
