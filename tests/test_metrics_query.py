"""Query-level metrics: BLEU over model tokens, normalised exact match, query equivalence, syntax validity."""

from __future__ import annotations

import pytest

from nmt_sparql.metrics import (
    canonical_variables,
    corpus_bleu,
    equivalent_query,
    exact_match,
    is_valid_sparql,
)
from nmt_sparql.metrics.query import tokens_parse
from nmt_sparql.sparql.tokens import tokenize


def toks(text: str) -> list[str]:
    """Model tokens written space-separated, as a model emits them."""
    return text.split()


Q = toks("select distinct ?uri where { dbr:Philip_Novak dbp:mainInterests ?uri }")


def test_bleu_of_identical_sequences_is_100() -> None:
    assert corpus_bleu([Q, Q[:3]], [Q, Q[:3]]) == pytest.approx(100.0)
    assert corpus_bleu([["ask", "{", "}"]], [["ask", "{", "}"]]) == pytest.approx(100.0)


def test_bleu_drops_with_a_wrong_token_and_is_token_level() -> None:
    wrong = [*Q[:4], "{", "dbr:Timothy_Morton", *Q[6:]]
    score = corpus_bleu([Q], [wrong])
    assert 0 < score < 100
    # tokenize='none': a token is one unit, so a changed character inside it is a whole-token miss.
    assert corpus_bleu([Q], [[*Q[:5], "dbr:Philip_Novakk", *Q[6:]]]) == pytest.approx(score)
    with pytest.raises(ValueError, match="2 references"):
        corpus_bleu([Q, Q], [Q])


def test_exact_match_ignores_consistent_variable_names_only() -> None:
    renamed = [t.replace("?uri", "?x") for t in Q]
    assert canonical_variables(Q)[2] == "?v0"
    assert exact_match(Q, renamed)
    swapped = toks("select ?a where { ?a dbo:p ?b }"), toks("select ?b where { ?a dbo:p ?b }")
    assert not exact_match(*swapped)
    assert not exact_match(Q, Q[:-1])


def test_exact_match_on_tokenized_text_ignores_formatting_and_prefix_spelling() -> None:
    a = tokenize(
        "SELECT DISTINCT ?uri WHERE { <http://dbpedia.org/resource/X> <http://dbpedia.org/ontology/p> ?uri }"
    )
    b = tokenize("PREFIX dbo: <http://dbpedia.org/ontology/> select distinct ?y where {dbr:X dbo:p ?y}")
    assert exact_match(a, b)


def test_equivalent_query_allows_any_order_of_triple_patterns_and_nothing_else() -> None:
    gold = toks(
        "select distinct ?uri where { ?x dbp:honours dbr:G . ?x dbo:colour ?uri . ?x a dbo:RaceHorse }"
    )
    reordered = toks(
        "select distinct ?y where { ?z a dbo:RaceHorse . ?z dbo:colour ?y . ?z dbp:honours dbr:G }"
    )
    assert not exact_match(gold, reordered) and equivalent_query(gold, reordered)
    assert equivalent_query(gold, gold)
    wrong_join = toks(
        "select distinct ?uri where { ?x dbp:honours dbr:G . ?uri dbo:colour ?x . ?x a dbo:RaceHorse }"
    )
    assert not equivalent_query(gold, wrong_join)
    swapped_roles = toks(
        "select distinct ?uri where { dbr:G dbp:honours ?x . ?x dbo:colour ?uri . ?x a dbo:RaceHorse }"
    )
    assert not equivalent_query(gold, swapped_roles)
    assert not equivalent_query(gold, gold[:-3] + ["}"])  # a triple fewer
    ask = toks("ask where { dbr:A dbo:p dbr:B . dbr:B dbo:q dbr:C }")
    assert equivalent_query(ask, toks("ask where { dbr:B dbo:q dbr:C . dbr:A dbo:p dbr:B }"))
    assert not equivalent_query(ask, toks("select where { dbr:B dbo:q dbr:C . dbr:A dbo:p dbr:B }"))
    ordered = toks("select ?x where { ?x dbo:p ?a . ?x dbo:q ?b } order by ?a")
    assert not equivalent_query(ordered, toks("select ?x where { ?x dbo:q ?b . ?x dbo:p ?a } order by ?b"))
    assert equivalent_query(ordered, toks("select ?x where { ?x dbo:q ?b . ?x dbo:p ?a } order by ?a"))
    # groups that are not a plain set of triples are never reordered
    optional = toks("select ?x where { ?x dbo:p ?a . optional { ?x dbo:q ?b } }")
    assert not equivalent_query(optional, toks("select ?x where { optional { ?x dbo:q ?b } . ?x dbo:p ?a }"))


def test_syntax_validity() -> None:
    assert is_valid_sparql("SELECT ?x WHERE { ?x ?p ?o }")
    assert not is_valid_sparql("SELECT ?x WHERE { ?x ?p ")
    assert tokens_parse(Q, "dbpedia")
    assert not tokens_parse(Q[:-1], "dbpedia")
    assert not tokens_parse(toks("select ?x where { ?x w:Pq31 ?y }"), "dbpedia")  # unknown prefix
