"""What answers a "who" question, learned from training: slots, the classes filling them, and repair."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nmt_sparql.annotation.linking.build import build_index
from nmt_sparql.annotation.linking.index import KBIndex
from nmt_sparql.annotation.linking.sources import answer_slots
from nmt_sparql.core.record import Example
from nmt_sparql.execution.embedded import EmbeddedStore
from nmt_sparql.inference.expected_answer import expected_answer
from nmt_sparql.inference.repair import WRONG_KIND, Repairer
from nmt_sparql.sparql.prefixes import PrefixMap, register_prefix_map
from nmt_sparql.sparql.tokens import tokenize

PREFIXES = "PREFIX res: <http://who.test/resource/> PREFIX ont: <http://who.test/ontology/> "
TTL = """@prefix res: <http://who.test/resource/> .
@prefix ont: <http://who.test/ontology/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
res:Coelho a ont:Person ; rdfs:label "Paulo Coelho" .
res:Orwell a ont:Person ; rdfs:label "George Orwell" .
res:Beatles a ont:Band ; rdfs:label "The Beatles" .
res:Portuguese a ont:Language ; rdfs:label "Portuguese" .
res:English a ont:Language ; rdfs:label "English" .
res:Alchemist a ont:Novel ; rdfs:label "The Alchemist" ; ont:author res:Coelho ; ont:language res:Portuguese .
res:Animal_Farm a ont:Novel ; rdfs:label "Animal Farm" ; ont:author res:Orwell ; ont:language res:English .
res:Abbey_Road a ont:Album ; rdfs:label "Abbey Road" ; ont:artist res:Beatles .
res:Imagine a ont:Album ; rdfs:label "Imagine" ; ont:artist res:Orwell .
"""


@pytest.fixture(scope="module")
def prefixes() -> PrefixMap:
    return register_prefix_map(
        "whotest", {"res": "http://who.test/resource/", "ont": "http://who.test/ontology/"}
    )


def _example(i: int, question: str, query: str) -> Example:
    return Example(f"t{i}", question, PREFIXES + query, "whotest")


@pytest.fixture(scope="module")
def training(prefixes: PrefixMap) -> list[Example]:
    return [
        _example(1, "Who wrote Animal Farm?", "SELECT ?x WHERE { res:Animal_Farm ont:author ?x }"),
        _example(2, "who recorded Imagine", "SELECT ?x WHERE { res:Imagine ont:artist ?x }"),
        _example(
            3, "What language is Animal Farm in?", "SELECT ?x WHERE { res:Animal_Farm ont:language ?x }"
        ),
    ]


@pytest.fixture(scope="module")
def kb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kb") / "kb.ttl"
    path.write_text(TTL, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def index(
    tmp_path_factory: pytest.TempPathFactory, kb_file: Path, prefixes: PrefixMap, training
) -> Iterator[KBIndex]:
    out = tmp_path_factory.mktemp("index") / "index.sqlite"
    with build_index(out, prefixes, kb=f"embedded:{kb_file}", examples=training) as built:
        yield built


@pytest.fixture(scope="module")
def store(kb_file: Path, prefixes: PrefixMap) -> Iterator[EmbeddedStore]:
    with EmbeddedStore([kb_file], prefixes=prefixes, timeout_s=10) as kb:
        yield kb


def test_the_slots_of_who_questions_are_learned_from_training(training: list[Example]) -> None:
    assert answer_slots(training) == {("who", "ont:author", "object"): 1, ("who", "ont:artist", "object"): 1}


def test_the_classes_filling_those_slots_answer_who(index: KBIndex) -> None:
    # authors and artists are people and bands; no language fills either slot
    assert index.answer_classes("who") == {"ont:Person", "ont:Band"}
    assert index.answer_classes("where") == frozenset()  # nothing learned: no constraint
    assert index.classes("res:Portuguese") == {"ont:Language"}


def test_who_wrote_is_not_answered_by_a_language(
    index: KBIndex, store: EmbeddedStore, prefixes: PrefixMap
) -> None:
    language = tokenize(PREFIXES + "SELECT ?x WHERE { res:Alchemist ont:language ?x }", prefixes)
    author = tokenize(PREFIXES + "SELECT ?x WHERE { res:Alchemist ont:author ?x }", prefixes)
    repairer = Repairer(store, prefixes, index, max_rounds=1)

    assert expected_answer("Who wrote The Alchemist?").asks == "who"
    repaired = repairer.repair([language, author], question="Who wrote The Alchemist?")
    assert repaired.tokens == author
    assert repaired.rounds[0].attempts[0].outcome == WRONG_KIND
    # a band answers "who" (bands fill the artist slot), and a "what" question takes the language
    band = tokenize(PREFIXES + "SELECT ?x WHERE { res:Abbey_Road ont:artist ?x }", prefixes)
    assert repairer.repair([band, author], question="who recorded Abbey Road").tokens == band
    assert (
        repairer.repair([language, author], question="What did The Alchemist come out in?").tokens == language
    )


def test_a_wrong_kind_of_answer_goes_one_hop_further_by_a_property_the_question_says(
    index: KBIndex, store: EmbeddedStore, prefixes: PrefixMap
) -> None:
    """The model's query answers "who" with a novel; "author" is said and left out: the novel's author."""
    novel = tokenize(PREFIXES + "SELECT ?x WHERE { ?x ont:language res:Portuguese }", prefixes)
    repairer = Repairer(store, prefixes, index, max_rounds=1)
    repaired = repairer.repair(
        [novel], ["ont:author", "res:Portuguese"], question="Who is the author of the novels in Portuguese?"
    )
    assert repaired.tokens == tokenize(
        PREFIXES + "SELECT ?x WHERE { ?h ont:language res:Portuguese . ?h ont:author ?x }", prefixes
    )
    assert repaired.answer is not None and repaired.answer.rows == (("http://who.test/resource/Coelho",),)


def test_a_chain_answering_a_who_with_a_novel_is_taken_one_hop_back(
    index: KBIndex, store: EmbeddedStore, prefixes: PrefixMap
) -> None:
    """ "Who wrote Animal Farm?" decoded as the works of its author (`?x ont:author ?y . res:Animal_Farm
    ont:author ?y`): a novel answers no "who"; the variable between does."""
    works = tokenize(
        PREFIXES + "SELECT ?x WHERE { ?x ont:author ?y . res:Animal_Farm ont:author ?y }", prefixes
    )
    repaired = Repairer(store, prefixes, index, max_rounds=1).repair(
        [works], question="Who wrote Animal Farm?"
    )
    assert repaired.tokens == tokenize(
        PREFIXES + "SELECT ?x WHERE { res:Animal_Farm ont:author ?x }", prefixes
    )
    assert "one hop back, at ?y" in repaired.rounds[0].attempts[-1].source
