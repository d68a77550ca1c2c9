"""An embedded knowledge base: RDF files loaded into pyoxigraph, in memory or in an on-disk store.

This is what makes answer metrics run offline (tests, the default run, a user's own RDF data):
no server to start. pyoxigraph has no query timeout or cancellation, and one aggregate or ORDER BY
over a cartesian product runs for minutes inside the engine. So queries run in a worker process
(execution/store_worker.py) that holds its own store and is killed at the deadline: `timeout_s` is
hard, whatever the query does. The worker lives as long as the store (one process, not one per
query, so a query costs a pipe round trip); after a kill a new one starts loading at once.

Memory: an in-memory store is loaded by the worker; the parent loads a second copy only if something
asks for `store` (the label index that tags raw questions), and a timeout costs one reload. The bundled
KB (10k triples) takes a few MB and loads in well under a second; a store of LC-QuAD size (millions of
triples) takes GBs per copy and minutes per load: give it an on-disk `location`, which the worker and
`store` open read-only (the OS page cache is shared and a restart does not reload anything).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from nmt_sparql.execution.answer import Answer, literal_string
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.store_worker import StoreWorker, WorkerExited, term_cell
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
    return _cell(term_cell(term, ox))


def _cell(value: Any) -> str | None:
    """A worker's result cell (null, an IRI or blank-node string, [lexical, datatype]) as an Answer value."""
    if isinstance(value, list):
        return literal_string(str(value[0]), str(value[1]))
    return None if value is None else str(value)


def _load(store: ox.Store, files: Sequence[Path]) -> None:
    for path in files:
        try:
            store.load(path=str(path), format=rdf_format(path))
        except SyntaxError as err:
            raise ValueError(f"{path}: invalid RDF: {err}") from None


class EmbeddedStore(KnowledgeBase):
    """pyoxigraph store over `files`; `location` keeps it on disk (files load only into an empty store).

    `timeout_s` (None: no limit) bounds each query from the moment the worker receives it; concurrent
    callers share the one worker and wait their turn.
    """

    def __init__(
        self,
        files: Iterable[str | Path] = (),
        location: str | Path | None = None,
        prefixes: str | PrefixMap = "generic",
        timeout_s: float | None = 30.0,
        allow_hosts: Iterable[str] | str | None = (),
    ):
        super().__init__(prefixes, allow_hosts)
        if timeout_s is not None and timeout_s < 0:
            raise ValueError(f"timeout_s must be >= 0 or None, got {timeout_s}")
        self.timeout_s = timeout_s
        self.files = [Path(f) for f in files]
        for path in self.files:
            if not path.is_file():
                raise FileNotFoundError(f"RDF file not found: {path}")
            rdf_format(path)
        self.location = None if location is None else Path(location)
        if self.location is not None:
            writer = ox.Store(str(self.location))  # created if missing; loaded once, then only read
            if self.files and len(writer) == 0:
                _load(writer, self.files)
            writer.flush()
            del writer  # releases the directory lock: every reader opens it read-only
        self._setup = {
            "location": None if self.location is None else str(self.location),
            "files": [[str(p), rdf_format(p).media_type] for p in self.files],
        }
        self._identity: str | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._local: ox.Store | None = None
        self._worker: StoreWorker | None = StoreWorker(self._setup)
        try:
            self._worker.wait_ready()
        except (ValueError, WorkerExited):
            self._worker.kill()
            raise

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
    def store(self) -> ox.Store | None:
        """An in-process pyoxigraph handle on the same data, for direct pattern access (label index);
        None once closed. Built on first use: for an in-memory KB it is a second copy (see module doc).
        Queries given to `query` never run on it."""
        with self._lock:
            if self._closed:
                return None
            if self._local is None:
                if self.location is not None:
                    self._local = ox.Store.read_only(str(self.location))
                else:
                    self._local = ox.Store()
                    _load(self._local, self.files)
            return self._local

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        """The worker's reply; QueryTimeout (after killing and replacing the worker) past the deadline."""
        with self._lock:
            if self._closed:
                raise RuntimeError("EmbeddedStore is closed")
            if self._worker is None:
                self._worker = StoreWorker(self._setup)
            worker = self._worker
            try:
                return worker.call(request, self.timeout_s)
            except TimeoutError:
                worker.kill()
                self._worker = StoreWorker(self._setup)  # loads while the caller moves on
                raise QueryTimeout(
                    f"query ran past {self.timeout_s}s; its worker process was stopped"
                ) from None
            except (WorkerExited, ValueError):
                worker.kill()
                self._worker = None
                raise

    def _run(self, sparql: str, form: str) -> Answer:
        reply = self._call({"op": "query", "sparql": sparql})
        if "error" in reply:
            return Answer.failed(str(reply["error"]))
        if reply["kind"] == "ask":
            return Answer(kind="ask", boolean=bool(reply["boolean"]))
        rows = tuple(tuple(_cell(v) for v in row) for row in reply["rows"])
        if reply["kind"] == "graph":
            return Answer(kind="graph", variables=("subject", "predicate", "object"), rows=rows)
        return Answer(kind="select", variables=tuple(reply["variables"]), rows=rows)

    def _existing_iris(self, iris: Sequence[str]) -> set[str]:
        reply = self._call({"op": "exists", "iris": list(iris)})
        if "error" in reply:
            raise RuntimeError(f"existence check failed: {reply['error']}")
        return set(reply["found"])

    def close(self) -> None:
        """Stop the worker process and drop the in-process handle (the on-disk data stays)."""
        with self._lock:
            self._closed = True
            self._local = None
            if self._worker is not None:
                self._worker.close()
                self._worker = None
