"""Question/query datasets generated from templates over any RDF graph (the bundled KB or the user's).

Every query template is instantiated from the store's own facts, written in the project's canonical
form, executed on the store and kept only when it has an answer, so a generated dataset never asks
something its KB cannot answer. Questions name each KB element of the query by its `rdfs:label`
(English first; the local name as a fallback) and `marked_question` wraps those spans in `<...>` like
LC-QuAD 1.0's intermediary questions, which lets tag-within annotation align them exactly. Entities
whose label is shared by another entity are never used in a question: the question would not say
which one the query means.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import pyoxigraph as ox

from nmt_sparql.core.language import label_rank
from nmt_sparql.core.record import Example, KBElement
from nmt_sparql.data.splits import DEFAULT_SEED, Split, random_split
from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map
from nmt_sparql.sparql.tokens import TokenType, detokenize, kb_tokens, literal_value, token_types, tokenize

BUNDLED_KB = "bundled"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
# Schema vocabularies: their predicates and classes describe the data rather than state facts.
SCHEMA_NAMESPACES = (RDF, RDFS, OWL, XSD)
LABEL = RDFS + "label"
NUMERIC_TYPES = {XSD + t for t in ("integer", "int", "long", "short", "decimal", "double", "float",
                                   "nonNegativeInteger", "positiveInteger")}  # fmt: skip
DATE_TYPES = {XSD + "date", XSD + "dateTime"}
STRING_TYPES = {XSD + "string"}
TEMPLATE_IDS = (
    "one_hop_object", "one_hop_literal", "one_hop_subject", "type_subject", "two_hop", "two_hop_subject",
    "count_type", "count_object", "ask", "filter_number", "filter_contains", "superlative",
)  # fmt: skip

# Paraphrases per template: `{slot}` becomes `<label>` in the marked question.
PHRASES: dict[str, tuple[str, ...]] = {
    "one_hop": ("What is the {p} of {s}?", "What is {s}'s {p}?", "Tell me the {p} of {s}.", "Give me the {p} of {s}."),
    "one_hop_subject": (
        "Whose {p} is {o}?", "What has {o} as its {p}?", "List the things whose {p} is {o}.",
        "Which entities have the {p} {o}?",
    ),
    "type_subject": (
        "Which {c} has {o} as its {p}?", "Name the {c} whose {p} is {o}.", "List every {c} with the {p} {o}.",
    ),
    "two_hop": (
        "What is the {p2} of the {p1} of {s}?", "Give me the {p2} of {s}'s {p1}.",
        "Tell me the {p2} of the {p1} of {s}.",
    ),
    "two_hop_subject": (
        "What has a {p1} whose {p2} is {o}?", "Which entities have a {p1} with the {p2} {o}?",
        "List the things whose {p1} has {o} as its {p2}.",
    ),
    "count_type": (
        "How many {c} have {o} as their {p}?", "Count the {c} whose {p} is {o}.",
        "What is the number of {c} with the {p} {o}?",
    ),
    "count_object": ("How many {p} does {s} have?", "Count the {p} of {s}.", "What is the number of {p} of {s}?"),
    "ask": ("Is {o} the {p} of {s}?", "Does {s} have {o} as its {p}?", "Is it true that the {p} of {s} is {o}?"),
    "filter_number>": (
        "Which {c} has a {p} greater than {n}?", "List every {c} whose {p} is above {n}.",
        "Give me the {c} with a {p} of more than {n}.",
    ),
    "filter_number<": (
        "Which {c} has a {p} less than {n}?", "List every {c} whose {p} is below {n}.",
        "Give me the {c} with a {p} of less than {n}.",
    ),
    "filter_date>": (
        "Which {c} has a {p} after {n}?", "List every {c} whose {p} is later than {n}.",
        "Give me the {c} with a {p} after the year {n}.",
    ),
    "filter_date<": (
        "Which {c} has a {p} before {n}?", "List every {c} whose {p} is earlier than {n}.",
        "Give me the {c} with a {p} before the year {n}.",
    ),
    "filter_contains": (
        "Which {c} has a name containing {w}?", "List every {c} whose label contains {w}.",
        "Give me the {c} with {w} in its name.",
    ),
    "superlative_desc": (
        "Which {c} has the highest {p}?", "What is the {c} with the largest {p}?", "Name the {c} with the maximum {p}.",
    ),
    "superlative_asc": (
        "Which {c} has the lowest {p}?", "What is the {c} with the smallest {p}?", "Name the {c} with the minimum {p}.",
    ),
}  # fmt: skip


class GenerationError(ValueError):
    """The store cannot feed the generator (no usable facts, unknown KB prefix map, unreadable file)."""


def bundled_kb_path() -> Path:
    """The Turtle file of the KB shipped inside the package."""
    return Path(str(files("nmt_sparql").joinpath("resources", "kb.ttl")))


def load_store(paths: str | Path | Iterable[str | Path]) -> ox.Store:
    """An in-memory store holding every RDF file of `paths` (format from the extension: .ttl, .nt, .rdf...)."""
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    if not items:
        raise GenerationError("load_store: no RDF file given")
    store = ox.Store()
    for item in items:
        path = Path(item)
        if not path.is_file():
            raise FileNotFoundError(f"RDF file not found: {path}")
        fmt = ox.RdfFormat.from_extension(path.suffix.lstrip("."))
        if fmt is None:
            raise GenerationError(f"{path}: unknown RDF format for extension '{path.suffix}'")
        try:
            store.load(path=str(path), format=fmt)
        except SyntaxError as err:
            raise GenerationError(f"{path}: not valid {fmt.name}: {err}") from err
    return store


# ---------------------------------------------------------------------------------------------------
# What the store holds


def _is_schema(iri: str) -> bool:
    return iri.startswith(SCHEMA_NAMESPACES)


def _humanize(iri: str, schema: bool) -> str:
    """The fallback label: the local name, underscores as spaces; camelCase split for properties/classes."""
    local = re.split(r"[/#]", iri.rstrip("/"))[-1]
    if schema:
        local = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", local).lower()
    return " ".join(local.replace("_", " ").split())


def _usable_label(label: str) -> bool:
    return bool(label) and "<" not in label and ">" not in label


@dataclass
class KBGraph:
    """Facts, types and labels of a store, read once with SPARQL, sorted for determinism."""

    facts: dict[str, list[tuple[str, ox.NamedNode | ox.Literal]]] = field(default_factory=dict)
    types: dict[str, list[str]] = field(default_factory=dict)  # entity -> classes
    members: dict[str, list[str]] = field(default_factory=dict)  # class -> entities
    labels: dict[str, str] = field(default_factory=dict)
    unique: set[str] = field(default_factory=set)  # entities whose label names no other entity
    out: dict[str, list[tuple[str, ox.NamedNode | ox.Literal]]] = field(default_factory=dict)  # s -> (p, o)
    into: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # o -> (s, p)

    @classmethod
    def read(cls, store: ox.Store) -> KBGraph:
        g = cls()
        candidates: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for row in store.query(
            f"SELECT ?s ?l WHERE {{ ?s <{LABEL}> ?l . FILTER(isIRI(?s) && isLiteral(?l)) }}"
        ):
            lit = row["l"]
            rank = label_rank(lit.language)
            if rank is not None:
                candidates[row["s"].value].append((rank, " ".join(lit.value.split())))
        labels = {iri: min(options)[1] for iri, options in candidates.items()}

        facts: dict[str, set[tuple[str, ox.NamedNode | ox.Literal]]] = defaultdict(set)
        for row in store.query("SELECT ?s ?p ?o WHERE { ?s ?p ?o . FILTER(isIRI(?s) && !isBlank(?o)) }"):
            p = row["p"].value
            if not _is_schema(p):
                facts[p].add((row["s"].value, row["o"]))
        types: dict[str, set[str]] = defaultdict(set)
        for row in store.query(
            f"SELECT ?s ?c WHERE {{ ?s <{RDF}type> ?c . FILTER(isIRI(?s) && isIRI(?c)) }}"
        ):
            if not _is_schema(row["c"].value):
                types[row["s"].value].add(row["c"].value)

        def order(pair: tuple[str, ox.NamedNode | ox.Literal]) -> tuple[str, str]:
            return pair[0], str(pair[1])

        g.facts = {p: sorted(pairs, key=order) for p, pairs in sorted(facts.items())}
        g.types = {s: sorted(cs) for s, cs in sorted(types.items())}
        members: dict[str, list[str]] = defaultdict(list)
        for s, cs in g.types.items():
            for c in cs:
                members[c].append(s)
        g.members = dict(sorted(members.items()))
        schema = set(g.facts) | set(g.members)
        entities = {s for pairs in g.facts.values() for s, _ in pairs} | set(g.types)
        entities |= {o.value for pairs in g.facts.values() for _, o in pairs if isinstance(o, ox.NamedNode)}
        entities -= schema
        for iri in sorted(entities | schema):
            g.labels[iri] = labels.get(iri) or _humanize(iri, iri in schema)
        by_label: dict[str, int] = defaultdict(int)
        for iri in entities:
            by_label[g.labels[iri].lower()] += 1
        g.unique = {
            iri for iri in entities if by_label[g.labels[iri].lower()] == 1 and _usable_label(g.labels[iri])
        }
        out: dict[str, list[tuple[str, ox.NamedNode | ox.Literal]]] = defaultdict(list)
        into: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for p, pairs in g.facts.items():
            for s, o in pairs:
                out[s].append((p, o))
                if isinstance(o, ox.NamedNode):
                    into[o.value].append((s, p))
        g.out, g.into = dict(out), dict(into)
        return g

    def object_props(self) -> list[str]:
        return [p for p, pairs in self.facts.items() if any(isinstance(o, ox.NamedNode) for _, o in pairs)]

    def literal_props(self, datatypes: set[str] | None = None) -> list[str]:
        return [
            p
            for p, pairs in self.facts.items()
            if pairs
            and all(isinstance(o, ox.Literal) for _, o in pairs)
            and (datatypes is None or all(o.datatype.value in datatypes for _, o in pairs))
        ]

    def named(self, term: ox.NamedNode | ox.Literal | str) -> bool:
        """True when a question can name `term` unambiguously (an entity with a unique label)."""
        iri = term if isinstance(term, str) else term.value if isinstance(term, ox.NamedNode) else None
        return iri is not None and iri in self.unique


# ---------------------------------------------------------------------------------------------------
# Instantiation


@dataclass(frozen=True)
class _Draft:
    """A template instance before execution: SPARQL text, marked question, template id."""

    query: str
    phrase: str
    slots: dict[str, str]
    template_id: str


def _sparql_term(term: ox.NamedNode | ox.Literal | str) -> str:
    if isinstance(term, str):
        return f"<{term}>"
    if isinstance(term, ox.NamedNode):
        return f"<{term.value}>"
    return str(term)  # N-Triples form is valid SPARQL: "v", "v"@en, "v"^^<dt>


def _label_of(g: KBGraph, term: ox.NamedNode | ox.Literal | str) -> str:
    if isinstance(term, ox.Literal):
        return term.value
    return g.labels[term if isinstance(term, str) else term.value]


def _round_number(value: float) -> int:
    """A round threshold near `value` (two significant digits) for numeric FILTER questions."""
    v = int(value)
    if abs(v) < 100:
        return v
    scale = 10 ** (len(str(abs(v))) - 2)
    return (v // scale) * scale


def _interleave(groups: dict, rng: random.Random) -> Iterator:
    """Round-robin over shuffled groups of shuffled candidates, so no predicate or class dominates."""
    queues = []
    for key in sorted(groups, key=str):
        items = list(groups[key])
        rng.shuffle(items)
        queues.append(items)
    rng.shuffle(queues)
    while queues:
        for queue in list(queues):
            if queue:
                yield queue.pop()
            if not queue:
                queues.remove(queue)


def _one_hop(g: KBGraph, rng: random.Random, literal: bool) -> Iterator[_Draft]:
    props = g.literal_props() if literal else g.object_props()
    groups = {p: [(s, p) for s in sorted({s for s, _ in g.facts[p] if g.named(s)})] for p in props}
    tid = "one_hop_literal" if literal else "one_hop_object"
    for s, p in _interleave(groups, rng):
        q = f"SELECT DISTINCT ?x WHERE {{ <{s}> <{p}> ?x }}"
        yield _Draft(q, rng.choice(PHRASES["one_hop"]), {"s": s, "p": p}, tid)


def _subject(g: KBGraph, rng: random.Random, typed: bool) -> Iterator[_Draft]:
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for p, pairs in g.facts.items():
        for s, o in pairs:
            string = isinstance(o, ox.Literal) and o.datatype.value in STRING_TYPES and _usable_label(o.value)
            if not (g.named(o) or string):
                continue
            for c in g.types.get(s, []) if typed else [""]:
                groups[(p, c)].append((p, o, c))
    seen: set[tuple] = set()
    for p, o, c in _interleave(groups, rng):
        if (p, str(o), c) in seen:
            continue
        seen.add((p, str(o), c))
        if typed:
            q = f"SELECT DISTINCT ?x WHERE {{ ?x a <{c}> . ?x <{p}> {_sparql_term(o)} }}"
            yield _Draft(q, rng.choice(PHRASES["type_subject"]), {"c": c, "p": p, "o": o}, "type_subject")
        else:
            q = f"SELECT DISTINCT ?x WHERE {{ ?x <{p}> {_sparql_term(o)} }}"
            yield _Draft(q, rng.choice(PHRASES["one_hop_subject"]), {"p": p, "o": o}, "one_hop_subject")


def _two_hop(g: KBGraph, rng: random.Random) -> Iterator[_Draft]:
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for p1 in g.object_props():
        for s, y in g.facts[p1]:
            if not g.named(s) or not isinstance(y, ox.NamedNode):
                continue
            for p2 in sorted({p for p, _ in g.out.get(y.value, [])}):
                groups[(p1, p2)].append((s, p1, p2))
    seen: set[tuple[str, str, str]] = set()
    for s, p1, p2 in _interleave(groups, rng):
        if (s, p1, p2) not in seen:
            seen.add((s, p1, p2))
            q = f"SELECT DISTINCT ?x WHERE {{ <{s}> <{p1}> ?y . ?y <{p2}> ?x }}"
            yield _Draft(q, rng.choice(PHRASES["two_hop"]), {"s": s, "p1": p1, "p2": p2}, "two_hop")


def _two_hop_subject(g: KBGraph, rng: random.Random) -> Iterator[_Draft]:
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for p2 in g.object_props():
        for y, o in g.facts[p2]:
            if g.named(o):
                for p1 in sorted({p for _, p in g.into.get(y, [])}):
                    groups[(p1, p2)].append((p1, p2, o.value))
    seen: set[tuple[str, str, str]] = set()
    for p1, p2, o in _interleave(groups, rng):
        if (p1, p2, o) not in seen:
            seen.add((p1, p2, o))
            q = f"SELECT DISTINCT ?x WHERE {{ ?x <{p1}> ?y . ?y <{p2}> <{o}> }}"
            yield _Draft(
                q, rng.choice(PHRASES["two_hop_subject"]), {"p1": p1, "p2": p2, "o": o}, "two_hop_subject"
            )


def _count(g: KBGraph, rng: random.Random, typed: bool) -> Iterator[_Draft]:
    """COUNT over a class's members with a property value, or over an entity's values of a property
    that has several values for some subject (counting a single-valued property says nothing)."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for p in g.object_props():
        per_subject = defaultdict(int)
        for s, _ in g.facts[p]:
            per_subject[s] += 1
        multi_valued = max(per_subject.values()) > 1
        for s, o in g.facts[p]:
            if typed and g.named(o):
                for c in g.types.get(s, []):
                    groups[(p, c)].append((c, p, o.value))
            elif not typed and multi_valued and g.named(s):
                groups[(p, "")].append(("", p, s))
    seen: set[tuple[str, str, str]] = set()
    for c, p, e in _interleave(groups, rng):
        if (c, p, e) in seen:
            continue
        seen.add((c, p, e))
        if typed:
            q = f"SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE {{ ?x a <{c}> . ?x <{p}> <{e}> }}"
            yield _Draft(q, rng.choice(PHRASES["count_type"]), {"c": c, "p": p, "o": e}, "count_type")
        else:
            q = f"SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE {{ <{e}> <{p}> ?x }}"
            yield _Draft(q, rng.choice(PHRASES["count_object"]), {"s": e, "p": p}, "count_object")


