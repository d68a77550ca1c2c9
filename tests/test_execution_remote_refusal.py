"""No query makes a KB contact a host the operator did not list: SERVICE and remote FROM are refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback_listener import Listener, loopback_listener

from nmt_sparql.execution import EmbeddedStore, UnsafeQueryError, execute_many, kb_from_config, query_form
from nmt_sparql.execution.safety import allowed_hosts

REMOTE = [
    "SELECT * WHERE { SERVICE <{url}> { ?x ?p ?o } }",
    "select * where { service silent <{url}> { ?x ?p ?o } }",
    "PREFIX r: <{base}> SELECT * WHERE { ?s ?p ?o SERVICE r:sparql { ?x ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o FILTER EXISTS { SERVICE <{url}> { ?s ?p ?o } } }",
    "SELECT * WHERE { { SELECT ?s WHERE { SERVICE <{url}> { ?s ?p ?o } } } }",
    "SELECT * WHERE { SERVICE # a comment\n <{url}> { ?x ?p ?o } }",
    "SELECT * WHERE { SERVICE ?endpoint { ?x ?p ?o } }",
    "SELECT * FROM <{url}> WHERE { ?s ?p ?o }",
    "ASK FROM NAMED <{url}> { GRAPH ?g { ?s ?p ?o } }",
    "BASE <{base}> CONSTRUCT { ?s ?p ?o } FROM <sparql> WHERE { ?s ?p ?o }",
    "DESCRIBE ?s FROM <file:///etc/passwd> WHERE { ?s ?p ?o }",
    # not SPARQL 1.1 (rdflib cannot parse it): the lexical reading still finds the keyword
    "SELECT DISTINCT COUNT(?x) WHERE { SERVICE <{url}> { ?x ?p ?o } }",
    # the question-injection payload of issue #13, as it lands in a query
    "SELECT DISTINCT ?x WHERE { ?y . SERVICE <{url}> { ?x ?p ?o } } # <http://ex.org/p> ?x }",
]


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    with loopback_listener() as running:
        yield running


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.ttl"
    path.write_text("<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n", encoding="utf-8")
    return path


def _fill(template: str, listener: Listener) -> str:
    return template.replace("{url}", listener.url).replace("{base}", listener.url.removesuffix("sparql"))


@pytest.mark.parametrize("template", REMOTE)
def test_remote_targets_are_refused_by_default(template: str, listener: Listener) -> None:
    with pytest.raises(UnsafeQueryError, match="refused"):
        query_form(_fill(template, listener))


def test_only_the_listed_host_and_port_pass(listener: Listener) -> None:
    query = _fill(REMOTE[0], listener)
    assert query_form(query, [f"127.0.0.1:{listener.port}"]) == "SELECT"
    assert query_form(query, "127.0.0.1") == "SELECT"
    for others in (["127.0.0.2"], [f"127.0.0.1:{listener.port + 1}"], ["localhost"]):
        with pytest.raises(UnsafeQueryError, match=f"127.0.0.1:{listener.port}"):
            query_form(query, others)
    with pytest.raises(UnsafeQueryError, match="evil.org"):
        query_form("SELECT * WHERE { SERVICE <http://127.0.0.1@evil.org/> { ?x ?p ?o } }", ["127.0.0.1"])


def test_local_graph_names_and_look_alike_words_pass() -> None:
    assert query_form("SELECT * FROM <urn:graph:a> FROM NAMED <urn:graph:b> WHERE { ?s ?p ?o }") == "SELECT"
    text = (
        "PREFIX ex: <http://ex.org/> SELECT ?service ?from WHERE { ?service ex:from ex:service . "
        '?from ex:p "SERVICE <http://evil.org/>"@en } # SERVICE <http://evil.org/>'
    )
    assert query_form(text) == "SELECT"


@pytest.mark.parametrize(
    "glued",
    [
        "SELECT * WHERE { ?s ?p 1SERVICE <{url}> {} }",
        "SELECT * WHERE { ?s ?p ?o.SERVICE<{url}>{} }",
        "SELECT * WHERE { ?s ?p trueSERVICE <{url}> {} }",
        "PREFIX ex: <{base}> SELECT * WHERE { ?s ?p ?o SERVICEex:sparql {} }",
        "PREFIX : <{base}> SELECT * from:sparql WHERE { ?s ?p ?o }",
    ],
)
def test_keywords_glued_to_other_tokens_are_found(glued: str, listener: Listener) -> None:
    """pyoxigraph's parser needs no space around a keyword: `?o.SERVICE<...>` is a SERVICE call."""
    with pytest.raises(UnsafeQueryError, match="refused"):
        query_form(_fill(glued, listener))


def test_allow_list_entries_must_be_hosts() -> None:
    assert allowed_hosts(["DBpedia.org", " 127.0.0.1:8890 "]) == {"dbpedia.org", "127.0.0.1:8890"}
    assert allowed_hosts(None) == frozenset()
    with pytest.raises(ValueError, match="http://dbpedia.org/sparql"):
        allowed_hosts(["http://dbpedia.org/sparql"])


def test_embedded_store_never_calls_the_listener(data: Path, listener: Listener) -> None:
    before = len(listener.requests)
    with EmbeddedStore([data]) as kb:
        with pytest.raises(UnsafeQueryError):
            kb.query(_fill(REMOTE[0], listener))
        answers = execute_many(kb, [_fill(t, listener) for t in REMOTE], progress=False)
        assert all(a.error is not None and "refused" in a.error for a in answers)
    assert listener.requests[before:] == []


def test_the_listener_is_called_when_its_host_is_allowed(data: Path, listener: Listener) -> None:
    """The positive control: the store really sends SERVICE requests, so the refusals above matter."""
    before = len(listener.requests)
    with kb_from_config({"source": str(data), "allow_hosts": [f"127.0.0.1:{listener.port}"]}) as kb:
        kb.query(_fill(REMOTE[0], listener))
    assert len(listener.requests) > before


def test_unicode_escaped_keywords_are_read_as_a_store_reads_them(listener: Listener) -> None:
    """SPARQL expands \\uXXXX before parsing: `\\u0053ERVICE` is SERVICE to a store, even in a query
    rdflib cannot parse (the RDF-star BIND below), where only the lexical check runs."""
    escaped = r"SELECT * WHERE { \u0053ERVICE <{url}> { ?s ?p ?o } BIND(<< ?s ?p ?o >> AS ?t) }"
    with pytest.raises(UnsafeQueryError, match="not an allowed host"):
        query_form(_fill(escaped, listener))
    assert query_form(r'SELECT * WHERE { ?s ?p "caf\u00e9" }') == "SELECT"
