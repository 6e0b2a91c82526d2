"""Builders of harness logs as the harnesses write them, shared by the harness and Space tests.

lm-eval samples lines follow lm_eval 0.4.13 (`EvaluationTracker.save_results_samples`,
lm_eval/loggers/evaluation_tracker.py, and the `example` dict of lm_eval/evaluator.py;
tests/harness/test_lm_eval.py checks real ones). Lighteval details files reuse the exact Arrow
schema of data/lighteval/, which the real lighteval 0.13.0 wrote (make_lighteval_details.py;
test_lighteval.py checks it against a fresh run).
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data"
DATE = "2026-01-02T03-04-05.678901"
LIGHTEVAL_DETAILS = next((DATA / "lighteval").rglob("details_*.parquet"))


def lm_eval_sample(doc_id: int, record, response: str, **extra) -> dict:
    """One line as lm_eval 0.4.13 logs it."""
    doc = {**record.to_dict(), "system_prompt": "s", "prompt_version": "paper-v1"}
    row = {
        "doc_id": doc_id,
        "doc": doc,
        "target": record.answers[0],
        "arguments": {
            "gen_args_0": {
                "arg_0": "<prompt>",
                "arg_1": {"until": [], "do_sample": True, "temperature": 0.6, "top_p": 0.95},
            }
        },
        "resps": [[response]],
        "filtered_resps": [response],
        "filter": "none",
        "metrics": ["acc"],
        "doc_hash": "0",
        "prompt_hash": "0",
        "target_hash": "0",
        "acc": 0.0,
    }
    row.update(extra)
    return row


def details_like_lighteval(path: Path, rows) -> Path:
    """A details Parquet with the exact schema lighteval 0.13.0 wrote (data/lighteval)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    real = pq.read_table(LIGHTEVAL_DETAILS)
    template = real.to_pylist()[0]
    records = []
    for i, (rid, text) in enumerate(rows):
        row = json.loads(json.dumps(template))
        row["doc"]["specific"] = {"id": rid}
        row["doc"]["id"] = str(i)
        row["model_response"]["text"] = [text]
        records.append(row)
    table = pa.Table.from_pylist(records, schema=real.schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return path
