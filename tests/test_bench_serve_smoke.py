"""scripts/bench_serve.py runs end to end on loopback with tiny numbers and reports a clean soak."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import load_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script("bench_serve")


def test_plan_places_each_hostile_kind_at_seeded_positions(bench: ModuleType) -> None:
    requests = bench.plan(60, 0.1, ["Who?", "What?"], seed=3)
    kinds = [kind for kind, _ in requests]
    assert len(requests) == 60 and set(kinds) - {"benign"} == set(bench.HOSTILE)
    assert kinds == [kind for kind, _ in bench.plan(60, 0.1, ["Who?", "What?"], seed=3)]
    assert all(
        body["json"]["questions"][0] in ("Who?", "What?") for kind, body in requests if kind == "benign"
    )


@pytest.mark.slow
def test_forty_requests_four_way_with_hostile_ones(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "serve.json"
    argv = ["--requests", "40", "--concurrency", "4", "--hostile", "0.15", "--warmup", "4"]
    report = bench.main(argv + ["--questions", "40", "--out", str(out)])
    assert json.loads(out.read_text()) == report
    assert report["requests"] == 40 and report["five_xx"] == 0 and report["no_response"] == 0
    assert report["listener_requests"] == 0
    hostile = {k: v for k, v in report["status_by_kind"].items() if k != "benign"}
    assert len(hostile) == 6
    for kind in ("service_unit", "update_unit", "huge_question", "many_questions", "malformed_json"):
        assert set(hostile[kind]) == {"422"}, kind
    assert set(report["status_by_kind"]["benign"]) == {"200"}
    assert 0 < report["latency_benign"]["p50_ms"] <= report["latency_benign"]["p95_ms"]
    assert report["server_rss_mb"]["start"] > 0 and report["kb_worker_rss_mb"]["start"] > 0


@pytest.mark.slow
def test_throughput_compares_one_export_with_several_together(bench: ModuleType, tmp_path: Path) -> None:
    export, _ = bench.make_export(tmp_path / "model", 20)
    questions = tmp_path / "questions.jsonl"
    record = {"question": "Who is the spouse of Alfred Nobel?", "query": "select ?x where { ?x ?p ?o }"}
    questions.write_text(json.dumps(record) + "\n", encoding="utf-8")
    argv = ["--throughput", "--export", str(export), "--with", str(export), "--quantize", "none"]
    argv += ["--clients", "2", "--per-client", "2", "--rounds", "1", "--warmup", "2"]
    report = bench.main(argv + ["--questions-file", str(questions), "--out", str(tmp_path / "t.json")])
    assert report["ok"] and {row["setting"] for row in report["rows"]} == {"none, one", "none, 2 together"}
    assert all(row["questions"] == 4 and row["questions_per_s"] > 0 for row in report["rows"])
    assert report["settings"]["with_exports"] == [str(export)]


def test_a_bad_questions_file_is_named_with_its_line_and_field(bench: ModuleType, tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"question": "Who?"}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"questions\.jsonl.*query"):
        bench.main(["--throughput", "--questions-file", str(questions), "--quantize", "none"])
    questions.write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"questions\.jsonl: no questions"):
        bench.main(["--throughput", "--questions-file", str(questions), "--quantize", "none"])
