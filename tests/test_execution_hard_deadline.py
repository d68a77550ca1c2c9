"""The embedded store's timeout is hard: aggregates and ORDER BY stop at the deadline too (the query
runs in a worker process that is killed), and the store keeps answering afterwards."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nmt_sparql.data.generate import bundled_kb_path
from nmt_sparql.execution import EmbeddedStore, execute_many

SLOW = {
    "count": "SELECT (COUNT(*) AS ?c) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }",
    "order": "SELECT ?a ?d WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f LIMIT 1",
    "group": "SELECT ?c (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f } GROUP BY ?c",
}
COUNT_ALL = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(scope="module")
def kb() -> Iterator[EmbeddedStore]:
    with EmbeddedStore([bundled_kb_path()], timeout_s=1.0) as store:
        yield store


@pytest.mark.parametrize("name", sorted(SLOW))
def test_blocking_queries_stop_at_the_deadline(kb: EmbeddedStore, name: str) -> None:
    total = kb.query(COUNT_ALL).number()
    start = time.monotonic()
    answer = kb.query(SLOW[name])
    elapsed = time.monotonic() - start
    assert answer.error is not None and "QueryTimeout" in answer.error
    assert 1.0 <= elapsed < 4.0
    assert kb.query(COUNT_ALL).number() == total  # a fresh worker answers the next query


def test_concurrent_callers_share_the_worker(kb: EmbeddedStore) -> None:
    queries = [COUNT_ALL, SLOW["count"], "ASK { ?s ?p ?o }", COUNT_ALL]
    answers = execute_many(kb, queries, workers=3, progress=False)
    assert answers[0].number() == answers[3].number() and answers[0].number() > 0
    assert "QueryTimeout" in (answers[1].error or "")
    assert answers[2].boolean is True


def test_a_worker_killed_from_outside_is_replaced(kb: EmbeddedStore) -> None:
    assert kb._worker is not None
    kb._worker.wait_ready()
    os.kill(kb._worker.process.pid, signal.SIGKILL)
    failed = kb.query(COUNT_ALL)
    assert failed.error is not None and "worker process" in failed.error
    assert kb.query(COUNT_ALL).number() > 0


def test_on_disk_store_restarts_after_a_timeout(tmp_path: Path) -> None:
    with EmbeddedStore([bundled_kb_path()], location=tmp_path / "store", timeout_s=0.5) as kb:
        total = kb.query(COUNT_ALL).number()
        assert "QueryTimeout" in (kb.query(SLOW["count"]).error or "")
        assert kb.query(COUNT_ALL).number() == total
        assert kb.store is not None and len(kb.store) == total  # the in-process read-only handle


def test_close_stops_the_worker_process() -> None:
    kb = EmbeddedStore([bundled_kb_path()])
    assert kb._worker is not None
    pid = kb._worker.process.pid
    assert not _gone(pid)
    kb.close()
    assert _gone(pid)
    assert kb.store is None and "closed" in (kb.query(COUNT_ALL).error or "")
