"""The one annotation path: `data prepare` (training), `evaluate`, `translate` and `serve` all call it.

- `linked`: the question, then the KB linker's candidates as `<sep> «token» label (kind)` units,
  several per mention, in the linker's order (mention position, then score), so the copy layer
  chooses among them. The kind (class, property, entity, literal) is written because the copy layer
  hides the token itself: "country" the class and "country" the property would read the same; a
  candidate no words of the question name (a relation, a measure, a described property) is
  `(kind, implied)`, and one it names by the element's own label is `(kind, exact)`. Candidates of
  one kind that share a label (DBpedia's `dbo:birthPlace` and `dbp:birthPlace`, Wikidata's `wdt:P19`
  and `p:P19`) would read the same too: each also says its token's prefix, `(property, dbo)`, which
  the model learns to choose by. Every split is linked from the question alone, so the model reads
  at training what it reads at inference. On the training split only, gold elements the linker missed can be added to the tail
  (each with probability `add_missed_gold`, at a seeded place among the units): without them such a
  query asks for a KB token the input does not hold. The tail holds at most `max_units` units
  (`linked.max_units`), since a copy model has one slot per unit (`model.max_slots`) and refuses more:
  each mention's best candidate first, then the next-best of every mention in turn. Added gold
  elements count within the bound: the weakest other candidates make room for them, never a gold one.
- the paper's schemes on a dataset example (`raw`, `tag_within`, `tag_end`): the dataset's gold KB
  elements (annotate.py), as in the paper's experiments.
- a question a user typed, for a `tag_within` / `tag_end` model: the linker's best candidate of each
  mention in place of its words (tag_within), or every candidate as a tail (tag_end).
A question that already holds `«token»` units is the user's own annotation and is used as it is.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from nmt_sparql.annotation.annotate import SCHEMES, SEP, Annotated, LabelResolver, annotate, mark
from nmt_sparql.annotation.labels import normalize_space
from nmt_sparql.annotation.linking.index import KBIndex
from nmt_sparql.annotation.linking.linker import Candidate, Linker
from nmt_sparql.annotation.linking.sources import element_kinds
from nmt_sparql.annotation.units import check_units
from nmt_sparql.core.marks import find_units, plain_text
from nmt_sparql.core.record import Example, KBElement

Annotation = Literal["raw", "tag_within", "tag_end", "linked"]
ANNOTATIONS: tuple[str, ...] = (*SCHEMES, "linked")
_HAS_UNIT = re.compile(r"«[^«»]+»")
# Written after the kind of a candidate no words of the question name ("«ont:country» country (property,
# implied)": a relation the KB joins two named elements with), so the model can tell the elements a
# question says from those the linker adds on the KB's evidence.
IMPLIED = "implied"
# Written after the kind of a candidate the question names by the element's own label ("«dbp:placeOfDeath»
# place of death (property, exact)" for "PLACE OF DEATH"), so the model can prefer it to an element the
# index knows other words for ("«dbo:deathPlace» death place").
EXACT = "exact"
# Keys of the `linked:` config block that are the annotator's, not the Linker's.
ANNOTATOR_KEYS = ("index", "add_missed_gold", "max_units")


def has_units(question: str) -> bool:
    """Whether the question was already annotated with `«token»` units."""
    return _HAS_UNIT.search(question) is not None


@dataclass(frozen=True)
class TailUnit:
    """One unit of the tail: a KB element's token, its label as written, and what the input says of it
    (`marks`: its kind, then `exact` or `implied` or its prefix; none where the scheme writes no kind)."""

    token: str
    label: str
    marks: tuple[str, ...] = ()

    def __str__(self) -> str:
        unit = f"{mark(self.token)} {self.label}".rstrip()
        return f"{unit} ({', '.join(self.marks)})" if self.marks else unit


def _unit(token: str, label: str | None, *marks: str) -> TailUnit:
    return TailUnit(token, plain_text(normalize_space(label or "")), marks)


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def _by_label(question: str, c: Candidate) -> bool:
    """Whether the question names the candidate by its own label ("place of death"), not by another
    word the index knows for it ("died in", a word learned from training questions)."""
    return c.said and c.kind != "literal" and _words(c.label) == _words(question[c.start : c.end])


def _tail(question: str, candidates: Sequence[Candidate], kinds: bool) -> list[TailUnit]:
    """One unit per distinct token, in the linker's order (a token two mentions propose comes once);
    `kinds`: each unit says its element's kind (the `linked` scheme), and whether the question names
    it by its label (`exact`) or names it not at all (`implied`)."""
    exact = {c.token for c in candidates if _by_label(question, c)}
    seen: set[str] = set()
    units = []
    for c in candidates:
        if c.token not in seen:
            seen.add(c.token)
            marks: tuple[str, ...] = ()
            if kinds and c.token in exact:
                marks = (c.kind, EXACT)
            elif kinds:
                marks = (c.kind,) if c.said else (c.kind, IMPLIED)
            units.append(_unit(c.token, c.label, *marks))
    return units


_PREFIXED = re.compile(r"([A-Za-z][\w.-]*):[^/\s]")


def _prefix(token: str) -> str | None:
    found = _PREFIXED.match(token)
    return found[1] if found else None


def _distinguished(units: Sequence[TailUnit | str]) -> list[str]:
    """The units as written, where candidates of one kind share a label but not a prefix
    (`dbo:birthPlace`, `dbp:birthPlace`: "birth place"), each of those with its token's prefix after
    its marks: the copy layer hides the token, so without it the model could not tell them apart. A
    unit given as text (a dataset's own annotation) is written as it is."""

    def key(unit: TailUnit) -> tuple[str, str] | None:  # (label, kind) of a unit that says its kind
        return (unit.label.casefold(), unit.marks[0]) if unit.marks and unit.label else None

    prefixes: dict[tuple[str, str], set[str | None]] = defaultdict(set)
    for unit in units:
        if isinstance(unit, TailUnit) and (k := key(unit)) is not None:
            prefixes[k].add(_prefix(unit.token))

    def written(unit: TailUnit | str) -> str:
        if (
            isinstance(unit, TailUnit)
            and (k := key(unit))
            and len(prefixes[k]) > 1
            and (p := _prefix(unit.token))
        ):
            return str(replace(unit, marks=(*unit.marks, p)))
        return str(unit)

    return [written(unit) for unit in units]


def _with_tail(question: str, units: Sequence[TailUnit | str]) -> str:
    return " ".join([question, *(f"{SEP} {unit}" for unit in _distinguished(units))])


def _bounded(
    candidates: Sequence[Candidate], limit: int | None, keep: Collection[str] = ()
) -> list[Candidate]:
    """At most `limit` candidates (None: all), in the linker's order, so the input fits the model's
    copy slots. A mention (a span) loses its second candidate before another mention loses its
    first: candidates go by their rank within their mention, then by score, then in the linker's
    order (its ranking); tokens in `keep` stay whatever the limit."""
    if limit is None or len(candidates) <= limit:
        return list(candidates)
    rank: dict[int, int] = {}
    seen: dict[tuple[int, int], int] = {}
    for i, c in enumerate(candidates):  # the linker lists a mention's candidates best first
        rank[i] = seen.get((c.start, c.end), 0)
        seen[(c.start, c.end)] = rank[i] + 1
    order = sorted(
        range(len(candidates)),
        key=lambda i: (candidates[i].token not in keep, rank[i], -candidates[i].score, i),
    )
    chosen = {i for n, i in enumerate(order) if n < limit or candidates[i].token in keep}
    return [c for i, c in enumerate(candidates) if i in chosen]


def _in_place(question: str, candidates: Sequence[Candidate]) -> str:
    """Tag-within from the linker: each chosen mention's words replaced by its best candidate.

    Mentions are taken by descending best score (longer first on ties), skipping any that overlaps
    one already taken, so "New York City" wins over "York" when it scores at least as high.
    """
    best: dict[tuple[int, int], Candidate] = {}
    for c in candidates:
        if c.start == c.end:
            continue  # an implicit element (`Linker.implicit`) stands for no words to replace
        if (c.start, c.end) not in best or c.score > best[(c.start, c.end)].score:
            best[(c.start, c.end)] = c
    taken: list[Candidate] = []
    for c in sorted(best.values(), key=lambda c: (-c.score, c.start - c.end, c.start)):
        if all(c.end <= t.start or c.start >= t.end for t in taken):
            taken.append(c)
    pieces, pos = [], 0
    for c in sorted(taken, key=lambda c: c.start):
        pieces += [question[pos : c.start].strip(), mark(c.token)]
        pos = c.end
    pieces.append(question[pos:].strip())
    return " ".join(p for p in pieces if p)


class Annotator:
    """The model input of a question or dataset example under one annotation scheme.

    `linker` finds KB elements in questions (required for `linked`; without it, tag_within/tag_end
    models read user questions as written); `labels` names a token the linker did not propose (the
    index's preferred label, for gold elements added at training); `seed` fixes every random choice
    per example id.
    """

    def __init__(
        self,
        scheme: str,
        linker: Linker | None = None,
        seed: int = 0,
        resolver: LabelResolver | None = None,
        add_missed_gold: float = 0.0,
        labels: Callable[[str], str | None] | None = None,
        max_units: int | None = None,
    ):
        if scheme not in ANNOTATIONS:
            raise ValueError(f"unknown annotation {scheme!r}; expected one of {', '.join(ANNOTATIONS)}")
        if scheme == "linked" and linker is None:
            raise ValueError("annotation=linked needs a KB linker (an index of the dataset's KB)")
        if not 0.0 <= add_missed_gold <= 1.0:
            raise ValueError(f"linked.add_missed_gold must be within [0, 1], got {add_missed_gold}")
        if max_units is not None and max_units < 1:
            raise ValueError(f"linked.max_units must be at least 1 (or null: no bound), got {max_units}")
        self.scheme, self.linker, self.seed = scheme, linker, seed
        self.resolver = resolver or LabelResolver()
        self.add_missed_gold = add_missed_gold
        self.labels = labels
        self.max_units = max_units
        self.index: KBIndex | None = None  # the index file `open` opened, closed by `close`

    @classmethod
    def open(
        cls,
        scheme: str,
        index: str | Path | None,
        settings: Mapping[str, Any] | None = None,
        seed: int = 0,
        resolver: LabelResolver | None = None,
    ) -> Annotator:
        """An annotator whose linker reads the KB index file `index` (None: no linker); `settings` is
        the `linked:` config block: the Linker's options plus `add_missed_gold` and `max_units` (absent,
        as in exports made before it: no bound, so a model reads what it was trained on)."""
        settings = dict(settings or {})
        if index is None:
            return cls(scheme, None, seed, resolver)
        kb_index = KBIndex.open(index)
        try:
            linker = Linker(kb_index, **{k: v for k, v in settings.items() if k not in ANNOTATOR_KEYS})
        except Exception:
            kb_index.close()  # a bad `linked:` setting must not leave the index open
            raise
        missed = float(settings.get("add_missed_gold") or 0.0)
        max_units = settings.get("max_units")
        bound = None if max_units is None else int(max_units)
        annotator = cls(scheme, linker, seed, resolver, missed, kb_index.label, bound)
        annotator.index = kb_index
        return annotator

    def close(self) -> None:
        if self.index is not None:
            self.index.close()

    def _linked(self, texts: Sequence[str]) -> dict[str, list[Candidate]]:
        """The linker's candidates for each distinct text without units, linked side by side."""
        if self.scheme == "raw" or self.linker is None:
            return {}
        unique = list(dict.fromkeys(t for t in texts if not has_units(t)))
        return dict(zip(unique, self.linker.link_many(unique)))

    def questions(self, questions: Sequence[str]) -> list[str]:
        """`question` of each (a batch links faster together: `Linker.link_many`)."""
        texts = [normalize_space(q) for q in questions]
        linked = self._linked(texts)
        return [self.question(text, linked.get(text)) for text in texts]

    def question(self, question: str, candidates: Sequence[Candidate] | None = None) -> str:
        """The model input for a question as a user writes it (no gold elements known); `candidates`:
        what the linker found in it, when the caller has linked it already."""
        text = normalize_space(question)
        if has_units(text):
            check_units(text)  # units go verbatim into the query: each must be one KB element
            return text
        if self.scheme == "raw" or self.linker is None:
            return text
        if candidates is None:
            candidates = self.linker.link(text)
        if self.scheme == "tag_within":
            return _in_place(text, candidates)
        return _with_tail(
            text, _tail(text, _bounded(candidates, self.max_units), kinds=self.scheme == "linked")
        )

    def examples(
        self,
        examples: Sequence[Example],
        train: bool = False,
        gold: Sequence[Sequence[KBElement]] | None = None,
    ) -> list[Annotated]:
        """`example` of each, their questions linked side by side (`Linker.link_many`: faster)."""
        texts = [normalize_space(ex.question) for ex in examples]
        linked = self._linked(texts) if self.scheme == "linked" else {}
        golds = gold if gold is not None else [None] * len(examples)
        return [
            self.example(ex, train, g, linked.get(t)) for ex, g, t in zip(examples, golds, texts, strict=True)
        ]

    def example(
        self,
        example: Example,
        train: bool = False,
        gold: Sequence[KBElement] | None = None,
        candidates: Sequence[Candidate] | None = None,
    ) -> Annotated:
        """A dataset example's input: gold-annotated for the paper's schemes, linked for `linked`
        (`train`: the split whose missed gold elements may be added to the tail; `gold`: its KB
        elements with their labels, `candidates`: what the linker found in its question, when the
        caller has them already)."""
        if self.scheme != "linked":
            return annotate(example, self.scheme, self.seed, self.resolver)  # type: ignore[arg-type]
        question = normalize_space(example.question)
        kept: list[Candidate] = []
        units: list[TailUnit | str]
        if has_units(question):  # the dataset's own annotation, used as written
            text, offered = self.question(question), set(find_units(question))
            head, *written = text.split(f" {SEP} ")
            units = list(written)
        else:
            if candidates is None:
                candidates = self.linker.link(question)
            kept = _bounded(candidates, self.max_units)
            head, units, offered = question, list(_tail(question, kept, kinds=True)), {c.token for c in kept}
            text = _with_tail(head, units)
        if gold is None:
            gold = [r.element for r in self.resolver.resolve_detailed(example)[1]]
        missed = [e for e in gold if e.token not in offered]
        added: list[str] = []
        if train and missed and self.add_missed_gold > 0:
            kinds = element_kinds(example)  # where the query uses it: class, property or entity
            rng = random.Random(f"{self.seed}:{example.id}")
            for element in missed:
                if rng.random() < self.add_missed_gold:
                    label = (self.labels(element.token) if self.labels else None) or element.label
                    kind = "literal" if element.kind == "literal" else kinds.get(element.token, "entity")
                    units.insert(rng.randint(0, len(units)), _unit(element.token, label, kind))
                    added.append(element.token)
            if self.max_units is not None and len(units) > self.max_units:
                # Room for the added gold: the weakest candidates go, never a gold element.
                found = offered & {e.token for e in gold}
                stay = {c.token for c in _bounded(kept, self.max_units - len(added), keep=found)}
                dropped = set(_tail(question, [c for c in kept if c.token not in stay], kinds=True))
                units = [unit for unit in units if unit not in dropped]
            text = _with_tail(head, units)
        untagged = [e.token for e in missed if e.token not in added]
        tagged = [e.token for e in gold if e.token not in untagged]
        return Annotated(text, tagged, untagged, fully_tagged=not untagged)
