"""The cost of the board's switch "without suspected gold errors" (space/respondeoqa_space/without.py):
full-size entries (every upstream item) scored again without three flagged items, as the
Space's background process does it (`rescore_entries`: kept predictions scored again without
intervals, then `rescore_without` with the entry's own bootstrap).

    python benchmarks/bench_without.py [--entries 5] [--data /path/to/final_dataset]

Prints the seconds per entry; docs/performance-scale.md states the figure of one run.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.predictions import example_predictions
from respondeoqa_space.config import Limits
from respondeoqa_space.service import Space, SpaceConfig
from respondeoqa_space.without import rescore_entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=5)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/upstream/final_dataset"))
    args = parser.parse_args()
    gold = read_folder(args.data)
    tmp = Path(tempfile.mkdtemp(prefix="bench-without-"))
    limits = Limits(submissions_per_day=10_000, attempts_per_day=10_000)
    space = Space(SpaceConfig(db=tmp / "lb.sqlite3", gold=gold, limits=limits))
    ids = []
    for seed in range(args.entries):
        rows = example_predictions(list(gold.records), accuracy=0.6, seed=seed)
        path = tmp / f"p{seed}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        out = space.submit(path, f"model-{seed}", client=f"client-{seed}")
        assert out.ok, out.message
        ids.append(out.entry.id)
    flagged = [r.id for r in gold.records if r.task == "short_answer"][:3]
    started = time.perf_counter()
    rescore_entries(str(space.store.path), ids, flagged, gold)
    took = time.perf_counter() - started
    print(
        f"{len(ids)} full-size entries ({len(gold)} items, bootstrap {space.config.bootstrap}) "
        f"scored again without {len(flagged)} items: {took:.2f} s, {took / len(ids):.2f} s per "
        "entry"
    )


if __name__ == "__main__":
    main()
