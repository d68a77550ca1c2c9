"""Template generation over an RDF store: answered, labelled, canonical, deterministic examples."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest

from nmt_sparql.core.record import Example
from nmt_sparql.data.generate import (
    BUNDLED_KB,
    TEMPLATE_IDS,
    GenerationError,
    bundled_kb_path,
    generate,
    load_store,
    split,
)
from nmt_sparql.sparql.prefixes import register_prefix_map
from nmt_sparql.sparql.tokens import canonicalize, kb_tokens, tokenize

ZOO = "http://example.org/zoo/"
ZOO_TTL = f"""
@prefix zoo: <{ZOO}> .
@prefix zv: <{ZOO}vocab/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
zv:Animal rdfs:label "animal"@en .
zv:Keeper rdfs:label "keeper"@en .
zv:keptBy rdfs:label "keeper"@en .
zoo:Leo a zv:Animal ; rdfs:label "Leo the lion"@en ; zv:keptBy zoo:Ann ; zv:weight "190"^^xsd:integer ;
    zv:enclosure zoo:Savanna .
zoo:Gina a zv:Animal ; rdfs:label "Gina the giraffe"@en ; zv:keptBy zoo:Ann ; zv:weight "800"^^xsd:integer ;
    zv:enclosure zoo:Savanna .
zoo:Pip a zv:Animal ; rdfs:label "Pip the penguin"@en ; zv:keptBy zoo:Bob ; zv:weight "4"^^xsd:integer ;
    zv:enclosure zoo:Ice_House .
