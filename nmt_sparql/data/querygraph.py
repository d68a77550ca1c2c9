"""Query graphs: the structure a synthesized question asks about, and its canonical SPARQL text.

A graph is a set of paths that all end in the answer variable `?x`, each path starting at a KB term
(an entity, or a string literal) and walking 1-3 edges in either direction, plus an optional class
constraint `?x a C` and one form: a list (SELECT), ASK, COUNT, a numeric or date FILTER, a superlative
(ORDER BY ... LIMIT 1) or a label filter (CONTAINS). The SPARQL text follows the shapes of
`nmt_sparql.data.generate` for the same meaning (`?x` the answer, `?y`, `?z`... the inner nodes, `?v`
a compared value, the class triple first), so one meaning is always written one way.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
FORMS = ("select", "ask", "count", "filter", "superlative", "contains")
INNER_VARIABLES = ("?y", "?z", "?w", "?u", "?t", "?r")


@dataclass(frozen=True)
class Step:
    """One edge of a path, read from the answer outwards: `forward` when the nearer node is the subject."""

    prop: str
    forward: bool


@dataclass(frozen=True)
class Path:
    """Edges from the answer variable out to `anchor`, the KB term the question names."""

    steps: tuple[Step, ...]
    anchor: ox.NamedNode | ox.Literal


@dataclass(frozen=True)
class QueryGraph:
    """A synthesized query: its constraints on `?x` and its form.

    `value_prop` is the compared/ordered property of `filter` and `superlative`; `op` is `>`/`<` for
    a filter and `DESC`/`ASC` for a superlative; `threshold` the compared number (a year for dates) or
    the CONTAINS word; `target` the entity an ASK puts in place of `?x`.
    """

    form: str
    paths: tuple[Path, ...] = ()
    answer_class: str | None = None
    value_prop: str | None = None
    op: str | None = None
    threshold: str | None = None
    date: bool = False
    target: ox.NamedNode | None = None

    @property
    def hops(self) -> int:
        longest = max((len(p.steps) for p in self.paths), default=0)
        return max(longest, 1 if self.value_prop or self.form == "contains" else 0)

    @property
    def edges(self) -> int:
        extra = (self.answer_class is not None) + (self.value_prop is not None) + (self.form == "contains")
        return sum(len(p.steps) for p in self.paths) + extra

    @property
    def shape(self) -> str:
        """`chain2`, `star1x2`, `class`... with `+class` when the answer's class is constrained."""
        lengths = sorted(len(p.steps) for p in self.paths)
        if not lengths:
            base = "class"
        elif len(lengths) == 1:
            base = f"chain{lengths[0]}"
        else:
            base = "star" + "x".join(map(str, lengths))
        return base + ("+class" if self.answer_class and self.paths else "")

    def patterns(self) -> list[str]:
        """The triple patterns of the WHERE clause, in canonical order."""
        answer = f"<{self.target.value}>" if self.target is not None else "?x"
        where = [f"{answer} a <{self.answer_class}>"] if self.answer_class else []
        inner = iter(INNER_VARIABLES)
        for path in self.paths:
            nodes = [answer] + [next(inner) for _ in path.steps[1:]] + [term_text(path.anchor)]
            triples = [
                f"{nodes[i]} <{s.prop}> {nodes[i + 1]}"
                if s.forward
                else f"{nodes[i + 1]} <{s.prop}> {nodes[i]}"
                for i, s in enumerate(path.steps)
            ]
            if not any(s.forward for s in path.steps):
                triples.reverse()  # read from the named term to the answer, like generate.two_hop
            where += triples
        if self.value_prop:
            where.append(f"?x <{self.value_prop}> ?v")
        if self.form == "contains":
            where.append(f"?x <{LABEL}> ?l")
        return where

    def sparql(self) -> str:
        body = " . ".join(self.patterns())
        if self.form == "filter":
            value = f"YEAR(?v) {self.op} {self.threshold}" if self.date else f"?v {self.op} {self.threshold}"
            body += f" . FILTER({value})"
        elif self.form == "contains":
            body += f' . FILTER(CONTAINS(?l, "{self.threshold}"))'
        if self.form == "ask":
            return f"ASK WHERE {{ {body} }}"
        if self.form == "count":
            return f"SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE {{ {body} }}"
        if self.form == "superlative":
            return f"SELECT DISTINCT ?x WHERE {{ {body} }} ORDER BY {self.op}(?v) LIMIT 1"
        return f"SELECT DISTINCT ?x WHERE {{ {body} }}"


def term_text(term: ox.NamedNode | ox.Literal) -> str:
    """A term as SPARQL text (N-Triples form is valid SPARQL)."""
    return f"<{term.value}>" if isinstance(term, ox.NamedNode) else str(term)
