"""A topic set before the question proper, read as the thing the question asks about, for repair
(inference/repair.py).

"Jaws's composer - where was he born?", "Ernest Rutherford's native country - what's its capital city?":
the topic names a thing by a fact of a named entity (Jaws's composer), and the question after the dash
asks a fact of that thing, by a pronoun ("he", "its"). A model reads such a question as one: it may ask
the topic's fact, or the second fact of the named entity. The reading here chains the two facts the two
parts say: `E P ?y . ?y Q ?x`.
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


class TopicReading(KBReader):
    """A topic before the question proper read as the thing it asks about (see the module docstring)."""

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
        for entity in dict.fromkeys(entities):
            for link, second in itertools.product(self._topic_links(entity, told, units), seconds):
                if second in link:
                    continue
                query = ["select", "distinct", "?x", "where", "{", *link, ".", "?y", second, "?x", "}"]
                answer = self._query(detokenize(query, self.prefixes))
                if answer.ok and not answer.is_empty() and fits(expected, query, answer):
                    return query, f"the topic {' '.join(link)}, then its {second}"
        return None

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
                for prop in self.index.relations(unit, entity):
                    way = [entity, prop, "?y"] if self._holds([entity, prop, "?_y"]) else ["?y", prop, entity]
                    links.append([*way, ".", "?y", "a", unit])
        return [link for link in links if self._holds([*link])]
