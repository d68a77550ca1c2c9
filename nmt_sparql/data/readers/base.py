"""What every dataset reader shares: the result type, field checks, and turning an upstream query
into the project's canonical `Example` (canonical text + KB elements) with errors that name the record.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nmt_sparql.data.record import Example, KBElement, RecordError
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import SparqlSyntaxError, TokenType, detokenize, token_types, tokenize

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SkippedRecord:
    """An upstream record a reader left out (e.g. a QALD query that does not parse), and why."""

    source: str
    index: int
    id: str
    error: str


class ReadResult(list[Example]):
    """The examples of a dataset, plus the upstream records that were skipped and why.

    It is a plain list of examples (so `read_dataset` stays `list[Example]` for callers that only
    want the data) that also carries `skipped`, which `data stats` lists.
    """

    def __init__(self, examples: Iterable[Example] = (), skipped: Iterable[SkippedRecord] = ()):
        super().__init__(examples)
        self.skipped: list[SkippedRecord] = list(skipped)

    def extend_result(self, other: ReadResult) -> None:
        self.extend(other)
        self.skipped.extend(other.skipped)


def load_json(path: Path) -> Any:
    """Parse a JSON file, naming the file and position when it is not valid JSON."""
    if not path.is_file():
        raise FileNotFoundError(f"dataset file not found: {path}")
    try:
        with path.open(encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as err:
        raise RecordError(
            path, "<file>", "<json>", f"invalid JSON: {err.msg} at line {err.lineno} column {err.colno}"
        ) from None


def require_list(data: Any, source: Path, what: str = "<file>") -> list[Any]:
    if not isinstance(data, list):
        raise RecordError(source, "<file>", what, f"expected a JSON list, got {type(data).__name__}")
    return data


def require_record(record: Any, source: Path, index: int) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise RecordError(source, index, "<record>", f"expected a JSON object, got {type(record).__name__}")
    return record


def require_str(record: dict[str, Any], name: str, source: Path, index: int) -> str:
    """A required, non-empty string field."""
    if name not in record:
        raise RecordError(source, index, name, "missing")
    value = record[name]
    if not isinstance(value, str):
        raise RecordError(source, index, name, f"expected a string, got {type(value).__name__}")
    if not value.strip():
        raise RecordError(source, index, name, "empty")
    return value


def optional_text(record: dict[str, Any], name: str, source: Path, index: int) -> str | None:
    """An optional question-like field; upstream writes 'absent' as null, "", "[]" or an empty list."""
    value = record.get(name)
    if value is None or (isinstance(value, list) and not value):
        return None
    if not isinstance(value, str):
        raise RecordError(source, index, name, f"expected a string or null, got {type(value).__name__}")
    value = " ".join(value.split())
    return None if value in ("", "[]") else value


def required_id(record: dict[str, Any], name: str, source: Path, index: int) -> str:
    if name not in record:
        raise RecordError(source, index, name, "missing")
    value = record[name]
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise RecordError(source, index, name, f"expected a string or integer id, got {type(value).__name__}")
    return str(value)


def optional_template_id(record: dict[str, Any], name: str, source: Path, index: int) -> str | None:
    value = record.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise RecordError(source, index, name, f"expected a string or number, got {type(value).__name__}")
    return str(value)


def canonical_query(original: str, kb: str) -> tuple[str, list[KBElement]]:
    """(canonical query text, one KBElement per KB token) of an upstream query.

    Raises SparqlSyntaxError when the query cannot be lexed; callers turn it into a RecordError
    (or a SkippedRecord) that names the record.
    """
    pm = prefix_map(kb)
    tokens = tokenize(original, pm)
    elements: dict[str, KBElement] = {}
    for token, kind in zip(tokens, token_types(tokens, pm)):
        if kind in (TokenType.URI, TokenType.LITERAL) and token not in elements:
            elements[token] = KBElement(token, "uri" if kind is TokenType.URI else "literal")
    return detokenize(tokens, pm), list(elements.values())


def build_example(
    source: Path, index: int, query_field: str, original_query: str, kb: str, **fields: Any
) -> Example:
    """An Example whose query is canonicalized; a query that does not lex is a RecordError naming it."""
    try:
        query, elements = canonical_query(original_query, kb)
    except SparqlSyntaxError as err:
        raise RecordError(source, index, query_field, f"query does not tokenize: {err}") from err
    return Example(query=query, kb=kb, kb_elements=elements, source_query=original_query, **fields)


def warn_skipped_empty(source: Path, count: int) -> None:
    if count:
        log.warning("%s: skipped %d record(s) with no question text in any field", source, count)
