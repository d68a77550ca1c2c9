"""Gold answers: queried once and cached atomically; dataset-carried answers are converted, not queried."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from nmt_sparql.core.record import Example, RecordError
from nmt_sparql.execution import Answer, EmbeddedStore, gold_answers, gold_cache_path
from nmt_sparql.execution.answer import answer_from_sparql_json
from nmt_sparql.execution.gold import gold_query_text

TTL = """<http://dbpedia.org/resource/Kubrick> <http://dbpedia.org/ontology/director> <http://dbpedia.org/resource/A> .
<http://dbpedia.org/resource/B> <http://dbpedia.org/ontology/director> <http://dbpedia.org/resource/Kubrick> .
<http://dbpedia.org/resource/C> <http://dbpedia.org/ontology/director> <http://dbpedia.org/resource/Kubrick> .
"""


class CountingStore(EmbeddedStore):
    """Counts the queries that reach the store."""

    def __init__(self, files: Sequence[Path]):
        super().__init__(files, prefixes="dbpedia")
        self.sent: list[str] = []

    def _run(self, sparql: str, form: str) -> Answer:
        self.sent.append(sparql)
        return super()._run(sparql, form)


@pytest.fixture
def kb(tmp_path: Path) -> CountingStore:
    data = tmp_path / "kb.nt"
    data.write_text(TTL, encoding="utf-8")
    return CountingStore([data])


def _examples() -> list[Example]:
    return [
        Example("1", "How many films did Kubrick direct?",
                "SELECT DISTINCT COUNT(?uri) WHERE { ?uri <http://dbpedia.org/ontology/director> "
                "<http://dbpedia.org/resource/Kubrick> . }", "dbpedia"),
        Example("2", "Is A directed by Kubrick?", "ASK WHERE { dbr:Kubrick dbo:director dbr:A }", "dbpedia"),
        Example("3", "Broken", "SELECT ?x WHERE { ?x", "dbpedia"),
        Example("4", "QALD", "SELECT ?uri WHERE { ?uri ?p ?o }", "dbpedia", answers=[
            {"head": {"vars": ["uri"]}, "results": {"bindings": [
                {"uri": {"type": "uri", "value": "http://dbpedia.org/resource/X"}},
                {"uri": {"type": "uri", "value": "http://dbpedia.org/resource/X"}}]}}]),
        Example("5", "QALD ask", "ASK { ?s ?p ?o }", "dbpedia", answers=[{"head": {}, "boolean": False}]),
    ]  # fmt: skip


def test_gold_queried_once_then_cached(kb: CountingStore, tmp_path: Path) -> None:
    cache = gold_cache_path(tmp_path / "test.jsonl")
    assert cache.name == "test.gold_answers.json"
    first = gold_answers(_examples(), kb, cache, progress=False)
    assert len(kb.sent) == 3  # examples 4 and 5 carry their answers
    assert first["1"].number() == 2  # Virtuoso COUNT shorthand rewritten to standard SPARQL
    assert first["2"].boolean is True
    assert first["3"].error is not None
    assert first["4"].rows == (("http://dbpedia.org/resource/X",),) * 2
    assert first["5"].kind == "ask" and first["5"].boolean is False
    (stored,) = json.loads(cache.read_text(encoding="utf-8"))["kbs"].values()
    assert set(stored) == {"1", "2"}  # the failed gold query is not cached
    assert not list(tmp_path.glob(".*.tmp"))

    second = gold_answers(_examples(), kb, cache, progress=False)
    assert len(kb.sent) == 4  # only the failed one is tried again
    assert {k: v for k, v in second.items() if k != "3"} == {k: v for k, v in first.items() if k != "3"}


def test_changed_gold_query_is_recomputed(kb: CountingStore, tmp_path: Path) -> None:
    cache = tmp_path / "g.json"
    gold_answers(_examples()[:2], kb, cache, progress=False)
    changed = _examples()[:2]
    changed[1].query = "ASK WHERE { dbr:Kubrick dbo:director dbr:B }"
    again = gold_answers(changed, kb, cache, progress=False)
    assert len(kb.sent) == 3 and again["2"].boolean is False


def test_no_kb_needed_when_all_answers_are_carried(tmp_path: Path) -> None:
    carried = _examples()[3:]
    assert gold_answers(carried, None, tmp_path / "g.json", progress=False)["5"].boolean is False
    with pytest.raises(ValueError, match="need a knowledge base"):
        gold_answers(_examples()[:1], None, None, progress=False)


def test_bad_carried_answers_and_cache_are_named(kb: CountingStore, tmp_path: Path) -> None:
    bad = Example("9", "q", "ASK {}", "dbpedia", answers=[{"results": {"bindings": "nope"}}])
    with pytest.raises(RecordError, match="'answers'"):
        gold_answers([bad], kb, None, progress=False)
    cache = tmp_path / "g.json"
    cache.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="g.json"):
        gold_answers(_examples()[:1], kb, cache, progress=False)


def test_real_qald_answers_convert() -> None:
    path = Path(__file__).resolve().parents[2] / "shared/datasets/qald/qald-9-train-multilingual.json"
    if not path.exists():
        pytest.skip("QALD copy not present (conversion is also pinned by inline fixtures above)")
    questions = json.loads(path.read_text(encoding="utf-8"))["questions"]
    answers = [answer_from_sparql_json(q["answers"][0]) for q in questions]
    assert len(answers) == 408
    assert all(a.ok for a in answers)
    assert sum(a.kind == "ask" for a in answers) > 0 and sum(a.kind == "select" for a in answers) > 300


def test_cached_answers_belong_to_the_kb_that_gave_them(kb: CountingStore, tmp_path: Path) -> None:
    """An empty KB's answers must not stand in for the real KB's (issue #13, item 2)."""
    cache = tmp_path / "g.json"
    empty_file = tmp_path / "empty.nt"
    empty_file.write_text("", encoding="utf-8")
    empty = CountingStore([empty_file])
    assert gold_answers(_examples()[:1], empty, cache, progress=False)["1"].number() == 0
    assert gold_answers(_examples()[:1], kb, cache, progress=False)["1"].number() == 2
    assert len(kb.sent) == 1
    assert gold_answers(_examples()[:1], empty, cache, progress=False)["1"].number() == 0
    assert len(empty.sent) == 1  # both KBs' answers stay cached side by side
    assert empty.identity() != kb.identity() and kb.identity().startswith("embedded:sha256:")


def test_cache_without_kb_identity_is_recomputed(kb: CountingStore, tmp_path: Path) -> None:
    cache = tmp_path / "g.json"
    text = gold_query_text(_examples()[0])
    old = {
        "format": "nmt-sparql gold answers v1",
        "answers": {"1": {"query": text, "answer": {"kind": "ask"}}},
    }
    cache.write_text(json.dumps(old), encoding="utf-8")
    assert gold_answers(_examples()[:1], kb, cache, progress=False)["1"].number() == 2
    assert len(kb.sent) == 1


def test_a_kb_of_unknown_identity_is_never_cached(tmp_path: Path) -> None:
    class Anonymous(CountingStore):
        def identity(self) -> None:
            return None

    data = tmp_path / "kb.nt"
    data.write_text(TTL, encoding="utf-8")
    kb, cache = Anonymous([data]), tmp_path / "g.json"
    for _ in range(2):
        assert gold_answers(_examples()[:1], kb, cache, progress=False)["1"].number() == 2
    assert len(kb.sent) == 2 and not cache.exists()
