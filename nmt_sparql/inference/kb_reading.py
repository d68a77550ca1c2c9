"""The KB reads that repair's rules share (inference/repair.py), asked once and kept.

A rule asks what kind of element a token is, whether a pattern holds, what kind of values a property
takes (numbers and dates are what a ranking or comparison can use), which class a question asks for;
every hypothesis of a question, and every question a server meets, asks the same again, so the answers
are cached, within bounds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from nmt_sparql.annotation.linking.index import QUALIFIER, KBIndex, Kind, misspelt, normalize
from nmt_sparql.annotation.linking.sources import token_of
from nmt_sparql.annotation.linking.wordforms import inflections, is_dictionary_word
from nmt_sparql.execution.answer import Answer
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.safety import UnsafeQueryError
from nmt_sparql.inference.asked_order import ranked_noun, without_positions
from nmt_sparql.inference.expected_answer import WORD, asked_noun, value_kinds
from nmt_sparql.inference.said import Said
from nmt_sparql.sparql.patterns import answer_variable, triple_patterns
from nmt_sparql.sparql.prefixes import PrefixMap
from nmt_sparql.sparql.tokens import RDF_TYPE, TokenType, detokenize, local_name, token_types
from nmt_sparql.tokenization.kbmask import typed_mask

MEMBERS_READ = 1000  # members of a class `_said_of_members` reads
ANSWERS_READ = 20  # answers a rule reads the classes of
HELD_KEPT = 10_000  # answers a cache keeps before starting afresh (a server meets patterns without end)
FACTS_COUNTED = 1000  # facts `_facts` counts of an entity at most
_KIND_OF_MASK: dict[str, Kind] = {"<kb:entity>": "entity", "<kb:property>": "property", "<kb:class>": "class"}


def typed_by(tokens: Sequence[str], cls: str | None, prefixes: PrefixMap) -> list[str] | None:
    """A SELECT with `?answer a cls .` put first in its body, or None: no class, an ASK, no answer
    variable, or a query that already names the class. An answer typed by another class is typed by
    `cls` too ("albums by bands from London" read as `?x a ont:Band ...`): what the KB holds of both
    classes stays, else the query answers with nothing of the class asked for."""
    if cls is None or not tokens or tokens[0] != "select" or cls in tokens or "{" not in tokens:
        return None
    var = answer_variable(tokens, token_types(tokens, prefixes))
    if var is None:
        return None
    at = tokens.index("{") + 1
    return [*tokens[:at], var, "a", cls, ".", *tokens[at:]]


def answer_head(count: bool) -> list[str]:
    """The head of a query for things `?x`, or for how many of them when `count`."""
    return (
        ["select", "(", "count", "(", "distinct", "?x", ")", "as", "?count", ")"]
        if count
        else ["select", "distinct", "?x"]
    )


def element_name(token: str, index: KBIndex | None) -> str:
    """What to look a KB element up by: its label, else its local name in words (`birthPlace` -> birth Place)."""
    label = index.label(token) if index is not None else None
    if label:
        return label
    local = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", local_name(token))
    return " ".join(re.split(r"[_\-\s]+", local))


# A question word after the opening words: what they name is not what the question asks for (`asked_class`).
_ASKED_LATER = re.compile(r"^\W*\S+.*\b(?:what|which|who|whom|whose|where|when|how)\b", re.IGNORECASE)


class KBReader:
    """The cached KB reads of one KB and index (None: elements are known by their masks only);
    `per_element`: how many candidates a rule takes of each kind."""

    def __init__(
        self, kb: KnowledgeBase, prefixes: PrefixMap, index: KBIndex | None = None, per_element: int = 4
    ):
        self.kb, self.prefixes, self.index, self.per_element = kb, prefixes, index, per_element
        self._kinds_of: dict[str, list[frozenset[str]]] = {}
        self._held: dict[tuple[str, ...], bool] = {}  # `_holds`, asked again by several rules
        self._said_of: dict[str, frozenset[str]] = {}  # `_said_of_members`, per class
        self._facts_of: dict[str, int] = {}  # `_facts`, per entity
        # `named_entities` of the question last asked: every hypothesis of it asks again
        self._named_last: tuple[Said, tuple[str, ...], list[str]] | None = None
        self._class_list: list[str] | None = None  # `_classes`
        self._group_links: dict[tuple[str, ...], str | None] = {}  # `_group_link`, per group and fact

    def _classes(self) -> list[str]:
        """The index's classes, read once."""
        if self._class_list is None:
            self._class_list = [t for t, _, _ in self.index.elements(["class"])] if self.index else []
        return self._class_list

    def _query(self, sparql: str) -> Answer:
        try:
            return self.kb.query(sparql)
        except UnsafeQueryError as err:
            return Answer.failed(str(err))

    def _holds(self, pattern: list[str]) -> bool:
        key = tuple(pattern)
        if key not in self._held:
            if len(self._held) >= HELD_KEPT:  # a server's repairer meets patterns without end
                self._held.clear()
            answer = self._query(detokenize(["ask", "where", "{", *pattern, "}"], self.prefixes))
            self._held[key] = answer.ok and bool(answer.boolean)
        return self._held[key]

    def _kind(self, token: str) -> Kind | None:
        found = self.index.kind(token) if self.index is not None else None
        return found or _KIND_OF_MASK.get(typed_mask(token))

    def property_named(self, word: str) -> str | None:
        """The property the index names by the common word `word` (its label or another of its names),
        if one: how a reading that asks for "occupation" or "nationality" finds this KB's property."""
        found = self.properties_named(word)
        return found[0] if len(found) == 1 else None

    def properties_named(self, phrase: str) -> list[str]:
        """The properties among the index's best few for `phrase` that it names by `phrase` exactly."""
        if self.index is None:
            return []
        return [
            h.token for h in self.index.lookup(phrase, ["property"], 5) if phrase in self.index.names(h.token)
        ]

    def _value_kinds(self, prop: str) -> list[frozenset[str]]:
        """The kinds of a few of the KB's values of `prop` (`value_kinds`: iri, number, date, text)."""
        if prop not in self._kinds_of:
            answer = self._query(
                detokenize(
                    ["select", "?_v", "where", "{", "?_s", prop, "?_v", "}", "limit", "5"], self.prefixes
                )
            )
            values = answer.cells() if answer.ok else []
            self._kinds_of[prop] = [value_kinds(v) for v in values]
        return self._kinds_of[prop]

    def values_are_dates(self, prop: str) -> bool:
        """Whether the KB's values of `prop` are dates or years (what "oldest" orders by)."""
        kinds = self._value_kinds(prop)
        return bool(kinds) and all("date" in k for k in kinds)

    def _measured_values(self, prop: str) -> bool:
        """Whether the KB's values of `prop` are all numbers or dates: what a comparison can test."""
        kinds = self._value_kinds(prop)
        return bool(kinds) and all(k & {"number", "date"} for k in kinds)

    def _literal_measures(self, var: str, body: Sequence[str] = ()) -> list[str]:
        """The properties whose values of `var` (an entity, or a variable `body` binds) are literals and
        whose KB values are measures (numbers or dates)."""
        where = [*body, "."] if body else []
        found = self._query(
            detokenize(
                ["select", "distinct", "?_p", "where", "{", *where, var, "?_p", "?_val", ".",
                 "filter", "(", "isliteral", "(", "?_val", ")", ")", "}", "limit", "20"],
                self.prefixes,
            )
        )  # fmt: skip
        props = [token_of(row[0], self.prefixes) for row in found.rows if row[0]] if found.ok else []
        return [p for p in props if self._measured_values(p)]

    def _types_of(self, tokens: Sequence[str], types: Sequence[TokenType], variable: str) -> list[str]:
        """The classes a query gives `variable` (`variable a C` patterns)."""
        if types[tokens.index(variable)] != TokenType.VARIABLE:
            return []
        return [
            tokens[o]
            for s, p, o in triple_patterns(tokens, types)
            if tokens[s] == variable and tokens[p] == "a" and types[o] == TokenType.URI
        ]

    def _said_of_members(self, cls: str) -> frozenset[str]:
        """The properties the KB gives members of `cls` (their type aside; of its first `MEMBERS_READ`
        members, so that a large KB answers quickly): what it says of such things."""
        if cls not in self._said_of:
            members = f"{{ select ?_s where {{ ?_s a {cls} }} limit {MEMBERS_READ} }}".split()
            read = ["select", "distinct", "?_p", "where", "{", *members, "?_s", "?_p", "?_o", "}"]
            found = self._query(detokenize(read, self.prefixes))
            props = {str(row[0]) for row in found.values() if row[0] is not None} if found.ok else set()
            self._said_of[cls] = frozenset(props - {RDF_TYPE})
        return self._said_of[cls]

    def of_a_kind_of(self, answer: Answer, cls: str) -> bool:
        """Whether every answer (of the first `ANSWERS_READ`) is of some class (`KBIndex.classes`: none
        without an index of facts) whose members the KB gives every property it gives members of `cls`
        and at most one more (`_said_like`): a kind of `cls` by what is said of it, for a KB without a
        class hierarchy ("which book" answered by a novel, which has an author, a language and a year like
        a book; not a moon for "which planet": planets have an order from the sun)."""
        wanted = self._said_of_members(cls)
        values = answer.cells()
        if not wanted or not values or self.index is None:
            return False
        for value in values[:ANSWERS_READ]:
            entity = token_of(value, self.prefixes)
            classes = self.index.classes(entity) if entity else frozenset()
            if not any(c != cls and self._said_like(wanted, self._said_of_members(c)) for c in classes):
                return False
        return True

    @staticmethod
    def _said_like(wanted: frozenset[str], said: frozenset[str]) -> bool:
        """Whether a class whose members the KB says `said` of is a kind of one it says `wanted` of: all of
        it and at most one property more, where `wanted` is more than a label and one fact (classes the KB
        says nothing of but a name, a language or a currency, are like every other)."""
        return len(wanted) >= 3 and wanted <= said and len(said - wanted) <= 1

    def asked_class(self, question: str, units: Sequence[str]) -> str | None:
        """The class among the question's units that the words opening it name ("Which painters ..."
        -> ont:Painter; after a word or two that modify it: "Count the Dutch painters", "Harvard-educated
        politicians"), else those after
        its superlative ("What's the newest university?"): the label's words, the last one in the
        singular or plural. A class named right after it is the head of the compound it opens
        ("russian-language novels": novels, not languages). None when the question asks for things of
        two classes (`asked_classes`)."""
        classes = self.asked_classes(question, units)
        return classes[0] if len(classes) == 1 else None

    def asked_classes(self, question: str, units: Sequence[str]) -> list[str]:
        """The class the question asks for (`asked_class`), and another named right after it and "and"
        or "or" ("Which planets and moons were discovered in 1846?"); empty when none."""
        wide = asked_noun(question, 8)  # room for "and" and a second class after the first
        for noun in (asked_noun(question), ranked_noun(question)):
            opening = bool(noun) and noun[0] in WORD.findall(question.lower())[:2]  # after "the", say
            for start in (0, 1, 2):
                if start == 2 and opening and _ASKED_LATER.search(question):
                    continue  # "mount teide's country uses what currency": the class asked for comes later
                found = self._class_named_at(noun, start, units)
                if found is None:
                    continue
                cls, end = self._class_named_at(noun, found[1], units) or found
                joined = wide[: len(noun)] == noun and wide[end : end + 1] in (["and"], ["or"])
                other = self._class_named_at(wide, end + 1, units) if joined else None
                return [cls] if other is None or other[0] == cls else [cls, other[0]]
        return []

    def untyped_for_two(self, tokens: Sequence[str], question: str, units: Sequence[str]) -> list[str] | None:
        """The query without its answer's type when that is one of two classes the question asks for
        ("Which planets and moons were discovered in 1846?" typed as planets); else None."""
        classes = self.asked_classes(question, units)
        if len(classes) != 2:
            return None
        types = token_types(tokens, self.prefixes)
        var = answer_variable(tokens, types)
        drop = {
            i
            for s, p, o in triple_patterns(tokens, types)
            if tokens[s] == var and tokens[p] == "a" and tokens[o] in classes
            for i in (s, p, o)
        }
        return without_positions(tokens, drop) if drop else None

    def _class_named_at(
        self, words: Sequence[str], start: int, units: Sequence[str]
    ) -> tuple[str, int] | None:
        """The class among `units` whose label or another of its names (the longest) `words` say from
        `start`, the last word in the singular or plural ("businessmen", "movies") or misspelt
        ("contintent"), else the one class whose name of two words or more has that word as its head
        ("range": mountain range), and where its words end."""
        found, end = None, start
        for unit in units:
            if self._kind(unit) != "class":
                continue
            for name in self._class_names(unit):
                said = list(words[start : start + len(name)])
                if (
                    len(said) == len(name)
                    and said[:-1] == name[:-1]
                    and (
                        said[-1] == name[-1]
                        or name[-1] in inflections(said[-1], ("NOUN",))
                        or (not is_dictionary_word(said[-1]) and misspelt(said[-1], name[-1]))  # "contintent"
                    )
                    and start + len(name) > end
                ):
                    found, end = unit, start + len(name)
        if found is None and words[start : start + 1]:
            # "What range is Mount Whitney in?": the head of one class's name of two words or more
            heads = {
                unit
                for unit in units
                if self._kind(unit) == "class"
                and any(
                    len(n) > 1 and n[-1] in inflections(words[start], ("NOUN",))
                    for n in self._class_names(unit)
                )
            }
            if len(heads) == 1:
                found, end = heads.pop(), start + 1
        return None if found is None else (found, end)

    def _class_names(self, cls: str) -> list[list[str]]:
        """The words of a class's label, then of its other names in the index ("businessmen")."""
        names = self.index.names(cls) if self.index is not None else []
        label = element_name(cls, self.index).lower()
        return [n.split() for n in dict.fromkeys([label, *names])]

    def named_by_head(self, cls: str, word: str) -> bool:
        """Whether `word` is the last word of the class's label or another of its names, singular or
        plural ("elements" of "chemical element", "movies"): a question names things of the class by it."""
        heads = {name[-1] for name in self._class_names(cls) if name}
        return word in heads or bool(heads & set(inflections(word, ("NOUN",))))

    def named_alike(self, entity: str, prop: str, subject: bool, said: Said) -> str | None:
        """The entity to put in place of `entity`, which never takes that place (`subject` or object) with
        `prop` in the KB: one that does, whose label holds `entity`'s words, a qualifier aside ("Oppenheimer
        (film)": J. Robert Oppenheimer), and whose names the question says (all of them, then the most:
        "Oxford" is the University of Oxford, not Oxford Brookes University; of those named as well, the
        one that takes the place: the University of Cambridge, not Cambridge, Massachusetts); None when
        `entity` takes that place, or no single one is named so."""
        label = said.index.label(entity) or ""
        if self._kind(entity) != "entity" or not label:
            return None

        def placed(token: str) -> list[str]:
            return [token, prop, "?_v"] if subject else ["?_v", prop, token]

        if self._holds(placed(entity)):
            return None
        bare = QUALIFIER.sub("", label).strip() or label  # "Oppenheimer (film)": the man is named alike
        words = set(normalize(bare).split())
        alike = [
            h.token
            for h in said.index.lookup(bare, ["entity"], 2 * self.per_element + 4)
            if h.token != entity and words <= set(normalize(h.label).split())
        ]
        fit = {t: (len(said.unsaid_names(t)), -len(said.part_words(t))) for t in alike}
        best = [t for t in alike if fit[t] == min(fit.values())]
        placing = [t for t in best if self._holds(placed(t))]
        return placing[0] if len(placing) == 1 else None

    def fact_between(self, a: str, b: str, units: Sequence[str]) -> list[str] | None:
        """The fact the KB links two entities by, as `s p o` the way it holds: a property of the question's
        units first, else the one the index ranks first; None when no fact links them."""
        assert self.index is not None
        linked = self.index.relations(a, b, k=8)
        if not linked:
            return None
        prop = next((r for r in linked if r in units), linked[0])
        return [a, prop, b] if self._holds([a, prop, b]) else [b, prop, a]

    def link_to(self, entity: str, prop: str, cls: str | None = None) -> list[str]:
        """`entity prop ?y`, or `?y prop entity` when the KB does not hold it that way (to things of
        `cls`, when given): the pattern by which a fact of `entity` names another thing, `?y`."""
        typed = [".", "?_y", "a", cls] if cls is not None else []
        return [entity, prop, "?y"] if self._holds([entity, prop, "?_y", *typed]) else ["?y", prop, entity]

    def alike(self, a: str, b: str) -> bool:
        """Whether the KB gives `a` and `b` a class in common: things of one kind."""
        return self._holds([a, "a", "?_c", ".", b, "a", "?_c"])

    def _facts(self, entity: str) -> int:
        """How many facts the KB holds of an entity, either end (a bare name means the better known)."""
        if entity not in self._facts_of:
            if len(self._facts_of) >= HELD_KEPT:
                self._facts_of.clear()
            found = self._query(  # at most FACTS_COUNTED: a hub of a large KB is counted quickly
                detokenize(
                    ["select", "(", "count", "(", "*", ")", "as", "?_n", ")", "where", "{", "{", "select",
                     "*", "where", "{", "{", entity, "?_p", "?_o", "}", "union", "{", "?_s", "?_p", entity,
                     "}", "}", "limit", str(FACTS_COUNTED), "}", "}"],
                    self.prefixes,
                )
            )  # fmt: skip
            cell = found.rows[0][0] if found.ok and found.rows else None
            self._facts_of[entity] = int(float(cell)) if cell else 0
        return self._facts_of[entity]

    def _better_known(self, entity: str, other: str) -> bool:
        """Whether a name both share names `entity` rather than `other`: one of its kind the KB says at
        least twice as much of ("Mozart": Wolfgang Amadeus, not Constanze; "Dickens": Charles, not
        Catherine; not "Curie", Marie and Pierre alike)."""
        return self.alike(entity, other) and self._facts(entity) >= 2 * max(self._facts(other), 1)

    def named_entities(self, said: Said, units: Sequence[str]) -> list[str]:
        """The entities among `units` the question names unambiguously: by their whole label when no
        other unit has that label, qualifiers aside (not "The Godfather", both a novel and a film), and
        not only within another's ("Dublin" of "Trinity College Dublin"); by
        a name within it (`Said.part_words`: "Verdi") that no other entity's label holds ("Cambridge"
        is a city and a university's name), or only one of its kind it is far better known than
        (`_better_known`: "Mozart" is Wolfgang Amadeus, not his wife Constanze)."""
        if self._named_last is not None and self._named_last[:2] == (said, tuple(units)):
            return self._named_last[2]
        labels = {u: said.index.label(u) or u for u in dict.fromkeys(units)}
        bare = Counter(normalize(QUALIFIER.sub("", label)) for label in labels.values())
        entities = [u for u in labels if self._kind(u) == "entity"]
        whole = [u for u in entities if said.names_whole(u) and bare[normalize(labels[u])] == 1]
        # not "Dublin" when the question says it only within "Trinity College Dublin"
        whole = [u for u in whole if not said.within_another(u, entities)]
        words = {u: set(normalize(labels[u]).split()) for u in entities}
        part = [
            u
            for u in entities
            if u not in whole
            and not said.names_whole(u)
            and (found := said.part_words(u))
            and not any(
                found & (words[v] | said.part_words(v)) and not self._better_known(u, v)
                for v in entities
                if v != u
            )
        ]
        named = [u for u in entities if u in whole or u in part]
        self._named_last = (said, tuple(units), named)
        return named
