"""The page shell from memory, compressed once: ASGI middlewares in front of Gradio.

`PageCache` keeps Gradio's rendered pages (Compare, Items, ...; the main page is the board's own,
board_page.py). Gradio builds a page for every request (a deep copy of the app's config, the API
description, the template): about 12 ms of the one server process's CPU. A page holds no data,
and Gradio renders the same bytes for requests that agree on what it reads from them:
the origin headers it builds the root URL from and the cookies it reads the user from
(`access-token-*`: visitors' other cookies, which real browsers always carry, do not change the
page). Those form the key; a request with a query string (Gradio's deep links, `?view=`...) is
passed through, and only a 200 HTML answer is kept. Keys come from clients, so the cache holds
at most `max_bytes` of pages (least recently used goes).

`AssetCache` keeps Gradio's own frontend files (`/assets/`: the scripts and stylesheets of its
build; `/static/`: its fonts and helper scripts): files of the installed package, the same bytes
for as long as the process runs. Gradio reads each from disk and compresses it again for every
request (about 1 ms of the server's CPU for a small file, 4 ms for its main script), and a first
visit to one of its pages asks for about 90 of them. Range requests pass through.

Both send what they keep compressed once per encoding (`Kept`): brotli, else gzip, else none, as
the request's Accept-Encoding allows, with `Vary: Accept-Encoding`. Gradio's own compression
(`gradio.brotli_middleware`, outside these) leaves an answer that is already encoded alone, and
never compressed a page: it compresses only paths with a file extension, so a page (about
120 KB, mostly the inlined config) went out as it was. The board's own page (board_page.py) is a
`Kept` too.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Awaitable, Callable, Hashable, MutableMapping
from typing import Any

import brotli
from cachetools import LRUCache
from starlette.datastructures import Headers, MutableHeaders

from ..readmodel import BOARD_ROUTE

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# what Gradio's page depends on besides the app (gradio.route_utils.get_request_origin and the
# user lookup); the answer's encoding is chosen per request from what is kept
KEY_HEADERS = (b"host", b"x-forwarded-host", b"x-gradio-server", b"x-forwarded-proto")
USER_COOKIE = "access-token"  # gradio.routes get_current_user: access-token[-unsecure]-<id>

ENCODINGS = ("br", "gzip")  # in order of preference
BROTLI_QUALITY = 5  # the page: 17.6 KB in 1.5 ms (quality 11: 15.7 KB in 87 ms)
GZIP_LEVEL = 6
MIN_COMPRESS = 500  # bytes; below this an encoding saves less than its headers cost
COMPRESSIBLE = (b"text/", b"application/javascript", b"application/json", b"image/svg+xml")
ASSET_PREFIXES = ("/assets/", "/static/")  # gradio.routes: BUILD_PATH_LIB, STATIC_PATH_LIB


def user_cookies(values: list[bytes]) -> tuple[str, ...]:
    """The cookies of Cookie header values that Gradio renders the page from, in order."""
    out = []
    for value in values:
        for part in value.decode("latin-1").split(";"):
            name, _, cookie = part.strip().partition("=")
            if name.startswith(USER_COOKIE):
                out.append(f"{name}={cookie}")
    return tuple(sorted(out))


def chosen_encoding(accept_encoding: str) -> str:
    """The encoding to send for an Accept-Encoding value: the first of ENCODINGS it accepts
    (`q=0` refuses one, `*` accepts any not named), else "identity"."""
    weights: dict[str, float] = {}
    for part in accept_encoding.split(","):
        name, *params = part.split(";")
        weight = 1.0
        for param in params:
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if name.strip():
            weights[name.strip().lower()] = weight
    for encoding in ENCODINGS:
        if weights.get(encoding, weights.get("*", 0.0)) > 0:
            return encoding
    return "identity"


def encodings(body: bytes, content_type: str) -> dict[str, bytes]:
    """`body` as sent for each encoding: itself ("identity"), and compressed when it is text
    worth compressing."""
    out = {"identity": body}
    if len(body) >= MIN_COMPRESS and content_type.encode("latin-1").startswith(COMPRESSIBLE):
        out["br"] = brotli.compress(body, quality=BROTLI_QUALITY, mode=brotli.MODE_TEXT)
        out["gzip"] = gzip.compress(body, GZIP_LEVEL, mtime=0)
    return out


class Kept:
    """An answer (status 200) in memory: its headers, and its body in each encoding."""

    def __init__(self, headers: list[tuple[bytes, bytes]], bodies: dict[str, bytes]) -> None:
        self.headers = [
            (k, v) for k, v in headers if k.lower() not in (b"content-length", b"content-encoding")
        ]
        self.bodies = bodies
        if len(bodies) > 1:
            MutableHeaders(raw=self.headers).add_vary_header("Accept-Encoding")
        self.size = sum(len(b) for b in bodies.values())

    @staticmethod
    def sized(kept: Kept) -> int:
        """What a kept answer counts against its cache's `max_bytes`."""
        return kept.size

    @classmethod
    def of(cls, headers: list[tuple[bytes, bytes]], body: bytes) -> Kept:
        """An answer's headers and body, compressed now."""
        content_type = Headers(raw=headers).get("content-type", "")
        return cls(headers, encodings(body, content_type))

    async def send(self, scope: Scope, send: Send) -> None:
        encoding = "identity"
        if len(self.bodies) > 1:
            encoding = chosen_encoding(Headers(scope=scope).get("accept-encoding", ""))
        body = self.bodies[encoding]
        headers = [*self.headers, (b"content-length", str(len(body)).encode())]
        if encoding != "identity":
            headers.append((b"content-encoding", encoding.encode()))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        head = scope.get("method") == "HEAD"
        await send({"type": "http.response.body", "body": b"" if head else body})


