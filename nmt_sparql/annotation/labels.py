"""Natural-language labels of a query's KB elements, from the best source available.

Annotation needs, for every URI or literal of a query, the words that name it: to find its
span in the question (tag-within) or to write it next to the token (tag-end). Sources are
tried in order of trust:

(a) the dataset's own marked question (LC-QuAD 1.0 `<...>`, LC-QuAD 2.0 NNQT `{...}`), each
    marked span aligned one-to-one to a KB element by label similarity;
(b) label files (LC-QuAD 2.0's `entity_labels.json` / `relation_labels.json`, or any JSON
    object mapping ids or tokens to labels);
(c) the token's local name (`dbo:riverMouth` -> "river mouth"), or a literal's value.

A label already present in a record (`KBElement.label`, set by a reader) ranks after (a).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

from nmt_sparql.core.record import Example, KBElement, RecordError
from nmt_sparql.sparql.tokens import TokenType, kb_tokens, literal_value, local_name, token_types, tokenize

LabelSource = Literal["marks", "record", "label_file", "local_name", "literal"]

# Wikidata prefixes whose local name is an item id (Q…) or a property id (P…).
_ITEM_PREFIXES = {"wd"}
_PROPERTY_PREFIXES = {"wd", "wdt", "p", "ps", "psv", "pq", "pqv", "wdno"}
_ITEM_ID = re.compile(r"^[Qq]\d+$")
_PROPERTY_ID = re.compile(r"^[Pp]\d+$")
_RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_IRI_UNSAFE = re.compile(r'[\s<>"{}|^`\\]')
# Beyond this many elements the exact subset DP is too large: fall back to greedy assignment.
_MAX_EXACT_ELEMENTS = 14
# A mark this similar to an element's label names it even when the label is also written unmarked.
_NEAR_EXACT = 90.0
# A marked class slot of a template question: "<owls> whose ...", "<person> who is ...".
_CLASS_SLOT = re.compile(r"\s*(?:whose|who|which|that)\b", re.IGNORECASE)
_CLASS_PRIOR = 15.0


@dataclass(frozen=True)
class Mark:
    """A span of the plain question text that the dataset marked as naming one KB element."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class MarkedText:
    """A marked question with its marks removed (`plain`) and the marked spans located in it."""

    plain: str
    marks: tuple[Mark, ...]


@dataclass(frozen=True)
class Resolved:
    """One KB element with its chosen label, where the label came from, and every label known.

    `mark` indexes `MarkedText.marks` when the element was aligned to a marked span;
    `candidates` are all names of the element (best first) so a question search can try each.
    """

    element: KBElement
    source: LabelSource
    mark: int | None
    candidates: tuple[str, ...]


def normalize_space(text: str) -> str:
    """Collapse whitespace runs to one space and strip the ends."""
    return " ".join(text.split())


def parse_marks(marked: str) -> MarkedText:
    """Split a marked question into plain text and marked spans.

    The mark style is `{...}` when the text has braces (LC-QuAD 2.0 NNQT), else `<...>`
    (LC-QuAD 1.0). Innermost pairs are marks; stray delimiters (LC-QuAD 1.0 has `<X>>`) are
    dropped. Whitespace is normalized while offsets are tracked.
    """
    opening, closing = ("{", "}") if "{" in marked else ("<", ">")
    pattern = re.compile(re.escape(opening) + f"([^{re.escape(opening + closing)}]*)" + re.escape(closing))
    out: list[str] = []
    marks: list[Mark] = []

    def append(piece: str) -> None:
        for char in piece.replace(opening, " ").replace(closing, " "):
            if char.isspace():
                if out and out[-1] != " ":
                    out.append(" ")
            else:
                out.append(char)

    pos = 0
    for match in pattern.finditer(marked):
        append(marked[pos : match.start()])
        inner = normalize_space(match.group(1))
        if inner:
            if out and out[-1] != " " and (out[-1].isalnum() or out[-1] in "'\""):
                out.append(" ")
            start = len(out)
            append(inner)
            marks.append(Mark(inner, start, len(out)))
        pos = match.end()
    append(marked[pos:])
    while out and out[-1] == " ":
        out.pop()
    return MarkedText("".join(out), tuple(marks))


def local_name_label(token: str) -> str:
    """Readable form of a token's local name: `dbo:riverMouth` -> "river mouth", `dbr:Ike_Clanton` -> "Ike Clanton"."""
    name = unquote(local_name(token))
    if "_" not in name and " " not in name:
        # camelCase only in schema-style names: `riverMouth` -> "river mouth", `RaceHorse` -> "Race Horse".
        lower = name[:1].islower()
        name = re.sub(
            r"(?<=[a-z])([A-Z])", lambda m: " " + (m.group(1).lower() if lower else m.group(1)), name
        )
    return normalize_space(name.replace("_", " "))


def label_variants(label: str) -> list[str]:
    """The label and its shorter forms worth searching for (without a trailing "(disambiguation)")."""
    variants = [normalize_space(label)]
    short = normalize_space(re.sub(r"\s*\([^()]*\)\s*$", "", label))
    if short and short not in variants:
        variants.append(short)
    return [v for v in variants if v]