def _ask(g: KBGraph, rng: random.Random) -> Iterator[_Draft]:
    """True and false ASKs in turn: a false one swaps the object for another object of the same property."""
    groups: dict[str, list] = defaultdict(list)
    for p in g.object_props():
        objects = sorted({o.value for _, o in g.facts[p] if g.named(o)})
        if len(objects) < 2:
            continue
        for s, o in g.facts[p]:
            if g.named(s) and g.named(o):
                groups[p].append((s, p, o.value, objects))
    truth = True
    for s, p, o, objects in _interleave(groups, rng):
        if not truth:
            linked = {x.value for q, x in g.out.get(s, []) if q == p and isinstance(x, ox.NamedNode)}
            others = [x for x in objects if x not in linked and x != s]
            if not others:
                continue
            o = rng.choice(others)
        q = f"ASK WHERE {{ <{s}> <{p}> <{o}> }}"
        yield _Draft(q, rng.choice(PHRASES["ask"]), {"s": s, "p": p, "o": o}, "ask")
        truth = not truth


def _class_props(g: KBGraph, props: Iterable[str]) -> dict[tuple[str, str], list[ox.Literal]]:
    """(class, property) -> the property's values over the class's members."""
    values: dict[tuple[str, str], list[ox.Literal]] = defaultdict(list)
    for p in props:
        for s, o in g.facts[p]:
            for c in g.types.get(s, []):
                values[(c, p)].append(o)
    return values


