"""The words people use for a property or a class, derived from its label.

A label names a relation as a noun ("director", "birth place", "release year"); questions say it
with a verb ("directed", "born", "released") or a plural ("films"). Inflections come from
lemminflect (English lemmas and inflections, its data ships with it). Derivations are few general
English rules: an agent noun or a nominalization is tied to its verb (director -> direct,
composer -> compose, discovery -> discover, location -> locate) when lemminflect knows that verb, plus
the irregular nominalizations a suffix rule cannot reach (birth -> bear -> born).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from lemminflect import getAllInflections, getAllInflectionsOOV, getAllLemmas

if TYPE_CHECKING:  # the index imports this module
    from nmt_sparql.annotation.linking.index import Entry

# (suffix, replacement): an agent noun or a nominalization -> the verb it comes from.
_DERIVATIONS = (
    ("or", ""), ("er", ""), ("r", ""), ("ation", ""), ("ation", "e"), ("ation", "y"), ("ion", ""),
    ("ion", "e"), ("ment", ""), ("y", ""), ("al", ""), ("ance", ""), ("ence", ""),
)  # fmt: skip
# Nouns whose verb no suffix rule finds.
_IRREGULAR = {"birth": "bear", "death": "die", "marriage": "marry", "life": "live", "sale": "sell",
              "loss": "lose", "flight": "fly", "growth": "grow", "speech": "speak", "choice": "choose",
              "proof": "prove", "gift": "give", "song": "sing", "thought": "think"}  # fmt: skip
# Past forms that take "by" in a passive ("directed by") come from agent nouns.
_AGENT_SUFFIXES = ("or", "er", "r")
_MIN_STEM = 3


def _verb_forms(verb: str) -> tuple[str, ...]:
    forms = getAllInflections(verb, upos="VERB")
    return tuple(dict.fromkeys(f for tag in ("VBD", "VBN", "VBZ", "VBG", "VB") for f in forms.get(tag, ())))


@functools.lru_cache(maxsize=65536)
def inflections(word: str, upos: tuple[str, ...] = ("NOUN", "VERB")) -> tuple[str, ...]:
    """Every inflection, as a noun or verb (`upos`), of every such lemma of `word` (film: films, filmed...).
    A word that is a lemma itself is inflected as that lemma only: "found" gives founded, not find's
    forms, though it is also find's past."""
    out: dict[str, None] = {word: None}
    found = getAllLemmas(word)
    own = {pos: (word,) if word in found.get(pos, ()) else found.get(pos, ()) for pos in upos}
    lemmas = sorted({lemma for pos in upos for lemma in own[pos]})
    for lemma in lemmas:
        out[lemma] = None
        for pos in upos:
            for forms in getAllInflections(lemma, upos=pos).values():
                out.update(dict.fromkeys(forms))
    return tuple(out)


def is_verb_form(word: str, tags: tuple[str, ...]) -> bool:
    """Whether `word` is one of a verb's forms of the Penn `tags` ("seen" of VBN, "goes" of VBZ)."""
    for lemma in getAllLemmas(word, upos="VERB").get("VERB", ()):
        forms = getAllInflections(lemma, upos="VERB")
        if any(word in forms.get(tag, ()) for tag in tags):
            return True
    return False


def is_past_only(word: str) -> bool:
    """Whether `word` is a verb's past that is not also its participle, nor a noun or an adjective
    ("came", "wrote", "was": a finite verb; not "painted", "born", "topped")."""
    lemmas = getAllLemmas(word)
    if "NOUN" in lemmas or "ADJ" in lemmas:
        return False
    for lemma in lemmas.get("VERB", ()):
        forms = getAllInflections(lemma, upos="VERB")
        if word in forms.get("VBD", ()) and forms.get("VBN") and word not in forms["VBN"]:
            return True
    return False


def _is_verb(word: str) -> bool:
    return bool(getAllLemmas(word).get("VERB"))


