"""A tiny HTTP server on 127.0.0.1 (ephemeral port) that records every request it receives.

Security tests point SERVICE / FROM IRIs at it: a refused query must leave `requests` empty, and a
positive control (the host allowed) shows that the store really would have called it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Listener:
    def __init__(self, port: int):
        self.port = port
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/sparql"


@contextmanager
def loopback_listener() -> Iterator[Listener]:
    """A running listener; every request gets an empty SPARQL JSON result."""
    received: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            received.append(f"{self.command} {self.path}")
            body = b'{"head": {"vars": []}, "results": {"bindings": []}}'
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _record

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    listener = Listener(server.server_address[1])
    listener.requests = received
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
