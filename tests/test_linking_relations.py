"""Properties a question leaves unsaid: the KB's facts between two linked elements become candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.linking.index import MEASURED, TEXT, KBIndex
from nmt_sparql.annotation.linking.linker import Candidate, Linker
from nmt_sparql.annotation.linking.sources import entries_from_store, facts_from_store
from nmt_sparql.annotation.linking.wordforms import with_word_forms
from nmt_sparql.data.generate import bundled_kb_path, load_store
from nmt_sparql.sparql.prefixes import prefix_map, register_prefix_map

TURTLE = """@prefix ex: <http://ex.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
ex:University a owl:Class ; rdfs:label "university" .
ex:city rdfs:label "city" .
ex:country rdfs:label "country" .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:foundingYear rdfs:label "founding year" .
ex:students rdfs:label "number of students" .
ex:motto rdfs:label "motto" .
ex:Oxford a ex:University ; rdfs:label "Oxford University" ; ex:city ex:London ;
    ex:foundingYear "1096"^^xsd:gYear ; ex:students 26000 ; ex:motto "Dominus illuminatio mea" .
ex:Imperial a ex:University ; rdfs:label "Imperial College" ; ex:city ex:London ; ex:foundingYear 1907 .
ex:London rdfs:label "London" ; ex:country ex:England .
ex:England rdfs:label "England" .
ex:almaMater rdfs:label "alma mater" .
ex:nationality rdfs:label "nationality" .
ex:Princeton rdfs:label "Princeton" .
ex:Turing rdfs:label "Alan Turing" ; ex:almaMater ex:Princeton ; ex:nationality ex:England .
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory):
    prefixes = register_prefix_map("relations-test", {"ex": "http://ex.org/"})
    folder = tmp_path_factory.mktemp("relations")
    ttl = folder / "kb.ttl"
    ttl.write_text(TURTLE, encoding="utf-8")
    store = load_store(ttl)
    entries = list(with_word_forms(entries_from_store(store, prefixes)))
    facts = list(facts_from_store(store, prefixes))
    return entries, facts, folder


def test_facts_are_iri_triples_memberships_and_what_kind_of_literal_a_property_has(kb) -> None:
    _, facts, _ = kb
    assert ("ex:Oxford", "a", "ex:University") in facts
    assert ("ex:London", "ex:country", "ex:England") in facts
    assert ("ex:Oxford", "ex:foundingYear", MEASURED) in facts and (
        "ex:Oxford",
        "ex:students",
        MEASURED,
    ) in facts
    assert [o for _, p, o in facts if p == "ex:motto"] == [TEXT]  # a string is kept, not as a measure
    assert not any(p.startswith("rdfs") or "label" in p for _, p, _ in facts)


def test_unsaid_property_between_two_entities_and_a_class_and_an_entity(kb) -> None:
    entries, facts, folder = kb
    linker = Linker(KBIndex.build(folder / "with.sqlite", entries, facts=facts), relations=2)
    asked = {c.token: c for c in linker.link("Is London in England?")}
    assert asked["ex:country"].score < asked["ex:London"].score  # proposed, ranked below named elements
    assert not asked["ex:country"].said and asked["ex:London"].said and asked["ex:England"].said
    counted = {c.token for c in linker.link("How many universities are there in London?")}
    assert {"ex:University", "ex:London", "ex:city"} <= counted


def test_no_facts_or_relations_off_propose_nothing(kb, tmp_path: Path) -> None:
    entries, facts, _ = kb
    bare = Linker(KBIndex.build(tmp_path / "bare.sqlite", entries))
    assert "ex:country" not in {c.token for c in bare.link("Is London in England?")}
    off = Linker(KBIndex.build(tmp_path / "off.sqlite", entries, facts=facts), relations=0)
    assert "ex:country" not in {c.token for c in off.link("Is London in England?")}


