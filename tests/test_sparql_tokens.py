"""The SPARQL toolkit: tokens, detokenization, token classes and the loss-free round trip."""

import pytest

from nmt_sparql.sparql.tokens import (
    SparqlSyntaxError,
    TokenType,
    canonicalize,
    detokenize,
    kb_tokens,
    literal_value,
    local_name,
    token_types,
    tokenize,
)
from nmt_sparql.sparql.validate import equivalent, parse_error, round_trip

LCQ1 = (
    "SELECT DISTINCT COUNT(?uri) WHERE {?uri <http://dbpedia.org/ontology/director> "
    "<http://dbpedia.org/resource/Stanley_Kubrick>  . }"
)


def test_full_iris_are_compacted_and_keywords_lowercased():
    assert tokenize(LCQ1) == [
        "select", "distinct", "count", "(", "?uri", ")", "where", "{",
        "?uri", "dbo:director", "dbr:Stanley_Kubrick", "}",
    ]  # fmt: skip


def test_rdf_type_becomes_a_and_is_not_a_kb_element():
    q = "SELECT ?x WHERE { ?x <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://dbpedia.org/ontology/City> }"
    tokens = tokenize(q)
    assert "a" in tokens
    assert kb_tokens(tokens) == ["dbo:City"]


def test_declared_prefixes_are_resolved_and_dropped():
    q = "PREFIX foo: <http://dbpedia.org/resource/> ASK { foo:Paris ?p ?o }"
    assert tokenize(q) == ["ask", "{", "dbr:Paris", "?p", "?o", "}"]


def test_unsafe_local_names_detokenize_to_full_iris_that_parse():
    q = "SELECT ?u WHERE { <http://dbpedia.org/resource/Wilton,_Connecticut> <http://dbpedia.org/property/x> ?u }"
    tokens = tokenize(q)
    assert "dbr:Wilton,_Connecticut" in tokens
    text = detokenize(tokens)
    assert "<http://dbpedia.org/resource/Wilton,_Connecticut>" in text
    assert parse_error(text) is None
    assert equivalent(q, text, "dbpedia")


def test_escaped_local_names_are_unescaped_into_tokens():
    q = r"PREFIX dbr: <http://dbpedia.org/resource/> SELECT ?o WHERE { dbr:A\,B ?p ?o }"
    assert tokenize(q)[4] == "dbr:A,B"


def test_virtuoso_count_shorthand_detokenizes_to_standard_sparql():
    text = detokenize(tokenize(LCQ1))
    assert "( count ( ?uri ) as ?count )" in text
    assert parse_error(text) is None
    assert round_trip(LCQ1, "dbpedia").ok


def test_literals_are_single_tokens_with_normalised_quotes():
    q = "SELECT ?s WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l . FILTER(CONTAINS(lcase(?l), 'the roman')) . FILTER (lang(?l) = 'en') }"
    tokens = tokenize(q, "wikidata")
    assert '"the roman"' in tokens
    assert literal_value('"the roman"') == "the roman"
    kinds = dict(zip(tokens, token_types(tokens, "wikidata")))
    assert kinds['"the roman"'] is TokenType.LITERAL
    assert kinds['"en"'] is TokenType.KEYWORD  # a template constant, not something to copy
    assert kinds["rdfs:label"] is TokenType.KEYWORD
    assert kb_tokens(tokens, "wikidata") == ['"the roman"']
    assert round_trip(q, "wikidata").ok


def test_typed_and_tagged_literals_keep_their_suffix():
    q = 'SELECT ?x WHERE { ?x <http://dbpedia.org/ontology/birthDate> "1900-01-01"^^<http://www.w3.org/2001/XMLSchema#date> . ?x <http://www.w3.org/2000/01/rdf-schema#label> "Paris"@EN }'
    tokens = tokenize(q)
    assert '"1900-01-01"^^xsd:date' in tokens and '"Paris"@en' in tokens
    assert round_trip(q, "dbpedia").ok


def test_numbers_after_limit_are_vocabulary_and_others_literals():
    tokens = tokenize(
        "SELECT ?x WHERE { ?x <http://www.wikidata.org/prop/direct/P1082> ?p FILTER(?p > 22.4) } LIMIT 5",
        "wikidata",
    )
    types = token_types(tokens, "wikidata")
    assert types[tokens.index("22.4")] is TokenType.LITERAL
    assert types[tokens.index("5")] is TokenType.KEYWORD
    assert types[tokens.index(">")] is TokenType.FUNCTION
    assert types[tokens.index("?p")] is TokenType.VARIABLE


def test_paper_token_classes():
    tokens = ["select", "distinct", "?uri", "where", "{", "wd:Q1", "wdt:P31", "?uri", "}", "<unk>", "count"]
    assert [t.value for t in token_types(tokens, "wikidata")] == [
        "SVocab", "SVocab", "Var", "SVocab", "SVocab", "URIs", "URIs", "Var", "SVocab", "Unk", "Fct",
    ]  # fmt: skip


def test_undeclared_unknown_prefix_is_a_clear_error():
    with pytest.raises(SparqlSyntaxError, match="undeclared prefix 'zz:'"):
        tokenize("SELECT ?x WHERE { ?x zz:p ?y }")


def test_unlexable_query_names_the_position():
    with pytest.raises(SparqlSyntaxError, match="unexpected character"):
        tokenize('SELECT ?x WHERE { ?x ?p "unterminated }')


def test_canonicalize_is_idempotent():
    once = canonicalize(LCQ1)
    assert canonicalize(once) == once


def test_wikidata_round_trip_with_implicit_prefixes():
    q = "SELECT ?ans WHERE { wd:Q62408 wdt:P84 ?ans . ?ans p:P31 ?s . ?s ps:P31 wd:Q5 }"
    assert kb_tokens(tokenize(q, "wikidata"), "wikidata") == [
        "wd:Q62408",
        "wdt:P84",
        "p:P31",
        "ps:P31",
        "wd:Q5",
    ]
    assert round_trip(q, "wikidata").ok


def test_non_equivalent_queries_are_told_apart():
    assert not equivalent("SELECT ?x WHERE { ?x ?p <http://a/b> }", "SELECT ?x WHERE { ?x ?p <http://a/c> }")


def test_local_name_fallback_label():
    assert local_name("dbr:Ike_Clanton") == "Ike_Clanton"
    assert local_name("<http://example.org/onto#birthPlace>") == "birthPlace"


def test_optional_dot_before_closing_brace_is_dropped_but_separators_stay():
    tokens = tokenize("SELECT ?x WHERE { ?x ?p ?o . ?o ?q ?r . OPTIONAL { ?r ?s ?t . } }", "generic")
    assert tokens.count(".") == 2 and ". }" not in " ".join(tokens)
