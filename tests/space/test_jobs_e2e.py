"""Issue 32 end to end: a request runs on a (stand-in) Hugging Face Job and ends as verified
entries on the board, its cost shown.

Real parts only: the Space is the real CLI in a subprocess on the Hub stand-in's record; the
request is made through the Space's desk (the same check-and-store the request page calls);
the dispatcher launches the Job through huggingface_hub against the Jobs stand-in
(kit/jobstub.py), which runs the Job's own command: its script, `respondeoqa-eval space worker
--once --request ID` reading the private gold repo with the Job's token, and the `vllm serve`
template the dispatcher wrote, stood in for by `transformers serve` on the tiny random model
at the requested commit. The Job's log stream, as huggingface_hub reads it, quotes no private
item.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import pytest
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from kit.space_server import start_server
from respondeoqa_eval._version import __version__
from respondeoqa_eval.data.gold import GoldSet
from respondeoqa_eval.space.config import Limits
from respondeoqa_eval.space.store import Store
from synthetic import SECRET_MARKER

from .helpers import page_board, parse_board
from .jobskit import dispatcher_of, mount_jobs, put_gold
from .requestkit import MODEL, add_tiny_model, desk_of, requests_in_record
from .test_record_e2e import env_for, wait_for

pytestmark = pytest.mark.slow


def test_a_request_runs_on_a_job_and_its_entries_show_their_cost(
    hub: HubStub, private_dir: Path, private_gold: GoldSet, tiny_model: Path, tmp_path: Path
) -> None:
    add_tiny_model(hub, tiny_model)
    put_gold(hub, private_dir)
    jobs = mount_jobs(hub, tmp_path / "jobs", engine="transformers")
    space = start_server(
        private_dir, tmp_path / "space", env_extra=env_for(hub, tmp_path / "space")
    )
    try:
        desk = desk_of(hub, tmp_path / "desk", Limits(request_tokens=8))
        outcome = desk.request(MODEL, "main", "greedy", False, "alice")
        assert outcome.ok, outcome.message
        rid = outcome.request.id

        dispatcher = dispatcher_of(hub, tmp_path / "dispatcher", space_url=space.url)
        done = dispatcher.round()
        assert len(done.launched) == 1, done.lines()
        (job,) = jobs.jobs.values()
        jobs.wait(job.id, timeout=900)
        log_text = jobs.log_text(job.id)
        assert job.stage == "COMPLETED", log_text
        assert f"respondeoqa-eval[space]=={__version__}" in log_text  # installed at its version
        assert not dispatcher.round().settled  # the Job's worker ended its request itself

        finished = requests_in_record(hub)[rid]
        assert finished["status"] == "finished" and finished["attempts"] == 1, finished
        entry_ids = finished["entries"]
        assert len(entry_ids) == 15  # every combination of the four sources of the gold repo

        # the board shows them (the Job's worker asked the Space to read the record)
        def verified() -> list[dict]:
            return [r for r in parse_board(page_board(space.url))[1] if r["Type"] == "verified"]

        wait_for(lambda: len(verified()) == len(entry_ids))
        entry = Store(space.db).get(entry_ids[0])
        ev = entry.evaluation
        assert set(entry.sources) == {"certamen", "nle", "jun-schol", "lat-pros"}
        assert (ev.request, ev.hardware, ev.price_per_hour) == (rid, "l4x1", 0.80)
        ran = job.finished - job.started
        assert ev.seconds <= ev.job_seconds <= ran + 1
        # its detail: the flavor, the Job's wall time and its cost as billed, beside the tokens
        detail = httpx.get(space.url + "entry", params={"entry": f"e:{entry.id}"}, timeout=30).text
        minutes = math.ceil(ev.job_seconds / 60)
        for shown in (
            "l4x1 (1x Nvidia L4), a Hugging Face Job",
            f"{ev.job_seconds:,.0f} s from its start to its results: {minutes:,} billed min",
            f"${minutes * 0.80 / 60:,.2f} ({minutes:,} min x $0.80/h",
            f"{ev.completion_tokens:,} generated",
        ):
            assert shown in detail, detail

        # private gold stayed with the operator: not in the Job's log stream, nor any token
        streamed = "\n".join(dispatcher.api.fetch_job_logs(job_id=job.id, namespace="operator"))
        assert "finished: entries #" in streamed
        private = [r for r in private_gold.records if r.source in ("certamen", "nle")]
        assert private and SECRET_MARKER not in streamed and TOKEN not in streamed
        assert not any(r.question in streamed for r in private if len(r.question) > 20)
        assert SECRET_MARKER not in json.dumps(requests_in_record(hub))
        assert RECORD_REPO in " ".join(job.spec["command"])
    finally:
        jobs.stop_all()
        space.stop()