def test_a_question_that_orders_or_measures_gets_the_measured_properties_it_leaves_unsaid(kb) -> None:
    """ "Oldest" names no property: the class's (or entity's) numbers and dates are proposed, most used first."""
    entries, facts, folder = kb
    linker = Linker(KBIndex.build(folder / "measured.sqlite", entries, facts=facts))
    oldest = [c for c in linker.link("What is the oldest university?") if c.kind == "property"]
    assert [c.token for c in oldest] == ["ex:foundingYear", "ex:students"]
    assert {(c.start, c.end) for c in oldest} == {(12, 18)}  # at "oldest"
    assert not any(c.said for c in oldest)  # no word names them
    how_big = {c.token for c in linker.link("How big is Oxford University?")}
    assert {"ex:foundingYear", "ex:students"} <= how_big
    plain = {c.token for c in linker.link("Which university is in London?")}
    assert not {"ex:foundingYear", "ex:students"} & plain


def test_a_question_that_asks_when_gets_the_entitys_properties_of_time(kb) -> None:
    """ "In what year did Oxford University open?" names no property: the entity's measured properties
    whose label says a time are proposed, at the time word; "founded" names one, so nothing is added."""
    entries, facts, folder = kb
    linker = Linker(KBIndex.build(folder / "timed.sqlite", entries, facts=facts))
    opened = [c for c in linker.link("In what year did Oxford University open?") if c.kind == "property"]
    assert [(c.token, c.start, c.end, c.said) for c in opened] == [("ex:foundingYear", 8, 12, False)]
    assert not [c for c in linker.link("Where is Oxford University?") if c.kind == "property" and not c.said]
    founded = [c for c in linker.link("When was Oxford University's founding year?") if c.kind == "property"]
    assert [c.token for c in founded] == ["ex:foundingYear"] and founded[0].said


def test_a_class_and_an_entity_no_fact_joins_get_the_properties_of_the_paths_that_do(
    kb, tmp_path: Path
) -> None:
    """ "Universities in England": no university is in England, but each is in a city that is."""
    entries, facts, _ = kb
    index = KBIndex.build(tmp_path / "paths.sqlite", entries, facts=facts)
    assert index.relations("ex:University", "ex:England") == []
    assert index.paths("ex:University", "ex:England") == ["ex:city", "ex:country"]
    assert index.paths("ex:University", "ex:Oxford") == ["ex:city"]  # Imperial, in Oxford's city
    found = {c.token: c for c in Linker(index).link("Which universities are in England?")}
    assert {"ex:city", "ex:country"} <= found.keys()
    assert found["ex:city"].score < found["ex:England"].score
    near = {c.token for c in Linker(index).link("Which universities are in London?")}
    assert "ex:country" not in near  # a fact joins them: no path is looked for


def test_two_entities_no_fact_joins_get_the_properties_that_link_one_thing_to_both(
    kb, tmp_path: Path
) -> None:
    """ "English alumni of Princeton": Turing studied at one and is of the other."""
    entries, facts, _ = kb
    index = KBIndex.build(tmp_path / "shared.sqlite", entries, facts=facts)
    assert index.relations("ex:Princeton", "ex:England") == []
    assert index.shared("ex:Princeton", "ex:England") == ["ex:almaMater", "ex:nationality"]
    assert index.shared("ex:England", "ex:Princeton") == ["ex:nationality", "ex:almaMater"]
    assert index.shared("ex:Oxford", "ex:England") == []
    found = {c.token for c in Linker(index).link("Who is an alumnus of Princeton from England?")}
    assert {"ex:Princeton", "ex:England", "ex:almaMater", "ex:nationality"} <= found


def test_an_entity_has_the_properties_of_its_facts_either_way_round_text_values_too(
    kb, tmp_path: Path
) -> None:
    entries, facts, _ = kb
    index = KBIndex.build(tmp_path / "props.sqlite", entries, facts=facts)
    assert set(index.properties("ex:Oxford")) == {"ex:city", "ex:foundingYear", "ex:students", "ex:motto"}
    assert index.properties("ex:London") == ["ex:city", "ex:country"]  # most used first: two universities
    assert index.classes("ex:Oxford") == {"ex:University"}
    assert "ex:motto" not in index.attributes("ex:Oxford")  # a text is no measure


