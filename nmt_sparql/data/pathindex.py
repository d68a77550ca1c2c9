"""The KB's facts indexed both ways, and the nodes a query-graph path stands for.

Synthesis grows chains layer by layer over it (data/synthesize.py); the wording asks it which entities
a path's middle node stands for, to name them by their class (data/wording.py).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import pyoxigraph as ox

from nmt_sparql.data.generate import KBGraph
from nmt_sparql.data.querygraph import Path, Step

MAX_INNER = 60  # nodes an inner variable may range over before a chain is too vague to extend


def term_key(term: ox.NamedNode | ox.Literal) -> str:
    return term.value if isinstance(term, ox.NamedNode) else str(term)


@dataclass
class FactIndex:
    """The KB's facts indexed both ways, keyed by IRI (entities) or N-Triples text (literals)."""

    g: KBGraph
    objects: dict[tuple[str, str], list[ox.NamedNode | ox.Literal]] = field(default_factory=dict)
    subjects: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    edges: dict[str, list[Step]] = field(default_factory=dict)  # entity -> steps out of it (deduplicated)

    @classmethod
    def build(cls, g: KBGraph) -> FactIndex:
        objects: dict[tuple[str, str], list] = defaultdict(list)
        subjects: dict[tuple[str, str], list[str]] = defaultdict(list)
        edges: dict[str, set[Step]] = defaultdict(set)
        for p, pairs in g.facts.items():
            for s, o in pairs:
                objects[(s, p)].append(o)
                subjects[(p, term_key(o))].append(s)
                edges[s].add(Step(p, True))
                if isinstance(o, ox.NamedNode):
                    edges[o.value].add(Step(p, False))
        return cls(g, dict(objects), dict(subjects), {e: sorted(s, key=str) for e, s in edges.items()})

    def neighbours(self, node: str, step: Step) -> list[ox.NamedNode | ox.Literal]:
        """Nodes one `step` away from `node` (the step read from `node` outwards)."""
        if step.forward:
            return self.objects.get((node, step.prop), [])
        return [ox.NamedNode(s) for s in self.subjects.get((step.prop, node), [])]

    def inward(self, nodes: set[str], step: Step) -> set[str]:
        """Nodes from which `step` leads into `nodes`: one layer closer to the answer."""
        found: set[str] = set()
        for n in nodes:
            if step.forward:
                found.update(self.subjects.get((step.prop, n), []))
            elif not n.startswith('"'):
                found.update(term_key(o) for o in self.objects.get((n, step.prop), []))
        return found

    def answers(self, path: Path) -> set[str]:
        nodes = {term_key(path.anchor)}
        for step in reversed(path.steps):
            nodes = self.inward(nodes, step)
            if len(nodes) > MAX_INNER * 10:
                break
        return nodes
