"""Upload, queue and per-client daily limits, client identity, and validation of submitter
metadata. The daily limits are enforced as reservations (`quota`, through `Store.reserve`)."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import InputError
from .paper import PAPER_LABEL, PAPER_ROWS
from .quota import DAY, RateLimitError
from .store import client_key

__all__ = ["DAY", "Limits", "Metadata", "RateLimitError", "clean_metadata", "client_of"]


@dataclass(frozen=True)
class Limits:
    """Every limit the Space enforces (defaults fit a CPU-basic Hub Space)."""

    max_file_mb: int = 50  # a full-size submission with long raw responses is ~10-30 MB
    submissions_per_day: int = 5  # stored entries per address per 24 h
    attempts_per_day: int = 30  # submit clicks (valid or not) per address per 24 h
    queue_size: int = 32  # events waiting in Gradio's queue
    concurrency: int = 4  # default concurrent events (table, compare)
    submit_concurrency: int = 1  # scoring is CPU-bound: one at a time
    max_model_chars: int = 100
    max_link_chars: int = 300
    max_params_chars: int = 30
    max_note_chars: int = 2000
    min_private_items: int = 10  # values resting on fewer private items are not shown (privacy)
    upload_mb_per_hour: int = 200  # bytes one client may upload per hour (any file)
    uploads_per_hour: int = 60  # uploads one client may make per hour
    upload_keep_minutes: int = 10  # uploaded files are deleted after this (submitted or not)
    upload_disk_mb: int = 2048  # all clients' uploads within upload_keep_minutes: the disk bound

    @property
    def max_file_bytes(self) -> int:
        return self.max_file_mb * 1024 * 1024

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        """Defaults, overridden by $RESPONDEOQA_SPACE_DAILY (stored submissions per client per
        day), $RESPONDEOQA_SPACE_ATTEMPTS (attempts per day), $RESPONDEOQA_SPACE_MAX_MB (one
        file), $RESPONDEOQA_SPACE_MIN_PRIVATE (k: smallest shown private group),
        $RESPONDEOQA_SPACE_UPLOAD_MB / $RESPONDEOQA_SPACE_UPLOADS (per client per hour),
        $RESPONDEOQA_SPACE_UPLOAD_KEEP_MINUTES and $RESPONDEOQA_SPACE_DISK_MB."""
        variables = {
            "submissions_per_day": "RESPONDEOQA_SPACE_DAILY",
            "attempts_per_day": "RESPONDEOQA_SPACE_ATTEMPTS",
            "max_file_mb": "RESPONDEOQA_SPACE_MAX_MB",
            "min_private_items": "RESPONDEOQA_SPACE_MIN_PRIVATE",
            "upload_mb_per_hour": "RESPONDEOQA_SPACE_UPLOAD_MB",
            "uploads_per_hour": "RESPONDEOQA_SPACE_UPLOADS",
            "upload_keep_minutes": "RESPONDEOQA_SPACE_UPLOAD_KEEP_MINUTES",
            "upload_disk_mb": "RESPONDEOQA_SPACE_DISK_MB",
        }
        source = os.environ if env is None else env
        values: dict[str, int] = {}
        for name, var in variables.items():
            raw = source.get(var, "").strip()
            if raw:
                if not raw.isdigit() or int(raw) < 1:
                    raise InputError(f"${var}: expected a positive integer, got {raw!r}")
                values[name] = int(raw)
        return cls(**values)


def forwarded_chain(headers: Any) -> list[str]:
    """Every X-Forwarded-For address, in order, from ALL header lines joined (a client can send
    several lines; reading only the first would let it choose the one that counts)."""
    if headers is None:
        return []
    if hasattr(headers, "getlist"):
        lines = headers.getlist("x-forwarded-for")
    elif hasattr(headers, "get"):
        value = headers.get("x-forwarded-for")
        lines = [] if value is None else [value]
    else:
        lines = []
    return [a.strip() for line in lines for a in str(line).split(",") if a.strip()]


def client_address(peer: str, headers: Any, trusted_proxies: int) -> str:
    """The client's address: the socket peer, or, behind `trusted_proxies` proxies, the
    address the outermost trusted proxy saw (the N-th entry from the right of the combined
    X-Forwarded-For list); entries further left come from the client and are ignored."""
    if trusted_proxies > 0:
        chain = forwarded_chain(headers)
        if chain:
            return chain[-trusted_proxies] if len(chain) >= trusted_proxies else chain[0]
    return peer


def client_of(request: Any, trusted_proxies: int = 0) -> str:
    """The quota key (hashed address) of a Gradio request; see `client_address`."""
    address = ""
    if request is not None:
        client = getattr(request, "client", None)
        peer = str(getattr(client, "host", "") or "")
        address = client_address(peer, getattr(request, "headers", None), int(trusted_proxies))
    return client_key(address or "unknown")


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _clean(
    value: Any, field: str, limit: int, *, required: bool = False, multiline: bool = False
) -> str:
    text = "" if value is None else str(value)
    text = unicodedata.normalize("NFC", text).strip()
    if not multiline:
        text = " ".join(text.split())
    text = _CONTROL.sub("", text)
    if required and not text:
        raise InputError(f"{field}: required")
    if len(text) > limit:
        raise InputError(f"{field}: at most {limit} characters (got {len(text)})")
    return text


def clean_link(value: Any, limit: int) -> str:
    """An optional link: empty, or an http(s) URL with a host and no spaces."""
    link = _clean(value, "link", limit)
    if not link:
        return ""
    parts = urlsplit(link)
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or " " in link:
        raise InputError("link: must be an http:// or https:// address")
    return link


@dataclass(frozen=True)
class Metadata:
    """Validated submitter metadata (plain text; the UI shows it as text, never HTML)."""

    model: str
    link: str
    params: str
    note: str


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).split())


# what marks a paper row: the Type column's words, and Compare's "<model> (paper)" label
_PAPER_MARKS = (_fold(PAPER_LABEL), *(_fold(f"{p.model} paper") for p in PAPER_ROWS))


def clean_model_name(value: Any, limit: int) -> str:
    """The model name: required, and not posing as one of the paper's rows."""
    name = _clean(value, "model name", limit, required=True)
    folded = f" {_fold(name)} "
    if any(f" {mark} " in folded for mark in _PAPER_MARKS) or "(paper)" in name.casefold():
        raise InputError(
            'model name: must not copy a paper row\'s label or say "reported in paper" '
            "(only the Space adds the paper's rows)"
        )
    return name


def clean_metadata(model: Any, link: Any, params: Any, note: Any, limits: Limits) -> Metadata:
    """Validate and normalise the submit form's text fields; InputError names the field."""
    return Metadata(
        model=clean_model_name(model, limits.max_model_chars),
        link=clean_link(link, limits.max_link_chars),
        params=_clean(params, "parameter count", limits.max_params_chars),
        note=_clean(note, "note", limits.max_note_chars, multiline=True),
    )
