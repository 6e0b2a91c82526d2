"""Shared by the harness tests: dataset exports, gold cut down to logged items, and scoring
through the CLI (`respondeoqa-eval score`), the one number every harness must reproduce."""

from __future__ import annotations

import json
from pathlib import Path

from respondeoqa_eval.cli import main


def gold_of_ids(ids_by_file: dict[str, set[str]], gold_dir: Path, out: Path) -> Path:
    """The upstream files of `gold_dir` cut down to the given question ids (same order)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, qids in ids_by_file.items():
        rows = json.loads((gold_dir / name).read_text(encoding="utf-8"))
        kept = [r for r in rows if r["question_id"] in qids]
        (out / name).write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")
    return out


def score_cli(preds: Path | list[Path], data_dir: Path, report: Path) -> dict:
    """`respondeoqa-eval score PREDS --data-dir DIR --report REPORT --bootstrap 0`."""
    paths = [str(p) for p in (preds if isinstance(preds, list) else [preds])]
    argv = ["score", *paths, "--data-dir", str(data_dir), "--report", str(report)]
    assert main([*argv, "--bootstrap", "0", "-q"]) == 0
    return json.loads(report.read_text(encoding="utf-8"))
