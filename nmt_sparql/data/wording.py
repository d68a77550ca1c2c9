"""A question grammar for query graphs: words any KB from its labels, and more with a lexicon.

The grammar knows each element's kind and range. The wh-word comes from the answer's type (who for
persons, where for places, when for dates and years, how many for counts, how high/long/... for
measures); a property is worded as a noun ("the director of X", "X's director", "whose director
is X") and, when its label allows, as a verb in the active and the passive ("who directed X?",
"which films were directed by X?", "what did X direct?"), derived with lemminflect from labels such
as "director" (an agent noun: direct), "flows through" (a verb) or "located in" (a participle). A
lexicon file (`nmt_sparql.data.lexicon`) adds phrasings the labels cannot give, and people's word
order where the question word stays in place ("X was directed by who?", "X directed Y, true?").
Classes are worded singular and plural. Each graph's phrasings fall into families (verb questions,
noun questions, bare phrases, requests), one family is drawn by FAMILY_WEIGHTS and then a phrasing,
and a share of questions is lower-cased, without final punctuation or with one typo (never inside a
KB element's name).

Each KB element whose label the wording contains is marked `<...>` (LC-QuAD 1.0 style), so
tag-within annotation aligns it exactly; `question` returns the marked text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache

import pyoxigraph as ox
from lemminflect import getAllInflections, getInflection, getLemma

from nmt_sparql.data.generate import DATE_TYPES, NUMERIC_TYPES, KBGraph
from nmt_sparql.data.lexicon import Lexicon
from nmt_sparql.data.pathindex import FactIndex
from nmt_sparql.data.querygraph import Path, QueryGraph

PERSON_WORDS = {"person", "people", "human", "individual"}
PLACE_WORDS = {
    "place", "location", "city", "country", "continent", "region", "state", "town", "village", "settlement",
    "province", "county", "island", "municipality", "territory", "district",
}  # fmt: skip
PREPOSITIONS = {
    "in",
    "on",
    "at",
    "of",
    "by",
    "through",
    "after",
    "from",
    "to",
    "for",
    "with",
    "into",
    "about",
}
AUX = {"is": "are", "was": "were", "are": "are", "were": "were"}
# Adjectives of measure nouns (generic English), and their opposites, for "how high", "the longest".
MEASURES = {
    "elevation": "high", "height": "tall", "altitude": "high", "length": "long", "area": "large",
    "depth": "deep", "width": "wide", "weight": "heavy", "mass": "heavy", "age": "old", "size": "big",
    "distance": "far", "duration": "long",
}  # fmt: skip
OPPOSITES = {
    "high": "low", "tall": "short", "long": "short", "large": "small", "big": "small", "deep": "shallow",
    "wide": "narrow", "heavy": "light", "old": "young", "far": "near",
}  # fmt: skip
NOT_AGENTS = {"number", "order", "member", "letter", "water", "minister", "master", "mother", "father"}
MORE = {
    ">": ("greater than", "more than", "above", "over"),
    "<": ("less than", "below", "under", "fewer than"),
}
CHECKS = ("true", "right", "correct")  # a statement made a yes/no question: "<X> was born in <Y>, true?"
LATER = {">": ("after", "later than"), "<": ("before", "earlier than")}
MOST = {"DESC": ("highest", "largest", "greatest"), "ASC": ("lowest", "smallest", "least")}
LATEST = {"DESC": ("latest", "most recent"), "ASC": ("earliest",)}
LOWERCASE_RATE = 0.2
NO_PUNCTUATION_RATE = 0.2
TYPO_RATE = 0.05
CONTRACTION_RATE = 0.3  # "What is" -> "What's"
# How often each family of phrasing is chosen, when the graph has one: people mostly ask questions,
# with a verb where the property has one ("who directed <X>?") or with its noun ("who is the director
# of <X>?"); some type a bare phrase ("<X>'s films"), few write a request ("List the ...").
FAMILY_WEIGHTS = {"verb question": 0.35, "question": 0.35, "phrase": 0.15, "request": 0.15}
LEAD_IN_RATE = 0.1  # "Can you tell me who ...", "I'd like a list of the cities ..."
# Words people put before a question, a request, or a bare noun phrase ("Stanford alumni").
LEAD_INS = {
    "question": ("Can you tell me", "Do you know", "Please tell me", "I want to know", "I wonder"),
    "request": ("Please", "Could you", "Can you"),
    "phrase": ("Show me", "Give me", "I'd like a list of", "Find", "List all", "I want to see", "Search for"),
}
_QUESTION_WORDS = {
    "what", "who", "whom", "whose", "which", "where", "when", "how", "in", "on", "from", "is", "are", "was",
    "were", "do", "does", "did", "has", "have", "had", "can", "could", "would", "will", "should",
}  # fmt: skip
_REQUEST_WORDS = {"list", "give", "name", "tell", "count", "show"}
_CONTRACTIBLE = re.compile(r"^(What|Who|Where|When|How|That|It) is\b", re.I)


# ---------------------------------------------------------------------------------------------------
# Morphology (lemminflect)


def _first(forms: tuple[str, ...], fallback: str) -> str:
    return forms[0] if forms else fallback


def plural(noun: str) -> str:
    """The plural of a noun phrase: its last word inflected ("film director" -> "film directors")."""
    words = noun.split()
    # The head is the word before a prepositional phrase ("position from the Sun"), else the last.
    at = next((i - 1 for i, w in enumerate(words) if i > 0 and w.lower() in PREPOSITIONS), len(words) - 1)
    last = words[at]
    words[at] = "people" if last.lower() == "person" else _first(getInflection(last, "NNS"), last + "s")
    return " ".join(words)


@lru_cache(maxsize=4096)
def _verb_lemma(word: str) -> str | None:
    """The verb `word` inflects, when lemminflect knows it as a verb."""
    lemma = _first(getLemma(word, "VERB"), word)
    return lemma if getAllInflections(lemma, upos="VERB") else None


def _is_form(word: str, tag: str) -> bool:
    lemma = _verb_lemma(word)
    return lemma is not None and lemma != word and word in getInflection(lemma, tag)


def _agent_verb(noun: str) -> str | None:
    """The verb of an agent noun ("director" -> direct, "composer" -> compose), if there is one."""
    if noun in NOT_AGENTS or not noun.endswith(("er", "or")):
        return None
    for stem in (noun[:-2], noun[:-2] + "e", noun[:-1]):
        if len(stem) >= 3 and getAllInflections(stem, upos="VERB"):
            return stem
    return None


def derived_clauses(label: str) -> list[str]:
    """Active/passive clauses a property's label implies, with `{s}`/`{o}` slots; [] for plain nouns."""
    words = label.lower().split()
    if not words:
        return []
    head = words[0]
    text = " ".join(words)
    if len(words) >= 2 and words[-1] in PREPOSITIONS:
        if _is_form(head, "VBZ"):
            return [f"{{s}} {text} {{o}}"]  # "flows through"
        return [f"{{s}} is {text} {{o}}"]  # "located in", "based on", "part of"
    if len(words) == 1 and _is_form(head, "VBZ"):
        vbn = _first(getInflection(_verb_lemma(head) or head, "VBN"), head)
        return [f"{{s}} {head} {{o}}", f"{{o}} is {vbn} by {{s}}"]  # "orbits"
    verb = _agent_verb(head) if len(words) == 1 else None
    if verb:
        vbd, vbn = _first(getInflection(verb, "VBD"), verb), _first(getInflection(verb, "VBN"), verb)
        return [f"{{o}} {vbd} {{s}}", f"{{s}} was {vbn} by {{o}}"]
    return []


