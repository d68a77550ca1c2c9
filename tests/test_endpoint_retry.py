"""EndpointKB retries transient failures (5xx) with backoff, and does not retry a bad query (4xx)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from nmt_sparql.execution import EndpointKB


class Flaky(BaseHTTPRequestHandler):
    """Answers 503 for the first `failures` requests, then a fixed SPARQL JSON result; `/bad` always 400."""

    failures = 0
    seen = 0

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        type(self).seen += 1
        if self.path.startswith("/bad"):
            self.send_response(400)
            self.end_headers()
            self.wfile.write(b"bad query")
            return
        if type(self).seen <= type(self).failures:
            self.send_response(503)
            self.end_headers()
            return
        body = json.dumps(
            {
                "head": {"vars": ["n"]},
                "results": {
                    "bindings": [
                        {
                            "n": {
                                "type": "literal",
                                "datatype": "http://www.w3.org/2001/XMLSchema#integer",
                                "value": "042",
                            }
                        }
                    ]
                },
            }
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/sparql-results+json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[str]:
    Flaky.seen, Flaky.failures = 0, 2
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_transient_errors_are_retried(server: str) -> None:
    answer = EndpointKB(server + "/sparql", timeout_s=5, retries=2, backoff_s=0.01).query("SELECT ?n {}")
    assert answer.ok and answer.number() == 42 and Flaky.seen == 3


def test_retries_run_out_into_an_error_answer(server: str) -> None:
    answer = EndpointKB(server + "/sparql", timeout_s=5, retries=1, backoff_s=0.01).query("SELECT ?n {}")
    assert not answer.ok and "503" in answer.error and Flaky.seen == 2


def test_bad_query_is_not_retried(server: str) -> None:
    answer = EndpointKB(server + "/bad", timeout_s=5, retries=3, backoff_s=0.01).query("SELECT ?n {}")
    assert not answer.ok and Flaky.seen == 1
