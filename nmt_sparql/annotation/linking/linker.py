"""Question -> candidate KB elements: mention detection over word n-grams, candidates from a `KBIndex`.

Spans are tried longest first; a span that finds elements claims its words, so "Ridley Scott" is not
also looked up as "Scott". Several candidates are kept per mention, one set per kind ("country": the
class and the property), because only the query decides which one is meant; the model chooses.
A span made of stopwords only ("it", "the") is skipped: the novel *It* is not in "Is it true that..."
(a capitalised stopword inside the question, "Who wrote It?", is still looked up). A span that
starts or ends with a stopword only counts when it is a whole label ("The Shining").
Numbers, years, dates, quoted strings, words after "contains" and capitalised words that name no
element become literal candidates, written as sparql/tokens.py writes literal tokens.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Collection, Generator, Sequence
from dataclasses import dataclass
from decimal import Decimal

from nmt_sparql.annotation.linking.embedder import Embedder
from nmt_sparql.annotation.linking.index import (
    EXACT,
    FUZZY,
    KEYWORDS,
    KINDS,
    PREFIX,
    QUALIFIER,
    Hit,
    KBIndex,
    first_name_variant,
    misspelt,
    normalize,
)
from nmt_sparql.annotation.linking.wordforms import (
    is_adjective,
    is_common_noun,
    is_dictionary_word,
    is_graded,
    past_of_another_verb,
    place_names,
)

_STOPWORDS = (
    "a about above after again all am an and any are as at be been before being below between both but by "
    "can could did do does doing down during each few for from further had has have having he her here hers "
    "herself him himself his how i if in into is it its itself just me more most my myself no nor not now of "
    "off on once only or other our ours out over own same she should so some such than that the their theirs "
    "them themselves then there these they this those through to too under until up very was we were what "
    "when where which while who whom whose why will with would you your yours s t give tell list name show "
    "many much count number d ll m re ve "
    # contractions typed without their apostrophe ("whats the capital of France"), which would otherwise
    # look like names no dictionary holds and be corrected to one ("What's Going On")
    "whats whos wheres whens hows whys thats theres heres dont doesnt didnt isnt wasnt arent werent cant "
    "couldnt wouldnt shouldnt hasnt havent hadnt im ive youre theyre"
)  # d, ll, m, re, ve: what is left of "I'd", "I'll", "I'm", "you're", "I've" (not the "D." of a name)
STOPWORDS = frozenset(_STOPWORDS.split())
_WORD = re.compile(r"\w+")
_PLAIN = re.compile(r"[^\W_]+")  # a word the index's tokenizer reads as one word, as Python does
_ACRONYM = re.compile(r"[A-Z]{2,5}")
_LOWER_ACRONYM = re.compile(r"[a-z]{3,5}")  # not two letters: "es" of "Dar es Salaam"


def _acronym(word: str) -> bool:
    """Whether `word` may be an acronym: in capitals, or in lower case, three letters or more, and no word
    a dictionary knows."""
    if _ACRONYM.fullmatch(word):
        return True
    return bool(_LOWER_ACRONYM.fullmatch(word)) and word not in STOPWORDS and not is_dictionary_word(word)


_CLIPPED = re.compile(r"[a-z]{6,}")  # a word long enough to clip two words of a name
_MAX_WORDS = 8  # "The Lion, the Witch and the Wardrobe"
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”|\'([^\']+)\'(?!\w)')
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
# "200 million", "1.5 billion": a number and its scale word, read as the number they name.
# Number words a scale word may follow ("five million").
_COUNTS = dict(zip((
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty",
    "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
), (*range(1, 21), 30, 40, 50, 60, 70, 80, 90)))  # fmt: skip
_SCALED = re.compile(
    rf"(?<![\w.])(\d+(?:\.\d+)?|an?|{'|'.join(_COUNTS)})\s+(hundred|thousand|million|billion|trillion)\b",
    re.I,
)
_SCALE = {"hundred": 10**2, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
# Words a question gives as text to match, not as a name: "contains (the word) X", "the letter t",
# "with X in its name".
_TEXT_VALUE = (
    re.compile(
        r"\b(?:contains?|containing|includes?|including)\s+(?:the\s+(?:word|string|letter)\s+)?(\w+)", re.I
    ),
    re.compile(r"\b(?:the\s+)?(?:word|string)\s+[\"'“]?(\w+)", re.I),
    re.compile(r"\b(?:the\s+)?letter\s+[\"'“]?(\w)\b", re.I),
    re.compile(r"\b(\w+)\s+in\s+(?:its|their|the)\s+(?:name|label|title)s?\b", re.I),
)
# A keyword match must cover at least this share of the label's words ("Mozart" of "Wolfgang Amadeus Mozart").
_MIN_COVERAGE = 0.33
# A span's last word of at most this many letters is never read as a misspelt beginning of a label word.
_MIN_PREFIX_TYPO = 4
# At most this many elements of one label per mention.
_SAME_LABEL = 4
_IMPLICIT_SCORE = 0.05
# Candidate.score of a whole-label match (EXACT tier; a partial match scores below 0.8).
_WHOLE_LABEL = 0.9
# A property proposed because the KB links two of the question's elements with it (`relations`).
_RELATION_SCORE = 0.3
# Elements of each kind whose pairs are looked up for relations (the best-scored ones).
_RELATION_ENTITIES, _RELATION_CLASSES = 4, 3
# Measured properties (numbers, dates) proposed for a question that orders or measures (`attributes`).
_ATTRIBUTES = 3
# A property the question describes (`described`): the sentence similarity of the question's other
# words with its label must reach this (chosen on held-out 4: right ones 0.34-0.71, wrong tops <= 0.29).
_DESCRIBED_MIN = 0.3
# Entities (best-scored first) whose properties are ranked against the question's words.
_DESCRIBED_ENTITIES = 2
# A value a word beside a class names ("horror novels": Horror fiction): the word's sentence similarity
# with the value's label must reach this (held-out 4: right ones 0.69-0.93, wrong bests <= 0.52).
_VALUE_MIN = 0.6
# A property or class of the whole index proposed for its likeness to the question's words (`similar`):
# the sentence similarity must reach this; placed after the question's words, ranked below relations.
_SIMILAR_MIN = 0.2
_SIMILAR_SCORE = 0.2
# A place a place adjective names ("German": Germany): below a label the question says, above a part of one.
_PLACE_SCORE = 0.85
# Words of a property label that say it holds a time; a question that asks when proposes such properties.
_TIME_NOUNS = frozenset({"year", "date", "day", "month", "decade", "century", "time"})


def _without(entities: Sequence[Candidate], question: str) -> str:
    """The question without the entities' names (spans may overlap or coincide), its spacing made
    single; empty when no word but stopwords is left."""
    rest = "".join(
        " " if any(c.start <= i < c.end for c in entities) else ch for i, ch in enumerate(question)
    )
    if not any(w.lower() not in STOPWORDS for w in _WORD.findall(rest)):
        return ""
    return " ".join(rest.split())


@dataclass(frozen=True)
class Candidate:
    """A KB element (or literal) the question may mean, with the character span that names it."""

    token: str
    kind: str
    label: str
    start: int
    end: int
    score: float
    said: bool = True  # False: proposed by the KB's structure or a likeness, not by words that name it


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def literal_candidates(question: str) -> list[Candidate]:
    """Numbers (22.4, 1,000 -> 1000, 200 million -> 200000000, a million or five million), ISO dates ("1990-05-01"^^xsd:date), quoted strings, contained words."""
    found: list[Candidate] = []
    taken: list[tuple[int, int]] = []
    for m in _QUOTED.finditer(question):
        value = next(g for g in m.groups() if g is not None).strip()
        if value:
            found.append(Candidate(_quote(value), "literal", value, m.start(), m.end(), 1.0))
            taken.append(m.span())
    for m in _DATE.finditer(question):
        if not any(s <= m.start() < e for s, e in taken):
            found.append(Candidate(f'"{m.group()}"^^xsd:date', "literal", m.group(), m.start(), m.end(), 1.0))
            taken.append(m.span())
    for m in _SCALED.finditer(question):
        if not any(s <= m.start() < e for s, e in taken):
            word = m.group(1).lower()  # "a million", "five million", "1.5 million"
            count = Decimal(_COUNTS.get(word, 1)) if word.isalpha() else Decimal(word)
            value = count * _SCALE[m.group(2).lower()]
            found.append(Candidate(str(int(value) if value == int(value) else value), "literal", m.group(),
                                   m.start(), m.end(), 1.0))  # fmt: skip
            taken.append(m.span())
    for m in _NUMBER.finditer(question):
        if not any(s <= m.start() < e for s, e in taken):
            value = m.group().replace(",", "")
            found.append(Candidate(value, "literal", value, m.start(), m.end(), 1.0))
    for pattern in _TEXT_VALUE:
        for m in pattern.finditer(question):
            if not any(s <= m.start(1) < e for s, e in taken) and not m.group(1).isdigit():
                # A letter is matched case-insensitively by the queries that ask for one: written lower-case.
                value = m.group(1).lower() if len(m.group(1)) == 1 else m.group(1)
                found.append(Candidate(_quote(value), "literal", value, m.start(1), m.end(1), 0.9))
                taken.append(m.span(1))
    return found


def _dated(label: str) -> bool:
    """Whether a property's label says it holds a time ("formation year", "birth date")."""
    return bool(_TIME_NOUNS & set(normalize(label).split()))


