"""Measure each lenient rule's precision on realistic variants of correct-format responses.

The variants are built at run time from the public items (tests/lenient_variants.py: the gold
loader's files, multiple-choice items made from their short answers); each has an intended
answer. Per rule: how many format failures it read, and the share of those that are the
intended answer. docs/format-compliance.md's rules table states these figures; a rule is kept
only at 95% or more (tests/test_format_compliance.py pins it).

    python benchmarks/bench_lenient.py [--seed 29] [--kinds]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from lenient_variants import SEED, measure, shipped_records, variants
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.scoring.lenient import RULES
from synthetic import public_dir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--kinds", action="store_true", help="also list each variant kind")
    args = parser.parse_args()
    cases = variants(shipped_records(read_folder(public_dir()).records), args.seed)
    figures = measure(cases)
    print(f"{len(cases)} variants (seed {args.seed})")
    print(f"{'rule':<24} {'read':>6} {'intended':>9} {'precision':>10}")
    for _, names in RULES.values():
        for name in names:
            f = figures.get(name)
            if f is None:
                print(f"{name:<24} {0:>6}")
                continue
            print(f"{name:<24} {f.read:>6} {f.intended:>9} {f.precision:>9.1%}")
    if args.kinds:
        print("\nper variant kind: rule read/intended")
        kinds = sorted({(v.record.task, v.kind) for v in cases})
        for task, kind in kinds:
            some = [v for v in cases if (v.record.task, v.kind) == (task, kind)]
            got = measure(some)
            shown = ", ".join(f"{f.rule} {f.intended}/{f.read}" for f in got.values())
            print(f"  {task:<16} {kind:<26} {len(some):>5}  {shown or 'paper kept or none'}")


if __name__ == "__main__":
    main()
