"""The page shell from memory: an ASGI middleware that keeps Gradio's rendered "/" page.

Gradio builds the page for every request (a deep copy of the app's config, the API description,
the template): about 12 ms of the one server process's CPU, most of a page load's cost since the
board comes from the app's own route. The page holds no data, and Gradio renders the same bytes
for requests that agree on what it reads from them: the origin headers it builds the root URL
from and the cookies it reads the user from. Those form the key; a request with a query string
(Gradio's deep links, `?view=`...) is passed through, and only a 200 HTML answer is kept. Keys
come from clients, so the cache holds at most `max_entries` pages (least recently used goes).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# what Gradio's page depends on besides the app (gradio.route_utils.get_request_origin and the
# user lookup); the answer's encoding is the outer middleware's business, not ours
KEY_HEADERS = (b"host", b"x-forwarded-host", b"x-gradio-server", b"x-forwarded-proto", b"cookie")


class PageCache:
    """Serve GET/HEAD `path` from memory after the first rendering for each key."""

    def __init__(self, app: ASGIApp, path: str = "/", max_entries: int = 64) -> None:
        self.app = app
        self.path = path
        self.max_entries = max_entries
        self._pages: OrderedDict[tuple, tuple[int, list, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def _key(self, scope: Scope) -> tuple | None:
        if (
            scope["type"] != "http"
            or scope.get("method") not in ("GET", "HEAD")
            or scope.get("path") != self.path
            or scope.get("query_string")
        ):
            return None
        headers = {}
        for name, value in scope.get("headers") or ():
            if name in KEY_HEADERS:
                headers.setdefault(name, []).append(value)
        return (
            scope.get("method"),
            scope.get("scheme"),
            tuple(scope.get("server") or ()),
            scope.get("root_path", ""),
            tuple((h, tuple(headers.get(h, ()))) for h in KEY_HEADERS),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = self._key(scope)
        if key is None:
            return await self.app(scope, receive, send)
        with self._lock:
            page = self._pages.get(key)
            if page is not None:
                self._pages.move_to_end(key)
        if page is not None:
            status, headers, body = page
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        start: Message = {}
        chunks: list[bytes] = []

        async def keep(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body"):
                    self._store(key, start, b"".join(chunks))
            await send(message)

        await self.app(scope, receive, keep)

    def _store(self, key: tuple, start: Message, body: bytes) -> None:
        headers = list(start.get("headers") or ())
        content_type = next((v for k, v in headers if k.lower() == b"content-type"), b"")
        if start.get("status") != 200 or not content_type.startswith(b"text/html"):
            return
        if any(k.lower() == b"set-cookie" for k, _ in headers):
            return  # an answer that sets a cookie belongs to one client
        with self._lock:
            self._pages[key] = (200, headers, body)
            self._pages.move_to_end(key)
            while len(self._pages) > self.max_entries:
                self._pages.popitem(last=False)