def _filter_number(g: KBGraph, rng: random.Random) -> Iterator[_Draft]:
    numeric = set(g.literal_props(NUMERIC_TYPES))
    dates = set(g.literal_props(DATE_TYPES))
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for (c, p), values in _class_props(g, numeric | dates).items():
        if len({v.value for v in values}) < 3:
            continue
        for v in values:
            year = p in dates
            try:
                n = int(v.value[:4]) // 10 * 10 if year else _round_number(float(v.value))
            except ValueError:
                continue
            for op in (">", "<"):
                groups[(c, p)].append((c, p, n, op, year))
    seen: set[tuple] = set()
    for c, p, n, op, year in _interleave(groups, rng):
        if (c, p, n, op) in seen:
            continue
        seen.add((c, p, n, op))
        value = f"YEAR(?v) {op} {n}" if year else f"?v {op} {n}"
        q = f"SELECT DISTINCT ?x WHERE {{ ?x a <{c}> . ?x <{p}> ?v . FILTER({value}) }}"
        key = f"filter_{'date' if year else 'number'}{op}"
        yield _Draft(q, rng.choice(PHRASES[key]), {"c": c, "p": p, "n": str(n)}, "filter_number")


def _filter_contains(g: KBGraph, rng: random.Random) -> Iterator[_Draft]:
    groups: dict[str, list] = defaultdict(list)
    for c, entities in g.members.items():
        words = {w for e in entities if e in g.unique for w in re.findall(r"[A-Za-z]{4,}", g.labels[e])}
        groups[c] = [(c, w) for w in sorted(words)]
    for c, w in _interleave(groups, rng):
        q = f'SELECT DISTINCT ?x WHERE {{ ?x a <{c}> . ?x <{LABEL}> ?l . FILTER(CONTAINS(?l, "{w}")) }}'
        yield _Draft(q, rng.choice(PHRASES["filter_contains"]), {"c": c, "w": w}, "filter_contains")


