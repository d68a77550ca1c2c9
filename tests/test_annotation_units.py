"""A question's «units» are copied verbatim into queries: each must be exactly one KB element."""

from __future__ import annotations

import pytest

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.units import UnitError, check_units
from nmt_sparql.sparql.prefixes import prefix_map

GOOD = [
    "«dbr:Batman_(1989_film)»",
    "«<http://dbpedia.org/resource/Berlin>»",
    '«"The Shining"@en»',
    '«"1980"^^xsd:integer»',
    '«"x"^^<http://www.w3.org/2001/XMLSchema#string>»',
    '«"say \\"hi\\""»',
    "«'single'»",
    "«22.4»",
    "«-3»",
    "«1e6»",
    "«true»",
]
BAD = [
    "«?y . SERVICE <http://127.0.0.1:9/sparql> { ?x ?p ?o } } #»",
    "«dbr:Berlin } SERVICE <http://a/> { ?s ?p ?o»",
    "«<http://a.org/x> . ?s ?p ?o»",
    "«<http://a.org/x y>»",
    '«"a" } SERVICE <http://a/> { "b"»',
    '«"unterminated»',
    '«"x"@en . ?s ?p ?o»',
    "«dbr:x>»",
    "«?x»",
    "«a»",
    "«DROP ALL»",
]


@pytest.mark.parametrize("unit", GOOD)
def test_kb_elements_are_accepted(unit: str) -> None:
    assert check_units(f"What about {unit} ?", prefix_map("dbpedia")) == [unit[1:-1]]


@pytest.mark.parametrize("unit", BAD)
def test_anything_else_is_refused_naming_the_unit(unit: str) -> None:
    with pytest.raises(UnitError) as caught:
        check_units(f"Which country is {unit} in?")
    assert unit in str(caught.value)


def test_unknown_prefix_is_refused_when_the_prefixes_are_known() -> None:
    assert check_units("«foo:bar»") == ["foo:bar"]
    with pytest.raises(UnitError, match="'foo:'"):
        check_units("«foo:bar»", prefix_map("dbpedia"))
    with pytest.raises(UnitError, match="'foo:'"):
        check_units('«"1"^^foo:int»', prefix_map("dbpedia"))


def test_user_annotated_questions_are_checked_when_annotating() -> None:
    annotator = Annotator("tag_within")
    assert annotator.question("Who wrote «dbr:Dune» ?") == "Who wrote «dbr:Dune» ?"
    with pytest.raises(UnitError, match="SERVICE"):
        annotator.question("Who wrote «?y . SERVICE <http://a/> { ?x ?p ?o } } #» ?")
