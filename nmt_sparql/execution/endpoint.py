"""A remote SPARQL 1.1 endpoint (DBpedia, Wikidata, a local `oxigraph serve`) through SPARQLWrapper.

Public endpoints drop connections and answer 5xx/429 under load: those are retried with
exponential backoff. A 4xx (bad query) or a timeout is not retried: asking again gives the same
answer and a timed-out query would cost the timeout again. Results come as SPARQL JSON
(SELECT/ASK) or Turtle (CONSTRUCT/DESCRIBE, parsed with pyoxigraph).
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
from collections.abc import Sequence
from typing import Literal

import pyoxigraph as ox
from SPARQLWrapper import JSON, TURTLE, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import EndPointInternalError

from nmt_sparql.execution.answer import Answer, answer_from_sparql_json
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.embedded import term_string
from nmt_sparql.sparql.prefixes import PrefixMap

_RETRIED_HTTP = {429, 500, 502, 503, 504}
EXISTS_BATCH = 50


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
    ):
        super().__init__(prefixes)
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"endpoint URL must start with http:// or https://, got {url!r}")
        if retries < 0 or timeout_s <= 0:
            raise ValueError(f"need retries >= 0 and timeout_s > 0, got {retries}, {timeout_s}")
        self.url, self.timeout_s, self.retries, self.backoff_s = url, timeout_s, retries, backoff_s
        self.default_graph, self.method, self.agent = default_graph, method, agent
        self._exists_cache: dict[str, bool] = {}

    def _wrapper(self, sparql: str, fmt: str) -> SPARQLWrapper:
        sw = SPARQLWrapper(self.url, agent=self.agent)
        sw.setQuery(sparql)
        sw.setReturnFormat(fmt)
        sw.setTimeout(int(max(1, round(self.timeout_s))))
        sw.setMethod(self.method)
        if self.default_graph:
            sw.addDefaultGraph(self.default_graph)
        return sw

    def _transient(self, err: Exception) -> bool:
        if isinstance(err, urllib.error.HTTPError):
            return err.code in _RETRIED_HTTP
        if isinstance(err, EndPointInternalError):
            return True
        if isinstance(err, urllib.error.URLError):
            return not isinstance(err.reason, (socket.timeout, TimeoutError))
        return isinstance(err, ConnectionError)

    def _fetch(self, sparql: str, fmt: str) -> bytes:
        """The raw response body, retrying transient failures `retries` times with exponential backoff."""
        for attempt in range(self.retries + 1):
            try:
                response = self._wrapper(sparql, fmt).query().response
                try:
                    return response.read()
                finally:
                    response.close()
            except Exception as err:
                if attempt == self.retries or not self._transient(err):
                    raise
                time.sleep(self.backoff_s * 2**attempt)
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
        """One SELECT per batch of IRIs (VALUES), cached: a report checks the same URIs many times."""
        todo = [i for i in iris if i not in self._exists_cache and ">" not in i and " " not in i]
        for start in range(0, len(todo), EXISTS_BATCH):
            batch = todo[start : start + EXISTS_BATCH]
            values = " ".join(f"<{i}>" for i in batch)
            sparql = (
                f"SELECT DISTINCT ?i WHERE {{ VALUES ?i {{ {values} }} "
                "{ ?i ?p ?o } UNION { ?s ?i ?o } UNION { ?s ?p ?i } }"
            )
            answer = self.query(sparql)
            if answer.error is not None:
                raise RuntimeError(f"{self.url}: existence check failed: {answer.error}")
            present = {row[0] for row in answer.rows}
            for iri in batch:
                self._exists_cache[iri] = iri in present
        return {i for i in iris if self._exists_cache.get(i, False)}

    def close(self) -> None:
        """Nothing is held open: each request opens and closes its own connection."""
