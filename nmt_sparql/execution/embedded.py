"""An embedded knowledge base: RDF files loaded into pyoxigraph, in memory or in an on-disk store.

This is what makes answer metrics run offline (tests, the default run, a user's own RDF data):
no server to start. pyoxigraph 0.5 has no query timeout or cancellation, so `timeout_s` is a
deadline checked between result rows: it stops a query that streams too many rows, but a single
step that blocks inside the engine (a huge ORDER BY or GROUP BY) runs to its end. Use an endpoint
(`oxigraph serve --timeout-s`) where hard limits matter.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import pyoxigraph as ox

from nmt_sparql.execution.answer import Answer, literal_string
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.sparql.prefixes import PrefixMap


class QueryTimeout(TimeoutError):
    """The query ran past its deadline."""


def rdf_format(path: Path) -> ox.RdfFormat:
    """The RDF format of a file from its extension (`.ttl`, `.nt`, `.nq`, `.trig`, `.rdf`, ...)."""
    found = ox.RdfFormat.from_extension(path.suffix.lstrip(".").lower()) if path.suffix else None
    if found is None:
        raise ValueError(
            f"{path}: unknown RDF file extension {path.suffix!r} (use .ttl, .nt, .nq, .trig, .rdf)"
        )
    return found


def term_string(term: object) -> str | None:
    """A pyoxigraph term as the comparable value string of `Answer` (see answer.py)."""
    if term is None:
        return None
    if isinstance(term, ox.NamedNode):
        return term.value
    if isinstance(term, ox.BlankNode):
        return "_:" + term.value
    if isinstance(term, ox.Literal):
        return literal_string(term.value, term.datatype.value)
    return str(term)


class EmbeddedStore(KnowledgeBase):
    """pyoxigraph store over `files`; `location` keeps it on disk (files load only into an empty store)."""

    def __init__(
        self,
        files: Iterable[str | Path] = (),
        location: str | Path | None = None,
        prefixes: str | PrefixMap = "generic",
        timeout_s: float | None = 30.0,
    ):
        super().__init__(prefixes)
        self.timeout_s = timeout_s
        self.files = [Path(f) for f in files]
        for path in self.files:
            if not path.is_file():
                raise FileNotFoundError(f"RDF file not found: {path}")
            rdf_format(path)
        self.location = None if location is None else Path(location)
        self._identity: str | None = None
        self.store: ox.Store | None = ox.Store(str(location)) if location is not None else ox.Store()
        if self.files and len(self.store) == 0:
            for path in self.files:
                try:
                    self.store.load(path=str(path), format=rdf_format(path))
                except SyntaxError as err:
                    raise ValueError(f"{path}: invalid RDF: {err}") from None

    def identity(self) -> str:
        """sha256 of the RDF files' bytes (the bundled KB included), or the path of an on-disk store."""
        if self._identity is None:
            if self.files:
                digest = hashlib.sha256()
                for path in self.files:
                    with path.open("rb") as fh:
                        while chunk := fh.read(1 << 20):
                            digest.update(chunk)
                    digest.update(b"\0")  # file boundary
                self._identity = f"embedded:sha256:{digest.hexdigest()}"
            else:
                where = "memory" if self.location is None else str(self.location.resolve())
                self._identity = f"embedded:store:{where}"
        return self._identity

    @property
    def _store(self) -> ox.Store:
        if self.store is None:
            raise RuntimeError("EmbeddedStore is closed")
        return self.store

    def _deadline(self) -> float:
        return float("inf") if self.timeout_s is None else time.monotonic() + self.timeout_s

    def _check(self, deadline: float) -> None:
        if time.monotonic() > deadline:
            raise QueryTimeout(f"query ran past {self.timeout_s}s")

    def _run(self, sparql: str, form: str) -> Answer:
        deadline = self._deadline()
        result = self._store.query(sparql)
        if isinstance(result, ox.QueryBoolean):
            return Answer(kind="ask", boolean=bool(result))
        if isinstance(result, ox.QueryTriples):
            triples = []
            for triple in result:
                self._check(deadline)
                triples.append(
                    tuple(term_string(t) for t in (triple.subject, triple.predicate, triple.object))
                )
            return Answer(kind="graph", variables=("subject", "predicate", "object"), rows=tuple(triples))
        variables = tuple(v.value for v in result.variables)
        rows = []
        for solution in result:
            self._check(deadline)
            rows.append(tuple(term_string(solution[i]) for i in range(len(variables))))
        self._check(deadline)
        return Answer(kind="select", variables=variables, rows=tuple(rows))

    def _existing_iris(self, iris: Sequence[str]) -> set[str]:
        found = set()
        for iri in iris:
            try:
                node = ox.NamedNode(iri)
            except ValueError:
                continue
            patterns = ((node, None, None, None), (None, node, None, None), (None, None, node, None))
            if any(next(iter(self._store.quads_for_pattern(*p)), None) is not None for p in patterns):
                found.add(iri)
        return found

    def close(self) -> None:
        """Flush an on-disk store and drop the handle (RocksDB allows one writer per directory)."""
        if self.store is not None and self.location is not None:
            self.store.flush()
        self.store = None
