"""A user's JSONL without `split` fields gets a seeded 80/10/10 split; `dataset.name` names its data."""

from __future__ import annotations

import json

import pytest

from nmt_sparql.cli import main
from nmt_sparql.core.record import Example, read_jsonl
from nmt_sparql.data.splits import auto_split


def write_unsplit(path, n=10):
    rows = [
        {
            "id": str(i),
            "question": f"Where was person {i} born?",
            "query": f"SELECT ?x WHERE {{ <http://dbpedia.org/resource/P{i}> <http://dbpedia.org/ontology/birthPlace> ?x }}",
            "kb": "dbpedia",
        }
        for i in range(n)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_unsplit_jsonl_is_split_80_10_10_under_its_own_name(tmp_path):
    data, data_dir = tmp_path / "monument.jsonl", tmp_path / "data"
    write_unsplit(data)
    for name in ("monument", "other"):
        main(
            [
                "data",
                "prepare",
                "dataset=jsonl",
                f"dataset.path={data}",
                f"dataset.name={name}",
                f"data.dir={data_dir}",
            ]
        )
    for name in ("monument", "other"):
        folder = data_dir / name / "tag_within"
        sizes = [len(list(read_jsonl(folder / f"{s}.jsonl"))) for s in ("train", "validation", "test")]
        assert sizes == [8, 1, 1]


def test_partly_split_records_name_the_setting_that_resolves_them():
    examples = [Example(str(i), "q", "ASK {}", "dbpedia", split="train" if i else None) for i in range(3)]
    with pytest.raises(ValueError, match="dataset.split.kind=random"):
        auto_split(examples)


def test_a_users_qald_file_is_read_with_its_gold_answers(tmp_path):
    questions = [
        {
            "id": str(i),
            "question": [{"language": "en", "string": f"Where was person {i} born?"}],
            "query": {
                "sparql": f"SELECT ?x WHERE {{ <http://dbpedia.org/resource/P{i}> <http://dbpedia.org/ontology/birthPlace> ?x }}"
            },
            "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": []}}],
        }
        for i in range(10)
    ]
    path, data_dir = tmp_path / "mine.json", tmp_path / "data"
    path.write_text(json.dumps({"questions": questions}), encoding="utf-8")
    main(
        [
            "data",
            "prepare",
            "dataset=qald",
            f"dataset.path={path}",
            "dataset.name=mine",
            f"data.dir={data_dir}",
        ]
    )
    prepared = [
        e
        for s in ("train", "validation", "test")
        for e in read_jsonl(data_dir / "mine" / "tag_within" / f"{s}.jsonl")
    ]
    assert len(prepared) == 10 and all(e.answers for e in prepared)