def _length(headers: Headers) -> int | None:
    try:
        return int(headers["content-length"])
    except (KeyError, ValueError):
        return None


async def held_answer(
    app: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
    may_keep: Callable[[Headers], bool],
    max_bytes: int,
) -> tuple[list[tuple[bytes, bytes]], bytes] | None:
    """Run `app`. An answer that may be kept (a 200, not encoded, that says its length, at most
    `max_bytes`, and that `may_keep` accepts) is held back whole and returned as (headers,
    body), not sent; anything else goes out as it comes, and None is returned."""
    start: Message = {}
    chunks: list[bytes] = []
    passing = False
    done = False

    async def hold(message: Message) -> None:
        nonlocal passing, done
        if passing:
            return await send(message)
        if message["type"] == "http.response.start":
            headers = Headers(raw=list(message.get("headers") or ()))
            length = _length(headers)
            if (
                message.get("status") == 200
                and "content-encoding" not in headers
                and length is not None
                and length <= max_bytes
                and may_keep(headers)
            ):
                start.update(message)
            else:
                passing = True
                await send(message)
            return
        if message["type"] != "http.response.body":  # an extension: give up holding
            passing = True
            await send(start)
            if chunks:
                body = b"".join(chunks)
                await send({"type": "http.response.body", "body": body, "more_body": True})
            return await send(message)
        chunks.append(message.get("body", b""))
        done = not message.get("more_body")

    await app(scope, receive, hold)
    if passing or not done:
        return None
    return list(start["headers"]), b"".join(chunks)


def _no_cookie(headers: Headers) -> bool:
    return "set-cookie" not in headers  # an answer that sets a cookie belongs to one client


