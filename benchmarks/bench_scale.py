"""A board of 100, 1,000 and 10,000 entries side by side (issue 40): every figure of the
issue's table at each size, in one run, and each cost's growth exponent from 1,000 to 10,000.

Stores (tests/kit/scale_store.py): a pool of `--pool` distinct prediction files is scored and
stored through the Space's own path (`Intake.submit`, bootstrap 1,000) on the public gold:
`respondeoqa-eval example`'s generator, each file its own seed and share of right answers,
38 in 40 files on every public file, one each on the Junior Scholarship and the Latin Prosody
files only. A store of N entries copies entry i's report, per-item scores and kept
predictions from pool file i mod P in SQL, with its own name, submitter, date, size,
weights, reasoning flag, Hub id, link and file hash. With the default pool of 1,000, the
stores of 100 and 1,000 entries hold that many distinct scored files; in the store of 10,000
each pool file backs ten entries with the same scores (ties) and different metadata.

For each size, the real server (`python -m respondeoqa_space serve`, public gold, its own
copy of the store) is started and measured from outside over loopback HTTP, first alone
(start-up, memory, the item analysis, page loads, each view's first build), then with the
three servers running side by side: submissions in `--rounds` rounds, one to each size in
turn, the order reversed every round (a burst of load on the shared machine falls on all);
last, each server is started again in the reverse order of the first starts:

- start-up: from starting the process until `GET /` answers with the board (and until the
  server listens at all), on a store the server never ran on (every entry decoded before the
  board is built); and the restart at the end (the page kept at the last shutdown is served
  while the entries are decoded);
- memory: the server's resident set when `/` first answered, and its peak (VmHWM) at the end;
  the item analysis's own process's peak (it logs it);
- `GET /` from memory: the median of 30 page loads (Accept-Encoding: br, gzip);
- the first build of each view: each breakdown's board on the default coverage and on every
  coverage, asked once each (the issue's row is Content type on the default coverage; the
  slowest is reported too);
- a submission until it shows on `/`: `gradio_client` submits a file of raw responses for
  every public item (97% right: it ranks near the top), and `/` is asked until it shows the
  entry; the median of the rounds;
- pages while the item analysis is being made (it is made in the background after each write):
  the slowest `/` and board of another view asked meanwhile;
- item analysis: the first `GET /item_analysis.csv` (it waits up to 30 s for the current
  analysis, else says when to ask again: asked until it answers), and the time the server
  logged for making it;
- `/board.csv` (every entry of every coverage) as sent without compression, with gzip and
  with brotli;
- search: the entry ranked 9,000th in the default coverage (`--rank`; at most 95% down its
  ranking in a smaller store), found by its name: the time, and its rank on the answer;
- paging: the last page of the default coverage.

The machine is shared: each figure is printed with the load average. Growth exponents are
log(value at 10,000 / value at 1,000) / log(10); figures capped by design (a board page holds
BOARD_MAX_ROWS rows of a coverage; the item analysis takes the first page of each coverage)
are marked so.

    python benchmarks/bench_scale.py [--sizes 100,1000,10000] [--pool 1000] [--work DIR]
        [--rounds 5]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from gradio_client import Client  # noqa: E402
from kit.scale_store import fill, score_pool  # noqa: E402
from kit.space_server import start_server  # noqa: E402
from respondeoqa_eval.data.gold import read_folder  # noqa: E402
from respondeoqa_eval.predictions.example import example_predictions  # noqa: E402
from respondeoqa_space.readmodel import BOARD_MAX_ROWS  # noqa: E402
from respondeoqa_space.views.columns import VIEWS  # noqa: E402
from synthetic import public_dir  # noqa: E402

from tests.space.helpers import parse_board, submit  # noqa: E402

BROWSER = {"Accept-Encoding": "br, gzip"}
MOST = "most entries"


def load() -> str:
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def memory(pid: int) -> dict[str, float]:
    """The process's resident set now and at its peak, MB (Linux /proc)."""
    status = Path(f"/proc/{pid}/status").read_text()
    kb = {k: int(v.split()[0]) for k, v in re.findall(r"^(VmRSS|VmHWM):\s+(.+)$", status, re.M)}
    return {"rss_mb": round(kb["VmRSS"] / 1e3), "peak_mb": round(kb["VmHWM"] / 1e3)}


