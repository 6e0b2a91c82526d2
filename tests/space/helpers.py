"""Builders shared by the Space tests: report dicts per docs/report.md, predictions files."""

from __future__ import annotations

import json
import string
from pathlib import Path
from typing import Any

from respondeoqa_eval.gold import GoldSet
from respondeoqa_eval.records import Record

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
"""Debian's chromium, started the way this machine's closed network needs (never `playwright install`)."""

WRONG = "zzqqxx"  # never a gold answer; an extracted answer that scores 0


def group(score: float, n: int = 10) -> dict[str, Any]:
    return {"score": score, "n": n, "ci": [max(0.0, score - 0.05), min(1.0, score + 0.05)]}


def make_report(
    overall: float,
    *,
    items: list[dict[str, Any]] | None = None,
    sources: tuple[str, ...] = ("jun-schol", "lat-pros"),
    n: int = 100,
    content: dict[str, float] | None = None,
    bleu_latin: float | None = 20.0,
) -> dict[str, Any]:
    """A report dict in the shape of docs/report.md (only the fields the Space reads)."""
    content = content or {"grammar": overall, "scansion": overall / 2}
    items = (
        items
        if items is not None
        else [
            {
                "id": f"item-{i}",
                "question_id": f"item-{i}",
                "question_language": "english",
                "task": "short_answer",
                "source": sources[0],
                "question_content": "grammar",
                "extracted": "x",
                "score": float(i % 2),
                "missing": False,
            }
            for i in range(4)
        ]
    )
    bleu_group = None if bleu_latin is None else {"score": bleu_latin, "n": 5, "ci": [1, 2]}
    return {
        "schema_version": 1,
        "gold": {"files": [], "n_items": n, "sources": list(sources)},
        "n_items": n,
        "missing": 0,
        "unanswered": 0,
        "accuracy": {
            "overall": group(overall, n),
            "by_task": {"short_answer": group(overall, n)},
            "by_content": {k: group(v) for k, v in content.items()},
            "by_language_pair": {"english-latin": group(overall)},
            "by_category": {"knowledge": group(overall), "skill": group(overall)},
            "by_source": {s: group(overall) for s in sources},
        },
        "bleu": {
            "latin": {"overall": bleu_group, "constrained": None, "unconstrained": None},
            "english": None,
        },
        "items": items,
    }


def _normalizes_nonempty(text: str) -> bool:
    # PROTOCOL 4: exact match deletes ASCII punctuation; an empty normalised gold cannot be hit
    return any(c not in string.punctuation and not c.isspace() for c in text)


def k_correct_predictions(records: list[Record], k: int) -> tuple[list[dict[str, str]], int]:
    """Rows {id, answer}: the gold answer for the first k accuracy items, WRONG for the others.

    Returns the rows and the number of items that score 1 (k, counted from the protocol: an
    item scores 1 when the extracted answer equals the gold one after normalisation).
    """
    rows, correct = [], 0
    for rec in records:
        gold = rec.answers[0]
        if rec.task != "translation" and correct < k and _normalizes_nonempty(gold):
            answer = gold[0] if rec.task == "multiple_choice" else gold
            correct += 1
        else:
            answer = WRONG
        rows.append({"id": rec.id, "answer": answer})
    return rows, correct


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def file_records(gold: GoldSet, name: str) -> list[Record]:
    return [r for r in gold.records if r.file == name]


def submit(
    client: Any, path: Path, model: str, link: str = "", params: str = "", note: str = ""
) -> tuple[Any, ...]:
    """Call the Space's /submit endpoint through gradio_client (Overview, all coverages)."""
    from gradio_client import handle_file

    return client.predict(
        handle_file(str(path)),
        model,
        link,
        params,
        note,
        "Overview",
        "all coverages",
        api_name="/submit",
    )
