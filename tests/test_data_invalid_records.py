"""Records whose query is not SPARQL 1.1: refused with file, record, field and the setting that skips
them, or with `data.skip_invalid=true` skipped, counted and the first few listed with file and line."""

from __future__ import annotations

import json
import logging

import pytest

from nmt_sparql.core.record import RecordError
from nmt_sparql.data.readers.base import skipped_summary
from nmt_sparql.data.readers.jsonl import read_jsonl_data

GOOD = "SELECT ?x WHERE { <http://dbpedia.org/resource/Alien> <http://dbpedia.org/ontology/director> ?x }"
NSPM_ENCODED = "ask where brack_open dbr_Carew_Cross rdf_type dbo_Place brack_close"


def write_records(path, queries):
    rows = [{"id": str(i), "question": f"q{i}", "query": q, "kb": "dbpedia"} for i, q in enumerate(queries)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_jsonl_refuses_nspm_encoded_text_and_says_which_reader_reads_it(tmp_path):
    path = write_records(tmp_path / "mine.jsonl", [GOOD, NSPM_ENCODED])
    with pytest.raises(RecordError) as err:
        read_jsonl_data(path)
    assert (err.value.source, err.value.index, err.value.field_name) == (str(path), 1, "query")
    assert "dataset=nspm" in str(err.value) and "data.skip_invalid=true" in str(err.value)


def test_skip_invalid_counts_and_lists_the_first_few_with_file_and_line(tmp_path, caplog):
    path = write_records(tmp_path / "mine.jsonl", [GOOD] + ["SELECT WHERE nonsense"] * 7)
    with caplog.at_level(logging.WARNING):
        read = read_jsonl_data(path, skip_invalid=True)
    assert len(read) == 1 and len(read.skipped) == 7
    assert sum("skipped" in r.getMessage() for r in caplog.records) == 5  # the first few, not all 7
    summary = skipped_summary(read.skipped)
    assert summary.startswith("7 record(s) skipped") and f"{path}: record 1 (line 2)" in summary
    assert len(summary.splitlines()) == 6
