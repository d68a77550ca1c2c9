"""Index entries from where a KB's elements and their names live: an RDF store, a SPARQL endpoint,
label files, a user lexicon, and a training set (the question spans its alignment gives each element).

Kinds: a class is declared (owl:Class, rdfs:Class) or the object of rdf:type; a property is declared
or used as a predicate; an entity is any other IRI with a label. Popularity is the degree (triples an
entity or class takes part in, uses of a property): it breaks ties between equal labels.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from nmt_sparql.annotation.annotate import SEP, annotate, split_question
from nmt_sparql.annotation.labels import (
    LabelResolver,
    class_tokens,
    local_name_label,
    normalize_space,
    read_label_file,
)
from nmt_sparql.annotation.linking.index import MEASURED, TEXT, Entry, Fact, Kind, Slot, normalize
from nmt_sparql.core.language import label_rank
from nmt_sparql.core.marks import unmark
from nmt_sparql.core.record import Example, RecordError
from nmt_sparql.execution.answer import NUMERIC_DATATYPES
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.sparql.patterns import answer_variable, triple_patterns
from nmt_sparql.sparql.prefixes import PrefixMap
from nmt_sparql.sparql.tokens import SparqlSyntaxError, TokenType, token_types, tokenize

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
# Datatypes of values a superlative or a comparison orders: numbers, dates, years.
_MEASURES = NUMERIC_DATATYPES | {
    XSD + t for t in ("date", "dateTime", "gYear", "gYearMonth", "time", "duration")
}
SKOS_ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
_SCHEMA = (RDF, RDFS, OWL, XSD)
_CLASS_TYPES = (OWL + "Class", RDFS + "Class")
_PROPERTY_TYPES = (
    RDF + "Property",
    OWL + "ObjectProperty",
    OWL + "DatatypeProperty",
    OWL + "AnnotationProperty",
)
_LABEL_LANG = 'FILTER(isIRI(?s) && isLiteral(?l) && (lang(?l) = "" || langMatches(lang(?l), "en")))'
_ITEM_ID = re.compile(r"^[QqPp]\d+$")
log = logging.getLogger(__name__)


def token_of(iri: str, prefixes: PrefixMap) -> str | None:
    """The model token of an IRI (`dbr:X`, `<full-iri>`), None for rdf:type or an IRI SPARQL cannot hold."""
    try:
        token = tokenize(f"<{iri}>", prefixes)
    except SparqlSyntaxError:
        return None
    return token[0] if len(token) == 1 and token[0] != "a" else None


def _entries(
    labels: Mapping[str, list[str]],
    classes: Mapping[str, float],
    properties: Mapping[str, float],
    degree: Mapping[str, float],
    prefixes: PrefixMap,
) -> Iterator[Entry]:
    """Entries of every class, property and labelled entity, sorted by IRI for a stable build."""
    for iri in sorted(set(labels) | set(classes) | set(properties)):
        if iri.startswith(_SCHEMA):
            continue
        token = token_of(iri, prefixes)
        if token is None:
            continue
        kind: Kind = "class" if iri in classes else "property" if iri in properties else "entity"
        names = labels.get(iri) or [local_name_label(token)]
        popularity = classes.get(iri) or properties.get(iri) or degree.get(iri, 0.0)
        yield Entry(token, kind, tuple(dict.fromkeys(names)), float(popularity))


def _labels(rows: Iterable[tuple[str, str, str]]) -> dict[str, list[str]]:
    """IRI -> labels in `label_rank` order, rdfs:label before skos:altLabel."""
    ranked: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for iri, label, lang in rows:
        rank = label_rank(lang)
        if rank is not None:
            ranked[iri].append((rank, " ".join(label.split())))
    return {iri: [label for _, label in sorted(pairs, key=lambda p: p[0])] for iri, pairs in ranked.items()}


def entries_from_store(store: ox.Store, prefixes: PrefixMap) -> Iterator[Entry]:
    """Every class, property and labelled entity of a pyoxigraph store (RDF files, the embedded KB)."""
    rows = []
    for predicate in (RDFS + "label", SKOS_ALT):
        for row in store.query(f"SELECT ?s ?l WHERE {{ ?s <{predicate}> ?l {_LABEL_LANG} }}"):
            rows.append((row["s"].value, row["l"].value, row["l"].language or ""))
    labels = _labels(rows)

    def counts(query: str) -> dict[str, float]:
        return {
            r["x"].value: float(r["n"].value) for r in store.query(query) if isinstance(r["x"], ox.NamedNode)
        }

    classes = counts(f"SELECT ?x (COUNT(?s) AS ?n) WHERE {{ ?s <{RDF}type> ?x }} GROUP BY ?x")
    properties = counts("SELECT ?x (COUNT(*) AS ?n) WHERE { ?s ?x ?o } GROUP BY ?x")
    declared = " ".join(f"<{t}>" for t in (*_CLASS_TYPES, *_PROPERTY_TYPES))
    for row in store.query(f"SELECT ?x ?t WHERE {{ VALUES ?t {{ {declared} }} ?x <{RDF}type> ?t }}"):
        target = classes if row["t"].value in _CLASS_TYPES else properties
        target.setdefault(row["x"].value, 0.0)
    for iri in classes:
        properties.pop(iri, None)
    degree = counts(
        "SELECT ?x (COUNT(*) AS ?n) WHERE { { ?x ?p ?o } UNION { ?s ?p ?x } FILTER(isIRI(?x)) } GROUP BY ?x"
    )
    yield from _entries(labels, classes, properties, degree, prefixes)


def facts_from_store(store: ox.Store, prefixes: PrefixMap) -> Iterator[Fact]:
    """Every triple of the store between two IRIs outside the RDF/RDFS/OWL vocabularies, as model
    tokens, memberships as ("x", "a", "C"): what `KBIndex.relations` answers from; and once per
    subject and property, ("x", "p", MEASURED) when a value is a number or a date (`KBIndex.attributes`),
    ("x", "p", TEXT) when it is another literal outside those vocabularies (not a label: a symbol)."""
    tokens: dict[str, str | None] = {}
    kept: set[tuple[str, str, str]] = set()  # (subject, property, MEASURED | TEXT) already yielded

    def token(iri: str) -> str | None:
        if iri not in tokens:
            tokens[iri] = None if iri.startswith(_SCHEMA) else token_of(iri, prefixes)
        return tokens[iri]

    for quad in store.quads_for_pattern(None, None, None):
        s, p, o = quad.subject, quad.predicate, quad.object
        if isinstance(s, ox.NamedNode) and isinstance(o, ox.Literal):
            if p.value == SKOS_ALT:
                continue
            subject, prop = token(s.value), token(p.value)
            value = MEASURED if o.datatype.value in _MEASURES else TEXT
            if subject and prop and (subject, prop, value) not in kept:
                kept.add((subject, prop, value))
                yield subject, prop, value
            continue
        if not (isinstance(s, ox.NamedNode) and isinstance(o, ox.NamedNode)):
            continue
        subject, obj = token(s.value), token(o.value)
        prop = "a" if p.value == RDF + "type" else token(p.value)
        if subject and obj and prop:
            yield subject, prop, obj


def entries_from_endpoint(kb: KnowledgeBase, prefixes: PrefixMap, page: int = 10000) -> Iterator[Entry]:
    """Every labelled IRI of a SPARQL endpoint, in pages of `page` rows (kinds from rdf:type and predicates).

    Popularity is not asked for: a degree count over a whole public endpoint times out.
    """

    def paged(select: str, where: str) -> Iterator[tuple[str | None, ...]]:
        offset = 0
        while True:
            order = select.replace("DISTINCT", "")
            answer = kb.query(
                f"SELECT {select} WHERE {{ {where} }} ORDER BY {order} LIMIT {page} OFFSET {offset}"
            )
            if not answer.ok:
                raise RuntimeError(f"endpoint {getattr(kb, 'url', kb)}: {answer.error}")
            yield from answer.rows
            if len(answer.rows) < page:
                return
            offset += page

    rows = [
        (s, label, "")
        for predicate in (RDFS + "label", SKOS_ALT)
        for s, label in paged("?s ?l", f"?s <{predicate}> ?l {_LABEL_LANG}")
        if s and label
    ]
    labels = _labels(rows)
    classes = {c: 0.0 for (c,) in paged("DISTINCT ?c", f"?s <{RDF}type> ?c FILTER(isIRI(?c))") if c}
    properties = {p: 0.0 for (p,) in paged("DISTINCT ?p", "?s ?p ?o") if p and p not in classes}
    yield from _entries(labels, classes, properties, {}, prefixes)


def _lcquad1_list(path: Path) -> list[str]:
    """IRIs of LC-QuAD 1.0's entities.txt / predicates.txt (one a line, predicates with a trailing comma)."""
    iris, skipped = [], []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        iri = line.strip().rstrip(",").strip()
        if iri.startswith(("http://", "https://")):
            iris.append(iri)
        elif iri:
            skipped.append(n)  # the upstream predicates.txt holds a stray `?x'`
    if skipped:
        log.warning("%s: skipped %d line(s) that are not IRIs: %s", path, len(skipped), skipped[:10])
    if not iris:
        raise RecordError(path, "<file>", "<lines>", "expected one IRI per line, found none")
    return iris


