"""`nmt-sparql data prepare|stats` on a user's own JSONL data."""

import json

from nmt_sparql.cli import main


def write_dataset(path):
    rows = []
    for i, (split, person) in enumerate(
        [("train", "Ike_Clanton"), ("train", "Wyatt_Earp"), ("train", "Doc_Holliday"),
         ("validation", "Billy_Clanton"), ("test", "Tom_McLaury"), ("test", "Frank_McLaury")]
    ):  # fmt: skip
        name = person.replace("_", " ")
        rows.append({
            "id": str(i), "split": split, "kb": "dbpedia",
            "question": f"Where was {name} born?",
            "query": f"SELECT ?x WHERE {{ <http://dbpedia.org/resource/{person}> <http://dbpedia.org/ontology/birthPlace> ?x }}",
        })  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_stats_writes_table_ii_roundtrip_and_coverage(tmp_path, capsys):
    data = tmp_path / "mine.jsonl"
    write_dataset(data)
    main(
        [
            "data",
            "stats",
            "dataset=jsonl",
            f"dataset.path={data}",
            f"data.dir={tmp_path / 'data'}",
            f"out={tmp_path / 'stats'}",
        ]
    )
    stats = json.loads((tmp_path / "stats" / "stats.json").read_text())
    assert stats["splits"] == {"train": 3, "validation": 1, "test": 2}
    assert stats["vocab"]["K"]["test"] == 3 and stats["vocab"]["K"]["oov"] == 2  # two unseen people
    assert stats["vocab"]["oov"] == {"W": stats["vocab"]["W"]["oov"], "S": 0, "K": 2}
    assert stats["roundtrip_rate"] == 1.0
    assert 0.0 <= stats["tagging_coverage"] <= 1.0
    assert "SPARQL round trip: 100.00%" in capsys.readouterr().out


def test_prepare_writes_annotated_splits_and_manifest(tmp_path):
    data = tmp_path / "mine.jsonl"
    write_dataset(data)
    main(
        [
            "data",
            "prepare",
            "dataset=jsonl",
            f"dataset.path={data}",
            "annotation=tag_end",
            f"data.dir={tmp_path / 'data'}",
        ]
    )
    out = tmp_path / "data" / "jsonl" / "tag_end"
    first = json.loads((out / "train.jsonl").read_text().splitlines()[0])
    assert "<sep> «dbr:Ike_Clanton»" in first["annotated"] or "<sep> «dbo:birthPlace»" in first["annotated"]
    assert json.loads((out / "manifest.json").read_text())["sizes"] == {
        "train": 3,
        "validation": 1,
        "test": 2,
    }
