"""Yes/no questions about two named entities, for repair (inference/repair.py).

A model reads "Is Mount Teide in Portugal?" as whether Teide has a label, "Is Mimas one of Saturn's
moons?" as whether Saturn is a moon, "mimas goes around jupiter?" as a list of what Mimas's discoverer
found: it leaves one of the two entities out, or types the wrong one. What such a question asks is
whether the KB links the two, and how: by a fact between them ("yes"), else by nothing ("no", asked by
the property that links one to things of the other's kind, so that the query reads as the question).

Questions of two named things' values are here too: whether they have the same one ("Are Adidas and Puma
based in the same town?", "the same year"), a fact of each of things named side by side ("the founders of
Adidas and Puma", "are huawei and tencent both based in shenzhen"), and a fact of some of a named group's
members ("How many of the Beatles were born in Liverpool?"). A model trained on the generator's questions
writes none of these shapes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from nmt_sparql.annotation.linking.sources import token_of
from nmt_sparql.annotation.linking.wordforms import is_verb_form
from nmt_sparql.inference.comparisons import before_close
from nmt_sparql.inference.expected_answer import AUXILIARIES, QUESTION_WORDS, one_edit_from
from nmt_sparql.inference.kb_reading import HELD_KEPT, KBReader
from nmt_sparql.inference.said import Said
from nmt_sparql.sparql.patterns import answer_variable, braces, triple_patterns
from nmt_sparql.sparql.tokens import TokenType, detokenize, token_types

# Words that make a question of a statement, or a request of it (`stated_of_two`).
_REQUESTS = frozenset({"list", "name", "give", "show", "find", "count", "tell"})
# Two things asked to have one value of a property ("born in the same town", "the same year as"): `shared_value`.
_SAME = re.compile(r"\bsame\b", re.IGNORECASE)
_SAME_YEAR = re.compile(r"\bsame (year|day|date)\b", re.IGNORECASE)
_SAME_AS = re.compile(r"\bsame\b.*\bas\b", re.IGNORECASE)
# Words that ask whether two things share a value, not whether each has one (`_each_asked`).
_SHARED = re.compile(r"\b(?:same|common|share|shared|between|border)\b", re.IGNORECASE)
# Words that ask for a value two things have in common (`_pooled`).
_SHARED_VALUE = re.compile(r"\b(?:both|same|common|share|shared|shares)\b", re.IGNORECASE)
# Words that ask what two things share, or of both at once: not a fact of each (`coordinated`).
_TOGETHER = re.compile(r"\b(?:both|same|common|share|shared|together|between|border)\b", re.IGNORECASE)


class NamedPairs(KBReader):
    """Yes/no questions about two named entities of one KB (see the module docstring)."""

    def shared_value(
        self, tokens: Sequence[str], question: str, said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """A pattern that makes one thing the other's value (`res:Puma ont:headquarters res:Adidas`) read
        as both having one value, when the question asks whether they have the same ("Are Adidas and Puma
        based in the same town?": `res:Adidas ont:headquarters ?_same . res:Puma ont:headquarters
        ?_same`), and a SELECT's answer valued by a named entity (`?x ont:birthPlace res:Mick_Jagger`)
        read as the things with that entity's value, the entity left out ("which films came out the same
        year as Alien"), as is the entity's value asked for where the question says "same ... as" ("who
        was born in the same city as Mick Jagger" read as Mick Jagger's birth place). A model writes no
        such query: training asks no question of two things' values. Only entities the question names
        are read so, and only where the second never is a value of the property (a company is no
        headquarters; a person may be a spouse); None when nothing changes."""
        if said is None or not _SAME.search(question) or not tokens or tokens[0] not in ("ask", "select"):
            return None
        types = token_types(tokens, self.prefixes)
        named = self.named_entities(said, units)
        answer = answer_variable(tokens, types)
        if same := _SAME_YEAR.search(question):
            year = "year" if same.group(1).lower() == "year" else None
            timed = self._same_year(tokens, types, named, answer, units, year)
            if timed is not None:
                return timed
        for s, p, o in triple_patterns(tokens, types):
            prop, one, other = tokens[p], tokens[s], tokens[o]
            if prop == "a" or self._kind(prop) != "property" or other not in named or one == other:
                continue
            if self._holds(["?_v", prop, other]):  # `res:Charles_Darwin ont:spouse res:Emma_Darwin` may hold
                continue
            both = [one, prop, "?_same", ".", other, prop, "?_same"]
            if tokens[0] == "ask" and one in named:
                note = f"{one} and {other} asked to have the same value of {prop} (the question says 'same')"
                return [*tokens[:s], *both, *tokens[o + 1 :]], note
            if tokens[0] == "select" and one == answer:
                note = f"things with the value of {prop} that {other} has (the question says 'same')"
                unequal = ["filter", "(", one, "!=", other, ")"]
                return [*tokens[:s], *both, *unequal, *tokens[o + 1 :]], note
        if tokens[0] != "select" or not _SAME_AS.search(question):
            return None
        for s, p, o in triple_patterns(
            tokens, types
        ):  # `res:Mick_Jagger ont:birthPlace ?x`: "as Mick Jagger"
            prop, one, other = tokens[p], tokens[s], tokens[o]
            if other != answer or one not in named or prop == "a" or self._kind(prop) != "property":
                continue
            note = f"things with the value of {prop} that {one} has (the question says 'same ... as')"
            unequal = ["filter", "(", other, "!=", one, ")"]
            both = [other, prop, "?_same", ".", one, prop, "?_same", *unequal]
            return [*tokens[:s], *both, *tokens[o + 1 :]], note
        return None

    def _same_year(
        self,
        tokens: Sequence[str],
        types: Sequence[TokenType],
        named: Sequence[str],
        answer: str | None,
        units: Sequence[str],
        year: str | None,
    ) -> tuple[list[str], str] | None:
        """ "the same year" (`year`; None: "the same day") of two things, or of the things asked for and a
        named one, by a property whose values are dates or years: the pattern's own, else the one of the
        question's units that each named thing has ("did Phobos and Deimos get discovered in the same
        year" decoded by discoverer: discovery year). For a year, full dates are compared by their years
        (`year ( ?_a ) = year ( ?_b )`). None when no pattern joins the two or no such property is there."""
        for s, p, o in triple_patterns(tokens, types):
            one, other = tokens[s], tokens[o]
            asked = tokens[0] == "ask" and one in named and other in named and one != other
            listed = (
                tokens[0] == "select" and answer in (one, other) and {one, other} - {answer} <= set(named)
            )
            if tokens[p] == "a" or not (asked or listed):
                continue
            things = [one, other] if asked else [answer, other if one == answer else one]
            props = [tokens[p], *(u for u in units if u != tokens[p] and self._kind(u) == "property")]
            timed = [
                prop
                for prop in props
                if self._kind(prop) == "property"
                and self.values_are_dates(prop)
                and all(self._holds([t, prop, "?_v"]) for t in things if t in named)
            ]
            if not timed:
                continue
            prop, (a, b) = timed[0], things
            if year is None or all("number" in k for k in self._value_kinds(prop)):  # one value
                both = [a, prop, "?_same", ".", b, prop, "?_same"]
                test = []
            else:
                both = [a, prop, "?_a", ".", b, prop, "?_b"]
                test = ["year", "(", "?_a", ")", "=", "year", "(", "?_b", ")"]
            if listed:
                test = [*test, "&&", a, "!=", b] if test else [a, "!=", b]
            kept = ["filter", "(", *test, ")"] if test else []
            note = f"{a} and {b} asked to have the same {year or 'date'} of {prop} (the question says 'same')"
            return [*tokens[:s], *both, *kept, *tokens[o + 1 :]], note
        return None

    def coordinated(
        self, tokens: Sequence[str], question: str, said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """A SELECT that reads a fact of one of two or more entities the question names side by side ("who
        founded Adidas and Puma", "the currencies of denmark, norway and sweden") and leaves the others
        out, read of each (`values ?_each { res:Adidas res:Puma } ?_each ont:founder ?x`), when they share
        a class with it and have the fact too. Where they are the fact's value ("films Kubrick and
        Spielberg directed"), only when no thing has it of all: those are what the question asks for,
        as "both", "same" or "between" say of any two ("rivers through Germany and Austria"), which
        this leaves to the readings that join the two. An ASK is asked of each (`_each_asked`). None when
        nothing changes."""
        if said is not None and tokens[:1] == ["ask"] and not _SHARED.search(question):
            return self._each_asked(tokens, said, units)
        if said is None or not tokens or tokens[0] != "select":
            return None
        types = token_types(tokens, self.prefixes)
        pooled = self._pooled(tokens, types, question, said, units)
        if pooled is not None or _TOGETHER.search(question):
            return pooled
        for group in self._side_by_side(said, self.named_entities(said, units)):
            said_in_query = [e for e in group if e in tokens]
            if len(said_in_query) != 1 or tokens.count(said_in_query[0]) != 1 or "{" not in tokens:
                continue
            one = said_in_query[0]
            others = [e for e in group if e != one]
            at = tokens.index(one)
            found = [t for t in triple_patterns(tokens, types) if at in (t[0], t[2]) and tokens[t[1]] != "a"]
            if not found or not self._share_a_class(one, others):
                continue
            s, p, o = found[0]
            prop, value = tokens[p], tokens[o] if at == s else tokens[s]
            if not all(self._holds([e, prop, "?_v"] if at == s else ["?_v", prop, e]) for e in others):
                continue
            if at == o and self._holds([t for e in group for t in (value, prop, e, ".")][:-1]):
                continue
            start = tokens.index("{") + 1
            body = ["?_each" if i == at else t for i, t in enumerate(tokens[start:], start)]
            note = f"read of each of {', '.join(group)}, named side by side"
            return [*tokens[:start], "values", "?_each", "{", *group, "}", *body], note
        return None

    def _pooled(
        self, tokens: list[str], types: Sequence[TokenType], question: str, said: Said, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """A SELECT whose only patterns of entities named side by side give each the one value its answer
        takes (`res:Belgium ont:officialLanguage ?x . res:Luxembourg ont:officialLanguage ?x`, or one
        pattern written twice) read of each of them (`values ?_each { ... } ?_each ont:officialLanguage
        ?x`): "how many official languages do belgium, the netherlands and luxembourg have between them"
        asks for the languages of any of them; only "both", "same", "common" or "share" ask for a value
        they have in common. None when nothing changes."""
        if _SHARED_VALUE.search(question) or "{" not in tokens:
            return None
        patterns = triple_patterns(tokens, types)
        for group in self._side_by_side(said, self.named_entities(said, units)):
            own = [t for t in patterns if tokens[t[0]] in group or tokens[t[2]] in group]
            read = {(tokens[p], tokens[o]) for _, p, o in own}
            if (
                not own
                or len(read) != 1
                or any(tokens[o] in group or (p, o) != (s + 1, s + 2) for s, p, o in own)
            ):
                continue
            prop, value = read.pop()
            used = {tokens[s] for s, _, _ in own}
            if (
                types[own[0][2]] != TokenType.VARIABLE
                or prop == "a"
                or any(tokens.count(e) != sum(tokens[s] == e for s, _, _ in own) for e in used)
                or not all(self._holds([e, prop, "?_v"]) for e in group)
                or not self._share_a_class(group[0], group[1:])
            ):
                continue
            gone = {i for s, _, o in own[1:] for i in range(s, o + 1)}
            gone |= {s - 1 if tokens[s - 1] == "." else o + 1 for s, _, o in own[1:]} - {len(tokens) - 1}
            start = tokens.index("{") + 1
            body = [
                "?_each" if i == own[0][0] else t
                for i, t in enumerate(tokens)
                if i >= start and i not in gone
            ]
            note = f"{prop} read of each of {', '.join(group)}, named side by side"
            return [*tokens[:start], "values", "?_each", "{", *group, "}", *body], note
        return None

    def members_asked(
        self, tokens: Sequence[str], question: str, said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """A SELECT for a question that asks of some of a named entity's members ("How many of the Beatles
        were born in Liverpool?", "which of the beatles were born in liverpool") and leaves the entity out:
        its members (`res:The_Beatles ont:bandMember ?x`, by the property the entity most often has of
        things with the query's fact) that have the fact the query states of another named entity
        (`?x ont:birthPlace res:Liverpool`). None when the question asks of no member or nothing changes."""
        if said is None or tokens[:1] != ["select"]:
            return None
        group = self._partitive(said, self.named_entities(said, units))
        types = token_types(tokens, self.prefixes)
        answer = answer_variable(tokens, types)
        found = braces(tokens)
        if group is None or group in tokens or answer is None or found is None:
            return None
        for s, p, o in triple_patterns(tokens, types):
            prop, ends = tokens[p], (tokens[s], tokens[o])
            if (
                prop == "a"
                or self._kind(prop) != "property"
                or not {types[s], types[o]} >= {TokenType.VARIABLE}
            ):
                continue
            named = [e for e in ends if self._kind(e) == "entity"]
            if len(named) != 1:
                continue
            # the way round the KB holds it: the model may have written it the other way
            fact = (
                [answer, prop, named[0]] if self._holds(["?_v", prop, named[0]]) else [named[0], prop, answer]
            )
            link = self._group_link(group, fact)
            if link is None:
                continue
            new = [*tokens[: found[0] + 1], group, link, answer, ".", *fact, *tokens[found[1] :]]
            return (
                new,
                f"the members of {group} (by {link}) with {' '.join(fact)}: the question asks of some of them",
            )
        return None

    def _partitive(self, said: Said, named: Sequence[str]) -> str | None:
        """The named entity a question asks some of the members of, right after its question word and
        "of" ("how many of the Beatles", "which of Pink Floyd", "who of the Beatles"); None if none."""
        words = said.text.split()
        for entity in named:
            for start, _ in self._named_spans(said, entity):
                before = words[:start]
                if before[-1:] == ["the"]:
                    before = before[:-1]
                if before[-1:] == ["of"] and before[:-1] in (["how", "many"], ["which"], ["who"]):
                    return entity
        return None

    def _group_link(self, group: str, fact: Sequence[str]) -> str | None:
        """The property `group` most often has of things with `fact`'s property (`ont:bandMember` for a
        band and birth places), the answer variable of `fact` standing for those things; None if none."""
        having = ["?_m", fact[1], "?_any"] if fact[0].startswith("?") else ["?_any", fact[1], "?_m"]
        key = (group, *having)
        if key in self._group_links:  # every hypothesis of the question asks again
            return self._group_links[key]
        found = self._query(
            detokenize(
                ["select", "?_q", "(", "count", "(", "distinct", "?_m", ")", "as", "?_n", ")", "where", "{",
                 group, "?_q", "?_m", ".", *having, "}", "group", "by", "?_q", "order", "by", "desc", "(",
                 "?_n", ")", "limit", "1"],
                self.prefixes,
            )
        )  # fmt: skip
        link = (
            token_of(found.rows[0][0], self.prefixes)
            if found.ok and found.rows and found.rows[0][0]
            else None
        )
        if len(self._group_links) >= HELD_KEPT:
            self._group_links.clear()
        self._group_links[key] = link if link is not None and self._kind(link) == "property" else None
        return self._group_links[key]

    def _each_asked(
        self, tokens: Sequence[str], said: Said, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """An ASK about things the question names side by side ("are huawei and tencent both based in
        shenzhen", "are Mars and Venus planets") that reads a fact of one of them only, asked of each
        (its pattern written again for each other one, of its class); or that makes one the other's
        value where nothing ever is (`res:Huawei ont:headquarters res:Tencent`), asked of each with the
        one other thing the question names and the query leaves out. None when nothing changes."""
        types = token_types(tokens, self.prefixes)
        named = self.named_entities(said, units)
        patterns = triple_patterns(tokens, types)
        close = braces(tokens)
        if close is None:
            return None
        for group in self._side_by_side(said, named):
            used = [e for e in group if e in tokens]
            if len(used) == 1 and tokens.count(used[0]) == 1:
                one = used[0]
                found = [t for t in patterns if tokens.index(one) in (t[0], t[2])]
                others = [e for e in group if e != one]
                if not found or not self._share_a_class(one, others):
                    continue
                pattern = [tokens[i] for i in found[0]]
                copies = [t for e in others for t in (".", *[e if t == one else t for t in pattern])]
                note = f"asked of each of {', '.join(group)}, named side by side"
                return [*tokens[: close[1]], *copies, *tokens[close[1] :]], note
            left = [e for e in named if e not in tokens and e not in group]
            for s, p, o in patterns:
                a, prop, b = tokens[s], tokens[p], tokens[o]
                if {a, b} <= set(group) and a != b and len(left) == 1 and not self._holds(["?_v", prop, b]):
                    both = [a, prop, left[0], ".", b, prop, left[0]]
                    note = f"{a} and {b}, named side by side, each asked to have {prop} {left[0]}"
                    return [*tokens[:s], *both, *tokens[o + 1 :]], note
        return None

    def _share_a_class(self, one: str, others: Sequence[str]) -> bool:
        """Whether `one` shares a class with each of `others`: things of one kind, named side by side."""
        return all(self._holds([one, "a", "?_c", ".", other, "a", "?_c"]) for other in others)

    def _side_by_side(self, said: Said, named: Sequence[str]) -> list[list[str]]:
        """The lists of `named` entities the question says one right after the other, the last two joined
        by "and" or "plus", the others by a comma or "and" ("Adidas and Puma", "denmark, norway and
        sweden"; not "or", which asks to choose: "Uppsala or Copenhagen - which university is older?"),
        in the order said, longest first."""
        words = said.text.split()
        spans = {e: self._named_spans(said, e) for e in named}
        links: dict[str, list[tuple[str, bool]]] = {e: [] for e in named}  # entity -> (next, joined by "and")
        for one, other in itertools.permutations(named, 2):
            for (_, end), (start, _) in itertools.product(spans[one], spans[other]):
                between = [w for w in words[end:start] if w != "the"]
                if start >= end and between in ([], ["and"], ["plus"]):
                    links[one].append((other, bool(between)))
        lists: list[list[str]] = []

        def grow(chain: list[str]) -> None:
            for other, joined in links[chain[-1]]:
                if other not in chain:
                    if joined:
                        lists.append([*chain, other])
                    grow([*chain, other])

        for first in named:
            grow([first])
        return sorted(lists, key=len, reverse=True)

    def _named_spans(self, said: Said, entity: str) -> list[tuple[int, int]]:
        """Where the question names `entity`: in full, or by a name within it ("Kubrick")."""
        parts = said.names_within(entity)
        words = said.text.split()
        return [*said.spans_in_full(entity), *((i, i + 1) for i, w in enumerate(words) if w in parts)]

    def stated_of_two(self, question: str, said: Said | None, units: Sequence[str]) -> bool:
        """Whether `question` is a statement about two named entities asked as a question ("mimas goes
        around jupiter?", "Kubrick directed The Shining?"): it ends with "?", has no question word, opens
        with one entity's name and a verb (its third person or its past, or an auxiliary), and names the
        other after it; a noun phrase ("saturn moons?") has no such verb."""
        if said is None or not question.rstrip().endswith("?"):
            return False
        words = said.text.split()
        named = self.named_entities(said, units)
        asking = {one_edit_from(w, QUESTION_WORDS) for w in words}  # "waht": what
        if len(named) != 2 or QUESTION_WORDS & asking or words[:1] and words[0] in _REQUESTS:
            return False

        opening = int(words[:1] == ["the"])
        for one, other in itertools.permutations(named):
            for start, end in self._named_spans(said, one):
                verb = words[end] if end < len(words) else ""
                later = any(s > end for s, _ in self._named_spans(said, other))
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

    def _free_variable(self, tokens: Sequence[str], types: Sequence[TokenType], entity: str) -> str | None:
        """The one variable of a query that a single triple pattern reads as its subject or object and
        nothing else does (`?x` of `ask { ?x ont:discoverer res:William_Herschel }`), when things of a
        class of `entity`'s take that place of the property in the KB: it stands for anything, so it
        may stand for the thing the question names; None for none, several, or a place that holds
        values of another kind (a year)."""
        free = [
            (tokens[i], tokens[p], i == s)
            for s, p, o in triple_patterns(tokens, types)
            for i in (s, o)
            if types[i] == TokenType.VARIABLE and list(tokens).count(tokens[i]) == 1
        ]
        if len(free) != 1 or self._kind(free[0][1]) != "property":
            return None
        variable, prop, subject = free[0]
        place = ["?_v", prop, "?_o"] if subject else ["?_o", prop, "?_v"]
        fits = self._holds([*place, ".", "?_v", "a", "?_c", ".", entity, "a", "?_c"])
        return variable if fits else None

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
        Verdi?" as `res:Tosca ont:genre res:Opera`) with that one joined: in the place of an entity's
        variable that no other part of the query reads ("did herschel discover titan" as `?x
        ont:discoverer res:William_Herschel`: whether he discovered anything), else by the fact the KB
        links it to an entity of the query by, else `S P L` by the property that most often links the
        query's subject S to things of its kind (`res:Tosca ont:composer res:Giuseppe_Verdi`: "no"). What
        the question says of the one left out is part of what it asks. None unless exactly one named
        entity is left out."""
        if tokens[:1] != ["ask"] or said is None or self.index is None:
            return None
        types = token_types(list(tokens), self.prefixes)
        used = [
            t for t, k in zip(tokens, types, strict=True) if k == TokenType.URI and self._kind(t) == "entity"
        ]
        names = said.names_used(tokens)  # "Oxford" within the University of Oxford's name is no other one
        left = [u for u in self.named_entities(said, units) if u not in tokens and not said.inside(u, names)]
        if len(left) != 1:
            return None
        out = left[0]
        free = self._free_variable(tokens, types, out)
        if free is not None:  # "did herschel discover titan" as whether Herschel discovered anything
            named = [out if t == free else t for t in tokens]
            return named, f"{out} in the place of {free}, which nothing else reads"
        subjects = [tokens[s] for s, _, _ in triple_patterns(tokens, types) if tokens[s] in used]
        if not subjects:
            return None
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
