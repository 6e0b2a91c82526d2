"""The figures of docs/leaderboard-safety.md, "The bound", computed with the Space's own code
(`privacy.release_bits`): what one stored entry's released values can say about the private
answers, with and without the switch "without suspected gold errors".

Gold: the six public files plus synthetic Certamen/NLE stand-ins at the paper's sizes (as
bench_store.py); k = 10 and the daily quota of 5 stored entries (the defaults) unless given.

    python benchmarks/release_bound.py [--k 10] [--daily 5]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from respondeoqa_eval.data.gold import read_folder  # noqa: E402
from respondeoqa_space import privacy  # noqa: E402
from synthetic import write_private  # noqa: E402

SIZES = {"n_mc": 315, "n_sa": 4596, "n_tr": 916, "n_nle": 190, "max_refs": 12}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--daily", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        records = read_folder(write_private(Path(folder), with_public=True, **SIZES)).records
    private = [r for r in records if r.is_private]
    translation = [r for r in private if r.task == "translation"]
    alone = privacy.release_bits(records, args.k)
    bleu = privacy.release_bits(translation, args.k)
    switched = privacy.release_bits(records, args.k, switched=True)
    print(f"private items: {len(private)} ({len(private) - len(translation)} with a score)")
    print(f"N per stored entry, the paper's numbers: {alone:.1f} bits")
    print(f"  of which from accuracy: {alone - bleu:.1f} bits; from translation: {bleu:.1f} bits")
    print(f"N per stored entry and flagged set, with the switch: {switched:.1f} bits")
    label = switched - 2 * (alone - bleu) - bleu
    print(f"  of which the label's count of flagged private items: {label:.1f} bits")
    print(f"  per account per day ({args.daily} entries): {args.daily * switched:,.0f} bits")


if __name__ == "__main__":
    main()
