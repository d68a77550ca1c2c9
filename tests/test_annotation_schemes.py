"""The three question annotations of §III.A: raw, tag-within, tag-end."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest

from nmt_sparql.annotation.annotate import (
    SEP,
    annotate,
    mark,
    reshuffle_tail,
    split_question,
    tagging_coverage,
)
from nmt_sparql.annotation.labels import LabelResolver
from nmt_sparql.core.record import Example
from nmt_sparql.sparql.tokens import canonicalize

DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"
IKE_QUERY = f"SELECT DISTINCT ?uri WHERE {{ ?uri <{DBR}opponent> <{DBR}Ike_Clanton> . ?uri a <{DBR}Person> }}"
LCQ1 = (
    Path(os.environ.get("NMT_SPARQL_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    / "lcquad1"
    / "train-data.json"
)


def ike(question: str = "which person has opponent ike clanton ?", id_: str = "ike") -> Example:
    return Example(id=id_, question=question, query=IKE_QUERY, kb="dbpedia",
                   marked_question="who is the <person> whose <opponent> is <ike clanton> ?")  # fmt: skip


def tail(text: str) -> list[str]:
    return [part.strip() for part in text.split(SEP)[1:]]


def test_paper_tag_within_example() -> None:
    out = annotate(ike(), "tag_within", seed=0)
    assert out.text == "who is the «dbr:Person» whose «dbr:opponent» is «dbr:Ike_Clanton» ?"
    assert out.tagged == ["dbr:Person", "dbr:opponent", "dbr:Ike_Clanton"]
    assert out.untagged == [] and out.fully_tagged


def test_paper_tag_end_example() -> None:
    ex = ike("who is the person whose opponent is ike clanton ?")
    out = annotate(ex, "tag_end", seed=0)
    assert out.text.startswith("who is the person whose opponent is ike clanton ? <sep> ")
    assert sorted(tail(out.text)) == [
        "«dbr:Ike_Clanton» ike clanton",
        "«dbr:Person» person",
        "«dbr:opponent» opponent",
    ]
    assert out.fully_tagged and sorted(out.tagged) == sorted(
        ["dbr:Person", "dbr:opponent", "dbr:Ike_Clanton"]
    )


def test_reshuffle_tail_permutes_only_the_appended_units() -> None:
    text = annotate(ike("who is the person whose opponent is ike clanton ?"), "tag_end", seed=0).text
    orders = {reshuffle_tail(text, random.Random(k)) for k in range(20)}
    assert len(orders) == 6  # all 3! orders of the three units, the question untouched
    for other in orders:
        assert other.startswith("who is the person whose opponent is ike clanton ? <sep> «")
        assert sorted(tail(other)) == sorted(tail(text))
        assert split_question(other).count(SEP) == 3
    assert reshuffle_tail("who is ike clanton ?", random.Random(0)) == "who is ike clanton ?"


def test_raw_keeps_the_question_with_normalized_whitespace() -> None:
    out = annotate(ike("which  person has\topponent ike clanton ? "), "raw")
    assert out.text == "which person has opponent ike clanton ?"
    assert out.tagged == [] and not out.fully_tagged
    with pytest.raises(ValueError, match="unknown annotation scheme"):
        annotate(ike(), "tag_middle")  # type: ignore[arg-type]


def test_literals_with_spaces_are_tagged_and_stay_one_unit() -> None:
    query = 'SELECT DISTINCT ?sbj WHERE { ?sbj wdt:P31 wd:Q3918 . ?sbj rdfs:label ?l . FILTER(CONTAINS(LCASE(?l), "the roman")) }'
    ex = Example(id="1", question="Which is the university that contains the word The Roman in their name",
                 query=query, kb="wikidata")  # fmt: skip
    resolver = LabelResolver()
    resolver.labels.update({"Q3918": "university", "P31": "instance of"})
    out = annotate(ex, "tag_within", resolver=resolver)
    assert out.text == (
        'Which is the «wd:Q3918» that contains the word «"the roman"» in their name <sep> «wdt:P31» instance of'
    )
    assert out.untagged == ["wdt:P31"] and not out.fully_tagged
    tokens = split_question(out.text)
    assert '«"the roman"»' in tokens and "<sep>" in tokens and tokens.count("«wdt:P31»") == 1


def test_overlapping_candidates_longer_span_wins_and_loser_is_appended() -> None:
    query = f"ASK {{ <{DBR}The_Dark_Knight_Rises> <{DBO}sequelOf> <{DBR}The_Dark_Knight> }}"
    ex = Example(
        id="dk", question="is the dark knight rises the sequel of batman begins", query=query, kb="dbpedia"
    )
    out = annotate(ex, "tag_within", seed=3)
    assert out.text == (
        "is «dbr:The_Dark_Knight_Rises» the «dbo:sequelOf» batman begins <sep> «dbr:The_Dark_Knight» The Dark Knight"
    )
    assert out.untagged == ["dbr:The_Dark_Knight"] and not out.fully_tagged


def test_unmarked_entity_found_by_exact_then_fuzzy_label_search() -> None:
    ex = Example(id="1", question="What is the born in of Antonio Giannini ?", kb="dbpedia",
                 query=f"SELECT ?uri WHERE {{ <{DBR}Antonio_Giannini> <{DBO}birthPlace> ?uri }}",
                 marked_question="What is the <born in> of Antonio Giannini ?")  # fmt: skip
    assert annotate(ex, "tag_within").text == "What is the «dbo:birthPlace» of «dbr:Antonio_Giannini» ?"
    typo = Example(id="2", question="Was Marilyn_Manson genre Deathrock?", kb="dbpedia",
                   query=f"ASK {{ <{DBR}Marilyn_Manson> <{DBO}genre> <{DBR}Death_rock> }}")  # fmt: skip
    out = annotate(typo, "tag_within")
    assert out.text == "Was «dbr:Marilyn_Manson» «dbo:genre» «dbr:Death_rock» ?" and out.fully_tagged


def test_fuzzy_search_does_not_tag_unrelated_words() -> None:
    ex = Example(id="1", question="who is angelo parona", kb="dbpedia",
                 query=f"SELECT ?x WHERE {{ <{DBR}Angelo_Parona> <{DBO}abstract> ?x }}")  # fmt: skip
    out = annotate(ex, "tag_within")
    assert out.text == "who is «dbr:Angelo_Parona» <sep> «dbo:abstract» abstract"
    assert out.tagged == ["dbr:Angelo_Parona"] and out.untagged == ["dbo:abstract"] and not out.fully_tagged


def test_tag_end_is_deterministic_and_independent_of_processing_order() -> None:
    query = "SELECT ?x WHERE { ?x wdt:P1 wd:Q1 . ?x wdt:P2 wd:Q2 . ?x wdt:P3 wd:Q3 . ?x wdt:P4 wd:Q4 }"
    examples = [Example(id=f"e{i}", question=f"question {i}", query=query, kb="wikidata") for i in range(6)]
    forward = {ex.id: annotate(ex, "tag_end", seed=7).text for ex in examples}
    backward = {ex.id: annotate(ex, "tag_end", seed=7).text for ex in reversed(examples)}
    assert forward == backward
    assert len({t.split(SEP, 1)[1] for t in forward.values()}) > 1  # the order depends on the example id
    by_seed = {annotate(examples[0], "tag_end", seed=s).text for s in range(10)}
    assert len(by_seed) > 1  # and on the seed


def test_split_question_keeps_kb_units_and_sep() -> None:
    text = 'What «dbo:City» \'s «dbr:John_Forbes_(British_Army_officer)» has «"the  roman"@en»? <sep> «22.4» 22.4'
    assert split_question(text) == [
        "What", "«dbo:City»", "'", "s", "«dbr:John_Forbes_(British_Army_officer)»", "has",
        '«"the  roman"@en»', "?", "<sep>", "«22.4»", "22.4",
    ]  # fmt: skip
    assert split_question("how many movies, 3.5 hours?") == [
        "how",
        "many",
        "movies",
        ",",
        "3.5",
        "hours",
        "?",
    ]


def test_mark_escapes_tokens_that_would_break_the_unit() -> None:
    assert mark("dbr:X") == "«dbr:X»"
    unit = mark('"a » b"')
    assert split_question(f"x {unit} y")[1] == unit


def test_tagging_coverage_counts_fully_tagged_examples() -> None:
    good = ike()
    bad = Example(id="2", question="who is angelo parona", kb="dbpedia",
                  query=f"SELECT ?x WHERE {{ <{DBR}Angelo_Parona> <{DBO}abstract> ?x }}")  # fmt: skip
    assert tagging_coverage([good, bad], "tag_within") == 0.5
    assert tagging_coverage([good, bad], "tag_end") == 1.0
    assert tagging_coverage([], "tag_within") == 0.0


def test_lcquad1_marked_questions_are_almost_all_fully_tagged() -> None:
    if not LCQ1.exists():
        pytest.skip("LC-QuAD 1.0 copy not present (inline fixtures above cover the behaviour)")
    examples = [
        Example(id=str(r["_id"]), question=re.sub(r"[<>]", "", r["intermediary_question"]),
                query=canonicalize(r["sparql_query"], "dbpedia"), kb="dbpedia",
                marked_question=r["intermediary_question"])
        for r in json.loads(LCQ1.read_text(encoding="utf-8"))[:400]
    ]  # fmt: skip
    assert tagging_coverage(examples, "tag_within") >= 0.98
