"""The kind of answer a question asks for, read from its interrogative form, and whether an answer fits.

Execution feedback beyond "the query answers something": "Where was Einstein born?" asks for a place,
not the birth date that a model's best hypothesis may return; "Gold's chemical symbol?" is not a yes/no
question, so an ASK cannot answer it; "How tall is Everest?" asks for a measure, not a COUNT. Expected
answer types are a classic of question answering; here they only rank the hypotheses and rewrites that
repair tries (inference/repair.py): the first that answers *and* fits wins, and when none fits the first
that answers is kept, so a question whose form these rules do not know loses nothing.

English only: the rules read the question's first words (after a polite lead-in such as "Can you tell
me"), or a question word it ends with ("... was born where?"), so a question in another language expects
`ANY`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from lemminflect import getAllLemmas
from rapidfuzz.distance import OSA

from nmt_sparql.annotation.linking.wordforms import is_dictionary_word, is_past_only, is_verb_form
from nmt_sparql.core.marks import UNIT_PATTERN
from nmt_sparql.execution.answer import Answer, canonical_number

# Words that open a yes/no question ("Was Tesla an engineer?", "Does the Rhine flow through Basel?").
AUXILIARIES = frozenset({
    "is", "are", "was", "were", "am", "do", "does", "did", "has", "have", "had", "can", "could", "will",
    "would", "shall", "should", "may", "might", "must",
})  # fmt: skip
# Lead-ins that wrap a question without changing what it asks ("Can you tell me who ...", "Please list ...").
_LEAD_IN = re.compile(
    r"^(?:(?:and|so|ok|okay|hey|hi|please|now)\b[\s,]*"
    r"|(?:(?:can|could|would|will) you (?:please )?(?:(?:tell|show|give|list|name|find)(?: me| us)?\b|(?=count\b))"
    r"|do you know|i (?:want|would like|wish) to know|i wonder|tell me|show me"
    r"|i(?:['’]d| would) like(?: to (?:know|see))?|i want to see)\b[\s,]*)+",
    re.IGNORECASE,
)
# A word, with an apostrophe inside it ("what's", "teide's").
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# Words a typo ("Dooes", "mny", "nummber") must not hide; short or common look-alikes (is/as, most/must)
# are matched exactly only.
_TYPO_TOLERANT = (
    "does", "have", "were", "could", "would", "should", "many", "much", "number", "count", "where", "when",
    "which", "what", "whose", "whom", "whether",
)  # fmt: skip
TIME_NOUNS = frozenset({"year", "years", "date", "day", "month", "decade", "century"})
# "How many km long", "how many years old": a unit, then the dimension it measures: a value, not a count.
_DIMENSIONS = frozenset((
    "long", "tall", "high", "deep", "wide", "big", "large", "heavy", "old", "far", "away", "hot", "cold",
    "massive", "fast", "thick",
))  # fmt: skip
# Units of length, and of area (also a length after "square"): "how many km" asks for a value, not a count.
LENGTH_UNITS = frozenset({
    "kilometres", "kilometers", "kilometre", "kilometer", "km", "miles", "mile", "mi", "metres", "meters",
    "metre", "meter", "m", "feet", "foot", "ft",
})  # fmt: skip
AREA_UNITS = frozenset({"km2", "km²", "mi2", "mi²", "m2", "m²", "hectares", "acres", "sqkm"})
# Other units that measure and never count: mass, temperature.
_OTHER_UNITS = frozenset({
    "kilograms", "kilogram", "kg", "kilos", "grams", "tonnes", "tons", "pounds", "lbs", "degrees", "kelvin",
})  # fmt: skip
_UNITS = LENGTH_UNITS | AREA_UNITS | _OTHER_UNITS
# "(what's) the (total) number of ...", "a tally of ...", "the count of ..."
_NUMBER_OF = r"(?:what(?: is| s|['’]s)? )?(?:the |a )?(?:total )?(?:number|tally|count) of"
_ARTICLES = frozenset({"the", "a", "an", "all", "some", "any"})
# The words a question proper opens with.
_WH = re.compile(r"(?:what|which|who|whom|whose|where|when|how)\b")
# The words a question asks with.
QUESTION_WORDS = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "how", "why"})
# Words that open a question or a request rather than a noun phrase.
_NOT_A_NOUN = frozenset({
    "what", "which", "who", "whom", "whose", "where", "when", "why", "how", "list", "name",
    "give", "show", "find", "count", "tell", "get", "in", "on", "at", "from", "for", "to", "by", "with",
    "during", "of", "i", "is", "it", "there", "number", "total",
})  # fmt: skip
# A negative tag: "..., isn't it?", "... didn't he".
_NEGATIVE_TAG = (
    r"(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would)n['’]?t"
    r" (?:it|he|she|they|there|that|this|i|you|we)"
)
# A statement turned into a yes/no question by its tag ("Victoria was born in London, right?", "..., isn't
# it?", "... doesn't it", "..., yeah?", "..., correct me if I'm wrong", "..., or am I mixing her up?") or a
# "true or false" frame.
_TAGGED = re.compile(
    r"(?:,|\s-+)\s*(?:right|correct|true|yes|yeah|yep|yup|surely|no|no doubt|eh|ok|okay|(?:(?:true|right|correct) )?or not"
    r"|(?:is|isn['’]?t) (?:that|it|this) (?:so|right|correct|true)|am i right|i (?:think|believe|guess|reckon)"
    r"|correct me if i['’]?m wrong|if i['’]?m not (?:mistaken|wrong)|unless i['’]?m (?:wrong|mistaken|misremembering)"
    r"|if i (?:remember|recall)(?: (?:correctly|rightly|right))?|if memory serves(?: me)?(?: (?:right|well))?"
    r"|as far as i (?:know|remember|recall)"
    rf"|or am i\b[^?]*|{_NEGATIVE_TAG})\s*\?*\s*$"
    rf"|\s{_NEGATIVE_TAG}\s*\?*\s*$"
    r"|^\s*(?:true or false|yes or no)\b|\b(?:true or false|yes or no)\s*\?*\s*$",
    re.IGNORECASE,
)
# A tag with no comma before it ("aarhus is a norwegian city right"), read only after a statement: a
# question word first asks something else ("Which answer is correct").
_BARE_TAG = re.compile(r"\s(?:right|correct|true)\s*\?*\s*$", re.IGNORECASE)
# What sets a topic or a lead-in before the question proper: "Quick check: was ...", "Radiohead - were they ...".
_TOPIC = re.compile(r":|\s[-–—]+\s")
# A sentence before a question that a question word opens ("Curium was named after two scientists. Where were
# they born?"): a full stop after a lowercase letter, not one of a title's question marks ("Where Do We Come
# From? What Are We?") nor a name's "Inc." before a verb.
_SENTENCE = re.compile(r"(?<=[a-z])\.\s+(?=(?:what|which|who|whom|whose|where|when|how)\b)", re.IGNORECASE)
# A clause a question word opens after a comma ("the band behind kid a, when did they form"): the
# question proper, the words before it its topic.
_CLAUSE = re.compile(r",\s+(?=(?:what|which|who|whom|whose|where|when|how)\b)", re.IGNORECASE)
# A clause an auxiliary opens after a comma ("the rhone, does any of it run through italy"): a yes/no
# question after its topic.
_AUX_CLAUSE = re.compile(rf",\s+(?=(?:{'|'.join(sorted(AUXILIARIES))})\b)", re.IGNORECASE)
# Finite forms of "be" and "have", which make a statement of the words around them.
_BE_HAVE = frozenset({"is", "are", "was", "were", "has", "have", "had"})
# Words that open a relative clause: a verb after them belongs to a noun phrase ("rivers that flow ...").
_RELATIVE = frozenset({"that", "who", "which", "whom", "whose"})
_DATE = re.compile(r"^-?\d{4}(?:-\d\d(?:-\d\d)?)?(?:T[\d:.]+(?:Z|[+-]\d\d:\d\d)?)?$")
_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:(?://|[^\s]*[/#:])\S*$")


@dataclass(frozen=True)
class Expected:
    """What a question asks for. `boolean`: an ASK (True), anything but an ASK (False), either (None);
    `count`: whether a COUNT query may answer it; `values`: the kinds of answer values that fit
    (`iri`, `number`, `date`, `text`; empty: any); `asks`: the interrogative whose answers training
    taught the KB index (`KBIndex.answer_classes`: "who" is answered by people and bands), or "where",
    which people do not answer."""

    name: str
    boolean: bool | None = False
    count: bool = True
    values: frozenset[str] = frozenset()
    asks: str | None = None
    # a superlative: a SELECT with several answers, or values only, and no ranking does not fit
    top: bool = False


ANY = Expected("any answer", boolean=None)
YES_NO = Expected("yes or no", boolean=True, count=False)
COUNT = Expected("a number", values=frozenset({"number"}))
MEASURE = Expected("a measure", count=False, values=frozenset({"number", "date"}))
DATE = Expected("a date or year", count=False, values=frozenset({"date"}))
THING = Expected("a place, person or thing", count=False, values=frozenset({"iri"}))
NOT_A_MEASURE = Expected("things or names, not a measure", count=False, values=frozenset({"iri", "text"}))
NOT_A_DATE = Expected(
    "things, names or numbers, not a date", count=False, values=frozenset({"iri", "text", "number"})
)
NOT_YES_NO = Expected("not a yes/no answer")
NOT_YES_NO_OR_COUNT = Expected("not a yes/no answer or a count", count=False)


def _spelled(word: str) -> str:
    """`word`, or the one typo-tolerant keyword it misspells by one edit (`dooes` -> `does`); a word
    English knows is taken as written ("Mount Logan is ..." opens with no misspelt "count")."""
    if len(word) < 3 or word in _TYPO_TOLERANT or word in AUXILIARIES or is_dictionary_word(word):
        return word
    return one_edit_from(word, _TYPO_TOLERANT)


def one_edit_from(word: str, vocabulary: Iterable[str]) -> str:
    """The one word of `vocabulary` that `word` misspells by one edit (OSA), else `word` itself."""
    near = {k for k in vocabulary if OSA.distance(word, k, score_cutoff=1) <= 1}
    return near.pop() if len(near) == 1 else word


def _words(question: str, spelled: bool = True) -> list[str]:
    """The question's lowercased words, typos of the keywords undone (unless not `spelled`), without KB
    units and a polite lead-in."""
    text = re.sub(UNIT_PATTERN, " ", question).strip()
    text = _LEAD_IN.sub("", text)
    return [_spelled(w.lower()) if spelled else w.lower() for w in WORD.findall(text)]


def expected_answer(question: str) -> Expected:
    """What `question` asks for, from the first words of its question proper, else a question word it
    ends with (module docstring); `ANY` when they say nothing. A first word read as a misspelt keyword
    yields to a question word at the end: "Thom Yorke's band formed in what year?" opens with a name,
    not "whom", and so does "thom yorke's band plays what kind of music"."""
    proper = question_proper(question)
    if proper != question:
        return expected_answer(proper)  # "Just finished The Kite Runner - where was its author born?"
    words = _words(question)
    if not words:
        return ANY
    ending = _asked_at_the_end(words)
    raw = _words(question, spelled=False)
    if ending is not None and words[0] != raw[0]:
        return ending
    if words[0] != raw[0] and {"what", "which"} & set(raw[-4:]):
        words = [raw[0], *words[1:]]  # "thom yorke's band plays what kind of music": a name, not "whom"
    first, second = words[0], (words[1] if len(words) > 1 else "")
    untagged = re.sub(UNIT_PATTERN, " ", question)
    if "whether" in words[:3] or _TAGGED.search(untagged):
        return YES_NO
    if _BARE_TAG.search(untagged) and not _WH.match(first) and first not in _NOT_A_NOUN:
        return YES_NO
    if _stated(question):
        return YES_NO
    if first in AUXILIARIES and second in ("is", "are", "was", "were"):
        return ANY  # "Were is Oslo?": a misspelt "where", no yes/no question
    if first in AUXILIARIES:
        return YES_NO
    asking = _words(_TOPIC.split(question)[-1]) if _TOPIC.search(question) else []
    if not asking and first not in QUESTION_WORDS and _AUX_CLAUSE.search(question):
        asking = _words(_AUX_CLAUSE.split(question)[-1])  # "the rhone, does any of it run through italy"
    if (
        asking[:1]
        and asking[0] in AUXILIARIES
        and asking[1:2] not in (["is"], ["are"], ["was"], ["were"])
        and "or" not in asking  # "Morocco's capital - is it Casablanca or somewhere else?": a choice
    ):
        return YES_NO  # "Quick check: was the director of Rashomon born in Tokyo?", "Radiohead - were they"
    asked = [i for i, (a, b) in enumerate(zip(words, words[1:])) if a == "how" and b in ("many", "much")]
    if asked and words[asked[0] + 3 : asked[0] + 4] and words[asked[0] + 3] in _DIMENSIONS:
        return MEASURE  # "How many km long is the Tiber?"
    if asked and set(words[asked[0] + 2 : asked[0] + 4]) & _UNITS:
        return MEASURE  # "How many km does the Tiber run for?", "how many square miles is ..."
    if asked:
        return COUNT  # also "South Africa has how many capitals?"
    at = next(
        (i for i, w in enumerate(words[:-1]) if w in ("what", "which") and words[i + 1] == "number"), None
    )
    if at is not None and words[at + 2 : at + 3] != ["of"]:
        return MEASURE  # "Which number planet from the sun is Mars?": a value, not a count
    if any(a == "number" and b in ("what", "which") for a, b in zip(words, words[1:])):
        return MEASURE  # "Europa's planet is number what from the sun?"
    opening = " ".join(words[:6]) + " "
    if first in ("count", "tally") or re.match(_NUMBER_OF + " ", opening):
        return COUNT  # "Count the albums by ...", "number of countries the Danube flows through"
    if first == "how":
        # "How do chemists abbreviate iron?", "How did X die?": a manner or a name, no count ("how many" is above)
        if second == "may":
            return NOT_YES_NO  # "How may places does the Nile flow through?": a misspelt "many"
        return NOT_YES_NO_OR_COUNT if second in AUXILIARIES or not second else MEASURE
    if _before_clitic(first) in ("when", "where", "who"):
        first = _before_clitic(first)  # "Where's the band that made Rumours from?", "when's her birthday"
    if first == "when" or (first in ("what", "which") and second in TIME_NOUNS):
        return DATE
    if first in ("in", "on", "during", "from") and second in ("what", "which") and words[2:3]:
        if one_edit_from(words[2], TIME_NOUNS) in TIME_NOUNS:
            return DATE  # "In which yera was ...": a misspelt year
        if first != "during":
            return THING  # "In which town was the man who founded Puma born?": a place, not a date
    if first in ("who", "whom"):
        return replace(THING, asks="who")
    if first == "where" or (first == "from" and second == "where"):
        return replace(THING, asks="where")
    if first == "whose" and words[2:3] in (["is"], ["was"]) and words[3:4] in (["it"], ["that"], ["this"]):
        return replace(THING, asks="who")  # "Interstellar's soundtrack - whose work is it?": a person's
    if first == "whose":
        return THING  # "Whose director is Alfred Hitchcock?": the films, things of any kind
    if first == "which" and any(map(_plural, words[1:3])):
        # "Which Beatles were born before 1942?", "Which letters stand for antimony?", "Which Alpine peaks"
        return NOT_A_MEASURE
    if first == "which" and second and second not in AUXILIARIES | _NOT_A_NOUN | TIME_NOUNS:
        return NOT_A_DATE  # "Which element is named after ...": one of the things, not a date of its
    if ending is not None:
        return ending
    if any(a == "in" and b in _UNITS for a, b in zip(words, words[1:])) and not any(
        map(str.isdecimal, words)
    ):
        return MEASURE  # "Table Mountain: its height in metres?"; a number would be compared with
    if {"number", "count", "total"} & set(words):
        return NOT_YES_NO
    if _possessed_plural(words):
        return NOT_A_MEASURE  # "Van Gogh's most famous canvases": things he has, not a date of his
    return NOT_YES_NO_OR_COUNT


def _before_clitic(word: str) -> str:
    """The word before its apostrophe ("what's": what, "when's": when)."""
    return re.split(r"['’]", word)[0]


def _stated(question: str) -> bool:
    """Whether `question` is a statement asked with a question mark ("rubber soul came out in 1966?",
    "guernica was painted by dali?", "bohrium - named after niels bohr?"): it ends with one, has no
    question word and offers no choice ("or"), opens with a noun, and a finite verb follows its first
    word, not last nor in a relative clause (a form of be or have, or a past that no participle shares:
    "came", not "painted" of "paintings painted by dali?"), or its part after a topic opens with a
    verb's past or with "a", an adverb aside ("moby dick - originally a french novel?"; not "a list")."""
    words = [_before_clitic(w) for w in _words(question)]
    if not question.rstrip().endswith("?") or not words or "or" in words or QUESTION_WORDS & set(words):
        return False
    if words[0] in _NOT_A_NOUN or words[0] in AUXILIARIES:
        return False
    if any(OSA.distance(words[0], w, score_cutoff=1) <= 1 for w in QUESTION_WORDS):
        return False  # "Whre is The Hobbit's writer a citizen of?": a misspelt question word
    topic = list(_TOPIC.finditer(question))
    after = _words(question[topic[-1].end() :]) if topic else []
    if after and not getAllLemmas(after[0]).get("NOUN") and is_verb_form(after[0], ("VBD", "VBN")):
        return True  # "Europium - named after Jupiter's moon Europa?"
    article = 1 if after[1:2] in (["a"], ["an"]) and after[0].endswith("ly") else 0
    if after[article : article + 1] in (["a"], ["an"]) and after[article + 1 : article + 2] != ["list"]:
        return True  # "moby dick - originally a french novel?": a thing said to be of a kind
    return any(
        (w in _BE_HAVE or is_past_only(w)) and words[i - 1] not in _RELATIVE
        for i, w in enumerate(words[1:-1], start=1)
    )


