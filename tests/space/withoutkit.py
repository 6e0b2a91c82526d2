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
from synthetic import SECRET_MARKER

from .answerskit import PRIVATE_RESPONSE, SHORT, gold_of, private_rows, two_entries
from .helpers import GRADED, _normalizes_nonempty, file_records, planted_rows, submit, write_jsonl

MADE_WAIT = 600.0
"""Seconds the analysis and the switched numbers may take on a busy machine (a bound)."""


@dataclass
class Flagged:
    server: Server
    planted: str  # the planted gold error's item id
    ids: list[int]  # the stored entries, in the order submitted
    private: str  # the planted private gold error's item id (never to be named anywhere)


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


PRIVATE_PLANTED = f"{SECRET_MARKER}planted"
"""The strong entries' answer to the planted private item (it carries the private marker: a
page that shows it leaks)."""


@dataclass(frozen=True)
class Graded:
    planted: str  # the planted public gold error's item id
    private: str  # the planted private one's (never to be named anywhere)
    submissions: list[tuple[str, list[dict[str, str]]]]  # (model, rows), in order


def graded(gold: GoldSet) -> Graded:
    """Six graded entries that flag a planted public gold error and a planted private one, and
    two entries of every task (format failures, feet, translations). On the Certamen short
    answers too the entries are graded (the strongest right on most, the weakest on few, each
    wrong with its own word), the three strongest agree on PRIVATE_PLANTED for the planted one;
    every private answer is a response quoting its question."""
    short = file_records(gold, SHORT)
    planted = [r for r in short if _normalizes_nonempty(gold_of(r))][-1]
    private_short = [r for r in gold.records if r.is_private and r.task == "short_answer"]
    private = private_short[-1]
    rows_a, rows_b, _, _ = two_entries(gold)
    submissions = []

    def quoting(item: str, answer: str) -> dict[str, str]:
        question = gold.by_id[item].question
        return {"id": item, "response": f"{PRIVATE_RESPONSE} {question}\nAnswer: {answer}"}

    for model, right, wrong, answer in GRADED:
        ok = {r.id for r in private_short[: len(private_short) * right // len(short)]}
        theirs = {r.id: gold_of(r) if r.id in ok else SECRET_MARKER + wrong for r in private_short}
        theirs[private.id] = PRIVATE_PLANTED if answer == "plantedwrong" else SECRET_MARKER + wrong
        rows = planted_rows(short, planted.id, right, wrong, answer)
        rows += [
            quoting(row["id"], theirs[row["id"]]) if row["id"] in theirs else row
            for row in private_rows(gold)
        ]
        submissions.append((model, rows))
    for model, rows in (("model-a", rows_a), ("model-b", rows_b)):  # wrong on it, their own way
        wrong = quoting(private.id, f"{SECRET_MARKER}{model}")
        submissions.append((model, [wrong if r["id"] == private.id else r for r in rows]))
    return Graded(planted.id, private.id, submissions)


def start_flagged(data_dir: Path, workdir: Path, gold: GoldSet) -> Flagged:
    """A server with the `graded` entries: a planted public and a planted private gold error
    flagged."""
    server = start_server(data_dir, workdir)
    client = Client(server.url, verbose=False)
    found = graded(gold)
    ids = []
    for model, rows in found.submissions:
        message = submit(client, write_jsonl(workdir / f"{model}.jsonl", rows), model)[0]
        assert message.startswith("Stored as entry #"), message
        ids.append(int(message.split()[3].rstrip(":").lstrip("#")))
    made(server)
    return Flagged(server, found.planted, ids, found.private)