@functools.lru_cache(maxsize=65536)
def derived_verbs(word: str) -> tuple[tuple[str, bool], ...]:
    """(verb, is_agent) for the verbs `word` derives from: director -> (direct, True), birth -> (bear, False)."""
    found: dict[str, bool] = {}
    if word in _IRREGULAR:
        found[_IRREGULAR[word]] = False
    for suffix, repl in _DERIVATIONS:
        stem = word[: -len(suffix)] + repl if word.endswith(suffix) else ""
        if len(stem) >= _MIN_STEM and stem != word and getAllInflections(stem, upos="VERB"):
            found.setdefault(stem, suffix in _AGENT_SUFFIXES)
    return tuple(sorted(found.items()))


# Words that ask for a verb's base form later in the question ("Did Enzo Ferrari found Ferrari?", "how
# many companies did they found", "to found"), unless a form of "be" or "have" comes right before it.
_MODALS = frozenset({"will", "would", "can", "could", "shall", "should", "may", "might", "must"})
_BASE_FORM_CUES = frozenset({"do", "does", "did", "don", "doesn", "didn", "to"}) | _MODALS
_BE_HAVE = frozenset({"be", "been", "being", "am", "is", "are", "was", "were", "has", "have", "had"})


@functools.lru_cache(maxsize=65536)
def _forms_of_verbs_it_is_the_past_of(word: str) -> tuple[str, ...]:
    """Every form of the other verbs `word`, a verb's base form, is the past of ("found": find, finds)."""
    lemmas = getAllLemmas(word).get("VERB", ())
    if word not in lemmas:
        return ()
    out: dict[str, None] = {}
    for lemma in lemmas:
        forms = getAllInflections(lemma, upos="VERB")
        if lemma != word and word in forms.get("VBD", ()) + forms.get("VBN", ()):
            out.update(dict.fromkeys((lemma, *(f for tag in sorted(forms) for f in forms[tag]))))
    out.pop(word, None)
    return tuple(out)


def past_of_another_verb(texts: Sequence[str], k: int) -> tuple[str, ...]:
    """The forms of another verb (find, finds, finding) when the word at `k` (lower-cased words of a
    question) is, there, that verb's past rather than the base form it also is: "found" is find's past
    ("Who found Uranus?", "moons that Herschel found", "was found by") unless the question asks for a
    base form before it ("Did Enzo Ferrari found Ferrari?"); () otherwise. Such a word names only what
    the other verb names (not founder)."""
    forms = _forms_of_verbs_it_is_the_past_of(texts[k])
    if not forms:
        return ()
    if k and texts[k - 1] in _BE_HAVE:
        return forms
    return () if any(t in _BASE_FORM_CUES for t in texts[:k]) else forms


# Place adjectives (and their plurals for people) -> the place names they are made from, by English
# suffix: (suffix, endings of the name in its place). "Russian": Russia, "German": Germany, "Italian":
# Italy, "Chinese": China, "Mexican": Mexico, "Swedish": Sweden, "Polish": Poland, "Iraqi": Iraq; plural
# names of ranges and islands: "Himalayan": the Himalayas, "Andean": the Andes.
# Irregular ones ("French", "Dutch", "British") are no rule's: `_IRREGULAR_PLACES` holds the common ones.
_PLACE_ADJECTIVES = (
    ("ian", ("", "y", "a", "ia")), ("an", ("a", "o", "", "any", "e", "as", "s")), ("ese", ("", "a", "o")),
    ("ish", ("en", "and", "eland", "ey")), ("i", ("",)),
)  # fmt: skip
_MIN_PLACE_STEM = 2
# English place adjectives and names of peoples that no suffix rule makes, with their places' names.
_IRREGULAR_PLACES = {
    "american": ("united states", "america"), "british": ("united kingdom", "britain", "great britain"),
    "briton": ("united kingdom", "britain"), "french": ("france",), "dutch": ("netherlands", "holland"),
    "swiss": ("switzerland",), "greek": ("greece",), "welsh": ("wales",), "scottish": ("scotland",),
    "scot": ("scotland",), "danish": ("denmark",), "dane": ("denmark",), "finnish": ("finland",),
    "finn": ("finland",), "spanish": ("spain",), "spaniard": ("spain",), "portuguese": ("portugal",),
    "thai": ("thailand",), "filipino": ("philippines",), "swede": ("sweden",), "turk": ("turkey",),
    "icelandic": ("iceland",), "norwegian": ("norway",), "peruvian": ("peru",), "lebanese": ("lebanon",),
    "ukrainian": ("ukraine",), "belgian": ("belgium",), "saudi": ("saudi arabia",),
    "czech": ("czech republic", "czechia"), "burmese": ("myanmar", "burma"), "argentine": ("argentina",),
    "alpine": ("alps",), "londoner": ("london",), "parisian": ("paris",), "venetian": ("venice",), "roman": ("rome",),
}  # fmt: skip


