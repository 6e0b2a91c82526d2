"""A real Space server whose item analysis flags a planted gold error (the switch's tests:
tests/space/test_without_server.py, and the leak suite's crawl of the switched routes)."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from gradio_client import Client
from kit.space_server import Server, start_server
from respondeoqa_eval.data.gold import GoldSet

from .answerskit import SHORT, gold_of, private_rows, two_entries
from .helpers import GRADED, _normalizes_nonempty, file_records, planted_rows, submit, write_jsonl

MADE_WAIT = 600.0
"""Seconds the analysis and the switched numbers may take on a busy machine (a bound)."""


@dataclass
class Flagged:
    server: Server
    planted: str  # the planted gold error's item id
    ids: list[int]  # the stored entries, in the order submitted


def get(url: str) -> tuple[int, str, dict[str, str]]:
    """(status, body, headers) of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=60) as resp:
            return resp.status, resp.read().decode("utf-8", "replace"), dict(resp.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace"), dict(exc.headers)


def made(server: Server, timeout: float = MADE_WAIT) -> str:
    """The switched board once its numbers are made (asked again until the board no longer
    says they are being made)."""
    deadline = time.monotonic() + timeout
    while True:
        status, body, _ = get(f"{server.url}board?without=flagged")
        assert status == 200
        if 'data-without="making"' not in body:
            return body
        assert time.monotonic() < deadline, "the switched numbers were never made"
        time.sleep(0.5)  # polling a condition, not waiting a fixed time before asserting


def start_flagged(data_dir: Path, workdir: Path, gold: GoldSet) -> Flagged:
    """A server with six graded entries flagging a planted gold error (each answering every
    private item with a response quoting its question and gold) and two entries of every task."""
    server = start_server(data_dir, workdir)
    client = Client(server.url, verbose=False)
    short = file_records(gold, SHORT)
    planted = [r for r in short if _normalizes_nonempty(gold_of(r))][-1]
    rows_a, rows_b, _, _ = two_entries(gold)
    submissions = [
        (model, planted_rows(short, planted.id, right, wrong, answer) + private_rows(gold))
        for model, right, wrong, answer in GRADED
    ] + [("model-a", rows_a), ("model-b", rows_b)]
    ids = []
    for model, rows in submissions:
        message = submit(client, write_jsonl(workdir / f"{model}.jsonl", rows), model)[0]
        assert message.startswith("Stored as entry #"), message
        ids.append(int(message.split()[3].rstrip(":").lstrip("#")))
    made(server)
    return Flagged(server, planted.id, ids)