zoo:Ann a zv:Keeper ; rdfs:label "Ann Smith"@en ; zv:born "1980-05-01"^^xsd:date ; zv:worksIn zoo:Savanna .
zoo:Bob a zv:Keeper ; zv:born "1975-01-20"^^xsd:date ; zv:worksIn zoo:Ice_House .
"""


@pytest.fixture(scope="module")
def store() -> ox.Store:
    return load_store(bundled_kb_path())


@pytest.fixture(scope="module")
def examples(store: ox.Store) -> list[Example]:
    return generate(store, BUNDLED_KB, n_per_template=12, seed=3)


def _answer(store: ox.Store, query: str) -> bool | list:
    result = store.query(query)
    return bool(result) if isinstance(result, ox.QueryBoolean) else list(result)


def test_every_template_is_instantiated(examples: list[Example]) -> None:
    counts = Counter(e.template_id for e in examples)
    assert set(counts) == set(TEMPLATE_IDS)
    assert all(n == 12 for n in counts.values())


def test_every_generated_query_has_a_non_empty_answer(store: ox.Store, examples: list[Example]) -> None:
    asks = []
    for e in examples:
        answer = _answer(store, e.query)
        if isinstance(answer, bool):
            asks.append(answer)
            continue
        assert answer, e.query
        if e.template_id.startswith("count"):
            assert int(answer[0]["count"].value) > 0, e.query
    assert len(asks) == 12 and 4 <= sum(asks) <= 8  # both true and false ASKs, balanced


def test_no_two_hop_question_answers_only_the_entity_it_names(store: ox.Store) -> None:
    """ "List the things whose spouse has Jay-Z as its spouse" answers Jay-Z: no question a person asks.
    Symmetric properties (spouse, capital/country of a city-state) make such chains; none is kept."""
    examples = generate(store, BUNDLED_KB, n_per_template=300, seed=42)
    for e in examples:
        if e.template_id in ("two_hop", "two_hop_subject"):
            named = {el.token for el in e.kb_elements if el.token.startswith("res:")}
            answers = {row["x"].value.rsplit("/", 1)[-1] for row in _answer(store, e.query)}
            assert answers - {n.split(":", 1)[1] for n in named}, e.question


def test_examples_are_canonical_labelled_and_marked(examples: list[Example]) -> None:
    for e in examples:
        assert e.kb == BUNDLED_KB and e.answers is None
        assert canonicalize(e.query, BUNDLED_KB) == e.query
        assert [k.token for k in e.kb_elements] == kb_tokens(tokenize(e.query, BUNDLED_KB), BUNDLED_KB)
        for element in e.kb_elements:
            assert element.label, (e.id, element)
            assert f"<{element.label}>" in e.marked_question, (e.marked_question, element)
            if element.kind == "literal":
                assert element.token.strip('"') == element.label
        assert e.question == " ".join(e.marked_question.replace("<", "").replace(">", "").split())
    tokens = {k.token for e in examples for k in e.kb_elements}
    assert any(t.startswith("res:") for t in tokens) and any(t.startswith("ont:") for t in tokens)


def test_queries_questions_and_ids_are_unique(examples: list[Example]) -> None:
    for attribute in ("id", "query", "question"):
        values = [getattr(e, attribute) for e in examples]
        assert len(values) == len(set(values)), attribute


def test_generation_is_deterministic_given_the_seed(store: ox.Store, examples: list[Example]) -> None:
    again = generate(load_store(bundled_kb_path()), BUNDLED_KB, n_per_template=12, seed=3)
    assert [e.to_dict() for e in again] == [e.to_dict() for e in examples]
    other = generate(store, BUNDLED_KB, n_per_template=12, seed=4)
    assert [e.query for e in other] != [e.query for e in examples]


def test_split_is_a_seeded_partition(examples: list[Example]) -> None:
    parts = split(examples, seed=7)
    assert [len(parts[s]) for s in ("train", "validation", "test")] == [116, 14, 14]
    assert sorted(e.id for p in parts.values() for e in p) == sorted(e.id for e in examples)
    assert all(e.split == name for name, part in parts.items() for e in part)
    assert [e.id for e in split(examples, seed=7)["test"]] == [e.id for e in parts["test"]]


def test_works_on_a_users_rdf_file_with_its_own_namespace(tmp_path: Path) -> None:
    path = tmp_path / "zoo.ttl"
    path.write_text(ZOO_TTL, encoding="utf-8")
    register_prefix_map("zoo", {"zoo": ZOO, "zv": ZOO + "vocab/"})
    store = load_store([path])
    examples = generate(store, "zoo", n_per_template=50, seed=0)
    counts = Counter(e.template_id for e in examples)
    for tid in ("one_hop_object", "one_hop_literal", "one_hop_subject", "type_subject", "two_hop", "ask",
                "filter_number", "filter_contains", "count_type", "superlative"):  # fmt: skip
        assert counts[tid] > 0, tid
    for e in examples:
        assert e.kb == "zoo" and _answer(store, e.query) not in ([], None)
        assert all(k.token.startswith(("zoo:", "zv:", '"')) or k.token[0].isdigit() for k in e.kb_elements)
    elements = {k.token: k.label for e in examples for k in e.kb_elements}
    assert elements.get("zoo:Leo") == "Leo the lion"
    assert elements.get("zv:enclosure") == "enclosure"  # no rdfs:label: the local name
    assert elements.get("zv:worksIn") == "works in"
    assert elements.get("zoo:Ice_House") == "Ice House"
    # "keeper" names both a class and a property, never an entity: still usable in questions.
    assert "zoo:Bob" in elements and elements["zoo:Bob"] == "Bob"


def test_bad_input_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="missing.ttl"):
        load_store(tmp_path / "missing.ttl")
    odd = tmp_path / "data.xyz"
    odd.write_text("", encoding="utf-8")
    with pytest.raises(GenerationError, match="data.xyz"):
        load_store(odd)
    broken = tmp_path / "broken.ttl"
    broken.write_text("<a> <b> .", encoding="utf-8")
    with pytest.raises(GenerationError, match="broken.ttl"):
        load_store(broken)
    with pytest.raises(GenerationError, match="no facts"):
        generate(ox.Store(), BUNDLED_KB)
    with pytest.raises(KeyError, match="unknown KB prefix map"):
        generate(load_store(bundled_kb_path()), "no-such-kb")
    with pytest.raises(GenerationError, match="unknown template"):
        generate(load_store(bundled_kb_path()), BUNDLED_KB, templates=["nope"])
