"""Update refusal: no SPARQL Update text ever reaches a store; every query form passes."""

from __future__ import annotations

import pytest

from nmt_sparql.execution import EmbeddedStore, UnsafeQueryError, execute_many, query_form

PROLOGUE = "PREFIX ex: <http://ex.org/>\nBASE <http://ex.org/base#>\n# a comment\n"

UPDATES = [
    "INSERT DATA { <http://ex.org/a> <http://ex.org/p> <http://ex.org/b> }",
    "insert { ?s <http://ex.org/q> ?o } WHERE { ?s ?p ?o }",
    "DELETE DATA { <http://ex.org/a> <http://ex.org/p> <http://ex.org/b> }",
    "delete where { ?s ?p ?o }",
    "Delete { ?s ?p ?o } Insert { ?s ?p 1 } where { ?s ?p ?o }",
    "LOAD <http://ex.org/data.ttl>",
    "load silent <http://ex.org/data.ttl> into graph <http://ex.org/g>",
    "CLEAR ALL",
    "clear graph <http://ex.org/g>",
    "DROP ALL",
    "drop silent default",
    "CREATE GRAPH <http://ex.org/g>",
    "ADD DEFAULT TO <http://ex.org/g>",
    "MOVE <http://ex.org/g> TO DEFAULT",
    "COPY DEFAULT TO <http://ex.org/g>",
    "WITH <http://ex.org/g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
]

QUERIES = {
    "SELECT": "SELECT ?s WHERE { ?s ?p ?o }",
    "ASK": "ask { ?s ex:p ?o }",
    "CONSTRUCT": "Construct { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "DESCRIBE": "DESCRIBE <http://ex.org/a>",
}


@pytest.mark.parametrize("prologue", ["", PROLOGUE, "prefix ex:<http://ex.org/> "])
@pytest.mark.parametrize("update", UPDATES)
def test_every_update_form_is_refused(update: str, prologue: str) -> None:
    with pytest.raises(UnsafeQueryError, match="refused"):
        query_form(prologue + update)


@pytest.mark.parametrize("prologue", ["", PROLOGUE])
@pytest.mark.parametrize("form", sorted(QUERIES))
def test_query_forms_pass(form: str, prologue: str) -> None:
    assert query_form(prologue + QUERIES[form]) == form


@pytest.mark.parametrize(
    "text",
    [
        "SELECT * WHERE { ?s ?p ?o } ; DROP ALL",
        "ASK { ?s ?p ?o }\nINSERT DATA { <http://a> <http://b> <http://c> }",
        "PREFIX ex: <http://ex.org/> CLEAR DEFAULT",
        "   ",
        "foo bar",
    ],
)
def test_smuggled_or_non_query_text_is_refused(text: str) -> None:
    with pytest.raises(UnsafeQueryError):
        query_form(text)


def test_update_words_inside_names_strings_and_iris_are_not_updates() -> None:
    text = (
        "PREFIX drop: <http://ex.org/drop#> SELECT ?delete ?insert WHERE { ?delete drop:copy ?insert . "
        '?insert <http://ex.org/clear> "DROP ALL" . FILTER(?delete != "load"@en) } # DELETE'
    )
    assert query_form(text) == "SELECT"


def test_virtuoso_style_query_rdflib_rejects_still_passes() -> None:
    # Not SPARQL 1.1 (LC-QuAD 1.0 gold), but a query form: the endpoint, not the guard, judges it.
    assert (
        query_form("SELECT DISTINCT COUNT(?uri) WHERE { ?uri <http://ex.org/p> <http://ex.org/a> }")
        == "SELECT"
    )


def test_store_is_unchanged_after_refused_updates(tmp_path) -> None:
    data = tmp_path / "d.ttl"
    data.write_text("<http://ex.org/a> <http://ex.org/p> <http://ex.org/b> .\n", encoding="utf-8")
    kb = EmbeddedStore([data])
    with pytest.raises(UnsafeQueryError):
        kb.query("DELETE WHERE { ?s ?p ?o }")
    answers = execute_many(kb, ["DROP ALL", "CLEAR DEFAULT", "ASK { ?s ?p ?o }"], progress=False)
    assert [a.error is not None for a in answers] == [True, True, False]
    assert "refused" in answers[0].error
    assert answers[2].boolean is True
    kb.close()
