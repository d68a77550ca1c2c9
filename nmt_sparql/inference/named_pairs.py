"""Yes/no questions about two named entities, for repair (inference/repair.py).

A model reads "Is Mount Teide in Portugal?" as whether Teide has a label, "Is Mimas one of Saturn's
moons?" as whether Saturn is a moon, "mimas goes around jupiter?" as a list of what Mimas's discoverer
found: it leaves one of the two entities out, or types the wrong one. What such a question asks is
whether the KB links the two, and how: by a fact between them ("yes"), else by nothing ("no", asked by
the property that links one to things of the other's kind, so that the query reads as the question).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from nmt_sparql.annotation.linking.sources import token_of
from nmt_sparql.inference.asked_order import is_verb_form
from nmt_sparql.inference.comparisons import before_close
from nmt_sparql.inference.expected_answer import AUXILIARIES, one_edit_from
from nmt_sparql.inference.kb_reading import KBReader
from nmt_sparql.inference.said import Said
from nmt_sparql.sparql.patterns import triple_patterns
from nmt_sparql.sparql.tokens import TokenType, detokenize, token_types

# Words that make a question of a statement, or a request of it (`stated_of_two`).
_QUESTION_WORDS = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "how", "why"})
_REQUESTS = frozenset({"list", "name", "give", "show", "find", "count", "tell"})


class NamedPairs(KBReader):
    """Yes/no questions about two named entities of one KB (see the module docstring)."""

    def stated_of_two(self, question: str, said: Said | None, units: Sequence[str]) -> bool:
        """Whether `question` is a statement about two named entities asked as a question ("mimas goes
        around jupiter?", "Kubrick directed The Shining?"): it ends with "?", has no question word, opens
        with one entity's name and a verb (its third person or its past, or an auxiliary), and names the
        other after it; a noun phrase ("saturn moons?") has no such verb."""
        if said is None or not question.rstrip().endswith("?"):
            return False
        words = said.text.split()
        named = self.named_entities(said, units)
        asking = {one_edit_from(w, _QUESTION_WORDS) for w in words}  # "waht": what
        if len(named) != 2 or _QUESTION_WORDS & asking or words[:1] and words[0] in _REQUESTS:
            return False

        def spans(entity: str) -> list[tuple[int, int]]:  # in full, or by a name within ("Kubrick")
            parts = said.names_within(entity)
            return [*said.spans_in_full(entity), *((i, i + 1) for i, w in enumerate(words) if w in parts)]

        opening = int(words[:1] == ["the"])
        for one, other in itertools.permutations(named):
            for start, end in spans(one):
                verb = words[end] if end < len(words) else ""
                later = any(s > end for s, _ in spans(other))
                if start == opening and later and (verb in AUXILIARIES or is_verb_form(verb, ("VBZ", "VBD"))):
                    return True
        return False

    def asked_of_the_two(
        self, hypotheses: Sequence[Sequence[str]], said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """The ASK a yes/no question about two named entities asks when no hypothesis is an ASK that
        names two things (`_joins_two`; "Is Mount Teide in Portugal?" decoded as whether Teide has a
        label), with what it reads: whether the KB links the two by a fact (a property of the units
        first), else by a fact with a namesake of one of them the question's property takes
        (`_said_fact_of_namesake`), else `A P B` by the property that most often links A to things of B's
        class, or B to A's ("no": the KB links them by nothing). None for a question that names other
        than two."""
        if said is None or self.index is None:
            return None
        named = self.named_entities(said, units)
        if len(named) != 2 or any(h[:1] == ["ask"] and self._joins_two(h) for h in hypotheses):
            return None
        a, b = named
        fact = self.fact_between(a, b, units)
        if fact is not None:
            return ["ask", "where", "{", *fact, "}"], f"{' '.join(fact)}, a fact"
        said_fact = self._said_fact_of_namesake(a, b, said, units)
        if said_fact is not None:
            return said_fact
        found = [(s, p, o) for s, o in ((a, b), (b, a)) for p in self._links_to_kind(s, o)]
        if not found:
            return None
        s, prop, o = next((f for f in found if f[1] in units), found[0])
        return [
            "ask",
            "where",
            "{",
            s,
            prop,
            o,
            "}",
        ], f"{s} {prop} {o}, as {s} is linked to things of {o}'s kind"

    def _said_fact_of_namesake(
        self, a: str, b: str, said: Said, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """`A P B'`, a fact the KB holds, by a property P the question says of one of the two named things
        and B' a namesake that takes B's place with P ("Franklin studied at Cambridge?": the University of
        Cambridge, not the city, is where people study); None for none."""
        said_props = [u for u in dict.fromkeys(units) if self._kind(u) == "property" and said.words(u)]
        for prop, (s, o) in itertools.product(said_props, ((a, b), (b, a))):
            alike = self.named_alike(o, prop, False, said)
            if alike is not None and self._holds([s, prop, alike]):
                note = f"{s} {prop} {alike}, a fact ({o} read as {alike})"
                return ["ask", "where", "{", s, prop, alike, "}"], note
        return None

    def _joins_two(self, tokens: Sequence[str]) -> bool:
        """Whether a query names two entities, or one and a value (`res:Saturn ont:orderFromSun 5`): the
        model's own reading of a question about two things ("Did Hubble study at Oxford?" with the
        university where the question's word also names the city)."""
        types = token_types(list(tokens), self.prefixes)
        named = {
            t for t, k in zip(tokens, types, strict=True) if k == TokenType.URI and self._kind(t) == "entity"
        }
        return len(named) > 1 or bool(named) and TokenType.LITERAL in types

    def _links_to_kind(self, entity: str, other: str) -> list[str]:
        """The properties that link `entity` to things of a class of `other`'s, most used first."""
        answer = self._query(
            detokenize(
                ["select", "?_p", "(", "count", "(", "*", ")", "as", "?_n", ")", "where", "{",
                 entity, "?_p", "?_x", ".", "?_x", "a", "?_c", ".", other, "a", "?_c", "}",
                 "group", "by", "?_p", "order", "by", "desc", "(", "?_n", ")", "limit", "5"],
                self.prefixes,
            )
        )  # fmt: skip
        props = [token_of(row[0], self.prefixes) for row in answer.rows if row[0]] if answer.ok else []
        return [p for p in props if p not in ("a", "rdf:type")]

    def member_of_named(
        self, tokens: list[str], said: Said | None, units: Sequence[str]
    ) -> list[tuple[list[str], str]]:
        """An ASK that types a named entity by a class it is not of ("Is Mimas one of Saturn's moons?" as
        `res:Saturn a ont:Moon`) while the question names one other entity of that class: the fact the KB
        links the two by, the question's own property first, with what changed. The question asks
        whether the one of that class is among the other's; "Saturn is no moon" is no answer to it, and a
        "no" stands when the KB links the two by nothing."""
        if tokens[:1] != ["ask"] or said is None or self.index is None:
            return []
        types = token_types(tokens, self.prefixes)
        named = self.named_entities(said, units)
        out = []
        for s, p, o in triple_patterns(tokens, types):
            entity, cls = tokens[s], tokens[o]
            if tokens[p] != "a" or entity not in named or self._holds([entity, "a", cls]):
                continue
            members = [u for u in named if u != entity and self._holds([u, "a", cls])]
            fact = self.fact_between(members[0], entity, units) if len(members) == 1 else None
            if fact is None:
                continue
            new = [*tokens[:s], *fact, *tokens[o + 1 :]]
            out.append((new, f"{entity} a {cls} -> {' '.join(fact)}: {members[0]} is the {cls}"))
        return out

    def named_left_out_of_ask(
        self, tokens: Sequence[str], said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """An ASK of named entities that leaves out one more the question names ("Is Tosca an opera by
        Verdi?" as `res:Tosca ont:genre res:Opera`) with that one joined: by the fact the KB links it to an
        entity of the query by, else `S P L` by the property that most often links the query's subject S to
        things of its kind (`res:Tosca ont:composer res:Giuseppe_Verdi`: "no"). What the question says of
        the one left out is part of what it asks. None unless exactly one named entity is left out."""
        if tokens[:1] != ["ask"] or said is None or self.index is None:
            return None
        types = token_types(list(tokens), self.prefixes)
        used = [
            t for t, k in zip(tokens, types, strict=True) if k == TokenType.URI and self._kind(t) == "entity"
        ]
        names = said.names_used(tokens)  # "Oxford" within the University of Oxford's name is no other one
        left = [u for u in self.named_entities(said, units) if u not in tokens and not said.inside(u, names)]
        subjects = [tokens[s] for s, _, _ in triple_patterns(tokens, types) if tokens[s] in used]
        if len(left) != 1 or not subjects:
            return None
        out = left[0]
        for entity in dict.fromkeys(used):
            fact = self.fact_between(entity, out, units)
            if fact is not None:
                return before_close(tokens, [".", *fact]), f"{out} joined: {' '.join(fact)}, a fact"
        found = self._links_to_kind(subjects[0], out)
        if not found:
            return None
        prop = next((f for f in found if f in units), found[0])
        return (
            before_close(tokens, [".", subjects[0], prop, out]),
            f"{out} joined: {subjects[0]} {prop} {out}, as {subjects[0]} is linked to things of its kind",
        )
