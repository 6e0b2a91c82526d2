"""Time the leaderboard Space: upload-to-leaderboard for a full-size submission, and page load
with 200 stored entries.

Gold: the six public files plus synthetic Certamen/NLE stand-ins at the paper's sizes
(tests/synthetic.py), about 7,800 items. Each run starts the real server
(`python -m respondeoqa_eval.cli space`) on a free port with a fresh SQLite file.

- submit: `gradio_client` uploads a JSONL of raw responses for every item and calls /submit; the
  clock stops when the reply (scored, stored, with the updated leaderboard table) arrives.
- page load: a database with 200 full-size entries; Debian chromium (playwright) opens the page
  and waits until the table shows all 203 rows' data and the network is idle; plus the
  /leaderboard endpoint alone through gradio_client.

    python benchmarks/bench_space.py [--repeat 3] [--entries 200] [--pad 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from gradio_client import Client  # noqa: E402
from respondeoqa_eval import evaluate  # noqa: E402
from respondeoqa_eval.example import example_predictions  # noqa: E402
from respondeoqa_eval.gold import read_folder  # noqa: E402
from respondeoqa_eval.space.store import Store, Submission, sha256_bytes  # noqa: E402
from synthetic import write_private  # noqa: E402

from tests.space.conftest import start_server  # noqa: E402
from tests.space.helpers import CHROMIUM, CHROMIUM_ARGS, submit  # noqa: E402

SIZES = {"n_mc": 315, "n_sa": 4596, "n_tr": 916, "n_nle": 190, "max_refs": 12}


def _stop(srv) -> None:
    srv.proc.terminate()
    srv.proc.wait(timeout=30)


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
        }
    finally:
        _stop(srv)


def populate(db: Path, gold, entries: int) -> float:
    """Store `entries` full-size entries (5 distinct reports, each under many names)."""
    reports = []
    for seed in range(5):
        rows = example_predictions(gold.records, accuracy=0.5 + 0.05 * seed, seed=seed)
        reports.append(evaluate(rows, gold, restrict_to_covered=True).to_dict())
    store = Store(db)
    t0 = time.perf_counter()
    for i in range(entries):
        sub = Submission(
            model=f"stored model {i:03d}",
            file_sha256=sha256_bytes(f"{i}".encode()),
            link=f"https://example.org/{i}",
            params="7B",
        )
        store.add(sub, reports[i % len(reports)])
    return time.perf_counter() - t0


def bench_page(gold_dir: Path, gold, work: Path, entries: int, repeat: int) -> dict:
    from playwright.sync_api import sync_playwright

    folder = work / "page"
    folder.mkdir()
    fill = populate(folder / "leaderboard.sqlite3", gold, entries)
    srv = start_server(gold_dir, folder)
    try:
        client = Client(srv.url, verbose=False)
        api = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            table, _csv = client.predict("Overview", "all coverages", api_name="/leaderboard")
            api.append(time.perf_counter() - t0)
            assert len(table["value"]["data"]) == entries + 3
        visible, idle = [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(repeat):
                page = browser.new_page(viewport={"width": 1500, "height": 1100})
                t0 = time.perf_counter()
                page.goto(srv.url)
                cell = page.locator("#leaderboard-table [role=gridcell]:visible")
                cell.filter(has_text="stored model").first.wait_for(timeout=60_000)
                visible.append(time.perf_counter() - t0)
                page.wait_for_load_state("networkidle")
                idle.append(time.perf_counter() - t0)
                page.close()
            browser.close()
        return {
            "entries": entries,
            "fill_db_s": round(fill, 1),
            "db_mb": round((folder / "leaderboard.sqlite3").stat().st_size / 1e6, 1),
            "leaderboard_endpoint_median_s": round(statistics.median(api), 3),
            "page_table_visible_median_s": round(statistics.median(visible), 2),
            "page_network_idle_median_s": round(statistics.median(idle), 2),
        }
    finally:
        _stop(srv)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument(
        "--pad", type=int, default=2000, help="also time responses with this many extra characters"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        gold_dir = write_private(work / "gold", with_public=True, **SIZES)
        gold = read_folder(gold_dir)
        results = {"submit": bench_submit(gold_dir, gold, work, args.repeat, 0)}
        print(json.dumps(results), flush=True)
        if args.pad:
            results["submit_long_responses"] = bench_submit(
                gold_dir, gold, work, args.repeat, args.pad
            )
            print(json.dumps(results), flush=True)
        results["page_load"] = bench_page(gold_dir, gold, work, args.entries, args.repeat)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
