"""An evaluation request as the record keeps it: `requests/<id>.json`, one file per request.

The id is a hash of what makes two requests the same (the Hub model, the exact commit of the
revision asked for, the sampling preset, reasoning or not), so a duplicate names the same file. A request goes
pending -> running (claimed by a worker, with a lease) -> finished (with its entries) or
failed (with a plain reason); a running request whose lease ran out is pending again for every
worker (its worker stopped), until it has been tried `max_attempts` times.

Everything read back is checked field by field (`Request.from_dict`): the record is private,
but a file that gets this wrong is skipped and named, never shown.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from ..store.evaluation import COMMIT, MODEL_ID, REQUEST_ID
from ..store.fields import Fields

FORMAT = 1
PREFIX = "requests/"
SUFFIX = ".json"
MAX_FILE_BYTES = 64 * 1024
MAX_HISTORY = 20

PENDING, RUNNING, FINISHED, FAILED = "pending", "running", "finished", "failed"
STATUSES = (PENDING, RUNNING, FINISHED, FAILED)
USERNAME = re.compile(r"[A-Za-z0-9][\w.\-]{0,95}")
_TEXT = re.compile(r"[^\x00-\x1f\x7f]{0,300}")


@dataclass(frozen=True)
class Preset:
    """A sampling preset a requester picks (the runner's settings for the whole run)."""

    name: str
    label: str
    temperature: float
    top_p: float | None
    seed: int = 0


PRESETS = {
    "paper": Preset("paper", "the paper's sampling: temperature 0.6, top-p 0.95", 0.6, 0.95),
    "greedy": Preset("greedy", "greedy decoding: temperature 0", 0.0, None),
}
DEFAULT_PRESET = "paper"


class RequestError(ValueError):
    """A request file that cannot be trusted; `str()` names the field."""


def request_id(model: str, revision: str, preset: str, reasoning: bool = False) -> str:
    """The id of a request: the same model (any letter case), commit, preset and token budget
    (reasoning or not), the same id. Without reasoning it is the id of request files written
    before reasoning was part of it."""
    key = f"{model.lower()}\n{revision}\n{preset}" + ("\nreasoning" if reasoning else "")
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def request_path(rid: str) -> str:
    return f"{PREFIX}{rid}{SUFFIX}"


def id_of_path(path: str) -> str | None:
    """The request id a `requests/<id>.json` path names; None for any other file."""
    if not (path.startswith(PREFIX) and path.endswith(SUFFIX)):
        return None
    rid = path[len(PREFIX) : -len(SUFFIX)]
    return rid if REQUEST_ID.fullmatch(rid) else None


def iso(seconds: float) -> str:
    """A UNIX time as the record writes it (UTC, seconds)."""
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="seconds")


def seconds_of(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


@dataclass(frozen=True)
class Request:
    """One evaluation request (see the module docstring)."""

    id: str
    model: str  # the Hub's own spelling of the model id
    revision: str  # the commit evaluated (the asked revision resolved when requested)
    asked_revision: str  # what the requester typed ("main", a tag, a commit)
    preset: str
    reasoning: bool
    max_new_tokens: int
    requester: str  # Hugging Face username; "" when the operator seeded it
    created: str
    licence: str = ""
    parameters: int | None = None
    gated: bool = False
    status: str = PENDING
    updated: str = ""
    attempts: int = 0  # times a worker claimed it
    worker: str = ""  # who holds the claim while running
    lease_until: str = ""  # the claim is void after this (its worker stopped)
    entries: tuple[int, ...] = ()  # the entries of a finished run, the full coverage first
    reason: str = ""  # why it failed (or, pending, why its last attempt was given back)
    operator_fault: bool = False  # failed on the operator's side: not the requester's quota
    history: tuple[str, ...] = field(default=())  # "time: what happened", the last few

    # -- state -------------------------------------------------------------------------

    def lease_expired(self, now: float) -> bool:
        return self.status == RUNNING and (
            not self.lease_until or seconds_of(self.lease_until) <= now
        )

    def claimable(self, now: float) -> bool:
        """Waiting for a worker: pending, or running on a claim whose lease ran out."""
        return self.status == PENDING or self.lease_expired(now)

    def shown_status(self, now: float) -> str:
        """The status as the requests list says it."""
        if self.lease_expired(now):
            return f"{PENDING} (its worker stopped; to be run again)"
        return self.status

    def moved(self, now: float, event: str, **changes: Any) -> Request:
        """This request after `event` (kept in its history), with `changes`."""
        history = (*self.history, f"{iso(now)}: {event}")[-MAX_HISTORY:]
        return replace(self, updated=iso(now), history=history, **changes)

    # -- the file ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["entries"] = list(self.entries)
        data["history"] = list(self.history)
        return {"format": FORMAT, **data}

    def pack(self) -> bytes:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1, sort_keys=True).encode()

    @classmethod
    def unpack(cls, blob: bytes, path: str) -> Request:
        """The checked request of the record file at `path` (RequestError when it is not one)."""
        if len(blob) > MAX_FILE_BYTES:
            raise RequestError(f"larger than {MAX_FILE_BYTES // 1024} KB")
        try:
            data = json.loads(blob.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise RequestError("not JSON") from None
        request = cls.from_dict(data)
        if request_path(request.id) != path:
            raise RequestError("id: does not match the file's name")
        return request

    @classmethod
    def from_dict(cls, data: Any) -> Request:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RequestError("format: not a request file of this version")
        # request files written before a field existed read its default
        f = Fields(
            data, error=RequestError, text=_TEXT, text_what="not a line of text", defaults=True
        )
        model = f.match("model", MODEL_ID)
        revision = f.match("revision", COMMIT)
        preset = f.text("preset")
        if preset not in PRESETS:
            raise RequestError("preset: unknown")
        rid = f.match("id", REQUEST_ID)
        reasoning = f.flag("reasoning")
        # a reasoning request written before reasoning was part of the id keeps its old id
        if rid not in (
            request_id(model, revision, preset, reasoning),
            request_id(model, revision, preset),
        ):
            raise RequestError("id: not the id of its model, revision, preset and reasoning")
        status = f.text("status")
        if status not in STATUSES:
            raise RequestError("status: unknown")
        requester = f.text("requester")
        if requester and not USERNAME.fullmatch(requester):
            raise RequestError("requester: not a Hugging Face username")
        entries = data.get("entries", [])
        if not isinstance(entries, list) or any(
            type(e) is not int or not 0 < e < 2**31 for e in entries
        ):
            raise RequestError("entries: not a list of entry numbers")
        history = data.get("history", [])
        if not isinstance(history, list) or any(
            not isinstance(h, str) or not _TEXT.fullmatch(h) for h in history
        ):
            raise RequestError("history: not a list of lines")
        return cls(
            id=rid,
            model=model,
            revision=revision,
            asked_revision=f.text("asked_revision"),
            preset=preset,
            reasoning=reasoning,
            max_new_tokens=f.integer("max_new_tokens", low=1),
            requester=requester,
            created=f.when("created"),
            licence=f.text("licence"),
            parameters=f.integer("parameters", optional=True),
            gated=f.flag("gated"),
            status=status,
            updated=f.when("updated", optional=True),
            attempts=f.integer("attempts"),
            worker=f.text("worker"),
            lease_until=f.when("lease_until", optional=True),
            entries=tuple(entries),
            reason=f.text("reason"),
            operator_fault=f.flag("operator_fault"),
            history=tuple(history[-MAX_HISTORY:]),
        )