@functools.lru_cache(maxsize=65536)
def place_names(word: str) -> tuple[str, ...]:
    """The names `word` may be the place adjective of, or of the people of ("Russians"), lower-cased,
    by the irregular ones and the suffix rules above; which of them is a place the KB names is for the
    index to say."""
    word = word.lower()
    out = dict.fromkeys(_IRREGULAR_PLACES.get(word, _IRREGULAR_PLACES.get(word.removesuffix("s"), ())))
    forms = [word]
    if word.endswith(("ans", "is")):
        forms.append(word[:-1])
    for form in forms:
        for suffix, endings in _PLACE_ADJECTIVES:
            stem = form[: -len(suffix)]
            if form.endswith(suffix) and len(stem) >= _MIN_PLACE_STEM:
                out.update(dict.fromkeys(stem + e for e in endings if stem + e != word))
    return tuple(out)


# Number words, which lemminflect does not hold (it has no numerals): "the four beatles" names no one.
_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred"
)
_NUMBER_WORDS = frozenset(_NUMBERS.split())


@functools.lru_cache(maxsize=65536)
def is_dictionary_word(word: str) -> bool:
    """Whether `word` (lower-cased) is an English noun, verb, adjective or adverb lemminflect knows, or
    a number word."""
    return word.lower() in _NUMBER_WORDS or bool(getAllLemmas(word.lower()))


# The heads of English compounds for a person that stand for one another ("businessperson",
# "businessman", "businesswomen", "businesspeople").
_PERSON_HEADS = ("persons", "person", "people", "women", "woman", "men", "man")


def person_compounds(word: str) -> tuple[str, ...]:
    """The other forms of a compound naming a person by its head ("businessperson": businessman,
    businessmen, businesswoman, businesswomen, businesspeople, businesspersons), when the word before
    the head is an English word ("business"; not "Ger" of "German", nor "hu" of "human")."""
    head = next((h for h in _PERSON_HEADS if word.endswith(h)), None)
    stem = word[: -len(head)] if head else ""
    if len(stem) < _MIN_STEM or not is_dictionary_word(stem):
        return ()
    return tuple(stem + h for h in _PERSON_HEADS if h != head)


def phrases(label: str, kind: str = "property") -> list[str]:
    """The label and the phrases that name the same element: each word inflected in turn and, for a
    property, the verbs of its derived words alone (birth place -> born) and agent verbs in the passive
    (directed by); a class only takes inflections ("films", not "directed" for "film director")."""
    words = label.lower().split()
    out: dict[str, None] = {label: None}
    for i, word in enumerate(words):
        # The head (last word) takes plurals and verb forms; a word before it only its verb forms.
        head = i == len(words) - 1
        # A class is a noun ("films"; not "painted" for painting); a property may be either.
        upos = ("NOUN",) if kind == "class" else ("NOUN", "VERB") if head else ("VERB",)
        for form in inflections(word, upos) + (person_compounds(word) if head else ()):
            out[" ".join([*words[:i], form, *words[i + 1 :]])] = None
        if kind != "property":
            continue
        if not head and _is_verb(word):
            for lemma in getAllLemmas(word)["VERB"]:
                out.update(dict.fromkeys(_verb_forms(lemma)))
        for verb, agent in derived_verbs(word):
            out.update(dict.fromkeys(_verb_forms(verb)))
            if agent:
                forms = getAllInflections(verb, upos="VERB")
                out.update(dict.fromkeys(f"{form} by" for form in forms.get("VBN", forms.get("VBD", ()))))
    return list(out)


