"""Question/query pairs synthesized from any KB by exploring its query graphs (TARGA-style).

Rather than filling fixed templates, the synthesizer grows query graphs out of the KB's own facts,
simple to complex, keeping only structures already verified to have answers (TARGA's layer-wise
expansion and cross-layer combination, Huang et al. 2024):

- layer-wise expansion: a chain from a seed entity (or string literal) out to the answer, one edge
  per layer, up to 3 hops, each edge followed in either direction;
- cross-layer combination: two chains that meet in the same answer (`star1x1`, `star1x2`), with or
  without a class constraint `?x a C`, up to 5 edges;
- forms over those graphs: SELECT, ASK (true and false in turn), COUNT, numeric and date FILTERs,
  superlatives (ORDER BY ... LIMIT 1) and label CONTAINS filters.

Every query is executed on the store and kept only with a non-trivial answer (TARGA's filters): not
empty, at most `MAX_ANSWERS` answers, not every member of its class, and no redundant constraint (each
chain, class and filter removes answers the others allow). Families of shapes/forms get equal quotas,
and within a family the property (or the class) is drawn first, so frequent properties do not crowd out
rare ones. `report` gives the resulting distribution. Questions are worded by
`nmt_sparql.data.wording`; examples are written like the template generator's (`generate.py`).
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pyoxigraph as ox
from SPARQLWrapper import TURTLE

from nmt_sparql.core.record import Example, KBElement
from nmt_sparql.data.generate import (
    BUNDLED_KB,
    DATE_TYPES,
    NUMERIC_TYPES,
    RDFS,
    STRING_TYPES,
    GenerationError,
    KBGraph,
    _iri_of_token,
    _round_number,
    _usable_label,
    bundled_kb_path,
    load_store,
)
from nmt_sparql.data.lexicon import Lexicon
from nmt_sparql.data.pathindex import MAX_INNER, FactIndex, term_key
from nmt_sparql.data.querygraph import Path, QueryGraph, Step
from nmt_sparql.data.splits import DEFAULT_SEED
from nmt_sparql.data.wording import Wording
from nmt_sparql.execution.endpoint import EndpointKB
from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map
from nmt_sparql.sparql.tokens import TokenType, detokenize, kb_tokens, literal_value, token_types, tokenize

MAX_ANSWERS = 20
FAMILIES = (
    "chain1", "chain2", "chain3", "class", "star", "count", "ask", "filter_number", "filter_date",
    "superlative", "contains",
)  # fmt: skip
# Share of each family in the examples: the shapes people ask most (one and two hops, lists of a class,
# yes/no, counts, superlatives) weigh more than three-hop chains and label filters, which questions
# people write rarely take (TARGA samples for balance; balance by what users ask is ours).
FAMILY_WEIGHTS = {
    "chain1": 2.0, "chain2": 2.0, "chain3": 0.5, "class": 1.5, "star": 1.0, "count": 1.5, "ask": 1.5,
    "filter_number": 1.0, "filter_date": 1.0, "superlative": 1.5, "contains": 0.5,
}  # fmt: skip
# Share of the ASK family that asks for a class ("Is Pluto a planet?") rather than a fact.
_ASK_TYPE_SHARE = 0.25
ATTEMPTS_PER_EXAMPLE = 40

Answer = frozenset[str] | int | bool


def _anchorable(g: KBGraph, term: ox.NamedNode | ox.Literal) -> bool:
    """A question can name `term`: an entity with a unique label, or a short string literal."""
    if isinstance(term, ox.NamedNode):
        return g.named(term)
    return term.datatype.value in STRING_TYPES and _usable_label(term.value) and len(term.value) <= 40


class Synthesizer:
    """Draws query graphs of each family from one KB; `draws[family](rng)` makes one attempt (or None)."""

    def __init__(self, store: ox.Store, g: KBGraph):
        self.store, self.g, self.index = store, g, FactIndex.build(g)
        self.props = sorted(g.facts)
        self.classes = sorted(c for c, ms in g.members.items() if len(ms) >= 2)
        self.literal = set(g.literal_props())
        self.numeric = set(g.literal_props(NUMERIC_TYPES))
        self.dates = set(g.literal_props(DATE_TYPES))
        self.values: dict[str, dict[str, float]] = {}  # property -> entity -> value (years for dates)
        for p in self.numeric | self.dates:
            self.values[p] = {}
            for s, o in g.facts[p]:
                try:
                    self.values[p][s] = float(o.value[:4]) if p in self.dates else float(o.value)
                except ValueError:
                    continue
        self.class_values: dict[str, list[str]] = {
            c: sorted(p for p in self.values if sum(m in self.values[p] for m in g.members[c]) >= 3)
            for c in self.classes
        }
        self.draws: dict[str, Callable[[random.Random], QueryGraph | None]] = {
            "chain1": lambda r: self._select(self._chain(r, 1)),
            "chain2": lambda r: self._select(self._chain(r, 2)),
            "chain3": lambda r: self._select(self._chain(r, 3)),
            "class": self._class,
            "star": self._star,
            "count": self._count,
            "ask": self._ask,
            "filter_number": lambda r: self._filter(r, date=False),
            "filter_date": lambda r: self._filter(r, date=True),
            "superlative": self._superlative,
            "contains": self._contains,
        }
        self._ask_truth = self._ask_type_truth = True
        self._uses: dict[str, set[str]] | None = None

    # -- layer-wise expansion ----------------------------------------------------------------------

    def _chain(self, rng: random.Random, hops: int) -> tuple[Path, set[str]] | None:
        """A chain of `hops` edges from a named seed to the answer, grown one verified layer at a time."""
        p = rng.choice(self.props)
        s, o = rng.choice(self.g.facts[p])
        if _anchorable(self.g, o) and (not self.g.named(s) or rng.random() < 0.5):
            seed, step = o, Step(p, True)
        elif self.g.named(s):
            seed, step = ox.NamedNode(s), Step(p, False)
        else:
            return None
        steps = [step]
        nodes = self.index.inward({term_key(seed)}, step)
        for _ in range(hops - 1):
            entities = sorted(n for n in nodes if not n.startswith('"'))
            if not entities or len(nodes) > MAX_INNER:
                return None
            node = rng.choice(entities)
            options = [
                e
                for e in self.index.edges.get(node, [])
                if not (e.prop == steps[0].prop and e.forward == steps[0].forward)
            ]
            if not options:
                return None
            out = rng.choice(sorted({e.prop for e in options}))
            nxt = rng.choice([e for e in options if e.prop == out])
            new = Step(nxt.prop, not nxt.forward)  # read from the new answer towards `node`
            nodes = self.index.inward(nodes, new)
            steps.insert(0, new)
        nodes.discard(term_key(seed))
        if not nodes or len(nodes) > MAX_ANSWERS:
            return None
        return Path(tuple(steps), seed), nodes

    def _outward(self, rng: random.Random, start: str, length: int) -> Path | None:
        """A path from entity `start` out to a nameable term: the branch a combination adds."""
        steps: list[Step] = []
        node = start
        for i in range(length):
            options = self.index.edges.get(node, [])
            if steps:
                options = [
                    e for e in options if not (e.prop == steps[-1].prop and e.forward != steps[-1].forward)
                ]
            if not options:
                return None
            step = rng.choice(options)
            targets = self.index.neighbours(node, step)
            if not targets:
                return None
            target = rng.choice(targets)
            steps.append(step)
            if i == length - 1:
                return (
                    Path(tuple(steps), target)
                    if _anchorable(self.g, target) and term_key(target) != start
                    else None
                )
            if not isinstance(target, ox.NamedNode):
                return None
            node = target.value
        return None

    # -- forms ---------------------------------------------------------------------------------------

    def _select(self, chain: tuple[Path, set[str]] | None) -> QueryGraph | None:
        return None if chain is None else QueryGraph("select", (chain[0],))

    def _class_cut(self, rng: random.Random, answers: set[str]) -> str | None:
        """A class of some answers that removes others (a class every answer has is redundant)."""
        classes = sorted({c for a in answers for c in self.g.types.get(a, [])})
        rng.shuffle(classes)
        for c in classes:
            kept = answers & set(self.g.members[c])
            if kept and kept != answers and kept != set(self.g.members[c]):
                return c
        return None

    def _class(self, rng: random.Random) -> QueryGraph | None:
        chain = self._chain(rng, rng.choice((1, 1, 2)))
        if chain is None:
            return None
        c = self._class_cut(rng, chain[1])
        return None if c is None else QueryGraph("select", (chain[0],), answer_class=c)

    def _star(self, rng: random.Random) -> QueryGraph | None:
        """Cross-layer combination: two branches out of one answer, each must cut the other's answers."""
        if not self.classes:
            return None
        a = rng.choice(self.g.members[rng.choice(self.classes)])
        first = self._outward(rng, a, rng.choice((1, 1, 1, 2)))
        second = self._outward(rng, a, rng.choice((1, 1, 2)))
        if first is None or second is None or first == second:
            return None
        one, two = self.index.answers(first), self.index.answers(second)
        both = one & two
        if not both or both in (one, two) or len(both) > MAX_ANSWERS:
            return None
        c = self._class_cut(rng, both) if rng.random() < 0.4 else None
        return QueryGraph("select", (first, second), answer_class=c)

    def _core(self, rng: random.Random) -> QueryGraph | None:
        family = rng.choice(("chain1", "chain1", "chain2", "class", "star"))
        return self.draws[family](rng)

    def _count(self, rng: random.Random) -> QueryGraph | None:
        core = self._core(rng)
        return None if core is None else replace(core, form="count")

    def _ask(self, rng: random.Random) -> QueryGraph | None:
        """ASK with `?x` bound: true (an answer) and false (a same-class entity that is not) in turn;
        one in _ASK_TYPE_SHARE asks whether an entity is of a class ("Is Pluto a planet?")."""
        if self.classes and rng.random() < _ASK_TYPE_SHARE:
            return self._ask_type(rng)
        chain = self._chain(rng, rng.choice((1, 1, 2)))
        if chain is None:
            return None
        path, answers = chain
        named = sorted(a for a in answers if self.g.named(a))
        if not named:
            return None
        if self._ask_truth:
            target = rng.choice(named)
        else:
            peers = sorted(
                {m for c in self.g.types.get(rng.choice(named), []) for m in self.g.members[c]} - answers
            )
            peers = [m for m in peers if self.g.named(m) and m != term_key(path.anchor)]
            if not peers:
                return None
            target = rng.choice(peers)
        self._ask_truth = not self._ask_truth
        return QueryGraph("ask", (path,), target=ox.NamedNode(target))

    def _ask_type(self, rng: random.Random) -> QueryGraph | None:
        """`ASK { E a C }`, true for a member of C and false in turn; a false one names an entity of a
        class whose members share a property with C's (a dwarf planet for "planet": a near miss), else
        of any other class."""
        truth = self._ask_type_truth
        uses = self._class_properties()
        for c in rng.sample(self.classes, len(self.classes)):
            members = set(self.g.members[c])
            if truth:
                named = sorted(m for m in members if self.g.named(m))
            else:
                others = [o for o in self.classes if o != c]
                near = [o for o in others if uses[o] & uses[c]] or others
                named = sorted({m for o in near for m in self.g.members[o]} - members)
                named = [m for m in named if self.g.named(m)]
            if named:
                self._ask_type_truth = not truth
                return QueryGraph("ask", (), answer_class=c, target=ox.NamedNode(rng.choice(named)))
        return None

    def _class_properties(self) -> dict[str, set[str]]:
        """class -> the properties its members are the subject of (one pass over the facts, once)."""
        if self._uses is None:
            member_of: dict[str, list[str]] = {}
            for c in self.classes:
                for m in self.g.members[c]:
                    member_of.setdefault(m, []).append(c)
            self._uses = {c: set() for c in self.classes}
            for p in self.props:
                for s, _ in self.g.facts[p]:
                    for c in member_of.get(s, ()):
                        self._uses[c].add(p)
        return self._uses

    def _valued_core(self, rng: random.Random, date: bool | None) -> tuple[QueryGraph, set[str], str] | None:
        """(class + optional branch, the entities it allows, a value property they have)."""
        c = rng.choice(self.classes)
        props = [p for p in self.class_values[c] if date is None or (p in self.dates) == date]
        if not props:
            return None
        p = rng.choice(props)
        members = set(self.g.members[c])
        if rng.random() < 0.4:
            branch = self._outward(rng, rng.choice(sorted(m for m in members if m in self.values[p])), 1)
            if branch is None:
                return None
            allowed = self.index.answers(branch)
            core = allowed & members
            if not core or core == members:
                return None  # the branch constrains nothing within the class
            # A class every entity of the branch already has is a redundant constraint: left out.
            return QueryGraph("select", (branch,), answer_class=None if core == allowed else c), core, p
        return QueryGraph("select", answer_class=c), members, p

    def _filter(self, rng: random.Random, date: bool) -> QueryGraph | None:
        drawn = self._valued_core(rng, date)
        if drawn is None:
            return None
        core, allowed, p = drawn
        valued = {e: v for e, v in self.values[p].items() if e in allowed}
        if len(valued) < 2:
            return None
        pivot = valued[rng.choice(sorted(valued))]
        threshold = int(pivot) // 10 * 10 if date or p in self._year_props() else _round_number(pivot)
        op = rng.choice((">", "<"))
        kept = {e for e, v in valued.items() if (v > threshold if op == ">" else v < threshold)}
        if not kept or kept == set(valued) or len(kept) > MAX_ANSWERS:
            return None
        return replace(
            core, form="filter", value_prop=p, op=op, threshold=str(threshold), date=p in self.dates
        )

    def _year_props(self) -> set[str]:
        return {p for p in self.numeric if "year" in self.g.labels.get(p, "").lower()}

    def _superlative(self, rng: random.Random) -> QueryGraph | None:
        drawn = self._valued_core(rng, None)
        if drawn is None:
            return None
        core, allowed, p = drawn
        values = sorted(v for e, v in self.values[p].items() if e in allowed)
        if len(values) < 2:
            return None
        direction = rng.choice(("DESC", "ASC"))
        if (direction == "DESC" and values[-1] == values[-2]) or (
            direction == "ASC" and values[0] == values[1]
        ):
            return None
        return replace(core, form="superlative", value_prop=p, op=direction, date=p in self.dates)

    def _contains(self, rng: random.Random) -> QueryGraph | None:
        c = rng.choice(self.classes)
        members = [m for m in self.g.members[c] if m in self.g.unique]
        if not members:
            return None
        words = re.findall(r"[A-Za-z]{4,}", self.g.labels[rng.choice(members)])
        if not words:
            return None
        return QueryGraph("contains", answer_class=c, threshold=rng.choice(words))

    # -- execution --------------------------------------------------------------------------------

    def execute(self, graph: QueryGraph) -> Answer:
        result = self.store.query(graph.sparql())
        if isinstance(result, ox.QueryBoolean):
            return bool(result)
        rows = list(result)
        if graph.form == "count":
            return int(rows[0]["count"].value) if rows else 0
        return frozenset(term_key(r["x"]) for r in rows if r["x"] is not None)

    def keep(self, graph: QueryGraph, answer: Answer) -> bool:
        """TARGA's filters on the executed answer: non-empty, bounded, not a whole class."""
        if graph.form == "ask":
            return isinstance(answer, bool)
        if graph.form == "count":
            return isinstance(answer, int) and 0 < answer <= MAX_ANSWERS and not self._counts_values(graph)
        if not isinstance(answer, frozenset) or not answer or len(answer) > MAX_ANSWERS:
            return False
        if graph.answer_class and graph.form != "superlative":
            return answer != frozenset(self.g.members[graph.answer_class])
        return True

    def _counts_values(self, graph: QueryGraph) -> bool:
        """A count over literal values ("how many release years") asks nothing a person would."""
        last = graph.paths[0].steps[0] if graph.paths else None
        return last is not None and not last.forward and last.prop in self.literal


