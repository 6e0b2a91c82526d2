"""A serving engine stand-in the worker starts with `--serve-command`: an OpenAI-compatible
server on the given port, run as its own process (`python engine_stub.py --port {port} ...`).

Like the engines it stands in for it lists its model at `GET /v1/models`, answers chat
completions (after `--delay` seconds each), and may start helper processes of its own
(`--children N`: vLLM's tensor-parallel workers), which the kernel does not kill with it. With
`--greedy-only` it ignores the request's sampling, as `transformers serve` does when the model's
generation config disables sampling; otherwise a request with a temperature above 0 gets an
answer that depends on its seed (a greedy one is `--reply`). `--exit N` exits with status N before it answers, after
writing `--say` to its log (an engine out of GPU memory).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--revision", default="main")
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--children", type=int, default=0)
    p.add_argument("--greedy-only", action="store_true")
    p.add_argument("--exit", type=int, default=None)
    p.add_argument("--say", default="")
    p.add_argument("--reply", default="Hm.\nAnswer: A", help="the greedy answer to every item")
    args = p.parse_args()
    if args.say:
        print(args.say, flush=True)
    if args.exit is not None:
        sys.exit(args.exit)
    for _ in range(args.children):  # in this process group, not killed with this process
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: object) -> None:
            pass

        def _send(self, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._send({"object": "list", "data": [{"id": args.model, "object": "model"}]})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            time.sleep(args.delay)
            sampled = not args.greedy_only and float(body.get("temperature") or 0) > 0
            text = f"Sampled {body.get('seed')}.\nAnswer: B" if sampled else args.reply
            self._send(
                {
                    "object": "chat.completion",
                    "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"content": text}}
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
                }
            )

    print("engine stub ready", flush=True)
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
