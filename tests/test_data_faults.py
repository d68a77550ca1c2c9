"""Bad data is refused by name, not passed on (issue #13, item 5): IRIs with reserved characters
round-trip exactly, queries that do not parse are refused (or skipped and counted), an empty dataset
and non-UTF-8 bytes are errors naming the file, and boolean switches are read strictly."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest

from nmt_sparql.annotation.annotate import split_question
from nmt_sparql.cli import main
from nmt_sparql.core.record import RecordError
from nmt_sparql.data.readers import jsonl as jsonl_reader
from nmt_sparql.data.readers import read_dataset
from nmt_sparql.execution import EmbeddedStore
from nmt_sparql.sparql.tokens import SparqlSyntaxError, detokenize, tokenize
from nmt_sparql.sparql.validate import parse_error, query_parse_error

DBR = "http://dbpedia.org/resource/"
ODD_LOCALS = ["Alien_(film)", "AC/DC", "U.S._Route_59", "Guns_N'_Roses", "C++", "Tom_&_Jerry", "Mr._Bean",
              "Wilton,_Connecticut", "Beyoncé", "Category:Films", "50%25", "Bird."]  # fmt: skip


def _write_jsonl(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _record(query: str, rid: str = "q1") -> dict:
    return {"id": rid, "question": "Who directed Alien?", "query": query, "kb": "dbpedia"}


@pytest.mark.parametrize("local", ODD_LOCALS)
def test_iris_with_reserved_characters_round_trip_and_execute(local: str, tmp_path: Path) -> None:
    iri = DBR + local
    tokens = tokenize(f"SELECT ?d WHERE {{ <{iri}> <http://dbpedia.org/ontology/director> ?d }}")
    token = tokens[4]
    assert split_question(f"who directed «{token}» ?") == ["who", "directed", f"«{token}»", "?"]
    text = detokenize(tokens)
    assert parse_error(text) is None and tokenize(text) == tokens
    ox.Store().query(text)  # pyoxigraph parses it too
    data = tmp_path / "kb.nt"
    data.write_text(
        f"<{iri}> <http://dbpedia.org/ontology/director> <{DBR}Ridley_Scott> .\n", encoding="utf-8"
    )
    assert EmbeddedStore([data], prefixes="dbpedia").query(text).rows == ((DBR + "Ridley_Scott",),)


def test_the_jsonl_docstring_example_reads_as_written(tmp_path: Path) -> None:
    line = next(ln.strip() for ln in jsonl_reader.__doc__.splitlines() if ln.strip().startswith('{"id"'))
    rest = next(ln.strip() for ln in jsonl_reader.__doc__.splitlines() if ln.strip().startswith('"kb"'))
    path = tmp_path / "data.jsonl"
    path.write_text(line + " " + rest + "\n", encoding="utf-8")
    (example,) = read_dataset("jsonl", path)
    assert "dbr:Alien_(film)" in tokenize(example.query)
    assert f"<{DBR}Alien_(film)>" in example.query


def test_unescaped_parentheses_in_a_prefixed_name_are_refused_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(SparqlSyntaxError, match=r"dbr:Alien_\\\(film\\\)"):
        tokenize("SELECT ?d WHERE { dbr:Alien_(film) dbo:director ?d }")
    path = _write_jsonl(tmp_path / "data.jsonl", _record("SELECT ?d WHERE { dbr:AC/DC dbo:genre ?d }"))
    with pytest.raises(RecordError, match=r"data.jsonl: record 0: field 'query'.*dbr:AC\\/DC"):
        read_dataset("jsonl", path)
    # What stays legal: casts, property paths, `a` in a path.
    legal = "SELECT ?x WHERE { ?x dbo:a/dbo:b/a ?y FILTER(xsd:integer(?y) > xsd:decimal(5.0) && xsd:boolean(true)) }"
    assert parse_error(detokenize(tokenize(legal))) is None


def test_a_query_that_does_not_parse_is_refused_or_skipped_and_counted(tmp_path: Path) -> None:
    good = _record("SELECT ?d WHERE { dbr:Alien_\\(film\\) dbo:director ?d }", "ok")
    path = _write_jsonl(tmp_path / "data.jsonl", good, _record("SELECT ?d WHERE { ?d dbo:director }", "bad"))
    assert query_parse_error("SELECT ?d WHERE { ?d dbo:director }") is not None
    with pytest.raises(RecordError, match=r"data.jsonl: record 1: field 'query': not a SPARQL 1.1 query"):
        read_dataset("jsonl", path)
    read = read_dataset("jsonl", path, skip_invalid=True)
    assert [e.id for e in read] == ["ok"] and [(s.index, s.id) for s in read.skipped] == [(1, "bad")]


def test_prepare_reports_skipped_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [_record(f"ASK {{ dbr:A{i} dbo:p dbr:B }}", f"q{i}") for i in range(10)]
    path = _write_jsonl(tmp_path / "data.jsonl", *records, _record("SELECT ?d WHERE { ?d }", "bad"))
    main(["data", "prepare", "dataset=jsonl", f"dataset.path={path}", "dataset.split.kind=random",
          "data.skip_invalid=true", "annotation=raw", f"data.dir={tmp_path / 'out'}"])  # fmt: skip
    assert "1 record(s) skipped" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "out/jsonl/raw/manifest.json").read_text(encoding="utf-8"))
    assert manifest["skipped"] == 1 and sum(manifest["sizes"].values()) == 10


def test_an_empty_dataset_is_an_error_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["data", "prepare", "dataset=jsonl", f"dataset.path={path}", f"data.dir={tmp_path / 'out'}"])
    assert exit_.value.code == 2 and f"{path}: dataset 'jsonl' has no examples" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_non_utf8_bytes_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(json.dumps(_record("ASK { dbr:A dbo:p dbr:B }")).encode() + b'\n{"id": "caf\xe9"}\n')
    with pytest.raises(
        RecordError, match=r"latin1.jsonl: record 1: .*line 2 is not UTF-8 .*0xe9 at column 12"
    ):
        read_dataset("jsonl", path)
    lcquad = tmp_path / "lcquad1"
    lcquad.mkdir()
    (lcquad / "train-data.json").write_bytes(b'[\n{"_id": "\xff"}]')
    with pytest.raises(RecordError, match=r"train-data.json: .*line 2 is not UTF-8"):
        read_dataset("lcquad1", tmp_path)


@pytest.mark.parametrize("key", ["copy", "reshuffle_tail", "evaluate", "data.skip_invalid"])
@pytest.mark.parametrize("value", ["no", "maybe", "1", "null"])
def test_boolean_switches_are_strict(
    key: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["train", f"{key}={value}", f"data.dir={tmp_path}", f"hydra.run.dir={tmp_path / 'run'}"])
    assert f"{key}: expected true or false" in capsys.readouterr().err
    assert not list(tmp_path.rglob("*.jsonl"))  # refused before any data is prepared