def superclasses(store: ox.Store) -> dict[str, set[str]]:
    """class -> itself and every class it is an rdfs:subClassOf (transitively)."""
    direct: dict[str, set[str]] = defaultdict(set)
    for row in store.query(
        f"SELECT ?a ?b WHERE {{ ?a <{RDFS}subClassOf> ?b . FILTER(isIRI(?a) && isIRI(?b)) }}"
    ):
        direct[row["a"].value].add(row["b"].value)
    closure: dict[str, set[str]] = {}
    for c in direct:
        seen, todo = {c}, [c]
        while todo:
            for parent in direct.get(todo.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        closure[c] = seen
    return closure


@dataclass
class Synthesis:
    """Synthesized examples and the distribution of what they cover."""

    examples: list[Example]
    report: dict[str, Any]


@dataclass
class KBSource:
    """A KB opened for synthesis: its store, the prefix map its queries use, the prefixes it declares."""

    store: ox.Store
    kb_name: str
    declared: dict[str, str] = field(default_factory=dict)


_PREFIX_LINE = re.compile(
    r"^\s*(?:@prefix|PREFIX)\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>", re.MULTILINE | re.IGNORECASE
)


def open_kb_source(spec: str, limit: int = 500_000) -> KBSource:
    """`kb=`: `embedded:bundled`, RDF file(s) (comma-separated, optionally after `embedded:`), or a
    SPARQL endpoint URL whose first `limit` triples are copied locally. Files' own prefixes are kept
    so a lexicon may use them; queries of a KB other than the bundled one are written with full IRIs."""
    if spec in ("embedded:bundled", BUNDLED_KB):
        return KBSource(load_store(bundled_kb_path()), BUNDLED_KB)
    if spec.startswith(("http://", "https://")):
        body = EndpointKB(spec)._fetch(
            f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }} LIMIT {int(limit)}", TURTLE
        )
        store = ox.Store()
        store.load(body, format=ox.RdfFormat.TURTLE)
        return KBSource(store, "generic")
    files = [f for f in spec.removeprefix("embedded:").split(",") if f]
    store = load_store(files)
    declared: dict[str, str] = {}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            head = fh.read(1_000_000)
        declared.update({m.group(1) or "": m.group(2) for m in _PREFIX_LINE.finditer(head)})
    return KBSource(store, "generic", declared)


