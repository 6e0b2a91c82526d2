"""A static copy of a page, the floor bench_space.py measures the Space's page against:
`python benchmarks/static_copy.py PORT FOLDER` serves FOLDER/index.html at `/` from memory
(Python's own threading HTTP server, no application code), with the bytes the Space sent for
each encoding when FOLDER holds them (index.html.br, index.html.gz): the same bytes on the
wire as the Space's page, as Accept-Encoding asks (brotli, else gzip, else as it is).
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ENCODINGS = (("br", ".br"), ("gzip", ".gz"))


def serve(port: int, folder: Path) -> None:
    page = folder / "index.html"
    bodies = {"identity": page.read_bytes()}
    for name, suffix in ENCODINGS:
        path = page.with_name(page.name + suffix)
        if path.exists():
            bodies[name] = path.read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?", 1)[0] != "/":
                self.send_error(404)
                return
            accepted = self.headers.get("Accept-Encoding", "")
            encoding = next((n for n, _ in ENCODINGS if n in bodies and n in accepted), None)
            body = bodies[encoding or "identity"]
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            if encoding:
                self.send_header("Content-Encoding", encoding)
                self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        request_queue_size = 128  # the listen backlog (5 by default): 50 visitors connect at once

    with Server(("127.0.0.1", port), Handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]), Path(sys.argv[2]))
