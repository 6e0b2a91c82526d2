"""Time the leaderboard Space (issue 10 targets): upload to updated leaderboard, concurrent page
loads with 200 stored entries (HTTP and chromium), and a page load with 10,000 stored entries.

Gold: the six public files plus synthetic Certamen/NLE stand-ins at the paper's sizes
(tests/synthetic.py), about 7,800 items. Each part starts the real server
(`python -m respondeoqa_eval.cli space`) on a free port with its own SQLite file.

- submit: `gradio_client` uploads a JSONL of raw responses for every item and calls /submit; the
  clock stops when the reply (scored, stored, with the updated leaderboard table) arrives.
- http: `--clients` threads at once, each doing what a browser does: GET / (the page and its
  config), then the page's load event the way the browser sends it (read from the config: a
  direct POST to /gradio_api/run/... for an event outside the queue, else queue/join plus the
  queue/data event stream). A refusal ("Queue is full", any non-200) is counted, not retried.
- chromium: `--pages` Debian chromium pages (playwright, tests/space/helpers.py CHROMIUM_ARGS)
  opened at once; each clock stops when the table shows a stored entry's row.
- 10,000: the same single-page measures on a database of `--many` entries.

Stored entries are full size (every item, kept predictions): a few are scored and stored with
`Store.add`, the rest are SQL copies of their rows under new names and file hashes (the same
bytes the Space would store; much faster than scoring each). Each figure is printed with the
load average (`os.getloadavg`), since the machine is shared.

    python benchmarks/bench_space.py [--parts submit,http,chromium,many] [--entries 200]
        [--many 10000] [--clients 50] [--pages 10] [--repeat 3] [--pad 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from gradio_client import Client  # noqa: E402
from respondeoqa_eval import evaluate, load_predictions  # noqa: E402
from respondeoqa_eval.example import example_predictions  # noqa: E402
from respondeoqa_eval.gold import read_folder  # noqa: E402
from respondeoqa_eval.space.app import BOARD_MAX_ROWS  # noqa: E402
from respondeoqa_eval.space.store import (  # noqa: E402
    Store,
    Submission,
    encode_predictions,
    sha256_bytes,
)
from synthetic import write_private  # noqa: E402

from tests.space.conftest import start_server  # noqa: E402
from tests.space.helpers import CHROMIUM, CHROMIUM_ARGS, submit  # noqa: E402

SIZES = {"n_mc": 315, "n_sa": 4596, "n_tr": 916, "n_nle": 190, "max_refs": 12}
DISTINCT = 5  # distinct scored submissions; the other entries copy their rows
ROW_TEXT = "stored model"  # in every stored entry's model name


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def _stop(srv) -> None:
    srv.proc.terminate()
    srv.proc.wait(timeout=30)


# -- stored entries ------------------------------------------------------------------------


def populate(db: Path, gold, entries: int) -> float:
    """Store `entries` full-size entries: DISTINCT scored ones, then SQL copies of their rows."""
    store = Store(db)
    t0 = time.perf_counter()
    for seed in range(min(DISTINCT, entries)):
        rows = example_predictions(gold.records, accuracy=0.45 + 0.05 * seed, seed=seed)
        preds = load_predictions(rows, gold)
        report = evaluate(preds, gold, restrict_to_covered=True, bootstrap=200)
        sub = Submission(
            model=f"{ROW_TEXT} {seed:05d}",
            file_sha256=sha256_bytes(f"distinct {seed}".encode()),
            link=f"https://example.org/{seed}",
            params="7B",
            file_name="predictions.jsonl",
            predictions=encode_predictions(preds),
        )
        store.add(sub, report)
    con = sqlite3.connect(db, isolation_level=None)
    try:
        cols = [r[1] for r in con.execute("PRAGMA table_info(submissions)")]
        copied = [c for c in cols if c not in ("id", "model", "file_sha256", "link")]
        con.execute("BEGIN IMMEDIATE")
        for i in range(DISTINCT, entries):
            src = 1 + i % DISTINCT
            cur = con.execute(
                f"INSERT INTO submissions (model, file_sha256, link, {', '.join(copied)})"
                f" SELECT ?, ?, ?, {', '.join(copied)} FROM submissions WHERE id = ?",
                (
                    f"{ROW_TEXT} {i:05d}",
                    sha256_bytes(f"copy {i}".encode()),
                    f"https://example.org/{i}",
                    src,
                ),
            )
            con.execute(
                "INSERT INTO entry_items (submission_id, data)"
                " SELECT ?, data FROM entry_items WHERE submission_id = ?",
                (cur.lastrowid, src),
            )
        con.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'")
        con.execute("COMMIT")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    return time.perf_counter() - t0


# -- upload to leaderboard -----------------------------------------------------------------


def bench_submit(gold_dir: Path, gold, work: Path, repeat: int, pad: int) -> dict:
    srv = start_server(gold_dir, work / f"submit-{pad}")
    try:
        client = Client(srv.url, verbose=False)
        times, sizes = [], []
        for r in range(repeat):
            rows = example_predictions(gold.records, accuracy=0.6, seed=100 + r)
            if pad:  # reasoning before the answer line, as long-thinking models write
                for row in rows:
                    row["response"] = "Reasoning. " * (pad // 11) + "\n" + row["response"]
            path = work / f"full-{pad}-{r}.jsonl"
            path.write_text(
                "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows), "utf-8"
            )
            sizes.append(path.stat().st_size)
            t0 = time.perf_counter()
            out = submit(client, path, f"bench model {r}")
            times.append(time.perf_counter() - t0)
            assert out[0].startswith("Stored as entry"), out[0]
            assert any(f"bench model {r}" in row for row in out[2]["value"]["data"])
        return {
            "items": len(gold.records),
            "file_mb": round(statistics.mean(sizes) / 1e6, 2),
            "seconds": [round(t, 2) for t in times],
            "median_s": round(statistics.median(times), 2),
            "load": load(),
        }
    finally:
        _stop(srv)


# -- page load as a browser sends it -------------------------------------------------------


class PageLoad:
    """GET / and the page's load event, the way the browser's Gradio client sends them."""

    def __init__(self, url: str) -> None:
        self.url = url
        config = httpx.get(url + "config", timeout=60).json()
        self.dep = next(
            d for d in config["dependencies"] if any(t[1] == "load" for t in d["targets"])
        )
        self.fn_index = self.dep["id"]
        values = {c["id"]: c.get("props", {}).get("value") for c in config["components"]}
        self.data = [values[i] for i in self.dep["inputs"]]
        self.queued = bool(self.dep.get("queue", True))

    def run(self, http: httpx.Client) -> tuple[bool, int]:
        """(answered, rows in the table); raises nothing for a refusal."""
        page = http.get(self.url)
        if page.status_code != 200:
            return False, 0
        session = uuid.uuid4().hex[:11]
        body = {
            "data": self.data,
            "event_data": None,
            "fn_index": self.fn_index,
            "trigger_id": None,
            "session_hash": session,
        }
        if not self.queued:
            resp = http.post(self.url + "gradio_api/run/predict", json=body)
            if resp.status_code != 200:
                return False, 0
            return True, _rows(resp.json()["data"])
        join = http.post(self.url + "gradio_api/queue/join", json=body)
        if join.status_code != 200:
            return False, 0
        with http.stream(
            "GET", self.url + "gradio_api/queue/data", params={"session_hash": session}
        ) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("msg") == "process_completed":
                    ok = bool(msg.get("success"))
                    return ok, _rows(msg["output"]["data"]) if ok else 0
        return False, 0


def _rows(outputs: list[Any]) -> int:
    board = outputs[0]
    value = board.get("value", board) if isinstance(board, dict) else {}
    return len((value or {}).get("data", []))


def concurrent_loads(url: str, clients: int, expect_rows: int) -> dict:
    """`clients` page loads at once; a load counts as answered when its board has at least
    `expect_rows` rows (the board shows the best rows of each coverage, not all of 10,000)."""
    loader = PageLoad(url)
    barrier = threading.Barrier(clients)
    times: list[float] = []
    refused: list[str] = []
    lock = threading.Lock()

    def one() -> None:
        with httpx.Client(timeout=120) as http:
            barrier.wait()
            t0 = time.perf_counter()
            try:
                ok, rows = loader.run(http)
            except httpx.HTTPError as exc:
                ok, rows = False, type(exc).__name__
            took = time.perf_counter() - t0
            with lock:
                if ok and isinstance(rows, int) and rows >= expect_rows:
                    times.append(took)
                else:
                    refused.append(f"{ok}/{rows}")

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "clients": clients,
        "load_event": "queued" if loader.queued else "outside the queue",
        "answered": len(times),
        "refused": len(refused),
        "p50_s": round(statistics.median(times), 3) if times else None,
        "p95_s": round(pct(times, 0.95), 3) if times else None,
        "max_s": round(max(times), 3) if times else None,
        "load": load(),
    }


def chromium_pages(url: str, pages: int) -> dict:
    """`pages` chromium pages opened at once; seconds until each shows a stored entry's row."""
    from playwright.async_api import async_playwright

    async def main() -> list[float]:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            contexts = [await browser.new_context() for _ in range(pages)]
            tabs = [await c.new_page() for c in contexts]

            async def open_one(page) -> float:
                t0 = time.perf_counter()
                await page.goto(url)
                cell = page.locator("#leaderboard-table [role=gridcell]:visible")
                await cell.filter(has_text=ROW_TEXT).first.wait_for(timeout=120_000)
                return time.perf_counter() - t0

            times = await asyncio.gather(*(open_one(t) for t in tabs))
            await browser.close()
            return list(times)

    times = asyncio.run(main())
    return {
        "pages": pages,
        "table_visible_s": sorted(round(t, 2) for t in times),
        "median_s": round(statistics.median(times), 2),
        "max_s": round(max(times), 2),
        "load": load(),
    }


