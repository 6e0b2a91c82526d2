"""Time the leaderboard Space (issue 10 and 17 targets): upload to updated leaderboard, concurrent
page loads with 200 stored entries (HTTP and chromium), first visits and a first render beside a
one-Markdown Gradio app, and a page load with 10,000 stored entries.

Gold: the six public files plus synthetic Certamen/NLE stand-ins at the paper's sizes
(tests/synthetic.py), about 7,800 items. Each part starts the real server
(`python -m respondeoqa_space serve`) on a free port with its own SQLite file.

- submit: `gradio_client` uploads a JSONL of raw responses for every item and calls /submit; the
  clock stops when the reply (scored, stored, with the updated leaderboard table) arrives.
  Twice: without a record (the SQLite commit is the answer), and with a record on the loopback
  Hub stand-in (the answer waits for the record's commit: group-commit window, upload, commit).
- http: `--clients` threads at once, each doing what a browser does: GET / (the page holds the
  board: web/board_page.py; it names no other part). A refusal (any non-200) is counted, not
  retried. Side by side with its floor, a static copy of the same bytes (static_copy.py: what
  the Space sent for each encoding, from memory, Python's own HTTP server, its own process), in
  `--repeat` rounds alternating which goes first: each side's p50 per round, their medians,
  the ratio Space / static copy.
- chromium: `--pages` Debian chromium pages (playwright, tests/kit/browser.py CHROMIUM_ARGS)
  opened at once; each clock stops when the table shows a stored entry's row. Side by side
  with the same static copy (the same page, scripts and all, with no server work), alternating
  rounds: the median page of each round, their medians, the ratio. On this 2-core machine the
  renderers and the server share the cores: the static copy is what any page can reach here.
- visits (issue 17): `--clients` first visits at once, each visitor with its own cookie jar
  (cookies of its own, as real visitors carry, and whatever the server sets) and a browser's
  headers (Accept-Encoding: gzip, deflate, br, zstd): the page, then every script and
  stylesheet it references, at once (the Space's page holds the board and names none). The
  same visits on the baseline, a Gradio app with one Markdown (floor_apps.py: the same Gradio, its own process
  on another loopback port), in alternating rounds: the median over `--repeat` rounds of each
  side's p95, the ratio Space / baseline, and each server's CPU time per visit.
- render (issue 17): chromium, one page at a time, in turn on the Space, the baseline and a
  floor (floor_apps.py `html`: the baseline plus one gr.HTML holding a one-cell table), each
  load in a new browser context (a first visit): seconds from navigation start to the first
  frame that shows the Space's table with a stored entry's row / the baseline's heading / the
  floor's cell (shown.js, in the page). Medians of `--renders` loads each, and the ratios to
  the baseline.
- 10,000: the same single-page measures on a database of `--many` entries.

Stored entries are full size (every item, kept predictions): a few are scored and stored with
`Store.add`, the rest are SQL copies of their rows under new names and file hashes (the same
bytes the Space would store; much faster than scoring each). Each figure is printed with the
load average (`os.getloadavg`), since the machine is shared.

    python benchmarks/bench_space.py [--parts submit,http,chromium,visits,render,many]
        [--entries 200] [--many 10000] [--clients 50] [--pages 10] [--repeat 3] [--renders 9]
        [--pad 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from gradio_client import Client  # noqa: E402
from kit.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from kit.net import free_port, stop, wait_for_http  # noqa: E402
from kit.space_server import start_server  # noqa: E402
from respondeoqa_eval import evaluate, load_predictions  # noqa: E402
from respondeoqa_eval.data.gold import read_folder  # noqa: E402
from respondeoqa_eval.predictions.example import example_predictions  # noqa: E402
from respondeoqa_space.readmodel import BOARD_MAX_ROWS  # noqa: E402
from respondeoqa_space.store import (  # noqa: E402
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


def bench_submit(
    gold_dir: Path, gold, work: Path, repeat: int, pad: int, record: bool = False
) -> dict:
    """Upload to board; with `record`, the Space keeps a record on the loopback Hub stand-in
    and answers only once the record's commit holds the entry (issue 26)."""
    env, hub = None, None
    if record:
        from kit.hubstub import RECORD_REPO, TOKEN, HubStub

        hub = HubStub(work / f"hub-{pad}", token=TOKEN).start()
        env = {
            "HF_ENDPOINT": hub.url,
            "HF_HUB_OFFLINE": "0",
            "HF_TOKEN": TOKEN,
            "RESPONDEOQA_SPACE_MIRROR": RECORD_REPO,
            "HF_HUB_CACHE": str(work / f"hf-cache-{pad}"),
        }
    srv = start_server(gold_dir, work / f"submit-{pad}-{record}", env_extra=env)
    try:
        if record:  # writes open once the record has been read
            deadline = time.monotonic() + 60
            while "reading its record" in httpx.get(srv.url + "board", timeout=30).text:
                assert time.monotonic() < deadline, "the record was never read"
                time.sleep(0.2)
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
            board = httpx.get(srv.url + "board", params={"coverage": "all coverages"}, timeout=60)
            times.append(time.perf_counter() - t0)  # until the board a page fetches shows it
            assert out[0].startswith("Stored as entry"), out[0]
            assert f"bench model {r}" in board.text  # the board's HTML, updated
        return {
            "items": len(gold.records),
            "file_mb": round(statistics.mean(sizes) / 1e6, 2),
            "seconds": [round(t, 2) for t in times],
            "median_s": round(statistics.median(times), 2),
            "load": load(),
        }
    finally:
        srv.stop()
        if hub is not None:
            hub.stop()


