"""Prepared splits are reused only while the source files' content is unchanged."""

from __future__ import annotations

import json

from omegaconf import OmegaConf

from nmt_sparql.data.fingerprint import code_hash, content_hash
from nmt_sparql.preparation.prepare import load_splits


def write(path, question):
    rows = [
        {
            "id": str(i),
            "question": f"{question} {i}?",
            "query": f"SELECT ?x WHERE {{ <http://dbpedia.org/resource/P{i}> <http://dbpedia.org/ontology/birthPlace> ?x }}",
            "kb": "dbpedia",
        }
        for i in range(10)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def config(path, data_dir):
    return OmegaConf.create(
        {
            "dataset": {
                "name": "mine",
                "reader": "jsonl",
                "path": str(path),
                "kb": "dbpedia",
                "split": {"kind": "auto", "sizes": None, "ratios": [0.8, 0.1, 0.1]},
                "label_files": {},
            },
            "annotation": "raw",
            "seed": 1,
            "data": {"dir": str(data_dir), "skip_invalid": False, "augment": None},
        }
    )


def questions(splits):
    return sorted(e.question for split in splits.values() for e in split)


def test_a_source_file_edited_in_place_is_prepared_again(tmp_path):
    data = tmp_path / "mine.jsonl"
    write(data, "Where was person")
    cfg = config(data, tmp_path / "data")
    first = load_splits(cfg)
    assert questions(first)[0] == "Where was person 0?"
    assert questions(load_splits(cfg)) == questions(first)  # unchanged: reused
    write(data, "Birthplace of person")
    assert questions(load_splits(cfg))[0] == "Birthplace of person 0?"


def test_the_hash_follows_content_not_location(tmp_path):
    a, b = tmp_path / "a" / "x.jsonl", tmp_path / "b" / "x.jsonl"
    for path in (a, b):
        path.parent.mkdir()
        write(path, "Where was person")
    assert content_hash([a]) == content_hash([b]) == content_hash([a.parent])
    write(b, "Birthplace of person")
    assert content_hash([a]) != content_hash([b])


def test_splits_prepared_by_other_code_are_prepared_again(tmp_path, monkeypatch, caplog):
    """An upgraded linker or question grammar prepares again: training reads what inference now reads."""
    data = tmp_path / "mine.jsonl"
    write(data, "Where was person")
    cfg = config(data, tmp_path / "data")
    load_splits(cfg)
    manifest = tmp_path / "data" / "mine" / "raw" / "manifest.json"
    assert json.loads(manifest.read_text())["code"] == code_hash()
    monkeypatch.setattr("nmt_sparql.preparation.prepare.code_hash", lambda: "other code")
    with caplog.at_level("INFO"):
        load_splits(cfg)
    assert "another version of nmt-sparql's code" in caplog.text
    assert json.loads(manifest.read_text())["code"] == "other code"
