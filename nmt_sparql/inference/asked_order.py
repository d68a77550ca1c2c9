"""The direction a superlative or comparative question asks for, and a query turned to it.

"What is the smallest country by area?" wants the lowest area first (`order by asc`), "the oldest
university" the earliest founding year, "more than 200 million inhabitants" a `>` filter. A model
often gets the property and the shape right and the direction wrong: the direction is carried by one
graded word, whose sense does not depend on the KB. Repair (inference/repair.py) turns a hypothesis
whose ORDER BY or FILTER comparison goes against the question's word before it runs it.

Words are read by their lemma (lemminflect, as the linker does): `smallest` is `small`, low; `most
populous` is high; `least X` is the opposite of X. Words of time (old, early, young, new, late,
recent) and the ordinals "first" and "last" ("initial", "final") read as a date order (oldest =
earliest = first = ascending) when the ordered values are dates or years, and `old`/`young` as an age
otherwise; the KB says which (`values_are_dates`). A graded word misspelt by one edit ("eraliest",
"befor") is read as the word, and a comparative after "the" as a superlative ("Of the elements Marie
Curie discovered, which has the higher atomic number?": the one ranked first). A question with no
graded word, or with words that disagree, asks for no direction and changes nothing. A question with no graded or ranking word ("first", "top") at all asks for no
ranking: a query that keeps its first answers by an order (`order by desc ( ?v ) limit 1`) loses the
order and the limit; a question that asks for the top one, a query that keeps its first answers by no
order (`limit 1` alone) loses the limit, to be ranked. A query that compares with a number the
question says, when the question has no graded, ranking or comparing word ("Is gold's atomic number
79?" decoded as `filter ( ?v > 79 )`), asks whether the value is that number: the comparison becomes
`=`. English only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from lemminflect import getAllLemmas, getInflection
from rapidfuzz.distance import OSA

from nmt_sparql.annotation.linking.linker import literal_candidates
from nmt_sparql.annotation.linking.wordforms import is_dictionary_word, is_verb_form
from nmt_sparql.core.marks import UNIT_PATTERN
from nmt_sparql.inference.expected_answer import AREA_UNITS, LENGTH_UNITS, QUESTION_WORDS, one_edit_from
from nmt_sparql.sparql.patterns import closing, constant_comparisons, idle_filters, triple_patterns
from nmt_sparql.sparql.tokens import NUMBER, TokenType, literal_value

Sense = Literal["high", "low", "early", "late"]
Form = Literal["superlative", "comparative"]

_HIGH = frozenset({
    "big", "large", "great", "high", "tall", "long", "heavy", "deep", "wide", "far", "many", "much",
    "populous", "rich", "hot", "fast", "strong", "expensive", "massive", "bright", "dense", "popular",
})  # fmt: skip
_LOW = frozenset({
    "small", "little", "low", "short", "light", "close", "near", "shallow", "narrow", "few", "poor",
    "cold", "slow", "cheap", "tiny", "weak", "less",
})  # fmt: skip
# Adjectives of size or amount, not "most"/"least" alone nor words of number.
_SIZES = (_HIGH | _LOW) - {"most", "least", "many", "much", "few", "less"}
_EARLY = frozenset({"old", "early"})
_LATE = frozenset({"young", "new", "late", "recent"})
# Ordinals that rank by time when the values are dates ("the first album", "came out last").
_ORDINAL: dict[str, Sense] = {
    "first": "early", "last": "late", "initial": "early", "final": "late", "debut": "early", "maiden": "early",
}  # fmt: skip
# Ordinals that are nouns or adjectives before a noun ("the Beatles' debut album", "her maiden voyage"),
# and rank wherever the question does not use them as a verb ("When did Adele debut?").
_NOUN_ORDINALS = frozenset({"debut", "maiden"})
# Words before an ordinal that rank with it: "the first album", "Kubrick's final film", "her last novel".
DETERMINERS = frozenset({"the", "s", "its", "his", "her", "their"})
# Words before which a noun ordinal is a verb ("did Adele debut", "to debut").
_VERB_BEFORE = frozenset({"to", "did", "does", "do", "will", "would", "could", "can"})
# Words of fame: "the most famous", "most celebrated" rank by no measure a KB holds.
_FAME = frozenset({
    "famous", "notable", "known", "celebrated", "important", "influential", "renowned", "acclaimed",
    "iconic", "prominent", "significant", "memorable",
})  # fmt: skip
_OPPOSITE: dict[Sense, Sense] = {"high": "low", "low": "high", "early": "late", "late": "early"}
# Comparisons said without a graded adjective: "over 1000 metres", "before 1950", "exceeds 100".
_PREPOSITIONS: dict[str, Sense] = {
    "over": "high", "above": "high", "exceeding": "high", "beyond": "high", "past": "high", "under": "low",
    "below": "low", "before": "early", "after": "late", "since": "late", "prior": "early", "exceed": "high",
    "exceeds": "high", "exceeded": "high", "surpass": "high", "surpasses": "high", "surpassed": "high",
    "surpassing": "high", "beat": "high", "beats": "high", "outstrip": "high", "outstrips": "high",
    "outnumber": "high", "outnumbers": "high",
}  # fmt: skip
# Verbs whose "after" is part of the verb, not a time: "named after", "looks after", "takes after".
_AFTER_VERBS = frozenset({
    "name", "names", "named", "naming", "call", "calls", "called", "look", "looks", "looked", "take",
    "takes", "took", "taken",
})  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
# Words that compare with a number without a graded adjective or a preposition above.
_COMPARING = frozenset({
    "than", "exceed", "exceeds", "exceeded", "surpass", "surpasses", "surpassed", "beyond", "past",
    "between", "within", "until", "till", "from", "up", "least", "most",
})  # fmt: skip
# Words that ask for a ranking without a graded adjective ("the first album", "top 5", "sorted by").
_RANKING = frozenset({
    "first", "last", "second", "third", "fourth", "fifth", "top", "bottom", "best", "worst", "maximum",
    "minimum", "max", "min", "rank", "ranked", "ranking", "record", "leading", "order", "ordered",
    "sort", "sorted", "final", "initial", "debut", "maiden",
})  # fmt: skip
_FLIP_COMPARISON = {">": "<", "<": ">", ">=": "<=", "<=": ">="}


@dataclass(frozen=True)
class Asked:
    """A graded word of a question: its `form` (superlative: an ORDER BY; comparative: a FILTER) and
    `sense`; `word` as the question writes it, for the record of what repair changed."""

    form: Form
    sense: Sense
    word: str


@functools.lru_cache(maxsize=8192)
def _graded(word: str) -> tuple[Form, str] | None:
    """(form, lemma) of a superlative or comparative adjective/adverb (`smallest` -> small), else None."""
    if word in ("most", "least") or word in _ORDINAL:
        return "superlative", word
    if word in ("more", "less", "fewer"):
        return "comparative", "few" if word == "fewer" else word
    for suffix, form in (("est", "superlative"), ("er", "comparative")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            lemmas = {m for upos in ("ADJ", "ADV") for m in getAllLemmas(word, upos=upos).get(upos, ())}
            lemmas.discard(word)
            if lemmas:
                return form, sorted(lemmas)[0]  # type: ignore[return-value]
    return None


@functools.lru_cache(maxsize=1)
def _graded_forms() -> frozenset[str]:
    """The comparative and superlative forms of the lexicon's adjectives, the ranking words and the
    prepositions that compare ("befor")."""
    forms = {"most", "least", "more", "less", "fewer", *_RANKING, *_PREPOSITIONS}
    for lemma in _HIGH | _LOW | _EARLY | _LATE:
        for tag in ("JJR", "JJS", "RBR", "RBS"):
            forms.update(getInflection(lemma, tag))
    return frozenset(forms)


@functools.lru_cache(maxsize=8192)
def _spelled(word: str) -> str:
    """`word`, or the one graded or ranking word it misspells by one edit ("eraliest", "moost"); a word
    English knows is taken as written."""
    if len(word) < 3 or word in _graded_forms() or is_dictionary_word(word):
        return word
    return one_edit_from(word, _graded_forms())


# "top" as a verb of exceeding ("mountains that top 8000 metres", "a population that tops a billion",
# "how many mountains top it"): after a word that is no determiner, before a number or a pronoun; not
# the ranking of "the top 5 rivers" or "Kubrick's top films".
_TOP_VERB = re.compile(
    r"\b(?:tops|topped|topping)\b"
    r"|(?<=\w )(?<!\bthe )(?<!\ba )(?<!\bs )(?<!\bhis )(?<!\bher )(?<!\bits )(?<!\btheir )(?<!\bwhich )"
    r"(?<!\bwhat )\btop(?=\s+(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|it|them)\b)",
    re.IGNORECASE,
)


# "pre-1950" and "post-1950" compare as "before" and "after" do (also where the number is cut off).
_PREFIXED_BOUND = re.compile(r"\b(pre|post)-(?=\d|\s*$)", re.IGNORECASE)


def _words(question: str) -> list[str]:
    """The question's lowercased words outside its KB units, misspelt graded words undone, "top" as a
    verb read as "exceeds" and "pre-"/"post-" before a number as "before"/"after"; a plural's possessive
    ("the Beatles' first album") is an "s" of its own, as "Kubrick's" gives one."""
    text = _TOP_VERB.sub("exceeds", _outside_units(question))
    text = _PREFIXED_BOUND.sub(lambda m: "before " if m.group(1).lower() == "pre" else "after ", text)
    return [_spelled(w.lower()) for w in _WORD.findall(text)]


_PLURAL_POSSESSIVE = re.compile(r"(?<=s)['’](?=\s|$)")


def _outside_units(question: str) -> str:
    """The question's text outside its KB units, a plural's possessive ("the Beatles' ") made an "s"."""
    return _PLURAL_POSSESSIVE.sub(" s", re.sub(UNIT_PATTERN, " ", question))


def _sense(lemma: str) -> Sense | None:
    if lemma in _ORDINAL:
        return _ORDINAL[lemma]
    for words, sense in ((_HIGH, "high"), (_LOW, "low"), (_EARLY, "early"), (_LATE, "late")):
        if lemma in words:
            return sense  # type: ignore[return-value]
    return None


def asked_orders(question: str) -> list[Asked]:
    """The graded words of `question` with a known sense, in order (`most X` / `least X` read as X)."""
    words = _words(question)
    out: list[Asked] = []
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word == "at" and nxt in ("least", "most"):  # "at least 3": a bound, not a superlative
            out.append(Asked("comparative", "high" if nxt == "least" else "low", f"at {nxt}"))
            skip = True
            continue
        if word == "after" and i and words[i - 1] in _AFTER_VERBS:  # "elements named after a scientist"
            continue
        if word == "past" and i and words[i - 1] in ("the", "in"):  # "in the past": a time, no bound
            continue
        if word in _PREPOSITIONS and (word != "prior" or nxt == "to"):
            form = "superlative" if _than_the_rest(words, i) else "comparative"
            out.append(Asked(form, _PREPOSITIONS[word], word))  # "discovered before the others": first
            continue
        graded = _graded(word)
        if graded is None or (word in _ORDINAL and not _ranks(words, i)):
            continue
        form, lemma = graded
        if form == "comparative" and (
            ("than" not in words[i + 1 :] and _of_several(words, i)) or _than_the_rest(words, i)
        ):
            form = "superlative"  # "which has the higher atomic number": the one of them ranked first
        if lemma in ("most", "least", "more", "less") and nxt in _FAME:
            skip = True  # "his most famous novels": the works he is known for, no measure ranked
            continue
        if form == "superlative" and lemma == "great" and nxt.endswith("s") and not nxt.endswith("ss"):
            continue  # "his greatest hits", "her greatest novels": fame again, several works
        if lemma in ("most", "least", "more", "less") and _sense(nxt) is not None:
            sense = _sense(nxt)
            assert sense is not None
            out.append(Asked(form, sense if lemma in ("most", "more") else _OPPOSITE[sense], f"{word} {nxt}"))
            skip = True
            continue
        sense = {"most": "high", "more": "high", "least": "low"}.get(lemma) or _sense(lemma)
        if sense is not None:
            out.append(Asked(form, sense, word))  # type: ignore[arg-type]
    return out


# What a comparative is compared with when it picks one of several: "bigger than all the others".
_THE_REST = (
    ("the", "others"), ("the", "rest"), ("all", "the", "others"), ("all", "the", "rest"), ("all", "others"),
    ("any", "other"), ("every", "other"), ("all", "other"),
)  # fmt: skip


def _than_the_rest(words: Sequence[str], i: int) -> bool:
    """Whether the comparative at `i` compares with all the others it is one of, a superlative ("which
    dwarf planet got discovered before the others", "bigger than any other planet")."""
    at = i + 1 + (words[i + 1 : i + 2] == ["than"])
    return any(tuple(words[at : at + len(rest)]) == rest for rest in _THE_REST)


def _of_several(words: Sequence[str], i: int) -> bool:
    """Whether the comparative at `i` picks one of several things: after "the" ("which has the higher
    atomic number") or asked with "which"/"who" and a verb "be" with no choice of named things ("Floyd
    members born in Cambridge - which one is older?"; "which is older, Yale or Harvard" chooses)."""
    if i and words[i - 1] == "the":
        return True
    return (
        i > 1
        and words[i - 1] in ("is", "was", "are", "were", "s")
        and any(w in ("which", "who") for w in words[max(0, i - 5) : i - 1])
        and "or" not in words
    )


def graded_lemma(word: str) -> str | None:
    """The adjective of size a word grades or is ("bigger", "biggest": big; "large", "populous"); None
    for others, and for those said of any number or date ("high", "low", "great", "little"; "old",
    "young": the highest atomic number, the youngest university)."""
    found = _graded(word)
    lemma = found[1] if found is not None else word
    return lemma if lemma in _SIZES - {"high", "low", "great", "little"} else None


def _ranks(words: Sequence[str], i: int) -> bool:
    """Whether the ordinal at `i` ranks: after "the" or a possessive, "very" aside ("the first album",
    "Kubrick's final film", "the Beatles' very first album"), opening or ending the question ("first LP
    the beatles released", "came out first"), not as an adverb ("was first performed in") nor in "for the
    first time"."""
    if words[i] in _NOUN_ORDINALS:
        return i + 1 < len(words) and not (i > 0 and words[i - 1] in _VERB_BEFORE)
    if words[i + 1 : i + 2] == ["time"]:
        return False  # "for the first time": when a thing happened, no ranking of things
    before = i - 2 if i > 1 and words[i - 1] == "very" else i - 1  # "the very first album"
    if i == 0:  # "first LP the beatles ever released", not "first performed in 1876"
        return not is_verb_form(words[1] if len(words) > 1 else "", ("VBD", "VBN")) and not (
            QUESTION_WORDS & set(words)  # "first performance of bach's st matthew passion, what year"
        )
    return (before >= 0 and words[before] in DETERMINERS) or i == len(words) - 1


def asked(question: str, form: Form) -> Asked | None:
    """The one direction `question` asks for in `form`; None when it has none or its words disagree."""
    found = [a for a in asked_orders(question) if a.form == form]
    if not found or len({a.sense for a in found}) > 1:
        return None
    return found[0]


def ranks_by_size(question: str) -> bool:
    """Whether the question's superlative is an adjective of size or amount ("the heaviest", "closest to
    the sun"), not of time ("most recently", "oldest") nor a bare "most"/"least"."""
    found = asked(question, "superlative")
    graded = _graded(found.word.split()[-1]) if found is not None else None
    return graded is not None and graded[1] in _SIZES


def ascending(sense: Sense, word: str, dates: bool) -> bool | None:
    """Whether `sense` orders its values from the lowest: a date order for time words when the values
    are dates, an age for old/young otherwise; None when the word says nothing about such values (an
    ordinal, "the first planet from the Sun", whose order the KB's numbers may not follow)."""
    if sense in ("high", "low"):
        return sense == "low"
    if dates:
        return sense == "early"
    if word in _ORDINAL:
        return None  # "the first planet from the Sun": an order the KB's numbers may not follow
    if word.split()[-1].startswith(("old", "young")):
        return sense == "late"  # the oldest by age: the highest age first
    return None


def ascending_in_order(sense: Sense, word: str) -> bool | None:
    """Whether "earlier"/"later" (and "earliest"/"latest") order numbers from the lowest: a place in an
    order ("which comes later in the periodic table, tin or antimony"), for a caller that knows the
    measure is no date; None for other words. (`ascending` says nothing of them: where it cannot tell the
    measure, "born earlier than 1970" read as numbers would turn the comparison.)"""
    return sense == "early" if (_graded(word.split()[-1]) or ("", ""))[1] in ("early", "late") else None


def asks_for_a_ranking(question: str) -> bool:
    """Whether `question` has a graded word ("largest", "more") or a ranking word ("first", "top"),
    or a word English does not know one edit from several of them ("latet": latest or later). A bound
    ("at least one moon") ranks nothing."""
    ranking = any(not a.word.startswith("at ") for a in asked_orders(question))
    return ranking or any(
        w in _RANKING or _near_graded(w) for w in _words(_ADVERB_ORDINAL.sub(_as_adverb, question))
    )


# An ordinal right before a verb's past, after no determiner: an adverb of the event's time ("was first
# seen in", "Who first climbed"), not a ranking ("the first published novel", "which came first").
_ADVERB_ORDINAL = re.compile(r"\b(first|last|initially|finally) (?=([a-z]+)\b)")


@functools.lru_cache(maxsize=8192)
def _as_adverb(match: re.Match[str]) -> str:
    """The ordinal of `match` dropped when the word after it is a verb's past and no determiner or
    possessive comes before it ("Orwell's first published novel" ranks), else kept."""
    prefix = match.string[: match.start()]
    before = _words(prefix)[-1:]
    if before and (before[0] in DETERMINERS or prefix.rstrip().endswith("'")):
        return match.group(0)
    return "" if is_verb_form(match.group(2), ("VBD", "VBN")) else match.group(0)


def compares_with_a_bound(question: str) -> bool:
    """Whether every graded word of `question` is a comparative, it compares with something ("than", or
    a comparing preposition: "before the Rolling Stones"), and offers no choice ("or") nor ranking word:
    "European countries bigger than Germany" asks for every country past the bound, not the top one
    ("Which is bigger, Spain or France?" chooses)."""
    words = _words(question)
    orders = asked_orders(question)
    return (
        bool(orders)
        and all(a.form == "comparative" for a in orders)
        and ("than" in words or any(a.word in _PREPOSITIONS for a in orders))
        and "or" not in words
        and not any(w in _RANKING for w in words)
    )


def _near_graded(word: str) -> bool:
    return (
        len(word) >= 4
        and not is_dictionary_word(word)
        and one_edit_from(word, _graded_forms()) == word
        and any(OSA.distance(word, k, score_cutoff=1) <= 1 for k in _graded_forms())
    )


def asks_for_the_top(question: str) -> bool:
    """Whether `question` has a superlative outside a name ("Which planet is farthest from the Sun?",
    not "Who directed The Longest Day?" nor "Mont Blanc sits on which border?", "Mont" one edit from
    "most"): it asks for the one answer a measure ranks first."""
    words = _WORD.findall(_outside_units(question))
    # a capitalised word is a name's, but the first only if English does not know it ("Mont Blanc")
    plain = " ".join(w for i, w in enumerate(words) if not w[0].isupper() or i == 0 and is_dictionary_word(w))
    return any(a.form == "superlative" for a in asked_orders(plain))


def ranked_noun(question: str, width: int = 3) -> list[str]:
    """Up to `width` words after the first superlative that follows "the" or a possessive, or opens the
    question ("What's the newest university?", "the most populous country in Europe", "oldest
    university in Germany", "the Beatles' first album"): what the question ranks; [] without one."""
    words = _words(question)
    for i, word in enumerate(words):
        graded = _graded(word)
        before = words[i - 2] if i > 1 and words[i - 1] == "very" else words[i - 1] if i else ""
        if (i == 0 or before in DETERMINERS) and graded is not None and graded[0] == "superlative":
            at = i + 2 if word in ("most", "least") else i + 1
            return words[at : at + width]
    return []


def unasked_ranking_removed(tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
    """`tokens` without the `order by ... limit N [offset M]` that ends it, when `question` asks for no
    ranking (module docstring); None when there is none to remove or the question asks for one, or for the
    nearest one (`asks_for_the_nearest`: "right after oxygen")."""
    if "order" not in tokens or "limit" not in tokens or asks_for_the_nearest(question):
        return None
    if asks_for_a_ranking(question) and not compares_with_a_bound(question):
        return None
    at = len(tokens) - 1 - list(reversed(tokens)).index("order")
    if at + 1 >= len(tokens) or tokens[at + 1] != "by" or "}" in tokens[at:] or tokens.index("limit") < at:
        return None
    return list(tokens[:at]), "order and limit removed (the question asks for no ranking)"


def unordered_limit_removed(tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
    """`tokens` without a `limit N [offset M]` that follows no `order by`, when `question` asks for the
    top one ("What is the tallest mountain?" decoded as `{ ?x a ont:Mountain . ?x ont:elevation ?v }
    limit 1`): such a limit keeps any answer, not the one the measure ranks first, so the query answers
    with all of them and is ranked as a superlative left unranked is (repair's `_ranked`)."""
    if "limit" not in tokens or "order" in tokens or "}" not in tokens or not asks_for_the_top(question):
        return None
    close = len(tokens) - 1 - list(reversed(tokens)).index("}")
    tail = tokens[close + 1 :]
    if not tail or tail[0] not in ("limit", "offset"):
        return None
    return list(tokens[: close + 1]), "limit without an order removed (the question asks for the top one)"


def unlimited_top(tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
    """`tokens` ordered by their first ORDER BY condition and kept to the top one, when `question` asks
    for the top one and the query orders with no LIMIT (`order by asc ( ?v ) ?v`, a decoding that
    lost its `limit 1`): every answer in order is no top one."""
    if "order" not in tokens or "limit" in tokens or not asks_for_the_top(question):
        return None
    at = len(tokens) - 1 - list(reversed(tokens)).index("order")
    if tokens[at + 1 : at + 3] not in (["by", "asc"], ["by", "desc"]) or tokens[at + 3 : at + 4] != ["("]:
        return None
    end = tokens.index(")", at)
    if "}" in tokens[at:]:
        return None
    return [*tokens[: end + 1], "limit", "1"], "kept to the top one (the question asks for it)"


# Words that ask for the one next to a value, not all beyond it ("right after oxygen", "just before Jupiter",
# "the next planet out from the sun after earth").
_NEAREST = re.compile(
    r"\b(?:right|just|immediately|directly)\s+(?:after|before|above|below|behind|ahead\s+of)\b|\bnext\s+(?:\w+\s+){0,5}?after\b"
)


def asks_for_the_nearest(question: str) -> bool:
    """Whether `question` asks for the one right next to a thing ("right after oxygen", "just before
    Jupiter"), not for all on that side of it."""
    return bool(_NEAREST.search(question.lower()))


def nearest_kept(
    tokens: Sequence[str], types: Sequence[TokenType], question: str
) -> tuple[list[str], str] | None:
    """`tokens`, whose one FILTER keeps the values beyond another (`filter ( ?n > ?a )`), ordered from the
    nearest and kept to it, when `question` asks for the one right next (`asks_for_the_nearest`: "which
    element comes right after oxygen"): all the values beyond are not the next one. The values ordered
    are those of the things asked for, which a pattern binds from a variable (`?x ont:atomicNumber ?n`),
    not the named thing's (`res:Oxygen ont:atomicNumber ?a`)."""
    if (
        not asks_for_the_nearest(question)
        or {"order", "limit", "group"} & set(tokens)
        or tokens[-1:] != ["}"]
    ):
        return None
    if tokens.count("filter") != 1:
        return None
    at = tokens.index("filter")
    test = list(tokens[at + 1 : at + 6])
    if len(test) < 5 or test[0] != "(" or test[4] != ")" or test[2] not in _FLIP_COMPARISON:
        return None
    things = {tokens[o] for s, _, o in triple_patterns(tokens, types) if types[s] == TokenType.VARIABLE}
    left, op, right = test[1], test[2], test[3]
    if left not in things:
        left, op = right, _FLIP_COMPARISON[op]
    if left not in things or right in things and test[1] in things:
        return None
    way = "asc" if op in (">", ">=") else "desc"
    return [
        *tokens,
        "order",
        "by",
        way,
        "(",
        left,
        ")",
        "limit",
        "1",
    ], f"the nearest kept, {way} ( {left} ) (asked next)"


_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\s+century\b")
_CENTURY_WORDS = {
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
    "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "twenty-first": 21,
}  # fmt: skip
_CENTURY_WORD = re.compile(rf"\b({'|'.join(_CENTURY_WORDS)})\s+century\b")
_DECADE = re.compile(r"\b(\d{3})0'?s\b")
# Decades said in words ("the eighties"): those of the twentieth century, as English uses them.
_DECADE_WORDS = {
    "twenties": 192, "thirties": 193, "forties": 194, "fifties": 195, "sixties": 196, "seventies": 197,
    "eighties": 198, "nineties": 199,
}  # fmt: skip
_DECADE_WORD = re.compile(rf"\bthe\s+({'|'.join(_DECADE_WORDS)})\b")
_DECADE_WORD_BARE = re.compile(rf"\b({'|'.join(_DECADE_WORDS)})\b")


# A decade by its last two digits ("the 90s", "'90s", "jackson's 80s albums"): of years, the twentieth
# century's; of numbers, 90 to 99.
_SHORT_DECADE = re.compile(r"(?:['’]|\b)([1-9])0['’]?s\b")
_NUMBER_WORD = r"(\d[\d,]*(?:\.\d+)?)"
# Two ends said ("from 21 to 30", "between 1900 and 1950", "numbered 57 through 71", "57-71").
_ENDS = re.compile(
    rf"\b(?:from|between)\s+{_NUMBER_WORD}\s*(?:to|and|through|thru|till|until|-|–)\s*{_NUMBER_WORD}\b"
    rf"|\b{_NUMBER_WORD}\s*(?:to|through|thru|–|-)\s*{_NUMBER_WORD}\b"
)


_AT_LEAST = r"(?:or|and)\s+(?:later|after|more|up|upwards|above|over|higher|greater|beyond|onwards?|newer|bigger|larger)"
_AT_MOST = r"(?:or|and)\s+(?:earlier|before|fewer|less|below|under|lower|smaller)"
# A year a date is in ("born in 1940", "during 1610"); not one the question bounds ("in 1942 or later").
_IN_YEAR = re.compile(rf"\b(?:in|during)\s+(1\d{{3}}|20\d{{2}})\b(?!\s+(?:{_AT_LEAST}|{_AT_MOST}))")


@dataclass(frozen=True)
class Span:
    """The values a question names as a range: [low, high), or [low, high] when `closed` (the two ends
    said: "from 21 to 30"; a period's end is the next one's start)."""

    low: float
    high: float
    closed: bool

    def __str__(self) -> str:
        return f"{plain_number(self.low)} to {plain_number(self.high)}"


def plain_number(value: float) -> str:
    """A number as a query writes it: 21, not 21.0."""
    return str(int(value)) if value == int(value) else str(value)


def asked_period(question: str) -> tuple[int, int] | None:
    """The years [start, end) of the period `question` names: a century ("the 17th century", "the
    nineteenth century") or a decade ("the 1960s", "the eighties", "the 90s"; "the 1800s" is a century,
    "the 2000s" a decade), or decades that follow each other ("the 1830s or 1840s": 1830 to 1850); None
    when it names none."""
    text = question.lower()
    century = _CENTURY.search(text) or _CENTURY_WORD.search(text)
    if century is not None:
        word = century.group(1)
        n = int(word) if word.isdigit() else _CENTURY_WORDS[word]
        return (n - 1) * 100, n * 100
    first = _DECADE_WORD.search(text)  # "the sixties and seventies": "the" before the first alone
    words = _DECADE_WORD_BARE.finditer(text, first.start()) if first is not None else ()
    periods = [(_DECADE_WORDS[m.group(1)] * 10, 10) for m in words]
    periods = periods or [(1900 + int(m.group(1)) * 10, 10) for m in _SHORT_DECADE.finditer(text)]
    periods = periods or [
        (start, 100 if start % 100 == 0 and start != 2000 else 10)
        for start in (int(m.group(1)) * 10 for m in _DECADE.finditer(text))
    ]
    if not periods:
        return None
    (start, length), *more = periods
    end = start + length
    for next_start, next_length in more:  # "the 1830s or 1840s": one period of both, when they meet
        if next_start != end:
            break
        end = next_start + next_length
    return start, end


def asked_span(question: str, dates: bool, one_year: bool = False) -> Span | None:
    """The range of values `question` names for a value of dates or years (`dates`) or of numbers: its two
    ends ("from 21 to 30", "between 1900 and 1950"); else, of years, a period (`asked_period`) or, with
    `one_year`, the one year a date is "in" ("born in 1940"), and of numbers a decade by two digits ("an
    atomic number in the 90s", "in the sixties": 90 to 99, 60 to 69). None when it names none."""
    text = re.sub(UNIT_PATTERN, " ", question).lower()
    ends = _ENDS.search(text)
    if ends is not None:
        low, high = (float(n.replace(",", "")) for n in ends.groups() if n is not None)
        if low < high:
            return Span(low, high, True)
    if dates:
        period = asked_period(text)
        year = _IN_YEAR.findall(text)
        if period is None and one_year and len(year) == 1:  # "how many beatles were born in 1940": that year
            return Span(int(year[0]), int(year[0]), True)
        return None if period is None else Span(*period, False)
    short, said = _SHORT_DECADE.search(text), _DECADE_WORD.search(text)
    if short is None and said is None:
        return None
    tens = int(short.group(1)) if short is not None else _DECADE_WORDS[said.group(1)] % 10
    return Span(tens * 10, tens * 10 + 10, False)


# "from" before a year or number that no end of a range follows: where or when a thing is from
# ("films from 1957"), not "from 21 to 30" nor "from 1990 onwards".
_FROM_A_PLACE = re.compile(
    r"\bfrom\s+(?:the\s+)?\d+\b(?!.*\b(?:to|until|till|through|thru|on|onwards?|up|and)\b)", re.IGNORECASE
)


def unasked_comparison_made_equal(tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
    """`tokens` with its one FILTER comparison (`?v > 79`) made an equality, when the question says the
    number compared with and no graded, ranking or comparing word ("Is gold's atomic number 79?"):
    such a question asks whether the value is that number, not beyond it."""
    comparisons = [i for i, t in enumerate(tokens) if t in _FLIP_COMPARISON]
    if (
        "filter" not in tokens
        or len(comparisons) != 1
        or asks_for_a_ranking(question)
        or (_COMPARING & set(_words(question))) - ({"from"} if _FROM_A_PLACE.search(question) else set())
    ):
        return None
    i = comparisons[0]
    number = next((t for t in (tokens[i - 1], tokens[i + 1]) if re.fullmatch(r"-?\d+(?:\.\d+)?", t)), None)
    if number is None or number not in re.findall(r"\d+(?:\.\d+)?", question.replace(",", "")):
        return None
    new = list(tokens)
    new[i] = "="
    return new, f"comparison {tokens[i]} made = (the question compares with nothing)"


# A bound the question says the compared number itself passes ("113 and up", "born in 1942 or later",
# "at least 3", "from 1990 onwards"), with the comparison it asks for.
_INCLUSIVE = (
    (re.compile(rf"\b{_NUMBER_WORD}\s+{_AT_LEAST}\b"), ">="),
    (re.compile(rf"\b(?:at least|no (?:fewer|less) than|not (?:fewer|less) than)\s+{_NUMBER_WORD}\b"), ">="),
    (re.compile(rf"\b(?:from|since)\s+{_NUMBER_WORD}\s+on(?:wards?)?\b|\b{_NUMBER_WORD}\s+onwards?\b"), ">="),
    (re.compile(rf"\b{_NUMBER_WORD}\s+{_AT_MOST}\b"), "<="),
    (re.compile(rf"\b(?:at most|no more than|not more than|up to)\s+{_NUMBER_WORD}\b"), "<="),
)


@functools.lru_cache(maxsize=1024)
def inclusive_bounds(question: str) -> Mapping[str, str]:
    """The numbers `question` bounds inclusively, as a query writes them, with the comparison each asks
    for ("113 and up": {"113": ">="}); a comparison made with one of them includes it. Read once per
    question, however many hypotheses ask."""
    text = question.lower()
    return MappingProxyType(
        {
            n.replace(",", ""): op
            for pattern, op in _INCLUSIVE
            for m in pattern.finditer(text)
            for n in m.groups()
            if n
        }
    )


def inclusive_bound(tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
    """`tokens` with its one comparison with a number the question bounds inclusively ("elements with an
    atomic number of 113 and up" decoded as `?v > 113`, "born in 1942 or later" as `year ( ?v ) = 1942`)
    made that bound (`>= 113`): the number itself is asked for too. None when the question says no such
    bound or the query already compares so."""
    bounds = inclusive_bounds(question)
    comparisons = [i for i, t in enumerate(tokens) if t in _FLIP_COMPARISON or t == "="]
    if not bounds or len(comparisons) != 1 or "filter" not in tokens:
        return None
    i = comparisons[0]
    if i + 1 < len(tokens) and tokens[i + 1] in bounds:
        op = bounds[tokens[i + 1]]
    elif tokens[i - 1] in bounds:
        op = _FLIP_COMPARISON[bounds[tokens[i - 1]]]
    else:
        return None
    if tokens[i] == op:
        return None
    new = list(tokens)
    new[i] = op
    return new, f"comparison {tokens[i]} made {op} (the question's bound includes its number)"


# A period said to run on or to have run up to its end: "the 1870s or later", "the 19th century or earlier".
_PERIOD_THEN = re.compile(rf"(?:\d0['’]?s|ties|centur(?:y|ies))\s+(?:({_AT_LEAST})|{_AT_MOST})\b")


def period_opened(tokens: Sequence[str], question: str) -> tuple[list[str], str] | None:
    """`tokens` with its FILTER on the period the question names (`asked_period`: `?v >= 1870 && ?v <
    1880`) kept to the one end the question leaves it at: "premiered in the 1870s or later" from 1870 on,
    "... or earlier" before 1880. None when the question says no such period or the query keeps none."""
    said = _PERIOD_THEN.search(question.lower())
    period = asked_period(question) if said is not None else None
    if period is None or tokens.count("filter") != 1 or tokens.count("&&") != 1:
        return None
    start = tokens.index("filter") + 1
    close = closing(tokens, start)
    both = tokens.index("&&")
    if tokens[close] != ")" or not start < both < close:
        return None
    low, high = list(tokens[start + 1 : both]), list(tokens[both + 1 : close])
    if str(period[0]) not in low or str(period[1]) not in high or ">=" not in low or "<" not in high:
        return None
    if said.group(1):
        kept, note = [*tokens[:both], *tokens[close:]], f"from its start on ({period[0]} or later)"
    else:
        kept, note = [*tokens[: start + 1], *high, *tokens[close:]], f"up to its end ({period[1]})"
    return kept, f"its period kept open {note}"


def unasked_filter_removed(
    tokens: Sequence[str], types: Sequence[TokenType], question: str
) -> tuple[list[str], str] | None:
    """`tokens` without its idle FILTERs (`patterns.idle_filters`: "How many planets are there?" decoded
    with `filter ( ?v )`), when `question` has no graded, ranking or comparing word: the question asks
    for no condition, and the filter holds none; None when there is none to remove."""
    if "filter" not in tokens:
        return None
    words = set(_words(question))
    if asks_for_a_ranking(question) or (_COMPARING | _PREPOSITIONS.keys()) & words:
        return None
    idle = {i for start, end in idle_filters(tokens, types) for i in range(start, end)}
    if not idle:
        return None
    return without_positions(
        tokens, idle
    ), "a FILTER on nothing the query binds removed (the question compares nothing)"


def unasked_bound_removed(
    tokens: Sequence[str], types: Sequence[TokenType], question: str
) -> tuple[list[str], str] | None:
    """`tokens` without its FILTERs that compare a value with a constant, when `question` asks for the
    top one and compares with nothing ("Which Alpine mountain is the lowest?" decoded with `filter ( ?v >
    "Alpine" )`): a superlative ranks, and no word of the question sets a bound; None otherwise."""
    if "filter" not in tokens or not asks_for_the_top(question):
        return None
    words = set(_words(question))
    bounding = (_COMPARING - {"most", "least"}) | _PREPOSITIONS.keys()
    if any(a.form == "comparative" for a in asked_orders(question)) or words & bounding:
        return None
    spans = constant_comparisons(tokens, types)
    if not spans:
        return None
    drop = {i for start, end in spans for i in range(start, end)}
    return without_positions(
        tokens, drop
    ), "a FILTER with a bound removed (the question asks for the top one and sets no bound)"


def text_bound_removed(tokens: Sequence[str], types: Sequence[TokenType]) -> tuple[list[str], str] | None:
    """`tokens` without its FILTERs that order a value against a text ("Which Alpine mountains are taller
    than the Eiger?" decoded with `filter ( ?v > "Alpine" )`), whatever the question: a word is no
    bound for a measure, and the comparison the question asks is made anew from its words (repair's
    `_compared`); None when there is none."""
    spans = [
        (start, end)
        for start, end in constant_comparisons(tokens, types)
        if any(
            types[i] == TokenType.LITERAL
            and tokens[i].startswith('"')
            and not re.search(r"\d", literal_value(tokens[i]))
            for i in range(start, end)
        )
    ]
    if not spans:
        return None
    drop = {i for start, end in spans for i in range(start, end)}
    return without_positions(
        tokens, drop
    ), "a FILTER ordering a value against words removed (words bound no measure)"


# How many words may stand between a bounding word and the number it bounds ("more than 8000", "over
# 50 million", "bigger than 1,000,000": the comparing word and "than").
_BOUND_REACH = 3
_BOUND_OPERATOR: dict[Sense, str] = {"high": ">", "late": ">", "low": "<", "early": "<"}


@functools.lru_cache(maxsize=1024)
def said_numbers(question: str) -> frozenset[str]:
    """The numbers `question` says, as a query writes them ("five million": 5000000, "1,000,000")."""
    return frozenset(c.token for c in literal_candidates(question) if NUMBER.fullmatch(c.token))


@functools.lru_cache(maxsize=1024)
def said_bounds(question: str) -> Mapping[str, str]:
    """The numbers `question` bounds, as a query writes them, with the comparison each asks for: a
    comparing word just before the number ("exceed five million km²": {"5000000": ">"}, "after 115",
    "fewer than 3", "at least 3": ">=") or an inclusive bound after it ("113 and up": ">="). A number
    said with no such word ("atomic number 79") is bounded by nothing."""
    found: dict[str, str] = {}
    for candidate in literal_candidates(question):
        if not NUMBER.fullmatch(candidate.token):
            continue
        before = _WORD.findall(_outside_units(question[: candidate.start]))[-_BOUND_REACH:]
        comparing = [a for a in asked_orders(" ".join(before)) if a.form == "comparative"]
        if comparing:
            last = comparing[-1]
            found[candidate.token] = {"at least": ">=", "at most": "<="}.get(
                last.word, _BOUND_OPERATOR[last.sense]
            )
    return MappingProxyType({**found, **inclusive_bounds(question)})


def without_positions(tokens: Sequence[str], drop: set[int]) -> list[str]:
    """`tokens` without the positions in `drop`, and without a "." the removal left after "{" or before
    "." or "}"."""
    kept = [t for i, t in enumerate(tokens) if i not in drop]
    return [
        t
        for t, before, after in zip(kept, ["", *kept[:-1]], [*kept[1:], ""])
        if not (t == "." and (before == "{" or after in (".", "}")))
    ]


# Words for people counted ("the most people", "2 million inhabitants"): a population, when a number,
# a scale word or a graded word of amount says so.
_PEOPLE = frozenset({"people", "persons", "inhabitants", "residents", "citizens", "souls"})
_AMOUNT = frozenset({
    "most", "fewest", "least", "more", "fewer", "less", "thousand", "million", "billion", "hundred",
})  # fmt: skip
_UNIT_WORD = re.compile(r"[^\W_]+²?|\d+(?:[.,]\d+)*")


def measured_by_unit(question: str) -> str | None:
    """The measure a unit of `question` names, as the word a label of that measure holds: "population"
    for people counted ("Which Asian country has the most people?", "over 50 million people", "more
    people than Japan"), "area" for a unit of area ("larger than a million square kilometres", "km²",
    "hectares"); None for none. People not counted ("people born in Paris", "How many people founded
    Intel?": a count of them) name no measure."""
    words = [w.lower() for w in _UNIT_WORD.findall(re.sub(UNIT_PATTERN, " ", question))]
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        if word in _PEOPLE and (before in _AMOUNT or before[:1].isdigit()):
            return "population"
        if word in AREA_UNITS or (word in LENGTH_UNITS and before in ("square", "sq")):
            return "area"
    return None


def _ordered_variable(tokens: Sequence[str], at: int) -> str | None:
    """The variable an `order by` at `at` sorts on (`order by desc ( ?v )`, `order by ?v`); None for
    an expression (`order by desc ( count ( ?y ) )`), whose values are numbers."""
    for tok in tokens[at + 2 : at + 6]:
        if tok.startswith(("?", "$")):
            return tok
        if tok not in ("asc", "desc", "("):
            return None
    return None


def _property_of(tokens: Sequence[str], variable: str) -> str | None:
    """The predicate of the first `s p variable` pattern (the property whose values are ordered)."""
    for i in range(2, len(tokens)):
        if tokens[i] == variable and tokens[i - 1] not in ("(", "by", "desc", "asc", ">", "<", ">=", "<="):
            predicate = tokens[i - 1]
            if not predicate.startswith(("?", "$", "(", "{", ".")):
                return predicate
    return None


def ordered_variable(tokens: Sequence[str]) -> str | None:
    """The variable a query's one `order by` sorts on (`order by desc ( ?v )`); None for none or an expression."""
    if tokens.count("order") != 1:
        return None
    at = list(tokens).index("order")
    return _ordered_variable(tokens, at) if at + 2 < len(tokens) and tokens[at + 1] == "by" else None


def ordered_property(tokens: Sequence[str]) -> str | None:
    """The property whose values a query's one `order by` sorts on (`?x ont:area ?v ... order by ?v`)."""
    variable = ordered_variable(tokens)
    return _property_of(tokens, variable) if variable is not None else None


def ranking_dropped(tokens: Sequence[str], types: Sequence[TokenType]) -> list[str] | None:
    """`tokens` without its one `order by ... limit N` and the one pattern that gives the ordered
    variable its values (`?x P ?v`, the variable read nowhere else): the things a superlative ranks, for
    a ranking that found none ("Which of Van Gogh's paintings is the oldest?" ordered by a publication
    year, which paintings lack) to be made anew by a measure they have (repair's `_ranked`); None when
    the query has no such ordering or nothing would be left."""
    variable = ordered_variable(tokens)
    if variable is None or "limit" not in tokens:
        return None
    at = list(tokens).index("order")
    if "}" in tokens[at:]:
        return None
    body, kinds = list(tokens[:at]), list(types[:at])
    patterns = triple_patterns(body, kinds)
    binding = [(s, p, o) for s, p, o in patterns if body[o] == variable]
    if len(binding) != 1 or body.count(variable) != 1 or kinds[binding[0][0]] != TokenType.VARIABLE:
        return None
    if len(patterns) == 1:
        return None
    s, p, o = binding[0]
    return without_positions(body, {s, p, o, o + 1} if body[o + 1 : o + 2] == ["."] else {s - 1, s, p, o})


def turned_to_question(
    tokens: Sequence[str], question: str, values_are_dates: Callable[[str], bool]
) -> tuple[list[str], str] | None:
    """`tokens` with its one ORDER BY direction or FILTER comparison turned to what the question's
    graded word asks for, and a note of the change; None when nothing contradicts the question.
    `values_are_dates(property)`: whether the KB's values of that property are dates or years."""
    new = list(tokens)
    notes: list[str] = []
    if new.count("order") == 1 and (superlative := asked(question, "superlative")) is not None:
        at = new.index("order")
        if at + 2 < len(new) and new[at + 1] == "by":
            prop = ordered_property(new)
            low_first = ascending(
                superlative.sense, superlative.word, prop is not None and values_are_dates(prop)
            )
            has_direction = new[at + 2] in ("asc", "desc")
            now_low_first = not has_direction or new[at + 2] == "asc"
            if low_first is not None and low_first != now_low_first:
                direction = "asc" if low_first else "desc"
                if has_direction:
                    new[at + 2] = direction
                elif new[at + 2] == "(":
                    new[at + 2 : at + 2] = [direction]
                else:  # `order by ?v` -> `order by desc ( ?v )`: a direction needs brackets
                    new[at + 2 : at + 3] = [direction, "(", new[at + 2], ")"]
                notes.append(f"order turned to {direction} ('{superlative.word}')")
    comparisons = [i for i, t in enumerate(new) if t in _FLIP_COMPARISON]
    if (
        "filter" in new
        and len(comparisons) == 1
        and (comparative := asked(question, "comparative")) is not None
    ):
        i = comparisons[0]
        variable = next((t for t in (new[i - 1], new[i + 1]) if t.startswith(("?", "$"))), None)
        prop = _property_of(new, variable) if variable is not None else None
        low = ascending(comparative.sense, comparative.word, prop is not None and values_are_dates(prop))
        if low is not None:
            variable_left = new[i - 1].startswith(("?", "$"))
            greater = new[i] in (">", ">=")
            if (greater != variable_left) != low:  # "?v > n" and "n < ?v" ask for high values
                new[i] = _FLIP_COMPARISON[new[i]]
                notes.append(f"comparison turned to {new[i]} ('{comparative.word}')")
    return (new, "; ".join(notes)) if notes else None
