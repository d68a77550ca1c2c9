r"""The user's own data: a `.jsonl` file, or a folder of them (read in name order).

One JSON object per line, in the shape `Example.to_dict` writes:

    {"id": "q1", "question": "Who directed Alien?", "query": "SELECT ?d WHERE { dbr:Alien_\\(film\\) dbo:director ?d }",
     "kb": "dbpedia"}

Required: `id` (string or integer), `question`, `query` (a SPARQL 1.1 query; prefixes of the KB's
map need no declaration; `(`, `)` and `/` in a prefixed name are escaped, `dbr:Alien_\\(film\\)` in
JSON, or the IRI is written in full) and `kb` (`dbpedia`, `wikidata`, `generic`, or a prefix map
registered with `nmt_sparql.sparql.prefixes.register_prefix_map`). Optional: `reformulated`,
`answers` (SPARQL JSON result objects), `template_id`, `split` (`train`, `validation` or `test`),
`marked_question`, `annotated`, and `kb_elements` (`[{"token", "kind": "uri"|"literal", "label"}]`).

The query is canonicalized like every dataset's. When the record lists no `kb_elements` they are
derived from the query; when it does, they are kept as given (a user may ship labels with them).
Blank lines are ignored. A malformed line raises RecordError naming the file, line index and field;
so does a query that does not parse, unless `skip_invalid` (the record is then skipped and listed).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from nmt_sparql.core.record import SPLITS, RecordError, read_jsonl_indexed
from nmt_sparql.data.readers.base import ReadResult, checked_query


def jsonl_files(path: Path) -> list[Path]:
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise FileNotFoundError(f"no *.jsonl file in {path}")
        return files
    if not path.is_file():
        raise FileNotFoundError(f"JSONL data not found: {path}")
    return [path]


def read_jsonl_data(path: Path, skip_invalid: bool = False) -> ReadResult:
    """Examples from a `.jsonl` file or a folder of them, queries canonicalized and checked."""
    result = ReadResult(skip_invalid=skip_invalid)
    for file in jsonl_files(path):
        for index, example in read_jsonl_indexed(file):
            if example.split is not None and example.split not in SPLITS:
                raise RecordError(
                    file, index, "split", f"'{example.split}' is not one of {', '.join(SPLITS)}"
                )
            with result.invalid_queries_skipped():
                try:
                    query, elements = checked_query(
                        file, index, "query", example.query, example.kb, example.id
                    )
                except KeyError as err:
                    raise RecordError(file, index, "kb", str(err.args[0])) from None
                result.append(
                    replace(
                        example,
                        query=query,
                        kb_elements=example.kb_elements or elements,
                        source_query=example.source_query or example.query,
                    )
                )
    return result
