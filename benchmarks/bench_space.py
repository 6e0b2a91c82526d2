"""Time the leaderboard Space (issue 10 targets): upload to updated leaderboard, concurrent page
loads with 200 stored entries (HTTP and chromium), and a page load with 10,000 stored entries.

Gold: the six public files plus synthetic Certamen/NLE stand-ins at the paper's sizes
(tests/synthetic.py), about 7,800 items. Each part starts the real server
(`python -m respondeoqa_eval.cli space`) on a free port with its own SQLite file.

- submit: `gradio_client` uploads a JSONL of raw responses for every item and calls /submit; the
  clock stops when the reply (scored, stored, with the updated leaderboard table) arrives.
- http: `--clients` threads at once, each doing what a browser does: GET / (the page and its
  config), then the board's HTML from the URL the page's script fetches (read from the config),
  plus any Gradio load event the config declares. A refusal (any non-200) is counted, not retried.
- chromium: `--pages` Debian chromium pages (playwright, tests/kit/browser.py CHROMIUM_ARGS)
  opened at once; each clock stops when the table shows a stored entry's row.
- floor: the chromium measure on two pages that do no app work, served on the same machine:
  the board's HTML as a static file (python -m http.server) and a Gradio app with one Markdown.
  On this 2-core machine the 10 renderers and the server share the cores, so these bound what
  any page can reach here.
- 10,000: the same single-page measures on a database of `--many` entries.

Stored entries are full size (every item, kept predictions): a few are scored and stored with
`Store.add`, the rest are SQL copies of their rows under new names and file hashes (the same
bytes the Space would store; much faster than scoring each). Each figure is printed with the
load average (`os.getloadavg`), since the machine is shared.

    python benchmarks/bench_space.py [--parts submit,http,chromium,floor,many] [--entries 200]
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
from kit.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from kit.net import stop, wait_for_http  # noqa: E402
from kit.space_server import start_server  # noqa: E402
from respondeoqa_eval import evaluate, load_predictions  # noqa: E402
from respondeoqa_eval.example import example_predictions  # noqa: E402
from respondeoqa_eval.gold import read_folder  # noqa: E402
from respondeoqa_eval.space.readmodel import BOARD_MAX_ROWS  # noqa: E402
from respondeoqa_eval.space.store import (  # noqa: E402
    Store,
    Submission,
    prediction_rows,
    sha256_bytes,
)
from synthetic import write_private  # noqa: E402

from tests.space.helpers import submit  # noqa: E402

SIZES = {"n_mc": 315, "n_sa": 4596, "n_tr": 916, "n_nle": 190, "max_refs": 12}
DISTINCT = 5  # distinct scored submissions; the other entries copy their rows
ROW_TEXT = "stored model"  # in every stored entry's model name


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


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
            rows=tuple(prediction_rows(preds)),
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
            assert f"bench model {r}" in out[2]  # the board's HTML, updated
        return {
            "items": len(gold.records),
            "file_mb": round(statistics.mean(sizes) / 1e6, 2),
            "seconds": [round(t, 2) for t in times],
            "median_s": round(statistics.median(times), 2),
            "load": load(),
        }
    finally:
        srv.stop()


# -- page load as a browser sends it -------------------------------------------------------


class PageLoad:
    """GET / and what the page then asks the server for, the way the browser sends it: the
    board's HTML from the URL its script fetches (the board component's `board_src` in the
    page's config), and any Gradio load event the config declares (the Space declares none)."""

    def __init__(self, url: str) -> None:
        self.url = url
        config = httpx.get(url + "config", timeout=60).json()
        extra = [c.get("props", {}).get("props") or {} for c in config["components"]]
        self.board_src = url + next(p["board_src"] for p in extra if p.get("board_src"))
        self.loads = [
            d for d in config["dependencies"] if any(t[1] == "load" for t in d["targets"])
        ]
        values = {c["id"]: c.get("props", {}).get("value") for c in config["components"]}
        self.values = values

    def run(self, http: httpx.Client) -> tuple[bool, int]:
        """(answered, rows in the table); raises nothing for a refusal."""
        page = http.get(self.url)
        if page.status_code != 200:
            return False, 0
        board = http.get(self.board_src)
        if board.status_code != 200:
            return False, 0
        for dep in self.loads:  # none today; kept so that a load event is never left unmeasured
            body = {
                "data": [self.values[i] for i in dep["inputs"]],
                "event_data": None,
                "fn_index": dep["id"],
                "trigger_id": None,
                "session_hash": uuid.uuid4().hex[:11],
            }
            resp = http.post(self.url + "gradio_api/run/predict", json=body)
            if resp.status_code != 200:
                return False, 0
        return True, _rows(board.text)


