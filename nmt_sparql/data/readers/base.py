"""What every dataset reader shares: the result type, field checks, and turning an upstream query
into the project's canonical `Example` (canonical text + KB elements) with errors that name the record.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nmt_sparql.core.record import Example, KBElement, RecordError, read_utf8
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import SparqlSyntaxError, TokenType, detokenize, token_types, tokenize
from nmt_sparql.sparql.validate import query_parse_error

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SkippedRecord:
    """An upstream record a reader left out (e.g. a QALD query that does not parse), and why."""

    source: str
    index: int
    id: str
    error: str


SKIP_HINT = "set data.skip_invalid=true to skip and count such records"
# Records skipped with `data.skip_invalid` that are logged one by one; the rest are only counted.
LOGGED_SKIPS = 5
_NSPM_ENCODED = re.compile(r"\b(?:brack_open|brack_close|var_\w+|sep_dot)\b")


class InvalidQueryError(RecordError):
    """A record whose query does not lex or is not a SPARQL 1.1 query (`data.skip_invalid` skips it).

    The message ends with the setting that skips such records; `problem` is the reason alone."""

    def __init__(self, source: str | Path, index: int | str, field_name: str, problem: str, record_id: str):
        super().__init__(source, index, field_name, f"{problem} ({SKIP_HINT})")
        self.record_id, self.problem = record_id, problem


class ReadResult(list[Example]):
    """The examples of a dataset, plus the upstream records that were skipped and why.

    It is a plain list of examples (so `read_dataset` stays `list[Example]` for callers that only
    want the data) that also carries `skipped`, which `data stats` and `data prepare` report.
    `skip_invalid`: a record with an invalid query is skipped (and listed) instead of refused.
    """

    def __init__(
        self,
        examples: Iterable[Example] = (),
        skipped: Iterable[SkippedRecord] = (),
        skip_invalid: bool = False,
    ):
        super().__init__(examples)
        self.skipped: list[SkippedRecord] = list(skipped)
        self.skip_invalid = skip_invalid

    def extend_result(self, other: ReadResult) -> None:
        self.extend(other)
        self.skipped.extend(other.skipped)

    @contextmanager
    def invalid_queries_skipped(self) -> Iterator[None]:
        """Around reading one record: its InvalidQueryError is raised, or with `skip_invalid` logged
        and listed in `skipped`."""
        try:
            yield
        except InvalidQueryError as err:
            if not self.skip_invalid:
                raise
            if len(self.skipped) < LOGGED_SKIPS:
                log.warning(
                    "skipped %s", skipped_where(err.source, int(err.index)) + f": {err.problem[:300]}"
                )
            self.skipped.append(SkippedRecord(err.source, int(err.index), err.record_id, err.problem))


def skipped_where(source: str, index: int) -> str:
    """`FILE record I` (and `line N` for the line-per-record formats), as the skip summary prints it."""
    line = f" (line {index + 1})" if Path(source).suffix in (".jsonl", ".sparql", ".en") else ""
    return f"{source}: record {index}{line}"


def skipped_summary(skipped: list[SkippedRecord], first: int = LOGGED_SKIPS) -> str:
    """How many records were skipped, and where the first few are (empty when none was)."""
    if not skipped:
        return ""
    lines = [
        f"{len(skipped)} record(s) skipped (their query is not valid SPARQL), first {min(first, len(skipped))}:"
    ]
    lines += [f"  {skipped_where(s.source, s.index)}: {s.error[:200]}" for s in skipped[:first]]
    return "\n".join(lines)


def load_json(path: Path) -> Any:
    """Parse a JSON file, naming the file and position when it is not valid JSON."""
    if not path.is_file():
        raise FileNotFoundError(f"dataset file not found: {path}")
    try:
        return json.loads(read_utf8(path))
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


def checked_query(
    source: Path, index: int, query_field: str, original_query: str, kb: str, record_id: str
) -> tuple[str, list[KBElement]]:
    """`canonical_query` of a record's query, or InvalidQueryError naming the file, record and field
    when it does not lex or its canonical text is not a SPARQL 1.1 query."""
    try:
        query, elements = canonical_query(original_query, kb)
    except SparqlSyntaxError as err:
        raise InvalidQueryError(
            source, index, query_field, f"query does not tokenize: {err}", record_id
        ) from err
    problem = query_parse_error(query)
    if problem is not None:
        if _NSPM_ENCODED.search(original_query):
            problem += "; it looks NSpM-encoded (brack_open, var_x): read such files with dataset=nspm"
        raise InvalidQueryError(
            source,
            index,
            query_field,
            f"not a SPARQL 1.1 query: {problem} (canonical text: {query})",
            record_id,
        )
    return query, elements


def build_example(
    source: Path, index: int, query_field: str, original_query: str, kb: str, **fields: Any
) -> Example:
    """An Example whose query is canonicalized and checked (`checked_query`)."""
    query, elements = checked_query(source, index, query_field, original_query, kb, str(fields.get("id")))
    return Example(query=query, kb=kb, kb_elements=elements, source_query=original_query, **fields)


def warn_skipped_empty(source: Path, count: int) -> None:
    if count:
        log.warning("%s: skipped %d record(s) with no question text in any field", source, count)
