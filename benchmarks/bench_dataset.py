"""Benchmark: time to build every public config (`respondeoqa-eval dataset build`).

Usage: python benchmarks/bench_dataset.py [--data-dir DIR] [--repeat N]
Default data: $RESPONDEOQA_DATA_DIR, else ../shared/upstream/final_dataset if present, else the
pinned public download. Each run builds from scratch (fresh builder cache, fresh output folder).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from respondeoqa_eval.dataset.export import build_folder

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "upstream" / "final_dataset"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=os.environ.get("RESPONDEOQA_DATA_DIR"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data_dir = args.data_dir or (str(SHARED) if SHARED.is_dir() else None)
    times = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            result = build_folder(Path(tmp) / "respondeoqa", data_dir=data_dir)
            times.append(time.perf_counter() - start)
    rows = sum(result.config_rows.values())
    print(
        f"dataset build, {len(result.config_rows)} public configs ({rows} rows written, "
        f"{result.config_rows['public']} items): median {statistics.median(times):.2f} s, "
        f"best {min(times):.2f} s over {args.repeat} runs"
    )


if __name__ == "__main__":
    main()
