"""`translate` returns an explanation with each query; `serve` adds one when a request asks for it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from loopback_listener import app_on_loopback
from test_export_roundtrip import make_run

from nmt_sparql.cli import main
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.server import create_app
from nmt_sparql.serving.translator import Translator

QUESTION = "What is the birth date of Alfred Nobel?"


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("explain")
    return export_model(make_run(root / "run", index=True), root / "export")


@pytest.fixture(scope="module")
def translator(export: Path) -> Iterator[Translator]:
    translator = Translator.from_pretrained(export)
    yield translator
    translator.close()


def test_translator_names_iris_by_the_export_index_labels(translator: Translator) -> None:
    text = translator.explain("SELECT ?d WHERE { res:Alfred_Nobel ont:birthDate ?d }")
    assert text == "Find the birth date of Alfred Nobel."
    assert translator.explain("SELECT ?d WHERE {").startswith("Not explained: the query does not parse")


def test_translate_command_prints_an_explanation_per_query(
    export: Path, translator: Translator, capsys: pytest.CaptureFixture
) -> None:
    main(["translate", f"export={export}", f"question={QUESTION}"])
    line = json.loads(capsys.readouterr().out)
    assert line["explanation"] == translator.explain(line["sparql"])
    main(["translate", f"export={export}", f"question={QUESTION}", "explain=false"])
    assert "explanation" not in json.loads(capsys.readouterr().out)


def test_serve_explains_only_on_request(translator: Translator) -> None:
    with app_on_loopback(create_app(translator)) as url:
        asked = httpx.post(f"{url}/translate", json={"questions": [QUESTION], "explain": True}, timeout=30)
        plain = httpx.post(f"{url}/translate", json={"questions": [QUESTION]}, timeout=30)
    (result,) = asked.json()["results"]
    assert result["explanation"] == translator.explain(result["sparql"])
    assert plain.json()["results"][0]["explanation"] is None
