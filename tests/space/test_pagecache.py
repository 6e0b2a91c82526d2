"""The page cache and its siblings (space/web/pagecache.py) in front of a real Starlette app: the
page is rendered once per key, and everything that could make two answers differ is either in
the key or passes through; what is kept goes out compressed as the browser accepts; Gradio's
frontend files are read once; the board is compressed but always answered afresh."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import brotli
import pytest
from respondeoqa_space.web.pagecache import (
    AssetCache,
    CompressedAnswers,
    PageCache,
    chosen_encoding,
)
from starlette.applications import Starlette
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient


def _client(kind: str = "page", max_bytes: int = 32 << 20) -> tuple[TestClient, list[str]]:
    """A Starlette app behind PageCache whose "/" renders a numbered page ("page"), refuses
    ("busy") or sets a cookie ("cookie")."""
    calls: list[str] = []
    counter = itertools.count(1)

    def page(request):
        calls.append(request.url.path)
        # as Gradio does: the user from its access-token cookie
        user = request.cookies.get("access-token-abc", "anonymous")
        host = request.headers.get("x-forwarded-host", request.url.hostname)
        return HTMLResponse(f"<p>render {next(counter)} for {user} at {host}</p>")

    def other(request):
        calls.append(request.url.path)
        return PlainTextResponse(f"other {next(counter)}")

    def refused(request):
        calls.append(request.url.path)
        return HTMLResponse("busy", status_code=503)

    def with_cookie(request):
        calls.append(request.url.path)
        response = HTMLResponse(f"cookie {next(counter)}")
        response.set_cookie("session", "new")
        return response

    root = {"page": page, "busy": refused, "cookie": with_cookie}[kind]
    app = Starlette(routes=[Route("/", root), Route("/other", other)])
    app.add_middleware(PageCache, max_bytes=max_bytes)
    return TestClient(app), calls


def test_the_page_is_rendered_once_per_key() -> None:
    client, calls = _client()
    first = client.get("/")
    assert client.get("/").text == first.text == "<p>render 1 for anonymous at testserver</p>"
    assert calls == ["/"]
    # another origin (behind a proxy) or another user is another page
    proxied = client.get("/", headers={"x-forwarded-host": "space.example"})
    assert proxied.text == "<p>render 2 for anonymous at space.example</p>"
    alice = client.get("/", headers={"cookie": "_ga=1; access-token-abc=alice"})
    assert alice.text == "<p>render 3 for alice at testserver</p>"
    assert client.get("/", headers={"x-forwarded-host": "space.example"}).text == proxied.text
    assert client.get("/").text == first.text
    # a visitor's other cookies (analytics, the Hub's own) do not make another page
    for visitor in ("_ga=GA1.2.3; theme=dark", "spaces-jwt=xyz", "_ga=9; access-token-abc=alice"):
        client.get("/", headers={"cookie": visitor})
    assert len(calls) == 3
    # a query string (deep links, ?__theme=) and other paths always pass through
    assert client.get("/?deep_link=x").text.startswith("<p>render 4")
    assert client.get("/other").text == "other 5" and client.get("/other").text == "other 6"


def test_each_page_is_kept_apart() -> None:
    counter = itertools.count(1)
    pages = [
        Route(f"/{name}", lambda request: HTMLResponse(f"page {next(counter)}"))
        for name in ("compare", "about", "other")
    ]
    app = Starlette(routes=pages)
    app.add_middleware(PageCache, paths=("/compare", "/about"))
    client = TestClient(app)
    assert [client.get(path).text for path in ("/compare", "/about")] == ["page 1", "page 2"]
    assert [client.get(path).text for path in ("/compare", "/about")] == ["page 1", "page 2"]
    assert client.get("/other").text == "page 3" and client.get("/other").text == "page 4"


def test_only_plain_200_html_answers_are_kept() -> None:
    busy, calls = _client("busy")
    assert busy.get("/").status_code == 503 and busy.get("/").status_code == 503
    assert calls == ["/", "/"]  # a refusal is never served again from memory
    cookie, calls = _client("cookie")
    for _ in range(2):
        assert cookie.get("/").text.startswith("cookie")
        cookie.cookies.clear()
    assert calls == ["/", "/"]  # an answer that sets a cookie is not shared


def test_the_cache_is_bounded_in_bytes() -> None:
    # pages of 41-42 bytes (uncompressed: under MIN_COMPRESS), at most 1024 kept: 24 pages
    client, calls = _client(max_bytes=1024)
    hosts = [f"host-{i:02d}" for i in range(30)]
    for host in hosts:
        client.get("/", headers={"x-forwarded-host": host})
    assert len(calls) == 30
    client.get("/", headers={"x-forwarded-host": hosts[-1]})
    assert len(calls) == 30  # the newest is kept
    client.get("/", headers={"x-forwarded-host": hosts[0]})
    assert len(calls) == 31  # the oldest went to make room


# -- compression, Gradio's frontend files, the board ---------------------------------------

BROWSER = {"accept-encoding": "gzip, deflate, br, zstd"}


def _raw(client: TestClient, path: str, headers: dict[str, str]) -> tuple[dict, bytes]:
    """An answer's headers and its body as sent (not decoded)."""
    with client.stream("GET", path, headers=headers) as resp:
        assert resp.status_code == 200
        return dict(resp.headers), b"".join(resp.iter_raw())