def _agree(words: list[str], many: bool) -> list[str]:
    """The clause's first verb made plural when the subject is."""
    if not many or not words:
        return words
    head = words[0]
    if head in AUX:
        return [AUX[head], *words[1:]]
    if head == "has":
        return ["have", *words[1:]]
    if _is_form(head, "VBZ"):
        return [_verb_lemma(head) or head, *words[1:]]
    return words


def _degree(adjective: str, tag: str) -> str:
    if len(adjective) > 6:
        return ("more " if tag == "JJR" else "most ") + adjective
    return _first(getInflection(adjective, tag), adjective)


def _article(noun: str) -> str:
    bare = noun.lstrip("<").lower()
    return "an" if bare[:1] in "aeiou" and not bare.startswith(("uni", "use", "eu", "one")) else "a"


# ---------------------------------------------------------------------------------------------------
# Clauses: "{o} directed {s}", "{s} was born in {o}"


Mark = Callable[[str], str]


def _parts(template: str) -> tuple[str, list[str], str | None]:
    """(lead slot, words between, tail slot or None) of a clause template."""
    lead = template[1]
    rest = template[3:].split()
    tail = None
    if rest and rest[-1] in ("{s}", "{o}"):
        tail = rest[-1][1]
        rest = rest[:-1]
    return lead, rest, tail


def _plain(text: str) -> str:
    return text


def _declarative(template: str, s: str, o: str, mark: Mark = _plain) -> str:
    """The clause with both slots filled, its relation words marked: "<X> <was directed by> <Y>"."""
    lead, middle, tail = _parts(template)
    first, second = (s, o) if lead == "s" else (o, s)
    return " ".join([first, mark(" ".join(middle)), *([second] if tail else [])])


def _subject_gap(template: str, gap: str, other: str, many: bool, mark: Mark = _plain) -> str | None:
    """The predicate of the clause with `gap` as its subject ("was directed by <X>"), or None."""
    lead, middle, tail = _parts(template)
    if lead != gap or tail is None or tail == gap or not middle:
        return None
    return f"{mark(' '.join(_agree(middle, many)))} {other}"


def _last_slot_words(template: str, gap: str) -> list[str] | None:
    """The clause's words between its slots when `gap` is its last slot (the object side), else None."""
    lead, middle, tail = _parts(template)
    return middle if tail == gap and lead != gap and middle else None


def _object_gap(template: str, gap: str, other: str, wh: str, mark: Mark = _plain) -> str | None:
    """The clause questioned on its last slot: "what did <X> direct", "when was <X> born"."""
    middle = _last_slot_words(template, gap)
    if middle is None:
        return None
    head, rest = middle[0], middle[1:]
    if wh.lower() in ("when", "where") and rest and rest[-1] in ("in", "on", "at"):
        rest = rest[:-1]
    if head in AUX or head == "has" and rest:
        return " ".join([wh, head, other, mark(" ".join(rest))]) if rest else None
    lemma = _verb_lemma(head)
    if lemma is None:
        return None
    aux = "did" if _is_form(head, "VBD") else "does" if _is_form(head, "VBZ") else "do"
    return " ".join([wh, aux, other, mark(" ".join([lemma, *rest]))])


