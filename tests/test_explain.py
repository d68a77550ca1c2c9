"""Explanations: every query form of the datasets read as English, IRIs named by their labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nmt_sparql.annotation.linking.index import Entry, KBIndex
from nmt_sparql.cli import main
from nmt_sparql.inference.explain import ExplainError, TermLabels, explain

DBO = "PREFIX dbo: <http://dbpedia.org/ontology/> PREFIX dbr: <http://dbpedia.org/resource/> "


@pytest.fixture(scope="module")
def wikidata_labels(tmp_path_factory: pytest.TempPathFactory) -> TermLabels:
    path = tmp_path_factory.mktemp("labels") / "labels.json"
    names = {"q76": "Barack Obama", "Q13133": "Michelle Obama", "P26": "spouse", "P580": "start time"}
    names |= {"P39": "position held", "Q11696": "President of the United States", "Q5": "human"}
    path.write_text(json.dumps(names | {"P31": "instance of", "P569": "date of birth"}), encoding="utf-8")
    return TermLabels("wikidata", label_files=[str(path)])


@pytest.mark.parametrize(
    "query, expected",
    [
        (
            DBO + "SELECT ?film ?date WHERE { ?film a dbo:Film ; dbo:director dbr:Ridley_Scott ; "
            "dbo:releaseDate ?date }",
            "Find every film whose director is Ridley Scott, and give its release date.",
        ),
        (
            DBO + "SELECT DISTINCT ?uri WHERE { dbr:Skype dbo:developer ?uri }",
            "Find the developer of Skype.",
        ),
        (
            DBO + "ASK WHERE { dbr:Ganymede dbo:discoverer dbr:Galileo_Galilei }",
            "Check whether the discoverer of Ganymede is Galileo Galilei.",
        ),
        (
            "SELECT DISTINCT COUNT(?uri) WHERE { ?uri <http://dbpedia.org/ontology/director> "
            "<http://dbpedia.org/resource/Stanley_Kubrick> . }",
            "Count the things whose director is Stanley Kubrick.",
        ),
        (
            DBO
            + "SELECT (COUNT(DISTINCT ?uri) AS ?c) WHERE { ?uri a dbo:Film ; dbo:starring dbr:Brad_Pitt }",
            "Count the distinct films whose starring is Brad Pitt.",
        ),
        (
            DBO + "SELECT DISTINCT ?uri WHERE { ?x dbo:author dbr:J._K._Rowling . ?x dbo:publisher ?uri . "
            "?uri a dbo:Company }",
            "Find every distinct company that is the publisher of a thing whose author is J. K. Rowling.",
        ),
        (
            DBO + "SELECT DISTINCT ?uri WHERE { ?uri a dbo:Mountain ; dbo:locatedInArea dbr:Italy ; "
            "dbo:elevation ?num } ORDER BY DESC(?num) OFFSET 1 LIMIT 1",
            "Find every distinct mountain whose located in area is Italy and that has an elevation, keeping "
            "the one with the largest elevation after skipping the first 1.",
        ),
        (
            DBO + "SELECT DISTINCT ?uri WHERE { ?uri a dbo:Library ; dbo:established ?year "
            "FILTER(?year < 1400) }",
            "Find every distinct library whose established is a year, where the year is less than 1400.",
        ),
        (
            DBO + "SELECT DISTINCT ?uri WHERE { ?uri a dbo:President ; dbo:birthDate ?date "
            "FILTER regex(?date, '^1945', 'i') }",
            "Find every distinct president that has a birth date, where the birth date matches the pattern "
            '"^1945" (ignoring case).',
        ),
        (
            DBO + "SELECT DISTINCT ?uri WHERE { ?uri a dbo:Astronaut "
            "{ ?uri dbo:nationality dbr:Russia } UNION { ?uri dbo:nationality dbr:Soviet_Union } }",
            "Find every distinct astronaut, where either (the nationality of the astronaut is Russia) or "
            "(the nationality of the astronaut is Soviet Union).",
        ),
        (
            DBO
            + "ASK WHERE { dbr:Danube dbo:length ?v . dbr:Rhine dbo:length ?_than . FILTER(?v > ?_than) }",
            "Check whether the length of Danube is greater than the length of Rhine.",
        ),
        (
            DBO + "SELECT DISTINCT ?uri WHERE { ?uri a dbo:Planet ; dbo:orderFromSun ?v . "
            "dbr:Mars dbo:orderFromSun ?o FILTER(?v > ?o) }",
            "Find every distinct planet that has an order from sun, where the order from sun is greater than the "
            "order from sun of Mars.",
        ),
        (
            DBO + "SELECT ?uri ?spouse WHERE { ?uri a dbo:Person . OPTIONAL { ?uri dbo:spouse ?spouse } }",
            "Find every person, and give its spouse (if any).",
        ),
        (
            DBO
            + "SELECT ?uri WHERE { ?uri a dbo:Person . OPTIONAL { ?uri dbo:spouse ?s FILTER(?s != ?uri) } }",
            "Find every person, where optionally the spouse of the person is the spouse (when the spouse is not "
            "the person).",
        ),
        (
            DBO + "SELECT ?uri WHERE { ?cave a dbo:Cave ; dbo:location ?uri . ?uri a dbo:Country } "
            "GROUP BY ?uri HAVING (COUNT(?cave) > 2)",
            "Find every country that is the location of a cave, grouped by the country, keeping the groups "
            "where the number of caves is greater than 2.",
        ),
        (
            DBO + "SELECT ?uri WHERE { ?uri a dbo:Country . ?uri dbo:language ?language } "
            "GROUP BY ?uri ORDER BY DESC(COUNT(?language)) LIMIT 3",
            "Find every country that has a language, grouped by the country, keeping the 3 with the largest "
            "number of languages.",
        ),
    ],
)
def test_each_dbpedia_form_reads_as_english(query: str, expected: str) -> None:
    assert explain(query, "dbpedia") == expected


@pytest.mark.parametrize(
    "query, expected",
    [
        (
            "SELECT ?value WHERE { wd:Q76 p:P39 ?s . ?s ps:P39 wd:Q11696 . ?s pq:P580 ?value }",
            "Find the start time of every position held statement of Barack Obama (Q76) whose value is "
            "President of the United States (Q11696).",
        ),
        (
            "SELECT DISTINCT ?sbj ?sbj_label WHERE { ?sbj wdt:P31 wd:Q5 . ?sbj rdfs:label ?sbj_label . "
            'FILTER(CONTAINS(LCASE(?sbj_label), "obama")) . FILTER (lang(?sbj_label) = "en") } LIMIT 25',
            'Find every distinct human, and give its label, where the label in lower case contains "obama" '
            "and the label is in English, at most 25 results.",
        ),
        (
            "ASK WHERE { wd:Q76 wdt:P26 ?obj FILTER(?obj = wd:Q13133) }",
            "Check whether the spouse of Barack Obama (Q76) is Michelle Obama (Q13133).",
        ),
        (
            "SELECT ?ent WHERE { ?ent wdt:P31 wd:Q5 . ?ent wdt:P569 ?obj } ORDER BY ASC(?obj) LIMIT 5",
            "Find every human that has a date of birth, keeping the 5 with the smallest date of birth.",
        ),
        (
            "SELECT (COUNT(?obj) AS ?value) { wd:Q76 wdt:P26 ?obj }",
            "Count the spouses of Barack Obama (Q76).",
        ),
        (
            "SELECT ?x WHERE { ?x wdt:P31/wdt:P279* wd:Q5 . MINUS { ?x wdt:P26 wd:Q13133 } }",
            "Find every human, where leaving out those where the spouse of the human is Michelle Obama (Q13133).",
        ),
    ],
)
def test_wikidata_statements_qualifiers_and_labels(
    wikidata_labels: TermLabels, query: str, expected: str
) -> None:
    assert explain(query, "wikidata", wikidata_labels) == expected


def test_rarer_forms_are_phrased_without_a_crash() -> None:
    text = explain(
        DBO + "SELECT ?r WHERE { ?a dbo:p ?x . ?a ?rel ?y . VALUES ?y { 1 2 } "
        "FILTER(NOT EXISTS { ?a dbo:q [ dbo:r dbr:Z ] }) BIND(YEAR(NOW()) - ?x AS ?r) "
        "{ SELECT ?a WHERE { ?a dbo:s ?t } ORDER BY ?t LIMIT 2 } }",
        "dbpedia",
    )
    assert text.startswith("Find the year of now minus the p")
    for words in ("is one of 1 or 2", "there is no case where", "the results of a sub-query", "relation"):
        assert words in text


def test_labels_come_from_the_kb_index_then_local_names(tmp_path: Path) -> None:
    index = KBIndex.build(
        tmp_path / "index.sqlite",
        [
            Entry("dbr:Ridley_Scott", "entity", ("Sir Ridley Scott",)),
            Entry("dbo:director", "property", ("film director",)),
        ],
        word_forms=False,
    )
    labels = TermLabels("dbpedia", index)
    text = explain(
        DBO + "SELECT ?f WHERE { ?f dbo:director dbr:Ridley_Scott ; dbo:riverMouth ?m }", "dbpedia", labels
    )
    index.close()
    assert text == "Find every thing whose film director is Sir Ridley Scott and that has a river mouth."


@pytest.mark.parametrize("query", ["", "   ", "SELECT ?x WHERE { ?x", "DROP ALL", "select * where { ?x ?y }"])
def test_a_query_that_does_not_parse_gets_a_clear_error(query: str) -> None:
    with pytest.raises(ExplainError, match="does not parse|empty query"):
        explain(query)


def test_explain_command_prints_the_explanation_and_refuses_bad_queries(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    main(["explain", "ASK { wd:Q76 wdt:P26 wd:Q13133 }", "kb=wikidata"])
    assert capsys.readouterr().out == "Check whether the P26 of Q76 is Q13133.\n"
    query = tmp_path / "query.rq"
    query.write_text(DBO + "SELECT ?x WHERE { ?x dbo:title 'it\\'s ${x}' }", encoding="utf-8")
    main(["explain", f"input={query}"])
    assert capsys.readouterr().out == 'Find every thing whose title is "it\'s ${x}".\n'
    main(["explain", "SELECT ?x WHERE { ?x dbo:title 'it\\'s ${x}' }"])
    assert capsys.readouterr().out == 'Find every thing whose title is "it\'s ${x}".\n'
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", "SELECT ?x WHERE { ?x"])
    assert exit_info.value.code == 2
    assert "does not parse" in capsys.readouterr().err


def test_any_mangled_query_gets_an_explanation_or_a_clear_error() -> None:
    """Untrusted input: every query with one token dropped is explained or refused with ExplainError."""
    queries = [
        DBO + "SELECT DISTINCT ?uri (COUNT(?x) AS ?n) WHERE { ?uri a dbo:Film ; dbo:director ?x . "
        "OPTIONAL { ?x dbo:spouse ?s } FILTER(?n > 2 && lang(?s) = 'en') } GROUP BY ?uri "
        "HAVING (COUNT(?x) > 1) ORDER BY DESC(?n) OFFSET 2 LIMIT 3",
        "SELECT ?v WHERE { wd:Q76 p:P39 ?s . ?s ps:P39 ?o . ?s pq:P580 ?v "
        "{ ?o wdt:P31 wd:Q5 } UNION { ?o wdt:P279+ ?c } MINUS { ?o wdt:P26 [] } }",
        DBO + "CONSTRUCT { ?a dbo:p ?b } WHERE { ?a dbo:q ?b }",
        DBO + "DESCRIBE dbr:Skype",
    ]
    for query in queries:
        words = query.split(" ")
        for i in range(len(words)):
            mangled = " ".join(words[:i] + words[i + 1 :])
            try:
                text = explain(mangled, "wikidata" if "wd:" in query else "dbpedia")
            except ExplainError as err:
                assert "does not parse" in str(err) or "nested too deeply" in str(err)
            else:
                assert text.endswith(".") and len(text) > 10, (mangled, text)