def timed_get(http: httpx.Client, url: str, **kw: Any) -> tuple[float, httpx.Response]:
    t0 = time.perf_counter()
    resp = http.get(url, **kw)
    return time.perf_counter() - t0, resp


def start(data_dir: Path, folder: Path) -> tuple[Any, dict[str, float]]:
    """The server on `folder`'s store, and seconds until it listened and until `/` showed
    the board."""
    t0 = time.perf_counter()
    srv = start_server(data_dir, folder)  # returns once gradio_api/info answers: listening
    listening = time.perf_counter() - t0
    with httpx.Client(timeout=600) as http:
        while True:
            resp = http.get(srv.url, headers=BROWSER)
            if resp.status_code == 200 and "data-key=" in resp.text:
                break
            time.sleep(0.05)
    return srv, {
        "listening_s": round(listening, 2),
        "startup_s": round(time.perf_counter() - t0, 2),
    }


def median_page(http: httpx.Client, url: str, n: int = 30) -> float:
    times = []
    for _ in range(n):
        took, resp = timed_get(http, url, headers=BROWSER)
        assert resp.status_code == 200
        times.append(took)
    return statistics.median(times)


def first_views(http: httpx.Client, url: str) -> dict[str, Any]:
    """Each view's board asked once on the default coverage and on every coverage."""
    out: dict[str, float] = {}
    for view in VIEWS:
        for coverage in (MOST, "all coverages"):
            took, resp = timed_get(http, url + "board", params={"view": view, "coverage": coverage})
            assert resp.status_code == 200 and "data-key=" in resp.text, (view, coverage)
            out[f"{view} | {coverage}"] = round(took, 3)
    slowest = max(out, key=out.__getitem__)
    return {
        "content_type_s": out[f"Content type | {MOST}"],
        "slowest_s": out[slowest],
        "slowest": slowest,
        "each_s": out,
    }


def one_submission(srv: Any, client: Any, gold: Any, work: Path, size: int, r: int) -> dict:
    """A submission through the API: seconds until its answer, and until `/` shows the entry;
    then the pages (`/`, and another view's board) asked while the item analysis the write
    asked for is being made."""
    rows = example_predictions(gold.records, accuracy=0.97, seed=10_000 + 97 * size + r)
    path = work / f"submit-{size}-{r}.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows))
    name = f"scale submission {size}-{r}"
    with httpx.Client(timeout=600) as http:
        t0 = time.perf_counter()
        message = submit(client, path, name)[0]
        answered = time.perf_counter() - t0
        assert message.startswith("Stored as entry"), message
        while name not in http.get(srv.url, headers=BROWSER).text:
            time.sleep(0.02)
        shown = time.perf_counter() - t0
        # the Source board was read before the write: its first read after it builds its
        # new version
        during = []
        for _ in range(10):
            for target in (srv.url, srv.url + "board?view=Source"):
                took, resp = timed_get(http, target, headers=BROWSER)
                assert resp.status_code == 200
                during.append(took)
    return {"answered": answered, "shown": shown, "during": during}


def summary(runs: list[dict]) -> dict[str, Any]:
    shown = [r["shown"] for r in runs]
    during = [t for r in runs for t in r["during"]]
    return {
        "shown_on_page_s": round(statistics.median(shown), 2),
        "each_shown_s": [round(t, 2) for t in shown],
        "answered_s": [round(r["answered"], 2) for r in runs],
        "pages_during_analysis_max_s": round(max(during), 3),
        "pages_during_analysis_median_s": round(statistics.median(during), 3),
    }


def item_analysis(http: httpx.Client, url: str, log: Path) -> dict[str, Any]:
    t0 = time.perf_counter()
    while True:
        resp = http.get(url + "item_analysis.csv")
        if resp.status_code == 200:
            break
        assert resp.status_code == 503, resp.status_code
        time.sleep(1.0)
    took = time.perf_counter() - t0
    made = [
        float(x)
        for x in re.findall(
            r"item analysis of data version \d+ made in ([\d.]+) s", log.read_text()
        )
    ]
    return {
        "first_load_s": round(took, 2),
        "age_header_s": int(resp.headers.get("x-analysis-age", "-1")),
        "current": resp.headers.get("x-analysis-current"),
        "made_in_s": made,
    }