def _possessed_plural(words: Sequence[str]) -> bool:
    """Whether the words are a noun phrase of things a named one has: a possessive opens them, and a
    plural that names no time follows it within four words with no verb of a clause between
    ("Edouard Manet's paintings", "puccini's greatest hits on the opera stage"), and no question word
    asks anything else nor a noun "of" them before it ("release years of bob dylan's albums")."""
    first = _before_clitic(words[0]) if words else ""
    if not first or first in _NOT_A_NOUN or first in AUXILIARIES or any(_WH.fullmatch(w) for w in words):
        return False  # "thom yorke's band plays what kind of music": a question word asks
    owner = next((i for i, w in enumerate(words[:5]) if re.search(r"['’]s$", w)), None)
    if owner is None or "of" in words[:owner]:  # "release years of bob dylan's albums": years, of them
        return False
    for word in words[owner + 1 : owner + 5]:
        if word in AUXILIARIES or word in _NOT_A_NOUN or re.search(r"['’]", word):
            return False
        if _plural(word):
            return word.rstrip("s") not in TIME_NOUNS
    return False


def _plural(word: str) -> bool:
    """Whether `word` reads as a plural noun ("peaks", "beatles"; not "ss", "us", "is" endings)."""
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _asked_at_the_end(words: Sequence[str]) -> Expected | None:
    """What a question word at the end asks for: "Anthony Burgess was born where?", "google was founded
    by who", "Las Meninas came off whose easel?", "The Son of Man dates from what year?", "Pluto was found
    by which astronomer?", "... - count them"; None when the question does not end with one."""
    if words[-1] == "when" or (words[-2:-1] in (["what"], ["which"]) and words[-1] in TIME_NOUNS):
        return DATE
    if words[-2:] in (["count", "them"], ["count", "those"], ["count", "these"]):
        return COUNT  # "planets sitting between earth and saturn - count them"
    if words[-1] in ("who", "whom") or words[-2:-1] == ["whose"]:  # "Kind of Blue is whose record?"
        return replace(THING, asks="who")
    if words[-1] == "where":
        return replace(THING, asks="where")
    if words[-2:-1] == ["which"] and words[-1] != "number":
        return NOT_A_MEASURE  # "Pluto was found by which astronomer?": things of a kind
    return None


