"""A property a question asks for by an idiom that none of the property's names says, for repair
(inference/repair.py).

"What did Marie Curie do for a living?", "roger taylor from queen, what's his trade", "Umberto Eco was
known as what, professionally?": the idiom asks for an occupation; "What kind of musical work is the
Messiah?" for a genre; "What instrument did John Deacon play?" for an occupation (the bassist), in a KB
with no instrument property; "What sort of company is Nintendo?" for an industry; "How many people live in
Latvia?" for a population, not a count of people. The linker reads the
question's words, and no name of the property is among them, so the model is left to guess. Each idiom
stands for a common word ("occupation") that the KB index resolves to the KB's property, so the reading
holds for any KB whose index names a property by that word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from nmt_sparql.inference.kb_reading import KBReader
from nmt_sparql.inference.said import Said


class Idiom(NamedTuple):
    """An idiom (`pattern`), the word that names the property it asks for, whether the question asks
    how many by it ("how many people live in ...": a population, not a count), whether it may ask for
    the property of things one fact away from the named entity ("What do the members of Queen do for a
    living?", "how many people live in the country the Vltava flows through"), and a word that names a
    property of its own in a KB where the idiom is no idiom (`unless`: a KB with an instrument property
    answers "what instrument" by it)."""

    pattern: re.Pattern[str]
    word: str
    counted: bool = False
    through: bool = False
    unless: str = ""


_IDIOMS: tuple[Idiom, ...] = (
    Idiom(
        re.compile(
            r"\bfor a living\b|\bprofessionally\b|\bby (?:profession|trade)\b"
            r"|\b(?:his|her|their) (?:trade|line of work)\b|\b(?:make|makes|made|making) (?:his|her|their) living\b"
            r"|['’]s (?:job|profession|trade|occupation|line of work)\b"
        ),
        "occupation",
        through=True,
    ),
    Idiom(re.compile(r"\b(?:what|which) instruments?\b"), "occupation", through=True, unless="instrument"),
    Idiom(
        re.compile(r"\b(?:kind|sort|type|style)s? of (?:music|musical work|book|novel|film|movie)\b"), "genre"
    ),
    Idiom(
        re.compile(
            r"\b(?:kind|sort|type)s? of (?:company|business|firm|goods|products)\b|\bline of business\b"
        ),
        "industry",
    ),
    Idiom(
        re.compile(
            r"\bhow many (?:people|persons|inhabitants|residents) (?:live|lives|living|reside|resides)\b"
            r"|\bhow many (?:inhabitants|residents)\b"
        ),
        "population",
        counted=True,
        through=True,
    ),
)


class IdiomReading(KBReader):
    """A property asked for by an idiom (module docstring)."""

    def idiom_read(
        self, question: str, units: Sequence[str], said: Said, counted: bool = False
    ) -> tuple[list[str], str] | None:
        """`E P ?x`: the property `P` an idiom of the question asks for (`_IDIOMS`; one that asks how
        many when the question does, `counted`), of the one entity the question names that has it;
        else, for an idiom that reaches `through` a fact, `E Q ?y . ?y P ?x` through the one property
        `Q` the question says that links its one named entity to things that have it ("What do the
        members of Queen do for a living?"), else the one such property of the KB ("What do the Beatles
        do for a living?"). None when no idiom asks, or nothing or more than one thing fits."""
        if self.index is None:
            return None
        text = " ".join(question.lower().split())
        for idiom in _IDIOMS:
            found = idiom.pattern.search(text) if idiom.counted == counted else None
            if found is None or (idiom.unless and self.property_named(idiom.unless) is not None):
                continue
            prop = self.property_named(idiom.word)
            if prop is None:
                continue
            named = self.named_entities(said, units)
            having = [e for e in named if self._holds([e, prop, "?_v"])]
            note = f"{prop} (the question asks for it by '{found.group(0)}')"
            if len(having) == 1:
                return ["select", "distinct", "?x", "where", "{", having[0], prop, "?x", "}"], note
            if having or len(named) != 1 or not idiom.through:
                return None
            said_ones = [q for q in dict.fromkeys(units) if self._kind(q) == "property" and said.words(q)]
            ways = self._ways_to(named[0], prop, said_ones) or self._ways_to(
                named[0], prop, self.index.properties(named[0])
            )
            if len(ways) != 1:
                return None
            return ["select", "distinct", "?x", "where", "{", *ways[0], ".", "?y", prop, "?x", "}"], note
        return None

    def _ways_to(self, entity: str, prop: str, through: Sequence[str]) -> list[list[str]]:
        """The patterns `entity Q ?y` or `?y Q entity`, for each `Q` of `through`, whose `?y` have `prop`."""
        return [
            way
            for q in dict.fromkeys(through)
            if q != prop
            for way in ([entity, q, "?y"], ["?y", q, entity])
            if self._holds([*way, ".", "?y", prop, "?_v"])
        ]