def csv_sizes(http: httpx.Client, url: str) -> dict[str, int]:
    out = {}
    for encoding in ("identity", "gzip", "br"):
        with http.stream(
            "GET", url + "board.csv", params={"coverage": "all coverages"},
            headers={"Accept-Encoding": encoding},
        ) as resp:  # fmt: skip
            body = b"".join(resp.iter_raw())
            assert resp.headers.get("content-encoding", "identity") == encoding, resp.headers
            out[f"{encoding}_kb"] = round(len(body) / 1e3, 1)
    return out


def search(http: httpx.Client, url: str, rank: int) -> dict[str, Any]:
    """The entry ranked `rank`-th in the default coverage (at most 95% down its ranking),
    found by its name: it comes with that rank."""
    resp = http.get(url + "board.csv", params={"coverage": MOST})
    lines = resp.text.splitlines()
    rows = list(csv.DictReader(lines))
    row = rows[min(rank, round(0.95 * len(rows))) - 1]
    took, found = timed_get(http, url + "board", params={"coverage": MOST, "q": row["Model"]})
    hits = [r for r in parse_board(found.text)[1] if r["Model"] == row["Model"]]
    assert hits and hits[0]["Rank"] == row["Rank"], (row, hits)
    pages = math.ceil(len(rows) / BOARD_MAX_ROWS)
    page_took, page = timed_get(http, url + "board", params={"coverage": MOST, "page": pages})
    assert page.status_code == 200 and "data-key=" in page.text
    return {
        "rank": int(row["Rank"]),
        "of": len(rows),
        "search_s": round(took, 3),
        "last_page": pages,
        "last_page_s": round(page_took, 3),
    }


def prepare(data_dir: Path, pool: Path, work: Path, size: int) -> tuple[Any, dict]:
    """A store of `size` entries and its server, and what was measured of it alone: start-up,
    memory, the item analysis asked for at start-up, `/` from memory, each view's first
    build."""
    folder = work / f"space-{size}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    filled = fill(folder / "leaderboard.sqlite3", pool, size)
    out: dict[str, Any] = {"entries": size, "fill_s": round(filled, 1)}
    srv, started = start(data_dir, folder)
    out["starts"] = [started]
    out["memory_after_start"] = memory(srv.proc.pid)
    with httpx.Client(timeout=600) as http:
        # the analysis asked for at start-up first: the page figures then on a quiet server
        out["item_analysis"] = item_analysis(http, srv.url, srv.log)
        out["page_median_ms"] = round(1e3 * median_page(http, srv.url), 1)
        out["first_views"] = first_views(http, srv.url)
    out["load"] = load()
    print(json.dumps(out), flush=True)
    return srv, out


def finish(srv: Any, out: dict, args: Any) -> None:
    with httpx.Client(timeout=600) as http:
        out["board_csv"] = csv_sizes(http, srv.url)
        out["search"] = search(http, srv.url, args.rank)
        out["page_median_ms_after"] = round(1e3 * median_page(http, srv.url), 1)
    out["memory_end"] = memory(srv.proc.pid)
    peaks = re.findall(r"item analysis of \d+ entries: (\d+) MB at its peak", srv.log_text())
    out["analysis_process_peak_mb"] = max((int(x) for x in peaks), default=0)


def run(data_dir: Path, gold: Any, pool: Path, work: Path, sizes: list[int], args: Any) -> list:
    """Every size's server, measured alone, then side by side: submissions in rounds, the
    sizes in turn (the order reversed each round), the servers all running; last, each
    server stopped and started again, in the reverse order (a restart: the main page kept at
    shutdown answers as soon as the server listens)."""
    servers, results = {}, {}
    try:
        for size in sizes:
            servers[size], results[size] = prepare(data_dir, pool, work, size)
        clients = {size: Client(srv.url, verbose=False) for size, srv in servers.items()}
        runs: dict[int, list[dict]] = {size: [] for size in sizes}
        for r in range(args.rounds):
            for size in sizes if r % 2 == 0 else sizes[::-1]:
                folder = work / f"space-{size}"
                runs[size].append(
                    one_submission(servers[size], clients[size], gold, folder, size, r)
                )
            print(json.dumps({"round": r, "load": load()}), flush=True)
        for size in sizes:
            results[size]["submission"] = summary(runs[size])
            finish(servers[size], results[size], args)
        for size in reversed(sizes):  # started again, the other way round
            servers.pop(size).stop()
            srv, started = start(data_dir, work / f"space-{size}")
            servers[size] = srv
            results[size]["starts"].append(started)
        for size in sizes:
            cold, again = results[size]["starts"]
            results[size]["listening_s"] = cold["listening_s"]
            results[size]["startup_s"] = cold["startup_s"]
            results[size]["restart_s"] = again["startup_s"]
            results[size]["load"] = load()
    finally:
        for srv in servers.values():
            srv.stop()
    return [results[size] for size in sizes]


