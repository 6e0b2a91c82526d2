"""A small OpenID Connect provider on loopback, standing in for huggingface.co's OAuth.

Gradio on a Space (SYSTEM=spaces) registers the provider at $OPENID_PROVIDER_URL with authlib,
which reads `/.well-known/openid-configuration`, sends the browser to its authorization endpoint,
exchanges the code at its token endpoint and checks the signed ID token against its JWKS (issuer,
audience, nonce, expiry, signature). This stub implements exactly that code flow: a login form
where the browser types a username (as a person logs in on the Hub), one-time codes bound to the
client, redirect URI and nonce, and RS256 ID tokens carrying the claims Gradio's `OAuthProfile`
reads (name, preferred_username, profile, picture). Nothing else of the Hub is imitated.
"""

from __future__ import annotations

import base64
import html
import json
import secrets
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from joserfc import jwt
from joserfc.jwk import RSAKey

CLIENT_ID = "stub-client-id"
CLIENT_SECRET = "stub-client-secret"
SCOPES = "openid profile"


@dataclass
class Grant:
    username: str
    client_id: str
    redirect_uri: str
    nonce: str


@dataclass
class Provider:
    """The provider's state: issued codes and every token request (for the tests to read)."""

    url: str = ""
    key: RSAKey = field(default_factory=lambda: RSAKey.generate_key(2048, parameters={"kid": "k1"}))
    codes: dict[str, Grant] = field(default_factory=dict)
    logins: list[str] = field(default_factory=list)  # usernames whose code was redeemed
    lock: threading.Lock = field(default_factory=threading.Lock)

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.url,
            "authorization_endpoint": self.url + "/oauth/authorize",
            "token_endpoint": self.url + "/oauth/token",
            "jwks_uri": self.url + "/oauth/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }

    def id_token(self, grant: Grant, access_token: str) -> str:
        now = int(time.time())
        claims = {
            "iss": self.url,
            "sub": "user-" + grant.username,
            "aud": grant.client_id,
            "iat": now,
            "exp": now + 3600,
            "auth_time": now,
            "nonce": grant.nonce,
            "name": grant.username.title(),
            "preferred_username": grant.username,
            "profile": f"https://huggingface.co/{grant.username}",
            "picture": "",
        }
        return jwt.encode({"alg": "RS256", "kid": "k1"}, claims, self.key)


def _handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: Any) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def _form(self) -> dict[str, str]:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n).decode()
            return {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}

        def do_GET(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
            if url.path == "/.well-known/openid-configuration":
                self._json(200, provider.metadata())
            elif url.path == "/oauth/jwks":
                self._json(200, {"keys": [provider.key.as_dict(private=False)]})
            elif url.path == "/oauth/authorize":
                if query.get("client_id") != CLIENT_ID or query.get("response_type") != "code":
                    self._json(400, {"error": "invalid_request"})
                    return
                hidden = "".join(
                    f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                    for k, v in query.items()
                )
                page = (
                    "<!doctype html><title>Sign in (OIDC stub)</title><form method=post "
                    f'action="/oauth/authorize">{hidden}<label>Username <input id=username '
                    "name=username></label><button id=signin type=submit>Sign in</button></form>"
                )
                self._send(200, page.encode(), "text/html; charset=utf-8")
            else:
                self._json(404, {"error": "not_found"})

        def do_POST(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            form = self._form()
            if url.path == "/oauth/authorize":
                code = secrets.token_urlsafe(16)
                grant = Grant(
                    form["username"], form["client_id"], form["redirect_uri"], form.get("nonce", "")
                )
                with provider.lock:
                    provider.codes[code] = grant
                sep = "&" if "?" in grant.redirect_uri else "?"
                state = urllib.parse.urlencode({"code": code, "state": form.get("state", "")})
                self._send(302, b"", "text/plain", {"Location": grant.redirect_uri + sep + state})
            elif url.path == "/oauth/token":
                client_id, secret = form.get("client_id"), form.get("client_secret")
                auth = self.headers.get("Authorization", "")
                if auth.startswith("Basic "):
                    pair = base64.b64decode(auth[6:]).decode()
                    client_id, _, secret = (urllib.parse.unquote(p) for p in pair.partition(":"))
                with provider.lock:
                    grant = provider.codes.pop(form.get("code", ""), None)
                if (
                    grant is None
                    or client_id != CLIENT_ID
                    or secret != CLIENT_SECRET
                    or form.get("redirect_uri") != grant.redirect_uri
                ):
                    self._json(400, {"error": "invalid_grant"})
                    return
                access = secrets.token_urlsafe(24)
                with provider.lock:
                    provider.logins.append(grant.username)
                self._json(
                    200,
                    {
                        "access_token": access,
                        "token_type": "Bearer",
                        "expires_in": 3600,
                        "scope": SCOPES,
                        "id_token": provider.id_token(grant, access),
                    },
                )
            else:
                self._json(404, {"error": "not_found"})

    return Handler


class OidcStub:
    """`with OidcStub() as stub:` serves on a free loopback port; `stub.env` is what a Space's
    `hf_oauth: true` sets (plus SYSTEM/SPACE_ID, which make Gradio take its Space code path)."""

    def __init__(self) -> None:
        self.provider = Provider()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.provider))
        self.provider.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def env(self) -> dict[str, str]:
        return {
            "SYSTEM": "spaces",
            "SPACE_ID": "test-org/respondeoqa-leaderboard",
            "OAUTH_CLIENT_ID": CLIENT_ID,
            "OAUTH_CLIENT_SECRET": CLIENT_SECRET,
            "OAUTH_SCOPES": SCOPES,
            "OPENID_PROVIDER_URL": self.provider.url,
        }

    def __enter__(self) -> OidcStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
