"""Every Eval Ever records (https://evalevalai.com/projects/every-eval-ever/): one aggregate
JSON and its per-item JSONL, as the `every-eval-ever` package's schema (0.3.0) defines them,
written to the datastore layout its validator checks:
`DIR/data/respondeoqa/<developer>/<model>/<uuid>.json` and `<uuid>_samples.jsonl`.

The aggregate holds the paper's accuracy with every breakdown (`accuracy.<dimension>.<group>`),
the short-answer macron-sensitive accuracy, and per target language and split the paper's
padded BLEU beside BLEU without padding and chrF, each with its bootstrap interval and
sacreBLEU-style signature; `eval_library` is respondeoqa-eval (the scorer) and the harness that
ran the model, its sampling and prompt version, are kept as provenance. Each item row carries
the prompt, the gold references, the raw response and the extracted answer, except for
Certamen and NLE items: their text is never written (an empty input, no references, no
response), only their id, score and breakdown keys.

Pure: `eee_records` builds both from a report, the gold and the predictions; `write_eee` writes.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..data.breakdowns import DIMENSIONS
from ..data.gold import GoldSet
from ..data.records import Record
from ..data.sources import HUB_DATASET, UPSTREAM_COMMIT, UPSTREAM_REPO
from ..errors import InputError
from ..io import write_text_atomic
from ..metrics import corpus_bleu
from ..predictions.load import Predictions
from ..runner.prompts import SYSTEM_PROMPT, user_prompt

SCHEMA_VERSION = "0.3.0"
"""The schema of `every-eval-ever` 0.3.0 (its bundled eval.schema.json `version`)."""
COLLECTION = "respondeoqa"
BENCHMARK = "RespondeoQA"
DEPLOYMENT_TYPES = ("self_deployed", "externally_managed", "unknown")
AVAILABILITY = ("open_weights", "closed_weights", "unknown")
RELATIONSHIPS = ("first_party", "third_party", "collaborative", "other")
WITHHELD = "withheld: Certamen / NLE items are not redistributed"

_PROPORTION = {
    "metric_unit": "proportion",
    "score_type": "continuous",
    "min_score": 0,
    "max_score": 1,
}
_POINTS = {"metric_unit": "points", "score_type": "continuous", "min_score": 0, "max_score": 100}


def _model_path(model_id: str) -> tuple[str, str]:
    parts = model_id.strip().split("/")
    if len(parts) < 2 or not all(parts):
        raise InputError(f"--eee-model must be a model id ORG/NAME, not {model_id!r}")
    return parts[0], "_".join(parts[1:])


def _uncertainty(score: Mapping[str, Any], resamples: int) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    if score.get("n") is not None:
        out["num_samples"] = int(score["n"])
    if score.get("ci"):
        low, high = score["ci"]
        out["confidence_interval"] = {
            "lower": low,
            "upper": high,
            "confidence_level": 0.95,
            "method": "percentile bootstrap",
        }
        out["num_bootstrap_samples"] = resamples
    return out or None


def _result(result_id: str, name: str, score: Mapping[str, Any], metric: dict, source, resamples):
    details = {"score": score["score"]}
    if (uncertainty := _uncertainty(score, resamples)) is not None:
        details["uncertainty"] = uncertainty
    return {
        "evaluation_result_id": result_id,
        "evaluation_name": name,
        "source_data": source,
        "metric_config": {"lower_is_better": False, **metric},
        "score_details": details,
    }


def _rounded_ci(score: Mapping[str, Any]) -> dict[str, Any]:
    ci = score.get("ci")
    return {**score, "ci": [round(v, 10) for v in ci] if ci else None}


def _source_data(report: Mapping[str, Any], dataset_id: str) -> dict[str, Any]:
    sources = report["gold"].get("sources") or []
    details = {
        "upstream": f"github.com/{UPSTREAM_REPO}@{UPSTREAM_COMMIT}",
        "files": ", ".join(report["gold"]["files"]),
    }
    if any(s in ("certamen", "nle") for s in sources):
        # Certamen / NLE are no public dataset: the user's own copy
        return {"dataset_name": BENCHMARK, "source_type": "other", "additional_details": details}
    return {
        "dataset_name": BENCHMARK,
        "source_type": "hf_dataset",
        "hf_repo": dataset_id,
        "hf_split": "test",
        "samples_number": int(report["n_items"]),
        "additional_details": details,
    }


def _results(report: Mapping[str, Any], source: dict) -> list[dict[str, Any]]:
    resamples = int((report["evaluator"].get("bootstrap") or {}).get("resamples") or 0)
    sig = report["evaluator"].get("signatures") or {}
    acc_metric = {
        "metric_id": "accuracy",
        "metric_name": "Accuracy (paper protocol)",
        "metric_kind": "accuracy",
        **_PROPORTION,
        "evaluation_description": "mean per-item score over every non-translation item "
        "(multiple choice, one-word answers, meter, feet with partial credit), the paper's "
        "extraction and normalisation",
        "additional_details": {k: str(v) for k, v in sig.items()},
    }
    acc = report["accuracy"]
    out = [
        _result("accuracy", f"{BENCHMARK} accuracy", acc["overall"], acc_metric, source, resamples)
    ]
    for key, dim in DIMENSIONS.items():
        for group, score in (acc.get(key) or {}).items():
            name = f"{BENCHMARK} accuracy, {dim.name.lower()}: {dim.label(group)}"
            out.append(
                _result(f"accuracy.{key}.{group}", name, score, acc_metric, source, resamples)
            )
    for key, score in (report.get("extra") or {}).items():
        metric = {**acc_metric, "metric_id": f"respondeoqa.{key}", "metric_name": key}
        out.append(_result(f"extra.{key}", f"{BENCHMARK} {key}", score, metric, source, resamples))
    for lang, splits in (report.get("bleu") or {}).items():
        for split, bleu in (splits or {}).items():
            if not bleu or not bleu.get("n"):
                continue
            where = f"into {lang.capitalize()}, {split}"
            ci = {"n": bleu["n"], "ci": bleu.get("ci")}
            for field, metric_id, label, extra in (
                (
                    "score",
                    "bleu",
                    "BLEU, the paper's (references padded with empty ones)",
                    {"padding": "empty-to-max"},
                ),
                ("variable_refs", "bleu", "BLEU without padding", {"padding": "none"}),
                ("chrf", "chrf", "chrF", {}),
            ):
                if bleu.get(field) is None:
                    continue
                metric = {
                    "metric_id": metric_id,
                    "metric_name": label,
                    "metric_kind": metric_id,
                    **_POINTS,
                    "metric_parameters": {"target_language": lang, **extra},
                    "additional_details": {
                        "signature": bleu.get("chrf_signature" if field == "chrf" else "signature")
                        or ""
                    },
                }
                # sacreBLEU's float arithmetic can give 100.00000000000004 for a perfect corpus;
                # the record's bounds are [0, 100], so points are rounded to 10 decimals
                score = {
                    "score": round(bleu[field], 10),
                    **(_rounded_ci(ci) if field == "score" else {"n": bleu["n"]}),
                }
                result_id = f"bleu.{lang}.{split}.{'padded' if field == 'score' else field}"
                out.append(
                    _result(
                        result_id, f"{BENCHMARK} {label} {where}", score, metric, source, resamples
                    )
                )
    return out


def _generation_config(provenance: Mapping[str, Any]) -> dict[str, Any] | None:
    params = provenance.get("params") or {}
    args: dict[str, Any] = {}
    for ours, theirs in (("temperature", "temperature"), ("top_p", "top_p"), ("top_k", "top_k")):
        if isinstance(params.get(ours), int | float) and not isinstance(params.get(ours), bool):
            args[theirs] = params[ours]
    for key in ("max_tokens", "max_new_tokens", "max_gen_toks"):
        if isinstance(params.get(key), int) and params[key] >= 1:
            args["max_tokens"] = params[key]
            break
    args["prompt_template"] = (
        f"system: {SYSTEM_PROMPT}\nuser: the paper's user message (PROTOCOL 2)"
    )
    details = {k: json.dumps(v) for k, v in params.items() if k not in args}
    if provenance.get("prompt_version"):
        details["prompt_version"] = str(provenance["prompt_version"])
    return {"generation_args": args, **({"additional_details": details} if details else {})}


def _sentence_bleu(record: Record, hypothesis: str) -> float:
    bleu = corpus_bleu([hypothesis], [list(record.answers)], record.answer_language).variable_refs
    return round(bleu, 10)


def _item_row(
    item: Mapping[str, Any], record: Record, prediction, evaluation_id: str, model_id: str
) -> dict[str, Any]:
    private = record.is_private
    extracted = item.get("extracted") or ""
    if record.task == "translation":
        result_id = f"bleu.{record.answer_language}.overall.padded"
        name = f"{BENCHMARK} BLEU into {record.answer_language.capitalize()}"
        # a translation has no per-item score in the paper: sentence BLEU, for reading only
        score = _sentence_bleu(record, extracted)
        correct = extracted in record.answers
    else:
        result_id, name = "accuracy", f"{BENCHMARK} accuracy"
        score = float(item["score"])
        correct = score == 1.0
    prompt = "" if private else user_prompt(record)
    references = [] if private else list(record.answers)
    response = [] if (private or prediction is None or prediction.extracted) else [prediction.text]
    metadata = {
        "task": record.task,
        "source": record.source,
        "question_content": record.question_content,
        "language_pair": f"{record.question_language}-{record.answer_language}",
        "missing": str(bool(item.get("missing"))).lower(),
        **{k: str(v) for k, v in (item.get("groups") or {}).items()},
    }
    if record.task == "translation":
        metadata["score"] = "sentence BLEU (no aggregate uses it; the paper's is corpus BLEU)"
    if private:
        metadata["text"] = WITHHELD
    digest = None
    if not private:
        digest = hashlib.sha256((prompt + "\n" + "\n".join(references)).encode()).hexdigest()
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": model_id,
        "evaluation_name": name,
        "evaluation_result_id": result_id,
        "sample_id": record.id,
        "sample_hash": digest,
        "interaction_type": "single_turn",
        "input": {
            "raw": prompt,
            "reference": references,
            "choices": None
            if private or not record.multiple_choice_options
            else list(record.multiple_choice_options),
        },
        "output": {"raw": response},
        "messages": None,
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": "" if private else extracted,
                "extraction_method": f"respondeoqa-eval paper extraction ({record.task}, PROTOCOL 3)",
                "is_terminal": True,
            }
        ],
        "evaluation": {"score": score, "is_correct": bool(correct)},
        "metadata": metadata,
    }


def eee_records(
    report: Mapping[str, Any],
    gold: GoldSet,
    predictions: Predictions,
    *,
    model_id: str | None = None,
    source_organization: str = "unknown",
    evaluator_relationship: str = "third_party",
    deployment_type: str = "unknown",
    model_availability: str = "unknown",
    dataset_id: str = HUB_DATASET,
    now: float | None = None,
    record_uuid: str | None = None,
) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """(datastore folder, aggregate, item rows) of a report dict (docs/report.md)."""
    provenance = report.get("provenance") or {}
    model_id = model_id or provenance.get("model")
    if not model_id:
        raise InputError(
            "--eee needs the model's id: --eee-model ORG/NAME (the predictions name none)"
        )
    developer, model = _model_path(model_id)
    for value, allowed, option in (
        (deployment_type, DEPLOYMENT_TYPES, "--eee-deployment"),
        (model_availability, AVAILABILITY, "--eee-availability"),
        (evaluator_relationship, RELATIONSHIPS, "--eee-relationship"),
    ):
        if value not in allowed:
            raise InputError(f"{option} must be one of {', '.join(allowed)}, not {value!r}")
    now = time.time() if now is None else now
    record_uuid = record_uuid or str(uuid.uuid4())
    folder = f"data/{COLLECTION}/{developer}/{model}"
    evaluation_id = f"{COLLECTION}/{model_id}/{int(now)}"
    source = _source_data(report, dataset_id)
    evaluator = report["evaluator"]
    library_details = {
        "protocol": str(evaluator.get("protocol", "paper")),
        "sacrebleu": str(evaluator.get("sacrebleu", "")),
    }
    if provenance.get("tool"):
        library_details["harness"] = str(provenance["tool"])
    if provenance.get("tool_version"):
        library_details["harness_version"] = str(provenance["tool_version"])
    if provenance.get("tasks"):
        library_details["harness_tasks"] = ", ".join(provenance["tasks"])
    results = _results(report, source)
    generation = _generation_config(provenance)
    for result in results:
        result["generation_config"] = generation
    rows = []
    by_id = {it["id"]: it for it in report["items"]}
    for record in gold.records:
        if record.id in by_id:
            rows.append(
                _item_row(
                    by_id[record.id],
                    record,
                    predictions.by_id.get(record.id),
                    evaluation_id,
                    model_id,
                )
            )
    samples_path = f"{folder}/{record_uuid}_samples.jsonl"
    aggregate = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "retrieved_timestamp": str(int(now)),
        "source_metadata": {
            "source_name": "respondeoqa-eval score",
            "source_type": "evaluation_run",
            "source_organization_name": source_organization,
            "evaluator_relationship": evaluator_relationship,
        },
        "model_info": {
            "name": model_id,
            "id": model_id,
            "developer": developer,
            "additional_details": {
                "deployment_type": deployment_type,
                "model_availability": model_availability,
            },
        },
        "eval_library": {
            "name": "respondeoqa-eval",
            "version": str(evaluator["version"]),
            "additional_details": library_details,
        },
        "evaluation_results": results,
        "detailed_evaluation_results": {
            "format": "jsonl",
            "file_path": samples_path,
            "hash_algorithm": "sha256",
            "total_rows": len(rows),
        },
    }
    return folder, aggregate, rows


def write_eee(
    folder: str | Path,
    report: Mapping[str, Any],
    gold: GoldSet,
    predictions: Predictions,
    **kwargs: Any,
) -> tuple[Path, Path]:
    """Write the aggregate JSON and its samples JSONL under `folder`; return both paths."""
    kwargs.setdefault("record_uuid", str(uuid.uuid4()))
    rel, aggregate, rows = eee_records(report, gold, predictions, **kwargs)
    root = Path(folder)
    if root.exists() and not root.is_dir():
        raise InputError(f"{root}: exists and is not a folder")
    samples_text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows)
    aggregate["detailed_evaluation_results"]["checksum"] = hashlib.sha256(
        samples_text.encode()
    ).hexdigest()
    samples = root / aggregate["detailed_evaluation_results"]["file_path"]
    path = root / rel / f"{kwargs['record_uuid']}.json"
    write_text_atomic(samples, samples_text)
    write_text_atomic(
        path, json.dumps(aggregate, ensure_ascii=False, indent=1, allow_nan=False) + "\n"
    )
    return path, samples