ROWS = [
    # (label, getter, capped)
    ("GET / median, from memory (ms)", lambda r: r["page_median_ms"], False),
    ("first build of a view: Content type (s)", lambda r: r["first_views"]["content_type_s"], False),
    ("first build of a view: slowest of all (s)", lambda r: r["first_views"]["slowest_s"], False),
    ("a submission, until it shows on / (s)", lambda r: r["submission"]["shown_on_page_s"], False),
    ("start-up until the server listens (s)", lambda r: r["listening_s"], False),
    ("start-up until / shows the board, nothing kept (s)", lambda r: r["startup_s"], False),
    ("restart until / shows the board, the page kept (s)", lambda r: r["restart_s"], False),
    ("item analysis, /item_analysis.csv first load (s)", lambda r: r["item_analysis"]["first_load_s"], True),
    ("item analysis, made in (s, first)", lambda r: (r["item_analysis"]["made_in_s"] or [math.nan])[0], True),
    ("pages while the item analysis is made, slowest (s)", lambda r: r["submission"]["pages_during_analysis_max_s"], False),
    ("server memory after start (MB)", lambda r: r["memory_after_start"]["rss_mb"], False),
    ("server memory peak (MB)", lambda r: r["memory_end"]["peak_mb"], False),
    ("item analysis process, memory peak (MB)", lambda r: r["analysis_process_peak_mb"], True),
    ("/board.csv uncompressed (KB)", lambda r: r["board_csv"]["identity_kb"], False),
    ("/board.csv gzip (KB)", lambda r: r["board_csv"]["gzip_kb"], False),
    ("/board.csv brotli (KB)", lambda r: r["board_csv"]["br_kb"], False),
    ("search: an entry ranked deep in the default coverage (s)", lambda r: r["search"]["search_s"], False),
    ("the last page of the default coverage (s)", lambda r: r["search"]["last_page_s"], False),
]  # fmt: skip


def table(results: list[dict]) -> str:
    sizes = [r["entries"] for r in results]
    head = "| measure | " + " | ".join(f"{s:,}" for s in sizes) + " | exponent 1,000 to 10,000 |"
    lines = [head, "|---" * (len(sizes) + 2) + "|"]
    by = {r["entries"]: r for r in results}
    for label, get, capped in ROWS:
        values = [get(r) for r in results]
        exponent = ""
        if 1000 in by and 10_000 in by:
            a, b = get(by[1000]), get(by[10_000])
            if a and b and a > 0 and b > 0:
                exponent = f"{math.log(b / a) / math.log(10):.2f}" + (" (capped)" if capped else "")
        cells = " | ".join(f"{v:,.3g}" if isinstance(v, float) else f"{v:,}" for v in values)
        lines.append(f"| {label} | {cells} | {exponent} |")
    extra = [f"search found rank {r['search']['rank']:,} of {r['search']['of']:,}" for r in results]
    return "\n".join(lines) + "\n\n" + "; ".join(extra)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--pool", type=int, default=1000, help="distinct scored files")
    parser.add_argument("--work", type=Path, help="keep the pool and stores here (reused)")
    parser.add_argument("--rounds", type=int, default=5, help="submissions to each size")
    parser.add_argument("--rank", type=int, default=9000, help="the searched entry's rank")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    tmp = None if args.work else tempfile.TemporaryDirectory()
    work = args.work or Path(tmp.name)  # type: ignore[union-attr]
    work.mkdir(parents=True, exist_ok=True)
    data_dir = public_dir()
    gold = read_folder(data_dir)
    pool = work / "pool.sqlite3"
    scored = score_pool(pool, gold, work / "pool-files", args.pool)
    print(
        json.dumps({"pool": args.pool, "scoring_s": round(scored, 1), "load": load()}), flush=True
    )
    results = run(data_dir, gold, pool, work, sizes, args)
    print(json.dumps(results, indent=1))
    print(table(results))
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
