"""Rewrites that compare and rank by measures: what repair (inference/repair.py) does with the
numbers and dates a question compares or ranks.

A comparison with an entity is made with its value (`filter ( ?v > res:Danube )` compares with
`res:Danube ont:length ?_than`); an ASK that reads a value and tests nothing ("Is the Thames longer than
the Tiber?") compares it with the entity's, or the number's, the question says; a number a pattern takes
as its value ("before 1930") becomes a comparison; a count of a measure's values asks for the values; a
choice between two named entities ("Who is older, A or B?") ranks the two. What a ranking or comparison
can use is a measured property of the question's units, else the one measure of the class asked for,
else the one measure every answer has (`_measures`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from nmt_sparql.annotation.linking.index import QUALIFIER, misspelt, normalize
from nmt_sparql.data.wording import PLACE_WORDS
from nmt_sparql.inference.asked_order import (
    Asked,
    Span,
    ascending,
    ascending_in_order,
    asked,
    asked_orders,
    asked_span,
    graded_lemma,
    inclusive_bounds,
    measured_by_unit,
    nearest_kept,
    ordered_variable,
    plain_number,
    said_bounds,
    said_numbers,
    without_positions,
)
from nmt_sparql.inference.expected_answer import expected_answer
from nmt_sparql.inference.kb_reading import KBReader, element_name
from nmt_sparql.inference.said import Said
from nmt_sparql.sparql.patterns import answer_variable, braces, closing, compared_variables, triple_patterns
from nmt_sparql.sparql.tokens import NUMBER, TokenType, detokenize, literal_value, token_types


def before_close(tokens: Sequence[str], added: Sequence[str]) -> list[str]:
    """`tokens` with `added` put before the last closing brace: the end of a query's patterns."""
    close = len(tokens) - 1 - list(tokens)[::-1].index("}")
    return [*tokens[:close], *added, *tokens[close:]]


def uncounted(tokens: Sequence[str]) -> list[str] | None:
    """A COUNT of one variable (`select ( count ( distinct ?x ) as ?c ) where { ... }`) as the list of what it
    counts (`select distinct ?x where { ... }`); None for any other query, or one that groups. WHERE
    is optional in SPARQL, and a model may leave it out."""
    if tokens[:4] != ["select", "(", "count", "("] or ")" not in tokens[4:] or "group" in tokens:
        return None
    counted = [t for t in tokens[4 : tokens.index(")", 4)] if t.startswith(("?", "$"))]
    if len(counted) != 1 or "{" not in tokens:
        return None
    return ["select", "distinct", counted[0], "where", *tokens[tokens.index("{") :]]


def fresh_value(tokens: Sequence[str]) -> str:
    """A variable for a value the query does not use yet: `?v`, else `?_value`."""
    return "?v" if "?v" not in tokens else "?_value"