def _in_situ(template: str, gap: str, other: str, wh: str, mark: Mark = _plain) -> str | None:
    """The clause with the question word left in its last slot, as people type it: "<X> <was directed
    by> who", "<X> <was released in> what year"."""
    middle = _last_slot_words(template, gap)
    if middle is None:
        return None
    preposition = middle[-1] in PREPOSITIONS
    if wh == "When":
        wh = ("what date" if middle[-1] == "on" else "what year") if preposition else "when"
    elif wh == "Where":
        wh = "what place" if preposition else "where"
    return " ".join([other, mark(" ".join(middle)), wh[:1].lower() + wh[1:]])


def _relative_object(template: str, gap: str, other: str, mark: Mark = _plain) -> str | None:
    """A relative clause on the last slot: "that <X> directed"."""
    middle = _last_slot_words(template, gap)
    if middle is None:
        return None
    return " ".join(["that", other, mark(" ".join(middle))])


def _yes_no(template: str, s: str, o: str, mark: Mark = _plain) -> str | None:
    """The clause as a yes/no question: "was <X> directed by <Y>", "did <Y> direct <X>"."""
    lead, middle, tail = _parts(template)
    first, second = (s, o) if lead == "s" else (o, s)
    if not middle:
        return None
    head, rest = middle[0], middle[1:]
    end = [second] if tail else []
    if head in AUX:
        return " ".join([head.capitalize(), first, *([mark(" ".join(rest))] if rest else []), *end])
    lemma = _verb_lemma(head)
    if lemma is None:
        return None
    aux = "Did" if _is_form(head, "VBD") else "Does"
    return " ".join([aux, first, mark(" ".join([lemma, *rest])), *end])


# ---------------------------------------------------------------------------------------------------

TAG = "\ue000"  # separates a mark's words from the index of the element it names, until `worded` returns
_TAGGED = re.compile(r"<([^<>\ue000]*)\ue000(\d+)>")


