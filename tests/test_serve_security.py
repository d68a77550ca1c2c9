"""`serve` and `translate` under hostile input: no request makes the server contact another host, and
one expensive query neither freezes the server nor outlives its deadline."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import torch
from loopback_listener import Listener, app_on_loopback, loopback_listener
from test_export_roundtrip import make_run

from nmt_sparql.annotation.units import UnitError
from nmt_sparql.cli import main
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.server import create_app
from nmt_sparql.serving.translator import Translator

CARTESIAN = "SELECT (COUNT(*) AS ?c) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
KB_TIMEOUT_S = 5.0


def injection(listener: Listener) -> str:
    """The question of issue #13 whose «unit» smuggles a SERVICE call into the query."""
    return f"Which country is «?y . SERVICE <{listener.url}> {{ ?x ?p ?o }} }} #» in?"


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    with loopback_listener() as running:
        yield running


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("secure")
    return export_model(make_run(root / "run"), root / "export")


@pytest.fixture(scope="module")
def server(export: Path) -> Iterator[tuple[str, Translator]]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a shared 2-core CI box: spinning intra-op threads cost seconds per decode
    translator = Translator.from_pretrained(export, kb="embedded:bundled")
    translator.kb.timeout_s = KB_TIMEOUT_S
    with app_on_loopback(create_app(translator)) as url:
        yield url, translator
    translator.close()
    torch.set_num_threads(threads)


def _script(monkeypatch: pytest.MonkeyPatch, translator: Translator, sparql: dict[str, str]) -> None:
    """Make the model "generate" the given query for the given question (what a trained model could do)."""
    real = translator.translate

    def translate(questions, **kwargs):  # type: ignore[no-untyped-def]
        results = real(questions, **kwargs)
        for result in results:
            result.sparql = sparql.get(result.question, result.sparql)
        return results

    monkeypatch.setattr(translator, "translate", translate)


@pytest.mark.parametrize("annotate", [True, False])
def test_service_unit_is_a_422_and_nobody_is_called(
    server: tuple[str, Translator], listener: Listener, annotate: bool
) -> None:
    body = {"questions": ["Who is the spouse of Alfred Nobel?", injection(listener)], "execute": True}
    response = httpx.post(f"{server[0]}/translate", json={**body, "annotate": annotate}, timeout=30)
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "questions", 1] and "SERVICE" in error["msg"]
    assert listener.requests == []


def test_translate_command_and_api_refuse_the_unit(
    export: Path, listener: Listener, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(injection(listener) + "\n"))
    with pytest.raises(SystemExit):
        main(["translate", f"export={export}", "kb=embedded:bundled"])
    captured = capsys.readouterr()
    assert "UnitError: unit «?y . SERVICE" in captured.err and captured.out == ""
    translator = Translator.from_pretrained(export, kb="embedded:bundled")
    try:
        for annotate in (True, False):
            with pytest.raises(UnitError, match="SERVICE"):
                translator.translate([injection(listener)], annotate=annotate, answers=True)
    finally:
        translator.close()
    assert listener.requests == []


def test_generated_service_query_is_refused_not_run(
    server: tuple[str, Translator], listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, translator = server
    question = "Who is the spouse of Alfred Nobel?"
    _script(
        monkeypatch, translator, {question: f"SELECT * WHERE {{ SERVICE <{listener.url}> {{ ?s ?p ?o }} }}"}
    )
    response = httpx.post(f"{url}/translate", json={"questions": [question], "execute": True}, timeout=30)
    assert response.status_code == 200
    answer = response.json()["results"][0]["answer"]
    assert answer["kind"] == "error" and "refused" in answer["error"]
    assert listener.requests == []


def test_expensive_query_times_out_while_the_server_keeps_answering(
    server: tuple[str, Translator], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, translator = server
    expensive = "How many things are there at all?"
    _script(monkeypatch, translator, {expensive: CARTESIAN})
    outcome: dict[str, object] = {}

    def ask() -> None:
        start = time.monotonic()
        outcome["response"] = httpx.post(
            f"{url}/translate", json={"questions": [expensive], "execute": True}, timeout=60
        )
        outcome["seconds"] = time.monotonic() - start

    slow = threading.Thread(target=ask)
    slow.start()
    time.sleep(0.5)  # the query is running in the KB worker now
    for _ in range(3):
        assert httpx.get(f"{url}/health", timeout=5).status_code == 200
        plain = httpx.post(
            f"{url}/translate", json={"questions": ["Who is the spouse of Alfred Nobel?"]}, timeout=5
        )
        assert plain.status_code == 200
    assert slow.is_alive()  # answered while the expensive query still held the KB worker
    slow.join(timeout=30)
    response = outcome["response"]
    assert isinstance(response, httpx.Response) and response.status_code == 200
    answer = response.json()["results"][0]["answer"]
    assert answer["kind"] == "error" and "QueryTimeout" in answer["error"]
    assert KB_TIMEOUT_S <= float(outcome["seconds"]) < KB_TIMEOUT_S + 5  # type: ignore[arg-type]
    cheap = translator.execute("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert cheap["kind"] == "select" and int(cheap["rows"][0][0]) > 0  # a fresh worker took over
