"""scripts/screen_new_questions.py: a draft question whose gold query an earlier set asked in another spelling
is a repeat; a new one is not."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import load_script

HEAD = "PREFIX ont: <http://nmt-sparql.org/ontology/> PREFIX res: <http://nmt-sparql.org/resource/> "


@pytest.fixture(scope="module")
def screening() -> ModuleType:
    return load_script("screen_new_questions")


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_gold_query_spelt_otherwise_is_a_repeat_and_a_new_one_is_not(
    screening: ModuleType, tmp_path: Path
) -> None:
    sets = tmp_path / "sets"
    sets.mkdir()
    earlier = {
        "id": "h1-count-01",
        "question": "how many moons orbit jupiter",
        "query": HEAD
        + "select ( count ( distinct ?x ) as ?c ) where { ?x a ont:Moon . ?x ont:orbits res:Jupiter }",
    }
    _write(sets / "natural_questions_heldout1.jsonl", [earlier])
    draft = _write(
        tmp_path / "draft.jsonl",
        [
            {  # the same count: other variable names, spacing, case and triple order, no class triple
                "id": "h2-count-01",
                "question": "Jupiter has how many satellites?",
                "query": HEAD + "SELECT (COUNT(DISTINCT ?m) AS ?n) WHERE { ?m ont:orbits res:Jupiter }",
            },
            {
                "id": "h2-count-02",
                "question": "how many moons orbit saturn",
                "query": HEAD + "select ( count ( distinct ?x ) as ?c ) where { ?x ont:orbits res:Saturn }",
            },
        ],
    )
    found = screening.screen(screening.read(draft), screening.read(sets / "natural_questions_heldout1.jsonl"))
    assert ("h2-count-01", "query", ["h1-count-01"]) in found
    assert not any(name == "h2-count-02" and why == "query" for name, why, _ in found)
    assert ("h2-count-02", "words", ["h1-count-01"]) in found  # four of five content words shared
    assert screening.main([str(draft), "--sets", str(sets)]) == 1
    with pytest.raises(SystemExit):  # a draft inside the sets would match itself
        screening.main([str(_write(sets / "draft.jsonl", [])), "--sets", str(sets)])


def test_a_query_spelt_with_semicolons_and_commas_is_the_one_spelt_with_full_stops(
    screening: ModuleType,
) -> None:
    full = (
        HEAD
        + "select distinct ?x where { ?x a ont:Film . ?x ont:director res:Ridley_Scott . ?x ont:genre ?g . "
    )
    full += "?x ont:genre res:Horror_film filter ( ?g != res:Drama ) }"
    short = (
        HEAD + "select distinct ?f where { ?f a ont:Film ; ont:director res:Ridley_Scott ; ont:genre ?h , "
    )
    short += "res:Horror_film filter ( ?h != res:Drama ) }"
    assert screening.canonical(full) == screening.canonical(short)
    assert screening.canonical(full, drop_types=True) == screening.canonical(short, drop_types=True)
    # the class triple's abbreviated rest is not dropped with it: another director's films stay apart
    other = HEAD + "select distinct ?f where { ?f a ont:Film ; ont:director res:Alfred_Hitchcock }"
    assert screening.canonical(other, drop_types=True) != screening.canonical(
        HEAD + "select distinct ?f where { ?f a ont:Film ; ont:director res:Ridley_Scott }", drop_types=True
    )


def test_a_line_that_is_no_json_object_is_named_by_file_and_line(
    screening: ModuleType, tmp_path: Path
) -> None:
    broken = tmp_path / "draft.jsonl"
    broken.write_text('{"id": "a", "query": "ask { }"}\n{"id": "b", "query": \n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"draft\.jsonl:2: invalid JSON"):
        screening.read(broken)
    broken.write_text('["not", "an", "object"]\n', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"draft\.jsonl:1: expected a JSON object"):
        screening.read(broken)
