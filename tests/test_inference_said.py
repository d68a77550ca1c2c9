"""What a question says of KB elements (inference/said.py): the words their names say, misspelt or not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nmt_sparql.annotation.linking.index import Entry, KBIndex
from nmt_sparql.inference.said import Said


@pytest.fixture()
def index(tmp_path: Path) -> Iterator[KBIndex]:
    entries = [
        Entry("ont:headquarters", "property", ("headquarters", "headquartered")),
        Entry("ont:nationality", "property", ("nationality",)),
        Entry("ont:birthPlace", "property", ("birth place", "born", "place")),
        Entry("ont:capital", "property", ("capital", "capital city")),
        Entry("res:United_States", "entity", ("United States",)),
    ]
    with KBIndex.build(tmp_path / "index.sqlite", entries) as built:
        yield built


def test_a_long_name_misspelt_in_a_word_english_does_not_know_is_still_said(index: KBIndex) -> None:
    """ "headquartred" says headquartered; "rationality" is a word of its own, not a misspelt
    nationality, and a short name is matched exactly only."""
    assert "headquartered" in Said("In which country is Nokia headquartred?", index).words("ont:headquarters")
    assert Said("what was the rationality of Kant", index).words("ont:nationality") == frozenset()
    assert Said("what was the nationalty of Kant", index).words("ont:nationality") == {"nationality"}
    assert Said("Where was Mozart borm?", index).words("ont:birthPlace") == frozenset()
    assert Said("Where was Mozart born?", index).words("ont:birthPlace") == {"born"}


def test_a_property_said_by_its_whole_label_is_said_though_a_longer_name_holds_it(index: KBIndex) -> None:
    """ "capital" says the capital though "capital city" is a longer name of it; "place" alone says no
    birth place, whose label says more."""
    said = Said("capital of the country where the place is", index)
    assert said.words("ont:capital", specific=True) == {"capital"}
    assert said.words("ont:birthPlace", specific=True) == frozenset()


def test_a_name_is_said_in_full_by_its_initials_in_capitals(index: KBIndex) -> None:
    """ "the US" names the United States; "us", a pronoun, does not, nor "US" before a noun it places."""
    assert Said("how many universities in the US date from before 1800", index).names_in_full(
        "res:United_States"
    )
    assert not Said("give us the universities", index).names_in_full("res:United_States")
    assert not Said("Which US state was Edison born in?", index).names_in_full("res:United_States")
