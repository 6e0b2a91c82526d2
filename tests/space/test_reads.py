"""Reads never wait behind a submission: while one is being scored, the /leaderboard endpoint
(gradio_client, through the queue) and the board a page load fetches (the app's own route,
outside Gradio) both answer; once it is stored, the next read shows it. A page load makes no
Gradio call at all.

The scoring section is held by a gate put in place of the Space's scoring semaphore (no sleeps):
the test knows the submission is inside it, and decides when it may finish.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import httpx
from gradio_client import Client, handle_file
from kit.net import free_port
from respondeoqa_space.config import SpaceConfig
from respondeoqa_space.service import Space
from respondeoqa_space.web.app import launch

from .helpers import (
    board_rows,
    file_records,
    k_correct_predictions,
    page_board,
    parse_board,
    write_jsonl,
)

SHORT = "junior_scholarship_short_answer.json"


class Gate:
    """Stands in for the scoring semaphore: records entry, holds until opened."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()

    def __enter__(self) -> Gate:
        self.entered.set()
        if not self.open.wait(timeout=120):
            raise TimeoutError("the test never opened the gate")
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def _models(board: dict[str, Any]) -> list[str]:
    return [r["Model"] for r in board_rows(board)]


def _page_models(url: str) -> list[str]:
    return [r["Model"] for r in parse_board(page_board(url))[1]]


def _in_thread(fn: Any) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except Exception as exc:  # reported by the assertion below
            out["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_reads_answer_while_a_submission_is_scored(public_gold, tmp_path: Path) -> None:
    config = SpaceConfig.from_env(
        {}, db=tmp_path / "lb.sqlite3", gold=public_gold, host="127.0.0.1", port=free_port()
    )
    space = Space(config)
    gate = Gate()
    space.intake._scoring = gate  # the one scoring section every submit route passes through
    demo = launch(space, prevent_thread_lock=True)
    url = f"http://127.0.0.1:{config.port}/"
    try:
        rows, _ = k_correct_predictions(file_records(public_gold, SHORT), 100)
        path = write_jsonl(tmp_path / "held.jsonl", rows)
        submitter = Client(url, verbose=False)
        job = submitter.submit(
            [handle_file(str(path))],
            "held model",
            "",
            "",
            "",
            api_name="/submit",
        )
        assert gate.entered.wait(timeout=120), "the submission never reached scoring"

        # another visitor, while the submission holds the scoring section
        reader, got = _in_thread(
            lambda: Client(url, verbose=False).predict(
                "Overview", "all coverages", api_name="/leaderboard"
            )
        )
        reader.join(timeout=120)
        assert "error" not in got, got.get("error")
        assert not reader.is_alive() and "value" in got, "/leaderboard waited for the submission"
        assert not job.done(), "the submission finished before the read: nothing was tested"
        board = got["value"]
        assert "held model" not in _models(board)
        assert len(_models(board)) >= 1  # the paper's rows

        loader, page = _in_thread(lambda: _page_models(url))
        loader.join(timeout=120)
        assert "error" not in page, page.get("error")
        assert "value" in page, "the page's board waited for the submission"
        assert not job.done()
        assert "held model" not in page["value"] and "LLaMa 3.3 70B" in page["value"]
        # the board's page loads with no Gradio event (the other pages fill themselves when
        # opened, outside the queue)
        config = httpx.get(url + "config", timeout=30).json()
        on_board = set(config["page"][""]["dependencies"])
        loads = [d for d in config["dependencies"] if any(t[1] == "load" for t in d["targets"])]
        assert loads and not [d for d in loads if d["id"] in on_board]
        assert all(d["queue"] is False for d in loads)

        gate.open.set()
        message, *_ = job.result(timeout=120)
        assert message.startswith("Stored as entry #"), message
        # the cache is rebuilt after the write: the next reads show the entry
        board = Client(url, verbose=False).predict(
            "Overview", "all coverages", api_name="/leaderboard"
        )
        assert "held model" in _models(board)
        assert "held model" in _page_models(url)
    finally:
        gate.open.set()
        demo.close()
        space.close()