# Prepositions before a "what" that asks for things of a kind within a question ("based in what city").
_BEFORE_WHAT = frozenset({"in", "on", "at", "from", "for", "to", "by", "with", "into", "through", "of"})
# "Which films ...", "How many moons ...", "List all rivers ...", "number of countries ...": the words
# naming what is asked for follow.
_OF_WHOSE = (
    r"(?: of (?:the|its|their|his|her|\S+(?:'s|’s|s'|s’)))?"  # "which of Saturn's moons", "how many of the"
)
_ASKING = re.compile(
    r"^(?:(?:(?:in|on|at|from|for|to|by|with|into|through|during) )?(?:which|what)(?: (?:kind|kinds|type|types|sort) of)?"
    rf"{_OF_WHOSE}|how many{_OF_WHOSE}"
    r"|(?:(?:a |the )?list|name|give me|show me|find|count|search for)(?: me)?(?: all)?(?: of)?(?: the)?"
    rf"|{_NUMBER_OF}(?: the)?)$"
)


def split_topic(question: str) -> tuple[str, str] | None:
    """(topic, question proper): the words before a topic's last separator, and those after it when a
    question word opens them ("the element named for alfred nobel - what's its symbol"); None for a
    question with no such topic."""
    last = max(
        [*_TOPIC.finditer(question), *_SENTENCE.finditer(question), *_CLAUSE.finditer(question)],
        key=lambda m: m.end(),
        default=None,
    )
    if last is None or not _WH.match(question[last.end() :].strip().lower()):
        return None
    return question[: last.start()], question[last.end() :]


