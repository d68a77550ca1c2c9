"""The splits: sizes, determinism, disjointness, the unseen-template and unseen-KB properties."""

from __future__ import annotations

import pytest

from nmt_sparql.core.record import Example, KBElement
from nmt_sparql.data.splits import official_split, random_split, unseen_kb_split, unseen_templates_split, uris


def make(n: int, templates: int = 10, split: str | None = None) -> list[Example]:
    """n examples over `templates` templates; each uses a frequent property, a per-template class and
    a rare entity (shared by pairs of examples)."""
    return [
        Example(
            id=f"e{i}",
            question=f"q{i}",
            query=f"ASK {{ dbr:E{i // 2} dbo:p dbo:C{i % templates} }}",
            kb="dbpedia",
            kb_elements=[
                KBElement(f"dbr:E{i // 2}", "uri"),
                KBElement("dbo:p", "uri"),
                KBElement(f"dbo:C{i % templates}", "uri"),
                KBElement('"x"', "literal"),
            ],
            template_id=str(i % templates),
            split=split,
        )
        for i in range(n)
    ]


def ids(split: dict[str, list[Example]]) -> dict[str, list[str]]:
    return {name: [e.id for e in part] for name, part in split.items()}


def assert_partition(split: dict[str, list[Example]], examples: list[Example]) -> None:
    assert set(split) == {"train", "validation", "test"}
    all_ids = [e.id for part in split.values() for e in part]
    assert sorted(all_ids) == sorted(e.id for e in examples) and len(set(all_ids)) == len(all_ids)
    assert all(e.split == name for name, part in split.items() for e in part)


def test_random_split_paper_sizes_and_determinism():
    data = make(5000)
    split = random_split(data, sizes=(4000, 500, 500), seed=13)
    assert {k: len(v) for k, v in split.items()} == {"train": 4000, "validation": 500, "test": 500}
    assert_partition(split, data)
    assert ids(random_split(data, sizes=(4000, 500, 500), seed=13)) == ids(split)
    assert ids(random_split(data, sizes=(4000, 500, 500), seed=14)) != ids(split)
    assert all(e.split is None for e in data), "inputs are left untouched"


def test_random_split_ratios_and_bad_arguments():
    data = make(103)
    split = random_split(data, ratios=(0.7, 0.2, 0.1))
    assert {k: len(v) for k, v in split.items()} == {"train": 72, "validation": 21, "test": 10}
    assert_partition(split, data)
    with pytest.raises(ValueError, match="add up to 10, but there are 103"):
        random_split(data, sizes=(8, 1, 1))
    with pytest.raises(ValueError, match="adding up to 1"):
        random_split(data, ratios=(0.5, 0.1, 0.1))
    with pytest.raises(ValueError, match="occur more than once"):
        random_split(data + data[:1])


def test_official_split_keeps_dataset_split_and_carves_validation_from_train():
    train, test = (
        make(50, split="train"),
        [Example(f"t{i}", "q", "ASK {}", "dbpedia", split="test") for i in range(7)],
    )
    split = official_split(train + test, validation_fraction=0.2, seed=3)
    assert {k: len(v) for k, v in split.items()} == {"train": 40, "validation": 10, "test": 7}
    assert_partition(split, train + test)
    assert ids(official_split(train + test, validation_fraction=0.2, seed=3)) == ids(split)
    assert ids(split)["train"] == [e.id for e in train if e.id in set(ids(split)["train"])], (
        "train keeps its order"
    )

    with_dev = train + [Example("v", "q", "ASK {}", "dbpedia", split="validation")] + test
    assert ids(official_split(with_dev))["validation"] == ["v"]
    with pytest.raises(ValueError, match="example 'e0' has split None"):
        official_split(make(3))


def test_unseen_templates_split_keeps_test_templates_out_of_train():
    data = make(1000, templates=40)
    split = unseen_templates_split(data, seed=5)
    assert_partition(split, data)
    train_templates = {e.template_id for e in split["train"]}
    for held in ("validation", "test"):
        assert split[held] and not {e.template_id for e in split[held]} & train_templates
        assert len(split[held]) <= 100
    assert not {e.template_id for e in split["validation"]} & {e.template_id for e in split["test"]}
    assert ids(unseen_templates_split(data, seed=5)) == ids(split)


def test_unseen_templates_split_needs_template_ids():
    data = make(20)
    data[3].template_id = None
    with pytest.raises(ValueError, match="1 example\\(s\\) have no template id \\(e.g. 'e3'\\)"):
        unseen_templates_split(data)
    with pytest.raises(ValueError, match="at least 2 distinct templates"):
        unseen_templates_split(make(20, templates=1))


def test_unseen_kb_split_every_held_out_example_has_a_uri_unseen_in_train():
    data = make(1000, templates=25)
    split = unseen_kb_split(data, seed=9)
    assert_partition(split, data)
    assert {k: len(v) for k, v in split.items()} == {"train": 800, "validation": 100, "test": 100}
    train_uris = set().union(*(uris(e) for e in split["train"]))
    assert all(uris(e) - train_uris for e in split["validation"] + split["test"])
    assert ids(unseen_kb_split(data, seed=9)) == ids(split)
    assert ids(unseen_kb_split(data, seed=10)) != ids(split)


def test_unseen_kb_split_ignores_literals_and_fails_clearly_when_impossible():
    common = [
        Example(
            f"c{i}",
            "q",
            "ASK {}",
            "dbpedia",
            kb_elements=[KBElement("dbo:p", "uri"), KBElement(f'"{i}"', "literal")],
        )
        for i in range(10)
    ]
    with pytest.raises(ValueError, match="no URI is rare enough"):
        unseen_kb_split(common, ratios=(0.8, 0.1, 0.1))
