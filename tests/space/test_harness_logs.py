"""Harness logs uploaded to the Space as they are: an lm-eval samples file and a lighteval
details file are scored, stored and show their provenance on the entry."""

from __future__ import annotations

from pathlib import Path

import pytest
from gradio_client import Client
from harness.logkit import DATE, details_like_lighteval, lm_eval_sample
from respondeoqa_space.config import SpaceConfig
from respondeoqa_space.service import Space

from .helpers import file_records, submit, write_jsonl

pytestmark = pytest.mark.slow


def _answers(records, k: int) -> list[tuple]:
    """The gold answer for the first k items (as a raw response), a wrong one for the rest."""
    return [
        (r, f"x\nAnswer: {r.answers[0]}" if i < k else "Answer: zzqqxx")
        for i, r in enumerate(records)
    ]


def _provenance(server, gold, entry_id: int, tmp_path: Path) -> dict[str, str]:
    space = Space(SpaceConfig(db=server.db, gold=gold))
    shown = space.detail(f"e:{entry_id}")
    rows = shown.metadata.to_dict("records")
    return {r["Field"]: r["Value"] for r in rows if r["Field"].startswith("Provenance")}


def test_lm_eval_samples_and_lighteval_details_upload(server, private_gold, tmp_path: Path) -> None:
    client = Client(server.url, verbose=False)
    meter = file_records(private_gold, "prosody_caesura_scansion_latin.json")
    samples = write_jsonl(
        tmp_path / f"samples_respondeoqa_lat_pros_meter_{DATE}.jsonl",
        [lm_eval_sample(i, r, t) for i, (r, t) in enumerate(_answers(meter, 10))],
    )
    message, *_ = submit(client, samples, "lm-eval logged model")
    assert message.startswith("Stored as entry #"), message
    assert "on the 41 non-translation items" in message
    entry = int(message.split()[3].rstrip(":").lstrip("#"))
    shown = _provenance(server, private_gold, entry, tmp_path)
    assert shown["Provenance: tool"] == "lm-evaluation-harness"

    feet = file_records(private_gold, "prosody_feet_questions_latin.json")
    details = details_like_lighteval(
        tmp_path / "details" / f"details_custom_respondeoqa_0_{DATE}.parquet",
        [(r.id, t) for r, t in _answers(feet, 5)],
    )
    message, *_ = submit(client, details, "lighteval logged model")
    assert message.startswith("Stored as entry #"), message
    assert "on the 20 non-translation items" in message
    entry = int(message.split()[3].rstrip(":").lstrip("#"))
    assert _provenance(server, private_gold, entry, tmp_path)["Provenance: tool"] == "lighteval"