# -- page load as a browser sends it -------------------------------------------------------


class PageLoad:
    """GET / the way a browser sends it (Accept-Encoding: brotli, gzip): the board is in the
    page (web/board_page.py), which names no other part, so a page load is this one answer."""

    def __init__(self, url: str) -> None:
        self.url = url

    def run(self, http: httpx.Client) -> tuple[bool, int]:
        """(answered, rows in the table); raises nothing for a refusal."""
        page = http.get(self.url, headers={"Accept-Encoding": "br, gzip"})
        if page.status_code != 200:
            return False, 0
        return True, _rows(page.text)


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


# the baseline (a Gradio app with one Markdown) and a floor beside it: floor_apps.py
BASELINE_SELECTOR = "h1"  # its Markdown heading, ROW_TEXT in it
TABLE_CELL = "#leaderboard-table td"  # the Space's board: a cell with ROW_TEXT (a stored entry)


@contextlib.contextmanager
def gradio_app(kind: str) -> Iterator[tuple[str, int]]:
    """A floor_apps.py app (`markdown`: the baseline) in its own process, as the Space runs in
    its own: its URL and process id."""
    port = free_port()
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"}
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "floor_apps.py"), str(port), kind],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_for_http(url, proc, lambda: "(output not kept)")
        yield url, proc.pid
    finally:
        stop(proc)


@contextlib.contextmanager
def static_copy(url: str, folder: Path) -> Iterator[str]:
    """A static copy of the Space's page at `url` (static_copy.py, its own process): the bytes
    the Space sends for each encoding (brotli, gzip, none), served from memory by Python's own
    HTTP server. Its URL."""
    folder.mkdir(parents=True, exist_ok=True)
    for encoding, suffix in (("br", ".br"), ("gzip", ".gz"), ("identity", "")):
        with httpx.stream("GET", url, headers={"Accept-Encoding": encoding}, timeout=60) as resp:
            resp.raise_for_status()
            assert resp.headers.get("content-encoding", "identity") == encoding, resp.headers
            (folder / f"index.html{suffix}").write_bytes(b"".join(resp.iter_raw()))
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "static_copy.py"), str(port), str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    copy = f"http://127.0.0.1:{port}/"
    try:
        wait_for_http(copy, proc, lambda: "(output not kept)")
        yield copy
    finally:
        stop(proc)


def side_by_side(sides: dict[str, str], measure: Any, key: str, repeat: int) -> dict:
    """`measure(url)` on each side in turn, `repeat` rounds, the order alternating each round
    (the machine is shared: a burst of load falls on both); per side its figure `key` of each
    round, their median, and the ratio of each side's median to the floor's (the first side)."""
    names = list(sides)
    per: dict[str, list[float]] = {name: [] for name in names}
    runs: dict[str, list[dict]] = {name: [] for name in names}
    for r in range(repeat):
        for name in names if r % 2 == 0 else names[::-1]:
            got = measure(sides[name])
            runs[name].append(got)
            per[name].append(got[key])
        print(json.dumps({"round": r, key: per, "load": load()}), flush=True)
    med = {name: statistics.median(values) for name, values in per.items()}
    floor = names[0]
    return {
        "rounds": repeat,
        key: per,
        "median": {name: round(m, 3) for name, m in med.items()},
        "ratio": {name: round(m / med[floor], 2) for name, m in med.items() if name != floor},
        "ratio_per_round": [
            round(s / f, 2) for s, f in zip(per[names[1]], per[floor], strict=True)
        ],
        "last_round": {name: values[-1] for name, values in runs.items()},
        "load": load(),
    }


# -- first visits side by side with the baseline -------------------------------------------

# what Debian's chromium sends for a page and its parts (the encodings are what matter)
BROWSER_HEADERS = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/140.0.0.0 Safari/537.36",
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Encoding": "gzip, deflate, br, zstd",
    "Accept-Language": "en-US,en;q=0.9",
}


