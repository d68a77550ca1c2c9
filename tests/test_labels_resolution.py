"""Label resolution: marks, label files, KB lookup, local names, in that order of trust."""

from __future__ import annotations

import json

import pyoxigraph as ox
import pytest

from nmt_sparql.annotation.labels import (
    LabelResolver,
    assign,
    local_name_label,
    parse_marks,
    query_elements,
    read_label_file,
)
from nmt_sparql.core.record import Example, KBElement, RecordError

DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"
RDFS_LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")


def lcq1(marked: str, query: str, id_: str = "1") -> Example:
    return Example(id=id_, question=marked.replace("<", "").replace(">", ""), query=query, kb="dbpedia",
                   marked_question=marked)  # fmt: skip


def test_local_name_label_splits_camel_case_underscores_and_percent_escapes() -> None:
    assert local_name_label("dbo:riverMouth") == "river mouth"
    assert local_name_label("dbo:RaceHorse") == "Race Horse"
    assert local_name_label("dbr:Ike_Clanton") == "Ike Clanton"
    assert local_name_label("dbr:Caf%C3%A9_Society") == "Café Society"
    assert local_name_label("<http://example.org/x/longName>") == "long name"


def test_parse_marks_locates_spans_and_drops_stray_delimiters() -> None:
    marked = parse_marks("What is the <total number> of <Jacques  Van't  Hart>> ?")
    assert marked.plain == "What is the total number of Jacques Van't Hart ?"
    assert [m.text for m in marked.marks] == ["total number", "Jacques Van't Hart"]
    assert all(marked.plain[m.start : m.end] == m.text for m in marked.marks)
    nnqt = parse_marks("What is {child} of {Abraham Lincoln} ?")
    assert nnqt.plain == "What is child of Abraham Lincoln ?"
    assert [m.text for m in nnqt.marks] == ["child", "Abraham Lincoln"]


def test_assign_is_optimal_not_greedy() -> None:
    # Greedy would take (0, 0) = 90 and leave row 1 with nothing; the best total pairs crosswise.
    assert assign([[90, 80], [85, 0]], 50) == {0: 1, 1: 0}
    assert assign([[10, 20]], 50) == {}
    assert assign([[10, 20], [5, 0]], 0, most_pairs=True) == {0: 1, 1: 0}


def test_marks_align_one_to_one_by_similarity_not_by_order() -> None:
    ex = lcq1(
        "What is the <river> whose <river mouth> is <Dead Sea>?",
        f"SELECT DISTINCT ?uri WHERE {{ ?uri <{DBO}riverMouth> <{DBR}Dead_Sea> . ?uri a <{DBO}River> }}",
    )
    resolver = LabelResolver()
    labels = {e.token: e.label for e in resolver.resolve(ex)}
    assert labels == {"dbo:riverMouth": "river mouth", "dbr:Dead_Sea": "Dead Sea", "dbo:River": "river"}
    assert resolver.stats == {"marks": 3}


def test_subset_label_does_not_steal_the_entity_mark() -> None:
    ex = lcq1(
        "What is the <relation> of the <military people> whose <in conflict> is <Battle of France>?",
        f"SELECT ?uri WHERE {{ ?x <{DBO}battle> <{DBR}Battle_of_France> . ?x <{DBO}relation> ?uri . "
        f"?x a <{DBO}Person> }}",
    )
    _, resolved = LabelResolver().resolve_detailed(ex)
    by_token = {r.element.token: r.element.label for r in resolved}
    assert by_token["dbr:Battle_of_France"] == "Battle of France"
    assert by_token["dbo:battle"] == "in conflict"
    assert by_token["dbo:Person"] == "military people"


def test_leftover_marks_name_leftover_elements_but_unmarked_entities_are_searched() -> None:
    ex = lcq1(
        "What is the <born in> of Antonio Giannini ?",
        f"SELECT ?uri WHERE {{ <{DBR}Antonio_Giannini> <{DBO}birthPlace> ?uri }}",
    )
    _, resolved = LabelResolver().resolve_detailed(ex)
    by_token = {r.element.token: r for r in resolved}
    assert by_token["dbo:birthPlace"].element.label == "born in"
    assert by_token["dbr:Antonio_Giannini"].mark is None
    assert by_token["dbr:Antonio_Giannini"].source == "local_name"