def _superlative(g: KBGraph, rng: random.Random) -> Iterator[_Draft]:
    """Highest/lowest value of a numeric property within a class, only when the extreme is unique."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for (c, p), values in _class_props(g, g.literal_props(NUMERIC_TYPES)).items():
        numbers = sorted(float(v.value) for v in values)
        if len(numbers) < 3:
            continue
        if numbers[-1] != numbers[-2]:
            groups[(c, p)].append((c, p, "DESC"))
        if numbers[0] != numbers[1]:
            groups[(c, p)].append((c, p, "ASC"))
    for c, p, direction in _interleave(groups, rng):
        q = f"SELECT DISTINCT ?x WHERE {{ ?x a <{c}> . ?x <{p}> ?v }} ORDER BY {direction}(?v) LIMIT 1"
        phrases = PHRASES["superlative_desc" if direction == "DESC" else "superlative_asc"]
        yield _Draft(q, rng.choice(phrases), {"c": c, "p": p}, "superlative")


TEMPLATES: dict[str, Callable[[KBGraph, random.Random], Iterator[_Draft]]] = {
    "one_hop_object": lambda g, r: _one_hop(g, r, literal=False),
    "one_hop_literal": lambda g, r: _one_hop(g, r, literal=True),
    "one_hop_subject": lambda g, r: _subject(g, r, typed=False),
    "type_subject": lambda g, r: _subject(g, r, typed=True),
    "two_hop": _two_hop,
    "two_hop_subject": _two_hop_subject,
    "count_type": lambda g, r: _count(g, r, typed=True),
    "count_object": lambda g, r: _count(g, r, typed=False),
    "ask": _ask,
    "filter_number": _filter_number,
    "filter_contains": _filter_contains,
    "superlative": _superlative,
}


# ---------------------------------------------------------------------------------------------------
# Execution and the Example record


def _answered(store: ox.Store, query: str, draft: _Draft) -> bool:
    """True when the query has an answer; two-hop chains that only lead back to the entity they name
    (the start, or the end) do not count."""
    result = store.query(query)
    if isinstance(result, ox.QueryBoolean):
        return True
    rows = list(result)
    if not rows:
        return False
    if draft.template_id.startswith("count"):
        return int(rows[0]["count"].value) > 0
    if draft.template_id == "two_hop":
        return any(r["x"] != ox.NamedNode(draft.slots["s"]) for r in rows)
    if draft.template_id == "two_hop_subject":  # "the things whose spouse has Jay-Z as its spouse"
        return any(r["x"] != ox.NamedNode(draft.slots["o"]) for r in rows)
    return True


def _fill(draft: _Draft, g: KBGraph) -> str:
    """The marked question: each slot replaced by `<label>` of its KB element."""
    marks = {k: f"<{v if k in ('n', 'w') else _label_of(g, v)}>" for k, v in draft.slots.items()}
    return draft.phrase.format(**marks)


def _unmark(marked: str) -> str:
    return " ".join(marked.replace("<", "").replace(">", "").split())


def _iri_of_token(token: str, pm: PrefixMap) -> str:
    if token.startswith("<"):
        return token[1:-1]
    prefix, local = token.split(":", 1)
    return pm.prefixes[prefix] + local


def _example(draft: _Draft, g: KBGraph, pm: PrefixMap, kb_name: str, ex_id: str) -> tuple[Example, str]:
    """The canonical Example of a draft (KB elements labelled as in its question) and its query text."""
    tokens = tokenize(draft.query, pm)
    kinds = dict(zip(tokens, token_types(tokens, pm)))
    elements = []
    for token in kb_tokens(tokens, pm):
        if kinds[token] is TokenType.URI:
            elements.append(KBElement(token, "uri", g.labels.get(_iri_of_token(token, pm))))
        else:
            elements.append(KBElement(token, "literal", literal_value(token)))
    marked = _fill(draft, g)
    query = detokenize(tokens, pm)
    example = Example(
        id=ex_id,
        question=_unmark(marked),
        query=query,
        kb=kb_name,
        kb_elements=elements,
        template_id=draft.template_id,
        marked_question=marked,
    )
    return example, query


def generate(
    store: ox.Store,
    kb_name: str,
    n_per_template: int = 300,
    seed: int = DEFAULT_SEED,
    templates: Sequence[str] = TEMPLATE_IDS,
) -> list[Example]:
    """Up to `n_per_template` answered, deduplicated examples per template over the facts of `store`.

    `kb_name` names the registered prefix map the queries are tokenized with (`bundled` is always
    registered). The same store, arguments and seed always give the same examples in the same order.
    """
    pm = prefix_map(kb_name)
    unknown = [t for t in templates if t not in TEMPLATES]
    if unknown:
        raise GenerationError(f"unknown template(s) {', '.join(unknown)}; known: {', '.join(TEMPLATE_IDS)}")
    g = KBGraph.read(store)
    if not g.facts:
        raise GenerationError(
            f"KB '{kb_name}': the store holds no facts outside the RDF/RDFS/OWL vocabularies"
        )
    examples: list[Example] = []
    queries: set[str] = set()
    questions: set[str] = set()
    for tid in templates:
        rng = random.Random(f"{seed}:{tid}")
        kept = 0
        for draft in TEMPLATES[tid](g, rng):
            if kept >= n_per_template:
                break
            example, query = _example(draft, g, pm, kb_name, f"{kb_name}-{tid}-{kept:05d}")
            if query in queries or example.question in questions or not _answered(store, query, draft):
                continue
            queries.add(query)
            questions.add(example.question)
            examples.append(example)
            kept += 1
    return examples


def split(
    examples: Sequence[Example], seed: int = DEFAULT_SEED, ratios: Sequence[float] = (0.8, 0.1, 0.1)
) -> Split:
    """Seeded train/validation/test split of generated examples (`nmt_sparql.data.splits.random_split`)."""
    return random_split(examples, ratios=ratios, seed=seed)