class _MemoryCache:
    """Answers to GET (and HEAD, from a kept GET) kept by `key`, within `max_bytes` (least
    recently used goes; an answer at most `max_bytes` / 16); an answer is kept when
    `held_answer` may keep it and `keeps` says so."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self._kept: LRUCache[Hashable, Kept] = LRUCache(max_bytes, getsizeof=Kept.sized)
        self._lock = threading.Lock()

    def key(self, scope: Scope) -> Hashable | None:
        """The key of a request whose answer may be kept; None passes it through."""
        raise NotImplementedError

    def keeps(self, headers: Headers) -> bool:
        return _no_cookie(headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = None
        if scope["type"] == "http" and scope.get("method") in ("GET", "HEAD"):
            key = self.key(scope)
        if key is None:
            return await self.app(scope, receive, send)
        kept = self.get(key)
        if kept is not None:
            return await kept.send(scope, send)
        if scope["method"] != "GET":
            return await self.app(scope, receive, send)
        held = await held_answer(self.app, scope, receive, send, self.keeps, self.max_bytes // 16)
        if held is not None:
            headers, body = held
            kept = Kept.of(headers, body)
            self.put(key, kept)
            await kept.send(scope, send)

    def get(self, key: Hashable) -> Kept | None:
        with self._lock:
            return self._kept.get(key)

    def put(self, key: Hashable, kept: Kept) -> None:
        with self._lock:
            self._kept[key] = kept


class PageCache(_MemoryCache):
    """Serve GET/HEAD of the pages `paths` from memory after the first rendering for each
    key."""

    def __init__(
        self, app: ASGIApp, paths: tuple[str, ...] = ("/",), max_bytes: int = 32 << 20
    ) -> None:
        super().__init__(app, max_bytes)
        self.paths = paths

    def key(self, scope: Scope) -> Hashable | None:
        path = scope.get("path")
        if path not in self.paths or scope.get("query_string"):
            return None
        headers: dict[bytes, list[bytes]] = {}
        for name, value in scope.get("headers") or ():
            if name in KEY_HEADERS or name == b"cookie":
                headers.setdefault(name, []).append(value)
        return (
            path,
            scope.get("scheme"),
            tuple(scope.get("server") or ()),
            scope.get("root_path", ""),
            tuple((h, tuple(headers.get(h, ()))) for h in KEY_HEADERS),
            user_cookies(headers.get(b"cookie", [])),
        )

    def keeps(self, headers: Headers) -> bool:
        return headers.get("content-type", "").startswith("text/html") and _no_cookie(headers)


class AssetCache(_MemoryCache):
    """Serve GET/HEAD of Gradio's frontend files (`prefixes`) from memory after the first."""

    def __init__(
        self,
        app: ASGIApp,
        prefixes: tuple[str, ...] = ASSET_PREFIXES,
        max_bytes: int = 64 << 20,
    ) -> None:
        super().__init__(app, max_bytes)
        self.prefixes = prefixes

    def key(self, scope: Scope) -> Hashable | None:
        path = scope.get("path") or ""
        if not path.startswith(self.prefixes) or scope.get("query_string"):
            return None
        if any(name == b"range" for name, _ in scope.get("headers") or ()):
            return None
        return scope.get("root_path", ""), path


class CompressedAnswers(_MemoryCache):
    """Compress the answers of GET `paths` (the board's HTML; the downloads) once for each
    distinct body.

    The app answers every request (its answer is decided at request time); only the compressed
    bytes are kept, keyed by the body itself, so a body seen before costs a dictionary lookup
    (hashing it: about 0.1 ms for a 270 KB board) instead of a compression (about 5 ms). A new
    data version makes new bodies; old ones leave as the least recently used. An answer larger
    than `max_answer` (default: a sixteenth of `max_bytes`) goes out as it is.
    """

    def __init__(
        self,
        app: ASGIApp,
        paths: tuple[str, ...] = (f"/{BOARD_ROUTE}",),
        max_bytes: int = 32 << 20,
        max_answer: int | None = None,
    ) -> None:
        super().__init__(app, max_bytes)
        self.paths = paths
        self.max_answer = max_bytes // 16 if max_answer is None else max_answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (
            scope["type"] == "http"
            and scope.get("method") == "GET"
            and scope.get("path") in self.paths
        ):
            return await self.app(scope, receive, send)
        held = await held_answer(self.app, scope, receive, send, _no_cookie, self.max_answer)
        if held is None:
            return
        headers, body = held
        seen = self.get(body)
        kept = Kept.of(headers, body) if seen is None else Kept(headers, seen.bodies)
        if seen is None:
            self.put(body, kept)
        await kept.send(scope, send)