def bench_board(gold_dir: Path, gold, work: Path, entries: int, args, parts: set[str]) -> dict:
    folder = work / f"board-{entries}"
    folder.mkdir()
    db = folder / "leaderboard.sqlite3"
    fill = populate(db, gold, entries)
    out: dict[str, Any] = {
        "entries": entries,
        "fill_db_s": round(fill, 1),
        "db_mb": round(db.stat().st_size / 1e6, 1),
    }
    srv = start_server(gold_dir, folder)
    try:
        expect = min(entries + 3, BOARD_MAX_ROWS)  # the paper's rows too
        single = []
        for _ in range(args.repeat):
            r = concurrent_loads(srv.url, 1, expect)
            single += [r["p50_s"]] if r["answered"] else []
        out["one_page_load_http_s"] = sorted(single)
        print(json.dumps(out), flush=True)
        if "http" in parts and entries == args.entries:
            out["http"] = concurrent_loads(srv.url, args.clients, expect)
            print(json.dumps(out), flush=True)
        if "chromium" in parts:
            out["chromium_one"] = chromium_pages(srv.url, 1)
            print(json.dumps(out), flush=True)
            if entries == args.entries:
                out["chromium"] = chromium_pages(srv.url, args.pages)
                print(json.dumps(out), flush=True)
        return out
    finally:
        _stop(srv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="submit,http,chromium,many")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--many", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument(
        "--pad", type=int, default=2000, help="also time responses with this many extra characters"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        gold_dir = write_private(work / "gold", with_public=True, **SIZES)
        gold = read_folder(gold_dir)
        if "submit" in parts:
            results["submit"] = bench_submit(gold_dir, gold, work, args.repeat, 0)
            print(json.dumps(results), flush=True)
            if args.pad:
                results["submit_long_responses"] = bench_submit(
                    gold_dir, gold, work, args.repeat, args.pad
                )
                print(json.dumps(results), flush=True)
        if parts & {"http", "chromium"} and args.entries:
            results["board"] = bench_board(gold_dir, gold, work, args.entries, args, parts)
        if "many" in parts:
            results["many"] = bench_board(gold_dir, gold, work, args.many, args, parts)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
