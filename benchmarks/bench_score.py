"""Time the scorer on a full-size synthetic submission (about 7,800 items).

Gold: the six public files plus synthetic stand-ins for Certamen and NLE at the paper's sizes
(tests/synthetic.py). Predictions: raw responses (`respondeoqa_eval.example`), so extraction runs
too. Timed: reading the predictions file, extraction, per-item scores, every breakdown with
1000-resample bootstrap intervals, and BLEU / variable-reference BLEU / chrF with intervals.

The first timed run fills what a process keeps between evaluations (each item's prepared
references and their character n-grams, the bootstrap's resample matrices: the Space warms
them at start); the median is over the runs after it.

    python benchmarks/bench_score.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from respondeoqa_eval import evaluate, load_predictions
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.predictions.example import example_predictions
from synthetic import write_private

# the paper's sizes: Certamen 315 MC + 4596 short answer + 916 translation; NLE about 855
SIZES = {"n_mc": 315, "n_sa": 4596, "n_tr": 916, "n_nle": 190, "max_refs": 12}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold = read_folder(write_private(Path(tmp) / "gold", with_public=True, **SIZES))
        preds_path = Path(tmp) / "preds.jsonl"
        rows = example_predictions(gold.records, accuracy=0.6, seed=1)
        preds_path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        totals, parse = [], []
        for _ in range(args.repeat + 1):
            t0 = time.perf_counter()
            preds = load_predictions(preds_path, gold)
            t1 = time.perf_counter()
            report = evaluate(preds, gold, bootstrap=1000)
            t2 = time.perf_counter()
            parse.append(t1 - t0)
            totals.append(t2 - t0)
    data = report.to_dict()
    print(
        f"items: {len(gold)} ({data['accuracy']['overall']['n']} accuracy, "
        f"{len(gold) - data['accuracy']['overall']['n']} translation)"
    )
    first, totals, parse = totals[0], totals[1:], parse[1:]
    print(f"read predictions: median {statistics.median(parse):.3f} s")
    print(
        f"read + score + report (1000 bootstrap resamples, BLEU, chrF): "
        f"median {statistics.median(totals):.3f} s, min {min(totals):.3f} s over {args.repeat} runs"
        f"; the process's first run, which prepares the kept references and resamples: {first:.3f} s"
    )
    print("load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
