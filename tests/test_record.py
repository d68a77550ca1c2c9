"""The canonical record: JSONL round trip and errors that name file, record and field."""

import pytest

from nmt_sparql.core.record import Example, KBElement, RecordError, read_jsonl, write_jsonl


def example() -> Example:
    return Example(
        id="1501", question="How many movies are there whose director is Stanley Kubrick?",
        query="select distinct ?uri where { ?uri dbo:director dbr:Stanley_Kubrick }", kb="dbpedia",
        kb_elements=[KBElement("dbo:director", "uri", "director"), KBElement("dbr:Stanley_Kubrick", "uri")],
        template_id="101", split="train",
    )  # fmt: skip


def test_jsonl_round_trip(tmp_path):
    path = tmp_path / "x.jsonl"
    write_jsonl(path, [example()])
    assert list(read_jsonl(path)) == [example()]


def test_missing_field_names_file_record_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"id": 1, "question": "q", "query": "ASK {}", "kb": "dbpedia"}\n{"id": 2, "question": "q", "kb": "dbpedia"}\n'
    )
    with pytest.raises(RecordError, match=r"bad.jsonl: record 1: field 'query': missing"):
        list(read_jsonl(path))


def test_bad_json_and_bad_element_are_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("{not json\n")
    with pytest.raises(RecordError, match="record 0: field '<line>'"):
        list(read_jsonl(path))
    path.write_text(
        '{"id": 1, "question": "q", "query": "ASK {}", "kb": "d", "kb_elements": [{"token": "x", "kind": "iri"}]}\n'
    )
    with pytest.raises(RecordError, match=r"field 'kb_elements\[0\]'"):
        list(read_jsonl(path))


def test_failed_write_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "x.jsonl"
    write_jsonl(path, [example()])
    before = path.read_text()

    def broken():
        yield example()
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_jsonl(path, broken())
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["x.jsonl"]
