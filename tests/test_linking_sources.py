"""Index entries from a Turtle file, label files, a lexicon, a training set and a live endpoint."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.linking.build import build_index
from nmt_sparql.annotation.linking.index import Entry, KBIndex
from nmt_sparql.annotation.linking.linker import Linker
from nmt_sparql.annotation.linking.sources import (
    element_kinds,
    entries_from_cooccurrence,
    entries_from_endpoint,
    entries_from_examples,
    entries_from_label_files,
    entries_from_lexicon,
    entries_from_store,
    frequent_elements,
)
from nmt_sparql.annotation.linking.wordforms import with_word_forms
from nmt_sparql.core.record import Example, RecordError
from nmt_sparql.data.generate import load_store
from nmt_sparql.execution import EndpointKB
from nmt_sparql.sparql.prefixes import prefix_map, register_prefix_map

TURTLE = """@prefix ex: <http://ex.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
ex:Film a owl:Class ; rdfs:label "film"@en .
ex:director rdfs:label "director"@en .
ex:Shining a ex:Film ; rdfs:label "The Shining"@en , "Shining"@de ; ex:director ex:Kubrick .
ex:Lolita a ex:Film ; rdfs:label "Lolita" ; ex:director ex:Kubrick .
ex:Kubrick rdfs:label "Stanley Kubrick"@en ; skos:altLabel "Kubrick"@en .
ex:Person a rdfs:Class .
"""


@pytest.fixture(scope="module")
def prefixes():
    return register_prefix_map("linking-test", {"ex": "http://ex.org/"})


def test_index_from_a_turtle_file(tmp_path: Path, prefixes) -> None:
    ttl = tmp_path / "kb.ttl"
    ttl.write_text(TURTLE, encoding="utf-8")
    entries = {e.token: e for e in entries_from_store(load_store(ttl), prefixes)}
    assert entries["ex:Film"].kind == "class" and entries["ex:Person"].kind == "class"
    assert entries["ex:director"].kind == "property" and entries["ex:director"].popularity == 2
    assert entries["ex:Kubrick"].labels == ("Stanley Kubrick", "Kubrick")
    assert entries["ex:Shining"].labels == ("The Shining",)  # English first; German dropped
    assert entries["ex:Kubrick"].popularity > entries["ex:Lolita"].popularity
    index = KBIndex.build(tmp_path / "out" / "index.sqlite", with_word_forms(entries.values()))
    found = {c.token for c in Linker(index).link("Which films were directed by Kubrick?")}
    assert {"ex:Film", "ex:director", "ex:Kubrick"} <= found


def test_label_files(tmp_path: Path) -> None:
    entity = tmp_path / "entity_labels.json"
    entity.write_text(json.dumps({"q42": "Douglas Adams", "q1": None}), encoding="utf-8")
    relation = tmp_path / "relation_labels.json"
    relation.write_text(json.dumps({"P50": "author"}), encoding="utf-8")
    predicates = tmp_path / "predicates.txt"
    predicates.write_text("http://dbpedia.org/ontology/birthPlace,\n\n?x',\n", encoding="utf-8")
    entities = tmp_path / "entities.txt"
    entities.write_text("http://dbpedia.org/resource/Ike_Clanton\n", encoding="utf-8")
    wikidata = list(entries_from_label_files([entity, relation], prefix_map("wikidata")))
    assert [(e.token, e.kind, e.labels) for e in wikidata] == [
        ("wd:Q42", "entity", ("Douglas Adams",)),
        ("wdt:P50", "property", ("author",)),
    ]
    dbpedia = list(entries_from_label_files([predicates, entities], prefix_map("dbpedia")))
    assert [(e.token, e.kind, e.labels) for e in dbpedia] == [
        ("dbo:birthPlace", "property", ("birth place",)),
        ("dbr:Ike_Clanton", "entity", ("Ike Clanton",)),
    ]
    with pytest.raises(FileNotFoundError, match="missing.json"):
        list(entries_from_label_files([tmp_path / "missing.json"], prefix_map("wikidata")))
    entities.write_text("not an iri\n", encoding="utf-8")
    with pytest.raises(RecordError, match="entities.txt: record <file>.*found none"):
        list(entries_from_label_files([entities], prefix_map("dbpedia")))


def test_lexicon_file(tmp_path: Path) -> None:
    lexicon = tmp_path / "lexicon.json"
    lexicon.write_text(json.dumps({"ex:spouse": ["married to", "wife"]}), encoding="utf-8")
    [entry] = entries_from_lexicon(lexicon, {"ex:spouse": "property"})
    assert (entry.kind, entry.labels) == ("property", ("married to", "wife"))
    with pytest.raises(RecordError, match="lexicon.json: record ex:spouse"):
        list(entries_from_lexicon(lexicon, {}))
    lexicon.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(RecordError, match="lexicon.json"):
        list(entries_from_lexicon(lexicon, {}))


def test_learned_lexicon_from_marked_training_questions() -> None:
    example = Example(
        id="1",
        question="How many movies did Stanley Kubrick direct?",
        query="SELECT (COUNT(?x) AS ?n) WHERE { ?x a dbo:Film . ?x dbo:director dbr:Stanley_Kubrick }",
        kb="dbpedia",
        marked_question="How many <movies> did <Stanley Kubrick> <direct>?",
    )
    assert element_kinds(example) == {
        "dbo:Film": "class",
        "dbo:director": "property",
        "dbr:Stanley_Kubrick": "entity",
    }
    entries = {e.token: e for e in entries_from_examples([example])}
    assert "movies" in entries["dbo:Film"].labels
    assert "direct" in entries["dbo:director"].labels
    assert entries["dbr:Stanley_Kubrick"].kind == "entity" and entries["dbo:Film"].popularity == 1


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def endpoint(tmp_path: Path) -> Iterator[str]:
    exe = shutil.which("oxigraph") or shutil.which("oxigraph", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.fail("the `oxigraph` CLI is missing: install the test extra (pip install -e '.[test]')")
    (tmp_path / "kb.ttl").write_text(TURTLE, encoding="utf-8")
    store = tmp_path / "store"
    subprocess.run(
        [exe, "load", "--location", str(store), "--file", str(tmp_path / "kb.ttl")],
        check=True,
        capture_output=True,
        timeout=60,
    )
    port = _free_port()
    server = subprocess.Popen(
        [exe, "serve", "--location", str(store), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/query"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url + "?query=ASK%7B%7D", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("oxigraph serve did not start")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_index_from_a_live_endpoint(endpoint: str, tmp_path: Path, prefixes) -> None:
    kb = EndpointKB(endpoint, timeout_s=10, prefixes=prefixes)
    entries = {e.token: e for e in entries_from_endpoint(kb, prefixes, page=2)}  # several pages
    assert entries["ex:Film"].kind == "class" and entries["ex:director"].kind == "property"
    assert set(entries["ex:Kubrick"].labels) == {"Stanley Kubrick", "Kubrick"}
    index = KBIndex.build(tmp_path / "index.sqlite", entries.values())
    assert index.lookup("kubrik")[0].token == "ex:Kubrick"


def test_cooccurring_words_become_forms_of_properties() -> None:
    query = "SELECT ?x WHERE { dbr:%s dbo:spouse ?x }"
    examples = [
        Example(str(i), f"Who is {name} married to?", query % name.replace(" ", "_"), "dbpedia")
        for i, name in enumerate(["Ada Lovelace", "Marie Curie", "Pierre Curie", "Kurt Weill"])
    ]
    examples.append(Example("9", "Who married Anne?", "SELECT ?x WHERE { dbr:Anne dbo:child ?x }", "dbpedia"))
    [entry] = entries_from_cooccurrence(examples, stopwords={"who", "is", "to"}, min_count=3, min_share=0.5)
    assert entry.token == "dbo:spouse" and entry.forms == ("married",)  # 4 of the 5 "married" questions
    assert list(entries_from_cooccurrence(examples, stopwords={"who", "is", "to"}, min_count=5)) == []


def test_an_index_built_from_training_examples_proposes_their_frequent_elements(tmp_path: Path) -> None:
    """The index stores what most training queries use (Wikidata's instance of), so every linker that
    opens it, at training and at inference, proposes it for questions that never say it."""
    query = "SELECT ?x WHERE { ?x wdt:P31 wd:Q%d . ?x wdt:P%d wd:Q1 }"
    examples = [Example(str(i), "Who is it?", query % (10 + i, 100 + i), "wikidata") for i in range(10)]
    pm = prefix_map("wikidata")
    index = build_index(tmp_path / "i.sqlite", pm, examples=examples, word_forms=False)
    assert index.implicit == ("wdt:P31",)
    assert "wdt:P31" in [c.token for c in Linker(index).link("Which humans are there?")]
    assert Linker(index, implicit=[]).link("Which humans are there?") == []
    index.close()
    annotator = Annotator.open("linked", tmp_path / "i.sqlite", {"add_missed_gold": 0.0})
    try:
        unit = "«wdt:P31» P31 (property, implied)"  # no label file: the local name
        assert annotator.question("Which humans are there?").endswith(f"<sep> {unit}")
        assert unit in annotator.example(examples[0], train=True).text
        assert "wdt:P31" not in Annotator("tag_within", annotator.linker).question("Who is it?")  # no words
    finally:
        annotator.close()


def test_frequent_elements_are_proposed_for_every_question(tmp_path: Path) -> None:
    query = "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 . ?x wdt:P%d wd:Q1 }"
    examples = [Example(str(i), "q", query % (100 + i), "wikidata") for i in range(5)]
    assert frequent_elements(examples, min_share=0.5) == ["wdt:P31"]
    index = KBIndex.build(tmp_path / "i.sqlite", [Entry("wdt:P31", "property", ("instance of",))])
    [candidate] = Linker(index, implicit=["wdt:P31", "wdt:P999"]).link("Who is it?")  # unknown tokens dropped
    assert (candidate.token, candidate.kind, candidate.label, candidate.start) == (
        "wdt:P31",
        "property",
        "instance of",
        0,
    )


def test_side_by_side_marks_teach_their_own_words_not_a_split_guess() -> None:
    # Tag-within writes «class» «property» with no text between them: the marks say where each ends.
    example = Example(
        id="1",
        question="Which painter was born in Paris?",
        query="SELECT ?x WHERE { ?x a dbo:Painter . ?x dbo:birthPlace dbr:Paris }",
        kb="dbpedia",
        marked_question="Which <painter> <was born in> <Paris>?",
    )
    entries = {e.token: e for e in entries_from_examples([example])}
    assert "was born in" in entries["dbo:birthPlace"].labels
    assert not any(len(label) < 3 for e in entries.values() for label in e.labels)
