"""Raw questions get «token» units from KB labels: longest match first, case-insensitive, whole words."""

from __future__ import annotations

import pyoxigraph as ox

from nmt_sparql.annotation.annotate import split_question
from nmt_sparql.serving.annotate_raw import LabelIndex, annotate_question
from nmt_sparql.sparql.prefixes import prefix_map

LABELS = {
    "res:New_York": ["New York"],
    "res:New_York_City": ["New York City"],
    "res:York": ["York"],
    "ont:birthPlace": ["birth place"],
    "ont:Person": ["person"],
}


def test_longest_label_wins_and_case_is_ignored() -> None:
    index = LabelIndex(LABELS)
    text = annotate_question("Which PERSON has New York city as birth place?", "tag_within", index)
    assert text == "Which «ont:Person» has «res:New_York_City» as «ont:birthPlace» ?"
    assert (
        annotate_question("Is York in new york?", "tag_within", index) == "Is «res:York» in «res:New_York» ?"
    )
    # whole words only: "personal" is not "person"
    assert annotate_question("a personal story", "tag_within", index) == "a personal story"


def test_tag_end_appends_each_element_with_its_label_and_units_survive_splitting() -> None:
    text = annotate_question("Which person was born in York?", "tag_end", LabelIndex(LABELS), seed=3)
    question, *tail = text.split(" <sep> ")
    assert question == "Which person was born in York?"
    assert sorted(tail) == ["«ont:Person» person", "«res:York» York"]
    assert "«res:York»" in split_question(text)


def test_annotated_questions_and_raw_models_pass_through() -> None:
    index = LabelIndex(LABELS)
    given = "Who was born in «res:York» ?"
    assert annotate_question(given, "tag_within", index) == given
    assert annotate_question("Who was born in  York?", "raw", index) == "Who was born in York?"
    assert annotate_question("Who was born in York?", "tag_within", None) == "Who was born in York?"


def test_index_from_a_store_uses_english_labels_and_model_tokens() -> None:
    store = ox.Store()
    label = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    res = "http://nmt-sparql.org/resource/"
    for iri, text, lang in [
        (res + "Ada_Lovelace", "Ada Lovelace", "en"),
        (res + "Ada_Lovelace", "Ada Lovelace (fr)", "fr"),
        ("http://elsewhere.org/Thing", "odd thing", None),
    ]:
        store.add(
            ox.Quad(ox.NamedNode(iri), label, ox.Literal(text, language=lang) if lang else ox.Literal(text))
        )
    index = LabelIndex.from_store(store, prefix_map("bundled"))
    assert len(index) == 2
    assert (
        annotate_question("Where did ada lovelace see the odd thing?", "tag_within", index)
        == "Where did «res:Ada_Lovelace» see the «<http://elsewhere.org/Thing>» ?"
    )
