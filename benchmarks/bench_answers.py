"""The answers page at the board's full size, and scores without disputed items (issue 42).

Gold: the six public files plus synthetic Certamen/NLE stand-ins at the paper's sizes (7,829
items). Boards of `--few` and `--many` full-size entries (bench_space.populate: a few distinct
scored submissions, the rest SQL copies of their rows, predictions kept). Timed, in process,
each on both boards:

- a first request for six entries (their answer sheets read from the store and scored: the
  public items' raw responses, paper and lenient answers);
- then one request per item of the walk with the same six (`--walk` steps), the sheets kept:
  what a reader stepping through the items waits for;

the ratio of the per-step medians, many over few entries, is the page's cost of the board's
size (target: about 1). A request without entries (the board's best six on the item's source:
their sheets, and a sort of the board made once per data version) is timed apart. The page
never waits for the item analysis but on the flagged walk (it shows flags once the Items page
has made the analysis of the data version); `--analysis` times making it, apart.

And `report.rescore_without` (every number without about 2% of the items, the flags of a
board's item analysis are fewer) against `evaluate()` of the same predictions, on a full-size
report: the ratio of the medians.

    python benchmarks/bench_answers.py [--few 10] [--many 10000] [--walk 50] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_space import SIZES, populate  # noqa: E402
from respondeoqa_eval import evaluate  # noqa: E402
from respondeoqa_eval.data.gold import read_folder  # noqa: E402
from respondeoqa_eval.predictions.example import example_predictions  # noqa: E402
from respondeoqa_eval.report import rescore_without  # noqa: E402
from respondeoqa_space.service import Space, SpaceConfig  # noqa: E402
from respondeoqa_space.web.answers_page import AnswersPage  # noqa: E402
from respondeoqa_space.web.app import MONO, SANS, static  # noqa: E402
from respondeoqa_space.web.board_page import font_stack  # noqa: E402
from synthetic import write_private  # noqa: E402


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def board(work: Path, gold, entries: int, steps: int, analyse: bool) -> dict[str, float]:
    db = work / f"board-{entries}.sqlite3"
    populate(db, gold, entries)
    space = Space(SpaceConfig(db=db, gold=gold, bootstrap=200))
    page = AnswersPage(
        space, static=static, sans=font_stack(SANS), mono=font_stack(MONO), api_href="info"
    )
    space.snapshot()  # made at start-up by the server (web/app.py: launch), before it listens
    analysis = timed(space.item_analysis) if analyse else float("nan")
    chosen = ",".join(f"e:{i}" for i in range(1, 7))
    first = timed(lambda: page.view({"entries": chosen}))
    steps_taken, item = [], None
    for _ in range(steps):
        query = {"entries": chosen} | ({"item": item} if item else {})
        t0 = time.perf_counter()
        view = page.view(query)
        steps_taken.append(time.perf_counter() - t0)
        item = view.next
    default = timed(lambda: page.view({}))  # the board's best six: sorted once per version
    return {
        "analysis": analysis,
        "first": first,
        "step": statistics.median(steps_taken),
        "default": default,
    }


def exclusion(gold, repeat: int) -> dict[str, float]:
    rows = example_predictions(gold.records, accuracy=0.6, seed=3)
    report = evaluate(rows, gold)  # warms what a process keeps
    flagged = [r.id for r in gold.records if r.task != "translation"][::50]
    scored = [timed(lambda: evaluate(rows, gold)) for _ in range(repeat)]
    again = [timed(lambda: rescore_without(report, flagged, gold)) for _ in range(repeat)]
    return {
        "evaluate": statistics.median(scored),
        "rescore_without": statistics.median(again),
        "excluded": len(flagged),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--few", type=int, default=10)
    parser.add_argument("--many", type=int, default=10_000)
    parser.add_argument("--walk", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--analysis", action="store_true", help="also time the item analysis")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold_dir = write_private(Path(tmp) / "gold", with_public=True, **SIZES)
        gold = read_folder(gold_dir)
        ex = exclusion(gold, args.repeat)
        print(
            f"rescore_without ({ex['excluded']} items out): {ex['rescore_without']:.3f} s, "
            f"evaluate(): {ex['evaluate']:.3f} s, ratio "
            f"{ex['rescore_without'] / ex['evaluate']:.2f}x"
        )
        few = board(Path(tmp), gold, args.few, args.walk, args.analysis)
        many = board(Path(tmp), gold, args.many, args.walk, args.analysis)
        for name, got in ((args.few, few), (args.many, many)):
            print(
                f"{name:>6} entries: first request (6 sheets) {got['first']:.3f} s, step "
                f"{got['step'] * 1000:.1f} ms, without entries {got['default']:.3f} s"
                + (f", item analysis {got['analysis']:.2f} s" if args.analysis else "")
            )
        print(f"step ratio, {args.many} over {args.few} entries: {many['step'] / few['step']:.2f}x")


if __name__ == "__main__":
    main()
