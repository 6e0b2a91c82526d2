"""The Space's side of evaluation requests: a logged-in user asks, the desk checks and stores.

A request is checked before anything is stored, each check a plain-words refusal: the record
must be read (writes are closed until it is), the user logged in, the model id and revision
well formed (typed text is hostile: only the Hub's own id syntax passes), the user under the
limits (`RESPONDEOQA_REQUESTS_PENDING`, `_WEEKLY`), the model public on the Hub at that
revision (its model info: the exact commit, licence, parameter count), and no other request
for the same model, commit, preset and reasoning (that one is named instead; a failed one is
asked again when its requester asks, or anyone when it failed on the operator's side). What
failed on the operator's side never counts toward the weekly limit. A request that passes is
committed to the record repo at once (`ledger.RequestLedger.create`); a Hub that does not
answer stores nothing. The desk's view of every request is the record's, read at each pull.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from respondeoqa_eval import InputError

from ..config import Limits
from ..metadata import params_text
from ..store.evaluation import MODEL_ID
from ..store.hub import HubUnavailable, ModelNotFound, RemoteFile, model_info
from .ledger import RequestLedger
from .model import (
    DEFAULT_PRESET,
    FAILED,
    FINISHED,
    PENDING,
    PRESETS,
    RUNNING,
    Request,
    iso,
    request_id,
    seconds_of,
)

log = logging.getLogger(__name__)

REFUSED = "Not requested"  # how every refusal starts
WEEK = 7 * 24 * 3600.0
MAX_ID_CHARS = 96 * 2 + 1
_REVISION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._\-/]{0,98}[A-Za-z0-9])?")
TEXT_PIPELINES = {"text-generation", "text2text-generation", "image-text-to-text"}
"""Hub pipeline tags of models that answer a chat prompt with text (others are refused)."""


def clean_model_id(value: Any) -> str:
    """A Hub model id as typed ("org/name"; spaces around it dropped), or InputError."""
    text = str(value or "").strip()
    if not text:
        raise InputError("model: give a Hub model id, e.g. Qwen/Qwen2.5-7B-Instruct")
    if (
        len(text) > MAX_ID_CHARS
        or not MODEL_ID.fullmatch(text)
        or ".." in text
        or "--" in text
        or not text.isascii()
    ):
        raise InputError(
            "model: not a Hub model id (organisation/name: letters, digits, '-', '_' and '.')"
        )
    return text


def clean_revision(value: Any) -> str:
    """A revision as typed (a branch, tag or commit; "main" when empty), or InputError."""
    text = str(value or "").strip() or "main"
    if not _REVISION.fullmatch(text) or ".." in text or "//" in text or not text.isascii():
        raise InputError("revision: a branch, tag or commit of the model (default main)")
    return text


def parameter_text(parameters: int | None) -> str:
    """A parameter count (the Hub's, a whole number) as the board writes every count
    (`metadata.params_text`: "44.2K", "0.494B", "7.6B"; "" when unknown)."""
    return params_text(parameters / 1e9) if parameters else ""


@dataclass(frozen=True)
class ModelFacts:
    """What the Hub says of a model at a revision, as a request records it."""

    model: str
    revision: str
    licence: str
    parameters: int | None
    gated: bool


def facts_of(info: Any, asked: str) -> ModelFacts:
    """The facts of a huggingface_hub ModelInfo; InputError when it cannot be evaluated."""
    name = str(getattr(info, "id", "") or "")
    sha = str(getattr(info, "sha", "") or "")
    if getattr(info, "private", False):
        raise InputError(f"{name} is private: only public models can be evaluated")
    if getattr(info, "disabled", False):
        raise InputError(f"{name} is disabled on the Hub")
    if not MODEL_ID.fullmatch(name) or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise InputError(f"the Hub's answer about {asked} is not one of a model")
    pipeline = getattr(info, "pipeline_tag", None)
    if pipeline and pipeline not in TEXT_PIPELINES:
        article = "an" if pipeline[:1].lower() in "aeiou" else "a"
        raise InputError(f"{name} is {article} {pipeline} model, not one that generates text")
    card = getattr(info, "card_data", None)
    licence = getattr(card, "license", None) if card is not None else None
    if not licence:
        tags = getattr(info, "tags", None) or []
        licence = next((t.split(":", 1)[1] for t in tags if t.startswith("license:")), "")
    if isinstance(licence, list):
        licence = ", ".join(str(x) for x in licence)
    licence = re.sub(r"[^\w.+\- ,]", "", str(licence))[:60]
    safetensors = getattr(info, "safetensors", None)
    total = getattr(safetensors, "total", None) if safetensors is not None else None
    return ModelFacts(
        model=name,
        revision=sha,
        licence=licence,
        parameters=int(total) if isinstance(total, int) and total > 0 else None,
        gated=bool(getattr(info, "gated", False)),
    )


def new_request(
    facts: ModelFacts,
    asked_revision: str,
    preset: str,
    reasoning: bool,
    requester: str,
    limits: Limits,
    now: float,
) -> Request:
    """A pending request for a checked model (the token budget from the limits)."""
    return Request(
        id=request_id(facts.model, facts.revision, preset, reasoning),
        model=facts.model,
        revision=facts.revision,
        asked_revision=asked_revision,
        preset=preset,
        reasoning=reasoning,
        max_new_tokens=limits.reasoning_tokens if reasoning else limits.request_tokens,
        requester=requester,
        created=iso(now),
        licence=facts.licence,
        parameters=facts.parameters,
        gated=facts.gated,
    )


@dataclass(frozen=True)
class RequestOutcome:
    """What the requester sees: a plain-text message, and the request when one is named."""

    ok: bool
    message: str
    request: Request | None = None


def _refused(reason: str, request: Request | None = None) -> RequestOutcome:
    return RequestOutcome(False, f"{REFUSED}: {reason}", request)


def describe(request: Request, now: float) -> str:
    """One line on where a request stands."""
    status = request.shown_status(now)
    if request.status == FINISHED and request.entries:
        first, *rest = request.entries
        more = f" (+{len(rest)} on other coverages)" if rest else ""
        return f"finished: entry #{first}{more}"
    if request.status == FAILED:
        return f"failed: {request.reason}"
    if request.status == PENDING and request.reason:  # given back by the operator's side
        return f"pending (its last attempt was given back: {request.reason})"
    return status


class RequestDesk:
    """Evaluation requests on the Space (see the module docstring)."""

    def __init__(
        self,
        ledger: RequestLedger,
        limits: Limits,
        *,
        closed: Callable[[], str | None] = lambda: None,
        hub_token: str | None = None,
        hub_endpoint: str | None = None,
        clock: Callable[[], float] = time.time,
        lookup: Callable[..., Any] = model_info,
    ) -> None:
        self.ledger = ledger
        self.limits = limits
        self.closed = closed
        self.hub_token = hub_token
        self.hub_endpoint = hub_endpoint
        self.clock = clock
        self.lookup = lookup
        self._lock = threading.Lock()  # one check-and-store at a time

    def read(self, tree: dict[str, RemoteFile], head: str) -> None:
        """Read the record's requests (the Space's sync calls this after every read)."""
        self.ledger.read(tree, head)

    def requests(self) -> list[Request]:
        """Every request as last read, newest first."""
        return sorted(self.ledger.requests().values(), key=lambda r: (r.created, r.id))[::-1]

    def request(
        self, model: Any, revision: Any, preset: Any, reasoning: Any, username: str
    ) -> RequestOutcome:
        """Check and store one request (see the module docstring)."""
        closed = self.closed()
        if closed:
            return _refused(closed)
        if not username:
            return _refused("log in with Hugging Face (button above) to request an evaluation.")
        try:
            asked_model = clean_model_id(model)
            asked_revision = clean_revision(revision)
            preset_name = str(preset or DEFAULT_PRESET)
            if preset_name not in PRESETS:
                raise InputError(f"sampling: one of {', '.join(PRESETS)}")
            if not isinstance(reasoning, bool):
                raise InputError("reasoning: yes or no")
        except InputError as exc:
            return _refused(str(exc))
        with self._lock:
            over = self._over_limit(username)
            if over:
                return _refused(over)
            try:
                facts = facts_of(
                    self.lookup(
                        asked_model,
                        asked_revision,
                        token=self.hub_token,
                        endpoint=self.hub_endpoint,
                    ),
                    asked_model,
                )
            except (InputError, ModelNotFound) as exc:
                return _refused(f"{exc}.")
            except HubUnavailable as exc:
                log.warning("model info failed: %s", exc)
                return _refused("the Hub did not answer; nothing was stored, please try again.")
            made = new_request(
                facts, asked_revision, preset_name, reasoning, username, self.limits, self.clock()
            )
            existing = self.ledger.requests().get(made.id)
            if existing is not None and self._may_ask_again(existing, username):
                return self._asked_again(existing, username)
            if existing is not None:
                return self._duplicate(existing)
            try:
                stored, new = self.ledger.create(made)
            except HubUnavailable as exc:
                log.warning("request not stored: %s", exc)
                return _refused(
                    "the leaderboard's record on the Hub did not answer; nothing was stored, "
                    "please try again."
                )
        if not new:
            return self._duplicate(stored)
        log.info("request %s stored: %s", stored.id, stored.model)
        preset_label = PRESETS[stored.preset].label
        budget_text = f"up to {stored.max_new_tokens:,} new tokens per item"
        size = parameter_text(stored.parameters)
        facts_text = "; ".join(
            x
            for x in (
                f"licence {stored.licence}" if stored.licence else "",
                f"{size} parameters" if size else "",
                "gated on the Hub" if stored.gated else "",
            )
            if x
        )
        return RequestOutcome(
            True,
            f"Requested {stored.model} at revision {stored.revision[:12]} "
            f"({stored.asked_revision}): {preset_label}, {budget_text}"
            + (f" ({facts_text})" if facts_text else "")
            + f". Request {stored.id} is pending: the operator's worker runs it on every item "
            "the leaderboard holds; its status is in the list below.",
            stored,
        )

    @staticmethod
    def _may_ask_again(existing: Request, username: str) -> bool:
        """A failed request may be asked again by its requester, and by anyone when it failed
        on the operator's side."""
        return existing.status == FAILED and (
            existing.requester == username or existing.operator_fault
        )

    def _asked_again(self, existing: Request, username: str) -> RequestOutcome:
        try:
            back = self.ledger.reopen(existing, f"asked again by {username}")
        except HubUnavailable as exc:
            log.warning("request not reopened: %s", exc)
            return _refused(
                "the leaderboard's record on the Hub did not answer; nothing was stored, "
                "please try again."
            )
        log.info("request %s asked again by %s", back.id, username)
        return RequestOutcome(
            True,
            f"Asked again: request {back.id} ({back.model} at revision {back.revision[:12]}, "
            f"{back.preset}) had failed ({existing.reason}); it is pending again.",
            back,
        )

    def _duplicate(self, existing: Request) -> RequestOutcome:
        where = describe(existing, self.clock())
        return _refused(
            f"{existing.model} at revision {existing.revision[:12]} with the "
            f"{existing.preset} preset was requested already: request {existing.id}, {where}.",
            existing,
        )

    def _over_limit(self, username: str) -> str | None:
        now = self.clock()
        mine = [r for r in self.ledger.requests().values() if r.requester == username]
        waiting = sum(1 for r in mine if r.status in (PENDING, RUNNING))
        if waiting >= self.limits.requests_pending:
            return (
                f"you have {waiting} requests waiting or running (at most "
                f"{self.limits.requests_pending} per user); please wait until one has finished."
            )
        # what failed on the operator's side costs the requester nothing
        recent = sum(
            1
            for r in mine
            if now - seconds_of(r.created) < WEEK and not (r.status == FAILED and r.operator_fault)
        )
        if recent >= self.limits.requests_per_week:
            return (
                f"at most {self.limits.requests_per_week} requests per user in 7 days; please "
                "try again later."
            )
        return None