def _similarity(a: str, b: str) -> float:
    """Label similarity in 0..100: extra words cost a little ("film director" ~ "director"), typos little.

    The plain ratio is averaged in so that a subset is not a perfect match: the mark
    "Battle of France" must prefer `dbr:Battle_of_France` over `dbo:battle`.
    """
    return (
        fuzz.token_set_ratio(a, b, processor=default_process) + fuzz.ratio(a, b, processor=default_process)
    ) / 2


def assign(scores: Sequence[Sequence[float]], min_score: float, most_pairs: bool = False) -> dict[int, int]:
    """One-to-one assignment rows -> columns maximizing the total score (pairs below `min_score` excluded).

    With `most_pairs`, as many pairs as possible first, then the best total. Exact (dynamic programming over used columns) for the small matrices annotation meets;
    greedy by descending score beyond `_MAX_EXACT_ELEMENTS` columns.
    """
    n_rows = len(scores)
    n_cols = len(scores[0]) if n_rows else 0
    if n_cols > _MAX_EXACT_ELEMENTS:
        pairs = sorted(
            ((scores[i][j], i, j) for i in range(n_rows) for j in range(n_cols) if scores[i][j] >= min_score),
            key=lambda p: (-p[0], p[1], p[2]),
        )
        chosen: dict[int, int] = {}
        used: set[int] = set()
        for _, i, j in pairs:
            if i not in chosen and j not in used:
                chosen[i] = j
                used.add(j)
        return chosen

    bonus = 1000.0 if most_pairs else 0.0

    @functools.cache
    def best(i: int, used: int) -> tuple[float, tuple[tuple[int, int], ...]]:
        if i == n_rows:
            return 0.0, ()
        result = best(i + 1, used)
        for j in range(n_cols):
            if not used >> j & 1 and scores[i][j] >= min_score:
                total, rest = best(i + 1, used | 1 << j)
                if total + scores[i][j] + bonus > result[0]:
                    result = (total + scores[i][j] + bonus, ((i, j), *rest))
        return result

    return dict(best(0, 0)[1])


def occurs(name: str, text: str) -> bool:
    """Whether `name` is in `text` as whole words, ignoring case and spacing."""
    pattern = r"(?<!\w)" + r"\s+".join(map(re.escape, name.split())) + r"(?!\w)"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _align_marks(
    marked: MarkedText, names: list[tuple[str, ...]], is_class: list[bool], min_score: float
) -> dict[int, int]:
    """element index -> mark index.

    Elements whose label is written unmarked in the question are left to the label search,
    unless a mark matches them almost exactly. Then the confident pairs (similarity >=
    `min_score`, best total). Template questions mark every placeholder, so the marks left over
    name the elements left over even when the words differ ("honors" for `dbo:award`): those
    are paired as many as possible, by best total similarity, where a mark followed by a
    relative pronoun ("<owl> which is ...") leans to a class (an object of `a` in the query).
    """
    outside = "".join(
        " " if any(m.start <= i < m.end for m in marked.marks) else c for i, c in enumerate(marked.plain)
    )
    unmarked = {j for j, cands in enumerate(names) if any(occurs(n, outside) for n in cands)}
    scores = [[max(_similarity(m.text, n) for n in cands) for cands in names] for m in marked.marks]
    confident = [
        [s if j not in unmarked or s >= _NEAR_EXACT else -1.0 for j, s in enumerate(row)] for row in scores
    ]
    pairs = assign(confident, min_score)
    rows = [i for i in range(len(marked.marks)) if i not in pairs]
    used = set(pairs.values())
    cols = [j for j in range(len(names)) if j not in used and j not in unmarked]
    if rows and cols:
        class_like = [bool(_CLASS_SLOT.match(marked.plain, marked.marks[i].end)) for i in rows]
        forced = assign(
            [
                [scores[i][j] + (_CLASS_PRIOR if is_class[j] == c else -_CLASS_PRIOR) for j in cols]
                for i, c in zip(rows, class_like)
            ],
            -float("inf"),
            most_pairs=True,
        )
        pairs.update({rows[a]: cols[b] for a, b in forced.items()})
    return {j: i for i, j in pairs.items()}


def class_tokens(example: Example) -> set[str]:
    """Tokens used as classes in the query (objects of `a`)."""
    tokens = tokenize(example.query, example.kb)
    return {tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t == "a"}


def query_elements(example: Example) -> list[KBElement]:
    """The example's KB elements: the record's own, or those of its query (URIs and literals)."""
    if example.kb_elements:
        return list(example.kb_elements)
    tokens = tokenize(example.query, example.kb)
    kinds = dict(zip(tokens, token_types(tokens, example.kb)))
    return [
        KBElement(t, "literal" if kinds[t] is TokenType.LITERAL else "uri")
        for t in kb_tokens(tokens, example.kb)
    ]


