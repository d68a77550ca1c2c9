"""QALD JSON (`{"questions": [{"id", "question": [{"language", "string"}], "query": {"sparql"},
"answers": [...]}]}`): QALD-9 train over DBpedia, QALD-10 over Wikidata.

`question` is the English string; `answers` is the list of SPARQL JSON result objects exactly as
shipped (`{"head", "results": {"bindings"}}` or `{"head", "boolean"}`), so answer metrics can compare
against the gold answers without a live endpoint.

A few upstream queries are broken (one QALD-9 query is not SPARQL 1.1, one QALD-10 query uses a
blank node the tokenizer cannot lex). Such a record is not an error of the file: it is left out,
logged, and listed in `ReadResult.skipped` (id + reason) for `data stats`. A record whose shape is
wrong (missing English question, query not a string, ...) is still a RecordError.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from nmt_sparql.core.record import Example, KBElement, RecordError
from nmt_sparql.data.readers.base import (
    ReadResult,
    SkippedRecord,
    canonical_query,
    load_json,
    require_list,
    require_record,
    required_id,
)
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import SparqlSyntaxError
from nmt_sparql.sparql.validate import parse_error, standard_text, with_declarations

log = logging.getLogger(__name__)


def _english_question(record: dict[str, Any], source: Path, index: int) -> str:
    entries = record.get("question")
    if not isinstance(entries, list):
        raise RecordError(
            source,
            index,
            "question",
            f"expected a list of {{language, string}}, got {type(entries).__name__}",
        )
    for j, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise RecordError(source, index, f"question[{j}]", "expected an object {language, string}")
        if entry.get("language") == "en":
            text = entry.get("string")
            if not isinstance(text, str) or not text.strip():
                raise RecordError(source, index, f"question[{j}].string", "missing or empty English question")
            return " ".join(text.split())
    raise RecordError(source, index, "question", "no English ('en') question")


def _answers(record: dict[str, Any], source: Path, index: int) -> list[dict[str, Any]] | None:
    answers = record.get("answers")
    if answers is None:
        return None
    if not isinstance(answers, list) or not all(isinstance(a, dict) for a in answers):
        raise RecordError(source, index, "answers", "expected a list of SPARQL JSON result objects")
    for j, answer in enumerate(answers):
        if "boolean" not in answer and not isinstance(answer.get("results", {}).get("bindings"), list):
            raise RecordError(source, index, f"answers[{j}]", "neither 'boolean' nor 'results.bindings'")
    return answers


def _sparql(record: dict[str, Any], source: Path, index: int) -> str:
    query = record.get("query")
    if not isinstance(query, dict) or "sparql" not in query:
        raise RecordError(source, index, "query.sparql", "missing")
    if not isinstance(query["sparql"], str):
        raise RecordError(
            source, index, "query.sparql", f"expected a string, got {type(query['sparql']).__name__}"
        )
    return query["sparql"]


def _canonical(sparql: str, kb: str) -> tuple[str, list[KBElement], str | None]:
    """(canonical query, KB elements, why the upstream query is unusable or None).

    Unusable means it does not lex, or it is not SPARQL 1.1. The canonical text is parsed first
    (short, so fast); only when it fails is the original parsed, to tell a broken upstream query
    from one that only the canonical rendering broke (that one is kept: not an upstream fault).
    """
    try:
        query, elements = canonical_query(sparql, kb)
    except SparqlSyntaxError as err:
        return "", [], f"does not tokenize: {err}"
    if parse_error(query) is None:
        return query, elements, None
    original = parse_error(with_declarations(standard_text(sparql), prefix_map(kb)))
    return query, elements, None if original is None else f"does not parse: {original}"


def read_qald(path: Path, kb: str, split: str | None) -> ReadResult:
    """One QALD JSON file over `kb` ("dbpedia" or "wikidata"); broken upstream queries are skipped."""
    path = Path(path)
    data = load_json(path)
    if not isinstance(data, dict) or "questions" not in data:
        raise RecordError(path, "<file>", "questions", "expected an object with a 'questions' list")
    result = ReadResult()
    for i, raw in enumerate(require_list(data["questions"], path, "questions")):
        record = require_record(raw, path, i)
        qid = required_id(record, "id", path, i)
        question = _english_question(record, path, i)
        sparql = _sparql(record, path, i)
        answers = _answers(record, path, i)
        query, elements, problem = _canonical(sparql, kb)
        if problem is not None:
            result.skipped.append(SkippedRecord(str(path), i, qid, problem))
            continue
        result.append(
            Example(
                id=qid,
                question=question,
                query=query,
                kb=kb,
                kb_elements=elements,
                answers=answers,
                split=split,
                source_query=sparql,
            )
        )
    for skip in result.skipped:
        log.warning(
            "%s: record %d (id %s) skipped: upstream query %s", path, skip.index, skip.id, skip.error[:300]
        )
    return result
