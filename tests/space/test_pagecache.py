"""The page cache (space/pagecache.py) in front of a real Starlette app: the page is rendered
once per key, and everything that could make two answers differ is either in the key or passes
through."""

from __future__ import annotations

import itertools

from respondeoqa_eval.space.web.pagecache import PageCache
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient


def _client(kind: str = "page", max_entries: int = 64) -> tuple[TestClient, list[str]]:
    """A Starlette app behind PageCache whose "/" renders a numbered page ("page"), refuses
    ("busy") or sets a cookie ("cookie")."""
    calls: list[str] = []
    counter = itertools.count(1)

    def page(request):
        calls.append(request.url.path)
        user = request.cookies.get("session", "anonymous")
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
    app.add_middleware(PageCache, max_entries=max_entries)
    return TestClient(app), calls


def test_the_page_is_rendered_once_per_key() -> None:
    client, calls = _client()
    first = client.get("/")
    assert client.get("/").text == first.text == "<p>render 1 for anonymous at testserver</p>"
    assert calls == ["/"]
    # another origin (behind a proxy) or another user is another page
    proxied = client.get("/", headers={"x-forwarded-host": "space.example"})
    assert proxied.text == "<p>render 2 for anonymous at space.example</p>"
    alice = client.get("/", headers={"cookie": "session=alice"})
    assert alice.text == "<p>render 3 for alice at testserver</p>"
    assert client.get("/", headers={"x-forwarded-host": "space.example"}).text == proxied.text
    assert client.get("/").text == first.text
    assert len(calls) == 3
    # a query string (deep links, ?__theme=) and other paths always pass through
    assert client.get("/?deep_link=x").text.startswith("<p>render 4")
    assert client.get("/other").text == "other 5" and client.get("/other").text == "other 6"


def test_only_plain_200_html_answers_are_kept() -> None:
    busy, calls = _client("busy")
    assert busy.get("/").status_code == 503 and busy.get("/").status_code == 503
    assert calls == ["/", "/"]  # a refusal is never served again from memory
    cookie, calls = _client("cookie")
    for _ in range(2):
        assert cookie.get("/").text.startswith("cookie")
        cookie.cookies.clear()
    assert calls == ["/", "/"]  # an answer that sets a cookie is not shared


def test_the_cache_is_bounded() -> None:
    client, calls = _client(max_entries=2)
    for host in ("a", "b", "c", "a"):
        client.get("/", headers={"x-forwarded-host": host})
    assert len(calls) == 4  # "a" was dropped when "c" came
    client.get("/", headers={"x-forwarded-host": "c"})
    assert len(calls) == 4
