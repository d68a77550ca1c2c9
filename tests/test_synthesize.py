"""Query-graph synthesis over a small KB of the test's own: answered, canonical, balanced, deterministic."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest

from nmt_sparql.cli import main
from nmt_sparql.data.generate import load_store
from nmt_sparql.data.readers import read_dataset
from nmt_sparql.data.synthesize import FAMILIES, FAMILY_WEIGHTS, MAX_ANSWERS, family_quotas, synthesize
from nmt_sparql.sparql.tokens import canonicalize

TOWN_TTL = """
@prefix t: <http://example.org/town/> .
@prefix v: <http://example.org/vocab/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
v:Person rdfs:label "person"@en .
v:Writer rdfs:label "writer"@en ; rdfs:subClassOf v:Person .
v:City rdfs:label "city"@en .
v:Book rdfs:label "book"@en .
v:author rdfs:label "author"@en .
v:birthPlace rdfs:label "birth place"@en .
v:locatedIn rdfs:label "located in"@en .
v:height rdfs:label "height"@en .
v:publicationYear rdfs:label "publication year"@en .
v:birthDate rdfs:label "birth date"@en .
v:code rdfs:label "code"@en .
t:Ann a v:Writer ; rdfs:label "Ann Lee"@en ; v:birthPlace t:Rome ; v:height "170"^^xsd:integer ;
    v:birthDate "1950-03-01"^^xsd:date .
t:Bob a v:Writer ; rdfs:label "Bob Day"@en ; v:birthPlace t:Oslo ; v:height "182"^^xsd:integer ;
    v:birthDate "1962-07-09"^^xsd:date .
t:Cy a v:Person ; rdfs:label "Cy Moss"@en ; v:birthPlace t:Rome ; v:height "165"^^xsd:integer ;
    v:birthDate "1975-11-20"^^xsd:date .
t:Dee a v:Writer ; rdfs:label "Dee Hart"@en ; v:birthPlace t:Lima ; v:height "158"^^xsd:integer ;
    v:birthDate "1981-01-15"^^xsd:date .