def test_label_precedence_marks_record_file_local_name(tmp_path) -> None:
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"q1": "universe", "P31": "instance of", "q2": None}), encoding="utf-8")
    resolver = LabelResolver([labels])
    query = 'SELECT ?x WHERE { ?x wdt:P31 wd:Q1 . ?x wdt:P31 wd:Q2 . ?x wdt:P17 wd:Q3 . ?x wdt:P5 "v" }'
    ex = Example(
        id="7", question="q", query=query, kb="wikidata",
        kb_elements=[KBElement("wd:Q1", "uri"), KBElement("wdt:P31", "uri"), KBElement("wd:Q2", "uri"),
                     KBElement("wd:Q3", "uri"), KBElement("wdt:P17", "uri", "country (record)"),
                     KBElement('"v"', "literal")],
    )  # fmt: skip
    _, resolved = resolver.resolve_detailed(ex)
    got = {r.element.token: (r.element.label, r.source) for r in resolved}
    assert got == {
        "wd:Q1": ("universe", "label_file"),
        "wdt:P31": ("instance of", "label_file"),
        "wd:Q2": ("Q2", "local_name"),
        "wd:Q3": ("Q3", "local_name"),
        "wdt:P17": ("country (record)", "record"),
        '"v"': ("v", "literal"),
    }
    marked = Example(**{**ex.__dict__, "marked_question": "What is the <planet> ?"})
    marked.kb_elements = [KBElement("wd:Q2", "uri")]
    assert resolver.resolve(marked) == [KBElement("wd:Q2", "uri", "planet")]
    assert resolver.stats == {"marks": 1}


def test_property_ids_apply_to_every_wikidata_property_prefix(tmp_path) -> None:
    path = tmp_path / "rel.json"
    path.write_text(json.dumps({"P39": "position held"}), encoding="utf-8")
    resolver = LabelResolver([path])
    query = "SELECT ?v WHERE { wd:Q1 p:P39 ?s . ?s ps:P39 ?v . ?s pq:P39 ?q . ?v wdt:P39 ?w }"
    ex = Example(id="1", question="q", query=query, kb="wikidata")
    labels = {e.token: e.label for e in resolver.resolve(ex)}
    assert labels == {"wd:Q1": "Q1", "p:P39": "position held", "ps:P39": "position held",
                      "pq:P39": "position held", "wdt:P39": "position held"}  # fmt: skip


def test_bad_label_file_names_file_and_key(tmp_path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"q1": 3}), encoding="utf-8")
    with pytest.raises(RecordError, match=r"bad\.json: record q1: field 'label'"):
        read_label_file(path)
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(RecordError, match="expected a JSON object"):
        read_label_file(path)


def test_query_elements_come_from_the_query_when_the_record_has_none() -> None:
    ex = Example(id="1", question="q", kb="wikidata",
                 query='SELECT ?x WHERE { ?x wdt:P31 wd:Q5 . ?x rdfs:label ?l FILTER(CONTAINS(?l, "the roman")) }')  # fmt: skip
    assert query_elements(ex) == [
        KBElement("wdt:P31", "uri"), KBElement("wd:Q5", "uri"), KBElement('"the roman"', "literal")
    ]  # fmt: skip


def test_an_example_resolved_again_gives_the_same_labels_and_other_content_is_resolved_anew() -> None:
    """Preparation resolves a training example several times; what it gets back is kept per example
    content (marks, query, elements), and counted in `stats` each time it is asked for."""
    query = f"SELECT DISTINCT ?uri WHERE {{ ?uri <{DBO}riverMouth> <{DBR}Dead_Sea> . ?uri a <{DBO}River> }}"
    first = lcq1("What is the <river> whose <river mouth> is <Dead Sea>?", query)
    resolver = LabelResolver()
    once = resolver.resolve(first)
    again = resolver.resolve(lcq1("What is the <river> whose <river mouth> is <Dead Sea>?", query))
    assert once == again and resolver.stats == {"marks": 6}
    remarked = lcq1("What is the <stream> whose <mouth> is <Dead Sea>?", query)
    assert {e.token: e.label for e in resolver.resolve(remarked)}["dbo:riverMouth"] == "mouth"
    resolved = resolver.resolve_detailed(first)[1]
    resolved.clear()  # a caller's list is its own
    assert len(resolver.resolve_detailed(first)[1]) == 3
