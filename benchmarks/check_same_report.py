"""Check that `respondeoqa-eval score` writes the same report as an earlier version (issue 31:
"the numbers identical").

Runs the score command of this checkout and of the package in `--before DIR` (e.g. main's
`evaluator/` from `git archive main evaluator | tar -x -C OLD`) on the same files and compares
the parsed report JSON, every number to the last bit, and lists every difference (a field's
path, the earlier value, this checkout's). Each command gets a cache folder of the run's own (an
earlier version may keep files there; this one keeps none). Cases: the benchmark's
full-size file (`bench_score.py`), the public files alone with example predictions at 0%, 60% and
100%, a small synthetic Certamen/NLE folder, lenient-rule response variants
(`tests/lenient_variants.py`), `--covered-only` and `--predicted-only` on half a file, and
other bootstrap settings.

    python benchmarks/check_same_report.py --before OLD/evaluator
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_score import SIZES
from lenient_variants import variants
from respondeoqa_eval.data.gold import read_folder
from respondeoqa_eval.predictions.example import example_predictions
from synthetic import public_dir, write_private

ROOT = Path(__file__).resolve().parents[1]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


def _cases(tmp: Path) -> list[tuple[str, Path, Path, list[str]]]:
    """(name, gold folder, predictions file, extra options)."""
    full = write_private(tmp / "full", with_public=True, **SIZES)
    small = write_private(tmp / "small", n_mc=12, n_sa=20, n_tr=9, n_nle=8)
    public = tmp / "public"
    public.mkdir()
    for path in public_dir().glob("*.json"):
        (public / path.name).write_bytes(path.read_bytes())
    cases = []
    records = read_folder(full).records
    rows = example_predictions(records, accuracy=0.6, seed=1)
    cases.append(("full-size", full, _write(tmp / "full.jsonl", rows), []))
    half = _write(tmp / "half.jsonl", rows[::2])
    cases.append(("full-size, --covered-only", full, half, ["--covered-only"]))
    cases.append(("full-size, --predicted-only", full, half, ["--predicted-only"]))
    cases.append(
        ("full-size, 200 resamples, seed 7", full, half, ["--bootstrap", "200", "--seed", "7"])
    )
    public_records = read_folder(public).records
    for accuracy in (0.0, 0.6, 1.0):
        rows = example_predictions(public_records, accuracy=accuracy, seed=3)
        path = _write(tmp / f"public{accuracy}.jsonl", rows)
        cases.append((f"public files, {accuracy:.0%} right", public, path, []))
    rows = example_predictions(read_folder(small).records, accuracy=0.5, seed=2)
    cases.append(("small synthetic folder", small, _write(tmp / "small.jsonl", rows), []))
    ids = {r.id for r in public_records}
    seen: set[str] = set()
    rows = []
    for v in variants(public_records):
        if v.record.id in ids and v.record.id not in seen:
            seen.add(v.record.id)
            rows.append({"id": v.record.id, "response": v.text})
    cases.append(("lenient-rule variants", public, _write(tmp / "lenient.jsonl", rows), []))
    return cases


def _report(package: Path, gold: Path, preds: Path, options: list[str], cache: Path) -> dict:
    out = cache.with_suffix(".json")
    env = {**os.environ, "PYTHONPATH": str(package), "RESPONDEOQA_CACHE": str(cache)}
    argv = [sys.executable, "-m", "respondeoqa_eval.cli", "score", str(preds), "--data-dir"]
    argv += [str(gold), "--report", str(out), "-q", *options]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(f"{package}: {' '.join(argv[3:])} failed: {done.stderr[-2000:]}")
    return json.loads(out.read_text(encoding="utf-8"))


def _differences(a: object, b: object, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        keys = list(a) + [k for k in b if k not in a]
        return [d for k in keys for d in _differences(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _differences(x, y, f"{where}[{i}]")
        ]
    return [] if a == b and type(a) is type(b) else [f"{where}: {a!r} != {b!r}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, metavar="DIR", help="an earlier evaluator/")
    parser.add_argument("--only", default="", metavar="TEXT", help="the cases named with TEXT")
    args = parser.parse_args()
    before, after = Path(args.before).resolve(), ROOT / "evaluator"
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RESPONDEOQA_CACHE"] = str(Path(tmp) / "cache")  # this process's reads
        for i, (name, gold, preds, options) in enumerate(_cases(Path(tmp))):
            if args.only not in name:
                continue
            old = _report(before, gold, preds, options, Path(tmp) / f"before{i}")
            new = _report(after, gold, preds, options, Path(tmp) / f"after{i}")
            diff = _differences(old, new)
            failed += bool(diff)
            status = "same" if not diff else f"{len(diff)} differences:"
            print(f"{name} ({len(old['items'])} items): {status}", *diff, sep="\n  ")
    if failed:
        sys.exit(f"{failed} reports differ")
    print("every report the same")


if __name__ == "__main__":
    main()
