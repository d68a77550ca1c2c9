"""KBIndex: ranking tiers, kinds, typos, persistence, atomic writes and bad files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nmt_sparql.annotation.linking.index import Entry, IndexFileError, KBIndex, normalize

ENTRIES = [
    Entry("ex:Albert_Einstein", "entity", ("Albert Einstein",), 50.0),
    Entry("ex:Albert_Finney", "entity", ("Albert Finney",), 10.0),
    Entry("ex:Carlos_Alberto", "entity", ("Carlos Alberto",), 90.0),
    Entry("ex:Peter_Falk", "entity", ("Peter Falk",), 99.0),
    Entry("ex:country", "property", ("country",), 5.0),
    Entry("ex:Country", "class", ("country",), 7.0),
    Entry("ex:Ridley_Scott", "entity", ("Ridley Scott", "Sir Ridley Scott"), 3.0),
    Entry("ex:Zurich", "entity", ("Zürich",), 1.0),
]


@pytest.fixture
def index(tmp_path: Path) -> KBIndex:
    return KBIndex.build(tmp_path / "index.sqlite", ENTRIES)


def test_exact_then_keywords_then_prefix_ties_by_popularity(index: KBIndex) -> None:
    # GRASP's example: exact + prefix beats a single prefix match; Peter Falk does not match at all.
    tokens = [h.token for h in index.lookup("Albert E")]
    assert tokens[0] == "ex:Albert_Einstein"
    assert "ex:Peter_Falk" not in tokens
    assert [h.token for h in index.lookup("albert")][:2] == ["ex:Albert_Einstein", "ex:Albert_Finney"]


def test_kinds_filter_and_shared_label(index: KBIndex) -> None:
    both = index.lookup("Country")
    assert {h.token for h in both[:2]} == {"ex:country", "ex:Country"}
    assert [h.token for h in index.lookup("country", kinds=["property"])] == ["ex:country"]
    assert index.kind("ex:Country") == "class" and index.label("ex:country") == "country"
    assert index.kind("ex:Nothing") is None and index.label("ex:Nothing") is None


def test_typo_and_accents(index: KBIndex) -> None:
    assert index.lookup("Ridly Scott")[0].token == "ex:Ridley_Scott"
    assert index.lookup("zurich")[0].token == "ex:Zurich"
    assert normalize("  Zürich's  Ñandú ") == "zurich s nandu"


def test_alias_matches_and_preferred_label_reported(index: KBIndex) -> None:
    hit = index.lookup("sir ridley scott")[0]
    assert (hit.token, hit.label, hit.matched) == ("ex:Ridley_Scott", "Ridley Scott", "Sir Ridley Scott")


def test_duplicate_entries_pool_labels(tmp_path: Path) -> None:
    index = KBIndex.build(
        tmp_path / "i.sqlite",
        [Entry("ex:a", "entity", ("Alpha",), 1.0), Entry("ex:a", "entity", ("First letter",), 9.0)],
    )
    assert len(index) == 1
    assert index.lookup("first letter")[0].label == "Alpha"


def test_persistence_and_atomic_rebuild(tmp_path: Path, index: KBIndex) -> None:
    path = index.path
    index.close()
    reopened = KBIndex.open(path)
    assert len(reopened) == len(ENTRIES)
    reopened.close()
    with pytest.raises(ValueError, match="kind"):
        KBIndex.build(path, [Entry("ex:x", "thing", ("x",))])  # type: ignore[arg-type]
    assert len(KBIndex.open(path)) == len(ENTRIES)  # the failed build left the old index
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.sqlite"]


def test_missing_and_corrupt_files_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(IndexFileError, match="not found: .*nope.sqlite"):
        KBIndex.open(tmp_path / "nope.sqlite")
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(IndexFileError, match="bad.sqlite"):
        KBIndex.open(bad)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(IndexFileError, match="other.sqlite"):
        KBIndex.open(other)


def test_implicit_elements_that_are_no_list_of_tokens_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    KBIndex.build(path, ENTRIES, implicit=["wdt:P31"]).close()
    assert KBIndex.open(path).implicit == ("wdt:P31",)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '{\"P31\"' WHERE key = 'implicit'")
    with pytest.raises(IndexFileError, match=r"index\.sqlite: meta 'implicit'"):
        KBIndex.open(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM meta WHERE key = 'implicit'")  # an index written before implicit elements
    assert KBIndex.open(path).implicit == ()
