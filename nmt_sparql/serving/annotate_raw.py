"""Annotate a question a user typed, without «tags», the way the model was trained to read it.

At training time the dataset says which KB elements a question names; at inference nobody does.
A tag_within/tag_end model still needs its KB elements as `«token»` units (the copy layer can only
point at those), so they are found by matching the KB's `rdfs:label`s in the question: whole words,
case-insensitive, longest label first, no overlaps. A question that already holds `«...»` units is
the user's own annotation and is used as it is.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from nmt_sparql.annotation.annotate import SEP, Scheme, mark
from nmt_sparql.annotation.labels import normalize_space
from nmt_sparql.annotation.units import check_units
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.embedded import EmbeddedStore
from nmt_sparql.sparql.prefixes import PrefixMap
from nmt_sparql.sparql.tokens import SparqlSyntaxError, tokenize

_RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_WORD = re.compile(r"\w+|[^\w\s]")
_HAS_UNIT = re.compile(r"«[^«»]+»")
# Labels shorter than this ("a", "I") match too many questions by accident.
MIN_LABEL_CHARS = 2


def _key(words: Iterable[str]) -> tuple[str, ...]:
    return tuple(w.casefold() for w in words)


def _lang_rank(lang: str) -> int | None:
    """English first, then regional English, then untagged labels; other languages are not used."""
    lang = lang.lower()
    return 0 if lang == "en" else 1 if lang.startswith("en-") else 2 if not lang else None


@dataclass(frozen=True)
class Match:
    """A KB element found in a question: character span, token, and the label that matched."""

    start: int
    end: int
    token: str
    label: str


class LabelIndex:
    """Label words -> KB token. When one label names several elements, the first in sorted token order
    wins, so the choice is the same on every run (an ambiguity a label alone cannot settle)."""

    def __init__(self, labels: Mapping[str, Iterable[str]], min_chars: int = MIN_LABEL_CHARS):
        self._by_words: dict[tuple[str, ...], tuple[str, str]] = {}
        for token in sorted(labels):
            for label in labels[token]:
                label = normalize_space(label)
                words = _WORD.findall(label)
                if len(label) < min_chars or not words or "«" in token or "»" in token:
                    continue
                self._by_words.setdefault(_key(words), (token, label))
        self.max_words = max((len(k) for k in self._by_words), default=0)

    def __len__(self) -> int:
        return len(self._by_words)

    @classmethod
    def from_store(cls, store: Any, prefixes: PrefixMap) -> LabelIndex:
        """Every `rdfs:label` of a pyoxigraph store in one SELECT, subjects written as model tokens."""
        best: dict[str, tuple[int, list[str]]] = {}
        for row in store.query(f"SELECT ?s ?l WHERE {{ ?s <{_RDFS_LABEL}> ?l }}"):
            subject, label = row["s"], row["l"]
            rank = _lang_rank(getattr(label, "language", None) or "")
            if rank is None or not isinstance(subject, ox.NamedNode):
                continue
            try:
                token = tokenize(f"<{subject.value}>", prefixes)[0]
            except SparqlSyntaxError:
                continue
            if token == "a":
                continue
            kept = best.get(token)
            if kept is None or rank < kept[0]:
                best[token] = (rank, [label.value])
            elif rank == kept[0]:
                kept[1].append(label.value)
        return cls({token: names for token, (_, names) in best.items()})

    @classmethod
    def from_kb(cls, kb: KnowledgeBase) -> LabelIndex:
        """The index of an embedded store; an endpoint (DBpedia, Wikidata) is too large to list."""
        if not isinstance(kb, EmbeddedStore) or kb.store is None:
            raise TypeError(
                f"a label index needs an embedded store, got {type(kb).__name__}: "
                "annotate questions yourself with «token» units for an endpoint KB"
            )
        return cls.from_store(kb.store, kb.prefixes)

    def find(self, question: str) -> list[Match]:
        """Non-overlapping label matches in `question`, longest (in words) first, then leftmost."""
        words = list(_WORD.finditer(question))
        keys = _key(w.group() for w in words)
        taken = [False] * len(words)
        found: list[Match] = []
        for n in range(min(self.max_words, len(words)), 0, -1):
            for i in range(len(words) - n + 1):
                hit = self._by_words.get(keys[i : i + n])
                if hit is None or any(taken[i : i + n]):
                    continue
                taken[i : i + n] = [True] * n
                found.append(Match(words[i].start(), words[i + n - 1].end(), *hit))
        return sorted(found, key=lambda m: m.start)


def has_units(question: str) -> bool:
    """Whether the user already annotated the question with `«token»` units."""
    return _HAS_UNIT.search(question) is not None


def annotate_question(question: str, scheme: Scheme, index: LabelIndex | None, seed: int = 0) -> str:
    """The model input for a raw question: KB labels replaced by `«token»` (tag_within) or appended
    as `<sep> «token» label` in a seeded random order (tag_end), as in the training data."""
    question = normalize_space(question)
    if scheme == "raw" or index is None or has_units(question):
        check_units(question)
        return question
    matches = index.find(question)
    if scheme == "tag_within":
        pieces, pos = [], 0
        for m in matches:
            pieces += [question[pos : m.start].strip(), mark(m.token)]
            pos = m.end
        pieces.append(question[pos:].strip())
        return " ".join(p for p in pieces if p)
    if scheme == "tag_end":
        elements = list({m.token: m.label for m in matches}.items())
        random.Random(f"{seed}:{question}").shuffle(elements)
        return question + "".join(f" {SEP} {mark(token)} {label}" for token, label in elements)
    raise ValueError(f"unknown annotation scheme {scheme!r}; expected raw, tag_within or tag_end")