def entries_from_label_files(
    paths: Sequence[str | Path], prefixes: PrefixMap, item_prefix: str = "wd", property_prefix: str = "wdt"
) -> Iterator[Entry]:
    """Entries from label files: a JSON object {id or token: label} (LC-QuAD 2.0's entity_labels.json,
    relation_labels.json: `Q…` ids become `item_prefix:Q…` entities, `P…` ids `property_prefix:P…`
    properties), or a text file of IRIs (LC-QuAD 1.0's entities.txt, predicates.txt: predicates when
    the file name says so, labelled by their local name)."""
    for item in paths:
        path = Path(item)
        if not path.is_file():
            raise FileNotFoundError(f"label file not found: {path}")
        if path.suffix == ".json":
            for key, label in sorted(read_label_file(path).items()):
                if _ITEM_ID.match(key):
                    is_property = key[0] == "P"
                    token = f"{property_prefix if is_property else item_prefix}:{key}"
                    yield Entry(token, "property" if is_property else "entity", (label,))
                else:
                    yield Entry(key, "entity", (label,))
            continue
        kind: Kind = "property" if "predicate" in path.name or "relation" in path.name else "entity"
        for iri in _lcquad1_list(path):
            token = token_of(iri, prefixes)
            if token is not None:
                yield Entry(token, kind, (local_name_label(token),))