def question_proper(question: str) -> str:
    """The question after a topic or lead-in, when a question word opens it (`split_topic`: "what's its
    symbol"); else the whole question."""
    parts = split_topic(question)
    return question if parts is None else parts[1]


def asked_noun(question: str, width: int = 3) -> list[str]:
    """Up to `width` words after the phrase that asks for things of a kind: at the start ("Which
    painters come from Spain?", "In which cities ...", "How many moons ...") or, for "which" and "how
    many", anywhere ("Einstein's universities are in which city?", "the Nile flows through how many
    countries"), and for "what" after a preposition ("headquartered in what country") or any word before
    a noun ("the country whose capital is Ulaanbaatar uses what money"); a bare noun
    phrase's first words ("albums by bands from London"); empty when the question has no such phrase
    and opens with a question word, an auxiliary, a verb that asks, or a preposition, or ends with a
    question word ("the album back to black is by who"), or when an auxiliary follows "what" or "which"
    ("What does the company ... make?"). A question after a topic is read alone (`question_proper`: "going
    up Table Mountain - what currency do they use there?")."""
    words = _words(question_proper(question))
    for end in range(min(len(words), 7), 0, -1):
        if _ASKING.match(" ".join(words[:end])):
            if words[end - 1] in ("what", "which") and words[end : end + 1] and words[end] in AUXILIARIES:
                return []  # "What does the company ... make?": a verb follows, no noun
            return words[end : end + width]
    if "which" in words[1:]:
        at = words.index("which", 1) + 1
        return words[at : at + width]
    at = next(
        (i + 1 for i in range(1, len(words) - 1) if words[i] == "what" and words[i - 1] in _BEFORE_WHAT), None
    )
    at = at or next(  # "The country whose capital is Ulaanbaatar uses what money?": the money
        (
            i + 1
            for i in range(1, len(words) - 1)
            if words[i] == "what" and words[i + 1] not in AUXILIARIES | _ARTICLES | _NOT_A_NOUN
        ),
        None,
    )
    if at is not None:  # "Philips is headquartered in what country?"
        return words[at : at + width]
    at = next((i + 2 for i in range(1, len(words) - 1) if words[i : i + 2] == ["how", "many"]), None)
    if at is not None:
        return words[at : at + width]
    if words and words[-1] in ("who", "whom", "where", "when"):
        return []  # "the album back to black is by who": a statement asking at its end, not a noun phrase
    start = next((i for i, w in enumerate(words) if w not in _ARTICLES), len(words))
    head = _before_clitic(words[start]) if words[start:] else ""
    if head and head not in _NOT_A_NOUN and head not in AUXILIARIES:
        return words[start : start + width]
    return []