def is_common_noun(label: str) -> bool:
    """A label with no capital letter names a kind of thing ("physicist", "horror film"), not one
    thing by its name ("Paris", "The Shining")."""
    return label == label.lower() and any(c.isalpha() for c in label)


def head_plurals(label: str) -> list[str]:
    """The label with its last word in each of its noun forms: "physicists", "horror films"."""
    *rest, head = label.split()
    return [" ".join([*rest, form]) for form in inflections(head, ("NOUN",)) if form != head]


def is_noun_lemma(word: str) -> bool:
    """Whether `word` is a noun's own dictionary form and no other noun's plural ("movie"; not "movies",
    which lemminflect also lists as a lemma)."""
    lemmas = getAllLemmas(word).get("NOUN", ())
    others = (lemma for lemma in lemmas if lemma != word)
    return word in lemmas and not any(
        word in getAllInflections(lemma, upos="NOUN").get("NNS", ()) for lemma in others
    )


def any_plurals(phrase: str) -> list[str]:
    """`head_plurals`, or for a last word lemminflect does not know ("thriller"), its plural by
    English spelling rules: what a question may say, not what the index derives labels into."""
    *rest, head = phrase.split()
    if getAllLemmas(head):
        return head_plurals(phrase)
    return [" ".join([*rest, form]) for form in getAllInflectionsOOV(head, upos="NOUN").get("NNS", ())]


def with_word_forms(entries: Iterable[Entry]) -> Iterator[Entry]:
    """Entries whose properties and classes also carry the phrases of their labels as `forms`; an
    entity whose preferred label is a common noun (an occupation, a genre), or ends in one after a
    name ("Swiss franc"), carries the plurals of its labels ("list the physicists", "operas that
    premiered after 1900", "countries that pay with Swiss francs"), a named entity nothing (its
    lower-case aliases, learned from lower-case questions, are still names)."""
    for entry in entries:
        forms = dict.fromkeys(entry.forms)
        preferred = entry.labels[0].split() if entry.labels else []
        kind_of_thing = entry.kind == "entity" and bool(preferred) and is_common_noun(preferred[-1])
        for label in entry.labels:
            if entry.kind != "entity":
                forms.update(dict.fromkeys(phrases(label, entry.kind)))
            elif kind_of_thing:
                forms.update(dict.fromkeys(head_plurals(label)))
        for label in entry.labels:
            forms.pop(label, None)
        yield replace(entry, forms=tuple(forms))


@functools.lru_cache(maxsize=65536)
def is_graded(word: str) -> bool:
    """A comparative or superlative ("biggest", "higher", "most", "fewer"), or "more"/"less": a word
    that orders things by a measure. Not a word that is also a noun ("number", whose adjective lemma
    would be "numb"), nor one that only ends like a superlative ("forest")."""
    word = word.lower()
    if word in ("more", "less"):
        return True
    lemmas = {lemma for upos in ("ADJ", "ADV") for lemma in getAllLemmas(word, upos=upos).get(upos, ())}
    return bool(lemmas - {word}) and not getAllLemmas(word, upos="NOUN")


@functools.lru_cache(maxsize=65536)
def is_adjective(word: str) -> bool:
    """An adjective in its base form ("tall", "old"): what follows "how" in "How tall is ...?"."""
    return word.lower() in getAllLemmas(word.lower(), upos="ADJ").get("ADJ", ())