def visitor_cookies(visitor: int, round_: int) -> dict[str, str]:
    """A visitor's own cookies, different for each (analytics, a theme pick, the Hub's)."""
    return {
        "_ga": f"GA1.1.{1_000_000 + visitor}.{1_700_000_000 + round_}",
        "_gid": f"GA1.1.{visitor * 7919 % 100_003}",
        "theme": "dark" if visitor % 2 else "light",
        "spaces-session": f"s{round_:03d}{visitor:05d}",
    }


TAG = re.compile(r"<(script|link)\b([^>]*)>", re.IGNORECASE)
ATTR = re.compile(r'([\w-]+)\s*=\s*"([^"]*)"')


def page_refs(html_text: str) -> list[str]:
    """The scripts and stylesheets a page references (src / href), in order. A regular
    expression, not an HTML parser: Python's own takes 0.2 s over the 290 KB board page, which
    fifty visitors in one client process would wait for in turn (a browser's parser does it in
    a few milliseconds)."""
    refs = []
    for tag, attrs in TAG.findall(html_text):
        a = dict(ATTR.findall(attrs))
        if tag.lower() == "script" and a.get("src"):
            refs.append(a["src"])
        elif tag.lower() == "link" and a.get("rel") in ("stylesheet", "modulepreload"):
            refs.append(a.get("href", ""))
    return [r for r in refs if r]


@dataclass
class Visit:
    seconds: float
    wire_bytes: int  # as sent (compressed where the server compressed)
    page_bytes: int  # the page's HTML as sent
    requests: int


async def first_visit(http: httpx.AsyncClient, url: str, board_rows: int | None) -> Visit:
    """One visitor's first visit: the page, then its scripts and stylesheets at once (as a
    browser fetches them; the Space's page names none: the board, its scripts and stylesheet
    are in it, web/board_page.py), whose board must have `board_rows` rows when given. Raises
    on any non-200 answer."""
    t0 = time.perf_counter()
    page = await http.get(url)
    page.raise_for_status()
    urls = [urljoin(url, r) for r in page_refs(page.text)]
    parts = list(await asyncio.gather(*(http.get(u) for u in urls)))
    took = time.perf_counter() - t0
    for resp in parts:
        resp.raise_for_status()
    if board_rows is not None and _rows(page.text) < board_rows:
        raise AssertionError(f"the board had {_rows(page.text)} rows, not {board_rows}")
    wire = [r.num_bytes_downloaded for r in (page, *parts)]
    return Visit(took, sum(wire), wire[0], 1 + len(parts))


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def visits_round(url: str, clients: int, round_: int, board_rows: int | None) -> list[Visit]:
    """`clients` first visits started at once, each visitor with its own client (a cookie
    jar and connections of its own), made before the clock starts."""

    async def main() -> list[Visit]:
        visitors = [
            httpx.AsyncClient(
                headers=BROWSER_HEADERS, cookies=visitor_cookies(i, round_), timeout=120
            )
            for i in range(clients)
        ]
        try:
            return await asyncio.gather(*(first_visit(v, url, board_rows) for v in visitors))
        finally:
            for v in visitors:
                await v.aclose()

    return asyncio.run(main())


def bench_visits(
    space: tuple[str, int], baseline: tuple[str, int], clients: int, repeat: int, rows: int
) -> dict:
    """Rounds of `clients` first visits at once, alternating the baseline and the Space (each
    given as URL and server process id; the Space's board must show `rows` rows): p95 per round,
    and each server's CPU time per visit (what the cores spent answering, apart from the
    client's own cost)."""
    sides = {"baseline": (*baseline, None), "space": (*space, rows)}
    for url, _, want in sides.values():  # each server has answered a page before the visitors
        visits_round(url, 1, -1, want)
    p95: dict[str, list[float]] = {side: [] for side in sides}
    p50: dict[str, list[float]] = {side: [] for side in sides}
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    weight: dict[str, dict[str, float]] = {}
    for r in range(repeat):
        for side, (url, pid, want) in sides.items():
            cpu0 = cpu_seconds(pid)
            got = visits_round(url, clients, r, want)
            cpu[side].append(round((cpu_seconds(pid) - cpu0) / clients * 1e3, 2))
            times = [v.seconds for v in got]
            p95[side].append(round(pct(times, 0.95), 3))
            p50[side].append(round(statistics.median(times), 3))
            weight[side] = {
                "requests": got[0].requests,
                "page_kb": round(got[0].page_bytes / 1e3, 1),
                "visit_kb": round(got[0].wire_bytes / 1e3, 1),
            }
        print(json.dumps({"visits_round": r, "p95": p95, "load": load()}), flush=True)
    med = {side: statistics.median(values) for side, values in p95.items()}
    med_cpu = {side: statistics.median(values) for side, values in cpu.items()}
    return {
        "clients": clients,
        "p95_s": p95,
        "p50_s": p50,
        "server_cpu_ms_per_visit": cpu,
        "weight": weight,
        "median_p95_s": {side: round(m, 3) for side, m in med.items()},
        "ratio_p95": round(med["space"] / med["baseline"], 2),
        "ratio_per_round": [
            round(s / b, 2) for s, b in zip(p95["space"], p95["baseline"], strict=True)
        ],
        "ratio_server_cpu": round(med_cpu["space"] / med_cpu["baseline"], 2),
        "load": load(),
    }