def refused_forms(
    expected: Expected, hypotheses: Sequence[Sequence[str]]
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """Query tokens to refuse at each step, ((step, tokens), ...), when no hypothesis (canonical
    tokens) has a form `expected` allows: `ask` first where it asks for no yes/no answer, `select`
    first (only `ask` is left) where it does, `(` after `select` (a COUNT) where it asks for no count;
    () when some hypothesis fits or there is none."""
    if not hypotheses:
        return ()
    asks = [list(h[:1]) == ["ask"] for h in hypotheses]
    if expected.boolean is False and all(asks):
        return ((0, ("ask",)),)
    if expected.boolean is True and not any(asks):
        return ((0, ("select",)),)
    counts = [list(h[:3]) == ["select", "(", "count"] for h in hypotheses]
    if not expected.count and all(counts):
        return ((1, ("(",)),)
    return ()


def value_kinds(value: str) -> frozenset[str]:
    """The kinds of one answer value: `iri`, `date` (a date, a date-time), `number`, `text`; a year
    stored as a four-digit integer (`1993`) is both a number and a date."""
    if _DATE.match(value):
        return frozenset({"date", "number"}) if value.lstrip("-").isdigit() else frozenset({"date"})
    if canonical_number(value) is not None:
        return frozenset({"number"})
    if _IRI.match(value):
        return frozenset({"iri"})
    return frozenset({"text"})


def fits(expected: Expected, tokens: Sequence[str], answer: Answer) -> bool:
    """Whether a query (`tokens`, canonical) and its non-empty `answer` give what `expected` asks for."""
    is_ask = answer.kind == "ask"
    if expected.boolean is not None and is_ask != expected.boolean:
        return False
    if is_ask:
        return True
    if "count" in tokens and not expected.count:
        return False
    values = answer.cells()
    # a superlative picks one of several things: not several answers, nor one value unranked
    # ("youngest of the beatles" answered by the band's formation year)
    unranked = expected.top and "count" not in tokens and "limit" not in tokens
    if unranked and (len(answer.rows) > 1 or (values and not any("iri" in value_kinds(v) for v in values))):
        return False
    if not expected.values:
        return True
    return bool(values) and all(value_kinds(v) & expected.values for v in values)