class Wording:
    """Words query graphs of one KB; `question(graph, answer, rng)` gives one marked question."""

    def __init__(
        self, g: KBGraph, superclasses: dict[str, set[str]], lexicon: Lexicon, paths: FactIndex | None = None
    ):
        """`paths`: the KB's facts indexed both ways (the synthesizer's, else built here)."""
        self.g, self.supers, self.lexicon = g, superclasses, lexicon
        self.paths = paths or FactIndex.build(g)
        self._kinds: dict[str, str] = {}
        self._tags: list[str] = []  # the IRI each tagged mark of the question being worded names
        self._verbs: set[str] = set()  # phrasings of the question being worded that use the property's verb

    def _verbal(self, questions: list[str]) -> list[str]:
        """`questions` (or predicates), remembered as using the property's verb ("who directed <X>?")."""
        self._verbs.update(questions)
        return questions

    def _m(self, text: str, iri: str | None = None) -> str:
        """A mark; tagged with the element it names, so the element's label can be the words used."""
        if iri is None:
            return f"<{text}>"
        self._tags.append(iri)
        return f"<{text}{TAG}{len(self._tags) - 1}>"

    def marker(self, iri: str) -> Mark:
        return lambda text: self._m(text, iri)

    # -- kinds and ranges -------------------------------------------------------------------------

    def _class_words(self, c: str) -> set[str]:
        words: set[str] = set()
        for k in self.supers.get(c, {c}) | {c}:
            label = self.g.labels.get(k) or re.split(r"[/#]", k)[-1]
            words |= {label.lower(), re.split(r"[/#]", k)[-1].lower()}
        return words

    def entity_type(self, iri: str) -> str:
        if iri not in self._kinds:
            words = set().union(*(self._class_words(c) for c in self.g.types.get(iri, [])), set())
            self._kinds[iri] = (
                "person" if words & PERSON_WORDS else "place" if words & PLACE_WORDS else "thing"
            )
        return self._kinds[iri]

    def answer_type(self, answers: frozenset[str] | set[str]) -> str:
        """person, place, date, year, number, string or thing: what the wh-word asks for."""
        literal = next((a for a in sorted(answers) if a.startswith('"')), None)
        if literal is not None:
            match = re.search(r"\^\^<([^>]+)>$", literal)
            datatype = match.group(1) if match else ""
            return "date" if datatype in DATE_TYPES else "number" if datatype in NUMERIC_TYPES else "string"
        kinds = {self.entity_type(a) for a in answers}
        return kinds.pop() if len(kinds) == 1 else "thing"

    def common_class(self, answers: frozenset[str] | set[str]) -> str | None:
        """The most specific class every answer belongs to (fewest members), if any."""
        shared: set[str] | None = None
        for a in answers:
            classes = set(self.g.types.get(a, []))
            shared = classes if shared is None else shared & classes
        if not shared:
            return None
        return min(sorted(shared), key=lambda c: len(self.g.members.get(c, [])))

    # -- words for elements ---------------------------------------------------------------------

    def _label(self, iri: str) -> str:
        return self.g.labels.get(iri) or re.split(r"[/#]", iri)[-1]

    def term(self, term: ox.NamedNode | ox.Literal) -> str:
        if isinstance(term, ox.NamedNode):
            return self._m(self._label(term.value), term.value)
        return self._m(term.value)

    def class_noun(self, c: str, many: bool, rng: random.Random, in_query: bool = True) -> str:
        """A class's noun, singular or plural, marked when it is the class label (or its plural) and
        the query names the class (an unmarked noun otherwise: a mark must align to a query element)."""
        label = self._label(c)
        nouns = list(self.lexicon.get(c, "noun")) or [
            label.lower() if label[:1].isupper() and " " not in label else label
        ]
        noun = rng.choice(nouns)
        if many:
            plurals = self.lexicon.get(c, "plural")
            noun = rng.choice(plurals) if plurals and noun == nouns[0] else plural(noun)
        return self._m(noun, c) if in_query else noun

    def prop_nouns(self, p: str, many: bool = False) -> list[str]:
        label = self._label(p)
        nouns = list(self.lexicon.get(p, "noun"))
        words = label.lower().split()
        verbal = not words or words[-1] in PREPOSITIONS or (len(words) == 1 and _is_form(words[0], "VBZ"))
        if not nouns and not verbal:
            nouns = [label]
        out = []
        for noun in nouns:
            form = plural(noun) if many else noun
            out.append(self._m(form, p))
        return out

    def clauses(self, p: str) -> list[str]:
        given = list(self.lexicon.get(p, "active")) + list(self.lexicon.get(p, "passive"))
        return given or derived_clauses(self._label(p))

    def measure(self, p: str, rng: random.Random) -> str | None:
        """The adjective of a measure property; any of the lexicon's ("high" or "tall" for elevation)."""
        given = self.lexicon.get(p, "measure")
        if given:
            return rng.choice(given)
        return MEASURES.get(self._label(p).lower().split()[-1])

    def _is_time(self, p: str) -> bool:
        """A date property, or a number labelled as a year ("release year")."""
        datatypes = {o.datatype.value for _, o in self.g.facts.get(p, []) if isinstance(o, ox.Literal)}
        return bool(datatypes & DATE_TYPES) or "year" in self._label(p).lower().split()

    # -- noun phrases and predicates of paths ---------------------------------------------------

    def np(self, path: Path, rng: random.Random) -> str:
        """A noun phrase for the node at the start of `path` (its anchor when the path is empty)."""
        if not path.steps:
            return self.term(path.anchor)
        step, rest = path.steps[0], Path(path.steps[1:], path.anchor)
        inner = self.np(rest, rng)
        nouns = self.prop_nouns(step.prop)
        options: list[str] = []
        nodes = self.nodes(path)
        c = self.common_class(nodes)
        if c is not None:  # "the band Dave Grohl played in", "the countries the Nile flows through"
            many = len(nodes) > 1
            noun = self.class_noun(c, many, rng, in_query=False)
            options += [f"the {noun} {r}" for r in self.relatives(path, many, rng)]
            if not rest.steps and self.only_link(path, c):
                options.append(f"{inner}'s {noun}")  # "Schrödinger's university", "Dave Grohl's band"
        if not step.forward:
            options += [f"the {n} of {inner}" for n in nouns]
            if not rest.steps:
                options += [f"{inner}'s {n}" for n in nouns]
            if not rest.steps:  # an object relative around a relative is unreadable
                options += [
                    f"the one {r}"
                    for c in self.clauses(step.prop)
                    if (r := _relative_object(c, "o", inner, self.marker(step.prop)))
                ]
        else:
            options += [f"the one whose {n} is {inner}" for n in nouns]
            options += [
                f"the one that {v}"
                for c in self.clauses(step.prop)
                if (v := _subject_gap(c, "s", inner, False, self.marker(step.prop)))
            ]
        return rng.choice(options) if options else f"the {self._label(step.prop)} of {inner}"

    def nodes(self, path: Path) -> set[str]:
        """The entities the start of `path` stands for in the KB (none when it ends in a literal)."""
        return self.paths.answers(path) if isinstance(path.anchor, ox.NamedNode) else set()

    def only_link(self, path: Path, c: str | None) -> bool:
        """Whether the path's one step is the only property joining its anchor to members of class
        `c`, so that a class noun says which ("Van Gogh's paintings": painter, "Einstein's university")."""
        if c is None or len(path.steps) != 1 or not isinstance(path.anchor, ox.NamedNode):
            return False
        step, anchor = path.steps[0], path.anchor.value
        if step.forward:
            links = {p for s, p in self.g.into.get(anchor, []) if c in self.g.types.get(s, [])}
        else:
            links = {
                p
                for p, o in self.g.out.get(anchor, [])
                if isinstance(o, ox.NamedNode) and c in self.g.types.get(o.value, [])
            }
        return links == {step.prop}

    def predicates(self, path: Path, many: bool, rng: random.Random) -> list[str]:
        """Verb phrases saying that the answer meets `path` ("was directed by <X>")."""
        step, rest = path.steps[0], Path(path.steps[1:], path.anchor)
        inner = self.np(rest, rng)
        out: list[str] = []
        have, be = ("have", "are") if many else ("has", "is")
        for n in self.prop_nouns(step.prop):
            if step.forward:
                out.append(f"{have} {inner} as {'their' if many else 'its'} {n}")
                if not rest.steps:
                    out.append(f"{have} the {n} {inner}")
            else:
                out.append(f"{be} the {plural(n) if many and n[:1] != '<' else n} of {inner}")
        gap = "s" if step.forward else "o"
        mark = self.marker(step.prop)
        out += self._verbal(
            [v for c in self.clauses(step.prop) if (v := _subject_gap(c, gap, inner, many, mark))]
        )
        return out

    def relatives(self, path: Path, many: bool, rng: random.Random) -> list[str]:
        """Relative clauses restricting the answer to `path` ("that <X> directed", "whose ... is")."""
        step, rest = path.steps[0], Path(path.steps[1:], path.anchor)
        inner = self.np(rest, rng)
        out = [f"that {v}" for v in self.predicates(path, many, rng)]
        if step.forward:
            out += [f"whose {n} is {inner}" for n in self.prop_nouns(step.prop)]
        if not rest.steps:
            gap = "s" if step.forward else "o"
            mark = self.marker(step.prop)
            objects = [r for c in self.clauses(step.prop) if (r := _relative_object(c, gap, inner, mark))]
            out += objects + [r.removeprefix("that ") for r in objects]  # "the films Nolan directed"
        return out

    # -- questions --------------------------------------------------------------------------------

    def _thing(self, graph: QueryGraph, answers: frozenset[str], many: bool, rng: random.Random) -> str:
        """The answer's noun: its class when constrained, else the class all answers share, else a word."""
        if graph.answer_class:
            return self.class_noun(graph.answer_class, many, rng)
        shared = self.common_class(answers) if rng.random() < 0.5 else None
        if shared is not None:
            return self.class_noun(shared, many, rng, in_query=False)
        kind = self.answer_type(answers)
        if kind == "person":
            return "people" if many else "person"
        if kind == "place":
            return "places" if many else "place"
        return "things" if many else "thing"

    def _wh(self, graph: QueryGraph, answers: frozenset[str], rng: random.Random) -> str:
        if graph.answer_class is None:
            kind = self.answer_type(answers)
            if kind == "person":
                return "Who"
            if rng.random() < 0.6:
                return "What"
        thing = self._thing(graph, answers, False, rng)
        return "What" if thing in ("thing", "place") else f"{rng.choice(('Which', 'What'))} {thing}"

    def _restricted(self, graph: QueryGraph, many: bool, rng: random.Random) -> str:
        """ "that ... and ..." for every path of the graph ("" when there is none)."""
        parts = []
        for i, path in enumerate(graph.paths):
            options = self.relatives(path, many, rng) if i == 0 else self.predicates(path, many, rng)
            if options:
                parts.append(rng.choice(options))
        return " and ".join(parts)

    def _owned(
        self, graph: QueryGraph, answers: frozenset[str], many: bool, rng: random.Random
    ) -> tuple[str, str, bool] | None:
        """(anchor, class noun, whether the anchor may modify the noun) when one step joins the answer
        to its anchor and the class says which property: "Van Gogh's paintings", "Einstein's
        universities"; "the Van Gogh paintings" only when the answer is the subject ("Einstein
        universities" would not say it)."""
        if len(graph.paths) != 1 or len(graph.paths[0].steps) != 1:
            return None
        path = graph.paths[0]
        c = graph.answer_class or self.common_class(answers)
        if c is None or not self.only_link(path, c):
            return None
        noun = self.class_noun(c, many, rng, in_query=graph.answer_class is not None)
        return self.term(path.anchor), noun, path.steps[0].forward

    def _select(self, graph: QueryGraph, answers: frozenset[str], rng: random.Random) -> list[str]:
        many = len(answers) > 1
        out: list[str] = []
        owned = self._owned(graph, answers, True, rng)
        if owned:
            anchor, noun, modifies = owned
            out += [f"List {anchor}'s {noun}.", f"What are {anchor}'s {noun}?"]
            if modifies:
                out += [
                    f"Which are the {anchor} {noun}?",
                    f"{anchor} {noun}",
                    f"Give me the {anchor} {noun}.",
                ]
        preds = [self.predicates(p, False, rng) for p in graph.paths]
        if all(preds):
            wh = self._wh(graph, answers, rng)
            out.append(f"{wh} {' and '.join(rng.choice(p) for p in preds)}?")
        things = self._thing(graph, answers, True, rng)
        rel = self._restricted(graph, True, rng)
        if rel:
            out += [f"List the {things} {rel}.", f"Give me all {things} {rel}.", f"{things} {rel}"]
        if len(graph.paths) == 1 and graph.answer_class is None:
            out += self._one_path(graph.paths[0], answers, many, rng)
        elif len(graph.paths) == 1:
            path = graph.paths[0]
            wh = f"{rng.choice(('Which', 'What'))} {self.class_noun(graph.answer_class, many, rng)}"
            out += self._object_questions(path, wh, rng, in_situ=True)
        return out

    def _object_questions(self, path: Path, wh: str, rng: random.Random, in_situ: bool = False) -> list[str]:
        """ "What did <X> direct?"; with `in_situ`, also the clause with `wh` left in the gap, as people
        type it ("<X> <directed> what?")."""
        step, rest = path.steps[0], Path(path.steps[1:], path.anchor)
        inner = self.np(rest, rng)
        gap = "s" if step.forward else "o"
        mark = self.marker(step.prop)
        worders = (_object_gap, _in_situ) if in_situ else (_object_gap,)
        return self._verbal(
            [
                f"{q}?"
                for word in worders
                for c in self.clauses(step.prop)
                if (q := word(c, gap, inner, wh, mark))
            ]
        )

    def _one_path(self, path: Path, answers: frozenset[str], many: bool, rng: random.Random) -> list[str]:
        """Questions that name the property as the answer's role: "what is the capital of <X>?"."""
        step, rest = path.steps[0], Path(path.steps[1:], path.anchor)
        inner = self.np(rest, rng)
        kind = self.answer_type(answers)
        who = "Who" if kind == "person" else "What"
        out: list[str] = []
        if step.forward:
            out += [f"Whose {n} is {inner}?" for n in self.prop_nouns(step.prop) if kind == "person"]
            wh = {"person": "Who", "place": "Where"}.get(kind, "What")
            return out + self._object_questions(path, wh, rng, in_situ=True)
        for n in self.prop_nouns(step.prop):
            out += [
                f"{who} is the {n} of {inner}?",
                f"Tell me the {n} of {inner}.",
                f"Give me the {n} of {inner}.",
            ]
            if not rest.steps:
                out.append(f"{who} is {inner}'s {n}?")
            if many:
                ns = plural(n) if n[:1] != "<" else n
                out += [f"{who} are the {ns} of {inner}?", f"List the {ns} of {inner}."]
        if kind in ("date", "number") and self._is_time(step.prop):
            out += self._object_questions(path, "When", rng, in_situ=True)
            out += self._verbal([f"In which year {q[5:]}" for q in self._object_questions(path, "When", rng)])
        elif kind == "number":
            adjective = self.measure(step.prop, rng)
            if adjective:
                out.append(f"How {self._m(adjective, step.prop)} is {inner}?")
        elif kind == "place":
            out += self._object_questions(path, "Where", rng, in_situ=True)
        else:
            out += self._object_questions(path, who, rng, in_situ=True)
        out += [q.replace("{s}", inner) for q in self.lexicon.get(step.prop, "question")]
        return out

    def _count(self, graph: QueryGraph, answers: frozenset[str], rng: random.Random) -> list[str]:
        things = self._thing(graph, answers, True, rng)
        preds = [self.predicates(p, True, rng) for p in graph.paths]
        out: list[str] = []
        owned = self._owned(graph, answers, True, rng)
        if owned:
            anchor, noun, modifies = owned
            out.append(
                f"How many {anchor} {noun} are there?" if modifies else f"How many {noun} does {anchor} have?"
            )
        if all(preds):
            out.append(f"How many {things} {' and '.join(rng.choice(p) for p in preds)}?")
        rel = self._restricted(graph, True, rng)
        if rel:
            out += [f"Count the {things} {rel}.", f"What is the number of {things} {rel}?"]
        if len(graph.paths) == 1:
            path = graph.paths[0]
            step, rest = path.steps[0], Path(path.steps[1:], path.anchor)
            inner = self.np(rest, rng)
            out += self._object_questions(path, f"How many {things}", rng)
            if not step.forward and graph.answer_class is None:
                for n in self.prop_nouns(step.prop, many=True):
                    out += [f"How many {n} does {inner} have?", f"What is the number of {n} of {inner}?"]
        return out

    def _ask(self, graph: QueryGraph, rng: random.Random) -> list[str]:
        assert graph.target is not None
        if not graph.paths:  # ASK { E a C }
            assert graph.answer_class is not None
            target = self.term(graph.target)
            noun, nouns = (self.class_noun(graph.answer_class, many, rng) for many in (False, True))
            a = _article(noun)
            return [
                f"Is {target} {a} {noun}?",
                f"Is {target} one of the {nouns}?",
                f"Is {target} among the {nouns}?",
                f"Is it true that {target} is {a} {noun}?",
                f"Would you call {target} {a} {noun}?",
                f"{target} is {a} {noun}, {rng.choice(CHECKS)}?",
            ]
        path = graph.paths[0]
        step, rest = path.steps[0], Path(path.steps[1:], path.anchor)
        inner, target = self.np(rest, rng), self.term(graph.target)
        s, o = (target, inner) if step.forward else (inner, target)
        out = [f"Is {o} the {n} of {s}?" for n in self.prop_nouns(step.prop)]
        if step.forward or not rest.steps:  # the triple's subject is a name: "Is <Y> <X>'s <capital>?"
            out += [f"Is {o} {s}'s {n}?" for n in self.prop_nouns(step.prop)]
        out += [f"Does {s} have {o} as its {n}?" for n in self.prop_nouns(step.prop)]
        mark = self.marker(step.prop)
        out += self._verbal([f"{q}?" for c in self.clauses(step.prop) if (q := _yes_no(c, s, o, mark))])
        out += [f"Is it true that {_declarative(c, s, o, mark)}?" for c in self.clauses(step.prop)]
        out += self._verbal(
            [f"{_declarative(c, s, o, mark)}, {rng.choice(CHECKS)}?" for c in self.clauses(step.prop)]
        )
        return out

    def _time_predicates(self, p: str, many: bool) -> list[str]:
        """ "were released" for "{s} was released in {o}": a time property's bare predicate."""
        out = []
        for c in self.clauses(p):
            lead, middle, tail = _parts(c)
            if lead == "s" and tail == "o" and len(middle) >= 2 and middle[-1] in ("in", "on", "at"):
                out.append(self._m(" ".join(_agree(middle[:-1], many)), p))
        return out

    def _compare(self, graph: QueryGraph, answers: frozenset[str], rng: random.Random) -> list[str]:
        assert graph.value_prop and graph.op
        p = graph.value_prop
        things = self._thing(graph, answers, True, rng)
        rel = self._restricted(graph, True, rng)
        rel = f" {rel}" if rel else ""
        n = self._m(number_words(graph.threshold or "", rng))
        time = self._is_time(p)
        cmp = rng.choice(LATER[graph.op] if time else MORE[graph.op])
        out: list[str] = []
        for noun in self.prop_nouns(p):
            out += [
                f"Which {things}{rel} have {_article(noun)} {noun} {cmp} {n}?",
                f"List the {things}{rel} whose {noun} is {cmp} {n}.",
                f"Give me all {things}{rel} with {_article(noun)} {noun} {cmp} {n}.",
                f"{things}{rel} with {_article(noun)} {noun} {cmp} {n}",
            ]
        if time:
            out += [f"Which {things}{rel} {v} {cmp} {n}?" for v in self._time_predicates(p, True)]
            out += [f"{things}{rel} that {v} {cmp} {n}" for v in self._time_predicates(p, True)]
        units = self.lexicon.get(p, "unit")
        if not time:
            out += [f"Which {things}{rel} have {cmp} {n} {self._unit(unit, p)}?" for unit in units]
        adjective = self.measure(p, rng)
        if adjective and not time:
            word = adjective if graph.op == ">" else OPPOSITES.get(adjective)
            if word:
                unit = f" {self._unit(rng.choice(units), p)}" if units else ""
                out.append(f"Which {things}{rel} are {self._m(_degree(word, 'JJR'), p)} than {n}{unit}?")
        return out

    def _unit(self, unit: str, p: str) -> str:
        """A unit marked as its property ("inhabitants": population), so the linker learns it; not a
        word for persons ("people"), which names a class far more often than a measure."""
        return unit if unit.lower() in PERSON_WORDS else self._m(unit, p)

    def _superlative(self, graph: QueryGraph, answers: frozenset[str], rng: random.Random) -> list[str]:
        assert graph.value_prop and graph.op
        p = graph.value_prop
        thing = self._thing(graph, answers, False, rng)
        rel = self._restricted(graph, False, rng)
        rel = f" {rel}" if rel else ""
        time = self._is_time(p)
        most = rng.choice(LATEST[graph.op] if time else MOST[graph.op])
        out: list[str] = []
        for noun in self.prop_nouns(p):
            out += [
                f"Which {thing}{rel} has the {most} {noun}?",
                f"What is the {thing}{rel} with the {most} {noun}?",
                f"Name the {thing}{rel} with the {most} {noun}.",
            ]
        person = self.answer_type(answers) == "person"
        if time:
            when = "first" if graph.op == "ASC" else rng.choice(("last", "most recently"))
            out += [f"Which {thing}{rel} {v} {when}?" for v in self._time_predicates(p, False)]
            age = (
                "oldest"
                if graph.op == "ASC"
                else "youngest"
                if person
                else rng.choice(("newest", "most recent"))
            )
            age = self._m(age, p)
            out += [f"What is the {age} {thing}{rel}?", f"Who is the {age} {thing}{rel}?" if person else ""]
        adjective = self.measure(p, rng)
        superlatives: list[str] = []  # adjectives that say the ranking on their own
        if adjective and not time:
            word = adjective if graph.op == "DESC" else OPPOSITES.get(adjective)
            if word:
                best = self._m(_degree(word, "JJS"), p)
                superlatives.append(best)
                out += [f"What is the {best} {thing}{rel}?", f"Which is the {best} {thing}{rel}?"]
        if not time:  # "the largest country by area"
            most_word = rng.choice(MOST[graph.op])
            out += [f"What is the {most_word} {thing}{rel} by {n}?" for n in self.prop_nouns(p)]
        if time:
            superlatives += [age] if person else [age, self._m(rng.choice(LATEST[graph.op]), p)]
        owned = self._owned(graph, answers, False, rng)  # "the earliest Van Gogh painting"
        for best in superlatives if owned else ():
            anchor, noun, modifies = owned
            out += [f"Which is {anchor}'s {best} {noun}?", f"{anchor}'s {best} {noun}"]
            out += [f"What is the {best} {anchor} {noun}?"] if modifies else []
        role = graph.paths[0] if len(graph.paths) == 1 and not graph.answer_class else None
        if superlatives and role and len(role.steps) == 1 and not role.steps[0].forward:
            anchor, wh = self.term(role.anchor), "Who" if person else "What"
            for n in self.prop_nouns(role.steps[0].prop):  # "the oldest member of Queen"
                best = rng.choice(superlatives)
                out += [f"{wh} is the {best} {n} of {anchor}?", f"{anchor}'s {best} {n}"]
        return out

    def _contains(self, graph: QueryGraph, rng: random.Random) -> list[str]:
        assert graph.answer_class and graph.threshold
        one, many, w = (
            self.class_noun(graph.answer_class, False, rng),
            self.class_noun(graph.answer_class, True, rng),
            self._m(graph.threshold),
        )
        return [
            f"Which {one} has a name containing {w}?",
            f"List every {one} whose label contains {w}.",
            f"Give me the {many} with {w} in their name.",
            f"Which {many} have {w} in their names?",
        ]

    def question(self, graph: QueryGraph, answer: frozenset[str] | int | bool, rng: random.Random) -> str:
        """One marked question for `graph` (whose executed answer is `answer`), noise included."""
        return self.worded(graph, answer, rng)[0]

    def worded(
        self, graph: QueryGraph, answer: frozenset[str] | int | bool, rng: random.Random
    ) -> tuple[str, dict[str, str]]:
        """(marked question, IRI -> the words that name it there): every element the wording names
        is marked, its words kept as its label so that annotation aligns each mark exactly."""
        self._tags, self._verbs = [], set()
        answers = answer if isinstance(answer, frozenset) else frozenset()
        if graph.form == "ask":
            options = self._ask(graph, rng)
        elif graph.form == "count":
            options = self._count(graph, self._count_answers(graph), rng)
        elif graph.form == "filter":
            options = self._compare(graph, answers, rng)
        elif graph.form == "superlative":
            options = self._superlative(graph, answers, rng)
        elif graph.form == "contains":
            options = self._contains(graph, rng)
        else:
            options = self._select(graph, answers, rng)
        options = [o for o in options if o]
        if not options:
            options = [f"What is {self.np(graph.paths[0], rng)}?"] if graph.paths else ["What is it?"]
        labels: dict[str, str] = {}

        def untag(match: re.Match[str]) -> str:
            labels.setdefault(self._tags[int(match.group(2))], match.group(1))
            return f"<{match.group(1)}>"

        return _TAGGED.sub(untag, surface(self._pick(options, rng), rng)), labels

    def _pick(self, options: list[str], rng: random.Random) -> str:
        """One option, by family first (FAMILY_WEIGHTS): how many phrasings a family has for a graph
        must not decide how often people are taken to use it."""
        families: dict[str, list[str]] = {}
        for option in options:
            families.setdefault(self._family(option), []).append(option)
        names = sorted(families)
        family = rng.choices(names, weights=[FAMILY_WEIGHTS[n] for n in names])[0]
        return rng.choice(families[family])

    def _family(self, option: str) -> str:
        """A request, a phrase, or a question that asks with a verb or with a noun."""
        if option.split(maxsplit=1)[0].lower() in _REQUEST_WORDS:
            return "request"
        if not option.endswith("?"):
            return "phrase"
        return "verb question" if any(verb in option for verb in self._verbs) else "question"

    def _count_answers(self, graph: QueryGraph) -> frozenset[str]:
        """The counted entities' classes decide the noun of "how many ..."; the class alone when given."""
        if graph.answer_class:
            return frozenset(self.g.members[graph.answer_class][:1])
        step = graph.paths[0].steps[0]
        pairs = self.g.facts.get(step.prop, [])
        found = (
            {s for s, _ in pairs}
            if step.forward
            else {o.value for _, o in pairs if isinstance(o, ox.NamedNode)}
        )
        return frozenset(sorted(found)[:50])


