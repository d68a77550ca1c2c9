"""EndpointKB against a real SPARQL server: the `oxigraph` CLI (test extra) serving on loopback."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from nmt_sparql.execution import EndpointKB, UnsafeQueryError, execute_many, kb_from_config
from nmt_sparql.sparql.prefixes import register_prefix_map

DEFAULT = """@prefix ex: <http://ex.org/> .
ex:Kubrick ex:directed ex:Shining, ex:Lolita .
ex:Shining ex:year 1980 ; ex:title "The Shining"@en .
"""
NAMED = "<http://ex.org/Nolan> <http://ex.org/directed> <http://ex.org/Memento> .\n"
PREFIX = "PREFIX ex: <http://ex.org/> "


def _oxigraph() -> str:
    found = shutil.which("oxigraph") or shutil.which("oxigraph", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail("the `oxigraph` CLI is missing: install the test extra (pip install -e '.[test]')")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    exe = _oxigraph()
    root = tmp_path_factory.mktemp("oxigraph")
    (root / "default.ttl").write_text(DEFAULT, encoding="utf-8")
    (root / "named.nt").write_text(NAMED, encoding="utf-8")
    store = root / "store"
    run = {"check": True, "capture_output": True, "timeout": 60}
    subprocess.run([exe, "load", "--location", str(store), "--file", str(root / "default.ttl")], **run)
    subprocess.run(
        [
            exe,
            "load",
            "--location",
            str(store),
            "--file",
            str(root / "named.nt"),
            "--graph",
            "http://ex.org/g2",
        ],
        **run,
    )
    port = _free_port()
    log = (root / "server.log").open("wb")
    server = subprocess.Popen(
        [exe, "serve", "--location", str(store), "--bind", f"127.0.0.1:{port}", "--timeout-s", "10"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/query"
    try:
        deadline = time.monotonic() + 30
        while True:
            if server.poll() is not None:
                pytest.fail(
                    f"oxigraph serve exited with {server.returncode}: {(root / 'server.log').read_text()}"
                )
            try:
                with urllib.request.urlopen(url + "?query=ASK%7B%7D", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("oxigraph serve did not become ready within 30 s")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
        log.close()


def test_query_forms_through_the_endpoint(endpoint: str) -> None:
    kb = kb_from_config({"source": endpoint, "timeout_s": 10, "retries": 1})
    assert isinstance(kb, EndpointKB)
    films = kb.query(PREFIX + "SELECT ?f WHERE { ex:Kubrick ex:directed ?f } ORDER BY ?f")
    assert films.rows == (("http://ex.org/Lolita",), ("http://ex.org/Shining",))
    assert kb.query(PREFIX + "SELECT (COUNT(?f) AS ?n) WHERE { ?d ex:directed ?f }").number() == 2
    assert kb.query(PREFIX + "ASK { ex:Shining ex:year 1980 }").boolean is True
    assert kb.query(PREFIX + "SELECT ?t WHERE { ex:Shining ex:title ?t }").rows == (("The Shining",),)
    graph = kb.query(PREFIX + "CONSTRUCT { ?f ex:by ex:Kubrick } WHERE { ex:Kubrick ex:directed ?f }")
    assert graph.kind == "graph" and len(graph.values()) == 2
    assert kb.query("DESCRIBE <http://ex.org/Shining>").kind == "graph"


def test_default_graph_selects_the_named_graph(endpoint: str) -> None:
    kb = EndpointKB(endpoint, timeout_s=10, default_graph="http://ex.org/g2")
    assert kb.query(PREFIX + "SELECT ?d WHERE { ?d ex:directed ?f }").rows == (("http://ex.org/Nolan",),)


def test_bad_query_is_an_error_answer_and_updates_never_reach_the_server(endpoint: str) -> None:
    kb = EndpointKB(endpoint, timeout_s=10, retries=2, backoff_s=0.01)
    bad = kb.query("SELECT ?x WHERE { ?x ")
    assert bad.kind == "error" and bad.error
    with pytest.raises(UnsafeQueryError):
        kb.query("DELETE WHERE { ?s ?p ?o }")
    answers = execute_many(
        kb, ["DROP ALL", "CLEAR DEFAULT", PREFIX + "ASK { ex:Kubrick ?p ?o }"], workers=2, progress=False
    )
    assert [a.ok for a in answers] == [False, False, True] and answers[2].boolean is True


def test_exists_through_the_endpoint(endpoint: str) -> None:
    kb = EndpointKB(
        endpoint, timeout_s=10, prefixes=register_prefix_map("test-endpoint", {"ex": "http://ex.org/"})
    )
    assert kb.exists(["ex:Kubrick", "ex:directed", "ex:Lolita", "ex:Fake", "<http://ex.org/Nolan>"]) == {
        "ex:Kubrick",
        "ex:directed",
        "ex:Lolita",
    }