# The words that join the two of a choice: at the question's end ("..., A or B?"), or at its start,
# where "and" joins them too ("A and B - which one is older?").
_CHOICE_LAST = ("or", "vs", "versus")
_CHOICE_FIRST = ("or", "vs", "versus", "and")
_QUESTION_WORDS = ("which", "who", "what", "whose")
# Words before a choice that opens the question ("Of the Eiger, the Jungfrau and the Matterhorn, which
# is lowest"), and the verbs a yes/no-like choice opens with ("Is the Po or the Tiber the longer river").
_CHOICE_LEADS = ("between", "of", "among")
_CHOICE_VERBS = ("is", "was", "are", "were", "does", "did", "do")
# Words that place things by a measure between two named ones ("between Venus and Uranus", "from gold to
# lead"), with the words that join the two; and beyond one ("beyond Mars", "past Saturn").
_BETWEEN = {"between": ("and",), "from": ("to", "through", "till", "until")}
# Words placing things on one side of a named one: past it (>) or ahead of it (<).
_ONE_SIDE = {
    "beyond": ">", "past": ">", "after": ">", "follow": ">", "follows": ">", "following": ">",
    "before": "<", "precede": "<", "precedes": "<", "preceding": "<",
}  # fmt: skip
# Words after "from A" that bound things from A on, A included ("from rutherfordium upwards").
_ONWARDS = frozenset({"upwards", "upward", "onwards", "onward", "on", "up"})
# Words joining a second bound to a first ("beyond earth but before saturn").
_BOUNDS_JOINED = frozenset({"but", "and", "yet"})
# Verbs of outdoing a named thing by a measure ("how many countries beat brazil for area", "top it").
_OUTDOING = frozenset({
    "beat", "beats", "top", "tops", "outstrip", "outstrips", "outnumber", "outnumbers", "exceed", "exceeds",
    "surpass", "surpasses", "outrank", "outranks",
})  # fmt: skip
# The side of a bound: a comparison, or a comparative word whose comparison the measure decides.
Side = str | Asked
# Ordinals past the first, which name a place in an order ("the sixth planet from the sun", "the 26th element").
_ORDINALS = {
    "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip
_ORDINAL_NUMBER = re.compile(r"(\d{1,3})(?:st|nd|rd|th)")
# A question for a thing's place in an order: "Which number planet ...", "what's its position ...".
_PLACE_ASKED = re.compile(
    r"\b(?:which|what)\s+number\b(?!\s+of)|\bnumber\s+(?:what|which)\b|\bposition\b"
    r"|\bwhich\s+\w+\s+from\s+the\b"  # "venus is which planet from the sun": its place
    r"|\bhow[\s-]?manyth\b"  # "uranus is the how-manyth planet from the sun"
)
_ORDERING = frozenset({"<", ">", "<=", ">=", "=", "!="})
# The words after "the one" that name a thing by where it is ("the one in leipzig").
_ONE_OF = (["in"], ["of"], ["from"], ["at"], ["on"])


def _said_at(words: Sequence[str], start: int, forms: Sequence[Sequence[str]]) -> list[str] | None:
    """The first of an entity's names (`forms`) that `words` say from `start`, misspelt or not."""
    for name in forms:
        if start >= 0 and start + len(name) <= len(words) and all(map(misspelt, words[start:], name)):
            return list(name)
    return None


def _named_at(
    words: Sequence[str],
    at: int,
    names: dict[str, list[list[str]]],
    fits: Callable[[str], bool],
    ending: bool,
) -> tuple[str, int] | None:
    """An entity that `fits` and whose name `words` say ending (`ending`) or starting at `at`, with
    where its name starts (ending) or ends; None when no such name is said there."""
    for entity, forms in names.items():
        for name in forms:
            start = at - len(name) if ending else at
            if fits(entity) and _said_at(words, start, [name]) is not None:
                return entity, start if ending else at + len(name)
    return None


def _owner_start(words: Sequence[str], at: int, names: dict[str, list[list[str]]]) -> int:
    """Where the owner's name starts when a possessive of a named one ends right before `at` ("manet s"
    of "manet's dejeuner sur l'herbe"), else `at`."""
    owner = _named_at(words, at - 1, names, lambda _: True, ending=True) if at > 1 else None
    return owner[1] if owner is not None and words[at - 1] == "s" else at


def _choice_last(
    words: Sequence[str], names: dict[str, list[list[str]]], alike: Callable[[str, str], bool]
) -> tuple[list[str], str] | None:
    """The entities of "A or B" (or "A, B or C": commas are gone from `words`, and each one before the
    last two must be `alike` the one after it) when the question ends with it, and the words before, of
    which there must be some; else None. A name may follow its owner's ("or manet's dejeuner sur l'herbe").
    "and" joins the last two after a word that opens a choice ("the oldest of jagger, richards and
    watts", "who is taller between A and B"), not elsewhere ("films by Kubrick and Lean")."""
    for last, forms in names.items():
        for name in forms:
            join = len(words) - len(name) - 1
            if join < 2 or _said_at(words, join + 1, [name]) is None:
                continue
            join = _owner_start(words, join + 1, names) - 1
            if join < 2 or words[join] not in (*_CHOICE_LAST, "and"):
                continue
            chosen, start = [last], join
            while (found := _named_at(words, start, names, _fits(chosen, alike), ending=True)) is not None:
                chosen.insert(0, found[0])
                start = _owner_start(words, found[1], names)
            if (
                len(chosen) < 2
                or start < 1
                or (words[join] == "and" and words[start - 1] not in _CHOICE_LEADS)
            ):
                continue
            return chosen, " ".join(words[:start])
    return None


def _named_owned(
    words: Sequence[str], at: int, names: dict[str, list[list[str]]], fits: Callable[[str], bool]
) -> tuple[str, int] | None:
    """`_named_at` from `at`, or past an owner's possessive of one or two words there, named or not
    ("wagner s flying dutchman", "borneo s kinabalu"): the entity and where its name ends."""
    found = _named_at(words, at, names, fits, ending=False)
    if found is not None and words[found[1] : found[1] + 1] == ["s"]:  # a named owner ("wagner s")
        return _named_at(words, found[1] + 1, names, fits, ending=False) or found
    for owner in (1, 2):
        if found is None and words[at + owner : at + owner + 1] == ["s"]:
            found = _named_at(words, at + owner + 1, names, fits, ending=False)
    return found


def _choice_first(
    words: Sequence[str], names: dict[str, list[list[str]]], alike: Callable[[str, str], bool], yes_no: bool
) -> tuple[list[str], str] | None:
    """The entities of "[between|of|among|out of] A or B" (or "A, B or C", as `_choice_last` reads them,
    and "A, B, C" with no word between, all `alike`) when the question starts with it and a question
    word follows, or the rest of a yes/no question (`yes_no`: "Kinabalu vs Fuji - is Kinabalu the
    taller peak?"), or of "A or B" after the verb that opens a question ("Is the Po or the Tiber the
    longer river", "was kepler or galileo born first"), and the words after; else None. A name may
    follow its owner's ("wagner's flying dutchman or tristan und isolde")."""
    opening = words[0] if words else ""
    verb = opening in _CHOICE_VERBS
    lead = 2 if words[:2] == ["out", "of"] else int(verb or opening in _CHOICE_LEADS)
    found = _named_owned(words, lead, names, lambda _: True)
    joins = ("or",) if verb else _CHOICE_FIRST
    chosen = [found[0]] if found is not None else []
    while found is not None and found[1] < len(words) and words[found[1]] not in joins:
        listed = _named_owned(words, found[1], names, _fits(chosen, alike, ahead=1))
        if listed is None and not verb and len(chosen) > 1 and words[found[1]] in _QUESTION_WORDS:
            return chosen, " ".join(words[found[1] :])  # "Siemens, Nokia, Nestlé - which was founded first"
        found = listed
        chosen += [found[0]] if found is not None else []
    if found is None or found[1] >= len(words):
        return None
    last = _named_owned(words, found[1] + 1, names, lambda e: e not in chosen)
    if last is None:
        return None
    rest = words[last[1] :]
    asking = bool(rest) and (verb or rest[0] in _QUESTION_WORDS or yes_no)
    return ([*chosen, last[0]], " ".join(rest)) if asking else None


def _ends_named(words: Sequence[str], names: dict[str, list[list[str]]]) -> list[tuple[str, Side]] | None:
    """The named things `words` place others between, each with the comparison of its side: "between A
    and B", "from A to B" (`><`, the lower one to be found), "from A upwards" (`>=`), one side of one
    ("beyond A", "precede A", "heavier than A", "beat it"; `_bound_at`), or of two joined ("beyond earth
    but before saturn", "larger than india's but smaller than brazil's"); None when they place none."""
    for at, word in enumerate(words):
        if word in _BETWEEN:
            first = _named_at(words, at + 1, names, lambda _: True, ending=False)
            if first is None or first[1] >= len(words):
                continue
            if word == "from" and words[first[1]] in _ONWARDS:
                return [(first[0], ">=")]
            if words[first[1]] not in _BETWEEN[word]:
                continue
            second = _named_at(words, first[1] + 1, names, _fits([first[0]], lambda *_: True), ending=False)
            if second is not None:
                return [(first[0], "><"), (second[0], "><")]
            continue
        bound = _bound_at(words, at, names, lambda _: True)
        if bound is None:
            continue
        entity, side, end = bound
        if words[end : end + 1] and words[end] in _BOUNDS_JOINED:
            fits = _fits([entity], lambda *_: True)
            for k in range(end + 1, min(end + 3, len(words))):
                other = _bound_at(words, k, names, fits)
                if other is not None:
                    return [(entity, side), (other[0], other[1])]
        return [(entity, side)]
    return None


def _bound_at(
    words: Sequence[str], at: int, names: dict[str, list[list[str]]], fits: Callable[[str], bool]
) -> tuple[str, Side, int] | None:
    """(the named thing, its side, where its name ends) of a bound on one side that `words` open at
    `at`: a word of a side (`_ONE_SIDE`: "beyond Mars"), a verb of outdoing ("beat Brazil"), or a
    comparative before "than" ("heavier than lead", "further out than Mars"), whose side the measure
    decides; the name is that of a thing that `fits`, or "it" for the one thing the question names ("lhotse
    is high - how many mountains top it"); None when no such bound opens there."""
    word = words[at]
    side: Side
    if word in _ONE_SIDE:
        side, start = _ONE_SIDE[word], at + 1
    elif word in _OUTDOING:
        side, start = Asked("comparative", "high", word), at + 1
    else:
        than = next((k for k in range(at + 1, min(at + 3, len(words))) if words[k] == "than"), None)
        graded = next((a for a in asked_orders(word) if a.form == "comparative"), None) if than else None
        if graded is None or than is None:
            return None
        side, start = graded, than + 1
    if words[start : start + 1] == ["it"]:
        named = {
            e for e, forms in names.items() if fits(e) for k in range(len(words)) if _said_at(words, k, forms)
        }
        return (named.pop(), side, start + 1) if len(named) == 1 else None
    found = _named_at(words, start, names, fits, ending=False)
    if found is None:
        return None
    return found[0], side, found[1] + (words[found[1] : found[1] + 1] == ["s"])  # "than india's"


def _fits(chosen: Sequence[str], alike: Callable[[str, str], bool], ahead: int = 0) -> Callable[[str], bool]:
    """Whether an entity may join a choice that has `chosen` and `ahead` more to come: one not chosen,
    and past the first two, one `alike` `chosen[0]`, the one it stands next to ("first in Germany, Bach
    or Handel" chooses between two people, not three things)."""
    return lambda e: e not in chosen and (len(chosen) + ahead < 2 or alike(e, chosen[0]))


@dataclass(frozen=True)
class Choice:
    """A choice between two named entities (`Comparisons.choice_between`): the query that ranks the two,
    what it does; `lacking`: the one the KB gives no value of the measure, so that no query can choose."""

    query: list[str]
    note: str
    lacking: str | None = None


class Comparisons(KBReader):
    """The comparison and ranking rewrites of one KB (see the module docstring)."""

    def value_compared(self, tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
        """`tokens` with a number the question compares with ("Was Boléro first performed before 1930?")
        that a pattern takes as its value (`res:Bolero ont:premiereYear 1930`) made a comparison of the
        value (`res:Bolero ont:premiereYear ?v . filter ( ?v < 1930 )`), in the direction the question's
        word says (`year ( ?v )` for dates), including the number when the question says so ("in 1942 or
        later": `>= 1942`), or the word just before the number says where that says nothing of such values
        (`said_bounds`: "the elements after 115"); None when the query compares already or nothing fits.
        A number said as words ("exceed five million km²") is one the question says."""
        wanted, bounds = asked(question, "comparative"), said_bounds(question)
        if (wanted is None and not bounds) or "filter" in tokens or "}" not in tokens:
            return None
        said = said_numbers(question)
        types = token_types(list(tokens), self.prefixes)
        for _, p, o in triple_patterns(tokens, types):
            number, prop = tokens[o], tokens[p]
            if types[p] != TokenType.URI or not NUMBER.fullmatch(number) or number not in said:
                continue
            direction = self._direction(wanted, prop) if wanted is not None else None
            value = fresh_value(tokens)
            if direction is not None:
                assert wanted is not None
                _, test = self._comparison(prop, value, *direction, number, None, question)
                word = wanted.word
            elif number in bounds and self._measured_values(prop):  # "count the elements after 115"
                test, word = self._bound_test(prop, value, bounds[number], number), bounds[number]
            else:
                continue
            new = before_close([*tokens[:o], value, *tokens[o + 1 :]], [".", *test])
            return new, f"the value {number} made a comparison ('{word}')"
        return None

    def measure_of_compared(self, tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
        """`tokens` with a value compared with a number but read by a property whose values cannot be
        compared (`res:Neptune a ?v . filter ( ?v < 1850 )`: a class; or things) read instead by the one
        measure of that entity that the question's comparative word fits ("Was Neptune spotted before
        1850?": its discovery year), as a year where its values are dates; None when the query reads a
        measure already, the question compares nothing, or not one measure fits."""
        wanted = asked(question, "comparative")
        if wanted is None or "filter" not in tokens:
            return None
        types = token_types(list(tokens), self.prefixes)
        compared = compared_variables(tokens, types)
        for s, p, o in triple_patterns(tokens, types):
            value, prop = tokens[o], tokens[p]
            if value not in compared or types[s] != TokenType.URI or tokens.count(value) != 2:
                continue
            if prop != "a" and (types[p] != TokenType.URI or self._measured_values(prop)):
                continue
            fitting = [m for m in self._literal_measures(tokens[s]) if self._direction(wanted, m) is not None]
            if len(fitting) != 1:
                return None
            measure = fitting[0]
            new = [*tokens[:p], measure, *tokens[p + 1 :]]
            at = new.index(value, o + 1)  # the one other place the value stands: its comparison
            if new[at - 2 : at] != ["year", "("]:
                new[at : at + 1] = self._as_compared(measure, value, self.values_are_dates(measure))
            return new, f"{prop} -> {measure}, the one measure of {tokens[s]} that '{wanted.word}' compares"
        return None

    def entity_as_value(
        self, tokens: Sequence[str], question: str, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """`tokens` with an entity that a pattern takes as the value of a measured property while the
        question compares (`res:Let_It_Be ont:releaseYear res:Abbey_Road`, "Did Abbey Road come out
        before Let It Be?") made a comparison of the two ends' values (`res:Abbey_Road ont:releaseYear ?v
        . res:Let_It_Be ont:releaseYear ?_than . filter ( ?v < ?_than )`), in the direction the
        question's word says: an IRI is no number or date, so the pattern holds of nothing. The entity
        compared with is the one named after the comparing word (`_compared_with`), whichever end the
        query put it at, or in place of another entity at the value's end when both it and the subject
        have the measure ("is picasso's guernica older than dali's persistence of memory" decoded with
        Picasso as Guernica's year); None when the question names none, the query ranks, or nothing fits."""
        wanted = asked(question, "comparative")
        if wanted is None or {"filter", "order", "?_than"} & set(tokens) or "}" not in tokens:
            return None  # a ranking: what it ranks by is another question
        than = self._compared_with(question, units, wanted.word)
        if than is None:
            return None  # "formed after 1990": compared with a number, not with an entity
        types = token_types(list(tokens), self.prefixes)
        for s, p, o in triple_patterns(tokens, types):
            prop, subject, other = tokens[p], tokens[s], tokens[o]
            if (
                types[p] != TokenType.URI
                or types[o] != TokenType.URI
                or self._kind(other) != "entity"
                or not self._measured_values(prop)
            ):
                continue
            if subject == than:
                subject, other = other, subject  # "before Let It Be": Let It Be is compared with
            elif other != than:
                if not (self._holds([subject, prop, "?_v"]) and self._holds([than, prop, "?_v"])):
                    continue
                other = than  # "is picasso's guernica older than dali's ...": the painting's, not Picasso
            prop = self._said_measure(tokens, types, subject, prop, question)
            direction = self._direction(wanted, prop)
            if direction is None:
                continue
            value = fresh_value(tokens)
            read, test = self._comparison(prop, value, *direction, None, other, question)
            new = [*tokens[:s], subject, prop, value, ".", *read, *tokens[o + 1 :]]
            new = before_close(new, [".", *test])
            return new, f"{subject}'s {prop} compared with {read[0]}'s ('{wanted.word}'), not with the entity"
        return None

    def _said_measure(
        self, tokens: Sequence[str], types: Sequence[TokenType], subject: str, prop: str, question: str
    ) -> str:
        """`prop`, or the one other measure of `subject` in the query that the question says while it
        does not say `prop` ("cover more area than Germany" decoded comparing populations)."""
        if self.index is None:
            return prop
        said = Said(question, self.index)
        if said.words(prop):
            return prop
        others = {
            tokens[p]
            for s, p, _ in triple_patterns(tokens, types)
            if tokens[s] == subject
            and tokens[p] != prop
            and types[p] == TokenType.URI
            and self._measured_values(tokens[p])
            and said.words(tokens[p])
        }
        return others.pop() if len(others) == 1 else prop

    def entity_compared(self, tokens: Sequence[str]) -> tuple[list[str], str] | None:
        """`tokens` with a FILTER that compares a value with an entity (`?x ont:length ?v . filter ( ?v
        > res:Danube )`, "rivers longer than the Danube") comparing it with the entity's value of the
        same property instead (`res:Danube ont:length ?_than . filter ( ?v > ?_than )`), when its values
        are numbers or dates: an IRI is no number, so the comparison as written fails on every row; None
        when there is none."""
        if "filter" not in tokens or "?_than" in tokens:
            return None
        types = token_types(list(tokens), self.prefixes)
        props = {
            tokens[o]: tokens[p]
            for _, p, o in triple_patterns(tokens, types)
            if types[p] == TokenType.URI and self._measured_values(tokens[p])
        }
        for at in (i for i, t in enumerate(tokens) if t == "filter"):
            if tokens[at + 1 : at + 2] != ["("] or tokens[at + 3 : at + 4] not in (
                [">"],
                ["<"],
                [">="],
                ["<="],
            ):
                continue
            for value, entity in ((at + 2, at + 4), (at + 4, at + 2)):
                if (
                    entity < len(tokens)
                    and tokens[value] in props
                    and types[entity] == TokenType.URI
                    and self._kind(tokens[entity]) == "entity"
                ):
                    prop = props[tokens[value]]
                    new = [*tokens[:entity], "?_than", *tokens[entity + 1 :]]
                    dot = [] if tokens[at - 1] in (".", "{") else ["."]
                    new[at:at] = [*dot, tokens[entity], prop, "?_than", "."]
                    return new, f"compared with {tokens[entity]}'s {prop}, not the entity itself"
        return None

    def ask_compared(
        self, tokens: Sequence[str], question: str, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """An ASK that reads a value nothing tests (`ask where { res:Thames ont:length ?v }`) while the
        question compares ("Is the Thames longer than the Tiber?", "... higher than 4000 metres") or names
        a period or a range ("Does Philips date back to the 19th century?", "did radiohead form in the 90s")
        with that value compared: with the entity's value of the same property, or the one number the
        question says, in the direction its word says; or with the range (`asked_span`). A yes/no
        question decoded as a SELECT of that value (`select ?x where { res:Philips ont:foundingYear ?x }`)
        is asked so, when the entity has the value. None when nothing fits."""
        wanted = asked(question, "comparative")
        spanned = wanted is None and any(asked_span(question, dates) for dates in (True, False))
        if (wanted is None and not spanned) or "filter" in tokens or "}" not in tokens:
            return None
        if tokens[:1] == ["select"] and expected_answer(question).boolean:
            asked_so = self._value_asked(tokens)
            if asked_so is None:
                return None
            tokens = asked_so
        if tokens[:1] != ["ask"]:
            return None
        numbers = [u for u in units if NUMBER.fullmatch(u) and u not in tokens]
        than = None
        if wanted is not None:
            than = self._compared_with(question, units, wanted.word) if len(numbers) != 1 else None
            if len(numbers) != 1 and than is None:
                return None
        types = token_types(list(tokens), self.prefixes)
        count = Counter(tokens)
        for _, p, o in triple_patterns(tokens, types):
            value, prop = tokens[o], tokens[p]
            measured = types[p] == TokenType.URI and self._measured_values(prop)
            if types[o] != TokenType.VARIABLE or count[value] != 1 or not measured or than in tokens:
                continue
            dates = self.values_are_dates(prop)
            if wanted is None:
                span = asked_span(question, dates)
                if span is None:
                    continue
                other, test = [], self.span_test(prop, value, span)
                word = str(span)
            else:
                assert wanted is not None
                direction = self._direction(wanted, prop)
                if direction is None:
                    continue
                low = direction[1]
                other, test = self._comparison(
                    prop, value, dates, low, numbers[0] if than is None else None, than, question
                )
                word = wanted.word
            new = before_close(tokens, [".", *([*other, "."] if other else []), *test])
            return new, f"its value {value} compared ('{word}')"
        return None

    def pair_compared(
        self, question: str, units: Sequence[str], named: Sequence[str], said: Said
    ) -> tuple[list[str], str] | None:
        """The ASK a yes/no question comparing two named entities asks ("Was Harvard founded earlier than
        Yale?", "were the eagles around before queen?"): the first's value of a measure compared with
        the second's, the one named after the comparing word, in the direction the word says. The
        measure: of the units both have, one the question says first, then one the comparing word grades
        ("farther": the order from the Sun, not the discovery year); else the one measure both have. An
        entity named within the measure's name ("from the sun") is not compared. None when the question
        compares no two of `named` (the entities it names)."""
        wanted = asked(question, "comparative")
        than = self._compared_with(question, units, wanted.word) if wanted is not None else None
        others = [e for e in named if e != than and not self._names_a_measure(e, units)]
        if wanted is None or than is None or than not in named or len(others) != 1:
            return None
        measured = [
            u for u in dict.fromkeys(units) if self._kind(u) == "property" and self._measured_values(u)
        ]
        prop, pair = None, [others[0], than]
        lemma = graded_lemma(wanted.word.split()[-1])
        for candidate in sorted(
            measured, key=lambda p: (not said.words(p), lemma not in self._graded_names(p))
        ):
            # one the KB gives no value of it is read as one named alike that has one ("the Amazon")
            alike = [
                e if self._holds([e, candidate, "?_v"]) else self.named_alike(e, candidate, True, said)
                for e in pair
            ]
            if None not in alike:
                prop, pair = candidate, alike
                break
        if prop is None:
            shared = set.intersection(*(set(self._literal_measures(e)) for e in pair if e is not None))
            prop = shared.pop() if len(shared) == 1 else None
        direction = self._direction(wanted, prop) if prop is not None else None
        first, second = pair
        if direction is None or first is None or second is None:
            return None
        other, test = self._comparison(prop, "?v", *direction, None, second)
        query = ["ask", "where", "{", first, prop, "?v", ".", *other, ".", *test, "}"]
        return query, f"{first} compared with {second} by {prop} ({wanted.word})"

    def _names_a_measure(self, entity: str, units: Sequence[str]) -> bool:
        """Whether `entity`'s label is within the label of a measured property of the units ("the Sun" of
        "order from the Sun"): "farther from the sun than Neptune" compares Neptune, not the Sun."""
        label = f" {normalize(self.index.label(entity) or '')} " if self.index is not None else "  "
        return label.strip() != "" and any(
            label in f" {normalize(self.index.label(u) or '')} "
            for u in units
            if self._kind(u) == "property" and self._measured_values(u)
        )

    def kin_compared(
        self, question: str, units: Sequence[str], said: Said, counted: bool
    ) -> tuple[list[str], str] | None:
        """The things linked to a named entity the way another named one is, whose measure compares with
        that one's ("Which Beatles are older than Paul McCartney?", "Beatles born before Paul McCartney":
        the band's members born before him; "Kubrick films released after The Shining"), counted when
        `counted`: the fact the KB links the two by, the compared one's place made the answer's, and the
        answer's value of the measure compared with the compared one's, in the direction the question's
        word says. The measure: one the question says, else the compared one's only measure the word
        gives a direction. None when the question compares with no named entity, names not exactly one
        other, or the KB links the two by no fact."""
        wanted = asked(question, "comparative")
        than = self._compared_with(question, units, wanted.word) if wanted is not None else None
        named = self.named_entities(said, units)
        others = [e for e in named if e != than]
        if wanted is None or than is None or than not in named or len(others) != 1:
            return None
        fact = self.fact_between(others[0], than, units)
        measures = [p for p in self._literal_measures(than) if self._direction(wanted, p) is not None]
        chosen = [p for p in measures if said.words(p)] or measures
        if fact is None or len(chosen) != 1:
            return None
        prop = chosen[0]
        direction = self._direction(wanted, prop)
        assert direction is not None
        other, test = self._comparison(prop, "?v", *direction, None, than)
        linked = ["?x" if t == than else t for t in fact]
        head = "select ( count ( distinct ?x ) as ?c )" if counted else "select distinct ?x"
        query = [*head.split(), "where", "{", *linked, ".", "?x", prop, "?v", ".", *other, ".", *test, "}"]
        return query, f"linked to {others[0]} as {than} is, compared by {prop}"

    def placed_at(
        self, question: str, units: Sequence[str], said: Said, boolean: bool
    ) -> tuple[list[str], str] | None:
        """What a question asks of the place an ordinal names in the one order things of a kind have
        ("which planet is sixth from the sun": the planet whose order from the sun is 6; "Is Saturn the
        sixth planet from the sun?" when `boolean`; "the 26th element"): the class is the one the ordinal
        comes before or the question asks for, the order its one measure of whole numbers, no dates,
        that a member has at that place. None without one ordinal, or when the question asks for
        another class or a count, or ranks by a graded word ("the second largest")."""
        words = normalize(question).split()
        places = [
            (at, _ORDINALS.get(w) or int(m.group(1)))
            for at, w in enumerate(words)
            if w in _ORDINALS or (m := _ORDINAL_NUMBER.fullmatch(w))
        ]
        if len(places) != 1 or self.index is None or {"how", "many"} <= set(words):
            return None
        at, place = places[0]
        if asked(" ".join(words[at + 1 : at + 3]), "superlative") or words[at + 1 : at + 2] == ["century"]:
            return None
        asked_for = self.asked_class(question, units)
        after = words[at + 1] if at + 1 < len(words) else ""
        # "the 26th element": ont:ChemicalElement, whose label's head it is
        named = [u for u in units if self._kind(u) == "class" and self.named_by_head(u, after)]
        cls = named[0] if named else asked_for
        if cls is None or asked_for not in (None, cls):
            return None
        measures = [p for p in self._orders(cls) if self._holds(["?_x", "a", cls, ".", "?_x", p, str(place)])]
        if len(measures) != 1:
            return None
        prop, number = measures[0], str(place)
        if not boolean:
            query = ["select", "distinct", "?x", "where", "{", "?x", "a", cls, ".", "?x", prop, number, "}"]
            return query, f"the {cls} at place {place} by {prop}"
        of_kind = [e for e in self.named_entities(said, units) if self._holds([e, "a", cls])]
        if len(of_kind) != 1:
            return None
        query = ["ask", "where", "{", of_kind[0], prop, number, "}"]
        return query, f"{of_kind[0]} at place {place} by {prop}"

    def _orders(self, cls: str) -> list[str]:
        """The measures of a class's members that are no dates: what an ordinal or a place counts in."""
        assert self.index is not None
        return [p for p in self.index.attributes(cls, 4) if not self.values_are_dates(p)]

    def place_of(self, question: str, units: Sequence[str], said: Said) -> tuple[list[str], str] | None:
        """The place a named thing has in the one order things of its kind have, when the question asks
        for a number or a position ("Which number planet from the sun is Mars?", "What's Mars's position
        from the sun?"): its value of the one measure of its classes that is no date. None when the
        question asks for neither, or names not one entity with one such measure ("from the sun" names one
        with none)."""
        if self.index is None or not _PLACE_ASKED.search(question.lower()):
            return None
        placed = {
            e: {p for c in self.index.classes(e) for p in self._orders(c) if self._holds([e, p, "?_v"])}
            for e in self.named_entities(said, units)
        }
        placed = {e: orders for e, orders in placed.items() if orders}  # "from the sun": no place of its own
        if not placed:
            return self._place_of_linked(question, units, said)
        if len(placed) != 1 or len(next(iter(placed.values()))) != 1:
            return None
        entity, orders = placed.popitem()
        prop = orders.pop()
        query = ["select", "distinct", "?x", "where", "{", entity, prop, "?x", "}"]
        return query, f"{entity}'s place by {prop}"

    def _place_of_linked(
        self, question: str, units: Sequence[str], said: Said
    ) -> tuple[list[str], str] | None:
        """The place, in the one order things of a class the question names have, of the one thing of
        that class a named thing is linked to ("Europa's planet is number what from the sun?": the
        planet Europa orbits); None unless exactly one named thing is linked so to exactly one."""
        assert self.index is not None
        words = normalize(question).split()
        found = []
        for cls in dict.fromkeys(u for u in units if self._kind(u) == "class"):
            orders = self._orders(cls)
            if len(orders) != 1 or not any(self.named_by_head(cls, w) for w in words):
                continue
            for entity in self.named_entities(said, units):
                for prop in self.index.relations(cls, entity):
                    body = [*self.link_to(entity, prop, cls), ".", "?y", "a", cls]
                    one = ["select", "(", "count", "(", "distinct", "?y", ")", "as", "?n", ")", "where", "{", *body, "}"]  # fmt: skip
                    counted = self._query(detokenize(one, self.prefixes))
                    if counted.ok and counted.rows and counted.rows[0][0] == "1":
                        head = ["select", "distinct", "?x", "where", "{"]
                        query = [*head, *body, ".", "?y", orders[0], "?x", "}"]
                        note = f"the place by {orders[0]} of the {cls} {entity} is linked to by {prop}"
                        found.append((query, note))
        return found[0] if len(found) == 1 else None

    def placed_between(
        self, question: str, units: Sequence[str], said: Said, counted: bool
    ) -> tuple[list[str], str] | None:
        """The things of a kind the question names whose value of a measure lies between two named
        things' values ("how many planets lie between venus and uranus", "Counting from gold to lead, how
        many elements lie in between?", "which elements sit between iron and zinc") or on one side of one's
        ("How many planets lie beyond Mars?", "How many elements precede neon?", "how many elements are
        there from rutherfordium upwards", "which planets orbit further out than Mars", "how many mountains
        top it") or between two sides ("larger than india's but smaller than brazil's"), counted when
        `counted`. The class is the one the named things have that the question says (planets between two
        planets, not rivers between two countries), and no kind of place where a word places them
        (countries between two countries lie between them on a map; not "larger than india's"); the
        measure is one they all have, the one the question says when they have several, else the one a
        comparative grades ("bigger": area). None when the question places nothing so, or its comparative
        says no side of the measure, or names another thing, which restricts them too, unless the
        measure's name holds it ("from the Sun": order from sun)."""
        if self.index is None:
            return None
        words = [w for w in normalize(question).split() if w != "the"]
        if not set(words) & {*_BETWEEN, *_ONE_SIDE, *_OUTDOING, "than"}:
            return None  # most questions: no entity's names to read
        entities = [u for u in units if self._kind(u) == "entity"]
        placing = _ends_named(words, self._names_of(entities, said))
        if placing is None:
            return None
        ends = [e for e, _ in placing]
        others = set(self.named_entities(said, units)) - set(ends)
        compared = all(isinstance(s, Asked) for _, s in placing)  # "larger than india's": by a measure
        kinds = [  # "elements" says ont:ChemicalElement, whose label's head it is
            c
            for c in self.index.classes(ends[0])
            if all(self._holds([e, "a", c]) for e in ends)
            and (compared or not any(self.named_by_head(c, w) for w in PLACE_WORDS))
            and any(self.named_by_head(c, w) for w in words)
        ]
        if len(kinds) != 1:
            return None
        cls = kinds[0]
        shared = set.intersection(*(set(self._literal_measures(e)) for e in ends))
        graded = {graded_lemma(s.word) for _, s in placing if isinstance(s, Asked)} - {None}
        measures = (
            sorted(p for p in shared if said.words(p))
            or sorted(p for p in shared if graded & self._graded_names(p))
            or sorted(shared)
        )
        if len(measures) != 1:
            return None
        prop = measures[0]
        in_measure = set(normalize(element_name(prop, self.index)).split())
        if any(not set(normalize(element_name(o, self.index)).split()) <= in_measure for o in others):
            return None  # "Beatles albums between Help and Abbey Road": the band restricts them too
        sides = [self._side(s, prop) for _, s in placing]
        if None in sides:
            return None  # "older than Mars": a word that says nothing of orders from the sun
        if sides[0] == "><":
            if not self._holds(
                [ends[0], prop, "?a", ".", ends[1], prop, "?b", ".", "filter", "(", "?a", "<", "?b", ")"]
            ):
                ends = ends[::-1]  # "between zinc and iron": the lower one first
            sides = [">", "<"]
        body = ["?x", "a", cls, ".", ends[0], prop, "?a", ".", "?x", prop, "?n", "."]
        tests = ["?n", str(sides[0]), "?a"]
        if len(ends) == 2:
            body += [ends[1], prop, "?b", "."]
            tests += ["&&", "?n", str(sides[1]), "?b"]
        head = "select ( count ( distinct ?x ) as ?c )" if counted else "select distinct ?x"
        where = " and ".join(ends)
        placed = "between" if len(ends) == 2 else {">": "past", "<": "ahead of", ">=": "from"}[str(sides[0])]
        query = [*head.split(), "where", "{", *body, "filter", "(", *tests, ")", "}"]
        nearest = (
            nearest_kept(query, token_types(query, self.prefixes), question)
            if len(ends) == 1 and not counted
            else None
        )
        if nearest is not None:  # "which element comes right after oxygen": the one next to it
            return nearest[0], f"the {cls} right {placed} {where} by {prop}"
        return query, f"{cls} {placed} {where} by {prop}"

    def _side(self, side: Side, prop: str) -> str | None:
        """The comparison a bound's side makes by `prop`: its own, or the one a comparative word says of
        such values ("heavier": `>`; "later" in an order of numbers: `>`); None when the word says none
        ("older" of numbers that are no dates: no age of a planet)."""
        if not isinstance(side, Asked):
            return side
        dates = self.values_are_dates(prop)
        if side.sense in ("early", "late") and not dates:  # "older than mars" says no order from the sun
            low = ascending_in_order(side.sense, side.word)
        else:
            low = ascending(side.sense, side.word, dates)
        return None if low is None else "<" if low else ">"

    def _value_asked(self, tokens: Sequence[str]) -> list[str] | None:
        """`select [distinct] ?x where { E P ?x }` as `ask where { E P ?x }`, when the entity has a value of
        P (a "no" of one that has none says nothing); None for another query."""
        types = token_types(list(tokens), self.prefixes)
        var, found = answer_variable(tokens, types), braces(tokens)
        if var is None or found is None or tokens[found[1] + 1 :]:
            return None
        patterns = triple_patterns(tokens, types)
        if tokens[: found[0]] not in (["select", "distinct", var, "where"], ["select", var, "where"]):
            return None
        if len(patterns) != 1 or tokens[patterns[0][2]] != var or types[patterns[0][0]] != TokenType.URI:
            return None
        s, p, _ = patterns[0]
        if not self._holds([tokens[s], tokens[p], "?_v"]):
            return None
        return ["ask", "where", *tokens[found[0] : found[1] + 1]]

    def compared_by_its_unit(self, tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
        """`tokens` with a property whose values are no measures, yet compared with a number, replaced
        by the one measure a name of which the question says right after that number ("peaks over 8000 m"
        decoded comparing mountain ranges: "m" names elevation). None when there is no such comparison or
        no one measure."""
        if self.index is None or "filter" not in tokens:
            return None
        types = token_types(list(tokens), self.prefixes)
        values = {tokens[o]: p for _, p, o in triple_patterns(tokens, types) if types[p] == TokenType.URI}
        words = normalize(re.sub(r"(?<=\d),(?=\d{3})", "", question)).split()
        for at in (i for i, t in enumerate(tokens[:-4]) if t == "filter" and tokens[i + 1] == "("):
            value, number = (
                tokens[at + 2],
                literal_value(tokens[at + 4]) if types[at + 4] == TokenType.LITERAL else None,
            )
            p = values.get(value)
            if p is None or number is None or self._measured_values(tokens[p]):
                continue
            after = {words[i + 1] for i, w in enumerate(words[:-1]) if w == number}
            found = {h.token for w in after for h in self.index.lookup(w, ["property"], self.per_element)}
            measures = sorted(
                t for t in found if after & set(self.index.names(t)) and self._measured_values(t)
            )
            if len(measures) == 1:
                new = list(tokens)
                new[p] = measures[0]
                return new, f"{tokens[p]} -> {measures[0]} (the unit after {number} names its values)"
        return None

    def typed_by_its_measure(self, tokens: Sequence[str], said: Said | None) -> tuple[list[str], str] | None:
        """`tokens` with the class of a variable whose measure, one the question says, no thing of that
        class has replaced by the one class whose things have it, and whose label shares a word with the
        first's if more than one class does ("peaks above 8000 metres" linked to mountain ranges, which
        have no elevation: mountains have). Not for a class the question says ("elements" compared by
        population: the measure is wrong, not the class). None when there is no such variable."""
        if self.index is None or said is None:
            return None
        types = token_types(list(tokens), self.prefixes)
        patterns = triple_patterns(tokens, types)
        typed = {tokens[s]: o for s, p, o in patterns if tokens[p] == "a" and types[o] == TokenType.URI}
        for s, p, o in patterns:
            var, prop = tokens[s], tokens[p]
            if (
                var not in typed
                or prop == "a"
                or types[o] != TokenType.VARIABLE
                or not self._measured_values(prop)
                or not said.words(prop)
            ):
                continue
            cls = tokens[typed[var]]
            if said.words(cls) or any(self.named_by_head(cls, w) for w in said.text.split()):
                continue  # "the elements numbered 57 through 71": elements, whatever measure was decoded
            if self._holds(["?_s", "a", cls, ".", "?_s", prop, "?_v"]):
                continue
            holders = [c for c in self._classes() if c != cls and prop in self.index.attributes(c, 8)]
            words = set(element_name(cls, self.index).lower().split())
            near = [c for c in holders if words & set(element_name(c, self.index).lower().split())]
            chosen = near if len(holders) > 1 else holders
            if len(chosen) == 1:
                new = list(tokens)
                new[typed[var]] = chosen[0]
                return new, f"{cls} -> {chosen[0]} (things of {cls} have no {prop})"
        return None

    def measure_of_unit(self, tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
        """`tokens` ranking, comparing or answering by the measure a unit of the question names
        (`measured_by_unit`) in place of another ("Which Asian country has the most people?" ordered by
        area: people counted are a population; "larger than a million square kilometres" by length, "How
        big is Iceland in square kilometres" answered by its population: an area): the index's property
        whose label holds the unit's word and whose values are measures."""
        measure = self._unit_measure(question)
        prop = (self._ranked_by(tokens) or self._measure_answered(tokens)) if measure is not None else None
        if measure is None or prop is None or prop == measure[0]:
            return None
        new = [measure[0] if t == prop else t for t in tokens]
        return new, f"{prop} -> {measure[0]} (the question's unit measures {measure[1]})"

    def _unit_measure(self, question: str) -> tuple[str, str] | None:
        """(property, word): the measure whose label holds the word a unit of the question names
        (`measured_by_unit`: "more people" names population); None for no unit or no such measure."""
        word = measured_by_unit(question) if self.index is not None else None
        if word is None or self.index is None:
            return None
        index = self.index
        measures = [
            h.token
            for h in index.lookup(word, ["property"], self.per_element)
            if word in element_name(h.token, index).lower().split() and self._measured_values(h.token)
        ]
        return (measures[0], word) if measures else None

    def measure_of_graded_word(
        self, tokens: Sequence[str], question: str, units: Sequence[str], said: Said | None
    ) -> tuple[list[str], str] | None:
        """`tokens` ranking or comparing by a measure the question neither names nor grades, in place of
        the one measure of the units its graded word grades ("countries bigger than Australia" compared
        by population: area's names hold "biggest", population's no form of "big")."""
        wanted = asked(question, "comparative") or asked(question, "superlative")
        lemma = graded_lemma(wanted.word.split()[-1]) if wanted is not None else None
        if lemma is None or said is None:
            return None
        prop = self._ranked_by(tokens)
        if prop is None:
            return None
        if said.words(prop) or lemma in self._graded_names(prop):
            return None
        measures = [
            u
            for u in dict.fromkeys(units)
            if self._kind(u) == "property" and self._measured_values(u) and lemma in self._graded_names(u)
        ]
        if len(measures) != 1:
            return None
        new = [measures[0] if t == prop else t for t in tokens]
        return new, f"{prop} -> {measures[0]} ({wanted.word} grades it)"

    def _graded_names(self, prop: str) -> frozenset[str]:
        """The adjectives the property's one-word names grade or are ("biggest", "large": big, large)."""
        assert self.index is not None
        names = (n for n in self.index.names(prop) if " " not in n)
        return frozenset(lemma for n in names if (lemma := graded_lemma(n)) is not None)

    def _ranked_by(self, tokens: Sequence[str]) -> str | None:
        """The one property whose values a query orders or compares (`?x ont:area ?v ... order by ?v`);
        None for none or several."""
        types = token_types(list(tokens), self.prefixes)
        ordered = ordered_variable(tokens)
        read = compared_variables(tokens, types) | ({ordered} if ordered else set())
        props = {
            tokens[p] for _, p, o in triple_patterns(tokens, types) if tokens[o] in read and tokens[p] != "a"
        }
        return props.pop() if len(props) == 1 else None

    def _measure_answered(self, tokens: Sequence[str]) -> str | None:
        """The one property whose values a query with no order or filter answers with, counted or not,
        when they are measures (`res:Iceland ont:population ?x`); None otherwise."""
        counted = self.counted_measure(tokens)
        if counted is not None:
            return next(iter(counted[1])) if len(counted[1]) == 1 else None
        if {"order", "filter"} & set(tokens):
            return None
        types = token_types(list(tokens), self.prefixes)
        var = answer_variable(tokens, types)
        props = {
            tokens[p] for _, p, o in triple_patterns(tokens, types) if tokens[o] == var and tokens[p] != "a"
        }
        prop = props.pop() if len(props) == 1 else None
        return prop if prop is not None and self._measured_values(prop) else None

    def counted_measure(self, tokens: Sequence[str]) -> tuple[str, frozenset[str]] | None:
        """(variable, properties) of a COUNT of the values of measures (numbers or years: `count (
        distinct ?x )` over `res:Iceland ont:population ?x`), else None: such a count is 1, whatever
        the question asked."""
        listed = uncounted(tokens)
        if listed is None or "as" not in tokens:
            return None
        types = token_types(list(tokens), self.prefixes)
        var = listed[2]
        binding = [(s, p, o) for s, p, o in triple_patterns(tokens, types) if var in (tokens[s], tokens[o])]
        if not binding or any(tokens[o] != var or types[p] != TokenType.URI for s, p, o in binding):
            return None
        props = frozenset(tokens[p] for _, p, _ in binding)
        if not all((kinds := self._value_kinds(p)) and all("number" in k for k in kinds) for p in props):
            return None
        return var, props

    def measure_not_counted(self, tokens: Sequence[str]) -> tuple[list[str], str] | None:
        """`tokens` asking for the values it counts, when it counts the values of a measure ("How many
        people live in Iceland?" decoded as `count ( distinct ?x )` over `res:Iceland ont:population
        ?x`): a count of numbers is 1, never what "how many" asks; the number is the answer. Not for
        years or dates ("How many people founded Intel?" decoded over `ont:foundingYear`): a year
        answers no "how many", so such a count stays, and is the wrong kind (`_try`). (Repair asks it
        of questions that ask how many; other questions reject a count as the wrong kind.)"""
        measured = self.counted_measure(tokens)
        if measured is None or any(self.values_are_dates(p) for p in measured[1]):
            return None
        values = uncounted(tokens)
        return (values, "a count of a measure's values asks for the values") if values is not None else None

    def choice_between(self, question: str, units: Sequence[str], said: Said | None = None) -> Choice | None:
        """The query a choice between named entities asks, the choice last ("Who is older, Mick Jagger
        or Keith Richards?", "who was born first, galileo or kepler?", "Which premiered first: Rigoletto,
        La traviata or Aida?") or first, before a question word ("Volga or Danube - which one is
        longer?", "Bohr vs Curie: who was born earlier", "Rivera and Kahlo - which one was older?"):
        them, ranked by the measure the question's graded word orders (the one a unit names: "more
        inhabitants"; else a measured property of the units that most of them have; else the one measure
        all have), in its direction, the top one kept; None when the question has no such
        choice, no graded word, or no measure fits. Each is named by its label or by a name within it
        (`Said.names_within`: "kepler"), misspelt or not. One the KB gives no value of the measure is
        replaced by an entity named alike that has one (`named_alike`: "the Amazon" is the river, not
        the company), else the choice says which it lacks."""
        words = [w for w in normalize(question).split() if w != "the"]  # "the Danube or the Rhine"
        if self.index is None:
            return None
        said = said or Said(question, self.index)
        entities = [u for u in units if self._kind(u) == "entity"]
        names = self._names_of(entities, said)
        yes_no = expected_answer(question).boolean is True
        found = _choice_last(words, names, self.alike) or _choice_first(words, names, self.alike, yes_no)
        if found is None:
            return None
        chosen, rest = found
        lead = re.split(r"[,:;]|\s[-–—]+\s", question)[0]  # "which was finished first, da vinci's mona lisa"
        graded = next(
            (a for text in (rest, lead) for f in ("superlative", "comparative") if (a := asked(text, f))),
            None,
        )
        if graded is None:
            return None
        measured = [u for u in units if self._kind(u) == "property" and self._measured_values(u)]
        unit = self._unit_measure(question)  # "more inhabitants": the population, whatever was linked
        measured = [unit[0]] if unit is not None else measured
        held = {p: [e for e in chosen if self._holds([e, p, "?_v"])] for p in measured}
        props = sorted((p for p in measured if held[p]), key=lambda p: -len(held[p]))
        if not props:
            shared = [set(self._literal_measures(e)) for e in chosen]
            props = sorted(set.intersection(*shared))
            if len(props) != 1:
                return None
            held[props[0]] = chosen
        prop = props[0]
        dates = self.values_are_dates(prop)
        up = ascending(graded.sense, graded.word, dates)
        if up is None and not dates:  # "later in the periodic table": a place in an order
            up = ascending_in_order(graded.sense, graded.word)
        if up is None:
            return None
        lacking = [e for e in chosen if e not in held[prop]]
        alike = {e: self.named_alike(e, prop, True, said) for e in lacking}
        chosen = [alike.get(e) or e for e in chosen]  # "the Amazon": the river, which has a length
        either = " || ".join(f"?x = {e}" for e in chosen)
        query = (
            f"select distinct ?x where {{ ?x {prop} ?v . filter ( {either} ) }} "
            f"order by {'asc' if up else 'desc'} ( ?v ) limit 1"
        ).split()
        missing = next((e for e in lacking if alike[e] is None), None)
        between = f"{', '.join(chosen[:-1])} and {chosen[-1]}"
        note = f"a choice between {between} by {prop} ({graded.word})"
        said_after = rest.split()
        asked_of = {
            f[0]
            for at in range(len(said_after))
            if (f := _named_at(said_after, at, names, bool, ending=False))
        }
        if yes_no and len(asked_of) == 1:  # "Kinabalu vs Fuji - is Kinabalu the taller peak?"
            one = alike.get(named := asked_of.pop()) or named
            others = [e for e in chosen if e != one]
            values = [f"?_o{k}" for k in range(len(others))]
            tests = " && ".join(f"?v {'<' if up else '>'} {v}" for v in values)
            facts = " ".join(f"{o} {prop} {v} ." for o, v in zip(others, values, strict=True))
            query = f"ask where {{ {one} {prop} ?v . {facts} filter ( {tests} ) }}".split()
            note = f"whether {one} is the top of {note}"
        return Choice(query, note, missing)

    def _names_of(self, entities: Sequence[str], said: Said) -> dict[str, list[list[str]]]:
        """Each entity's names (`_said_as`): its label, then the names within it that no other of
        `entities` has, or only others it is far better known than (`_better_known`: "Dickens" names
        Charles, not Catherine Dickens; "Curie" neither Marie nor Pierre)."""
        names = {u: self._said_as(u, said) for u in entities}
        owners: dict[tuple[str, ...], list[str]] = {}
        for u, forms in names.items():
            for n in forms[1:]:
                owners.setdefault(tuple(n), []).append(u)
        return {
            u: [
                n
                for k, n in enumerate(forms)
                if k == 0 or all(v == u or self._better_known(u, v) for v in owners[tuple(n)])
            ]
            for u, forms in names.items()
        }

    def _said_as(self, entity: str, said: Said) -> list[list[str]]:
        """The words a question may name `entity` by, longest first: its label ("the" aside), the tails of
        its label of two words or more that a name opens ("Dr Jekyll and Mr Hyde" of "Strange Case of Dr
        Jekyll and Mr Hyde", "Déjeuner sur l'herbe" of "Le Déjeuner sur l'herbe"), then each name within
        it (`Said.names_within`: "kepler" for Johannes Kepler)."""
        raw = (self.index.label(entity) or "").split() if self.index else []
        label = [w for w in normalize(" ".join(raw)).split() if w != "the"]
        if not label:
            return []
        tails = [normalize(" ".join(raw[k:])).split() for k in range(1, len(raw) - 1) if raw[k][:1].isupper()]
        names = [[n] for n in sorted(said.names_within(entity)) if [n] != label]
        return [label, *(t for t in tails if len(t) > 1 and t != label), *names]

    def _comparison(
        self,
        prop: str,
        value: str,
        dates: bool,
        low: bool,
        number: str | None,
        than: str | None,
        question: str = "",
    ) -> tuple[list[str], list[str]]:
        """(a pattern reading the `than` entity's value of `prop`, or nothing; the FILTER) that compare
        `value` with that entity's value, else with `number` (`_as_compared`), `<` when `low`, and `<=`
        when `question` bounds the number inclusively ("in 1942 or later": `>= 1942`). A `than`
        the KB gives no value of `prop` is read as one named alike in `question` that has one
        (`named_alike`: "longer than the Niger" is the river, not the country)."""
        op = "<" if low else ">"
        if than is not None:
            if question and self.index is not None and not self._holds([than, prop, "?_v"]):
                than = self.named_alike(than, prop, True, Said(question, self.index)) or than
            return [than, prop, "?_than"], ["filter", "(", value, op, "?_than", ")"]
        assert number is not None
        if inclusive_bounds(question).get(number) == f"{op}=":
            op += "="
        return [], ["filter", "(", *self._as_compared(prop, value, dates), op, number, ")"]

    def _direction(self, wanted: Asked, prop: str) -> tuple[bool, bool] | None:
        """(whether `prop`'s values are dates, whether the graded word asks for the low side) for a
        comparison by `prop`; None when the word says no direction for such values."""
        dates = self.values_are_dates(prop)
        low = ascending(wanted.sense, wanted.word, dates)
        return None if low is None else (dates, low)

    def span_of_named(self, question: str, said: Said, units: Sequence[str]) -> tuple[list[str], str] | None:
        """What a yes/no question about one named entity and a range asks ("did radiohead form in the 90s",
        "Does Philips date back to the 19th century?", "did tosca premiere in 1900": the one year a date is
        in): whether the entity's value of a measure lies in the range (`asked_span`); the measure one the
        question says, else the entity's only measure the range can be of. None when the question names no
        range, not one entity, or no such measure."""
        if not any(asked_span(question, dates, one_year=True) for dates in (True, False)):
            return None
        named = self.named_entities(said, units)
        if len(named) != 1:
            return None
        entity = named[0]
        spans = {
            p: asked_span(question, self.values_are_dates(p), one_year=True)
            for p in self._literal_measures(entity)
        }
        measures = [p for p, span in spans.items() if span is not None]
        chosen = [p for p in measures if said.words(p)] or measures
        if len(chosen) != 1:
            return None
        prop, span = chosen[0], spans[chosen[0]]
        assert span is not None
        tokens = ["ask", "where", "{", entity, prop, "?v", ".", *self.span_test(prop, "?v", span), "}"]
        return tokens, f"{entity}'s {prop} within the range the question names ({span})"

    def span_compared(self, tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
        """A query whose one FILTER compares a measured value with numbers, while the question names a
        range by its two ends ("atomic numbers from 21 to 30" decoded as `filter ( ?v > 30 )`, "numbered 57
        through 71" as `= 71`): the FILTER made the range's (`span_test`); so a query with no FILTER whose
        pattern takes one end of the range as its value (`?x ont:atomicNumber 71`). None otherwise."""
        if "filter" not in tokens and asked_span(question, False) is not None:
            return self._end_as_span(tokens, question)
        if tokens.count("filter") != 1 or asked_span(question, False) is None:
            return None
        start = tokens.index("filter")
        end = closing(tokens, start + 1) + 1
        types = token_types(list(tokens), self.prefixes)
        compared = compared_variables(tokens, types)
        inside = [t for t in tokens[start + 2 : end - 1] if t not in ("year", "(", ")", "&&", "||")]
        if len(compared) != 1 or not all(
            t in compared or t in _ORDERING or NUMBER.fullmatch(t) for t in inside
        ):
            return None
        value = next(iter(compared))
        props = [tokens[p] for _, p, o in triple_patterns(tokens, types) if tokens[o] == value]
        if len(props) != 1 or not self._measured_values(props[0]):
            return None
        span = asked_span(question, self.values_are_dates(props[0]))
        if span is None or not span.closed:  # two ends said, not a period the filter may state otherwise
            return None
        test = self.span_test(props[0], value, span)
        if test == list(tokens[start:end]):
            return None
        made = [*tokens[:start], *test, *tokens[end:]]
        return made, f"its FILTER made the range the question names ({span})"

    def _end_as_span(self, tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
        """`span_compared` of a query whose pattern takes an end of the range as its value: the value made
        a variable, kept within the range."""
        types = token_types(list(tokens), self.prefixes)
        for _, p, o in triple_patterns(tokens, types):
            prop, number = tokens[p], tokens[o]
            if types[p] != TokenType.URI or not NUMBER.fullmatch(number) or not self._measured_values(prop):
                continue
            span = asked_span(question, self.values_are_dates(prop))
            if span is None or not span.closed or float(number) not in (span.low, span.high):
                continue
            value = fresh_value(tokens)
            made = before_close(
                [*tokens[:o], value, *tokens[o + 1 :]], [".", *self.span_test(prop, value, span)]
            )
            return made, f"its value {number} made the range the question names ({span})"
        return None

    def bound_compared(self, tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
        """A query that reads a measure of a thing both as a number the question bounds (`said_bounds`)
        and into a variable ("count the elements after 115" decoded as `?x ont:atomicNumber 115 . ?x
        ont:atomicNumber ?v`): the pattern with the number goes, and the variable is compared with it,
        unless a FILTER compares it already ("between 90 and 100"); a FILTER testing the variable alone
        (`filter ( ?v )`) is the one given the comparison, as it is in a query with no such pattern. (A
        number a pattern takes with no variable beside it is `value_compared`.) None otherwise."""
        bounds = said_bounds(question)
        types = token_types(list(tokens), self.prefixes)
        patterns = triple_patterns(tokens, types)
        for s, p, o in patterns:
            prop, number = tokens[p], tokens[o]
            if types[p] != TokenType.URI or not NUMBER.fullmatch(number) or (s, p) != (o - 2, o - 1):
                continue
            same = [tokens[v] for r, q, v in patterns if (tokens[r], tokens[q]) == (tokens[s], prop)]
            value = next((v for v in same if v.startswith(("?", "$"))), None)
            if value is None or not self._measured_values(prop):
                continue
            dropped = without_positions(tokens, {s, p, o})
            if value in compared_variables(tokens, types):
                return dropped, f"the pattern giving {prop} the value {number} dropped (a FILTER compares it)"
            op = bounds.get(number)
            if op is None:
                continue
            test = self._bound_test(prop, value, op, number)
            return self._idle_filled(
                dropped, value, test
            ), f"the pattern giving {prop} {number} made a bound ({op} {number})"
        return self._idle_bounded(tokens, types, patterns, bounds)

    def _idle_bounded(
        self,
        tokens: Sequence[str],
        types: Sequence[TokenType],
        patterns: Sequence[tuple[int, int, int]],
        bounds: Mapping[str, str],
    ) -> tuple[list[str], str] | None:
        """`bound_compared` of a query whose FILTER tests a measured variable alone (`filter ( ?v )`) while
        the question bounds one number: the FILTER made that comparison."""
        if len(bounds) != 1 or "filter" not in tokens:
            return None
        ((number, op),) = bounds.items()
        for _, p, o in patterns:
            prop, value = tokens[p], tokens[o]
            if types[o] != TokenType.VARIABLE or types[p] != TokenType.URI or not self._measured_values(prop):
                continue
            made = self._idle_filled(tokens, value, self._bound_test(prop, value, op, number), add=False)
            if made is not None:
                return made, f"its FILTER on {value} alone made a bound ({op} {number}, as the question says)"
        return None

    def _bound_test(self, prop: str, value: str, op: str, number: str) -> list[str]:
        """The FILTER that keeps a value of `prop` past a bound (of dates: their years)."""
        return ["filter", "(", *self._as_compared(prop, value, self.values_are_dates(prop)), op, number, ")"]

    @staticmethod
    def _idle_filled(
        tokens: Sequence[str], value: str, test: list[str], add: bool = True
    ) -> list[str] | None:
        """`tokens` with its FILTER that tests `value` alone made `test`; without one, `test` added (None
        when not `add`)."""
        alone = ["filter", "(", value, ")"]
        at = next((i for i in range(len(tokens)) if list(tokens[i : i + 4]) == alone), None)
        if at is not None:
            return [*tokens[:at], *test, *tokens[at + 4 :]]
        return before_close(tokens, [".", *test]) if add else None

    def span_test(self, prop: str, value: str, span: Span) -> list[str]:
        """The FILTER that keeps a value of `prop` within `span` (of dates: their years)."""
        read = self._as_compared(prop, value, self.values_are_dates(prop))
        low, high = plain_number(span.low), plain_number(span.high)
        if span.low == span.high:
            return ["filter", "(", *read, "=", low, ")"]
        return ["filter", "(", *read, ">=", low, "&&", *read, "<=" if span.closed else "<", high, ")"]

    def _as_compared(self, prop: str, value: str, dates: bool) -> list[str]:
        """How a FILTER reads a value of `prop` to compare it with a number: `year ( ?v )` for dates that
        are no plain numbers (a year is compared with "1960"), the value itself otherwise."""
        years = dates and not any("number" in k for k in self._value_kinds(prop))
        return ["year", "(", value, ")"] if years else [value]

    def _compared_with(self, question: str, units: Sequence[str], word: str) -> str | None:
        """The entity among the units that the question compares with: named right after "than" or the
        comparing word ("farther from the sun than Earth", "directed after Alien"), or after a possessive
        there ("than dali's persistence of memory") or "the one in" ("than the one in leipzig": a thing
        named alike, `named_alike`, takes its place), misspelt or not, by its label or,
        when no other unit has it, by a name within it ("longer than the Congo": the Congo River);
        None without one."""
        if self.index is None:
            return None
        words = normalize(question).split()
        entities = [u for u in units if self._kind(u) == "entity"]
        starts = [
            i + 1 + (words[i + 1 : i + 2] == ["the"]) for i, w in enumerate(words) if w in ("than", word)
        ]
        # "older than the one in leipzig": the thing of its kind named by the place ("the one" of it)
        starts += [
            at + 2 for at in starts if words[at : at + 1] == ["one"] and words[at + 1 : at + 2] in _ONE_OF
        ]
        owned = [  # "older than dali's persistence of memory": the thing after its owner's possessive
            at + 1 + (words[at + 1 : at + 2] == ["the"])
            for start in starts
            for at in range(start + 1, min(start + 4, len(words)))
            if words[at] == "s"
        ]

        def after(name: str, at: Sequence[int]) -> bool:  # misspelt or not ("than uranuim")
            return any(_said_at(words, start, [name.split()]) is not None for start in at)

        def label(u: str) -> str:  # "the" and a qualifier aside ("2001: A Space Odyssey (film)")
            return " ".join(
                w for w in normalize(QUALIFIER.sub("", self.index.label(u) or "")).split() if w != "the"
            )

        if not entities:
            return None
        names = self._names_of(entities, Said(question, self.index))
        for at in (owned, starts):  # the owned thing first: its owner is named right after "than" too
            labelled = next((u for u in entities if label(u) and after(label(u), at)), None)
            if labelled is not None:
                return labelled
            named = next((u for u in entities if any(after(" ".join(n), at) for n in names[u][1:])), None)
            if named is not None:
                return named
        return None

    def _answer_body(self, tokens: Sequence[str]) -> tuple[str, int, list[str]] | None:
        """(answer variable, position of the closing brace, the patterns between the braces) of a
        query, for a rewrite that adds patterns; None without an answer variable or braces."""
        var = answer_variable(tokens, token_types(tokens, self.prefixes))
        found = braces(tokens)
        if var is None or found is None:
            return None
        open_at, close = found
        return var, close, list(tokens[open_at + 1 : close])

    def _bound_values(self, tokens: Sequence[str], var: str) -> dict[str, str]:
        """property -> the variable a pattern `var property ?value` binds: a ranking or comparison by a
        measure the query already reads uses its variable rather than reading the values twice."""
        bound: dict[str, str] = {}
        for s, p, o in triple_patterns(tokens, token_types(tokens, self.prefixes)):
            if tokens[s] == var and tokens[o].startswith("?"):
                bound.setdefault(tokens[p], tokens[o])
        return bound

    def _measures(
        self, tokens: list[str], var: str, body: list[str], value: str, units: Sequence[str], question: str
    ) -> list[tuple[int, str]]:
        """What a ranking or comparison of the answers of `body` can use (`_measured`): the measure a
        unit of the question names, else the units' measured properties, else the one measure of the class the answers have or the question asks
        for ("the first album by the Beatles": release year); a class with several says nothing without
        a word for one ("which planet is first from the sun" is not its year of discovery)."""
        unit = self._unit_measure(question)
        measured = self._measured([unit[0]], body, var, value) if unit is not None else []
        if measured:
            return measured  # "countries with more people than Argentina": population, whatever is linked
        measured = self._measured([u for u in units if self._kind(u) == "property"], body, var, value)
        if measured or self.index is None:
            return measured
        typed = self._types_of(tokens, token_types(tokens, self.prefixes), var)
        classes = typed or [c for c in [self.asked_class(question, units)] if c]
        only = [a for c in classes if len(a := self.index.attributes(c, 2)) == 1]
        measured = self._measured([m for a in only for m in a], body, var, value)
        if measured or classes:
            return measured
        # no class to go by ("the eldest of the Pink Floyd members"): the one measure all answers have
        props = self._literal_measures(var, body)
        own = self._measured(props, body, var, value)
        counted = f"select ( count ( distinct {var} ) as ?_n ) where {{".split()
        every = self._query(detokenize([*counted, *body, "}"], self.prefixes))
        total = int(float(every.rows[0][0])) if every.ok and every.rows and every.rows[0][0] else -1
        return own if len(own) == 1 and own[0][0] == total else []

    def _measured(self, props: Sequence[str], body: list[str], var: str, rank: str) -> list[tuple[int, str]]:
        """(answers that have it, property) for each of `props` whose values are numbers or dates and
        that some answers of `body` have, most answers first: what a ranking of them can order by."""
        measured: list[tuple[int, str]] = []
        for prop in dict.fromkeys(props):
            if not self._measured_values(prop):
                continue
            count = f"select ( count ( distinct {var} ) as ?_n ) where {{".split()
            counted = self._query(detokenize([*count, *body, ".", var, prop, rank, "}"], self.prefixes))
            n = int(float(counted.rows[0][0])) if counted.ok and counted.rows and counted.rows[0][0] else 0
            if n:
                measured.append((n, prop))
        return sorted(measured, key=lambda m: -m[0])
