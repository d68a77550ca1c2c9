"""A model trained on a user's dataset with no KB file links raw questions against the KB elements its
training split saw (the index a run and its export carry), by their labels or local names."""

from __future__ import annotations

from omegaconf import OmegaConf

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.core.marks import find_units
from nmt_sparql.preparation.linking_index import dataset_index
from nmt_sparql.preparation.prepare import label_resolver, load_splits

MONUMENTS = ["Eiffel_Tower", "Big_Ben", "Statue_of_Liberty", "Brandenburg_Gate", "Colosseum"]


def test_raw_questions_link_to_training_elements_without_a_kb(tmp_path):
    folder = tmp_path / "monument"
    folder.mkdir()
    questions = [f"where is {name.replace('_', ' ').lower()}" for name in MONUMENTS] * 2
    queries = [
        f"select var_a where brack_open dbr_{name} dbo_location var_a brack_close" for name in MONUMENTS
    ] * 2
    (folder / "train.en").write_text("\n".join(questions) + "\n", encoding="utf-8")
    (folder / "train.sparql").write_text("\n".join(queries) + "\n", encoding="utf-8")
    cfg = OmegaConf.create(
        {
            "dataset": {"name": "monument", "reader": "nspm", "path": str(folder), "kb": "dbpedia", "endpoint": None,
                        "split": {"kind": "official", "sizes": None, "ratios": [0.8, 0.1, 0.1]}, "label_files": {}},
            "annotation": "tag_within", "seed": 1, "linked": {"index": None},
            "data": {"dir": str(tmp_path / "data"), "skip_invalid": False, "augment": None},
        }
    )  # fmt: skip
    splits = load_splits(cfg)
    index = dataset_index(cfg, splits["train"], label_resolver(cfg))
    annotator = Annotator.open("tag_within", index)
    try:
        trained = {e.token for ex in splits["train"] for e in ex.kb_elements if e.token.startswith("dbr:")}
        linked = find_units(annotator.question("Where is the Big Ben located?"))
    finally:
        annotator.close()
    assert "dbr:Big_Ben" in trained and "dbr:Big_Ben" in linked
