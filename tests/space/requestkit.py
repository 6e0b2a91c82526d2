"""Builders for the evaluation-request tests: a model on the Hub stand-in, the Space's request
desk and the operator's worker on the stand-in's record, each as the real code composes them."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from respondeoqa_eval.data.gold import GoldSet
from respondeoqa_space.config import Limits
from respondeoqa_space.requests.desk import RequestDesk
from respondeoqa_space.requests.ledger import RequestLedger
from respondeoqa_space.requests.model import Request, id_of_path
from respondeoqa_space.store import Store
from respondeoqa_space.store.hub import HubRepo
from respondeoqa_space.store.sync import Syncer
from respondeoqa_space.worker.worker import Worker, WorkerSettings

from .helpers import intake_of

MODEL = "tiny-org/tiny-llama"
CARD = "---\nlicense: apache-2.0\npipeline_tag: text-generation\n---\n# Tiny llama\n"


def add_tiny_model(hub: HubStub, folder: Path, repo_id: str = MODEL, **kwargs: Any) -> str:
    """The tiny model of `folder` as a public model repo on the stand-in; its head commit."""
    return hub.add_model(repo_id, folder, card=kwargs.pop("card", CARD), **kwargs)


def repo_of(hub: HubStub, cache: Path) -> HubRepo:
    repo = HubRepo(
        RECORD_REPO, token=TOKEN, endpoint=hub.url, cache_dir=cache, sleep=lambda s: None
    )
    repo.create(private=True)
    return repo


def ledger_of(hub: HubStub, cache: Path, clock: Callable[[], float] = time.time) -> RequestLedger:
    return RequestLedger(repo_of(hub, cache), clock=clock)


def desk_of(
    hub: HubStub, cache: Path, limits: Limits | None = None, clock: Callable[[], float] = time.time
) -> RequestDesk:
    """The Space's desk as the Space makes it (its own token and endpoint for model info)."""
    desk = RequestDesk(
        ledger_of(hub, cache, clock),
        limits or Limits(),
        hub_token=TOKEN,
        hub_endpoint=hub.url,
        clock=clock,
    )
    desk.ledger.read_now()
    return desk


def requests_in_record(hub: HubStub) -> dict[str, dict]:
    """The request files the record holds, by id."""
    import json

    return {
        id_of_path(p): json.loads(b)
        for p, b in hub.files(RECORD_REPO).items()
        if id_of_path(p) is not None
    }


def worker_of(
    hub: HubStub,
    gold: GoldSet,
    folder: Path,
    engine: Any,
    *,
    worker_id: str = "w1",
    clock: Callable[[], float] = time.time,
    **settings: Any,
) -> Worker:
    """The operator's worker as `respondeoqa-space worker` composes it, in this process."""
    folder.mkdir(parents=True, exist_ok=True)
    store = Store(folder / "record.sqlite3")
    intake = intake_of(store, gold)
    repo = repo_of(hub, folder / "hub-cache")
    worker = Worker(
        store=store,
        syncer=Syncer(store, repo, verify=intake.verify, limits=Limits()),
        intake=intake,
        ledger=RequestLedger(repo, clock=clock),
        gold=gold,
        engine=engine,
        settings=WorkerSettings(
            worker_id=worker_id, hub_endpoint=hub.url, hub_token=TOKEN, **settings
        ),
        work_dir=folder,
        limits=Limits(),
    )
    worker.start()
    return worker


def request_of(hub: HubStub, rid: str) -> Request:
    import json

    return Request.from_dict(requests_in_record(hub)[rid]) if rid else json.loads("null")
