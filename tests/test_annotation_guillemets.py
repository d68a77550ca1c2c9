"""KB elements with any characters, guillemets included, go through annotation and come back unchanged."""

from __future__ import annotations

import pytest

from nmt_sparql.annotation.annotate import SCHEMES, annotate, split_question
from nmt_sparql.annotation.units import check_units
from nmt_sparql.core.marks import find_units, mark, unmark
from nmt_sparql.data.readers.base import build_example
from nmt_sparql.tokenization.kbmask import kb_unit

MEYERHOLD = "<http://dbpedia.org/resource/Center_of_Theatrical_Arts_«House_of_Meyerhold»>"


@pytest.mark.parametrize(
    "token",
    ["dbr:Ike_Clanton", MEYERHOLD, '"a «quoted» \\\\ word"@en', '"ends in \\\\»"', '"\\\\«"', "«", "»\\"],
)
def test_mark_then_unmark_is_the_token(token):
    unit = mark(token)
    assert unmark(unit) == token and split_question(f"a {unit} b")[1] == unit
    assert find_units(f"x {unit} y {mark('dbr:B')}") == [token, "dbr:B"]


def test_tokens_without_guillemets_are_written_as_before():
    assert mark('"O\\"Brien"') == '«"O\\"Brien"»'


@pytest.mark.parametrize("scheme", SCHEMES)
def test_an_iri_with_guillemets_round_trips_through_every_scheme(tmp_path, scheme):
    example = build_example(
        tmp_path / "mine.jsonl",
        0,
        "query",
        f"SELECT ?x WHERE {{ {MEYERHOLD} <http://dbpedia.org/ontology/location> ?x }}",
        "dbpedia",
        id="0",
        question="Where is the Center of Theatrical Arts «House of Meyerhold»?",
    )
    annotated = annotate(example, scheme)
    found = [kb_unit(word) for word in split_question(annotated.text)]
    expected = [] if scheme == "raw" else sorted(e.token for e in example.kb_elements)
    assert sorted(t for t in found if t is not None) == expected
    if scheme != "raw":
        assert sorted(check_units(annotated.text)) == expected
