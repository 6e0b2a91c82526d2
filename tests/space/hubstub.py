"""A local stand-in for the Hugging Face Hub: a real HTTP server implementing the endpoints that
`respondeoqa_eval.space.hub.HubRepo` reaches through `huggingface_hub` (create repo, preupload,
commit, tree listing, resolve/download), backed by a folder. `HfApi(endpoint=stub.url)` talks to it
unchanged, so the tests exercise the real client code, its request format and its parsing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


@dataclass
class Commit:
    repo: str
    message: str
    added: list[str]
    deleted: list[str]


@dataclass
class HubStub:
    root: Path
    token: str | None = None  # when set, every request must carry it
    commits: list[Commit] = field(default_factory=list)
    private: dict[str, bool] = field(default_factory=dict)
    created: dict[str, dict] = field(default_factory=dict)  # "type:id" -> create request

    def start(self) -> HubStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                stub._handle(self, "HEAD")

            def do_GET(self) -> None:
                stub._handle(self, "GET")

            def do_POST(self) -> None:
                stub._handle(self, "POST")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._lock = threading.Lock()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- storage ------------------------------------------------------------------------

    def folder(self, repo_type: str, repo_id: str) -> Path:
        return self.root / repo_type / repo_id

    def files(self, repo_id: str, repo_type: str = "dataset") -> dict[str, bytes]:
        base = self.folder(repo_type, repo_id)
        if not base.is_dir():
            return {}
        return {
            p.relative_to(base).as_posix(): p.read_bytes()
            for p in sorted(base.rglob("*"))
            if p.is_file()
        }

    def _head(self, repo_type: str, repo_id: str) -> str:
        n = sum(1 for c in self.commits if c.repo == f"{repo_type}:{repo_id}")
        return hashlib.sha1(f"{repo_type}:{repo_id}:{n}".encode()).hexdigest()

    # -- HTTP ---------------------------------------------------------------------------

    def _send(self, h: BaseHTTPRequestHandler, status: int, body: bytes = b"", **headers) -> None:
        h.send_response(status)
        headers.setdefault("Content-Type", "application/json")
        headers.setdefault("Content-Length", str(len(body)))
        for k, v in headers.items():
            h.send_header(k.replace("_", "-"), v)
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)

    def _json(self, h: BaseHTTPRequestHandler, status: int, obj) -> None:
        self._send(h, status, json.dumps(obj).encode())

    def _not_found(self, h: BaseHTTPRequestHandler, what: str = "Repository not found") -> None:
        self._send(h, 404, json.dumps({"error": what}).encode(), X_Error_Code="RepoNotFound")

    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        if self.token and h.headers.get("authorization") != f"Bearer {self.token}":
            self._send(h, 401, b'{"error":"Invalid credentials"}')
            return
        parts = urlsplit(h.path)
        path = unquote(parts.path)
        length = int(h.headers.get("content-length") or 0)
        body = h.rfile.read(length) if length else b""
        with self._lock:
            try:
                self._route(h, method, path, parts.query, body)
            except Exception as exc:  # a stub bug shows up as a 500 the client reports
                self._send(h, 500, json.dumps({"error": repr(exc)}).encode())

    def _route(self, h, method: str, path: str, query: str, body: bytes) -> None:
        seg = path.strip("/").split("/")
        if method == "GET" and path == "/api/whoami-v2":  # Gradio's local login asks it
            user = {"type": "user", "name": "operator", "fullname": "Operator", "orgs": []}
            user["avatarUrl"] = ""
            user["auth"] = {"type": "access_token", "accessToken": {"role": "write"}}
            self._json(h, 200, user)
            return
        if method == "POST" and path == "/api/validate-yaml":
            # front matter must parse as YAML; the real Hub checks its fields further
            import yaml

            content = json.loads(body)["content"]
            if content.startswith("---"):
                yaml.safe_load(content.split("---")[1])
            self._json(h, 200, {"errors": [], "warnings": []})
            return
        if method == "POST" and path == "/api/repos/create":
            req = json.loads(body)
            repo_type = req.get("type") or "model"
            repo_id = (
                f"{req['organization']}/{req['name']}" if req.get("organization") else req["name"]
            )
            base = self.folder(repo_type, repo_id)
            if base.is_dir():
                url = f"{self.url}/{repo_type}s/{repo_id}"
                self._send(
                    h,
                    409,
                    json.dumps({"error": "You already created this repo", "url": url}).encode(),
                )
                return
            base.mkdir(parents=True)
            # huggingface_hub 1.x+ sends "visibility"; older clients "private"
            private = req.get("visibility") in ("private", "protected") or bool(req.get("private"))
            self.private[f"{repo_type}:{repo_id}"] = private
            self.created[f"{repo_type}:{repo_id}"] = req
            self._json(h, 200, {"url": f"{self.url}/{repo_type}s/{repo_id}", "name": repo_id})
            return
        if seg[0] == "api" and len(seg) >= 6:
            repo_type, repo_id, action = seg[1].rstrip("s"), f"{seg[2]}/{seg[3]}", seg[4]
            base = self.folder(repo_type, repo_id)
            if not base.is_dir():
                self._not_found(h)
                return
            if method == "POST" and action == "preupload":
                files = json.loads(body)["files"]
                self._json(
                    h,
                    200,
                    {
                        "files": [
                            {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                            for f in files
                        ]
                    },
                )
                return
            if method == "POST" and action == "commit":
                self._commit(h, repo_type, repo_id, base, body)
                return
            if method == "GET" and action == "tree":
                entries = [
                    {
                        "type": "file",
                        "path": p,
                        "size": len(b),
                        "oid": hashlib.sha1(b).hexdigest(),
                    }
                    for p, b in self.files(repo_id, repo_type).items()
                ]
                self._json(h, 200, entries)
                return
        # /{type}s/{ns}/{name}/resolve/{rev}/{path}
        if len(seg) >= 5 and seg[2] == "resolve" and seg[0] not in ("datasets", "spaces"):
            seg = ["models", *seg]
        if len(seg) >= 6 and seg[3] == "resolve" and method in ("GET", "HEAD"):
            repo_type, repo_id, file_path = (
                seg[0].rstrip("s"),
                f"{seg[1]}/{seg[2]}",
                "/".join(seg[5:]),
            )
            target = self.folder(repo_type, repo_id) / file_path
            if not target.is_file():
                self._send(h, 404, b'{"error":"Entry not found"}', X_Error_Code="EntryNotFound")
                return
            data = target.read_bytes()
            etag = hashlib.sha1(data).hexdigest()
            self._send(
                h,
                200,
                data,
                Content_Type="application/octet-stream",
                ETag=f'"{etag}"',
                X_Repo_Commit=self._head(repo_type, repo_id),
            )
            return
        self._send(h, 404, b'{"error":"no such endpoint"}')

    def _commit(self, h, repo_type: str, repo_id: str, base: Path, body: bytes) -> None:
        added, deleted, message = [], [], ""
        staged: list[tuple[str, bytes | None]] = []
        for line in body.decode().splitlines():
            if not line.strip():
                continue
            obj = json.loads(line)
            key, value = obj["key"], obj["value"]
            if key == "header":
                message = value["summary"]
            elif key == "file":
                staged.append((value["path"], base64.b64decode(value["content"])))
            elif key == "deletedFile":
                staged.append((value["path"], None))
            else:
                raise ValueError(f"unsupported commit line {key}")
        for rel, data in staged:  # all checked above, then applied: one commit, all or nothing
            target = base / rel
            if data is None:
                if target.is_file():
                    target.unlink()
                deleted.append(rel)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                added.append(rel)
        self.commits.append(Commit(f"{repo_type}:{repo_id}", message, added, deleted))
        oid = self._head(repo_type, repo_id)
        self._json(
            h,
            200,
            {"commitUrl": f"{self.url}/{repo_type}s/{repo_id}/commit/{oid}", "commitOid": oid},
        )
