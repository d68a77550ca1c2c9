"""`repair=true` through every door: the Python API, `nmt-sparql translate` and `serve` return the rounds."""

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

QUESTION = "Who is the spouse of Alfred Nobel?"


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repair")
    return export_model(make_run(root / "run", index=True), root / "export")


@pytest.fixture(scope="module")
def translator(export: Path) -> Iterator[Translator]:
    loaded = Translator.from_pretrained(export, kb="embedded:bundled")
    yield loaded
    loaded.close()


def test_translate_with_repair_returns_the_answer_and_the_rounds(translator: Translator) -> None:
    (plain,) = translator.translate([QUESTION], beam=3, n_best=3)
    assert len(plain.hypotheses) == 3 and "repair" not in plain.to_json()
    (repaired,) = translator.translate([QUESTION], beam=3, repair=True)
    data = repaired.to_json()
    assert "hypotheses" not in data and data["answer"]["kind"] in ("select", "ask", "error")
    rounds = data["repair"]["rounds"]
    assert 1 <= len(rounds) <= 5 and rounds[0]["number"] == 1
    assert [a["source"] for a in rounds[0]["attempts"]][0] == "hypothesis 1"
    assert (data["repair"]["answered_in"] is None) == (data["repair"]["gave_up"] is not None)
    # the same repair as running it on the n-best oneself
    assert translator.repair(plain).to_json() == data


def test_repair_needs_a_kb(export: Path) -> None:
    with pytest.raises(ValueError, match="repair=True needs a KB"):
        Translator.from_pretrained(export).translate([QUESTION], repair=True)


def test_cli_translate_repair_prints_the_rounds(export: Path, capsys: pytest.CaptureFixture) -> None:
    main(
        [
            "translate",
            f"export={export}",
            f"question={QUESTION}",
            "kb=embedded:bundled",
            "beam=3",
            "repair=true",
        ]
    )
    line = json.loads(capsys.readouterr().out)
    assert line["repair"]["rounds"][0]["attempts"] and "answer" in line


def test_cli_translate_repairs_by_default_with_a_kb_only(export: Path, capsys: pytest.CaptureFixture) -> None:
    base = ["translate", f"export={export}", f"question={QUESTION}"]
    main([*base, "kb=embedded:bundled"])
    with_kb = json.loads(capsys.readouterr().out)
    assert with_kb["repair"]["rounds"][0]["attempts"][0]["source"] == "hypothesis 1"
    main([*base, "kb=embedded:bundled", "repair=false"])
    off = json.loads(capsys.readouterr().out)
    assert "repair" not in off and "answer" in off
    main(base)
    assert "repair" not in json.loads(capsys.readouterr().out)


def test_serve_repair_returns_the_rounds(translator: Translator) -> None:
    with app_on_loopback(create_app(translator)) as url:
        body = {"questions": [QUESTION], "beam": 3, "repair": True}
        (result,) = httpx.post(f"{url}/translate", json=body, timeout=60).json()["results"]
        plain = httpx.post(f"{url}/translate", json={"questions": [QUESTION], "beam": 3}, timeout=60).json()
    (expected,) = translator.translate([QUESTION], beam=3, repair=True)
    assert result["sparql"] == expected.sparql and result["repair"] == expected.repair
    assert plain["results"][0]["repair"] is None
