"""The one interface every knowledge-base backend implements, and batch execution over it.

Evaluation runs thousands of model-generated queries: one bad query (syntax error, timeout,
refused update) must become a recorded error, not a crash, and every backend must apply the
same update refusal. `KnowledgeBase.query` therefore checks safety itself and turns backend
failures into `Answer.error`; subclasses only implement `_run` and `_existing_iris`. The same check
refuses SERVICE / FROM targets outside `allow_hosts` (execution/safety.py), so no backend is made to
contact a host the operator did not list.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor

from tqdm.auto import tqdm

from nmt_sparql.execution.answer import Answer
from nmt_sparql.execution.safety import UnsafeQueryError, allowed_hosts, query_form
from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map


def iri_of_token(token: str, prefixes: PrefixMap) -> str | None:
    """The full IRI of a model URI token (`dbr:X` or `<http://...>`), None when its prefix is unknown."""
    if token.startswith("<") and token.endswith(">") and len(token) > 2:
        return token[1:-1]
    if ":" not in token or token.startswith(('"', "?")):
        return None
    prefix, local = token.split(":", 1)
    return prefixes.expand(prefix, re.sub(r"\\(.)", r"\1", local))


class ExistenceCheckError(RuntimeError):
    """The KB could not tell which IRIs exist (an endpoint down, failing or answering garbage)."""


class KnowledgeBase(ABC):
    """Runs read-only SPARQL queries and tells which IRIs exist (for "fake URI" detection, §VI).

    `allow_hosts`: the hosts a query's SERVICE / FROM may name (operator setting `kb_allow_hosts`);
    none by default. Assign `kb.allow_hosts = allowed_hosts([...])` to change it later.
    """

    def __init__(self, prefixes: str | PrefixMap = "generic", allow_hosts: Iterable[str] | str | None = ()):
        self.prefixes = prefix_map(prefixes) if isinstance(prefixes, str) else prefixes
        self.allow_hosts = allowed_hosts(allow_hosts)

    def query(self, sparql: str) -> Answer:
        """Run one query; UnsafeQueryError for update text or a host that is not allowed, an Answer with
        `error` for any failure."""
        form = query_form(sparql, self.allow_hosts)
        try:
            return self._run(sparql, form)
        except Exception as err:  # noqa: BLE001 - any backend failure is a recorded wrong answer
            return Answer.failed(f"{type(err).__name__}: {err}")

    def exists(self, iri_tokens: Iterable[str]) -> set[str]:
        """The tokens among `iri_tokens` whose IRI occurs in the KB (as subject, predicate or object);
        ExistenceCheckError when the KB cannot answer."""
        by_iri: dict[str, list[str]] = {}
        for token in set(iri_tokens):
            iri = iri_of_token(token, self.prefixes)
            if iri is not None:
                by_iri.setdefault(iri, []).append(token)
        found = self._existing_iris(sorted(by_iri)) if by_iri else set()
        return {token for iri in found for token in by_iri.get(iri, ())}

    def identity(self) -> str | None:
        """What tells this KB's answers apart from another's (an endpoint URL, a hash of the RDF files):
        cached gold answers are reused only for the same identity, and never for None (unknown)."""
        return None

    @abstractmethod
    def _run(self, sparql: str, form: str) -> Answer:
        """Execute an already-checked query of the given form (SELECT/ASK/CONSTRUCT/DESCRIBE)."""

    @abstractmethod
    def _existing_iris(self, iris: Sequence[str]) -> set[str]:
        """The subset of `iris` used anywhere in the KB."""

    @abstractmethod
    def close(self) -> None:
        """Release the backend (store handle, connections)."""

    def __enter__(self) -> KnowledgeBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _safe_query(kb: KnowledgeBase, sparql: str) -> Answer:
    try:
        return kb.query(sparql)
    except UnsafeQueryError as err:
        return Answer.failed(str(err))


def execute_many(
    kb: KnowledgeBase,
    queries: Sequence[str],
    workers: int = 1,
    progress: bool = True,
    desc: str = "queries",
) -> list[Answer]:
    """Answers of `queries` in order; refusals and failures are recorded in `Answer.error`.

    `workers > 1` overlaps waiting on an endpoint; an embedded store gains little from it.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    bar = tqdm(total=len(queries), desc=desc, disable=not progress, unit="q")
    try:
        if workers == 1:
            answers = []
            for q in queries:
                answers.append(_safe_query(kb, q))
                bar.update()
            return answers
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(_safe_query, kb, q) for q in queries]
            for future in futures:
                future.add_done_callback(lambda _f: bar.update())
            return [f.result() for f in futures]
    finally:
        bar.close()
