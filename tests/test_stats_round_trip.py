"""`data stats`'s round trip decided once per query skeleton gives what the full check gives."""

from __future__ import annotations

import pytest

from nmt_sparql.preparation.stats import round_trip_ok
from nmt_sparql.sparql.validate import round_trip

R, ONT = "http://dbpedia.org/resource/", "http://dbpedia.org/ontology/"
QUERIES = [
    f"SELECT DISTINCT ?uri WHERE {{ <{R}Alien_(film)> <{ONT}director> ?uri }}",
    f"SELECT DISTINCT ?uri WHERE {{ <{R}Big_Ben> <{ONT}architect> ?uri }}",
    f"SELECT DISTINCT COUNT(?uri) WHERE {{ ?uri <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{ONT}Film> }}",
    "SELECT ?x WHERE { dbr:Alien dbo:director ?x }",  # prefixed: no skeleton, full check
    f'ASK WHERE {{ <{R}A> <{ONT}name> "<{R}A>" }}',  # an IRI inside a literal stays as written
    f"SELECT ?x WHERE {{ <{R}A> <{ONT}b> }}",  # the original does not parse
]


@pytest.mark.parametrize("query", QUERIES)
def test_skeleton_check_agrees_with_the_full_round_trip(query):
    assert round_trip_ok(query, "dbpedia", {}) == round_trip(query, "dbpedia").ok


def test_one_template_is_parsed_once():
    cache: dict = {}
    assert all(round_trip_ok(q, "dbpedia", cache) for q in QUERIES[:2])
    assert len(cache) == 1