def _rows(board_html: str) -> int:
    """Rows in the board's table (the body's rows; the header row is one more <tr>)."""
    return max(0, board_html.count("<tr") - 1)


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
        "gradio_load_events": len(loader.loads),
        "answered": len(times),
        "refused": len(refused),
        "p50_s": round(statistics.median(times), 3) if times else None,
        "p95_s": round(pct(times, 0.95), 3) if times else None,
        "max_s": round(max(times), 3) if times else None,
        "load": load(),
    }


def chromium_pages(url: str, pages: int, selector: str = "#leaderboard-table td:visible") -> dict:
    """`pages` chromium pages opened at once; seconds until each shows a stored entry's row
    (an element matching `selector` with ROW_TEXT in it)."""
    from playwright.async_api import async_playwright

    async def main() -> list[float]:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            contexts = [await browser.new_context() for _ in range(pages)]
            tabs = [await c.new_page() for c in contexts]

            async def open_one(page) -> float:
                t0 = time.perf_counter()
                await page.goto(url)
                cell = page.locator(selector)
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


# the floor under the chromium figures: the same measure on pages that do (almost) nothing
_MINIMAL_GRADIO = """
import sys
import gradio as gr
with gr.Blocks() as demo:
    gr.Markdown("# stored model")
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), ssr_mode=False, quiet=True)
"""


def bench_floor(board_url: str, work: Path, pages: int) -> dict:
    """`pages` chromium pages at once on (a) the Space's board HTML as a static file and (b) a
    Gradio app with one Markdown: what this machine's chromium costs before any app work."""
    import subprocess

    from tests.space.conftest import free_port

    folder = work / "floor"
    folder.mkdir(exist_ok=True)
    board = httpx.get(board_url, timeout=60).text
    (folder / "index.html").write_text(f"<!doctype html><html><body>{board}</body></html>")
    (folder / "minimal.py").write_text(_MINIMAL_GRADIO)
    out: dict[str, Any] = {}
    static_port, gradio_port = free_port(), free_port()
    servers = [
        subprocess.Popen(
            [sys.executable, "-m", "http.server", str(static_port), "-b", "127.0.0.1"],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
        subprocess.Popen(
            [sys.executable, str(folder / "minimal.py"), str(gradio_port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ),
    ]
    static = f"http://127.0.0.1:{static_port}/"
    minimal = f"http://127.0.0.1:{gradio_port}/"
    try:
        for url, proc in zip((static, minimal), servers, strict=True):
            wait_for_http(url, proc, lambda: "(output not kept)")
        out["static_board_one"] = chromium_pages(static, 1, "td")
        out["static_board"] = chromium_pages(static, pages, "td")
        out["minimal_gradio_one"] = chromium_pages(minimal, 1, "h1")
        out["minimal_gradio"] = chromium_pages(minimal, pages, "h1")
        return out
    finally:
        for proc in servers:
            stop(proc)


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
        if "floor" in parts and entries == args.entries:
            out["floor"] = bench_floor(PageLoad(srv.url).board_src, work, args.pages)
            print(json.dumps(out), flush=True)
        return out
    finally:
        srv.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="submit,http,chromium,floor,many")
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
        if parts & {"http", "chromium", "floor"} and args.entries:
            results["board"] = bench_board(gold_dir, gold, work, args.entries, args, parts)
        if "many" in parts:
            results["many"] = bench_board(gold_dir, gold, work, args.many, args, parts)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
