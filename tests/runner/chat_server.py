"""A real local HTTP server speaking the OpenAI chat-completions protocol, for the runner tests.

It answers from a {user message: reply} table (anything else gets a fixed reply), and can be told
to fail: `faults[user message]` is a list of actions for that message's successive attempts:
`("status", code, headers)` answers with that HTTP status, `("sleep", seconds)` stalls before
answering (longer than the client's timeout = a timeout). It records every request, the largest
number of requests in flight at once, and the Authorization headers it saw. Like the servers it
stands in for, it lists its models at `GET /v1/models` (`models`) and counts each answer's
tokens (`usage`: here, words).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer:
    def __init__(
        self,
        replies: dict[str, str] | None = None,
        delay: float = 0.0,
        models: tuple[str, ...] = ("served-model",),
        default: str | Callable[[dict], str] = "No idea.\nAnswer: ?",
        answer_only: int | None = None,
    ) -> None:
        self.replies = replies or {}
        self.delay = delay
        # after this many answers, requests wait until the server stops: a client interrupted
        # then is interrupted mid-run however slow the machine (no race against the clock)
        self.answer_only = answer_only
        self.released = threading.Event()
        self.models = models
        self.default = default
        self.faults: dict[str, list[tuple]] = {}
        self.required_key: str | None = None
        self.lock = threading.Lock()
        self.inflight = 0
        self.max_inflight = 0
        self.attempts: Counter[str] = Counter()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.bodies: list[dict] = []
        self.auth: set[str | None] = set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def _send(self, code: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

            def do_GET(self) -> None:
                if self.path != "/v1/models":
                    return self._send(404, {"error": {"message": "not found"}})
                data = [{"id": m, "object": "model", "owned_by": "test"} for m in server.models]
                self._send(200, {"object": "list", "data": data})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with server.lock:
                    server.inflight += 1
                    server.max_inflight = max(server.max_inflight, server.inflight)
                try:
                    server._handle(self, body)
                finally:
                    with server.lock:
                        server.inflight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def _handle(self, h: BaseHTTPRequestHandler, body: dict) -> None:
        auth = h.headers.get("Authorization")
        if h.path != "/v1/chat/completions":
            return h._send(404, {"error": {"message": "not found"}})
        user = body["messages"][-1]["content"]
        with self.lock:
            n = self.attempts[user]
            self.attempts[user] += 1
            self.times[user].append(time.monotonic())
            self.bodies.append(body)
            self.auth.add(auth)
        if self.required_key and auth != f"Bearer {self.required_key}":
            return h._send(401, {"error": {"message": "invalid api key"}})
        plan = self.faults.get(user, [])
        action = plan[n] if n < len(plan) else ("ok",)
        if action[0] == "status":
            return h._send(action[1], {"error": {"message": f"simulated {action[1]}"}}, action[2])
        if action[0] == "sleep":
            time.sleep(action[1])
        if self.delay:
            time.sleep(self.delay)
        if self.answer_only is not None and sum(self.attempts.values()) > self.answer_only:
            self.released.wait(120)
        content = self.replies.get(user, self.default)
        if callable(content):  # a reply that depends on the request (its sampling, say)
            content = content(body)
        words = sum(len(m["content"].split()) for m in body["messages"])
        h._send(
            200,
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {
                    "prompt_tokens": words,
                    "completion_tokens": len(content.split()),
                    "total_tokens": words + len(content.split()),
                },
            },
        )

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()