def _date_word(words: Sequence[re.Match[str]], texts: Sequence[str]) -> re.Match[str] | None:
    """The word that asks for a time, for a question that asks when ("When did Nirvana form?", "what
    year did nirvana get together", "In which year ..."): "when" first, or a time noun after a
    leading "what"/"which" (after "in"/"on"/"during")."""
    k = 1 if texts[:1] and texts[0] in ("in", "on", "during") else 0
    if texts[k : k + 1] == ["when"]:
        return words[k]
    if texts[k : k + 1] in (["what"], ["which"]) and texts[k + 1 : k + 2] and texts[k + 1] in _TIME_NOUNS:
        return words[k + 1]
    return None


def _capitalised(word: str) -> bool:
    return word[:1].isupper()


def _in_qualifier(hit: Hit, words: Sequence[str]) -> bool:
    """Whether a partial match found the span only in the label's qualifier ("Beethoven" in "Symphony
    No. 9 (Beethoven)"): that names another element, not this one."""
    qualifier = QUALIFIER.search(hit.matched)
    if hit.tier >= EXACT or qualifier is None:
        return False
    bare = set(normalize(hit.matched[: qualifier.start()]).split())
    return not set(normalize(" ".join(words)).split()) & bare


def _head_of(hit: Hit, words: Sequence[str]) -> bool:
    """Whether the span is the head (last words) of the class label it matched ("elements" of
    "chemical elements"): a kind of that class, as a name of it."""
    said = normalize(" ".join(words)).split()
    return (
        hit.kind == "class" and hit.tier == KEYWORDS and normalize(hit.matched).split()[-len(said) :] == said
    )


