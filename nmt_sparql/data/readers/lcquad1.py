"""LC-QuAD 1.0 (DBpedia 2016-04): `train-data.json` (4,000) and `test-data.json` (1,000).

The paper trains on the template question (`intermediary_question`, KB element labels in `<...>`),
so `question` is that text with the marks removed and `marked_question` keeps the marks for the
annotation step; the human rewrite (`corrected_question`) becomes `reformulated`. The files are the
dataset's official split; the paper instead shuffles their union into 4,000/500/500
(`nmt_sparql.data.splits.random_split`).
"""

from __future__ import annotations

from pathlib import Path

from nmt_sparql.data.readers.base import (
    ReadResult,
    build_example,
    load_json,
    optional_template_id,
    optional_text,
    require_list,
    require_record,
    require_str,
    required_id,
)

FILES = (("train-data.json", "train"), ("test-data.json", "test"))


def unmark(marked: str) -> str:
    """`How many <movies> are there?` -> `How many movies are there?` (whitespace normalized)."""
    return " ".join(marked.replace("<", "").replace(">", "").split())


def read_lcquad1_file(path: Path, split: str | None, skip_invalid: bool = False) -> ReadResult:
    """One LC-QuAD 1.0 JSON list -> examples with the given split."""
    result = ReadResult(skip_invalid=skip_invalid)
    for i, raw in enumerate(require_list(load_json(path), path)):
        record = require_record(raw, path, i)
        marked = require_str(record, "intermediary_question", path, i)
        with result.invalid_queries_skipped():
            result.append(
                build_example(
                    path,
                    i,
                    "sparql_query",
                    require_str(record, "sparql_query", path, i),
                    "dbpedia",
                    id=required_id(record, "_id", path, i),
                    question=unmark(marked),
                    marked_question=marked,
                    reformulated=optional_text(record, "corrected_question", path, i),
                    template_id=optional_template_id(record, "sparql_template_id", path, i),
                    split=split,
                )
            )
    return result


def read_lcquad1(folder: Path, skip_invalid: bool = False) -> ReadResult:
    """Both files of a folder laid out like upstream (`train-data.json`, `test-data.json`)."""
    result = ReadResult()
    for name, split in FILES:
        result.extend_result(read_lcquad1_file(Path(folder) / name, split, skip_invalid))
    return result
