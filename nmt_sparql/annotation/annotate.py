"""The paper's three question annotations (§III.A): raw, tag-within, tag-end.

- raw: the question as asked;
- tag_within: each KB element of the query (URIs and literals) replaces the words that name
  it, written `«token»`, so a copy layer can point at it;
- tag_end: the question, then `<sep> «token» label` for every element, in a seeded random order.

Elements tag-within cannot place in the question are appended tag-end style, so the copy
layer can still reach every KB element; `Annotated.fully_tagged` says whether that happened.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

from nmt_sparql.annotation.labels import LabelResolver, Resolved, normalize_space
from nmt_sparql.core.marks import UNIT_PATTERN, mark, plain_text
from nmt_sparql.core.record import Example

Scheme = Literal["raw", "tag_within", "tag_end"]
SCHEMES: tuple[Scheme, ...] = ("raw", "tag_within", "tag_end")
SEP = "<sep>"
# Fuzzy spans need this partial_ratio score, and the word-snapped span this ratio to the label.
FUZZY_MIN_SCORE = 85.0
FUZZY_MIN_SPAN_RATIO = 75.0
_FUZZY_MIN_LABEL_CHARS = 4

_QUESTION_TOKEN = re.compile(UNIT_PATTERN + r"|<sep>|\d+(?:[.,]\d+)+|\w+|[^\w\s]")


@dataclass(frozen=True)
class Annotated:
    """An annotated question: its text, which KB tokens sit inside the question, which only at the end."""

    text: str
    tagged: list[str]
    untagged: list[str]
    fully_tagged: bool


def split_question(text: str) -> list[str]:
    """Whitespace + punctuation tokens; a `«...»` KB unit and `<sep>` stay one token, spaces and all."""
    return _QUESTION_TOKEN.findall(text)


def _rng(seed: int, example_id: str) -> random.Random:
    """A generator that depends only on (seed, example id): same order whatever the processing order."""
    return random.Random(f"{seed}:{example_id}")


def _tail(resolved: list[Resolved], rng: random.Random) -> str:
    order = list(resolved)
    rng.shuffle(order)
    return "".join(
        f" {SEP} {mark(r.element.token)} {plain_text(normalize_space(r.element.label or ''))}".rstrip()
        for r in order
    )


def reshuffle_tail(text: str, rng: random.Random) -> str:
    """The question with its `<sep> «token» label` units in another order.

    Training augmentation for tag-end: the paper fixes one random order per question, so a model can
    learn positions by heart; a fresh order per epoch makes it read the labels instead.
    """
    head, *units = text.split(f" {SEP} ")
    rng.shuffle(units)
    return " ".join([head, *(f"{SEP} {unit}" for unit in units)])


def _free(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return all(end <= s or start >= e for s, e in taken)


def _snap(text: str, start: int, end: int, lo: int, hi: int) -> tuple[int, int]:
    """Trim spaces and punctuation off a character span, then widen it to whole words within [lo, hi)."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    if start == end:
        return start, end
    while start > lo and text[start - 1].isalnum():
        start -= 1
    while end < hi and text[end].isalnum():
        end += 1
    return start, end


def _exact_spans(text: str, todo: list[int], resolved: list[Resolved]) -> list[tuple[int, int, int]]:
    """(start, end, element) for every case-insensitive whole-word occurrence of any label of an element."""
    found = []
    for k in todo:
        for name in resolved[k].candidates:
            pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, name.split())) + r"(?!\w)"
            found.extend((m.start(), m.end(), k) for m in re.finditer(pattern, text, re.IGNORECASE))
    return found


def _close_enough(name: str, span: str) -> bool:
    """A fuzzy span names the label: nearly the same words, or most of them verbatim
    ("F-16 Fighting Falcon" for "General Dynamics F-16 Fighting Falcon")."""
    if fuzz.ratio(name, span) >= FUZZY_MIN_SPAN_RATIO:
        return True
    return len(span) >= len(name) / 2 and fuzz.partial_ratio(span, name) >= 95