def entries_from_lexicon(path: str | Path, kinds: Mapping[str, Kind]) -> Iterator[Entry]:
    """A user lexicon, JSON {token: [phrase, ...]}: more phrases for elements other sources index
    (`kinds` gives their kind); a token no source knows is an error naming the file and the token."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"lexicon file not found: {path}")
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RecordError(path, "<file>", "<json>", f"invalid JSON: {err.msg} at line {err.lineno}") from None
    if not isinstance(data, dict):
        raise RecordError(path, "<file>", "<root>", f"expected a JSON object, got {type(data).__name__}")
    for token, phrases in data.items():
        if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
            raise RecordError(path, token, "phrases", "expected a list of strings")
        if token not in kinds:
            raise RecordError(path, token, "token", "no indexed KB element has this token")
        yield Entry(token, kinds[token], tuple(phrases))


def element_kinds(example: Example) -> dict[str, Kind]:
    """URI tokens of a query by kind: classes (objects of `a`), properties (predicates), entities."""
    tokens = tokenize(example.query, example.kb)
    types = token_types(tokens, example.kb)
    classes = class_tokens(example)
    kinds: dict[str, Kind] = {}
    position, depth = 0, 0
    for token, kind in zip(tokens, types):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif token in ("{", "}", "."):
            position = 0
        elif token == ";":
            position = 1
        elif token == ",":
            position = 2
        elif depth == 0 and (kind in (TokenType.URI, TokenType.VARIABLE, TokenType.LITERAL) or token == "a"):
            if kind is TokenType.URI:
                guess: Kind = "class" if token in classes else "property" if position == 1 else "entity"
                kinds.setdefault(token, guess)
            position = min(position + 1, 2)
    return kinds


def _aligned_spans(example: Example, resolver: LabelResolver) -> dict[str, str]:
    """token -> the question words that name it: the mark aligned with it (a marked question), else
    the words tag-within annotation put in its place. Two elements tag-within placed side by side
    ("<businessperson> <was born in>") have no text between them to fix the border, so neither
    takes a span from that match ("b" and "usinessperson was born in" would be learned otherwise)."""
    marked, resolved = resolver.resolve_detailed(example)
    spans = {
        r.element.token: normalize_space(marked.marks[r.mark].text)
        for r in resolved
        if marked is not None and r.mark is not None and marked.marks[r.mark].text.strip()
    }
    annotated = annotate(example, "tag_within", 0, resolver)
    body = annotated.text.split(f" {SEP} ", 1)[0]
    plain = marked.plain if marked is not None else normalize_space(example.question)
    units = split_question(body)
    pattern, tokens, alone = [], [], []
    for i, unit in enumerate(units):
        token = unmark(unit)
        if token is not None:
            pattern.append(r"(.+?)")
            tokens.append(token)
            beside = [units[j] for j in (i - 1, i + 1) if 0 <= j < len(units)]
            alone.append(not any(unmark(u) is not None for u in beside))
        else:
            pattern.append(re.escape(unit))
    found = re.fullmatch(r"\s*".join(pattern), plain)
    if found is not None:
        for token, span, ok in zip(tokens, found.groups(), alone, strict=True):
            if ok and span.strip():
                spans.setdefault(token, normalize_space(span))
    return spans


def entries_from_examples(
    examples: Iterable[Example], resolver: LabelResolver | None = None, lexicon: bool = True
) -> Iterator[Entry]:
    """Every URI of the examples' queries, labelled, plus the question spans tag-within alignment gives
    it (the lexicon learned from a training set); popularity = the examples that use it.

    `lexicon=False` (examples that are not training data, e.g. to index every element a dataset's
    queries use): the local name only, so no question words of those examples reach the index.
    """
    resolver = resolver or LabelResolver()
    labels: dict[str, dict[str, None]] = defaultdict(dict)
    kinds: dict[str, Kind] = {}
    uses: Counter[str] = Counter()
    for example in examples:
        try:
            found = element_kinds(example)
        except SparqlSyntaxError:
            continue
        if not lexicon:
            for token, kind in found.items():
                kinds.setdefault(token, kind)
                uses[token] += 1
                labels[token].setdefault(local_name_label(token), None)
            continue
        spans = _aligned_spans(example, resolver)
        for element in resolver.resolve(example):
            if element.kind != "uri" or element.token not in found:
                continue
            token = element.token
            kinds.setdefault(token, found[token])
            uses[token] += 1
            names = labels[token]
            names.setdefault(element.label or local_name_label(token), None)
            if token in spans:
                names.setdefault(spans[token], None)
    for token in sorted(labels):
        yield Entry(token, kinds[token], tuple(labels[token]), float(uses[token]))


def entries_from_cooccurrence(
    examples: Iterable[Example],
    fields: Sequence[str] = ("question", "reformulated"),
    min_count: int = 3,
    min_share: float = 0.3,
    stopwords: Collection[str] = (),
) -> Iterator[Entry]:
    """Words of human questions that name a property or a class in other words than its label
    ("married" for spouse, "movies" for Film), learned from a training set by co-occurrence: a word
    of the question texts in `fields` (lower-cased, not a stopword) becomes a phrase of an element
    when they meet in at least
    `min_count` examples and in at least `min_share` of the examples holding the word.
    The phrases go to `Entry.forms`, ranked below labels."""
    with_word: Counter[str] = Counter()
    together: Counter[tuple[str, str]] = Counter()
    kinds: dict[str, Kind] = {}
    for example in examples:
        text = " ".join(getattr(example, field, None) or "" for field in fields)
        words = {w for w in normalize(text).split() if w not in stopwords and not w.isdigit()}
        try:
            found = element_kinds(example)
        except SparqlSyntaxError:
            continue
        schema = {token: kind for token, kind in found.items() if kind != "entity"}
        kinds.update(schema)
        with_word.update(words)
        together.update((w, token) for w in words for token in schema)
    forms: dict[str, list[str]] = defaultdict(list)
    for (word, token), n in sorted(together.items()):
        if n >= min_count and n / with_word[word] >= min_share:
            forms[token].append(word)
    for token in sorted(forms):
        yield Entry(token, kinds[token], (local_name_label(token),), forms=tuple(forms[token]))


def frequent_elements(examples: Iterable[Example], min_share: float = 0.2) -> list[str]:
    """Properties and classes that at least `min_share` of the examples' queries use (Wikidata's
    `wdt:P31`, instance of): a question seldom names them, so a linker proposes them every time."""
    uses: Counter[str] = Counter()
    n = 0
    for example in examples:
        n += 1
        try:
            uses.update(token for token, kind in element_kinds(example).items() if kind != "entity")
        except SparqlSyntaxError:
            continue
    return sorted(token for token, count in uses.items() if count >= min_share * n)


# The interrogatives whose answers' slots training teaches: "who" asks for people, bands, founders, not
# for a language ("Who wrote X?" answered by X's language is the wrong kind of answer).
ASKING_WORDS = ("who",)


def answer_slots(examples: Iterable[Example], words: Sequence[str] = ASKING_WORDS) -> Counter[Slot]:
    """How often the training questions opening with each of `words` ("Who directed Alien?") are
    answered by a property's object or subject (`(word, ont:director, "object")`): the KB index turns
    these slots into the classes whose members answer such a question (`KBIndex.answer_classes`)."""
    slots: Counter[Slot] = Counter()
    for example in examples:
        first = normalize(example.question).split()[:1]
        if not first or first[0] not in words:
            continue
        try:
            tokens = tokenize(example.query, example.kb)
        except SparqlSyntaxError:
            continue
        types = token_types(tokens, example.kb)
        var = answer_variable(tokens, types)
        for s, p, o in triple_patterns(tokens, types):
            if tokens[p] != "a" and types[p] is TokenType.URI and var in (tokens[s], tokens[o]):
                slots[(first[0], tokens[p], "object" if tokens[o] == var else "subject")] += 1
    return slots
