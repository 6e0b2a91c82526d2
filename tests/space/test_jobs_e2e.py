"""Issue 32 end to end: a request filed in the browser runs on a (stand-in) Hugging Face Job and
ends as verified entries on the board, its cost shown in the entry's detail.

Real parts only: the Space is the real CLI in a subprocess on Gradio's Space code path (OAuth
through the loopback OpenID provider) on the Hub stand-in's record; chromium logs in and files
the request on the Request page; the dispatcher launches the Job through huggingface_hub
against the Jobs stand-in (kit/jobstub.py), which runs the Job's own command: its script,
`respondeoqa-space worker --once --request ID` reading the private gold repo with the
Job's gold token, and the `vllm serve` template the dispatcher wrote, stood in for by
`transformers serve` on the tiny random model at the requested commit (started once: the
engine check and the run share it). The Job's two tokens are fine-grained ones (write access
to the record repo; read access to the gold repo), each used for its own repo only; the
operator's own token stays with the dispatcher. The Job's log stream, as huggingface_hub reads
it, quotes no private item and no token.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from conftest import require
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from kit.oidcstub import OidcStub
from kit.space_server import start_server
from respondeoqa_eval.data.gold import GoldSet
from respondeoqa_space import __version__
from respondeoqa_space.store import Store
from synthetic import SECRET_MARKER

from .helpers import assert_message_whole, open_page, page_board, parse_board, wait_until
from .jobskit import GOLD_REPO, dispatcher_of, mount_jobs, put_gold
from .requestkit import MODEL, add_tiny_model, repo_of, requests_in_record
from .test_oauth import login
from .test_record_e2e import env_for
from .test_worker_e2e import all_coverages, request_in, verified_only

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = require("playwright.sync_api")

RECORD_TOKEN, GOLD_TOKEN = "hf_job_record_write", "hf_job_gold_read"


def test_a_request_filed_in_the_browser_runs_on_a_job_and_its_entries_show_their_cost(
    hub: HubStub,
    browser,
    private_dir: Path,
    private_gold: GoldSet,
    tiny_model: Path,
    tmp_path: Path,
    screenshot_dir: Path,
) -> None:
    shots = screenshot_dir / "issue32"
    shots.mkdir(parents=True, exist_ok=True)
    add_tiny_model(hub, tiny_model)
    put_gold(hub, private_dir)
    # the operator makes the record repo, then tokens scoped to it (a fine-grained token names
    # repos that exist)
    repo_of(hub, tmp_path / "operator").create(private=True)
    hub.grant(RECORD_TOKEN, write=(f"dataset:{RECORD_REPO}",))
    hub.grant(GOLD_TOKEN, read=(f"dataset:{GOLD_REPO}",))
    jobs = mount_jobs(hub, tmp_path / "jobs", engine="transformers")
    with OidcStub() as oidc:
        env = {
            **oidc.env,
            **env_for(hub, tmp_path / "space"),  # no timed pull: the Job's worker asks it to
            "HF_TOKEN": RECORD_TOKEN,  # the Space's token: the record's, as the Job's
            "RESPONDEOQA_SPACE_TRUSTED_PROXIES": "0",
            "RESPONDEOQA_REQUEST_TOKENS": "8",  # a tiny random model: a few tokens are enough
        }
        space = start_server(private_dir, tmp_path / "space", env_extra=env)
        try:
            _run(hub, jobs, space, browser, private_gold, tmp_path, shots)
        finally:
            jobs.stop_all()
            space.stop()


def _run(hub, jobs, space, browser, private_gold, tmp_path: Path, shots: Path) -> None:
    # a researcher files the request on the Request page
    page = login(browser, space.url, "alice")
    page.set_viewport_size({"width": 1400, "height": 1000})
    message = request_in(page, MODEL, preset_label="greedy decoding: temperature 0")
    assert message.startswith(f"Requested {MODEL} at revision "), message
    (rid, request), *others = requests_in_record(hub).items()
    assert not others and request["status"] == "pending" and request["requester"] == "alice"
    listed = page.locator("#requests-table").get_by_role("row").filter(has_text=rid)
    sync_api.expect(listed).to_contain_text("pending")
    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 1000})
        assert_message_whole(page, "#request-msg", f"filed at 1400, read at {width}")
        page.screenshot(path=str(shots / f"{width}-request-filed.png"), full_page=True)

    # the operator's dispatcher launches its Job; the Job's worker ends the request itself
    dispatcher = dispatcher_of(
        hub, tmp_path / "dispatcher", space_url=space.url,
        record_token=RECORD_TOKEN, gold_token=GOLD_TOKEN,
    )  # fmt: skip
    done = dispatcher.round()
    assert len(done.launched) == 1, done.lines()
    (job,) = jobs.jobs.values()
    # each secret for its use; the operator's own token is not the Job's
    assert job.spec["secrets"] == {
        "HF_TOKEN": RECORD_TOKEN,
        "RESPONDEOQA_GOLD_TOKEN": GOLD_TOKEN,
    }
    assert TOKEN not in json.dumps(job.spec)
    jobs.wait(job.id, timeout=900)
    log_text = jobs.log_text(job.id)
    assert job.stage == "COMPLETED", log_text
    assert f"respondeoqa-space=={__version__}" in log_text  # installed at its version
    # vLLM (here transformers serve) started once: the engine check and the run on one engine
    assert log_text.count("starting the engine: ") == 1, log_text
    assert "the engine of the check serves the request" in log_text
    assert not dispatcher.round().settled  # the Job's worker ended its request itself

    finished = requests_in_record(hub)[rid]
    assert finished["status"] == "finished" and finished["attempts"] == 1, finished
    entry_ids = finished["entries"]
    assert len(entry_ids) == 15  # every combination of the four sources of the gold repo
    # the gold token read the gold repo and nothing else; the record token wrote the record
    gold_paths = [p for t, _, p in hub.seen if t == GOLD_TOKEN]
    assert gold_paths and all(f"/{GOLD_REPO}" in p for p in gold_paths)
    assert any(
        t == RECORD_TOKEN and m == "POST" and f"/{RECORD_REPO}/commit/" in p for t, m, p in hub.seen
    )
    assert not any(f"/{GOLD_REPO}" in p for t, _, p in hub.seen if t == RECORD_TOKEN)

    # the board shows them (the Job's worker asked the Space to read the record)
    def verified() -> list[dict]:
        return [r for r in parse_board(page_board(space.url))[1] if r["Type"] == "verified"]

    wait_until(lambda: len(verified()) == len(entry_ids), seconds=60, every=0.3)
    entry = Store(space.db).get(entry_ids[0])
    ev = entry.evaluation
    assert set(entry.sources) == {"certamen", "nle", "jun-schol", "lat-pros"}
    assert (ev.request, ev.hardware, ev.price_per_hour) == (rid, "l4x1", 0.80)
    ran = job.finished - job.started
    assert ev.seconds <= ev.job_seconds <= ran + 1

    # in the browser: the verified rows, and the entry's detail with hardware, time and cost
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.reload()
    open_page(page, "Board")
    all_coverages(page)
    verified_only(page)
    table = page.locator("#leaderboard-table")
    for i in entry_ids[:3]:
        sync_api.expect(table.locator(f'tr[data-key="e:{i}"]')).to_contain_text("verified")
    table.locator(f'tr[data-key="e:{entry.id}"]').locator("td").nth(1).click()
    meta = page.locator("#detail-meta")
    minutes = math.ceil(ev.job_seconds / 60)
    for field, value in (
        ("Request", rid),
        ("Hardware", "l4x1 (1x Nvidia L4), a Hugging Face Job"),
        ("Job wall time", f"{ev.job_seconds:,.0f} s from its start to its results"),
        ("Cost", f"${minutes * 0.80 / 60:,.2f} ({minutes:,} min x $0.80/h"),
        ("Tokens", f"{ev.completion_tokens:,} generated"),
    ):
        cell = page.get_by_role("rowheader", name=field, exact=True)
        sync_api.expect(meta.get_by_role("row").filter(has=cell)).to_contain_text(
            value, timeout=30_000
        )
    meta.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "1400-entry-cost.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 1000})
    sync_api.expect(meta).to_contain_text(re.compile(r"\$\d+\.\d\d"))
    page.screenshot(path=str(shots / "390-entry-cost.png"), full_page=True)

    # private gold stayed with the operator: not in the Job's log stream, nor any token
    streamed = "\n".join(dispatcher.api.fetch_job_logs(job_id=job.id, namespace="operator"))
    assert "finished: entries #" in streamed
    private = [r for r in private_gold.records if r.source in ("certamen", "nle")]
    assert private and SECRET_MARKER not in streamed
    assert not any(t in streamed for t in (TOKEN, RECORD_TOKEN, GOLD_TOKEN))
    assert not any(r.question in streamed for r in private if len(r.question) > 20)
    assert SECRET_MARKER not in json.dumps(requests_in_record(hub))
    assert SECRET_MARKER not in space.log_text()
    assert RECORD_REPO in " ".join(job.spec["command"])
