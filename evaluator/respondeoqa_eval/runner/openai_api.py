"""Run the benchmark against any OpenAI-compatible chat-completions server.

vLLM, TGI, llama.cpp server, hosted APIs: one POST per item to `{api_base}/chat/completions`,
`concurrency` requests in flight, retries with exponential backoff and jitter on 429, 5xx,
timeouts and dropped connections (a `Retry-After` header is honoured). Each answer is written
as soon as it arrives, so a kill loses only the requests in flight. The server's own token
counts of each answer (`usage`), when it gives them, are kept in its row.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..data.records import Record
from ..errors import InputError
from .output import PredictionWriter, make_row
from .prompts import PROMPT_VERSION, build_messages

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
RETRY_STATUSES = frozenset({408, 409, 425, 429})  # plus every 5xx
MAX_RETRY_AFTER = 600.0


@dataclass
class ApiSettings:
    """How to reach the server and sample. `None` sampling values are left out of requests."""

    api_base: str
    model: str
    api_key: str | None = None
    concurrency: int = 8
    timeout: float = 600.0
    max_retries: int = 8
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    temperature: float | None = 0.6
    top_p: float | None = 0.95
    seed: int | None = 0
    max_new_tokens: int | None = None
    # engine-specific request fields (`transformers serve`: a generation_config that makes it
    # sample); recorded in the rows when given
    extra_body: dict[str, Any] = field(default_factory=dict)

    def params(self) -> dict[str, Any]:
        """The parameters recorded in every output row."""
        params = {
            "backend": "openai-compatible",
            "temperature": self.temperature,
            "top_p": self.top_p,
            "seed": self.seed,
            "max_new_tokens": self.max_new_tokens,
        }
        return {**params, "extra_body": dict(self.extra_body)} if self.extra_body else params


def api_key_from_env(name: str | None, *, explicit: bool) -> str | None:
    """The API key in environment variable `name`.

    A missing default variable is fine (local servers need no key); a variable named with
    `--api-key-env` must be set.
    """
    if not name:
        return None
    key = os.environ.get(name)
    if not key and explicit:
        raise InputError(f"--api-key-env {name}: that environment variable is not set")
    return key or None


def chat_url(api_base: str) -> str:
    """`{api_base}/chat/completions`; a base that already ends with it is used as is."""
    base = api_base.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise InputError(f"--api-base {api_base!r}: must start with http:// or https://")
    return base if base.endswith("/chat/completions") else f"{base}/chat/completions"


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


def backoff_delay(
    attempt: int,
    retry_after: float | None,
    *,
    base: float,
    cap: float,
    rng: random.Random | None = None,
) -> float:
    """Seconds before retry number `attempt + 1`.

    Exponential (`base * 2**attempt`, at most `cap`) with "equal jitter" (a uniform draw in its
    upper half, so concurrent clients spread out), and never less than the server's Retry-After.
    """
    rng = rng or random
    expo = min(cap, base * (2**attempt))
    delay = expo / 2 + rng.uniform(0, expo / 2)
    if retry_after is not None:
        delay = max(delay, retry_after)
    return delay


def _request_body(settings: ApiSettings, messages: list[dict[str, str]]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": settings.model, "messages": messages}
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    if settings.top_p is not None:
        body["top_p"] = settings.top_p
    if settings.seed is not None:
        body["seed"] = settings.seed
    if settings.max_new_tokens is not None:
        body["max_tokens"] = settings.max_new_tokens
    return {**settings.extra_body, **body}


def _error_text(resp: Any) -> str:
    """A short reason from an error response (the server's message, cut short)."""
    try:
        data = resp.json()
        msg = data.get("error", data) if isinstance(data, dict) else data
        if isinstance(msg, dict):
            msg = msg.get("message", msg)
        text = str(msg)
    except Exception:
        text = resp.text
    text = " ".join(text.split())
    return text[:200] + ("..." if len(text) > 200 else "")


class Completion(NamedTuple):
    """One answered request: the text, why generation stopped, the attempts it took, and the
    server's token counts ({"prompt_tokens", "completion_tokens"}; None when not given)."""

    content: str
    finish_reason: str | None
    attempts: int
    usage: dict[str, int] | None = None


def _usage(data: Any) -> dict[str, int] | None:
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return None
    counts = {
        k: v
        for k in ("prompt_tokens", "completion_tokens")
        if type(v := usage.get(k)) is int and v >= 0
    }
    return counts or None


def _parse_completion(data: Any) -> tuple[str, str | None, dict[str, int] | None]:
    choice = data["choices"][0]
    content = choice["message"].get("content")
    if content is not None and not isinstance(content, str):
        raise TypeError("message content is not a string")
    return content or "", choice.get("finish_reason"), _usage(data)


async def complete(
    client: Any,
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    *,
    item_id: str,
    settings: ApiSettings,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    rng: random.Random | None = None,
) -> Completion:
    """POST one chat completion with retries."""
    import httpx

    last = ""
    for attempt in range(settings.max_retries + 1):
        retry_after = None
        try:
            resp = await client.post(url, json=body, headers=headers)
        except httpx.TimeoutException:
            last = f"timed out after {settings.timeout:g}s"
        except httpx.TransportError as exc:
            last = f"connection error ({type(exc).__name__})"
        else:
            if resp.status_code == 200:
                try:
                    content, finish, usage = _parse_completion(resp.json())
                    return Completion(content, finish, attempt + 1, usage)
                except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                    last = "malformed response (no choices[0].message.content)"
            elif resp.status_code in RETRY_STATUSES or resp.status_code >= 500:
                last = f"HTTP {resp.status_code}: {_error_text(resp)}"
                retry_after = parse_retry_after(resp.headers.get("retry-after"))
            else:
                raise InputError(
                    f"{url}: HTTP {resp.status_code} for item {item_id}: {_error_text(resp)}"
                )
        if attempt == settings.max_retries:
            break
        await sleep(
            backoff_delay(
                attempt, retry_after, base=settings.backoff_base, cap=settings.backoff_max, rng=rng
            )
        )
    raise InputError(
        f"{url}: item {item_id} failed after {settings.max_retries + 1} attempts (last: {last}); "
        "answers so far are saved, rerun the same command to resume"
    )


def run_api(
    records: list[Record],
    writer: PredictionWriter,
    settings: ApiSettings,
    progress: Any = None,
) -> int:
    """Answer every record not yet in `writer.done`; returns how many rows were written."""
    try:
        import httpx  # noqa: F401
    except ImportError:
        raise InputError(
            "the API runner needs httpx: pip install 'respondeoqa-eval[run]' (or pip install httpx)"
        ) from None
    if settings.concurrency < 1:
        raise InputError("--concurrency must be at least 1")
    todo = [r for r in records if r.id not in writer.done]
    if not todo:
        return 0
    return asyncio.run(_run(todo, writer, settings, progress))


async def _run(
    todo: list[Record], writer: PredictionWriter, settings: ApiSettings, progress: Any
) -> int:
    import httpx

    url = chat_url(settings.api_base)
    headers = {"Content-Type": "application/json"}
    if settings.api_key:
        headers["Authorization"] = f"Bearer {settings.api_key}"
    params = settings.params()
    queue: asyncio.Queue[Record] = asyncio.Queue()
    for rec in todo:
        queue.put_nowait(rec)
    written = 0
    rng = random.Random()

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal written
        while True:
            try:
                rec = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            body = _request_body(settings, build_messages(rec))
            answer = await complete(
                client, url, body, headers, item_id=rec.id, settings=settings, rng=rng
            )
            extra: dict[str, Any] = {"finish_reason": answer.finish_reason}
            if answer.usage:
                extra["usage"] = answer.usage
            row = make_row(
                rec.id,
                rec.question_id,
                rec.question_language,
                answer.content,
                model=settings.model,
                prompt_version=PROMPT_VERSION,
                params=params,
                **extra,
            )
            await asyncio.to_thread(writer.write, row)
            written += 1
            if progress is not None:
                progress.update(1)

    if progress is not None and hasattr(progress, "start"):
        progress.start()
    n = min(settings.concurrency, len(todo))
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)
    timeout = httpx.Timeout(settings.timeout, connect=min(settings.timeout, 30.0))
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        tasks = [asyncio.create_task(worker(client)) for _ in range(n)]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    return written
