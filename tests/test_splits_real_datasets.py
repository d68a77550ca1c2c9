"""The paper's LC-QuAD 1.0 split and the unseen splits on the real dataset, when it is present."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nmt_sparql.data.readers import read_dataset
from nmt_sparql.data.splits import random_split, unseen_kb_split, unseen_templates_split, uris

ROOT = Path(
    os.environ.get("NMT_SPARQL_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)
pytestmark = pytest.mark.skipif(not (ROOT / "lcquad1").is_dir(), reason=f"datasets not present at {ROOT}")


def test_lcquad1_paper_split_and_unseen_splits():
    data = read_dataset("lcquad1", ROOT)
    paper = random_split(data, sizes=(4000, 500, 500), seed=42)
    assert {k: len(v) for k, v in paper.items()} == {"train": 4000, "validation": 500, "test": 500}
    assert {e.split for e in paper["train"]} == {"train"}

    templates = unseen_templates_split(data)
    assert not {e.template_id for e in templates["test"]} & {e.template_id for e in templates["train"]}
    assert 400 <= len(templates["test"]) <= 500

    kb = unseen_kb_split(data)
    train_uris = set().union(*(uris(e) for e in kb["train"]))
    assert len(kb["test"]) == 500 and all(uris(e) - train_uris for e in kb["test"])