SHOWN_JS = (Path(__file__).parent / "shown.js").read_text(encoding="utf-8")


def bench_render(sides: dict[str, tuple[str, str, str]], renders: int) -> dict:
    """Chromium, one page at a time, in turn on each side (name: URL, selector, text; "baseline"
    among them), each load in a new context (a first visit): seconds from navigation start to
    the first frame that shows an element matching the side's selector with its text in it
    (shown.js, in the page: playwright's own waiting polls at 20, 50, 100, 100, then 500 ms
    intervals, coarser than the differences). One load of each first, not counted (the
    browser's own start). Medians, and each side's ratio to the baseline's."""
    from playwright.async_api import async_playwright

    async def main() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {side: [] for side in sides}
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for n in range(renders + 1):
                for side, (url, selector, text) in sides.items():
                    context = await browser.new_context()
                    page = await context.new_page()
                    watch = f"({SHOWN_JS})({json.dumps(selector)}, {json.dumps(text)})"
                    await page.add_init_script(watch)
                    await page.goto(url)
                    await page.wait_for_function(
                        "() => window.__shown !== undefined", polling="raf", timeout=120_000
                    )
                    if n:
                        shown = await page.evaluate("window.__shown")
                        times[side].append(round(shown / 1000, 3))
                    await context.close()
            await browser.close()
        return times

    times = asyncio.run(main())
    med = {side: statistics.median(values) for side, values in times.items()}
    return {
        "renders": renders,
        "seconds": {side: sorted(values) for side, values in times.items()},
        "median_s": {side: round(m, 3) for side, m in med.items()},
        "ratio": {side: round(m / med["baseline"], 2) for side, m in med.items()},
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
        if "chromium" in parts:
            out["chromium_one"] = chromium_pages(srv.url, 1)
            print(json.dumps(out), flush=True)
        if parts & {"http", "chromium"} and entries == args.entries:
            # side by side with a static copy of the same bytes, in alternating rounds
            with static_copy(srv.url, folder / "static-copy") as copy:
                sides = {"static_copy": copy, "space": srv.url}
                if "http" in parts:
                    out["http"] = side_by_side(
                        sides,
                        lambda url: concurrent_loads(url, args.clients, expect),
                        "p50_s",
                        args.repeat,
                    )
                    print(json.dumps(out), flush=True)
                if "chromium" in parts:
                    out["chromium"] = side_by_side(
                        sides,
                        lambda url: chromium_pages(url, args.pages),
                        "median_s",
                        args.repeat,
                    )
                    print(json.dumps(out), flush=True)
        if parts & {"visits", "render"} and entries == args.entries:
            with gradio_app("markdown") as (baseline, baseline_pid):
                if "visits" in parts:
                    out["visits"] = bench_visits(
                        (srv.url, srv.proc.pid),
                        (baseline, baseline_pid),
                        args.clients,
                        args.repeat,
                        expect,
                    )
                    print(json.dumps(out), flush=True)
                if "render" in parts:
                    with gradio_app("html") as (one_html, _):
                        sides = {
                            "baseline": (baseline, BASELINE_SELECTOR, ROW_TEXT),
                            "space": (srv.url, TABLE_CELL, ROW_TEXT),
                            "one_html": (one_html, TABLE_CELL, ROW_TEXT),
                        }
                        out["render"] = bench_render(sides, args.renders)
                    print(json.dumps(out), flush=True)
        return out
    finally:
        srv.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="submit,http,chromium,visits,render,many")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--many", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--renders", type=int, default=9, help="chromium loads of each (render)")
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
            results["submit_with_record"] = bench_submit(
                gold_dir, gold, work, args.repeat, 0, record=True
            )
            print(json.dumps(results), flush=True)
            if args.pad:
                results["submit_long_responses"] = bench_submit(
                    gold_dir, gold, work, args.repeat, args.pad
                )
                print(json.dumps(results), flush=True)
        if parts & {"http", "chromium", "visits", "render"} and args.entries:
            results["board"] = bench_board(gold_dir, gold, work, args.entries, args, parts)
        if "many" in parts:
            results["many"] = bench_board(gold_dir, gold, work, args.many, args, parts)
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
