"""Builders for the Jobs dispatcher's tests: the Jobs stand-in mounted in the Hub stand-in, a
gold repo holding the operator's files, and the dispatcher as `respondeoqa-space dispatch` composes it."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from huggingface_hub import HfApi
from kit.hubstub import RECORD_REPO, TOKEN, HubStub
from kit.jobstub import JobStub
from respondeoqa_space.jobs.dispatcher import Dispatcher, DispatchSettings

from .requestkit import ledger_of

GOLD_REPO = "operator/respondeoqa-gold"


def put_gold(hub: HubStub, folder: Path) -> None:
    """The operator's files (private and public) in the private gold repo on the stand-in."""
    for path in sorted(folder.glob("*.json*")):
        hub.put(GOLD_REPO, path.name, path.read_bytes())
    hub.private[f"dataset:{GOLD_REPO}"] = True


def dispatcher_of(
    hub: HubStub,
    folder: Path,
    *,
    clock: Callable[[], float] = time.time,
    **settings: Any,
) -> Dispatcher:
    """A dispatcher on the stand-in's record and Jobs, with its own copy of the record."""
    base = dict(
        repo=RECORD_REPO,
        namespace="operator",
        record_token=TOKEN,
        gold_repo=GOLD_REPO,
        gold_token=TOKEN,
        hub_endpoint=hub.url,
        hub_token=TOKEN,
        lease=900.0,
    )
    return Dispatcher(
        ledger_of(hub, folder, clock),
        HfApi(endpoint=hub.url, token=TOKEN),
        DispatchSettings(**{**base, **settings}),
        clock=clock,
    )


def mount_jobs(hub: HubStub, folder: Path, **kwargs: Any) -> JobStub:
    hub.jobs = JobStub(folder, **kwargs)
    return hub.jobs
