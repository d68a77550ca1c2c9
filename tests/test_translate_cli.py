"""`nmt-sparql translate`: questions from an argument, a file or stdin -> one JSON line each on stdout."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from test_export_roundtrip import make_run

from nmt_sparql.cli import main
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.translator import Translator

RAW = ["What is the birth date of Alfred Nobel?", "Who is the spouse of alfred nobel?"]


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("translate")
    return export_model(make_run(root / "run", index=True), root / "export")


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_stdin_and_file_give_the_same_lines_as_the_python_api(
    export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(RAW) + "\n\n"))
    main(["translate", f"export={export}"])
    from_stdin = _lines(capsys.readouterr().out)
    questions = tmp_path / "questions.txt"
    questions.write_text("\n".join(RAW), encoding="utf-8")
    main(["translate", f"export={export}", f"input={questions}", "beam=2"])
    from_file = _lines(capsys.readouterr().out)

    expected = Translator.from_pretrained(export).translate(RAW)
    assert [line["sparql"] for line in from_stdin] == [t.sparql for t in expected]
    assert [line["question"] for line in from_file] == RAW
    # raw questions were tagged through the export's KB index (the linker's best candidate in place)
    assert from_stdin[0]["input"] == "What is the «ont:birthDate» of «res:Alfred_Nobel» ?"
    assert from_stdin[1]["input"] == "Who is the «ont:spouse» of «res:Alfred_Nobel» ?"
    assert all("answer" not in line for line in from_stdin)


def test_question_argument_with_a_kb_adds_the_answer(export: Path, capsys: pytest.CaptureFixture) -> None:
    main(["translate", f"export={export}", f"question={RAW[0]}", "kb=embedded:bundled"])
    (line,) = _lines(capsys.readouterr().out)
    assert line["question"] == RAW[0] and line["answer"]["kind"] in ("select", "ask", "graph", "error")
    assert line["answer"]["kind"] in ("select", "ask", "error")


def test_bad_inputs_name_the_problem(export: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["translate", f"export={export}", f"input={tmp_path / 'nope.txt'}"])
    assert "nope.txt: no such file" in capsys.readouterr().err
    with pytest.raises(ValueError, match="config.json: not found"):
        Translator.from_pretrained(tmp_path)
    with pytest.raises(ValueError, match="answers=True needs a KB"):
        Translator.from_pretrained(export).translate(RAW, answers=True)


def test_execution_is_read_only_and_answers_from_the_kb(export: Path) -> None:
    translator = Translator.from_pretrained(export, kb="embedded:bundled")
    prefixes = "PREFIX ont: <http://nmt-sparql.org/ontology/> PREFIX res: <http://nmt-sparql.org/resource/> "
    answer = translator.execute(prefixes + "SELECT ?x WHERE { res:Alfred_Nobel ont:birthDate ?x }")
    assert answer == {"kind": "select", "variables": ["x"], "rows": [["1833-10-21"]]}
    refused = translator.execute(prefixes + "INSERT DATA { res:Alfred_Nobel ont:spouse res:Botswana }")
    assert refused["kind"] == "error"
    assert (
        translator.execute(prefixes + "ASK { res:Alfred_Nobel ont:spouse res:Botswana }")["boolean"] is False
    )
