"""The knowledge base shipped inside the package: valid Turtle, labelled, prefixes that compact it."""

from __future__ import annotations

import json
from collections import Counter

import pyoxigraph as ox
import pytest

from nmt_sparql.data.generate import (
    BUNDLED_KB,
    bundled_kb_path,
    load_store,
)
from nmt_sparql.sparql.prefixes import BUNDLED
from nmt_sparql.sparql.tokens import tokenize

RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
SCHEMA = ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/2000/01/rdf-schema#",
          "http://www.w3.org/2002/07/owl#", "http://www.w3.org/2001/XMLSchema#")  # fmt: skip


@pytest.fixture(scope="module")
def store() -> ox.Store:
    return load_store(bundled_kb_path())


def test_kb_is_shipped_valid_turtle_of_a_few_thousand_triples_under_one_megabyte(store: ox.Store) -> None:
    path = bundled_kb_path()
    assert path.name == "kb.ttl" and path.is_file()
    assert path.stat().st_size < 1_000_000
    assert len(store) >= 3000


def test_every_resource_class_and_property_has_one_english_label(store: ox.Store) -> None:
    used: set[str] = set()
    for quad in store.quads_for_pattern(None, None, None):
        used.add(quad.subject.value)
        if not quad.predicate.value.startswith(SCHEMA):
            used.add(quad.predicate.value)
        if isinstance(quad.object, ox.NamedNode) and not quad.object.value.startswith(SCHEMA):
            used.add(quad.object.value)
    for iri in sorted(used):
        labels = [q.object for q in store.quads_for_pattern(ox.NamedNode(iri), LABEL, None)]
        assert len(labels) == 1, f"{iri} has {len(labels)} rdfs:label(s)"
        assert labels[0].language == "en" and labels[0].value.strip(), iri


def test_resource_labels_are_unique_so_questions_name_one_entity(store: ox.Store) -> None:
    rows = store.query(
        "SELECT ?s ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l . "
        'FILTER(STRSTARTS(STR(?s), "http://nmt-sparql.org/resource/")) }'
    )
    counts = Counter(r["l"].value.lower() for r in rows)
    assert [label for label, n in counts.items() if n > 1] == []


def test_every_iri_lives_in_the_declared_namespaces(store: ox.Store) -> None:
    prefixes = BUNDLED
    assert prefixes == json.loads((bundled_kb_path().parent / "kb_prefixes.json").read_text(encoding="utf-8"))
    namespaces = tuple(prefixes.values()) + SCHEMA
    for quad in store.quads_for_pattern(None, None, None):
        for term in (quad.subject, quad.predicate, quad.object):
            if isinstance(term, ox.NamedNode):
                assert term.value.startswith(namespaces), term.value


def test_typed_literals_and_known_facts(store: ox.Store) -> None:
    birth = store.query(
        "PREFIX res: <http://nmt-sparql.org/resource/> PREFIX ont: <http://nmt-sparql.org/ontology/> "
        "SELECT ?d ?p WHERE { res:Marie_Curie ont:birthDate ?d ; ont:birthPlace ?p }"
    )
    row = next(iter(birth))
    assert row["d"] == ox.Literal(
        "1867-11-07", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#date")
    )
    assert row["p"] == ox.NamedNode("http://nmt-sparql.org/resource/Warsaw")
    asks = [
        "res:France ont:capital res:Paris",
        "res:Iron ont:atomicNumber 26",
        'res:Iron ont:symbol "Fe"',
        "res:Pride_and_Prejudice ont:author res:Jane_Austen",
        "res:Pride_and_Prejudice ont:publicationYear 1813",
        "res:Mount_Everest ont:elevation 8849",
        "res:Earth ont:orderFromSun 3",
        "res:Inception ont:director res:Christopher_Nolan",
        "res:Danube ont:flowsThrough res:Vienna",
    ]
    head = "PREFIX res: <http://nmt-sparql.org/resource/> PREFIX ont: <http://nmt-sparql.org/ontology/> "
    for triple in asks:
        assert bool(store.query(f"{head} ASK {{ {triple} }}")), triple
    assert not bool(store.query(f"{head} ASK {{ res:France ont:capital res:Lyon }}"))


def test_every_class_has_members_and_people_are_typed(store: ox.Store) -> None:
    classes = {
        r["c"].value.rsplit("/", 1)[-1]
        for r in store.query(
            "SELECT DISTINCT ?c WHERE { ?s a ?c . FILTER(STRSTARTS(STR(?s), STR(<http://nmt-sparql.org/resource/>))) }"
        )
    }
    for needed in ("Person", "Writer", "Scientist", "Composer", "FilmDirector", "Politician", "Country", "City",
                   "River", "Mountain", "Novel", "Film", "Painting", "Album", "University", "Company",
                   "ChemicalElement", "Planet"):  # fmt: skip
        assert needed in classes


def test_bundled_prefix_map_compacts_kb_iris() -> None:
    query = (
        "SELECT ?x WHERE { <http://nmt-sparql.org/resource/Marie_Curie> "
        "<http://nmt-sparql.org/ontology/birthPlace> ?x }"
    )
    assert tokenize(query, BUNDLED_KB)[4:6] == ["res:Marie_Curie", "ont:birthPlace"]
