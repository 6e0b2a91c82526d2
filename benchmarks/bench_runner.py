"""Generation throughput of the local runner on a tiny random model: batch size 1 vs the default.

    python benchmarks/bench_runner.py [--items 64] [--max-new-tokens 32] [--json OUT]

Builds the test suite's tiny Llama (no download), answers the first `--items` public items with
the paper's prompts and sampling, and reports items/s and generated tokens/s per batch size.
The tiny model makes this a measure of the runner's own overhead and of batching, not of a
real model's speed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.runner.tiny_model

from respondeoqa_eval.runner.hf import DEFAULT_BATCH_SIZE, HFSettings, load_model, run_hf  # noqa: E402
from respondeoqa_eval.runner.output import PredictionWriter  # noqa: E402
from respondeoqa_eval.runner.prompts import PROMPT_VERSION  # noqa: E402
from respondeoqa_eval.runner.selection import select_items  # noqa: E402

from tests.runner.tiny_model import build_tiny_model  # noqa: E402
from tests.synthetic import PUBLIC_DIR  # noqa: E402


def bench(
    model_dir: Path, records, batch_size: int, max_new_tokens: int, tmp: Path, repeats: int
) -> dict:
    """Median over `repeats` timed runs, after an untimed warm-up run."""
    settings = HFSettings(
        model=str(model_dir), batch_size=batch_size, max_new_tokens=max_new_tokens, device="cpu"
    )
    loaded = load_model(settings)
    tokenizer = loaded[1]
    times = []
    for i in range(repeats + 1):
        out = tmp / f"bench{batch_size}-{i}.jsonl"
        with PredictionWriter(
            out, model=settings.model, prompt_version=PROMPT_VERSION, overwrite=True
        ) as writer:
            start = time.perf_counter()
            run_hf(records, writer, settings, loaded=loaded)
            if i:  # run 0 warms up (kernels, allocator, caches)
                times.append(time.perf_counter() - start)
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    tokens = sum(len(tokenizer(r["response"], add_special_tokens=False)["input_ids"]) for r in rows)
    seconds = statistics.median(times)
    return {
        "batch_size": batch_size,
        "items": len(rows),
        "seconds": round(seconds, 3),
        "items_per_s": round(len(rows) / seconds, 2),
        "new_tokens_per_s": round(tokens / seconds, 1),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=64)
    ap.add_argument("--max-new-tokens", type=int, default=32)
    ap.add_argument("--batch-sizes", default=f"1,{DEFAULT_BATCH_SIZE}")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per batch size (median)")
    ap.add_argument("--data-dir", default=str(PUBLIC_DIR))
    ap.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    args = ap.parse_args()
    import torch

    records = select_items("public", args.data_dir, limit=args.items)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        model_dir = build_tiny_model(tmp / "tiny")
        results = [
            bench(model_dir, records, int(b), args.max_new_tokens, tmp, args.repeats)
            for b in args.batch_sizes.split(",")
        ]
    print(
        f"tiny Llama (2 layers, hidden 32), {args.items} public items, "
        f"max {args.max_new_tokens} new tokens, CPU, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads, median of {args.repeats} runs"
    )
    print(f"{'batch':>5} {'items':>5} {'seconds':>8} {'items/s':>8} {'tokens/s':>9}")
    for r in results:
        print(
            f"{r['batch_size']:>5} {r['items']:>5} {r['seconds']:>8} {r['items_per_s']:>8} "
            f"{r['new_tokens_per_s']:>9}"
        )
    base = results[0]["items_per_s"]
    for r in results[1:]:
        print(
            f"batch {r['batch_size']} vs {results[0]['batch_size']}: "
            f"{r['items_per_s'] / base:.1f}x items/s"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
