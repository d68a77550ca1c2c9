"""A tiny HTTP server on 127.0.0.1 (ephemeral port) that records every request it receives.

Security tests point SERVICE / FROM IRIs at it: a refused query must leave `requests` empty, and a
positive control (the host allowed) shows that the store really would have called it.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import uvicorn


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


@contextmanager
def app_on_loopback(app: Any) -> Iterator[str]:
    """The URL of an ASGI app served by uvicorn on 127.0.0.1 (an ephemeral port) until the block ends."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start within 20 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
