"""Known errors print one or two lines that say what to change, exit 2, and keep the trace for
HYDRA_FULL_ERROR=1."""

from __future__ import annotations

import json

import pytest

from nmt_sparql.cli import main
from nmt_sparql.core.record import RecordError


def bad_file(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text(
        json.dumps({"id": 1, "question": "q", "query": "SELECT nonsense", "kb": "dbpedia"}) + "\n"
    )
    return path


def test_a_bad_record_is_two_lines_and_exit_code_2(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    path = bad_file(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main(["data", "prepare", "dataset=jsonl", f"dataset.path={path}", f"data.dir={tmp_path / 'data'}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "Traceback" not in "\n".join(err)
    assert f"{path}: record 0: field 'query'" in err[0] and "data.skip_invalid=true" in err[0]


def test_a_missing_setting_names_it(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    with pytest.raises(SystemExit) as exit_:
        main(["data", "prepare", "dataset=nspm", f"data.dir={tmp_path}"])
    assert exit_.value.code == 2 and "dataset.path" in capsys.readouterr().err


def test_full_error_keeps_the_exception(tmp_path, monkeypatch):
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")
    path = bad_file(tmp_path)
    with pytest.raises(RecordError):
        main(["data", "prepare", "dataset=jsonl", f"dataset.path={path}", f"data.dir={tmp_path / 'data'}"])
