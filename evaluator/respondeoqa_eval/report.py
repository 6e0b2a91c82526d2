"""The report: per-item scores and aggregates as the JSON contract of docs/report.md, and a
readable summary."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sacrebleu

from . import __version__
from .aggregate import Bootstrap, accuracy, bleu
from .gold import GoldSet
from .metrics import EXACT_MATCH_MACRONS, METRICS
from .records import PRIVATE_SOURCES, SOURCES
from .scoring import ItemScore

SCHEMA_VERSION = 1


def _item(it: ItemScore) -> dict[str, Any]:
    r = it.record
    return {
        "id": r.id,
        "question_id": r.question_id,
        "question_language": r.question_language,
        "task": r.task,
        "source": r.source,
        "question_content": r.question_content,
        "extracted": it.extracted,
        "score": it.score,
        "missing": it.missing,
    }


def build_report(items: list[ItemScore], gold: GoldSet, boot: Bootstrap, origin: str = "") -> dict:
    """Assemble the report dict (docs/report.md) from per-item scores."""
    acc, extra = accuracy(items, boot)
    records = [it.record for it in items]
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluator": {
            "name": "respondeoqa-eval",
            "version": __version__,
            "protocol": "paper",
            "sacrebleu": sacrebleu.__version__,
            "bootstrap": {"resamples": boot.resamples, "seed": boot.seed, "level": boot.level},
            "signatures": {
                **{task: metric.signature for task, metric in METRICS.items()},
                "short_answer_macron_sensitive": EXACT_MATCH_MACRONS.signature,
            },
        },
        "predictions": origin,
        "gold": {
            "files": sorted({r.file for r in records}),
            "n_items": len(records),
            "sources": [s for s in SOURCES if any(r.source == s for r in records)],
            "unknown_files": list(gold.unknown_files),
        },
        "n_items": len(items),
        "missing": sum(it.missing for it in items),
        "unanswered": sum(1 for it in items if not it.missing and it.extracted in (None, "")),
        "accuracy": acc,
        "extra": extra,
        "bleu": bleu(items, boot),
        "items": [_item(it) for it in items],
    }


@dataclass
class Report:
    """The outcome of `evaluate`: the report dict plus the per-item scores it came from."""

    data: dict
    items: list[ItemScore]

    def to_dict(self) -> dict:
        return self.data

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.data, ensure_ascii=False, indent=indent)

    @property
    def has_private(self) -> bool:
        return any(s in PRIVATE_SOURCES for s in self.data["gold"]["sources"])

    def summary(self) -> str:
        return summarize(self.data)


def _pct(entry: dict | None) -> str:
    if not entry:
        return "-"
    ci = entry.get("ci")
    text = f"{100 * entry['score']:6.2f}"
    if ci:
        text += f"  [{100 * ci[0]:5.1f}, {100 * ci[1]:5.1f}]"
    return f"{text:<24} n={entry['n']}"


def _section(title: str, groups: dict) -> list[str]:
    if not groups:
        return []
    lines = [title]
    width = max(len(k) for k in groups)
    lines += [f"  {key:<{width}}  {_pct(entry)}" for key, entry in groups.items()]
    return lines


def summarize(data: dict) -> str:
    """A readable summary of a report dict (percentages, 95% intervals in brackets)."""
    acc = data["accuracy"]
    gold = data["gold"]
    lines = [
        f"RespondeoQA evaluation, paper protocol (respondeoqa-eval {data['evaluator']['version']})",
        f"gold: {gold['n_items']} items from {len(gold['files'])} files ({', '.join(gold['sources'])}); "
        f"missing predictions: {data['missing']}; unanswered: {data['unanswered']}",
    ]
    if gold.get("unknown_files"):
        lines.append(
            f"ignored unknown files in the gold folder: {', '.join(gold['unknown_files'])}"
        )
    lines += ["", f"Accuracy (all non-translation items)  {_pct(acc['overall'])}"]
    titles = {
        "by_category": "Knowledge / skill",
        "by_task": "By task",
        "by_content": "By content type",
        "by_language_pair": "By language pair (question-answer)",
        "by_source": "By source",
        "by_format": "By format",
        "by_difficulty": "By difficulty",
        "by_multihop": "Multihop (short-answer items)",
    }
    for key, title in titles.items():
        section = _section(title, acc.get(key, {}))
        if section:
            lines += [""] + section
    if data.get("extra"):
        lines += [""] + _section("Beyond the paper", data["extra"])
    lines += ["", "BLEU (paper-compatible; variable-reference BLEU and chrF beside it)"]
    lines.append(
        f"  {'target':<8} {'split':<14} {'BLEU':>6}  {'95% CI':<15} {'var-ref':>7} {'chrF':>6}  n"
    )
    signature = None
    for lang, splits in data["bleu"].items():
        for split, b in splits.items():
            if b is None:
                continue
            ci = b.get("ci")
            ci_text = f"[{ci[0]:5.1f}, {ci[1]:5.1f}]" if ci else ""
            lines.append(
                f"  {lang:<8} {split:<14} {b['score']:6.2f}  {ci_text:<15} "
                f"{b['variable_refs']:7.2f} {b['chrf']:6.2f}  {b['n']}"
            )
            signature = signature or b["signature"]
    if signature:
        lines.append(f"  sacreBLEU signature: {signature}")
    return "\n".join(lines)