def _example(
    graph: QueryGraph, marked: str, words: dict[str, str], g: KBGraph, pm: PrefixMap, kb_name: str, ex_id: str
) -> Example:
    """The canonical Example; each element's label is the words the question names it with (else its
    KB label), so tag-within annotation finds every element where the question names it."""
    tokens = tokenize(graph.sparql(), pm)
    kinds = dict(zip(tokens, token_types(tokens, pm)))
    elements = [
        KBElement(t, "uri", words.get(iri := _iri_of_token(t, pm)) or g.labels.get(iri))
        if kinds[t] is TokenType.URI
        else KBElement(t, "literal", literal_value(t))
        for t in kb_tokens(tokens, pm)
    ]
    plain = " ".join(marked.replace("<", "").replace(">", "").split())
    return Example(
        id=ex_id,
        question=plain,
        query=detokenize(tokens, pm),
        kb=kb_name,
        kb_elements=elements,
        template_id=f"{graph.form}-{graph.shape}",
        marked_question=marked,
    )


def _answer_kind(graph: QueryGraph, answer: Answer, wording: Wording) -> str:
    if graph.form == "ask":
        return "boolean"
    if graph.form == "count":
        return "count"
    assert isinstance(answer, frozenset)
    return wording.answer_type(answer)


def family_quotas(n: int, families: tuple[str, ...]) -> dict[str, int]:
    """`n` examples shared among `families` by FAMILY_WEIGHTS (largest remainders), summing to `n`."""
    total = sum(FAMILY_WEIGHTS[f] for f in families)
    exact = {f: n * FAMILY_WEIGHTS[f] / total for f in families}
    quotas = {f: int(v) for f, v in exact.items()}
    by_remainder = sorted(families, key=lambda f: (quotas[f] - exact[f], families.index(f)))
    for f in by_remainder[: n - sum(quotas.values())]:
        quotas[f] += 1
    return quotas


