"""`nmt-sparql index build`: a Turtle file, a lexicon and a training split into DIR/index.sqlite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nmt_sparql.annotation.linking.index import KBIndex
from nmt_sparql.cli import _hydra_args, main
from nmt_sparql.core.record import Example, write_jsonl

TURTLE = """@prefix ex: <http://ex.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Kubrick rdfs:label "Stanley Kubrick"@en ; ex:spouse ex:Christiane .
ex:Christiane rdfs:label "Christiane Kubrick"@en .
"""


def test_index_build_from_turtle_lexicon_and_training_split(tmp_path: Path, capsys) -> None:
    ttl = tmp_path / "kb.ttl"
    ttl.write_text(TURTLE, encoding="utf-8")
    lexicon = tmp_path / "lexicon.json"
    lexicon.write_text(json.dumps({"<http://ex.org/spouse>": ["married to", "wife"]}), encoding="utf-8")
    train = tmp_path / "train.jsonl"
    query = "SELECT ?x WHERE { <http://ex.org/Kubrick> <http://ex.org/spouse> ?x }"
    marked = "Who is the <wife> of <Stanley Kubrick>?"
    write_jsonl(
        train, [Example("1", "Who is the wife of Stanley Kubrick?", query, "generic", marked_question=marked)]
    )
    main(
        ["index", "build", f"kb={ttl}", f"lexicon={lexicon}", f"examples={train}", f"out={tmp_path / 'out'}"]
    )
    assert "index.sqlite: 3 elements" in capsys.readouterr().out
    with KBIndex.open(tmp_path / "out" / "index.sqlite") as index:
        assert index.lookup("married to")[0].token == "<http://ex.org/spouse>"
        assert index.kind("<http://ex.org/spouse>") == "property"


def test_index_build_bad_input_names_the_file(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["index", "build", f"kb={tmp_path / 'missing.ttl'}", f"out={tmp_path}"])
    assert "RDF file not found: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["index", "build", f"examples={tmp_path / 'nope.jsonl'}", f"out={tmp_path}"])
    assert "nope.jsonl: no such file" in capsys.readouterr().err
    assert not (tmp_path / "index.sqlite").exists()


def test_index_positional_action() -> None:
    assert _hydra_args("index", ["build", "out=x"]) == ["action=build", "out=x"]


def test_index_build_elements_of_other_splits_by_their_labels_only(tmp_path: Path, capsys) -> None:
    """`elements=`: the test split's query elements are in the index (a KB would hold them), named by
    their own labels, never by the test questions' words; `examples=` still teaches the training words."""
    train, test = tmp_path / "train.jsonl", tmp_path / "test.jsonl"
    spouse = "SELECT ?x WHERE { <http://ex.org/Kubrick> <http://ex.org/spouse> ?x }"
    write_jsonl(
        train,
        [
            Example(
                "1",
                "Who is the wife of Kubrick?",
                spouse,
                "generic",
                marked_question="Who is the <wife> of <Kubrick>?",
            )
        ],
    )
    born = "SELECT ?x WHERE { <http://ex.org/Christiane_Harlan> <http://ex.org/birthPlace> ?x }"
    marked = "Where did <Mrs Kubrick> <come into the world>?"
    write_jsonl(
        test,
        [Example("2", "Where did Mrs Kubrick come into the world?", born, "generic", marked_question=marked)],
    )
    main(
        [
            "index",
            "build",
            "kb=null",
            f"examples={train}",
            f"elements=[{train},{test}]",
            f"out={tmp_path / 'out'}",
        ]
    )
    assert "index.sqlite: 4 elements" in capsys.readouterr().out
    with KBIndex.open(tmp_path / "out" / "index.sqlite") as index:
        assert index.lookup("wife")[0].token == "<http://ex.org/spouse>"
        assert index.lookup("birth place")[0].token == "<http://ex.org/birthPlace>"
        assert index.lookup("Christiane Harlan")[0].token == "<http://ex.org/Christiane_Harlan>"
        assert not index.lookup("come into the world") and not index.lookup("Mrs Kubrick")
    with pytest.raises(SystemExit):
        main(["index", "build", "kb=null", f"elements={tmp_path / 'gone.jsonl'}", f"out={tmp_path}"])
    assert "elements=" in capsys.readouterr().err