class Linker:
    """Finds the KB elements and literals a question may mean (`link`), deterministically."""

    def __init__(
        self,
        index: KBIndex,
        per_mention: int = 3,
        max_words: int = _MAX_WORDS,
        fuzzy: bool = True,
        implicit: Sequence[str] | None = None,
        relations: int = 2,
        embedder: str | Embedder | None = None,
        described: int = 1,
        similar: int = 0,
    ):
        """`implicit`: elements proposed for every question, with an empty span at 0 (the elements most
        queries use whatever the words, sources.frequent_elements; None: those the index stores). `relations`: for each pair of
        linked entities, and each linked class and entity, the properties (at most this many) the KB
        joins them with, so a relation the question leaves unsaid is a candidate ("Is Everest in
        Nepal?": country; "universities in London": city); an index without facts proposes none.
        `embedder` (a sentence encoder's name, linking/embedder.py; None: none): the `described` properties
        of the linked entities that the question's other words are most similar to, when no label
        names them ("what does Brian May do for a living": occupation), and the values of a linked class
        that words beside it describe ("horror novels": Horror fiction); `described=0` turns both off.
        `similar` (with an embedder): this many labels of properties, and of classes, of the whole index
        whose sentence similarity to the question's words besides the linked entities' names is highest,
        for a KB without facts (LC-QuAD's DBpedia elements), where no entity's properties can be ranked."""
        for name, value in (("described", described), ("similar", similar)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"linked.{name} must be a whole number >= 0, got {value!r}")
        if not (embedder is None or isinstance(embedder, str) or hasattr(embedder, "similarity")):
            raise ValueError(f"linked.embedder must be a model name or folder (or null), got {embedder!r}")
        if similar and embedder is None:
            raise ValueError("linked.similar ranks labels with the sentence encoder: set linked.embedder too")
        self.index = index
        self.relations = relations
        self.embedder = Embedder(embedder) if isinstance(embedder, str) else embedder
        self.described = described
        self.similar = similar
        self._by_label: dict[str, list[tuple[str, str]]] | None = None  # label -> (token, kind), `similar`
        self._values: dict[str, tuple[list[str], list[str]]] = {}
        self.per_mention = per_mention
        self.max_words = max(1, min(max_words, index.max_words or 1))
        self.fuzzy = fuzzy
        # Questions of one dataset share most of their spans ("What is the", "population of").
        self._cached_hits = functools.lru_cache(maxsize=200_000)(self._hits)
        self._cached_matches = functools.lru_cache(maxsize=200_000)(self._matches)
        # The same names come back in many questions: each one's senses are read from the index once.
        self._cached_senses = functools.lru_cache(maxsize=100_000)(self.index.senses)
        self.implicit = [
            Candidate(token, kind, self.index.label(token) or token, 0, 0, _IMPLICIT_SCORE, said=False)
            for token in (index.implicit if implicit is None else implicit)
            if (kind := self.index.kind(token)) is not None
        ]

    def _compound_hits(self, first: str, second: str) -> list[Hit]:
        """The elements named by one word that two words of the question spell apart ("business people":
        businessperson, whose forms the index holds; "song writers": songwriter)."""
        joined = first + second
        return [
            h
            for h in self._cached_hits((joined,), False, False)
            if h.tier >= EXACT and normalize(h.matched) == joined
        ]

    def _hits(self, words: tuple[str, ...], edge_stopword: bool, capitalised: bool) -> list[Hit]:
        """The best hits of each kind for a span: those of the best tier that kind reaches, best first.

        A partial or corrected match needs a span that looks like a name: a capitalised word that does
        not open the question and is no stopword (`capitalised`: "Was Apple founded ...", not "The"), or
        a word no English dictionary
        holds ("kubrick", "Ridly"); otherwise "city" would bring "Mexico City" and "contains" would be
        corrected to "mountains". A class is also named by the head of its label ("elements": chemical
        element).
        """
        named = capitalised or not all(is_dictionary_word(w) for w in words)
        phrase = " ".join(words)
        if not self._cached_matches(words):  # most spans match nothing: one lookup, not one per kind
            return []
        accepted = {
            kind: [
                h
                for h in self.index.lookup(phrase, [kind], k=self.per_mention * _SAME_LABEL * 2)
                if self._accept(h, edge_stopword, named or _head_of(h, words), words)
                and not _in_qualifier(h, words)
            ]
            for kind in KINDS
        }
        if any(h.coverage >= 1 - 1e-9 or _head_of(h, words) for h in accepted["class"]):
            # Words that name a class (misspelt, they look like a name: "mountians") name no entity
            # by a part of its label: "Rocky Mountains" is not called "mountains"; nor by a plural:
            # "painters" are the class's members, not the occupation ("painter" still names both).
            accepted["entity"] = [h for h in accepted["entity"] if h.tier >= EXACT and not h.derived]
        kept: list[Hit] = []
        for kind in KINDS:
            good = accepted[kind]
            # Elements that share a label take one place together (dbo:location and dbp:location;
            # Wikidata's wdt:/p:/ps:/pq: forms of one property): a label cannot tell them apart.
            places: dict[str, int] = {}
            for h in good:
                if h.tier != good[0].tier:
                    break
                label = h.label.casefold()
                if label not in places and len(places) == self.per_mention:
                    continue
                if places.get(label, 0) < _SAME_LABEL:
                    places[label] = places.get(label, 0) + 1
                    kept.append(h)
        return kept

    def _matches(self, words: tuple[str, ...]) -> bool:
        """Whether any label matches the span, at any tier. Matching only narrows as a span grows: a
        label a span matches holds the span's words but its last (that one as a prefix, or a correction
        of each), so it also matches the span without its last word, and without its first when the
        shorter span's last word is still looked up as a prefix (two letters or more, or after another
        word). A span of many words is therefore looked up only when both shorter spans match: most
        spans of a question are never sent to the index."""
        if len(words) > 1:
            for part, keeps_last in ((words[:-1], False), (words[1:], True)):
                if len(part) == 1 and not keeps_last and first_name_variant(normalize(part[0])):
                    continue  # a first name spelt otherwise matches only with the rest of the name
                said = normalize(" ".join(part)).split()
                prefixed = len(said) > 1 or (len(said) == 1 and len(said[0]) >= 2)
                plain = said and all(_PLAIN.fullmatch(w) for w in said)
                if plain and (prefixed or not keeps_last) and not self._cached_matches(part):
                    return False
        return bool(self.index.lookup(" ".join(words), k=1))

    def _accept(self, hit: Hit, edge_stopword: bool, named: bool, words: Sequence[str]) -> bool:
        """Whether a hit for the span `words` is a candidate: a whole label; a label holding the span's
        words (keywords); for a span that looks like a name, a correction, or a label whose word the
        span's last word, no English word and not short, begins and misspells ("Edinburg": Edinburgh;
        not "Edin", nor "Ring" for Ringo, nor "thre" for three)."""
        if hit.tier >= EXACT:
            return True
        if edge_stopword or not (named or hit.coverage >= 1 - 1e-9):
            return False
        if hit.tier == KEYWORDS:
            return hit.coverage >= _MIN_COVERAGE - 1e-9
        if hit.tier == PREFIX:
            last = normalize(words[-1]) if words else ""
            cut = (
                len(last) > _MIN_PREFIX_TYPO
                and not is_dictionary_word(last)
                and any(w.startswith(last) and misspelt(last, w) for w in normalize(hit.matched).split())
            )
            return self.fuzzy and named and cut and hit.coverage >= _MIN_COVERAGE - 1e-9
        return self.fuzzy and named and hit.tier == FUZZY and hit.coverage >= _MIN_COVERAGE - 1e-9

    def _named_by(self, token: str, words: Collection[str]) -> bool:
        """Whether one of the element's names holds one of `words` (find, finds: a finder's, not founder's)."""
        return any(w in words for name in self.index.names(token) for w in name.split())

    def link(self, question: str) -> list[Candidate]:
        """Candidates sorted by start, then score (highest first), then token, entities that tie as found
        (the index's rank: the more popular of two equal matches first); one per token (its best)."""
        return self.link_many([question])[0]

    def link_many(self, questions: Sequence[str]) -> list[list[Candidate]]:
        """`link` of each question. The questions are linked side by side, so that the sentence encoder
        meets the texts they all ask about in one batch at each step (one text at a time costs ~10x
        more on a CPU); the candidates are those `link` gives each question alone."""
        runs = [self._linking(question) for question in questions]
        found: list[list[Candidate]] = [[] for _ in questions]
        pending = list(range(len(questions)))
        while pending:
            texts: dict[str, None] = {}
            waiting = []
            for i in pending:
                try:
                    texts.update(dict.fromkeys(next(runs[i])))
                except StopIteration as done:
                    found[i] = done.value
                else:
                    waiting.append(i)
            if texts and hasattr(self.embedder, "cache"):
                self.embedder.cache(texts)  # the steps that asked for them read them back
            pending = waiting
        return found

    def _linking(self, question: str) -> Generator[list[str], None, list[Candidate]]:
        """`link` of one question, yielding the texts the sentence encoder is about to be asked about
        (`link_many` encodes those of all questions together)."""
        words = list(_WORD.finditer(question))
        literals = literal_candidates(question)
        literal_spans = [(c.start, c.end) for c in literals]
        texts = [w.group() for w in words]
        lowered = [t.lower() for t in texts]
        stop = [w in STOPWORDS and not (i > 0 and _capitalised(texts[i])) for i, w in enumerate(lowered)]
        in_literal = [any(s <= w.start() < e for s, e in literal_spans) for w in words]
        claimed = [False] * len(words)
        found: list[Candidate] = [*literals, *self.implicit]
        for n in range(min(self.max_words, len(words)), 0, -1):
            for i in range(len(words) - n + 1):
                j = i + n
                if all(stop[i:j]) or all(in_literal[i:j]):
                    continue
                # a span of stopwords only ("The", "It") counts as a whole label, never as part of one
                edge = stop[i] or stop[j - 1] or all(w in STOPWORDS for w in lowered[i:j])
                hits = self._cached_hits(
                    tuple(texts[i:j]),
                    edge,
                    any(_capitalised(t) and t.lower() not in STOPWORDS for t in texts[max(i, 1) : j]),
                )
                if n == 2 and not hits and not any(stop[i:j]):
                    hits = self._compound_hits(lowered[i], lowered[i + 1])
                if any(claimed[i:j]):
                    # Inside a longer mention found by its whole label: only a property or class label of
                    # a kind the longer one lacks ("director" in "film director": the property besides the
                    # class), nothing inside a name ("Star" in "Star Wars"), only a class inside a kind of
                    # thing (`common`: "films" in "horror films", the class besides the genre). Inside a
                    # partial or corrected match, which may have taken words that were not its own: any
                    # whole label.
                    inside = [c for c in found if c.start <= words[i].start() and words[j - 1].end() <= c.end]
                    whole = {c.kind for c in inside if c.score >= _WHOLE_LABEL}
                    common = [c for c in inside if c.score >= _WHOLE_LABEL and c.kind == "entity"]
                    if any(not is_common_noun(c.label) for c in common):
                        continue
                    hits = [
                        h
                        for h in hits
                        if h.tier >= EXACT
                        and h.kind not in whole
                        and not (whole and h.kind == "entity")
                        and not (common and h.kind != "class")
                    ]
                other = past_of_another_verb(lowered, i) if n == 1 and hits else ()
                if other:
                    hits = [
                        h
                        for h in hits
                        if normalize(h.matched) != lowered[i] or self._named_by(h.token, other)
                    ]
                if not hits:
                    continue
                start, end = words[i].start(), words[j - 1].end()
                found += [
                    Candidate(h.token, h.kind, h.label, start, end, round(h.score / (EXACT + 0.5), 6))
                    for h in hits
                ]
                claimed[i:j] = [True] * n
        found += self._sense_candidates(found)
        found += self._place_candidates(found, words, stop)
        for k, w in enumerate(words):
            # A word in capitals that names nothing may be an acronym ("universities in the UK"); not in
            # a question written all in capitals, whose every word would be one. So may a word in lower
            # case that no dictionary knows ("people who studied at mit"). Initials that several entities
            # fit about as well name none of them, nor a string ("LP": Larry Page, Linus Pauling...).
            if claimed[k] or in_literal[k] or question.isupper() or not _acronym(w.group()):
                continue
            hits = self.index.initialled(w.group(), _SAME_LABEL)
            if len(hits) == 1:
                found += [Candidate(h.token, h.kind, h.label, w.start(), w.end(), _PLACE_SCORE) for h in hits]
            claimed[k] = bool(hits)
        for k, w in enumerate(words):
            # A long word that names nothing and no dictionary knows may clip two words of a name
            # ("caltech": California Institute of Technology).
            lowered = w.group().lower()
            if (
                claimed[k]
                or in_literal[k]
                or not _CLIPPED.fullmatch(lowered)
                or lowered in STOPWORDS
                or is_dictionary_word(lowered)
            ):
                continue
            hits = self.index.clipped(lowered, _SAME_LABEL)
            found += [Candidate(h.token, h.kind, h.label, w.start(), w.end(), _PLACE_SCORE) for h in hits]
            claimed[k] = bool(hits)
        for k, w in enumerate(words):
            # A capitalised word inside the question that names no element: a string value ("symbol is Xe").
            if (
                k > 0
                and _capitalised(w.group())
                and not claimed[k]
                and not in_literal[k]
                and texts[k].lower() not in STOPWORDS
            ):
                found.append(Candidate(_quote(w.group()), "literal", w.group(), w.start(), w.end(), 0.5))
        best: dict[str, Candidate] = {}
        for c in found:
            if c.token not in best or (c.score, -c.start) > (best[c.token].score, -best[c.token].start):
                best[c.token] = c
        for c in (yield from self._described_values(list(best.values()), words)):
            best.setdefault(c.token, c)
        for c in self._relation_candidates(list(best.values())):
            best.setdefault(c.token, c)
        for c in self._attribute_candidates(list(best.values()), words):
            best.setdefault(c.token, c)
        for c in (yield from self._described_candidates(list(best.values()), question)):
            best.setdefault(c.token, c)
        for c in (yield from self._similar_candidates(list(best.values()), question)):
            best.setdefault(c.token, c)
        ordered = sorted(best.values(), key=lambda c: (c.start, -c.score, c.token))
        # Entities that tie keep the order they were found in: a span's hits come from the index most
        # popular first, so "wagner" lists the composer before his wife (by token, Cosima came first).
        found = {token: i for i, token in enumerate(best)}
        out: list[Candidate] = []
        for (*_, entity), group in itertools.groupby(
            ordered, key=lambda c: (c.start, c.score, c.kind == "entity")
        ):
            tied = list(group)
            out += sorted(tied, key=lambda c: found[c.token]) if entity else tied
        return out

    def _sense_candidates(self, found: list[Candidate]) -> list[Candidate]:
        """Beside an entity named by its whole label, the other things a longer name shortened to it
        may mean (`KBIndex.senses`): "the Amazon" may be the river, not only the company. Not for a kind
        of thing's label ("opera"), which no name shortens."""
        out: list[Candidate] = []
        for c in found:
            if (
                c.kind == "entity"
                and c.score >= _WHOLE_LABEL
                and c.end > c.start
                and not is_common_noun(c.label)
            ):
                out += [
                    Candidate(h.token, h.kind, h.label, c.start, c.end, _PLACE_SCORE)
                    for h in self._cached_senses(c.token, _SAME_LABEL)
                ]
        return out

    def _place_candidates(
        self, found: list[Candidate], words: list[re.Match[str]], stop: list[bool]
    ) -> list[Candidate]:
        """The places that place adjectives name ("German physicists": Germany, "Russians": Russia,
        "South American countries": South America), beside what the word itself names ("German" is
        also a language): an entity whose whole label is a `place_names` form of the word (with the
        word before it, first), at the word. No word that names a class or property by its label, nor
        one inside a longer name ("Roman Polanski", "Russian ruble"). A misspelt adjective, which names no
        place itself, is read as the word of a label it was corrected to ("russain": Russian, so Russia)."""
        out: list[Candidate] = []
        for k, w in enumerate(words):
            if stop[k] or any(
                c.kind != "entity" or (c.start, c.end) != w.span()
                for c in found
                if c.score >= _WHOLE_LABEL and c.start <= w.start() < c.end
            ):
                continue  # a class or property word, or a word of a longer name ("Roman Polanski")
            before = words[k - 1] if k > 0 and not stop[k - 1] else None
            start, hits = self._places_named(place_names(w.group()), before, w)
            if not hits:  # "russain"; not "austrian", a place adjective itself (Australian dollar)
                start, hits = self._places_named(self._corrected_place_names(found, w), before, w)
            out += [Candidate(h.token, h.kind, h.label, start, w.end(), _PLACE_SCORE) for h in hits]
        return out

    def _places_named(
        self, names: Sequence[str], before: re.Match[str] | None, word: re.Match[str]
    ) -> tuple[int, list[Hit]]:
        """Where the place mention starts, and the KB's places of those `names`. With the word before it,
        the word names one place ("South American": South America, not also the United States); alone,
        it names each place it may mean."""
        hits = [
            h
            for name in (names if before is not None else ())
            for h in self.index.exact(f"{before.group()} {name}", ["entity"], _SAME_LABEL)
        ]
        if hits and before is not None:
            return before.start(), hits
        hits = [h for name in names for h in self.index.exact(name, ["entity"], _SAME_LABEL)]
        # Of two places the word may come from, one's name the start of the other's, the longer one is
        # it: the shorter would need a longer suffix ("Nigerian": Nigeria, not Niger).
        said = [normalize(h.matched) for h in hits]
        return word.start(), [
            h
            for h, name in zip(hits, said, strict=True)
            if not any(other != name and other.startswith(name) for other in said)
        ]

    def _corrected_place_names(self, found: list[Candidate], word: re.Match[str]) -> tuple[str, ...]:
        """The `place_names` of the label word that a misspelt word (no dictionary word) was corrected to
        by an entity found at it: "russain" found the language Russian, whose word names Russia;
        "brazillian" found Brazilian real, whose first word names Brazil. Not a correction of the first
        letter: "uranian" (of Uranus) found the Iranian rial, but names no Iran."""
        said = normalize(word.group())
        if is_dictionary_word(said):
            return ()
        for c in found:
            if c.kind == "entity" and (c.start, c.end) == word.span() and c.score < _WHOLE_LABEL:
                for corrected in normalize(c.label).split():
                    if (
                        corrected != said
                        and corrected[0] == said[0]  # a typo rarely hits the first letter
                        and misspelt(said, corrected)
                        and (names := place_names(corrected))
                    ):
                        return names
        return ()

    def _attribute_candidates(self, found: list[Candidate], words: list[re.Match[str]]) -> list[Candidate]:
        """For a question that orders or measures ("the oldest university", "How tall is Everest?",
        "the most people"), the measured properties of its best class, else of its best entity, placed
        at the ordering word: the words seldom name the property ("oldest": founding year)."""
        if self.relations <= 0:
            return []
        texts = [w.group().lower() for w in words]
        at = next(
            (
                w
                for k, w in enumerate(words)
                if is_graded(texts[k])
                or (
                    k
                    and texts[k - 1] == "how"
                    and texts[k] not in ("many", "much")
                    and is_adjective(texts[k])
                )
            ),
            None,
        )
        # A question that asks when, and says no property of time, asks for one of the entity's.
        timed = at is None and not any(
            c.kind == "property" and c.score > _RELATION_SCORE and _dated(c.label) for c in found
        )
        at = at or (_date_word(words, texts) if timed else None)
        if at is None:
            return []
        for kind in ("class", "entity"):
            best = sorted((c for c in found if c.kind == kind), key=lambda c: (-c.score, c.start))
            if best:
                labelled = [
                    (token, self.index.label(token) or token)
                    for token in self.index.attributes(best[0].token, _ATTRIBUTES * (1 + timed))
                ]
                return [
                    Candidate(token, "property", label, at.start(), at.end(), _RELATION_SCORE, said=False)
                    for token, label in labelled
                    if not timed or _dated(label)
                ][:_ATTRIBUTES]
        return []

    def _described_candidates(
        self, found: list[Candidate], question: str
    ) -> Generator[list[str], None, list[Candidate]]:
        """The properties of the best linked entities that the question's words besides the entities'
        names are most like (sentence similarity of those words and the property's label, at least
        _DESCRIBED_MIN), when no label the question says names one of the entities' properties and the
        best of them is no candidate yet; placed at the entity's span."""
        if self.embedder is None or self.described <= 0:
            return []
        entities = sorted((c for c in found if c.kind == "entity"), key=lambda c: (-c.score, c.start))
        owners: dict[str, Candidate] = {}
        for entity in entities[:_DESCRIBED_ENTITIES]:
            for token in self.index.properties(entity.token):
                owners.setdefault(token, entity)
        said = {c.token for c in found if c.kind == "property" and c.score > _RELATION_SCORE}
        if not owners or said & owners.keys():
            return []  # the words already name a property of the entity: they say what is asked
        words = _without(entities, question)
        if not words:
            return []
        tokens = list(owners)
        labels = [self.index.label(t) or t for t in tokens]
        yield [words, *labels]
        ranked = sorted(zip(self.embedder.similarity(words, labels), tokens, labels),
                        key=lambda r: (-r[0], r[1]))[: self.described]  # fmt: skip
        present = {c.token for c in found}
        return [
            Candidate(
                token, "property", label, owners[token].start, owners[token].end, _RELATION_SCORE, said=False
            )
            for similarity, token, label in ranked
            if similarity >= _DESCRIBED_MIN and token not in present
        ]

    def _similar_candidates(
        self, found: list[Candidate], question: str
    ) -> Generator[list[str], None, list[Candidate]]:
        """The properties and classes of the whole index (`similar` labels of each kind, elements that
        share a label together) most like the question's words besides its entities' names, at least
        _SIMILAR_MIN, that are no candidate yet; after the question's words."""
        if self.similar <= 0:  # > 0 only with an encoder (refused otherwise in __init__)
            return []
        words = _without([c for c in found if c.kind == "entity"], question)
        if not words:
            return []
        if self._by_label is None:
            self._by_label = {}
            for token, kind, label in self.index.elements(("property", "class")):
                self._by_label.setdefault(label, []).append((token, kind))
        labels = list(self._by_label)
        yield [words, *labels]
        present = {c.token for c in found}
        close = [
            (s, label)
            for s, label in zip(self.embedder.similarity(words, labels), labels)
            if s >= _SIMILAR_MIN
        ]
        taken = {"property": 0, "class": 0}
        out, end = [], len(question)
        for _, label in sorted(close, key=lambda r: (-r[0], r[1])):  # the few close ones, not every label
            if min(taken.values()) >= self.similar:
                break
            for kind in taken:
                tokens = [t for t, k in self._by_label[label] if k == kind and t not in present]
                if tokens and taken[kind] < self.similar:
                    taken[kind] += 1
                    out += [
                        Candidate(t, kind, label, end, end, _SIMILAR_SCORE, said=False)
                        for t in tokens[:_SAME_LABEL]
                    ]
        return out

    def _described_values(
        self, found: list[Candidate], words: list[re.Match[str]]
    ) -> Generator[list[str], None, list[Candidate]]:
        """For a question that names a class, the element its members are linked to that a run of
        words beside it describes ("horror novels": Horror fiction, "companies in the car industry":
        Automotive): the words (no stopwords, no class, property or literal, no name an entity has in
        full: "rivers in Europe" asks for Europe, not for a country like it; a common noun of an entity
        that is no member of the class and that no member is linked to counts) most like the value's
        label, at least _VALUE_MIN; placed at the words, so the relations of the class and the value
        follow."""
        if self.embedder is None or self.described <= 0:
            return []
        classes = sorted((c for c in found if c.kind == "class"), key=lambda c: (-c.score, c.start))
        if not classes:
            return []
        cls = classes[0].token
        values, labels = self._values_of(cls)
        if not values:
            return []
        named = [
            (c.start, c.end)
            for c in found
            if c.end > c.start
            and (
                c.kind != "entity"
                or (c.score >= _WHOLE_LABEL and not is_common_noun(c.label))
                or cls in self.index.classes(c.token)
                or self.index.relations(cls, c.token, 1)
            )
        ]  # a common noun the class has nothing to do with may be a word for one of its values ("car")
        runs: list[list[re.Match[str]]] = [[]]
        for w in words:
            if w.group().lower() in STOPWORDS or any(s <= w.start() < e for s, e in named):
                runs.append([])
            else:
                runs[-1].append(w)
        present = {c.token for c in found}
        phrases = [" ".join(w.group() for w in run) for run in runs if run]
        if phrases:
            yield [*phrases, *labels]
        out = []
        for run, phrase in zip(filter(None, runs), phrases):
            similarity, value = max(zip(self.embedder.similarity(phrase, labels), values))
            if similarity >= _VALUE_MIN and value not in present:
                label = labels[values.index(value)]
                out.append(
                    Candidate(
                        value, "entity", label, run[0].start(), run[-1].end(), _RELATION_SCORE, said=False
                    )
                )
        return out

    def _values_of(self, cls: str) -> tuple[list[str], list[str]]:
        """A class's values (`KBIndex.values`) and their labels, looked up once per class."""
        if cls not in self._values:
            values = self.index.values(cls)
            self._values[cls] = (values, [self.index.label(v) or v for v in values])
        return self._values[cls]

    def _relation_candidates(self, found: list[Candidate]) -> list[Candidate]:
        """Properties that join two linked elements in the KB, placed at the later element's span; for a
        class and an entity that no fact joins, those of the two-fact paths that do; for two entities
        that no fact joins, those of the facts that link one thing to both."""
        if self.relations <= 0:
            return []

        def top(kind: str, n: int) -> list[Candidate]:
            return sorted((c for c in found if c.kind == kind), key=lambda c: (-c.score, c.start))[:n]

        entities, classes = top("entity", _RELATION_ENTITIES), top("class", _RELATION_CLASSES)
        pairs = [(a, b) for i, a in enumerate(entities) for b in entities[i + 1 :]]
        pairs += [(c, e) for c in classes for e in entities]
        # An entity named by a common noun that names no class or property is a value ("list the
        # physicists": occupation; "operas": genre): the properties that take it, even when nothing
        # else is linked ("writers" names the class, "artist" the property: their relations say it).
        spans = {(c.start, c.end) for c in found if c.kind != "entity" and c.score > _RELATION_SCORE}
        out = [
            Candidate(
                token,
                "property",
                self.index.label(token) or token,
                e.start,
                e.end,
                _RELATION_SCORE,
                said=False,
            )
            for e in entities
            if is_common_noun(e.label) and (e.start, e.end) not in spans
            for token in self.index.properties(e.token)[: self.relations]
        ]
        for a, b in pairs:
            at = max(a, b, key=lambda c: c.start)
            tokens = self.index.relations(a.token, b.token, self.relations)
            if not tokens:
                lookup = self.index.paths if a.kind == "class" else self.index.shared
                tokens = lookup(a.token, b.token, self.relations)
            for token in tokens:
                label = self.index.label(token) or token
                out.append(Candidate(token, "property", label, at.start, at.end, _RELATION_SCORE, said=False))
        return out
