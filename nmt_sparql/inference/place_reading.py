"""Place adjectives read as places, for repair (inference/repair.py).

A place adjective before the class the question asks for ("french film directors", "Which German
university is the oldest?", "South American countries"), or a place named right after the class
("universities in germany"), is read as the place: the pattern, or chain, that joins the answer to the
place or its language becomes the link the KB most often joins that class's members to the place by,
through the members' own facts (nationality; a city's country), unless the word is a language's
("Spanish-speaking", "written in French") or the language joins the class's members itself. A place
named by its people ("elements named after Germans") is read as people of that nationality.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from nmt_sparql.annotation.linking.index import KBIndex, misspelt, normalize
from nmt_sparql.annotation.linking.sources import token_of
from nmt_sparql.annotation.linking.wordforms import head_plurals, is_common_noun, place_names
from nmt_sparql.data.wording import PLACE_WORDS
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.inference.expected_answer import asked_noun
from nmt_sparql.inference.kb_reading import HELD_KEPT, KBReader, answer_head, element_name, typed_by
from nmt_sparql.inference.said import Said
from nmt_sparql.sparql.patterns import answer_variable, triple_patterns
from nmt_sparql.sparql.prefixes import PrefixMap
from nmt_sparql.sparql.tokens import TokenType, detokenize, token_types

# Words after a place adjective that make it a language's ("Spanish-speaking", "russian-language"); one
# before it that makes it a language's too ("written in French").
_SPOKEN_AFTER = frozenset({"speaking", "language", "languages", "speaker", "speakers", "spoken"})
_SPOKEN_BEFORE = frozenset({"in", "into", "from"})
# Words of "where ... from" around the name of what is placed ("Where do U2 originally come from?").
_ORIGIN_WORDS = frozenset(
    {"is", "are", "was", "were", "do", "does", "did", "originally", "come", "comes", "hail", "the"}
)


class PlaceReading(KBReader):
    """Place adjectives of one KB read as places (see the module docstring)."""

    def __init__(
        self, kb: KnowledgeBase, prefixes: PrefixMap, index: KBIndex | None = None, per_element: int = 4
    ):
        super().__init__(kb, prefixes, index, per_element)
        self._links: dict[
            tuple[tuple[str, str], str], list[str] | None
        ] = {}  # `_place_link`, per kind and place

    def place_adjective_read(
        self, tokens: list[str], question: str, units: Sequence[str], said: Said | None
    ) -> tuple[list[str], str] | None:
        """`tokens` with a place adjective before a class the question names read as the place
        ("french film directors": `?x ont:nationality res:France`, not directors of a French-speaking
        country; "German universities": a university in a city of Germany), and so a place named right
        after the class ("the oldest university in Germany", "rivers in Europe"): the pattern, or chain
        through one variable, that joins the answer to the entity the words name (the place, or its
        language) becomes the link the KB most often joins that class's members to the place by,
        directly else through one element, and the answer is typed by the class. Not when the word is
        a language's ("Spanish-speaking", "written in French") or the language joins members of the
        class directly ("Spanish novels": `?x ont:language res:Spanish`). None when nothing changes."""
        if said is None or self.index is None:
            return None
        types = token_types(tokens, self.prefixes)
        patterns = triple_patterns(tokens, types)
        asked_for = self.asked_class(question, units)
        for place, word, cls, opens in self._places_of_classes(said, units):
            typed = [tokens[s] for s, p, o in patterns if tokens[p] == "a" and tokens[o] == cls]
            var = typed[0] if typed else answer_variable(tokens, types)
            asked = asked_for == cls or asked_noun(question)[: len(opens)] == opens
            if var is None or not typed and not asked:
                continue  # "paintings by Dutch painters": the painters are no answer, nor typed
            new = self._placed(tokens, types, var, place, word, cls)
            if new is not None:
                return new, f"'{word}' read as {place}, joined to {cls} as the KB joins them"
        return None

    def _places_of_classes(
        self, said: Said, units: Sequence[str]
    ) -> Iterator[tuple[str, str, str, list[str]]]:
        """(place, its words, class, the words the phrase opens with) for each place adjective of a
        unit right before a class of the units ("german universities"), then each unit place named
        right after a class and "in" or "from" ("universities in germany"), then each unit place whose
        possessive comes before a class, a word or two between ("italy's oldest university")."""
        words = said.text.split()
        entities = [u for u in units if self._kind(u) == "entity"]
        for place in entities:
            for word in said.place_words(place):
                span = word.split()
                at = next(i for i in range(len(words)) if words[i : i + len(span)] == span)
                end = at + len(span)
                if set(words[end : end + 1]) & _SPOKEN_AFTER or set(words[at - 1 : at]) & _SPOKEN_BEFORE:
                    continue
                named = self._class_named_at(words, end, units)
                if named is not None:
                    yield place, word, named[0], span
        for place in entities:
            label = normalize(self.index.label(place) or "").split() if self.index is not None else []
            for start in range(len(words)):
                named = self._class_named_at(words, start, units)
                if named is None or words[named[1] : named[1] + 1] not in (["in"], ["from"]):
                    continue
                after = named[1] + 1 + (words[named[1] + 1 : named[1] + 2] == ["the"])
                said_as = words[after : after + len(label)]
                if label and len(said_as) == len(label) and all(map(misspelt, said_as, label)):
                    yield place, " ".join(said_as), named[0], words[start : named[1]]
        for place in entities:
            label = normalize(self.index.label(place) or "").split() if self.index is not None else []
            if not label or not self._is_place(place):
                continue
            for start in range(len(words) - len(label)):
                end = start + len(label)
                if words[end] != "s" or not all(map(misspelt, words[start:end], label)):
                    continue
                for between in range(3):  # "italy's universities", "italy's oldest university"
                    named = self._class_named_at(words, end + 1 + between, units)
                    if named is not None:
                        yield place, " ".join(words[start:end]), named[0], words[end + 1 : named[1]]
                        break

    def _is_place(self, entity: str) -> bool:
        """Whether the index types the entity by a class whose label names a kind of place ("country")."""
        assert self.index is not None
        return any(
            normalize(self.index.label(c) or "").split()[-1:] in ([w] for w in PLACE_WORDS)
            for c in self.index.classes(entity)
        )

    def _placed(
        self, tokens: list[str], types: Sequence[TokenType], var: str, place: str, word: str, cls: str
    ) -> list[str] | None:
        """`place_adjective_read` of one place and class: the new tokens, or None."""
        named = {
            t
            for t in tokens
            if self._kind(t) == "entity"
            and (
                t == place
                or normalize(element_name(t, self.index)) == word
                or word in place_names(element_name(t, self.index))
            )
        }
        patterns = triple_patterns(tokens, types)
        old: list[tuple[int, int, int]] = []
        for s, p, o in patterns:
            ends = {tokens[s], tokens[o]}
            if var in ends and ends & named:
                old = [(s, p, o)]
                break
        if not old:
            for first, second in itertools.permutations(patterns, 2):
                ends_1, ends_2 = {tokens[first[0]], tokens[first[2]]}, {tokens[second[0]], tokens[second[2]]}
                shared = list((ends_1 - {var}) & ends_2)
                if (
                    var in ends_1
                    and len(shared) == 1
                    and shared[0].startswith("?")
                    and tokens.count(shared[0]) == 2  # a variable only the chain reads
                    and ends_2 & named
                ):
                    old = [first, second]
                    break
        if not old:
            return None
        if len(old) == 1:
            s, p, o = old[0]
            kept = tokens[s] if tokens[o] == var else tokens[o]
            if kept != place and self._holds([var, "a", cls, ".", *(tokens[i] for i in old[0])]):
                return None  # the language joins the class's members itself ("Spanish novels")
        link = self._place_link(var, ("a", cls), place)
        middle = {tokens[i] for t in old for i in t if tokens[i].startswith("?")} - {var}
        was = {tuple("?_in" if tokens[i] in middle else tokens[i] for i in t) for t in old}
        if link is None or was == {tuple(link[i : i + 3]) for i in range(0, len(link), 4)}:
            return None  # the query joins them so already
        spans = sorted(old)
        first_at, last_at = spans[0][0], spans[-1][2]
        if len(spans) == 2 and spans[1][0] != spans[0][2] + 2:
            return None  # the chain's two patterns are not next to each other
        new = [*tokens[:first_at], *link, *tokens[last_at + 1 :]]
        typed = typed_by(new, cls, self.prefixes)
        return typed if typed is not None else new

    def _place_link(self, var: str, kind: tuple[str, str], place: str) -> list[str] | None:
        """The patterns that join `var`, a thing of its `kind` (`?_m P O`: `("a", cls)` for a member of a
        class, `(ont:occupation, res:Chemist)` for a chemist), to `place` by the thing's own facts as the
        KB most often does (an adjective says what the thing itself is, not what points to it): one
        fact, else two through an element between; None when no such thing reaches the place so. Looked
        up once per kind and place (every hypothesis of a question asks the same)."""
        if (kind, place) not in self._links:
            if len(self._links) >= HELD_KEPT:  # a server's repairer meets classes and places without end
                self._links.clear()
            self._links[(kind, place)] = self._most_used_link(kind, place)
        link = self._links[(kind, place)]
        return None if link is None else [var if t == "?_m" else t for t in link]

    def _most_used_link(self, kind: tuple[str, str], place: str) -> list[str] | None:
        """`_place_link` for the variable `?_m`, by two GROUP BY queries at most."""
        for chain in (["?_m", "?_p", place], ["?_m", "?_p", "?_in", ".", "?_in", "?_q", place]):
            picked = [v for v in ("?_p", "?_q") if v in chain]
            answer = self._query(
                detokenize(
                    ["select", *picked, "(", "count", "(", "distinct", "?_m", ")", "as", "?_n", ")",
                     "where", "{", "?_m", *kind, ".", *chain, "}", "group", "by", *picked,
                     "order", "by", "desc", "(", "?_n", ")", "limit", "1"],
                    self.prefixes,
                )
            )  # fmt: skip
            rows = answer.rows if answer.ok else []
            if rows and all(v is not None for v in rows[0][: len(picked)]):
                props = dict(zip(picked, (token_of(v, self.prefixes) for v in rows[0]), strict=False))
                return [props.get(t, t) for t in chain]
        return None

    def role_of_place(self, units: Sequence[str], said: Said, counted: bool) -> tuple[list[str], str] | None:
        """The things a question asks for by a role right after a place adjective ("French chemists", "how
        many american physicists are there"): those that have the role's entity (`res:Chemist`, a common
        noun the question says in the plural) as a value, by the property most things have it by
        (`?x ont:occupation res:Chemist`), joined to the place as the KB most often joins them
        (nationality), counted when the question asks how many; None unless the noun the question asks
        with is such an adjective and such a role, and no class of the units is named by its word."""
        noun = said.asked_noun()
        if len(noun) < 2 or self.index is None:
            return None
        adjective, plural = noun[0], noun[1]
        roles = [u for u in dict.fromkeys(units) if self._kind(u) == "entity" and self._role_said(u, plural)]
        places = [
            u for u in dict.fromkeys(units) if self._kind(u) == "entity" and adjective in said.place_words(u)
        ]
        classes = [u for u in units if self._kind(u) == "class" and self.named_by_head(u, plural)]
        if len(roles) != 1 or len(places) != 1 or classes or not self._is_place(places[0]):
            return None  # a class named so ("italian painters") is the kind asked for: `place_adjective_read`
        role, place = roles[0], places[0]
        holder = self._held_by(role)
        link = self._place_link("?x", (holder, role), place) if holder is not None else None
        if holder is None or link is None:
            return None
        head = answer_head(counted)
        body = ["where", "{", "?x", holder, role, ".", *link, "}"]
        return [*head, *body], f"{plural} ({role}) of {place} ('{adjective}')"

    def origin_asked(self, units: Sequence[str], said: Said) -> tuple[list[str], str] | None:
        """What "Where are AC/DC from?" and "where do U2 come from" ask: the one property by which the KB
        places the one entity the question names between "where" and "from" (`res:AC_DC ont:hometown
        ?x`): its only property whose values are places. None when the question asks otherwise, names
        more than that entity ("Where is Dave Grohl's band from?"), or the KB places it by several
        properties (a person's birthplace and nationality) or none."""
        words = said.text.split()
        if words[:1] != ["where"] or words[-1:] != ["from"] or self.index is None:
            return None
        content = {i for i in range(1, len(words) - 1) if words[i] not in _ORIGIN_WORDS}
        named = [
            u
            for u in dict.fromkeys(units)
            if self._kind(u) == "entity"
            and any(
                a > 0 and b < len(words) and content <= set(range(a, b)) for a, b in said.spans_in_full(u)
            )
        ]
        if len(named) != 1:
            return None
        entity = named[0]
        placing = self.placing_properties(entity)
        if len(placing) != 1:
            return None
        return [
            "select",
            "distinct",
            "?x",
            "where",
            "{",
            entity,
            placing[0],
            "?x",
            "}",
        ], f"where {entity} is from"

    def placing_properties(self, entity: str) -> list[str]:
        """The properties by which the KB gives `entity` a place (`_is_place`): a band's hometown, not its
        members; a person's birthplace and nationality."""
        answer = self._query(
            detokenize(
                ["select", "distinct", "?_p", "?_v", "where", "{", entity, "?_p", "?_v", ".",
                 "filter", "(", "isiri", "(", "?_v", ")", ")", "}", "limit", "50"],
                self.prefixes,
            )
        )  # fmt: skip
        placing = (
            token_of(p, self.prefixes)
            for p, v in (answer.rows if answer.ok else [])
            if p is not None and v is not None and self._is_place(token_of(v, self.prefixes) or "")
        )
        return [p for p in dict.fromkeys(placing) if p is not None]

    def _role_said(self, entity: str, word: str) -> bool:
        """Whether `word` says the plural of the entity's one-word label, a common noun, or misspells it
        ("physisists": physicist); not the label itself ("which American chemist": one of them)."""
        label = self.index.label(entity) if self.index is not None else None
        if not label or " " in label or not is_common_noun(label):
            return False
        return (
            word != label.lower()
            and word.endswith("s")
            and any(misspelt(word, p) for p in head_plurals(label))
        )

    def _held_by(self, entity: str) -> str | None:
        """The property most things have `entity` as a value of (`ont:occupation` for res:Chemist)."""
        answer = self._query(
            detokenize(
                ["select", "?_p", "(", "count", "(", "distinct", "?_s", ")", "as", "?_n", ")", "where", "{",
                 "?_s", "?_p", entity, "}", "group", "by", "?_p", "order", "by", "desc", "(", "?_n", ")",
                 "limit", "1"],
                self.prefixes,
            )
        )  # fmt: skip
        rows = answer.rows if answer.ok else []
        return token_of(rows[0][0], self.prefixes) if rows and rows[0][0] is not None else None

    def within_the_place(self, tokens: Sequence[str], said: Said | None) -> tuple[list[str], str] | None:
        """`tokens` with a pattern `S P E` that no fact has (E is never a value of P) read through what
        P's values lie in, when the question says P: "writers born in ireland" decoded as `?x
        ont:birthPlace res:Ireland` (birth places are cities) made `?x ont:birthPlace ?_in . ?_in
        ont:country res:Ireland`, by the one property joining P's values to E, both places. None when
        every such pattern has facts, or not one property joins them, or they are no places ("films
        directed from South Shields": directors are people)."""
        if said is None or tokens[:1] != ["select"]:
            return None  # an ASK false for its place says no, or is turned by the rules for asks
        types = token_types(list(tokens), self.prefixes)
        for _, p, o in triple_patterns(tokens, types):
            prop, place = tokens[p], tokens[o]
            if types[p] != TokenType.URI or self._kind(place) != "entity" or "?_in" in tokens:
                continue
            if not said.words(prop) or not self._is_place(place) or self._holds(["?_s", prop, place]):
                continue
            query = ["select", "?_q", "?_m", "where", "{", "?_s", prop, "?_m", ".", "?_m", "?_q", place, "}"]
            found = self._query(detokenize([*query, "limit", "50"], self.prefixes))
            rows = [
                (token_of(q, self.prefixes), token_of(m, self.prefixes)) for q, m in found.rows if q and m
            ]
            links = list(dict.fromkeys(q for q, _ in rows if q))
            if len(links) != 1 or not self._is_place(rows[0][1] or ""):
                continue
            new = [*tokens[:o], "?_in", ".", "?_in", links[0], place, *tokens[o + 1 :]]
            return new, f"{place} as what {prop}'s values lie in, by {links[0]}"
        return None

    def people_of_place(self, tokens: Sequence[str], said: Said) -> tuple[list[str], str] | None:
        """`S P ?_n . ?_n N C`: the query's fact `S P C` of a place the question names by its people
        ("Which chemical elements are named after Russians?" decoded as named after Russia) stated of
        people of that nationality (`N`: the property the index names "nationality"); None when the
        question names no place so, or the KB has no such property."""
        nationality = self.property_named("nationality")
        if nationality is None:
            return None
        words = said.text.split()
        for _, p, o in triple_patterns(tokens, token_types(tokens, self.prefixes)):
            place = tokens[o]
            label = normalize(self.index.label(place) or "") if self._kind(place) == "entity" else ""
            people = [w for w in words if label and w.endswith("s") and label in place_names(w[:-1])]
            if tokens[p] not in ("a", nationality) and people:
                person = next(v for v in ("?_n", "?_n1", "?_n2") if v not in tokens)
                return [*tokens[:o], person, ".", person, nationality, place, *tokens[o + 1 :]], (
                    f"{tokens[p]} of people of {place} ('{people[0]}')"
                )
        return None

    def place_past_said(
        self, units: Sequence[str], said: Said, cls: str | None
    ) -> tuple[list[str], str] | None:
        """The thing of the class asked for that the place a named thing has by a property the question
        says lies in ("Which US state was Elvis born in?": his birthplace's state; "In which country is
        Nokia headquartred?": its headquarters' country), when that property's values are no things of
        the class and no such thing has the named one as a value (the one-fact readings answer nothing:
        "cities located in California"), and one fact leads from them to such a thing, other than the
        named one. None unless the question names one thing and says one property (besides the class's
        name; others only by its words) that leads from it to a thing, and one such fact leads on."""
        named = self.named_entities(said, units) if cls is not None and self.index is not None else []
        if cls is None or len(named) != 1:
            return None
        entity = named[0]
        class_words = {w for name in self._class_names(cls) for w in name}
        leading = [  # said, besides the class's name, and leading from the named thing to a thing
            u
            for u in dict.fromkeys(units)
            if self._kind(u) == "property"
            and said.words(u) - class_words
            and self._holds([entity, u, "?_y", ".", "?_y", "?_p", "?_o"])
        ]
        if len(leading) != 1:
            return None
        prop = leading[0]
        others = (said.words(u, specific=True) - class_words for u in units if self._kind(u) == "property")
        if any(not words <= said.words(prop) for words in others):
            return None  # "the country of the birth place of The Stranger's author": a longer chain
        if self._holds([entity, prop, "?_y", ".", "?_y", "a", cls]) or self._holds(
            ["?_y", "a", cls, ".", "?_y", "?_p", entity]  # "cities located in California"
        ):
            return None
        answer = self._query(
            detokenize(
                ["select", "distinct", "?_q", "where", "{", entity, prop, "?_y", ".", "?_y", "?_q", "?_x", ".",
                 "?_x", "a", cls, ".", "filter", "(", "?_x", "!=", entity, ")", "}", "limit", "3"],
                self.prefixes,
            )
        )  # fmt: skip
        further = [token_of(row[0], self.prefixes) for row in answer.rows if row[0]] if answer.ok else []
        if len(further) != 1:
            return None
        body = [entity, prop, "?y", ".", "?y", further[0], "?x", ".", "?x", "a", cls]
        return ["select", "distinct", "?x", "where", "{", *body, "}"], f"the {cls} {entity}'s {prop} lies in"
