"""A remote SPARQL 1.1 endpoint (DBpedia, Wikidata, a local `oxigraph serve`) through SPARQLWrapper.

Public endpoints drop connections and answer 5xx/429 under load: those are retried with
exponential backoff. A 4xx (bad query) or a timeout is not retried: asking again gives the same
answer and a timed-out query would cost the timeout again. `timeout_s` bounds a whole request
(connection, then the body read in chunks against one deadline), so a hanging or trickling server
costs at most about twice that. A circuit breaker makes a dead endpoint cheap: after
`breaker_after` consecutive failed requests, retries included (no connection, timeout, 5xx/429),
queries are not sent for `breaker_reset_s` and fail at once with the reason; the first request after that is a
probe, and one success closes the breaker. Results come as SPARQL JSON (SELECT/ASK) or Turtle
(CONSTRUCT/DESCRIBE, parsed with pyoxigraph).
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
import urllib.error
from collections.abc import Sequence
from typing import Literal

import pyoxigraph as ox
from SPARQLWrapper import JSON, TURTLE, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import EndPointInternalError

from nmt_sparql.execution.answer import Answer, answer_from_sparql_json
from nmt_sparql.execution.base import ExistenceCheckError, KnowledgeBase
from nmt_sparql.execution.embedded import term_string
from nmt_sparql.sparql.prefixes import PrefixMap

_RETRIED_HTTP = {429, 500, 502, 503, 504}
EXISTS_BATCH = 50
# What may stand between < and > of an IRIREF (SPARQL grammar, rule 139).
_WRITABLE_IRI = re.compile(r'[^<>"{}|^`\\\x00-\x20]*')
READ_CHUNK = 1 << 16


class EndpointUnavailable(ConnectionError):
    """The circuit breaker is open: the endpoint failed too often in a row, the query was not sent."""


def _is_timeout(err: Exception) -> bool:
    reason = err.reason if isinstance(err, urllib.error.URLError) else err
    return isinstance(reason, (socket.timeout, TimeoutError))


class EndpointKB(KnowledgeBase):
    """Queries a SPARQL endpoint URL; `default_graph` is sent as the protocol's `default-graph-uri`."""

    def __init__(
        self,
        url: str,
        timeout_s: float = 30.0,
        retries: int = 3,
        backoff_s: float = 1.0,
        default_graph: str | None = None,
        prefixes: str | PrefixMap = "generic",
        method: Literal["GET", "POST"] = "GET",
        agent: str = "nmt-sparql/0.1 (research evaluation)",
        breaker_after: int = 5,
        breaker_reset_s: float = 60.0,
    ):
        super().__init__(prefixes)
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"endpoint URL must start with http:// or https://, got {url!r}")
        if retries < 0 or timeout_s <= 0 or breaker_after < 1:
            raise ValueError(
                f"need retries >= 0, timeout_s > 0 and breaker_after >= 1, "
                f"got {retries}, {timeout_s}, {breaker_after}"
            )
        self.url, self.timeout_s, self.retries, self.backoff_s = url, timeout_s, retries, backoff_s
        self.default_graph, self.method, self.agent = default_graph, method, agent
        self.breaker_after, self.breaker_reset_s = breaker_after, breaker_reset_s
        self._exists_cache: dict[str, bool] = {}
        self._lock = threading.Lock()  # execute_many shares one EndpointKB across worker threads
        self._failures = 0
        self._last_failure = ""
        self._open_until = 0.0

    def identity(self) -> str:
        """The endpoint URL and default graph: what decides the answers."""
        return f"endpoint:{self.url}" + (f" graph:{self.default_graph}" if self.default_graph else "")

    def _wrapper(self, sparql: str, fmt: str) -> SPARQLWrapper:
        sw = SPARQLWrapper(self.url, agent=self.agent)
        sw.setQuery(sparql)
        sw.setReturnFormat(fmt)
        sw.timeout = self.timeout_s  # setTimeout() rounds to whole seconds; urlopen takes a float
        sw.setMethod(self.method)
        if self.default_graph:
            sw.addDefaultGraph(self.default_graph)
        return sw

    def _transient(self, err: Exception) -> bool:
        if isinstance(err, urllib.error.HTTPError):
            return err.code in _RETRIED_HTTP
        if isinstance(err, EndPointInternalError):
            return True
        if _is_timeout(err):
            return False
        return isinstance(err, (urllib.error.URLError, ConnectionError, http.client.HTTPException))

    def _unavailable(self, err: Exception) -> bool:
        """Failures that say the endpoint, not the query, is at fault: they count towards the breaker."""
        return self._transient(err) or _is_timeout(err)

    def _admit(self) -> None:
        with self._lock:
            if self._failures >= self.breaker_after and time.monotonic() < self._open_until:
                raise EndpointUnavailable(
                    f"{self.url}: not sent, the endpoint failed {self._failures} times in a row "
                    f"(last: {self._last_failure}); next try in at most {self.breaker_reset_s:g}s"
                )

    def _record(self, err: Exception | None) -> None:
        with self._lock:
            if err is None:
                self._failures = 0
                return
            self._failures += 1
            self._last_failure = f"{type(err).__name__}: {err}"[:300]
            if self._failures >= self.breaker_after:
                self._open_until = time.monotonic() + self.breaker_reset_s

    def _read(self, sparql: str, fmt: str) -> bytes:
        """One request; the body is read in chunks so that the whole request stays within `timeout_s`."""
        deadline = time.monotonic() + self.timeout_s
        response = self._wrapper(sparql, fmt).query().response
        try:
            chunks = []
            while chunk := response.read(READ_CHUNK):
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the response took longer than {self.timeout_s:g}s")
            return b"".join(chunks)
        finally:
            response.close()

    def _fetch(self, sparql: str, fmt: str) -> bytes:
        """The raw response body, retrying transient failures `retries` times with exponential backoff."""
        for attempt in range(self.retries + 1):
            self._admit()
            try:
                body = self._read(sparql, fmt)
            except Exception as err:
                self._record(err if self._unavailable(err) else None)
                if attempt == self.retries or not self._transient(err):
                    raise
                time.sleep(self.backoff_s * 2**attempt)
            else:
                self._record(None)
                return body
        raise AssertionError("unreachable")

    def _run(self, sparql: str, form: str) -> Answer:
        if form in ("CONSTRUCT", "DESCRIBE"):
            body = self._fetch(sparql, TURTLE)
            triples = tuple(
                tuple(term_string(t) for t in (q.subject, q.predicate, q.object))
                for q in ox.parse(body, format=ox.RdfFormat.TURTLE)
            )
            return Answer(kind="graph", variables=("subject", "predicate", "object"), rows=triples)
        return answer_from_sparql_json(json.loads(self._fetch(sparql, JSON)))

    def _existing_iris(self, iris: Sequence[str]) -> set[str]:
        """One SELECT per batch of IRIs (VALUES), cached: a report checks the same URIs many times.

        An IRI that cannot be written as `<...>` is left out (reported absent): it would make its whole
        batch a syntax error."""
        todo = [i for i in iris if i not in self._exists_cache and _WRITABLE_IRI.fullmatch(i)]
        for start in range(0, len(todo), EXISTS_BATCH):
            batch = todo[start : start + EXISTS_BATCH]
            values = " ".join(f"<{i}>" for i in batch)
            sparql = (
                f"SELECT DISTINCT ?i WHERE {{ VALUES ?i {{ {values} }} "
                "{ ?i ?p ?o } UNION { ?s ?i ?o } UNION { ?s ?p ?i } }"
            )
            answer = self.query(sparql)
            if answer.error is not None:
                raise ExistenceCheckError(f"{self.url}: existence check failed: {answer.error}")
            present = {row[0] for row in answer.rows}
            for iri in batch:
                self._exists_cache[iri] = iri in present
        return {i for i in iris if self._exists_cache.get(i, False)}

    def close(self) -> None:
        """Nothing is held open: each request opens and closes its own connection."""
