"""A local stand-in for the Hugging Face Hub: a real HTTP server implementing the endpoints that
`respondeoqa_space.store.hub.HubRepo` reaches through `huggingface_hub` (create repo,
preupload, LFS batch upload, commit, tree listing, resolve/download), backed by a folder.
`HfApi(endpoint=stub.url)` talks to it unchanged, so the tests exercise the real client code,
its request format and its parsing.

It answers the way the Hub does where that matters here: a new repository starts with the
Hub's `.gitattributes` commit; files the Hub keeps in LFS (`*.gz` among them, or anything over
10 MB) get upload mode "lfs", go through the LFS batch endpoint and a PUT of their bytes, and
are listed with their LFS sha256. A commit naming a `parent_commit` that is no longer the head of
the branch is refused with HTTP 412, as the Hub refuses it ("A commit has happened since"), which
is what makes a read-then-commit atomic for the record's writers. Model repositories
(`add_model`) answer the Hub's model info (`/api/models/...`: sha, private, gated, cardData from
the README's front matter, the parameter count read from the safetensors headers, siblings); a
private model is "not found" to this token, as to any token without access, and an unknown
revision is RevisionNotFound. A dataset commit adding a root `eval.yaml` that breaks the Hub's
documented rules (kit/hub_eval_spec.py: the kept specification, and `frameworks`, the Hub's
list of evaluation frameworks) is refused whole, with HTTP 400 and the reasons, as the Hub
validates the file at push time. And it fails on demand (`fail`): HTTP 5xx (or any status) on the
next N requests whose method and path match, the Hub's passing outages.

Tokens: with `token` set, every request must carry it or a fine-grained token made with
`grant` (anything else is HTTP 401 "Invalid credentials in Authorization header"). A
fine-grained token reads every public repository and the private ones it was granted (read or
write); a private repository it was not granted is "not found" (HTTP 404 RepoNotFound: the Hub
does not tell a token that a repository it cannot see exists); a commit (or preupload) to a
repository it may not write is HTTP 403, as are creating a repository and the Jobs API. Every
request is logged with its token (`seen`), so a test can say which token was used for what.

Beyond passing faults, the bad days of an operator: `deny_writes` refuses every commit with the
Hub's HTTP 403 (a read-only token, a repo made read-only); `delete_repo` deletes a repository
and its history (a `create` then makes a new, empty one whose history shares no commit with the
old); the commit history is served (`/api/{type}s/{id}/commits/{rev}`, newest first), a listing
or a file asked at a commit of it is that commit's (each commit's tree is kept: a reader that
read the head and lists at it sees that commit however the branch moved since, as on the Hub),
and any number of clients may write at once (two Spaces on one record: the 412 above decides).
With `jobs`
(kit/jobstub.py) it also answers the Jobs API, as the Hub does on the same endpoint. A Space's
variables are set with `POST /api/spaces/{id}/variables` (`space_variables`; 404 for a Space
that does not exist, 403 for a token that cannot write it).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from . import hub_eval_spec


@dataclass
class Commit:
    repo: str
    message: str
    added: list[str]
    deleted: list[str]


TOKEN = "hf_test_token_not_real"  # what the stand-in accepts (tests give it to their clients)
RECORD_REPO = "operator/leaderboard-data"

GITATTRIBUTES = b"""*.gz filter=lfs diff=lfs merge=lfs -text
*.parquet filter=lfs diff=lfs merge=lfs -text
*.zip filter=lfs diff=lfs merge=lfs -text
"""
LFS_SUFFIXES = (".gz", ".parquet", ".zip", ".safetensors")
LFS_OVER = 10 * 1024 * 1024


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def safetensors_parameters(data: bytes) -> dict[str, int]:
    """Parameters per dtype from a safetensors file's header (how the Hub counts them)."""
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + length])
    counts: dict[str, int] = {}
    for name, tensor in header.items():
        if name == "__metadata__":
            continue
        n = 1
        for dim in tensor["shape"]:
            n *= dim
        counts[tensor["dtype"]] = counts.get(tensor["dtype"], 0) + n
    return counts


def front_matter(readme: bytes) -> dict:
    """The YAML front matter of a model card (the Hub's `cardData`)."""
    import yaml

    text = readme.decode("utf-8")
    if not text.startswith("---"):
        return {}
    return yaml.safe_load(text.split("---", 2)[1]) or {}


