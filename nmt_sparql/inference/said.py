"""What one question says of KB elements, by the names the KB index holds for them: the words repair's
rules (inference/repair.py) read to tell which elements a question names, in full, in part, misspelt, or by
a place adjective.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from nmt_sparql.annotation.linking.index import QUALIFIER, KBIndex, misspelt, normalize
from nmt_sparql.annotation.linking.linker import STOPWORDS
from nmt_sparql.annotation.linking.wordforms import (
    head_plurals,
    inflections,
    is_common_noun,
    is_dictionary_word,
    place_names,
)
from nmt_sparql.inference.expected_answer import asked_noun

# Words an element's learned names may hold that name nothing by themselves ("is", "be", "been").
_FUNCTION_WORDS = frozenset({
    "the", "and", "was", "were", "are", "been", "being", "has", "have", "had", "does", "did", "its", "his",
    "her", "their", "for", "from", "with", "into", "than", "that", "this", "which", "what", "who", "whom",
})  # fmt: skip
# A question word this long that English does not know may misspell an element's one-word name.
_TYPO_LENGTH = 7


class Said:
    """What one question says of KB elements: the words of the question that an element's names in
    the KB index (label, inflections, spans training aligned with it) say, function words aside."""

    def __init__(self, question: str, index: KBIndex):
        self.text, self.index, self.question = f" {normalize(question)} ", index, question
        self._words: dict[str, frozenset[str]] = {}
        self._parts: dict[str, frozenset[str]] = {}  # `part_words`
        self._names: dict[str, frozenset[str]] = {}  # `names_within`: each asks the index of every name
        self._asked: list[str] | None = None  # `asked_noun`
        self._unknown: list[str] | None = None  # `_typos`

    def names_whole(self, token: str) -> bool:
        """Whether the question names the element in full (`names_in_full`) or by a place adjective of
        its label ("american" for the United States: `place_words`)."""
        return self.names_in_full(token) or bool(self.place_words(token))

    def names_in_full(self, token: str) -> bool:
        """Whether the question holds the element's label whole ("alps" for the Alps), or the plural
        of a label that is a common noun ("physicists" for physicist), one word of a longer label
        misspelt or not ("trinity collage dublin")."""
        return bool(self.spans_in_full(token))

    def spans_in_full(self, token: str) -> list[tuple[int, int]]:
        """Where the question's words (`text.split()`) name the element in full (`names_in_full`): the
        [start, end) spans of its label or plural, at most one word of a label of two or more misspelt,
        or of the initials of a name of two or more capitalised words written in capitals after "the" ("in
        the US"; not "a US state", where they say where the state is)."""
        raw = self.index.label(token) or ""
        forms = [raw, *(head_plurals(raw) if is_common_noun(raw) else ())]
        words = self.text.split()
        initials = "".join(w[0] for w in raw.split() if w[:1].isupper())
        spans = (
            [
                (at, at + 1)
                for at, w in enumerate(words)
                if w == initials.lower() and words[at - 1 : at] == ["the"]
            ]
            if len(initials) > 1
            and len(initials) == len(raw.split())
            and re.search(rf"\b{initials}\b", self.question)
            else []
        )
        for form in (normalize(f).split() for f in forms if f):
            for at in range(len(words) - len(form) + 1 if form else 0):
                said = words[at : at + len(form)]
                wrong = [(w, n) for w, n in zip(said, form, strict=True) if w != n]
                if not wrong or (len(form) > 1 and len(wrong) == 1 and misspelt(*wrong[0])):
                    spans.append((at, at + len(form)))
        return spans

    def _typos(self) -> list[str]:
        """The question's long words English does not know: what may misspell a one-word name, read once."""
        if self._unknown is None:
            self._unknown = [
                w for w in self.text.split() if len(w) >= _TYPO_LENGTH and not is_dictionary_word(w)
            ]
        return self._unknown

    def within_another(self, token: str, others: Sequence[str]) -> bool:
        """Whether every span that names the element in full lies within a span naming one of `others`
        ("Dublin" of "Trinity College Dublin"): the question names it only as part of that name."""
        spans = self.spans_in_full(token)
        around = [span for other in others if other != token for span in self.spans_in_full(other)]
        return bool(spans) and all(
            any(a <= s and e <= b and (a, b) != (s, e) for a, b in around) for s, e in spans
        )

    def names_used(self, tokens: Sequence[str]) -> list[str]:
        """The names (labels, spaced for word matches) of the KB elements a query uses."""
        return [f" {normalize(self.index.label(t) or '')} " for t in tokens if ":" in t]

    def inside(self, token: str, names: Sequence[str]) -> bool:
        """Whether the element's label is within one of `names` (`names_used`): "London" in "Imperial
        College London", "politician" in the occupation's name: the question's words name that."""
        return any(f" {normalize(self.index.label(token) or token)} " in name for name in names)

    def part_words(self, token: str) -> frozenset[str]:
        """The question's words that are a name within the element's label or a misspelling of one
        ("verdi" for Giuseppe Verdi, "pucini" for Giacomo Puccini, "himalayan" for the Himalayas): a
        word the label capitalises that names no class or property ("University" of the University of
        Cambridge names a class)."""
        if token not in self._parts:
            names = self.names_within(token)
            self._parts[token] = frozenset(
                w for w in self.text.split() if w not in STOPWORDS and any(misspelt(w, n) for n in names)
            )
        return self._parts[token]

    def names_within(self, token: str) -> frozenset[str]:
        """The names within the element's label: the words it capitalises that name no class or
        property ("oxford" and "brookes" of Oxford Brookes University)."""
        if token not in self._names:
            raw = QUALIFIER.sub("", self.index.label(token) or "")
            names = {normalize(w) for w in raw.split() if w[:1].isupper()} - STOPWORDS
            self._names[token] = frozenset(
                n for n in names if n and not self.index.exact(n, ("class", "property"))
            )
        return self._names[token]

    def unsaid_names(self, token: str) -> frozenset[str]:
        """The names within the element's label that the question does not say, nor misspell."""
        words = [w for w in self.text.split() if w not in STOPWORDS]
        return frozenset(n for n in self.names_within(token) if not any(misspelt(w, n) for w in words))

    def positions(self, token: str) -> frozenset[int]:
        """Where the question's words (`text.split()`) name the element whole (`names_whole`): its
        spans in full and its place adjectives. Two elements said at one place are two readings of the
        same words ("Portuguese": the language, or Portugal)."""
        words = self.text.split()
        places = {w for p in self.place_words(token) for w in p.split()}
        spans = {i for start, end in self.spans_in_full(token) for i in range(start, end)}
        return frozenset(spans | {i for i, w in enumerate(words) if w in places})

    def place_words(self, token: str) -> list[str]:
        """The question's words that are place adjectives of the element's label ("american"), or
        name it with the word before ("south american" for South America)."""
        label = normalize(self.index.label(token) or "")
        words = self.text.split()
        if not label:
            return []
        return [w for w in words if label in place_names(w)] + [
            f"{a} {b}" for a, b in itertools.pairwise(words) if label in (f"{a} {n}" for n in place_names(b))
        ]

    def asked_head(self, token: str) -> frozenset[str]:
        """The noun the question asks for (`asked_noun`: "What range ...", "How many works ...") when it is
        the head of the element's label of two or more words ("mountain range", "notable work"), in
        the singular or plural: the question names the element by its head; else empty."""
        noun = self.asked_noun()[:1]
        label = normalize(self.index.label(token) or "").split()
        if not noun or len(label) < 2 or label[-1] not in inflections(noun[0], ("NOUN",)):
            return frozenset()
        return frozenset(noun)

    def asked_noun(self) -> list[str]:
        """The words after the phrase that asks for things of a kind (`expected_answer.asked_noun`), read once."""
        if self._asked is None:
            self._asked = asked_noun(self.text)
        return self._asked

    def words(self, token: str, specific: bool = False) -> frozenset[str]:
        """The question's words the element's names say, a long one-word name misspelt too
        ("headquartred"); `specific`: only by a name that is not a part of a longer one ("places" of
        "places of birth" says no birth place; "born" of "was born in" does, function words aside),
        or that says all of the label ("capital" says the capital, though "capital city" is longer)."""
        key = f"{specific} {token}"
        if key not in self._words:
            names = [n for n in self.index.names(token) if n not in _FUNCTION_WORDS and len(n) > 2]
            if specific:
                content = {n: set(n.split()) - STOPWORDS for n in names}
                label = set(normalize(self.index.label(token) or "").split()) - STOPWORDS
                names = [
                    n
                    for n in names
                    if (label and label <= content[n]) or not any(content[n] < content[m] for m in names)
                ]
            found = {w for n in names if f" {n} " in self.text for w in n.split()}
            found |= {n for n in names if " " not in n and any(misspelt(w, n) for w in self._typos())}
            self._words[key] = frozenset(found - _FUNCTION_WORDS)
        return self._words[key]


# A capitalised word after one of these starts a sentence, so it is no sign of a name.
_SENTENCE_END = re.compile(r"[.?!:;]\s*$")
_CASED_WORD = re.compile(r"[^\W\d_][\w'’.-]*")


def names_the_kb_lacks(question: str, index: KBIndex) -> list[str]:
    """The names a question says that the KB does not hold: words that no label holds, even misspelt
    (`KBIndex.lookup` finds nothing for the name, nor for any of its words or their hyphenated parts),
    one of which at least English does not know, and that read as a name: written with capitals
    ("Jimi Hendrix"), or two such words in a row in any case ("jimi hendrix"). A capital says nothing of
    a question's first word, a word that starts a sentence, a contraction ("I'm"), an abbreviation
    ("HQ", "PhD") nor a question in capitals throughout (a title: "Which Films Did Kubrick Direct")."""
    words = [
        (m.group().rstrip(".").removesuffix("'s").removesuffix("’s"), m.start())
        for m in _CASED_WORD.finditer(question)
    ]
    content = [w for w, _ in words[1:] if w.lower() not in STOPWORDS and len(w) > 1]
    title = all(w[0].isupper() for w in content)
    held: dict[str, bool] = {}  # `_held` of each word, asked of the index once

    def is_held(word: str) -> bool:
        if word not in held:
            held[word] = _held(index, word)
        return held[word]

    names: list[list[int]] = []  # runs of capitalised words, by position
    runs: list[list[int]] = []  # runs of words English does not know and no label holds
    for i, (word, start) in enumerate(words):
        lowered = word.lower()
        plain = lowered not in STOPWORDS and "'" not in word and "’" not in word
        capitalised = (
            plain
            and not title
            and i > 0
            and len(word) > 2
            and word[0].isupper()
            and word[1:] == lowered[1:]
            and not _SENTENCE_END.search(question[:start])
        )
        unknown = plain and not all(map(is_dictionary_word, filter(None, lowered.split("-"))))
        for group, member in ((names, capitalised), (runs, unknown and not is_held(word))):
            if member and group and group[-1][-1] == i - 1:
                group[-1].append(i)
            elif member:
                group.append([i])
    spans = [span for span in names if not all(is_dictionary_word(words[j][0].lower()) for j in span)]
    spans += [span for span in runs if len(span) > 1 and span not in spans]
    found = [" ".join(words[j][0] for j in span) for span in spans]
    return [
        name
        for name in found
        if not any(is_held(word) for word in name.split()) and not index.lookup(name, k=1)
    ]


def _held(index: KBIndex, word: str) -> bool:
    """Whether a label of the KB holds the word, or one of its hyphenated parts, even misspelt."""
    return any(index.lookup(part, k=1) for part in {word, *word.split("-")} if part)