def synthesize(
    store: ox.Store,
    kb_name: str,
    n: int = 3000,
    seed: int = DEFAULT_SEED,
    lexicon: Lexicon | None = None,
    families: tuple[str, ...] = FAMILIES,
) -> Synthesis:
    """Up to `n` answered, deduplicated, worded examples, each family of shapes/forms its FAMILY_WEIGHTS share.

    `kb_name` names the registered prefix map the queries are tokenized with. The same store,
    arguments and seed always give the same examples in the same order.
    """
    pm = prefix_map(kb_name)
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise GenerationError(
            f"unknown synthesis family(ies) {', '.join(unknown)}; known: {', '.join(FAMILIES)}"
        )
    g = KBGraph.read(store)
    if not g.facts:
        raise GenerationError(
            f"KB '{kb_name}': the store holds no facts outside the RDF/RDFS/OWL vocabularies"
        )
    synth = Synthesizer(store, g)
    wording = Wording(g, superclasses(store), lexicon or Lexicon(), synth.index)
    examples: list[Example] = []
    seen_queries: set[str] = set()
    seen_questions: set[str] = set()
    stats: dict[str, Counter] = {k: Counter() for k in ("family", "form", "shape", "hops", "edges", "answer")}
    props: Counter = Counter()
    classes: Counter = Counter()
    quotas = family_quotas(n, families)
    for family in families:
        rng = random.Random(f"{seed}:{family}")
        kept = 0
        for _ in range(quotas[family] * ATTEMPTS_PER_EXAMPLE):
            if kept >= quotas[family]:
                break
            graph = synth.draws[family](rng)
            if graph is None:
                continue
            query = graph.sparql()
            if query in seen_queries:
                continue
            answer = synth.execute(graph)
            if not synth.keep(graph, answer):
                continue
            marked, words = wording.worded(graph, answer, rng)
            example = _example(graph, marked, words, g, pm, kb_name, f"{kb_name}-{family}-{kept:05d}")
            if example.question.lower() in seen_questions:
                continue
            seen_queries.add(query)
            seen_questions.add(example.question.lower())
            examples.append(example)
            kept += 1
            for name, value in (
                ("family", family), ("form", graph.form), ("shape", graph.shape), ("hops", graph.hops),
                ("edges", graph.edges), ("answer", _answer_kind(graph, answer, wording)),
            ):  # fmt: skip
                stats[name][str(value)] += 1
            props.update({s.prop for p in graph.paths for s in p.steps} | ({graph.value_prop} - {None}))
            if graph.answer_class:
                classes[graph.answer_class] += 1
    report: dict[str, Any] = {"examples": len(examples), "requested": n}
    report.update({k: dict(sorted(v.items())) for k, v in stats.items()})
    report["properties"] = {pm_token(p, pm): c for p, c in sorted(props.items())}
    report["classes"] = {pm_token(c, pm): k for c, k in sorted(classes.items())}
    return Synthesis(examples, report)


def pm_token(iri: str, pm: PrefixMap) -> str:
    compact = pm.compact(iri)
    return f"{compact[0]}:{compact[1]}" if compact else f"<{iri}>"