def read_label_file(path: str | Path) -> dict[str, str]:
    """A JSON object {id or token: label or null}; ids `q123`/`Q123`/`P123` are upper-cased."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RecordError(path, "<file>", "<json>", f"invalid JSON: {err.msg} at line {err.lineno}") from None
    if not isinstance(data, dict):
        raise RecordError(
            path, "<file>", "<root>", f"expected a JSON object of labels, got {type(data).__name__}"
        )
    labels: dict[str, str] = {}
    for key, value in data.items():
        if value is None:  # an id the file knows but has no label for
            continue
        if not isinstance(value, str):
            raise RecordError(path, key, "label", f"expected a string, got {type(value).__name__}")
        labels[key.upper() if _ITEM_ID.match(key) or _PROPERTY_ID.match(key) else key] = value
    return labels


def _file_key(token: str) -> list[str]:
    """Keys under which a label file may hold `token`: its Wikidata id, then the token itself."""
    keys = []
    if ":" in token and not token.startswith(("<", '"')):
        prefix, local = token.split(":", 1)
        if (prefix in _ITEM_PREFIXES and _ITEM_ID.match(local)) or (
            prefix in _PROPERTY_PREFIXES and _PROPERTY_ID.match(local)
        ):
            keys.append(local.upper())
    keys.append(token)
    return keys


_RESOLVED_LIMIT = 200_000


class LabelResolver:
    """Fills the labels of an example's KB elements from marks, label files, local names.

    The KB's own `rdfs:label`s reach annotation through the KB index (linking/), not through here.

    `stats` counts, over every `resolve` call, how many elements took their label from each source.
    """

    def __init__(
        self,
        label_files: Sequence[str | Path] = (),
        min_mark_score: float = 40.0,
    ):
        self.labels: dict[str, str] = {}
        for path in label_files:
            self.labels.update(read_label_file(path))
        self.min_mark_score = min_mark_score
        self.stats: Counter[str] = Counter()
        self._resolved: dict[tuple, tuple[MarkedText | None, tuple[Resolved, ...]]] = {}

    def _fallback(self, element: KBElement) -> tuple[str, LabelSource]:
        """Best label from the record, (b) or (c): everything but the marks."""
        if element.label:
            return element.label, "record"
        if element.kind == "literal":
            return literal_value(element.token), "literal"
        for key in _file_key(element.token):
            if key in self.labels:
                return self.labels[key], "label_file"
        return local_name_label(element.token), "local_name"

    def _candidates(self, element: KBElement, *first: str) -> tuple[str, ...]:
        names = [*first]
        if element.label:
            names.append(element.label)
        if element.kind == "literal":
            names.append(literal_value(element.token))
        else:
            names.extend(self.labels[k] for k in _file_key(element.token) if k in self.labels)
            names.append(local_name_label(element.token))
            names.append(unquote(local_name(element.token)).replace("_", " "))
        out: list[str] = []
        for name in names:
            for variant in label_variants(name) if name else []:
                if variant not in out:
                    out.append(variant)
        return tuple(out)

    def resolve_detailed(self, example: Example) -> tuple[MarkedText | None, list[Resolved]]:
        """The marked text (None without marks) and each element with label, source and aligned mark.
        Kept per example content: preparation asks for a training example's several times (the KB
        index's lexicon, its tag-within alignment, its annotation), and aligning marks is costly."""
        key = (example.kb, example.query, example.marked_question, tuple(example.kb_elements))
        if key not in self._resolved:
            if len(self._resolved) >= _RESOLVED_LIMIT:
                self._resolved.clear()
            marked, resolved = self._resolve(example)
            self._resolved[key] = marked, tuple(resolved)
        marked, resolved = self._resolved[key]
        return marked, list(resolved)

    def _resolve(self, example: Example) -> tuple[MarkedText | None, list[Resolved]]:
        elements = query_elements(example)
        fallback = [self._fallback(e) for e in elements]
        marked = parse_marks(example.marked_question) if example.marked_question else None
        aligned: dict[int, int] = {}
        if marked and marked.marks and elements:
            names = [self._candidates(e, label) for e, (label, _) in zip(elements, fallback)]
            classes = class_tokens(example)
            aligned = _align_marks(marked, names, [e.token in classes for e in elements], self.min_mark_score)
        resolved = []
        for j, (element, (label, source)) in enumerate(zip(elements, fallback)):
            if j in aligned and marked is not None:
                mark_text = marked.marks[aligned[j]].text
                resolved.append(
                    Resolved(
                        replace(element, label=mark_text),
                        "marks",
                        aligned[j],
                        self._candidates(element, mark_text),
                    )
                )
            else:
                resolved.append(
                    Resolved(replace(element, label=label), source, None, self._candidates(element, label))
                )
        return marked, resolved

    def resolve(self, example: Example) -> list[KBElement]:
        """The example's KB elements with labels filled; counts label sources in `stats`."""
        _, resolved = self.resolve_detailed(example)
        self.stats.update(r.source for r in resolved)
        return [r.element for r in resolved]