t:Rome a v:City ; rdfs:label "Rome"@en ; v:locatedIn t:Italy ; v:code "RM" .
t:Oslo a v:City ; rdfs:label "Oslo"@en ; v:locatedIn t:Norway ; v:code "OS" .
t:Lima a v:City ; rdfs:label "Lima"@en ; v:locatedIn t:Peru ; v:code "LI" .
t:Italy rdfs:label "Italy"@en .
t:Norway rdfs:label "Norway"@en .
t:Peru rdfs:label "Peru"@en .
t:Sea_Book a v:Book ; rdfs:label "The Sea Book"@en ; v:author t:Ann ; v:publicationYear "1990"^^xsd:integer .
t:Sky_Book a v:Book ; rdfs:label "The Sky Book"@en ; v:author t:Ann ; v:publicationYear "2001"^^xsd:integer .
t:Moon_Book a v:Book ; rdfs:label "Moon Tales"@en ; v:author t:Bob ; v:publicationYear "1985"^^xsd:integer .
t:Star_Book a v:Book ; rdfs:label "Star Tales"@en ; v:author t:Dee ; v:publicationYear "2010"^^xsd:integer .
"""


@pytest.fixture(scope="module")
def kb_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("kb") / "town.ttl"
    path.write_text(TOWN_TTL, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def store(kb_file: Path) -> ox.Store:
    return load_store(kb_file)


@pytest.fixture(scope="module")
def synthesis(store: ox.Store):
    return synthesize(store, "generic", n=110, seed=5)


def test_every_query_executes_with_a_non_empty_bounded_answer(store: ox.Store, synthesis) -> None:
    assert synthesis.examples
    for example in synthesis.examples:
        result = store.query(example.query)
        if isinstance(result, ox.QueryBoolean):
            continue
        rows = list(result)
        assert rows, example.query
        if example.template_id.startswith("count"):
            assert 0 < int(rows[0]["count"].value) <= MAX_ANSWERS
        else:
            assert len(rows) <= MAX_ANSWERS


def test_queries_are_canonical_and_marked_questions_name_their_entities(synthesis) -> None:
    for example in synthesis.examples:
        assert canonicalize(example.query, "generic") == example.query
        assert example.question == " ".join(example.marked_question.replace("<", "").replace(">", "").split())
    assert any(
        "<Ann Lee>" in e.marked_question or "<ann lee>" in e.marked_question for e in synthesis.examples
    )


def test_forms_shapes_and_both_ask_truths_are_covered(store: ox.Store, synthesis) -> None:
    forms = Counter(e.template_id.split("-")[0] for e in synthesis.examples)
    assert {"select", "ask", "count", "filter", "superlative", "contains"} <= set(forms)
    truths = {bool(store.query(e.query)) for e in synthesis.examples if e.template_id.startswith("ask")}
    assert truths == {True, False}
    report = synthesis.report
    assert report["examples"] == len(synthesis.examples)
    assert set(report["family"]) <= set(FAMILIES) and max(report["hops"], key=int) >= "2"
    assert any("YEAR" in e.query.upper() for e in synthesis.examples)  # a date comparison


def test_ask_also_asks_whether_an_entity_is_of_a_class_true_and_false(store: ox.Store) -> None:
    """ "Is Rome a city?": ASK { E a C }, true for a member, false for a near miss, worded with the class."""
    examples = synthesize(store, "generic", n=300, seed=7).examples
    typed = [e for e in examples if re.fullmatch(r".*ask where \{ \S+ a \S+ \}", e.query, re.I)]
    assert {bool(store.query(e.query)) for e in typed} == {True, False}
    for e in typed:
        cls = next(k for k in e.kb_elements if "vocab" in k.token)
        assert cls.label and cls.label.lower() in e.question.lower()


def test_no_class_constraint_keeps_the_whole_class(store: ox.Store, synthesis) -> None:
    for example in synthesis.examples:
        if example.template_id.startswith("select") and " a <" in example.query:
            cls = example.query.split(" a <", 1)[1].split(">", 1)[0]
            members = {r["x"] for r in store.query(f"SELECT ?x WHERE {{ ?x a <{cls}> }}")}
            assert {r["x"] for r in store.query(example.query)} != members, example.query


def test_same_seed_same_examples_other_seed_others(store: ox.Store, synthesis) -> None:
    again = synthesize(store, "generic", n=110, seed=5)
    assert [e.to_dict() for e in again.examples] == [e.to_dict() for e in synthesis.examples]
    other = synthesize(store, "generic", n=110, seed=6)
    assert [e.question for e in other.examples] != [e.question for e in synthesis.examples]


def test_data_generate_writes_jsonl_the_jsonl_reader_reads(
    kb_file: Path, tmp_path: Path, store: ox.Store
) -> None:
    out = tmp_path / "out"
    main(["data", "generate", f"kb={kb_file}", f"out={out}", "n=40", "seed=1"])
    read = read_dataset("jsonl", out / "synthetic.jsonl")
    assert len(read) > 10
    for example in read:
        result = store.query(example.query)
        assert isinstance(result, ox.QueryBoolean) or list(result)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["examples"] == len(read) and report["form"]


def test_bundled_dataset_chooses_synthesis_or_templates() -> None:
    synthesized = read_dataset("bundled", ".", generator="synthesis", n=40)
    templated = read_dataset("bundled", ".", generator="templates", n_per_template=2)
    assert len(synthesized) == 40 and "-" in synthesized[0].template_id
    assert {e.template_id for e in templated} <= {
        "one_hop_object", "one_hop_literal", "one_hop_subject", "type_subject", "two_hop", "two_hop_subject",
        "count_type", "count_object", "ask", "filter_number", "filter_contains", "superlative",
    }  # fmt: skip
    with pytest.raises(ValueError, match="generator 'nope'"):
        read_dataset("bundled", ".", generator="nope")


def test_data_generate_uses_a_lexicon_with_the_kb_files_own_prefixes(kb_file: Path, tmp_path: Path) -> None:
    lexicon = tmp_path / "lex.yaml"
    lexicon.write_text("v:author:\n  active: ['{o} penned {s}']\n  passive: ['{s} was penned by {o}']\n")
    out = tmp_path / "out"
    main(["data", "generate", f"kb={kb_file}", f"out={out}", "n=60", "seed=2", f"lexicon={lexicon}"])
    questions = [e.question.lower() for e in read_dataset("jsonl", out / "synthetic.jsonl")]
    assert any("penned" in q or "pen " in q for q in questions)


def test_augment_adds_synthesized_pairs_to_the_training_split_only(kb_file: Path) -> None:
    from omegaconf import OmegaConf

    from nmt_sparql.core.record import Example
    from nmt_sparql.preparation.prepare import augment_training_split

    own = Example(id="q1", question="Who wrote The Sea Book?", query="ASK { ?s ?p ?o }", kb="generic")
    splits = {"train": [own], "validation": [own], "test": [own]}
    cfg = OmegaConf.create(
        {"seed": 1, "dataset": {"kb": "generic"}, "data": {"augment": str(kb_file), "augment_n": 20}}
    )
    augment_training_split(splits, cfg)
    assert len(splits["validation"]) == len(splits["test"]) == 1
    added = splits["train"][1:]
    assert 10 <= len(added) <= 20 and all(e.split == "train" and e.id.startswith("augment-") for e in added)


def test_element_labels_are_the_marked_words_of_the_question(synthesis) -> None:
    """Tag-within annotation aligns each mark to the element whose label it is: verbs included."""
    marked_labels = 0
    for example in synthesis.examples:
        marks = {m.lower() for m in re.findall(r"<([^<>]*)>", example.marked_question)}
        for element in example.kb_elements:
            if element.kind == "uri" and element.label and element.label.lower() in marks:
                marked_labels += 1
    assert marked_labels >= len(synthesis.examples)  # at least one per example on average
    assert any(
        e.label
        and e.label.lower() not in ("author", "birth place", "located in", "height", "code")
        and e.token.endswith(("author>", "birthPlace>", "locatedIn>"))
        for ex in synthesis.examples
        for e in ex.kb_elements
    )  # a property named by other words than its label ("was born in", "wrote"...) keeps those words


def test_data_generate_names_a_missing_kb_or_a_bad_lexicon(kb_file: Path, tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="RDF file not found"):
        main(["data", "generate", f"kb={tmp_path / 'none.ttl'}", f"out={tmp_path}"])
    lexicon = tmp_path / "lex.json"
    lexicon.write_text('{"v:author": {"active": ["{o} wrote it"]}}')
    with pytest.raises(SystemExit, match=r"lex.json: key 'v:author.active'"):
        main(["data", "generate", f"kb={kb_file}", f"out={tmp_path}", f"lexicon={lexicon}"])


def test_family_quotas_follow_the_weights_and_sum_to_n() -> None:
    quotas = family_quotas(1001, FAMILIES)
    assert sum(quotas.values()) == 1001 and set(quotas) == set(FAMILIES)
    heavy, light = max(FAMILIES, key=FAMILY_WEIGHTS.get), min(FAMILIES, key=FAMILY_WEIGHTS.get)
    assert quotas[heavy] > quotas[light]
    assert family_quotas(3, ("chain1", "ask")) == {"chain1": 2, "ask": 1}
