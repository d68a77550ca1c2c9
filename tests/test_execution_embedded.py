"""Embedded pyoxigraph store: loads Turtle and N-Triples, answers every form, records failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from nmt_sparql.execution import Answer, EmbeddedStore, EndpointKB, execute_many, kb_from_config
from nmt_sparql.sparql.prefixes import register_prefix_map

TTL = """@prefix ex: <http://ex.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:Kubrick ex:directed ex:Shining, ex:Lolita .
ex:Shining ex:year "1980"^^xsd:integer ; ex:title "The Shining"@en .
ex:Lolita ex:year 1962 .
"""
NT = """<http://ex.org/Nolan> <http://ex.org/directed> <http://ex.org/Memento> .
<http://ex.org/Memento> <http://ex.org/year> "2000"^^<http://www.w3.org/2001/XMLSchema#integer> .
"""
PREFIX = "PREFIX ex: <http://ex.org/> "


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    ttl, nt = tmp_path / "films.ttl", tmp_path / "more.nt"
    ttl.write_text(TTL, encoding="utf-8")
    nt.write_text(NT, encoding="utf-8")
    return ttl, nt


def test_turtle_and_ntriples_load_and_answer(files: tuple[Path, Path]) -> None:
    with EmbeddedStore(files) as kb:
        films = kb.query(PREFIX + "SELECT ?f WHERE { ?d ex:directed ?f } ORDER BY ?f")
        assert films.kind == "select" and films.variables == ("f",)
        assert films.rows == (
            ("http://ex.org/Lolita",),
            ("http://ex.org/Memento",),
            ("http://ex.org/Shining",),
        )
        count = kb.query(PREFIX + "SELECT (COUNT(?f) AS ?n) WHERE { ex:Kubrick ex:directed ?f }")
        assert count.number() == 2
        assert kb.query(PREFIX + "ASK { ex:Nolan ex:directed ex:Memento }").boolean is True
        assert kb.query(PREFIX + "ASK { ex:Nolan ex:directed ex:Shining }").boolean is False
        title = kb.query(PREFIX + "SELECT ?t WHERE { ex:Shining ex:title ?t }")
        assert title.rows == (("The Shining",),)
        graph = kb.query(PREFIX + "CONSTRUCT { ?f ex:by ex:Nolan } WHERE { ex:Nolan ex:directed ?f }")
        assert graph.kind == "graph"
        assert graph.rows == (("http://ex.org/Memento", "http://ex.org/by", "http://ex.org/Nolan"),)
        described = kb.query("DESCRIBE <http://ex.org/Lolita>")
        assert described.values() == {("http://ex.org/Lolita", "http://ex.org/year", "1962")}


def test_select_rows_keep_duplicates_and_unbound_cells(files: tuple[Path, Path]) -> None:
    with EmbeddedStore(files) as kb:
        years = kb.query(PREFIX + "SELECT ?d WHERE { ?d ex:directed ?f } ")
        assert sorted(years.rows) == [
            ("http://ex.org/Kubrick",),
            ("http://ex.org/Kubrick",),
            ("http://ex.org/Nolan",),
        ]
        assert len(years.values()) == 2
        optional = kb.query(PREFIX + "SELECT ?f ?t WHERE { ?d ex:directed ?f OPTIONAL { ?f ex:title ?t } }")
        assert ("http://ex.org/Lolita", None) in optional.rows


def test_failing_query_is_recorded_not_raised(files: tuple[Path, Path]) -> None:
    with EmbeddedStore(files) as kb:
        bad = kb.query("SELECT ?x WHERE { ?x ")
        assert isinstance(bad, Answer) and bad.kind == "error" and "SyntaxError" in bad.error
        assert bad.is_empty()
        answers = execute_many(
            kb, ["SELECT ?x WHERE { ?x", PREFIX + "ASK { ex:Kubrick ?p ?o }"], workers=2, progress=False
        )
        assert answers[0].error is not None and answers[1].boolean is True


def test_deadline_turns_a_long_result_into_an_error(files: tuple[Path, Path]) -> None:
    with EmbeddedStore(files, timeout_s=0.0) as kb:
        slow = kb.query("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }")
        assert slow.error is not None and "QueryTimeout" in slow.error


def test_exists_finds_subjects_predicates_and_objects(files: tuple[Path, Path]) -> None:
    ex = register_prefix_map("test-films", {"ex": "http://ex.org/"})
    with EmbeddedStore(files, prefixes=ex) as kb:
        found = kb.exists(
            ["ex:Kubrick", "ex:directed", "ex:Memento", "<http://ex.org/Lolita>", "ex:Nobody", "w:Pq31"]
        )
        assert found == {"ex:Kubrick", "ex:directed", "ex:Memento", "<http://ex.org/Lolita>"}


def test_on_disk_store_is_reused(files: tuple[Path, Path], tmp_path: Path) -> None:
    location = tmp_path / "store"
    with EmbeddedStore(files, location=location) as kb:
        assert kb.query(PREFIX + "ASK { ex:Kubrick ex:directed ex:Lolita }").boolean is True
    with kb_from_config(f"embedded:{location}") as reopened:
        assert isinstance(reopened, EmbeddedStore)
        assert reopened.query(PREFIX + "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").number() == 7


def test_kb_from_config_forms(files: tuple[Path, Path]) -> None:
    ttl, nt = files
    with kb_from_config(f"embedded:{ttl},{nt}") as both:
        assert both.query(PREFIX + "ASK { ex:Nolan ?p ?o }").boolean is True
    with kb_from_config(str(ttl)) as one:
        assert one.query(PREFIX + "ASK { ex:Nolan ?p ?o }").boolean is False
    endpoint = kb_from_config({"source": "http://127.0.0.1:9/sparql", "timeout_s": 2, "retries": 0})
    assert isinstance(endpoint, EndpointKB) and endpoint.timeout_s == 2
    with pytest.raises(FileNotFoundError, match="missing.ttl"):
        kb_from_config(f"embedded:{ttl},{ttl.parent / 'missing.ttl'}")
    with pytest.raises(ValueError, match="unknown option"):
        kb_from_config({"source": str(ttl), "retries": 3})


def test_bad_rdf_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text("<http://a> <http://b> .\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.ttl"):
        EmbeddedStore([bad])
    odd = tmp_path / "data.xyz"
    odd.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match="data.xyz"):
        EmbeddedStore([odd])


def test_unreachable_endpoint_is_an_error_answer() -> None:
    kb = EndpointKB("http://127.0.0.1:9/sparql", timeout_s=2, retries=1, backoff_s=0.01)
    answer = kb.query("ASK { ?s ?p ?o }")
    assert answer.error is not None and answer.kind == "error"