# ---------------------------------------------------------------------------------------------------
# Surface noise

SCALES = ((1_000_000_000, "billion"), (1_000_000, "million"))
SCALE_WORDS_RATE = 0.5


def number_words(value: str, rng: random.Random) -> str:
    """A large round number as people write it, at SCALE_WORDS_RATE: 200000000 -> "200 million",
    1500000 -> "1.5 million" (the linker reads both forms back as the same number)."""
    if not value.isdigit() or rng.random() >= SCALE_WORDS_RATE:
        return value
    number = int(value)
    for scale, word in SCALES:
        if number >= scale and number % (scale // 10) == 0:
            whole, tenth = divmod(number // (scale // 10), 10)
            return f"{whole}.{tenth} {word}" if tenth else f"{whole} {word}"
    return value


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word) - 1)
    kind = rng.choice(("swap", "drop", "double"))
    if kind == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def _outside_marks(marked: str) -> list[tuple[int, int]]:
    """Spans of words (4+ letters) outside every `<...>` mark: where a typo may go."""
    return [m.span() for m in re.finditer(r"<[^<>]*>|[A-Za-z]{4,}", marked) if not m.group().startswith("<")]


def lead_in(text: str, rng: random.Random) -> str:
    """`text` after words that ask for it politely or indirectly, chosen by what it is (a question,
    a request or a noun phrase); a KB element's name keeps its capitals. A statement that asks
    ("<X> directed what?", "<X> is a river, true?") takes none."""
    first = text.split(maxsplit=1)[0].lower() if text else ""
    kind = "question" if first in _QUESTION_WORDS else "request" if first in _REQUEST_WORDS else "phrase"
    if kind == "phrase" and text.endswith("?"):
        return text
    body = text if text.startswith("<") else text[:1].lower() + text[1:]
    return f"{rng.choice(LEAD_INS[kind])} {body}"


def surface(marked: str, rng: random.Random) -> str:
    """Capitalized and punctuated, or (at small rates) lower-cased, unpunctuated, with one typo or a lead-in."""
    text = " ".join(marked.split())
    text = text[:1].upper() + text[1:] if not text.startswith("<") else text
    if rng.random() < CONTRACTION_RATE:
        text = _CONTRACTIBLE.sub(lambda m: f"{m.group(1)}'s", text)
    if rng.random() < TYPO_RATE:
        spans = _outside_marks(text)
        if spans:
            start, end = rng.choice(spans)
            text = text[:start] + _typo(text[start:end], rng) + text[end:]
    if rng.random() < LEAD_IN_RATE:  # after the typo: a lead-in's words are kept as they are
        text = lead_in(text, rng)
    if rng.random() < LOWERCASE_RATE:
        text = text.lower()
    if rng.random() < NO_PUNCTUATION_RATE:
        text = text.rstrip("?.")
    return text
