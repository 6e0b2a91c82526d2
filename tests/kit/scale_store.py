"""Stores of N leaderboard entries made from really scored files (benchmarks/bench_scale.py,
tests/space/test_scale_server.py).

A pool of distinct prediction files is scored and stored through the Space's own path
(`Intake.submit`: read, score with the Space's bootstrap, store with kept predictions), on the
public gold only (the six upstream files, 1,147 items). Each pool file is
`respondeoqa-eval example`'s generator (`example_predictions`) with its own seed and its own
share of right answers (spread over 0.15 to 0.95 by a golden-ratio walk), on one of three
coverages: every public file (38 in 40 files by default), the Junior Scholarship files only,
or the Latin Prosody files only (1 in 40 each), so the board has three sections and the
default coverage holds most rows.

A store of N entries holds N rows copied in SQL from the pool's rows (report, per-item scores,
kept predictions: the bytes the Space stored), entry i from pool file i mod P, each with its
own name, submitter, date, size, weights, reasoning flag, link and file hash. With a pool of
P >= N every entry is a distinct scored file; beyond P, each pool file backs N / P entries
that share its scores (ties, as a board of many fine-tunes of one model has) and differ in
everything else.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from pathlib import Path

from respondeoqa_eval.data import GoldSet
from respondeoqa_eval.predictions import example_predictions
from respondeoqa_space.config import Limits
from respondeoqa_space.metadata import ModelInfo, clean_metadata
from respondeoqa_space.store import Store, sha256_bytes
from respondeoqa_space.submission import Intake

COVERAGES = {
    "public": None,  # every public file
    "junior": "junior_scholarship_",
    "prosody": "prosody_",
}
FAMILIES = ["llama", "qwen", "mistral", "gemma", "phi", "olmo", "falcon", "yi", "deepseek"]
SIZES_B = [0.5, 1, 1.5, 3, 7, 8, 13, 14, 32, 70, 72, 110, 405]
GOLDEN = 0.6180339887498949


def pool_coverage(p: int, every: int) -> str:
    """Pool file p's coverage: of each `every` files, one covers the Junior Scholarship files,
    one the Latin Prosody files, the others every public file."""
    return {every - 2: "junior", every - 1: "prosody"}.get(p % every, "public")


def pool_accuracy(p: int) -> float:
    return round(0.15 + 0.8 * ((p * GOLDEN) % 1.0), 4)


def score_pool(
    db: Path, gold: GoldSet, work: Path, size: int, bootstrap: int = 1000, every: int = 40
) -> float:
    """Score and store `size` distinct files into the pool store `db` (resumed: files already
    stored are skipped), the coverages as `pool_coverage(p, every)` says; seconds spent
    scoring."""
    store = Store(db)
    intake = Intake(store, gold, limits=Limits(), bootstrap=bootstrap)
    have = store.count()
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for p in range(have, size):
        prefix = COVERAGES[pool_coverage(p, every)]
        records = [r for r in gold.records if prefix is None or r.file.startswith(prefix)]
        rows = example_predictions(records, accuracy=pool_accuracy(p), seed=p)
        path = work / f"pool-{p:05d}.jsonl"
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
        meta = clean_metadata(f"pool {p:05d}", "", "", "", Limits())
        intake.submit(path, meta, client=None)
        path.unlink()
    return time.perf_counter() - t0


def _metadata(i: int) -> tuple[str, str, str, str, str, str]:
    """(model, submitter, created, link, params, model_info JSON) of entry i: its own."""
    rng = random.Random(i)
    family = FAMILIES[i % len(FAMILIES)]
    size = rng.choice(SIZES_B)
    model = f"{family}-{size:g}b ft-{i:05d}"
    submitter = f"user{rng.randrange(600):03d}" if rng.random() < 0.7 else ""
    day = 1 + rng.randrange(720)
    created = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(1_700_000_000 + day * 86400))
    info = ModelInfo(
        params_b=float(size) if rng.random() < 0.8 else None,
        weights=rng.choice(["", "open", "closed"]),
        reasoning=rng.choice([None, True, False]),
        hub_model=f"org{i % 50}/{family}-{size:g}b-ft-{i}" if rng.random() < 0.5 else "",
    )
    link = f"https://example.org/models/{i}"
    return model, submitter, created, link, f"{size:g}B", json.dumps(info.to_dict())


def fill(db: Path, pool_db: Path, entries: int) -> float:
    """A store at `db` with `entries` entries copied from the pool (module docstring); the
    seconds it took."""
    t0 = time.perf_counter()
    Store(db)  # the schema
    pool = Store(pool_db)
    size = pool.count()
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("ATTACH DATABASE ? AS pool", (str(pool_db),))
        cols = [r[1] for r in con.execute("PRAGMA table_info(submissions)")]
        own = ("id", "model", "file_sha256", "link", "submitter", "created", "params")
        own += ("model_info",)
        copied = [c for c in cols if c not in own]
        ids = [r[0] for r in con.execute("SELECT id FROM pool.submissions ORDER BY id")]
        assert len(ids) == size
        con.execute("BEGIN IMMEDIATE")
        con.execute("DELETE FROM item_sets")
        con.execute("INSERT INTO item_sets SELECT * FROM pool.item_sets")
        for i in range(entries):
            src = ids[i % size]
            model, submitter, created, link, params, info = _metadata(i)
            cur = con.execute(
                f"INSERT INTO submissions (model, file_sha256, link, submitter, created, params,"
                f" model_info, {', '.join(copied)}) SELECT ?, ?, ?, ?, ?, ?, ?,"
                f" {', '.join(copied)} FROM pool.submissions WHERE id = ?",
                (model, sha256_bytes(f"scale {i}".encode()), link, submitter, created, params,
                 info, src),
            )  # fmt: skip
            con.execute(
                "INSERT INTO entry_items (submission_id, data)"
                " SELECT ?, data FROM pool.entry_items WHERE submission_id = ?",
                (cur.lastrowid, src),
            )
        con.execute(
            "INSERT INTO meta (key, value) VALUES ('changes', '1') ON CONFLICT(key)"
            " DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
        con.execute("COMMIT")
        con.execute("DETACH DATABASE pool")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    return time.perf_counter() - t0