def _fuzzy_spans(
    text: str, todo: list[int], resolved: list[Resolved], taken: list[tuple[int, int]]
) -> list[tuple[float, int, int, int]]:
    """(score, start, end, element): the best fuzzy alignment of each label in each untagged stretch."""
    lowered = text.lower() if len(text.lower()) == len(text) else text
    stretches, pos = [], 0
    for s, e in sorted(taken):
        stretches.append((pos, s))
        pos = e
    stretches.append((pos, len(text)))
    found = []
    for k in todo:
        for name in resolved[k].candidates:
            if len(name) < _FUZZY_MIN_LABEL_CHARS:
                continue
            for lo, hi in stretches:
                if hi - lo < _FUZZY_MIN_LABEL_CHARS:
                    continue
                hit = fuzz.partial_ratio_alignment(name.lower(), lowered[lo:hi])
                if hit is None or hit.score < FUZZY_MIN_SCORE:
                    continue
                start, end = _snap(text, lo + hit.dest_start, lo + hit.dest_end, lo, hi)
                if end > start and _close_enough(name.lower(), lowered[start:end]):
                    found.append((hit.score, start, end, k))
    return found


def _place(text: str, resolved: list[Resolved], spans: dict[int, tuple[int, int]]) -> None:
    """Find spans for the elements not yet in `spans`: exact label matches, then fuzzy ones; no overlaps."""
    todo = [k for k in range(len(resolved)) if k not in spans]
    exact = sorted(_exact_spans(text, todo, resolved), key=lambda c: (-(c[1] - c[0]), c[0]))
    for start, end, k in exact:
        if k not in spans and _free(start, end, list(spans.values())):
            spans[k] = (start, end)
    todo = [k for k in todo if k not in spans]
    if not todo:
        return
    fuzzy = sorted(
        _fuzzy_spans(text, todo, resolved, list(spans.values())), key=lambda c: (-c[0], c[1] - c[2], c[1])
    )
    for _, start, end, k in fuzzy:
        if k not in spans and _free(start, end, list(spans.values())):
            spans[k] = (start, end)


def _tag_within(example: Example, resolver: LabelResolver, seed: int) -> Annotated:
    marked, resolved = resolver.resolve_detailed(example)
    text = marked.plain if marked is not None else normalize_space(example.question)
    spans: dict[int, tuple[int, int]] = {}
    if marked is not None:
        for k, r in enumerate(resolved):
            if r.mark is not None:
                spans[k] = (marked.marks[r.mark].start, marked.marks[r.mark].end)
    _place(text, resolved, spans)
    pieces: list[str] = []
    pos = 0
    for k, (start, end) in sorted(spans.items(), key=lambda item: item[1]):
        pieces.extend([plain_text(normalize_space(text[pos:start])), mark(resolved[k].element.token)])
        pos = end
    pieces.append(plain_text(normalize_space(text[pos:])))
    untagged = [r for k, r in enumerate(resolved) if k not in spans]
    body = " ".join(p for p in pieces if p)
    return Annotated(
        text=body + _tail(untagged, _rng(seed, example.id)),
        tagged=[resolved[k].element.token for k in sorted(spans, key=lambda k: spans[k])],
        untagged=[r.element.token for r in untagged],
        fully_tagged=not untagged,
    )


def annotate(
    example: Example, scheme: Scheme, seed: int = 0, resolver: LabelResolver | None = None
) -> Annotated:
    """Annotate one example's question with `scheme` ("raw", "tag_within", "tag_end").

    `resolver` supplies labels (default: marks, record labels and local names only); `seed`
    with the example id fixes the random order of appended elements.
    """
    resolver = resolver or LabelResolver()
    if scheme == "raw":
        tokens = [r.element.token for r in resolver.resolve_detailed(example)[1]]
        return Annotated(plain_text(normalize_space(example.question)), [], tokens, fully_tagged=not tokens)
    if scheme == "tag_within":
        return _tag_within(example, resolver, seed)
    if scheme == "tag_end":
        resolved = resolver.resolve_detailed(example)[1]
        text = plain_text(normalize_space(example.question)) + _tail(resolved, _rng(seed, example.id))
        return Annotated(text, [r.element.token for r in resolved], [], fully_tagged=True)
    raise ValueError(f"unknown annotation scheme {scheme!r}; expected one of {', '.join(SCHEMES)}")


def tagging_coverage(
    examples: Iterable[Example], scheme: Scheme, seed: int = 0, resolver: LabelResolver | None = None
) -> float:
    """Share of examples whose every KB element is tagged (tag-within: placed inside the question)."""
    resolver = resolver or LabelResolver()
    flags = [annotate(ex, scheme, seed, resolver).fully_tagged for ex in examples]
    return sum(flags) / len(flags) if flags else 0.0