@pytest.mark.parametrize(
    ("accept", "chosen"),
    [
        ("gzip, deflate, br, zstd", "br"),  # chromium
        ("gzip, deflate", "gzip"),
        ("br;q=0, gzip;q=0.5", "gzip"),
        ("br;q=0,gzip;q=0", "identity"),
        ("*", "br"),
        ("*;q=0", "identity"),
        ("identity", "identity"),
        ("", "identity"),
        ("br;q=x", "identity"),  # a weight that is no number refuses
    ],
)
def test_the_encoding_follows_accept_encoding(accept: str, chosen: str) -> None:
    assert chosen_encoding(accept) == chosen


def test_the_page_is_sent_compressed_as_the_browser_accepts() -> None:
    client, calls = _client()
    client.get("/", headers={"x-forwarded-host": "w" * 600})  # a page past MIN_COMPRESS
    plain_headers, plain = _raw(client, "/", {"x-forwarded-host": "w" * 600, "accept-encoding": ""})
    assert "content-encoding" not in plain_headers and plain.startswith(b"<p>render 1")
    for accept, encoding, decode in (
        ("gzip, deflate, br, zstd", "br", brotli.decompress),
        ("gzip", "gzip", gzip.decompress),
    ):
        headers, body = _raw(
            client, "/", {"x-forwarded-host": "w" * 600, "accept-encoding": accept}
        )
        assert headers["content-encoding"] == encoding
        assert headers["vary"] == "Accept-Encoding"
        assert int(headers["content-length"]) == len(body) < len(plain)
        assert decode(body) == plain
    head = client.head("/", headers={"x-forwarded-host": "w" * 600, **BROWSER})
    assert head.headers["content-encoding"] == "br" and head.content == b""
    assert calls == ["/"]  # one rendering, every encoding and HEAD from it


def _files(tmp_path: Path, max_bytes: int = 64 << 20) -> tuple[TestClient, list[str]]:
    """Gradio's way of serving its build: files from a folder under /assets/ (FileResponse,
    reading the disk each time), behind AssetCache; every call the app answers is recorded."""
    calls: list[str] = []

    def asset(request):
        name = request.path_params["name"]
        calls.append(name)
        path = tmp_path / name
        if not path.is_file():
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(path)

    app = Starlette(routes=[Route("/assets/{name}", asset), Route("/gradio_api/{name}", asset)])
    app.add_middleware(AssetCache, max_bytes=max_bytes)
    return TestClient(app), calls


def test_frontend_files_are_read_once_and_sent_compressed(tmp_path: Path) -> None:
    script = "export const board = () => 'table';\n" * 400
    (tmp_path / "index-abc123.js").write_text(script)
    (tmp_path / "font.woff2").write_bytes(bytes(range(256)) * 8)
    client, calls = _files(tmp_path)
    first_headers, first = _raw(client, "/assets/index-abc123.js", BROWSER)
    headers, again = _raw(client, "/assets/index-abc123.js", BROWSER)
    assert calls == ["index-abc123.js"] and again == first
    assert headers["content-encoding"] == "br" and brotli.decompress(again) == script.encode()
    assert headers["etag"] == first_headers["etag"]  # Gradio's own headers are kept
    assert headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert client.get("/assets/index-abc123.js", headers={"accept-encoding": ""}).text == script
    # a font is kept as it is (compressed already), never encoded again
    font = client.get("/assets/font.woff2", headers=BROWSER)
    assert "content-encoding" not in font.headers and font.content == bytes(range(256)) * 8
    client.get("/assets/font.woff2", headers=BROWSER)
    assert calls == ["index-abc123.js", "font.woff2"]


def test_only_whole_200_frontend_files_are_kept(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("let a = 1;\n" * 200)
    (tmp_path / "big.js").write_text("x" * 5000)
    client, calls = _files(tmp_path, max_bytes=16 * 4096)  # at most 4 KB an answer
    assert client.get("/assets/a.js").status_code == 200  # kept: what follows is not from it
    for _ in range(2):
        assert client.get("/assets/missing.js").status_code == 404  # a refusal: asked again
        ranged = client.get("/assets/a.js", headers={"range": "bytes=0-5"})
        assert ranged.status_code == 206 and ranged.text == "let a "  # ranges pass through
        assert client.get("/assets/a.js?v=1").text.startswith("let a")  # so do query strings
        assert client.get("/assets/big.js").text == "x" * 5000  # too big to keep
        assert client.get("/gradio_api/a.js").status_code == 200  # not a frontend path
    assert calls == ["a.js"] + ["missing.js", "a.js", "a.js", "big.js", "a.js"] * 2


def test_the_board_is_compressed_and_never_stale() -> None:
    board = {"html": "<table>" + "<tr><td>stored model</td></tr>" * 100 + "</table>"}
    calls: list[str] = []

    def route(request):
        calls.append(request.url.query)
        return HTMLResponse(board["html"], headers={"Cache-Control": "no-store"})

    def refused(request):
        return HTMLResponse("<p>" + "busy " * 200 + "</p>", status_code=503)

    app = Starlette(routes=[Route("/board", route), Route("/board.csv", refused)])
    app.add_middleware(CompressedAnswers, paths=("/board", "/board.csv"))
    client = TestClient(app)
    for _ in range(2):
        headers, body = _raw(client, "/board?view=Overview", BROWSER)
        assert headers["content-encoding"] == "br" and headers["cache-control"] == "no-store"
        assert brotli.decompress(body).decode() == board["html"]
    assert len(calls) == 2  # the app answers every request; only the compression is kept
    board["html"] = board["html"].replace("stored model", "new entry")  # a new data version
    assert "new entry" in client.get("/board", headers=BROWSER).text
    busy = client.get("/board.csv", headers=BROWSER)
    assert busy.status_code == 503 and "content-encoding" not in busy.headers
