"""Who a client is, and how much it may upload.

Identity: the socket peer, or behind `trusted_proxies` proxies the address the outermost
trusted proxy saw; the store keeps only a hash of it (`client_key`).

Bounded uploads: per-client count and bytes per hour, and a bound on all clients' bytes kept
on disk. Gradio's own `max_file_size` caps one file; `UploadGuard` (an ASGI middleware in front
of Gradio's `POST /gradio_api/upload`) refuses, before the body is read, an upload that would
pass a client's hourly budget or the disk bound. Gradio's cache cleaner (`delete_cache`) deletes
uploaded files after `Limits.upload_keep_minutes`, so the bytes admitted within that window
(plus one cleaner period) bound the upload folder.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from ..config import Limits


def client_key(address: str) -> str:
    """What the store keeps of a client address: a short hash, never the address itself."""
    return hashlib.sha256(f"respondeoqa-space:{address}".encode()).hexdigest()[:24]


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


HOUR = 3600.0
CLEAN_EVERY = 60  # seconds between runs of Gradio's cache cleaner


def delete_cache(limits: Limits) -> tuple[int, int]:
    """Gradio's `delete_cache` (how often, older than; seconds) for these limits."""
    return (CLEAN_EVERY, limits.upload_keep_minutes * 60)


class UploadBudget:
    """Sliding-window upload accounting (thread-safe; `clock` injectable for tests)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._lock = threading.Lock()
        self._by_client: dict[str, deque[tuple[float, int]]] = {}
        self._all: deque[tuple[float, int]] = deque()
        self._all_bytes = 0
        self.disk_window = limits.upload_keep_minutes * 60.0 + CLEAN_EVERY

    def admit(self, client: str, size: int) -> str | None:
        """Count an upload of `size` bytes by `client`; a refusal message instead when it would
        pass a limit (then nothing is counted)."""
        limits = self.limits
        with self._lock:
            now = self.clock()
            while self._all and self._all[0][0] <= now - self.disk_window:
                self._all_bytes -= self._all.popleft()[1]
            mine = self._by_client.setdefault(client, deque())
            while mine and mine[0][0] <= now - HOUR:
                mine.popleft()
            if len(mine) >= limits.uploads_per_hour:
                return (
                    f"upload limit reached: at most {limits.uploads_per_hour} uploads per hour "
                    "per client; please try again later"
                )
            if sum(b for _, b in mine) + size > limits.upload_mb_per_hour * 1024 * 1024:
                return (
                    f"upload limit reached: at most {limits.upload_mb_per_hour} MB of uploads "
                    "per hour per client; please try again later"
                )
            if self._all_bytes + size > limits.upload_disk_mb * 1024 * 1024:
                return "the Space is receiving too many uploads right now; please try again later"
            mine.append((now, size))
            self._all.append((now, size))
            self._all_bytes += size
            for key in [k for k, q in self._by_client.items() if not q]:
                del self._by_client[key]
            return None


async def _refuse(send: Any, status: int, message: str) -> None:
    body = message.encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


_FILENAME = re.compile(rb'filename\*?="?([^";\r\n]*)', re.IGNORECASE)


def bad_file_name(chunk: bytes) -> str | None:
    """The first upload file name in `chunk` (multipart part headers) that is a path or a
    dotfile, also once percent-decoded (Gradio decodes it and then refuses the upload with a
    generic error); None when every name found is a plain file name."""
    for raw in _FILENAME.findall(chunk):
        name = raw.decode("utf-8", "replace")
        for form in (name, unquote(name.removeprefix("UTF-8''"))):
            if "/" in form or "\\" in form or form.startswith("."):
                return name
    return None


class UploadGuard:
    """ASGI middleware: admit each `POST .../gradio_api/upload` through an UploadBudget.

    Uploads must declare their size (Content-Length; browsers and gradio_client do), so a
    refusal costs no disk and no body read. The client is identified as for quotas. A file name
    that is a path or a dotfile is refused with our own message as the body streams by (the
    app is then told the client left, and its answer is dropped).
    """

    def __init__(self, app: Any, budget: UploadBudget, trusted_proxies: int = 0) -> None:
        self.app = app
        self.budget = budget
        self.trusted_proxies = trusted_proxies

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            scope.get("type") == "http"
            and scope.get("method") == "POST"
            and str(scope.get("path", "")).rstrip("/").endswith("/gradio_api/upload")
        ):
            from starlette.datastructures import Headers

            headers = Headers(scope=scope)
            length = headers.get("content-length", "")
            if not length.isdigit():
                await _refuse(send, 411, "uploads must give their size (Content-Length)")
                return
            peer = (scope.get("client") or ("", 0))[0] or ""
            client = client_key(client_address(peer, headers, self.trusted_proxies))
            refusal = self.budget.admit(client, int(length))
            if refusal is not None:
                await _refuse(send, 429, refusal)
                return
            await self._checked(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _checked(self, scope: Any, receive: Any, send: Any) -> None:
        refused = False
        tail = b""  # a part header may straddle two chunks

        async def checked_receive() -> Any:
            nonlocal refused, tail
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message.get("type") == "http.request":
                chunk = tail + message.get("body", b"")
                name = bad_file_name(chunk)
                if name is not None:
                    refused = True
                    shown = name if len(name) <= 80 else name[:80] + "..."
                    await _refuse(
                        send,
                        400,
                        f"upload refused: the file name {shown!r} is a path or begins with a "
                        "dot; rename the file, e.g. predictions.jsonl",
                    )
                    return {"type": "http.disconnect"}
                tail = chunk[-2048:]
            return message

        async def quiet_send(message: Any) -> None:
            if not refused:
                await send(message)

        try:
            await self.app(scope, checked_receive, quiet_send)
        except Exception:
            if not refused:
                raise
            # the app saw the client leave (ClientDisconnect): the refusal is already sent