class WordOverlap:
    """A stand-in sentence encoder: the share of a label's words the text holds, with synonyms."""

    SAME = {"saying": "motto", "started": "founding", "year": "year"}

    def similarity(self, text: str, others: list[str]) -> list[float]:
        words = {self.SAME.get(w, w) for w in text.lower().replace("?", "").split()}
        return [len(words & set(o.lower().split())) / len(o.split()) for o in others]


def test_a_property_the_question_describes_in_other_words_is_proposed(kb, tmp_path: Path) -> None:
    """No label is said ("saying" for motto): the entity's property most like the other words is a
    candidate, ranked below the named elements; none when a label already names one of its properties,
    none when the likeness is too low, none without an encoder."""
    entries, facts, _ = kb
    index = KBIndex.build(tmp_path / "described.sqlite", entries, facts=facts)
    linker = Linker(index, embedder=WordOverlap())
    found = {c.token: c for c in linker.link("What is the saying of Oxford University?")}
    assert "ex:motto" in found and found["ex:motto"].score < found["ex:Oxford"].score
    assert "ex:foundingYear" in {c.token for c in linker.link("What year was Oxford University started?")}
    said = {c.token for c in linker.link("Which city is Oxford University in?")}
    assert "ex:city" in said and not said & {"ex:motto", "ex:foundingYear", "ex:students"}
    assert not {"ex:motto", "ex:city"} & {c.token for c in linker.link("Tell me about Oxford University")}
    assert "ex:motto" not in {c.token for c in Linker(index).link("What is the saying of Oxford University?")}
    # two candidates of one span ("Oxford" is also a partial match of another entity) leave the words
    found = [
        Candidate("ex:Oxford", "entity", "Oxford", 0, 6, 0.4),
        Candidate("ex:Imperial", "entity", "x", 0, 6, 0.3),
    ]
    steps = linker._described_candidates(found, "Oxford saying")
    assert next(steps) == ["saying", *(index.label(t) for t in index.properties("ex:Oxford"))]
    with pytest.raises(StopIteration) as done:
        next(steps)
    assert [c.token for c in done.value.value] == ["ex:motto"]


class Synonyms(WordOverlap):
    SAME = {**WordOverlap.SAME, "capital": "london", "england": "london"}


def test_a_value_of_a_named_class_that_other_words_describe_is_proposed_with_its_relation(
    kb, tmp_path: Path
) -> None:
    """ "Universities in the capital": no label says London, a value of the universities' facts; the
    words describe it, so it is a candidate at those words, and the property that joins them follows.
    An entity the class's members are linked to is no such word ("London" says London already)."""
    entries, facts, _ = kb
    index = KBIndex.build(tmp_path / "values.sqlite", entries, facts=facts)
    assert index.values("ex:University") == ["ex:London"]
    linker = Linker(index, embedder=Synonyms())
    question = "Which universities are in the capital?"
    found = {c.token: c for c in linker.link(question)}
    assert question[found["ex:London"].start : found["ex:London"].end] == "capital"
    assert "ex:city" in found and found["ex:London"].score < found["ex:University"].score
    assert "ex:London" not in {c.token for c in Linker(index).link(question)}
    assert [c.token for c in linker.link("Which universities are in London?")].count("ex:London") == 1
    # a place named in full is asked for, not a value like it ("rivers in Europe" is no river in Germany)
    assert "ex:London" not in {c.token for c in linker.link("Which universities are in England?")}


@pytest.mark.parametrize(("setting", "value"), [("described", -1), ("described", "one"), ("embedder", 3)])
def test_a_bad_described_setting_is_refused_by_name(kb, tmp_path: Path, setting: str, value: object) -> None:
    entries, facts, _ = kb
    index = KBIndex.build(tmp_path / "bad.sqlite", entries, facts=facts)
    with pytest.raises(ValueError, match=f"linked.{setting}"):
        Linker(index, **{setting: value})


