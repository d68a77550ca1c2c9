"""A thing a question names by a fact of a named entity, and then asks a fact of, for repair
(inference/repair.py).

"Jaws's composer - where was he born?", "Ernest Rutherford's native country - what's its capital city?":
a topic names a thing by a fact of a named entity (Jaws's composer), and the question after the dash
asks a fact of that thing, by a pronoun ("he", "its"). "When was the university Jane Goodall attended
founded?", "What does the company Ole Kirk Christiansen founded make?": a relative clause does the same
within the question. A model reads such a question as one: it may ask the first fact, or the second fact
of the named entity. The readings here chain the two facts the two parts say: `E P ?y . ?y Q ?x`.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from nmt_sparql.annotation.linking.index import normalize
from nmt_sparql.inference.expected_answer import Expected, fits, split_topic
from nmt_sparql.inference.kb_reading import KBReader
from nmt_sparql.inference.said import Said
from nmt_sparql.sparql.tokens import detokenize

# Words of the question proper that point back to the topic.
_POINTING = frozenset({"he", "she", "it", "its", "they", "their", "his", "her", "him", "them"})
# Words that may open a relative clause after the class it names a thing of ("the book that Jaws ...").
_RELATIVE = frozenset({"that", "which", "who", "whom", "where"})


class TopicReading(KBReader):
    """A thing named by a topic or a relative clause read as the thing asked about (module docstring)."""

    def clause_read(
        self, question: str, units: Sequence[str], said: Said, expected: Expected
    ) -> tuple[list[str], str] | None:
        """`E P ?y . ?y a C . ?y Q ?x`: the thing of a class C that "the C" names by a relative clause
        on the one entity E the question names right after it ("the university Jane Goodall attended":
        the university the KB most often links things of C to her by), then a fact `Q` of the units the
        question says besides (else any it does not say: "What does the company Ole Kirk Christiansen
        founded make?", not the founding year "founded" says of P) or the measures of C's things it says
        ("The band Syd Barrett helped start was formed in which year?"), either way round ("moons
        orbiting the planet William Herschel discovered"), the answer typed by the class the question
        asks for unless it asks for a number or a date; the one such chain the KB answers as `expected`
        asks. None when the question names not one entity right after "the C" (or within four words
        after "the C that": "the country that's home to pico de orizaba"), C is the
        class it asks for ("List the films James Cameron made"), the question says more relative
        clauses ("whose", a second "that"), or not one chain answers."""
        named = self.named_entities(said, units)
        words = said.text.split()
        if len(named) != 1 or self.index is None or "whose" in words or words.count("that") > 1:
            return None  # "the writer whose famous work is the novel that ...": more facts than two
        entity = named[0]
        starts = {start for start, _ in said.spans_in_full(entity)} | {
            i for i, w in enumerate(words) if w in said.part_words(entity)
        }
        found, asked = [], self.asked_class(question, units)
        for cls in (u for u in dict.fromkeys(units) if self._kind(u) == "class" and u != asked):
            if not self._clause_after(cls, words, starts):
                continue  # "List the films James Cameron made ...": the things asked for, not asked about
            links = self.index.relations(cls, entity, k=1)
            if not links:
                continue
            prop, told = links[0], said.words(links[0])
            way = [*self.link_to(entity, prop, cls), ".", "?y", "a", cls]
            measures = [a for a in self.index.attributes(cls, self.per_element) if said.words(a)]
            seconds = [
                u
                for u in dict.fromkeys([*units, *measures])  # "the band ... was formed": its formation year
                if self._kind(u) == "property"
                and u != prop
                and not (said.words(u) and said.words(u) <= told)
                and self._holds([*way, ".", "?y", u, "?_x"])
            ]
            measured = {"number", "date"} & expected.values  # "how many people live in ...": a population
            typed = [".", "?x", "a", asked] if asked is not None and not measured else []
            chosen = [u for u in seconds if said.words(u)] or seconds  # "moons orbiting the planet ...":
            found += self._chains(
                way, chosen, typed, expected, f"the {cls} {' '.join(way[:3])}"
            )  # either way
        return found[0] if len(found) == 1 else None

    def dated_clause_read(
        self, question: str, units: Sequence[str], said: Said, expected: Expected
    ) -> tuple[list[str], str] | None:
        """`?y a C . ?y P YEAR . ?y Q ?x`: the thing of a class C that "the C" names by a clause dating
        it ("the moon that was discovered in 1846 orbits which planet", "what does the moon discovered
        in 1978 orbit": the moon whose discovery year that is, not the Moon), by the one dated measure of
        C's things that the clause's verb says and that holds, then a fact `Q` the question says besides,
        either way round, typed by the class asked for; the one such chain that answers as `expected`
        asks. None when no "the C" is followed by a year within five words, or not one chain answers."""
        words = said.text.split()
        if self.index is None or words.count("that") > 1 or "whose" in words:
            return None
        found, asked = [], self.asked_class(question, units)
        for cls in (u for u in dict.fromkeys(units) if self._kind(u) == "class" and u != asked):
            year = self._year_after(cls, words)
            if year is None:
                continue
            dated = [
                a
                for a in self.index.attributes(cls, self.per_element)
                if said.words(a)
                and self.values_are_dates(a)
                and self._holds(["?y", "a", cls, ".", "?y", a, year])
            ]
            if len(dated) != 1:
                continue
            way = ["?y", "a", cls, ".", "?y", dated[0], year]
            seconds = [
                u
                for u in dict.fromkeys(units)
                if self._kind(u) == "property"
                and u != dated[0]
                and said.words(u)
                and not said.words(u) <= said.words(dated[0])
            ]
            typed = [".", "?x", "a", asked] if asked is not None else []
            found += self._chains(way, seconds, typed, expected, f"the {cls} of {dated[0]} {year}")
        return found[0] if len(found) == 1 else None

    def _chains(
        self, way: list[str], seconds: Sequence[str], typed: list[str], expected: Expected, label: str
    ) -> list[tuple[list[str], str]]:
        """`select ?x` of the thing `?y` that `way` reads, then each of `seconds` of it, either way round
        (`?y Q ?x`, `?x Q ?y`), `typed`: those the KB answers as `expected` asks, with what they read."""
        found = []
        for second in seconds:
            for fact in (["?y", second, "?x"], ["?x", second, "?y"]):
                query = ["select", "distinct", "?x", "where", "{", *way, ".", *fact, *typed, "}"]
                if self._answers(query, expected):
                    found.append((query, f"{label}, then {' '.join(fact)}"))
        return found

    def _year_after(self, cls: str, words: Sequence[str]) -> str | None:
        """The year the question says within five words after "the C" (a name of the class), not after
        "of" ("the moon discovered in 1978"); None when it says none there."""
        for name in self._class_names(cls):
            for start in range(len(words) - len(name)):
                end = start + len(name) + 1
                if words[start:end] != ["the", *name] or words[start - 1 : start] == ["of"]:
                    continue
                year = next((w for w in words[end : end + 5] if len(w) == 4 and w.isdecimal()), None)
                if year is not None:
                    return year
        return None

    def _clause_after(self, cls: str, words: Sequence[str], starts: set[int]) -> bool:
        """Whether the question says "the C" (a name of the class), not after "of", right before a named
        entity's name (at one of `starts`), or before "that"/"which"/"who(m)" and it."""
        for name in self._class_names(cls):
            for end in range(len(name) + 1, len(words) + 1):
                start = end - len(name) - 1
                if words[start:end] != ["the", *name] or words[start - 1 : start] == ["of"]:
                    continue  # "the state of the birthplace of the musician that Red ...": a longer chain
                if end in starts or (
                    words[end : end + 1] and words[end] in _RELATIVE and starts & set(range(end + 1, end + 5))
                ):
                    return True  # "the country that's home to pico de orizaba": a few words between
        return False

    def topic_read(
        self, question: str, units: Sequence[str], expected: Expected
    ) -> tuple[list[str], str] | None:
        """`E P ?y . ?y Q ?x`: the thing the topic names by a fact of an entity E it names (unambiguously
        first, then any it names: "Jaws" is a novel and a film) by what the topic says (`_topic_links`),
        then the fact `Q` the question proper says of it, a pronoun pointing back: the first such chain
        the KB answers as `expected` asks; None for a question with no topic and pronoun, or no chain."""
        parts = split_topic(question)
        if parts is None or self.index is None:
            return None
        topic, proper = parts
        if not _POINTING & set(normalize(proper).split()):
            return None
        told, asked = Said(topic, self.index), Said(proper, self.index)
        named = self.named_entities(told, units)
        entities = [
            *named,
            *(
                u
                for u in units
                if u not in named and self._kind(u) == "entity" and self._names_in_topic(u, told)
            ),
        ]
        seconds = [q for q in dict.fromkeys(units) if self._kind(q) == "property" and asked.words(q)]
        noun = asked.asked_noun()[:1]  # "what language was it written in": the language, not the author
        seconds.sort(key=lambda q: not (noun and noun[0] in asked.words(q)))
        for entity in dict.fromkeys(entities):
            for link, second in itertools.product(self._topic_links(entity, told, units), seconds):
                if second in link:
                    continue
                query = ["select", "distinct", "?x", "where", "{", *link, ".", "?y", second, "?x", "}"]
                if self._answers(query, expected):
                    return query, f"the topic {' '.join(link)}, then its {second}"
        return None

    def _answers(self, query: list[str], expected: Expected) -> bool:
        """Whether the KB answers `query` with something, as `expected` asks."""
        answer = self._query(detokenize(query, self.prefixes))
        return answer.ok and not answer.is_empty() and fits(expected, query, answer)

    @staticmethod
    def _names_in_topic(entity: str, told: Said) -> bool:
        """Whether the topic names the entity in full or by a name within it ("Jaws" of Jaws (film))."""
        return told.names_whole(entity) or bool(told.part_words(entity))

    def _topic_links(self, entity: str, told: Said, units: Sequence[str]) -> list[list[str]]:
        """The patterns that may name the topic's thing `?y` from `entity`: by each property the topic
        says ("Jaws's composer"), either way round; then, for each class it says ("Rutherford's native
        country"), by the facts the KB most often links things of that class to the entity with."""
        assert self.index is not None
        links = []
        for unit in dict.fromkeys(units):
            kind = self._kind(unit)
            if kind == "property" and told.words(unit):
                links += [[entity, unit, "?y"], ["?y", unit, entity]]
            elif kind == "class" and told.words(unit):
                links += [
                    [*self.link_to(entity, prop), ".", "?y", "a", unit]
                    for prop in self.index.relations(unit, entity)
                ]
        return [link for link in links if self._holds(link)]
