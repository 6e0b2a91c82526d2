"""Database size per full-size leaderboard entry (issue 10 target: under 60 KB).

Gold: the six public files plus synthetic Certamen/NLE stand-ins at the paper's sizes (7,829
items). Each entry is a different example submission (raw responses for every item), scored and
stored the way the Space stores it: report, per-item results, and the kept predictions. The file
is VACUUMed before it is measured; the shared item catalogue is counted in the total.

    python benchmarks/bench_store.py [--entries 20] [--pad 0]
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from respondeoqa_eval import evaluate, load_predictions  # noqa: E402
from respondeoqa_eval.data.gold import read_folder  # noqa: E402
from respondeoqa_eval.predictions.example import example_predictions  # noqa: E402
from respondeoqa_space.store import (  # noqa: E402
    Store,
    Submission,
    prediction_rows,
    sha256_bytes,
)
from synthetic import write_private  # noqa: E402

SIZES = {"n_mc": 315, "n_sa": 4596, "n_tr": 916, "n_nle": 190, "max_refs": 12}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20)
    parser.add_argument("--pad", type=int, default=0, help="characters of reasoning per response")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold_dir = write_private(Path(tmp) / "gold", with_public=True, **SIZES)
        gold = read_folder(gold_dir)
        db = Path(tmp) / "lb.sqlite3"
        store = Store(db)
        for i in range(args.entries):
            rows = example_predictions(gold.records, accuracy=0.4 + 0.02 * i, seed=i)
            if args.pad:
                for row in rows:
                    row["response"] = "Reasoning. " * (args.pad // 11) + "\n" + row["response"]
            preds = load_predictions(rows, gold)
            report = evaluate(preds, gold, restrict_to_covered=True, bootstrap=200)
            store.add(
                Submission(
                    f"model {i}",
                    sha256_bytes(f"{i}".encode()),
                    rows=tuple(prediction_rows(preds)),
                ),
                report,
            )
        with sqlite3.connect(db) as con:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            con.execute("VACUUM")
        size = db.stat().st_size
        print(
            f"{args.entries} full-size entries ({len(gold)} items each, responses padded by "
            f"{args.pad} chars): {size / 1e3:.0f} KB, {size / args.entries / 1e3:.1f} KB per entry"
        )


if __name__ == "__main__":
    main()
