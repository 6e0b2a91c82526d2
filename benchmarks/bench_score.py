"""Time the scorer on a full-size synthetic submission (about 7,800 items).

Gold: the six public files plus synthetic stand-ins for Certamen and NLE at the paper's sizes
(tests/synthetic.py). Predictions: raw responses (`respondeoqa_eval.example`), so extraction runs
too. Timed: reading the predictions file, extraction, per-item scores, every breakdown with
1000-resample bootstrap intervals, and BLEU / variable-reference BLEU / chrF with intervals.

The first timed run fills what a process keeps between evaluations in memory (each group's
references as sacreBLEU reads them, the bootstrap's resample matrices: the Space warms them at
start); the median is over the runs after it.

With `--cli`, the whole command instead, as a user runs it (issue 31): `respondeoqa-eval score
PREDS --data-dir GOLD --report OUT.json` in a process of its own (interpreter start, imports,
the report written), side by side with `naive_scorer.py`, a single-pass scorer of the paper's
rules without intervals, on the same files, and the naive scorer with `--same-numbers` (the
report's variable-reference BLEU and chrF too, by sacreBLEU's corpus scores): they alternate
(each round in the other order), and each process's wall time and peak RSS (`wait4`) are taken.
All run from compiled bytecode (a private `PYTHONPYCACHEPREFIX`, filled by one untimed run of
each), as an installed package.
With `--before`, also the earlier version's `score` in the same rounds, with a cache folder of
the run's own that the untimed run fills (a version before issue 38 kept the checked gold, the
references' n-grams and the resample matrices there between processes) and with nothing kept
(a cache folder it cannot write).
`--instructions` also counts each command's instructions once under valgrind's callgrind (user
space, from the same bytecode): a figure the machine's load does not change, beside the
wall-clock ratio.

    python benchmarks/bench_score.py [--repeat 5]
    python benchmarks/bench_score.py --cli [--repeat 9] [--before OLD/evaluator] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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


NAIVE = Path(__file__).with_name("naive_scorer.py")


# Runs one command and prints its wall seconds, peak RSS (KB) and exit status. A process of
# its own, so that the measured process is forked from a small one: Linux carries the RSS a
# process had before `exec` into its peak (`ru_maxrss`), and this benchmark's is large.
_LAUNCHER = """
import os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
cpu = usage.ru_utime + usage.ru_stime
print(wall, cpu, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one process; a failure stops the run."""
    launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, *argv]
    done = subprocess.run(launcher, env=env, capture_output=True, text=True, check=False)
    fields = done.stdout.split()
    if done.returncode or len(fields) != 4 or fields[3] != "0":
        sys.exit(f"{argv[:4]} failed: {done.stdout[-500:]} {done.stderr[-2000:]}")
    return float(fields[0]), float(fields[1]), int(fields[2]) / 1024  # ru_maxrss: KB


def _instructions(argv: list[str], env: dict[str, str]) -> int:
    """Instructions one process executes (callgrind's "Collected"); a failure stops the run."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    found = [line for line in done.stderr.splitlines() if "Collected :" in line]
    if done.returncode or not found:
        sys.exit(f"valgrind {argv[:4]} failed: {done.stderr[-2000:]}")
    return int(found[-1].split()[-1])


def side_by_side(
    tmp: Path,
    gold_dir: Path,
    preds: Path,
    repeat: int,
    before: str | None,
    instructions: bool = False,
) -> None:
    """`respondeoqa-eval score` against the naive scorer, alternating (module docstring)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    # a cache folder of the run's own (where an earlier version kept files; this one keeps none)
    env["RESPONDEOQA_CACHE"] = str(tmp / "cache")
    score = [sys.executable, "-m", "respondeoqa_eval.cli", "score", str(preds)]
    score += ["--data-dir", str(gold_dir), "--report", str(tmp / "report.json"), "-q"]
    commands = {
        "score": (score, env),
        "naive": (
            [sys.executable, str(NAIVE), str(gold_dir), str(preds), str(tmp / "naive.json")],
            env,
        ),
        # the naive scorer computing the same BLEU and chrF numbers as the report, by sacreBLEU
        "naive, same numbers": (
            [sys.executable, str(NAIVE), str(gold_dir), str(preds), str(tmp / "same.json")]
            + ["--same-numbers"],
            env,
        ),
    }
    if before:  # the same command from an earlier version's source folder
        commands["before"] = (score, {**env, "PYTHONPATH": str(Path(before).resolve())})
        empty = tmp / "no-cache"
        empty.write_text("not a folder: nothing is kept")
        commands["before, nothing kept"] = (
            score,
            {**commands["before"][1], "RESPONDEOQA_CACHE": str(empty)},
        )
    for argv, run_env in commands.values():
        _run(argv, run_env)  # compiles the bytecode
    taken: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    loads = [os.getloadavg()[0]]
    for r in range(repeat):
        for name in list(commands)[:: 1 if r % 2 == 0 else -1]:
            taken[name].append(_run(*commands[name]))
        loads.append(os.getloadavg()[0])

    def median(name: str, i: int) -> float:
        return statistics.median(t[i] for t in taken[name])

    for name in commands:
        walls = [t[0] for t in taken[name]]
        print(
            f"{name}: wall median {median(name, 0):.3f} s (min {min(walls):.3f}, max "
            f"{max(walls):.3f}), CPU median {median(name, 1):.3f} s, peak RSS median "
            f"{median(name, 2):.1f} MB"
        )
    for name in [n for n in commands if n != "naive"]:
        ratios = [a[0] / b[0] for a, b in zip(taken[name], taken["naive"], strict=True)]
        print(
            f"{name} / naive over {repeat} alternating rounds: wall "
            f"{statistics.median(ratios):.2f}x median of per-round ratios ({min(ratios):.2f}-"
            f"{max(ratios):.2f}), CPU {median(name, 1) / median('naive', 1):.2f}x, memory "
            f"{median(name, 2) / median('naive', 2):.2f}x"
        )
    print(f"1-minute load during the rounds: {min(loads):.1f}-{max(loads):.1f}")
    if instructions:
        counted = {name: _instructions(*commands[name]) for name in commands}
        for name, n in counted.items():
            print(f"{name}: {n / 1e9:.3f} G instructions ({n / counted['naive']:.2f}x naive)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--cli", action="store_true", help="the score command against the naive scorer"
    )
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="with --cli, also the score command of the respondeoqa_eval package in DIR (e.g. "
        "an earlier commit's evaluator/ from `git archive`), with what it keeps between "
        "processes and with nothing kept",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="with --cli, also each command's instruction count under valgrind (callgrind)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gold_dir = write_private(Path(tmp) / "gold", with_public=True, **SIZES)
        gold = read_folder(gold_dir)
        preds_path = Path(tmp) / "preds.jsonl"
        rows = example_predictions(gold.records, accuracy=0.6, seed=1)
        preds_path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        if args.cli:
            side_by_side(
                Path(tmp),
                gold_dir,
                preds_path,
                args.repeat,
                args.before,
                args.instructions,
            )
            return
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
        f"; the process's first run, which reads the references and draws the resamples: {first:.3f} s"
    )
    print("load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