def test_an_entity_named_by_a_common_noun_gets_the_properties_that_take_it(tmp_path: Path) -> None:
    """ "list the physicists" names a value, not a class: the property whose value it is is proposed;
    a plural that also names a class ("writers") leaves the class's relations to say it."""
    prefixes = prefix_map("bundled")
    store = load_store(bundled_kb_path())
    entries = with_word_forms(entries_from_store(store, prefixes))
    linker = Linker(
        KBIndex.build(tmp_path / "bundled.sqlite", entries, facts=facts_from_store(store, prefixes))
    )
    assert {"res:Physicist", "ont:occupation"} <= {c.token for c in linker.link("list the physicists")}
    assert {"res:Opera", "ont:genre"} <= {c.token for c in linker.link("Operas that premiered after 1900")}
    assert "ont:occupation" not in {c.token for c in linker.link("Which writers were born in London?")}


class _BatchCounting(WordOverlap):
    """WordOverlap that also records the batches it is asked to encode ahead of use."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def cache(self, texts) -> None:
        self.batches.append(list(texts))


def test_questions_linked_together_are_linked_as_alone(kb, tmp_path: Path) -> None:
    """`link_many` gives each question what `link` gives it alone, and hands the encoder each step's
    texts of all the questions in one batch (one text at a time is ~10x slower on a CPU)."""
    entries, facts, _ = kb
    index = KBIndex.build(tmp_path / "many.sqlite", entries, facts=facts)
    questions = [
        "What is the saying of Oxford University?",
        "What year was Oxford University started?",
        "Which city is Oxford University in?",
        "Which universities are in England?",
        "Tell me about Oxford University",
    ]
    together = Linker(index, embedder=_BatchCounting())
    alone = Linker(index, embedder=_BatchCounting())
    assert together.link_many(questions) == [alone.link(q) for q in questions]
    assert 1 <= len(together.embedder.batches) <= 2  # each question's next step, side by side
    assert len(alone.embedder.batches) > len(together.embedder.batches)
    assert any({"What is the saying of ?", "motto"} <= set(batch) for batch in together.embedder.batches)
    assert together.link_many([]) == []


def test_similar_proposes_the_index_properties_and_classes_most_like_the_words(kb, tmp_path: Path) -> None:
    """For a KB without facts nothing ranks an entity's properties: `similar` ranks every property and
    class label of the index against the question's words (its entities' names left out), best first,
    at most `similar` labels of each kind, none already a candidate, after the question's words."""
    entries, _, _ = kb
    index = KBIndex.build(tmp_path / "similar.sqlite", entries)  # no facts
    question = "What is the saying of Oxford University?"
    assert "ex:motto" not in {c.token for c in Linker(index, embedder=WordOverlap()).link(question)}
    found = Linker(index, embedder=WordOverlap(), similar=1).link(question)
    similar = [c for c in found if c.score == min(c.score for c in found)]
    assert [c.token for c in similar] == ["ex:motto"]  # no class label shares a word: none proposed
    assert (similar[0].start, similar[0].end) == (len(question), len(question))
    with pytest.raises(ValueError, match="set linked.embedder too"):
        Linker(index, similar=1)  # no encoder: refused, not silently nothing
    started = Linker(index, embedder=WordOverlap(), similar=1).link(
        "What year was Oxford University started?"
    )
    assert [c.token for c in started if c.kind == "property"] == ["ex:foundingYear"]
    with pytest.raises(ValueError, match="linked.similar must be a whole number"):
        Linker(index, embedder=WordOverlap(), similar=-1)


def test_the_linked_input_says_which_candidates_the_question_names_and_which_are_implied(kb) -> None:
    """ "Is London in England?": London and England are named; `country` only joins them in the KB."""
    entries, facts, folder = kb
    index = KBIndex.build(folder / "implied.sqlite", entries, facts=facts)
    text = Annotator("linked", Linker(index, relations=2)).question("Is London in England?")
    assert "«ex:London» London (entity, exact)" in text and "«ex:England» England (entity, exact)" in text
    assert "«ex:country» country (property, implied)" in text
