"""Run the benchmark against any OpenAI-compatible chat-completions server.

vLLM, TGI, llama.cpp server, hosted APIs: one POST per item to `{api_base}/chat/completions`,
`concurrency` requests in flight, retried (tenacity) with exponential backoff and jitter on 429,
5xx, timeouts and dropped connections (a `Retry-After` header is honoured). Each answer is written
as soon as it arrives, so a kill loses only the requests in flight. The server's own token
counts of each answer (`usage`), when it gives them, are kept in its row.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from ..data.records import Record
from ..errors import InputError
from .output import PredictionWriter, make_row
from .prompts import PROMPT_VERSION, build_messages

if TYPE_CHECKING:
    from tenacity import RetryCallState

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


def retry_wait(base: float, cap: float) -> Callable[[RetryCallState], float]:
    """tenacity's wait before the next attempt: exponential (`base * 2**k` before the k-th
    retry counted from 0, at most `cap`) with "equal jitter" (a uniform draw in its upper half,
    so concurrent clients spread out), and never less than the server's Retry-After."""
    from tenacity import wait_exponential, wait_random_exponential

    half = wait_exponential(multiplier=base / 2, max=cap / 2)
    jitter = wait_random_exponential(multiplier=base / 2, max=cap / 2)

    def wait(state: RetryCallState) -> float:
        failure = state.outcome.exception() if state.outcome is not None else None
        retry_after = getattr(failure, "retry_after", None)
        delay = half(state) + jitter(state)
        return delay if retry_after is None else max(delay, retry_after)

    return wait


class _Retryable(Exception):
    """An attempt that failed in a way worth another: why, and the server's Retry-After."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


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
) -> Completion:
    """POST one chat completion, retried on 429, 408/409/425, 5xx, timeouts, dropped
    connections and malformed answers; any other error status is not retried."""
    import httpx
    from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt

    async def attempt() -> tuple[str, str | None, dict[str, int] | None]:
        try:
            resp = await client.post(url, json=body, headers=headers)
        except httpx.TimeoutException:
            raise _Retryable(f"timed out after {settings.timeout:g}s") from None
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error ({type(exc).__name__})") from None
        if resp.status_code == 200:
            try:
                return _parse_completion(resp.json())
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                raise _Retryable("malformed response (no choices[0].message.content)") from None
        if resp.status_code in RETRY_STATUSES or resp.status_code >= 500:
            raise _Retryable(
                f"HTTP {resp.status_code}: {_error_text(resp)}",
                parse_retry_after(resp.headers.get("retry-after")),
            )
        raise InputError(f"{url}: HTTP {resp.status_code} for item {item_id}: {_error_text(resp)}")

    retrying = AsyncRetrying(
        sleep=sleep,
        stop=stop_after_attempt(settings.max_retries + 1),
        wait=retry_wait(settings.backoff_base, settings.backoff_max),
        retry=retry_if_exception_type(_Retryable),
        reraise=True,
    )
    try:
        async for state in retrying:
            with state:
                content, finish, usage = await attempt()
                return Completion(content, finish, state.retry_state.attempt_number, usage)
    except _Retryable as last:
        raise InputError(
            f"{url}: item {item_id} failed after {settings.max_retries + 1} attempts (last: "
            f"{last}); answers so far are saved, rerun the same command to resume"
        ) from None
    raise AssertionError("unreachable: tenacity returns or raises")  # pragma: no cover


def run_api(
    records: list[Record],
    writer: PredictionWriter,
    settings: ApiSettings,
    progress: Any = None,
) -> int:
    """Answer every record not yet in `writer.done`; returns how many rows were written."""
    try:
        import httpx  # noqa: F401
        import tenacity  # noqa: F401
    except ImportError as exc:
        raise InputError(
            f"the API runner needs {exc.name}: pip install 'respondeoqa-eval[run]' (or pip "
            f"install {exc.name})"
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

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal written
        while True:
            try:
                rec = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            body = _request_body(settings, build_messages(rec))
            answer = await complete(client, url, body, headers, item_id=rec.id, settings=settings)
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