def lfs_pointer(oid: str, size: int) -> bytes:
    return f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {size}\n".encode()


@dataclass
class Scope:
    """A fine-grained token's access: the repositories ("type:id") it may read and write."""

    read: set[str] = field(default_factory=set)
    write: set[str] = field(default_factory=set)

    def reads(self, key: str) -> bool:
        return key in self.read or key in self.write


FORBIDDEN_COMMIT = "You don't have the rights to create a commit on this repo"


@dataclass
class Fault:
    method: str
    path_part: str
    status: int
    times: int


@dataclass
class HubStub:
    root: Path
    token: str | None = None  # when set, every request must carry it
    commits: list[Commit] = field(default_factory=list)
    private: dict[str, bool] = field(default_factory=dict)
    created: dict[str, dict] = field(default_factory=dict)  # "type:id" -> create request
    faults: list[Fault] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path) answered
    lfs_objects: dict[str, bytes] = field(default_factory=dict)  # sha256 -> uploaded bytes
    lfs_paths: set[str] = field(default_factory=set)  # "type:id:path" stored through LFS
    gated: dict[str, str] = field(default_factory=dict)  # "model:id" -> "auto" / "manual"
    history: dict[str, list[str]] = field(default_factory=dict)  # "type:id" -> commit ids
    generation: dict[str, int] = field(default_factory=dict)  # "type:id" -> times deleted
    trees: dict[str, dict[str, str]] = field(default_factory=dict)  # commit id -> path -> blob
    blobs: dict[str, bytes] = field(default_factory=dict)  # sha1 -> bytes (of `trees`)
    read_only: set[str] = field(default_factory=set)  # "type:id" refusing commits (403)
    jobs: Any = None  # a kit.jobstub.JobStub answers /api/jobs/ (Hugging Face Jobs)
    scoped: dict[str, Scope] = field(default_factory=dict)  # fine-grained tokens (`grant`)
    seen: list[tuple[str, str, str]] = field(default_factory=list)  # (token, method, path)
    # the evaluation frameworks a dataset's eval.yaml may name (the Hub's list, as kept)
    frameworks: tuple[str, ...] = field(default_factory=lambda: hub_eval_spec.FRAMEWORKS)
    space_variables: dict[str, dict[str, str]] = field(default_factory=dict)  # Space -> vars

    def grant(self, token: str, *, read: tuple[str, ...] = (), write: tuple[str, ...] = ()) -> str:
        """Make (or change) a fine-grained token: read and write access to the repositories
        named "type:id" (e.g. "dataset:org/name"), nothing else; the token."""
        self.scoped[token] = Scope(set(read), set(write))
        return token

    def hold_commits(self, after: int = 0) -> None:
        """Let `after` more commit requests through, then keep the next ones waiting (the
        Hub still working on them) until `release()`; `held` is set once one waits."""
        self._hold_left = after
        self.held = threading.Event()
        self._released = threading.Event()

    def release(self) -> None:
        """Let the held commits go on, and return once the Hub has answered each of them (a
        test reading the record next sees what they did, as a client told "committed" would)."""
        self._hold_left = None
        if getattr(self, "_released", None) is not None:
            self._released.set()
        with self._answered:
            self._answered.wait_for(lambda: self._holding == 0, timeout=60)

    def _hold(self, method: str, path: str) -> bool:
        """Keep a commit request waiting while commits are held; True when this one waited."""
        if method != "POST" or "/commit/" not in path or getattr(self, "_hold_left", None) is None:
            return False
        with self._lock:
            if self._hold_left > 0:
                self._hold_left -= 1
                return False
        with self._answered:
            self._holding += 1
        self.held.set()
        self._released.wait(timeout=120)
        return True

    def deny_writes(self, repo_id: str, repo_type: str = "dataset", *, on: bool = True) -> None:
        """Refuse (or, `on=False`, accept again) every commit to the repository with HTTP 403,
        as the Hub answers a token without write access."""
        (self.read_only.add if on else self.read_only.discard)(f"{repo_type}:{repo_id}")

    def delete_repo(self, repo_id: str, repo_type: str = "dataset") -> None:
        """Delete a repository, its files and its history (as the Hub's settings page does)."""
        import shutil

        key = f"{repo_type}:{repo_id}"
        shutil.rmtree(self.folder(repo_type, repo_id), ignore_errors=True)
        self.history.pop(key, None)
        self.generation[key] = self.generation.get(key, 0) + 1
        self.lfs_paths = {p for p in self.lfs_paths if not p.startswith(key + ":")}

    def _log(self, commit: Commit) -> None:
        """A commit lands: it gets an id no other commit of any repository has."""
        self.commits.append(commit)
        history = self.history.setdefault(commit.repo, [])
        generation = self.generation.get(commit.repo, 0)
        oid = f"{commit.repo}:{generation}:{len(history) + 1}"
        history.append(hashlib.sha1(oid.encode()).hexdigest())
        repo_type, repo_id = commit.repo.split(":", 1)
        tree = {}
        for rel, data in self.files(repo_id, repo_type, gitattributes=True).items():
            tree[rel] = sha = hashlib.sha1(data).hexdigest()
            self.blobs.setdefault(sha, data)
        self.trees[history[-1]] = tree

    def _files_at(self, repo_type: str, repo_id: str, revision: str) -> dict[str, bytes]:
        """The repository's files (`.gitattributes` included) at `revision`: the branch's
        head, or an earlier commit of its history, as the Hub serves a listing or a file at a
        commit (a reader that lists at the head it read gets that commit's files, however
        the branch moved since)."""
        commit = self._commit_at(repo_type, repo_id, revision)
        if commit != self._head(repo_type, repo_id) and commit in self.trees:
            return {p: self.blobs[b] for p, b in self.trees[commit].items()}
        return self.files(repo_id, repo_type, gitattributes=True)  # the head (or the first)

    def _commit_at(self, repo_type: str, repo_id: str, revision: str) -> str:
        """The commit `revision` names (a branch name is the head)."""
        if revision not in ("", "main"):
            for commit in self._history(repo_type, repo_id):
                if commit.startswith(revision):
                    return commit
        return self._head(repo_type, repo_id)

    def fail(self, method: str, path_part: str, status: int = 500, times: int = 1) -> None:
        """Answer the next `times` requests of `method` whose path contains `path_part` with
        HTTP `status` (what the Hub does in an outage)."""
        self.faults.append(Fault(method, path_part, status, times))

    def _fault(self, method: str, path: str) -> int | None:
        for fault in self.faults:
            if fault.times > 0 and fault.method == method and fault.path_part in path:
                fault.times -= 1
                return fault.status
        return None

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

            def do_PUT(self) -> None:
                stub._handle(self, "PUT")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._lock = threading.Lock()
        self._answered = threading.Condition()  # held commits answered (`release`)
        self._holding = 0
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- storage ------------------------------------------------------------------------

    def folder(self, repo_type: str, repo_id: str) -> Path:
        return self.root / repo_type / repo_id

    def files(
        self, repo_id: str, repo_type: str = "dataset", *, gitattributes: bool = False
    ) -> dict[str, bytes]:
        """The repository's files (without the Hub's `.gitattributes` unless asked)."""
        base = self.folder(repo_type, repo_id)
        if not base.is_dir():
            return {}
        return {
            p.relative_to(base).as_posix(): p.read_bytes()
            for p in sorted(base.rglob("*"))
            if p.is_file() and (gitattributes or p.name != ".gitattributes")
        }

    def put(self, repo_id: str, path: str, data: bytes, repo_type: str = "dataset") -> None:
        """Write a file behind the client's back (tampering, or another writer's commit)."""
        target = self.folder(repo_type, repo_id) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self._log(Commit(f"{repo_type}:{repo_id}", "put", [path], []))

    def add_model(
        self,
        repo_id: str,
        folder: Path,
        *,
        card: str = "",
        private: bool = False,
        gated: str | None = None,
    ) -> str:
        """A model repository holding the files of `folder` (and a README with `card` as its
        text, front matter included) in one commit; its head commit."""
        base = self.folder("model", repo_id)
        base.mkdir(parents=True, exist_ok=True)
        (base / ".gitattributes").write_bytes(GITATTRIBUTES)
        added = []
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                rel = path.relative_to(folder).as_posix()
                (base / rel).parent.mkdir(parents=True, exist_ok=True)
                (base / rel).write_bytes(path.read_bytes())
                if rel.endswith(LFS_SUFFIXES):
                    self.lfs_paths.add(f"model:{repo_id}:{rel}")
                added.append(rel)
        if card:
            (base / "README.md").write_text(card, encoding="utf-8")
            added.append("README.md")
        self.private[f"model:{repo_id}"] = private
        if gated:
            self.gated[f"model:{repo_id}"] = gated
        self._log(Commit(f"model:{repo_id}", "add model", added, []))
        return self._head("model", repo_id)

    def head(self, repo_id: str, repo_type: str = "dataset") -> str:
        """The current head commit of a repository's main branch."""
        return self._head(repo_type, repo_id)

    def _head(self, repo_type: str, repo_id: str) -> str:
        return self._history(repo_type, repo_id)[-1]

    def _history(self, repo_type: str, repo_id: str) -> list[str]:
        """The commit ids of the main branch, oldest first (the repository's first commit,
        which the Hub makes when it creates it, included)."""
        key = f"{repo_type}:{repo_id}"
        first = hashlib.sha1(f"{key}:{self.generation.get(key, 0)}:0".encode()).hexdigest()
        return [first, *self.history.get(key, [])]

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
        presigned = h.path.startswith("/lfs-upload/")  # like the Hub's storage URLs: no token
        given = (h.headers.get("authorization") or "").removeprefix("Bearer ")
        if self.token and not presigned and given != self.token and given not in self.scoped:
            self._send(
                h,
                401,
                b'{"error":"Invalid credentials"}',
                X_Error_Message="Invalid credentials in Authorization header",
            )
            return
        parts = urlsplit(h.path)
        path = unquote(parts.path)
        length = int(h.headers.get("content-length") or 0)
        body = h.rfile.read(length) if length else b""
        held = self._hold(method, path)
        try:
            self._answer(h, given, method, path, parts.query, body)
        finally:
            if held:
                with self._answered:
                    self._holding -= 1
                    self._answered.notify_all()

    def _answer(
        self, h: BaseHTTPRequestHandler, given: str, method: str, path: str, query: str, body: bytes
    ) -> None:
        """Record the request and answer it (a fault, a scope refusal or the route)."""
        with self._lock:
            self.requests.append((method, path))
            self.seen.append((given, method, path))
            status = self._fault(method, path)
            if status is not None:
                self._send(h, status, json.dumps({"error": "stub fault"}).encode())
                return
            try:
                if not self._scope_allows(h, self.scoped.get(given), method, path):
                    return
                self._route(h, method, path, query, body)
            except Exception as exc:  # a stub bug shows up as a 500 the client reports
                self._send(h, 500, json.dumps({"error": repr(exc)}).encode())

    def _scope_allows(self, h, scope: Scope | None, method: str, path: str) -> bool:
        """Whether a fine-grained token may do this (else the Hub's answer is sent): a full
        token (`scope` None) may do anything the rest of the stand-in allows."""
        if scope is None or path.startswith("/lfs-upload/"):
            return True
        seg = path.strip("/").split("/")
        forbidden = ""
        if seg[:2] == ["api", "jobs"]:
            forbidden = "This token has no permission to run Jobs"
        elif path == "/api/repos/create":
            forbidden = "You don't have the rights to create a repository under this namespace"
        key = None
        if seg[0] == "api" and len(seg) >= 4 and seg[1] in ("models", "datasets", "spaces"):
            key, action = f"{seg[1].rstrip('s')}:{seg[2]}/{seg[3]}", seg[4:5]
        elif len(seg) >= 4 and seg[0] in ("datasets", "spaces"):
            key, action = f"{seg[0].rstrip('s')}:{seg[1]}/{seg[2]}", seg[3:4]
        elif len(seg) >= 3 and seg[2] == "resolve":
            key, action = f"model:{seg[0]}/{seg[1]}", ["resolve"]
        if key is not None and self.private.get(key) and not scope.reads(key):
            self._not_found(h)  # a private repository it cannot see: "not found"
            return False
        writes = (["commit"], ["preupload"], ["variables"])
        if key is not None and method == "POST" and action in writes:
            if key not in scope.write:
                forbidden = FORBIDDEN_COMMIT
        if key is not None and path.endswith(".git/info/lfs/objects/batch"):
            if key.split(".git")[0] not in scope.write:
                forbidden = FORBIDDEN_COMMIT
        if forbidden:
            self._send(h, 403, json.dumps({"error": forbidden}).encode(), X_Error_Message=forbidden)
            return False
        return True

    def _route(self, h, method: str, path: str, query: str, body: bytes) -> None:
        seg = path.strip("/").split("/")
        if self.jobs is not None and seg[:2] == ["api", "jobs"] and len(seg) >= 3:
            self.jobs.route(self, h, method, path, query, body)
            return
        if method == "PUT" and seg[0] == "lfs-upload":  # the href the batch endpoint gave out
            oid = seg[1]
            if hashlib.sha256(body).hexdigest() != oid:
                self._send(h, 400, b'{"error":"sha256 mismatch"}')
                return
            self.lfs_objects[oid] = body
            self._send(h, 200, b"{}")
            return
        if method == "POST" and path.endswith(".git/info/lfs/objects/batch"):
            req = json.loads(body)
            objects = []
            for obj in req["objects"]:
                entry = {"oid": obj["oid"], "size": obj["size"]}
                if obj["oid"] not in self.lfs_objects:
                    href = f"{self.url}/lfs-upload/{obj['oid']}"
                    entry["actions"] = {"upload": {"href": href}}
                objects.append(entry)
            self._json(h, 200, {"transfer": "basic", "objects": objects})
            return
        if method == "GET" and path == "/api/whoami-v2":  # Gradio's local login asks it
            user = {"type": "user", "name": "operator", "fullname": "Operator", "orgs": []}
            user["avatarUrl"] = ""
            given = (h.headers.get("authorization") or "").removeprefix("Bearer ")
            role = "fineGrained" if given in self.scoped else "write"
            user["auth"] = {"type": "access_token", "accessToken": {"role": role}}
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
            (base / ".gitattributes").write_bytes(GITATTRIBUTES)  # the Hub's first commit
            # huggingface_hub 1.x+ sends "visibility"; older clients "private"
            private = req.get("visibility") in ("private", "protected") or bool(req.get("private"))
            self.private[f"{repo_type}:{repo_id}"] = private
            self.created[f"{repo_type}:{repo_id}"] = req
            self._json(h, 200, {"url": f"{self.url}/{repo_type}s/{repo_id}", "name": repo_id})
            return
        if method == "POST" and seg[:2] == ["api", "spaces"] and seg[4:] == ["variables"]:
            self._space_variable(h, f"{seg[2]}/{seg[3]}", json.loads(body))
            return
        if method == "GET" and seg[:2] == ["api", "models"] and len(seg) >= 4:
            if len(seg) == 4 or seg[4] == "revision":
                self._model_info(h, f"{seg[2]}/{seg[3]}", "/".join(seg[5:]) or "main")
                return
        if seg[0] == "api" and len(seg) == 4 and seg[1] in ("datasets", "spaces"):
            seg = [*seg, "revision", "main"]  # repo info: the main branch's
        if seg[0] == "api" and len(seg) >= 6:
            repo_type, repo_id, action = seg[1].rstrip("s"), f"{seg[2]}/{seg[3]}", seg[4]
            if repo_type == "model" and self.private.get(f"model:{repo_id}"):
                self._not_found(h)  # a private model: this token has no access
                return
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
                            {
                                "path": f["path"],
                                "uploadMode": "lfs"
                                if f["path"].endswith(LFS_SUFFIXES) or f.get("size", 0) > LFS_OVER
                                else "regular",
                                "shouldIgnore": False,
                            }
                            for f in files
                        ]
                    },
                )
                return
            if (
                method == "POST"
                and action in ("commit", "preupload")
                and (f"{repo_type}:{repo_id}" in self.read_only)
            ):
                self._send(
                    h,
                    403,
                    json.dumps(
                        {"error": "You don't have the rights to create a commit on this repo"}
                    ).encode(),
                )
                return
            if method == "POST" and action == "commit":
                self._commit(h, repo_type, repo_id, base, body)
                return
            if method == "GET" and action == "commits":  # the history, newest first
                history = self._history(repo_type, repo_id)
                rev = "/".join(seg[5:])
                if rev != "main":
                    found = [i for i, c in enumerate(history) if c.startswith(rev)]
                    if not found:
                        self._send(
                            h,
                            404,
                            json.dumps({"error": f"Invalid rev id: {rev}"}).encode(),
                            X_Error_Code="RevisionNotFound",
                        )
                        return
                    history = history[: found[0] + 1]
                self._json(
                    h,
                    200,
                    [
                        {
                            "id": c,
                            "title": "commit",
                            "message": "",
                            "authors": [],
                            "date": "2026-01-01T00:00:00.000Z",
                        }
                        for c in reversed(history)
                    ],
                )
                return
            if method == "GET" and action == "revision":  # repo info (snapshot_download asks)
                files = self.files(repo_id, repo_type, gitattributes=True)
                self._json(
                    h,
                    200,
                    {
                        "id": repo_id,
                        "sha": self._head(repo_type, repo_id),
                        "private": self.private.get(f"{repo_type}:{repo_id}", False),
                        "siblings": [{"rfilename": p} for p in files],
                    },
                )
                return
            if method == "GET" and action == "tree":
                entries = []
                at = self._files_at(repo_type, repo_id, seg[5])
                for p, b in at.items():
                    if p == ".gitattributes":
                        continue
                    entry = {"type": "file", "path": p, "size": len(b), "oid": git_blob_id(b)}
                    if f"{repo_type}:{repo_id}:{p}" in self.lfs_paths:
                        oid = hashlib.sha256(b).hexdigest()
                        pointer = lfs_pointer(oid, len(b))
                        entry["oid"] = git_blob_id(pointer)
                        entry["lfs"] = {"oid": oid, "size": len(b), "pointerSize": len(pointer)}
                    entries.append(entry)
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
            if repo_type == "model" and self.private.get(f"model:{repo_id}"):
                self._not_found(h)
                return
            data = self._files_at(repo_type, repo_id, seg[4]).get(file_path)
            if data is None:
                self._send(h, 404, b'{"error":"Entry not found"}', X_Error_Code="EntryNotFound")
                return
            etag = hashlib.sha1(data).hexdigest()
            self._send(
                h,
                200,
                data,
                Content_Type="application/octet-stream",
                ETag=f'"{etag}"',
                X_Repo_Commit=self._commit_at(repo_type, repo_id, seg[4]),
            )
            return
        self._send(h, 404, b'{"error":"no such endpoint"}')

    def _refused_eval_yaml(self, repo_type: str, staged: list[tuple[str, bytes | None]]) -> str:
        """Why the Hub refuses a dataset commit's root `eval.yaml` ("" when it does not): the
        rules of the kept specification (kit/hub_eval_spec.py) and `self.frameworks`."""
        import yaml

        data = dict(staged).get(hub_eval_spec.EVAL_YAML)
        if repo_type != "dataset" or data is None:
            return ""
        try:
            parsed = yaml.safe_load(data.decode("utf-8"))
            errors = hub_eval_spec.eval_yaml_errors(parsed, self.frameworks)
        except (UnicodeDecodeError, yaml.YAMLError) as exc:
            errors = [f"not a YAML file ({type(exc).__name__})"]
        if not errors:
            return ""
        return (
            f"Your push was rejected because {hub_eval_spec.EVAL_YAML} does not follow the specification "
            "(https://huggingface.co/docs/hub/eval-results#evalyaml-specification):\n"
            + "\n".join(f"- {e}" for e in errors)
        )

    def _space_variable(self, h, repo_id: str, req: dict) -> None:
        """POST /api/spaces/{id}/variables (`HfApi.add_space_variable`): set one variable of a
        Space; a Space that does not exist is 404, one this token cannot write 403."""
        if not self.folder("space", repo_id).is_dir():
            self._not_found(h)
            return
        if f"space:{repo_id}" in self.read_only:
            self._send(h, 403, json.dumps({"error": FORBIDDEN_COMMIT}).encode())
            return
        if not isinstance(req.get("key"), str) or not isinstance(req.get("value"), str):
            self._send(h, 400, b'{"error":"key and value must be strings"}')
            return
        variables = self.space_variables.setdefault(repo_id, {})
        variables[req["key"]] = req["value"]
        self._json(
            h,
            200,
            {
                k: {"value": v, "updatedAt": "2026-01-01T00:00:00.000Z"}
                for k, v in variables.items()
            },
        )

    def _model_info(self, h, repo_id: str, revision: str) -> None:
        """GET /api/models/{id}[/revision/{rev}]: what the Hub answers about a model."""
        base = self.folder("model", repo_id)
        if not base.is_dir() or self.private.get(f"model:{repo_id}"):
            self._not_found(h)
            return
        head = self._head("model", repo_id)
        if revision != "main" and not (len(revision) >= 7 and head.startswith(revision)):
            self._send(
                h,
                404,
                json.dumps({"error": f"Invalid rev id: {revision}"}).encode(),
                X_Error_Code="RevisionNotFound",
            )
            return
        files = self.files(repo_id, "model", gitattributes=True)
        card = front_matter(files["README.md"]) if "README.md" in files else {}
        parameters: dict[str, int] = {}
        for name, data in files.items():
            if name.endswith(".safetensors"):
                for dtype, n in safetensors_parameters(data).items():
                    parameters[dtype] = parameters.get(dtype, 0) + n
        info = {
            "_id": hashlib.sha1(repo_id.encode()).hexdigest()[:24],
            "id": repo_id,
            "modelId": repo_id,
            "author": repo_id.split("/")[0],
            "sha": head,
            "private": False,
            "disabled": False,
            "gated": self.gated.get(f"model:{repo_id}", False),
            "downloads": 0,
            "likes": 0,
            "library_name": card.get("library_name", "transformers"),
            "tags": [f"license:{card['license']}"] if card.get("license") else [],
            "pipeline_tag": card.get("pipeline_tag", "text-generation"),
            "cardData": card,
            "siblings": [{"rfilename": p} for p in files],
            "createdAt": "2026-01-01T00:00:00.000Z",
            "lastModified": "2026-01-01T00:00:00.000Z",
        }
        if parameters:
            info["safetensors"] = {"parameters": parameters, "total": sum(parameters.values())}
        self._json(h, 200, info)

    def _commit(self, h, repo_type: str, repo_id: str, base: Path, body: bytes) -> None:
        added, deleted, message, lfs = [], [], "", []
        staged: list[tuple[str, bytes | None]] = []
        for line in body.decode().splitlines():
            if not line.strip():
                continue
            obj = json.loads(line)
            key, value = obj["key"], obj["value"]
            if key == "header":
                message = value["summary"]
                parent = value.get("parentCommit")
                head = self._head(repo_type, repo_id)
                if parent and not head.startswith(parent):
                    # what the Hub answers when the branch moved after the client read it
                    self._send(
                        h,
                        412,
                        json.dumps(
                            {"error": "A commit has happened since. Please refresh and try again."}
                        ).encode(),
                    )
                    return
            elif key == "file":
                staged.append((value["path"], base64.b64decode(value["content"])))
            elif key == "lfsFile":
                if value["oid"] not in self.lfs_objects:
                    raise ValueError(f"LFS object {value['oid']} was never uploaded")
                staged.append((value["path"], self.lfs_objects[value["oid"]]))
                lfs.append(value["path"])
            elif key == "deletedFile":
                staged.append((value["path"], None))
            else:
                raise ValueError(f"unsupported commit line {key}")
        refused = self._refused_eval_yaml(repo_type, staged)
        if refused:
            # the Hub validates eval.yaml at push time: the whole commit is refused, with
            # HTTP 400 and its reason in "error" (huggingface_hub: BadRequestError, "Bad
            # request for commit endpoint:" and the reason, as for its other push rejections)
            self._send(h, 400, json.dumps({"error": refused}).encode())
            return
        for rel, data in staged:  # all checked above, then applied: one commit, all or nothing
            target = base / rel
            self.lfs_paths.discard(f"{repo_type}:{repo_id}:{rel}")
            if rel in lfs:
                self.lfs_paths.add(f"{repo_type}:{repo_id}:{rel}")
            if data is None:
                if target.is_file():
                    target.unlink()
                deleted.append(rel)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                added.append(rel)
        self._log(Commit(f"{repo_type}:{repo_id}", message, added, deleted))
        oid = self._head(repo_type, repo_id)
        self._json(
            h,
            200,
            {"commitUrl": f"{self.url}/{repo_type}s/{repo_id}/commit/{oid}", "commitOid": oid},
        )


@contextlib.contextmanager
def serving(root: Path, monkeypatch: Any, **kwargs: Any) -> Iterator[HubStub]:
    """A started stand-in (`HubStub(root, token=TOKEN, **kwargs)`) that `huggingface_hub` and
    the project's code reach through HF_ENDPOINT / HF_TOKEN (set with `monkeypatch`); stopped
    on exit. The suite runs offline (HF_HUB_OFFLINE=1): this reaches 127.0.0.1 only. The
    stand-in speaks LFS, not Xet: files go as with HF_HUB_DISABLE_XET=1 (with hf_xet installed,
    `upload_folder` would otherwise ask for a Xet write token)."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_DISABLE_XET", True)
    stub = HubStub(root, token=TOKEN, **kwargs).start()
    monkeypatch.setenv("HF_ENDPOINT", stub.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    try:
        yield stub
    finally:
        stub.stop()
