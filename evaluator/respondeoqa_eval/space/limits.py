"""Upload, queue and per-address daily limits, and validation of submitter metadata."""

from __future__ import annotations

import os
import re
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import InputError
from .store import Store, client_key

DAY = 24 * 3600.0


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

    @property
    def max_file_bytes(self) -> int:
        return self.max_file_mb * 1024 * 1024

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        """Defaults, overridden by $RESPONDEOQA_SPACE_DAILY (stored submissions per address per
        day), $RESPONDEOQA_SPACE_ATTEMPTS (attempts per day) and $RESPONDEOQA_SPACE_MAX_MB."""
        variables = {
            "submissions_per_day": "RESPONDEOQA_SPACE_DAILY",
            "attempts_per_day": "RESPONDEOQA_SPACE_ATTEMPTS",
            "max_file_mb": "RESPONDEOQA_SPACE_MAX_MB",
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


class RateLimitError(InputError):
    """A client reached its daily limit."""


def check_daily(store: Store, client: str, limits: Limits, now: float | None = None) -> None:
    """Raise RateLimitError if `client` (a hashed address) used up today's submissions."""
    now = time.time() if now is None else now
    since = now - DAY
    if store.count_attempts(client, since, ok_only=True) >= limits.submissions_per_day:
        raise RateLimitError(
            f"daily limit reached: at most {limits.submissions_per_day} stored submissions "
            "per address in 24 hours; please try again tomorrow"
        )
    if store.count_attempts(client, since) >= limits.attempts_per_day:
        raise RateLimitError(
            f"daily limit reached: at most {limits.attempts_per_day} submission attempts "
            "per address in 24 hours; please try again tomorrow"
        )


def client_of(request: Any, trust_proxy: bool) -> str:
    """The hashed client address of a Gradio request.

    Behind a trusted proxy (a Hub Space) the address is the LAST X-Forwarded-For entry: the one
    the proxy appended; earlier entries come from the client and could be forged to dodge the
    daily limit.
    """
    address = ""
    if request is not None:
        if trust_proxy:
            headers = getattr(request, "headers", None) or {}
            forwarded = headers.get("x-forwarded-for", "") if hasattr(headers, "get") else ""
            address = forwarded.split(",")[-1].strip()
        if not address:
            client = getattr(request, "client", None)
            address = str(getattr(client, "host", "") or "")
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


def clean_metadata(model: Any, link: Any, params: Any, note: Any, limits: Limits) -> Metadata:
    """Validate and normalise the submit form's text fields; InputError names the field."""
    return Metadata(
        model=_clean(model, "model name", limits.max_model_chars, required=True),
        link=clean_link(link, limits.max_link_chars),
        params=_clean(params, "parameter count", limits.max_params_chars),
        note=_clean(note, "note", limits.max_note_chars, multiline=True),
    )
