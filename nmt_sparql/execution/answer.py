"""The normalised answer of a query, whatever backend or file it came from.

A predicted query runs on pyoxigraph or an endpoint, a QALD gold answer comes as SPARQL JSON:
comparing them needs one shape. Terms become plain value strings (an IRI's text, a literal's
lexical form, numbers in one canonical form so `3`, `"3"^^xsd:integer` and `3.0` agree), which is
how the paper compares answers (§IV.C). Language tags and string datatypes are dropped on purpose:
endpoints disagree on them while the answer is the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC_DATATYPES = frozenset(
    XSD + name
    for name in (
        "integer", "decimal", "double", "float", "int", "long", "short", "byte", "nonNegativeInteger",
        "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong",
        "unsignedShort", "unsignedByte",
    )
)  # fmt: skip

AnswerKind = Literal["select", "ask", "graph", "error"]
Row = tuple[str | None, ...]


def canonical_number(lexical: str) -> str | None:
    """`3.0`, `3`, `3E0` -> `3`; None when `lexical` is not a finite number."""
    try:
        number = Decimal(lexical.strip())
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    if number == 0:
        return "0"
    return format(number.normalize(), "f")


def literal_string(lexical: str, datatype: str | None) -> str:
    """A literal's comparable value: canonical number for numeric datatypes, else its lexical form."""
    if datatype in NUMERIC_DATATYPES:
        return canonical_number(lexical) or lexical
    return lexical


@dataclass(frozen=True)
class Answer:
    """One query's result: SELECT rows (a multiset, in result order), an ASK boolean, CONSTRUCT/DESCRIBE
    triples (`kind="graph"`, rows of 3 values), or `error` when the query failed or timed out.

    Metrics use `values()` (set semantics: duplicates collapse, as in the paper's F1).
    """

    kind: AnswerKind
    variables: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    boolean: bool | None = None
    error: str | None = None

    @classmethod
    def failed(cls, message: str) -> Answer:
        return cls(kind="error", error=message)

    @property
    def ok(self) -> bool:
        return self.error is None

    def values(self) -> frozenset[Row]:
        """The distinct rows; a one-column result gives one-value rows."""
        return frozenset(self.rows)

    def cells(self) -> list[str]:
        """The distinct bound values of every row, in the rows' order (the first N are always the same N)."""
        return list(dict.fromkeys(v for row in self.rows for v in row if v is not None))

    def is_empty(self) -> bool:
        """No answer to compare against: an error, or a SELECT/graph result with no row or only unbound cells.

        An ASK answer is never empty (`false` is an answer).
        """
        if self.error is not None:
            return True
        if self.kind == "ask":
            return False
        return all(all(v is None for v in row) for row in self.rows)

    def number(self) -> Decimal | None:
        """The value of a single-cell numeric result (a COUNT), else None."""
        if self.kind != "select" or len(self.values()) != 1:
            return None
        (row,) = self.values()
        if len(row) != 1 or row[0] is None:
            return None
        canonical = canonical_number(row[0])
        return None if canonical is None else Decimal(canonical)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.kind in ("select", "graph"):
            data["variables"] = list(self.variables)
            data["rows"] = [list(r) for r in self.rows]
        if self.kind == "ask":
            data["boolean"] = self.boolean
        if self.error is not None:
            data["error"] = self.error
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Answer:
        """Inverse of `to_json` (the gold-answer cache format)."""
        kind = data.get("kind")
        if kind not in ("select", "ask", "graph", "error"):
            raise ValueError(f"answer 'kind' must be select|ask|graph|error, got {kind!r}")
        return cls(
            kind=kind,
            variables=tuple(data.get("variables", ())),
            rows=tuple(tuple(r) for r in data.get("rows", ())),
            boolean=data.get("boolean"),
            error=data.get("error"),
        )


def _json_term(term: dict[str, Any] | None) -> str | None:
    if term is None:
        return None
    if not isinstance(term, dict) or "value" not in term:
        raise ValueError(f"a SPARQL JSON binding must be an object with 'value', got {term!r}")
    kind = term.get("type")
    if kind == "bnode":
        return "_:" + str(term["value"])
    if kind in ("literal", "typed-literal"):
        return literal_string(str(term["value"]), term.get("datatype"))
    return str(term["value"])


def answer_from_sparql_json(data: dict[str, Any] | bool) -> Answer:
    """A SPARQL 1.1 JSON result (`{"head", "results": {"bindings"}}` or `{"boolean"}`) as an Answer."""
    if isinstance(data, bool):
        return Answer(kind="ask", boolean=data)
    if not isinstance(data, dict):
        raise ValueError(f"expected a SPARQL JSON result object, got {type(data).__name__}")
    if "boolean" in data:
        if not isinstance(data["boolean"], bool):
            raise ValueError(f"'boolean' must be true or false, got {data['boolean']!r}")
        return Answer(kind="ask", boolean=data["boolean"])
    bindings = (data.get("results") or {}).get("bindings")
    if not isinstance(bindings, list):
        raise ValueError("expected 'results.bindings' to be a list")
    variables = list((data.get("head") or {}).get("vars") or [])
    for binding in bindings:
        for name in binding:
            if name not in variables:
                variables.append(name)
    rows = tuple(tuple(_json_term(b.get(v)) for v in variables) for b in bindings)
    return Answer(kind="select", variables=tuple(variables), rows=rows)


def merge_answers(parts: list[Answer]) -> Answer:
    """Several result objects for one question (QALD lists) as one Answer: rows are concatenated."""
    if not parts:
        return Answer(kind="select")
    if len(parts) == 1:
        return parts[0]
    if any(p.kind == "ask" for p in parts):
        if not all(p.kind == "ask" for p in parts):
            raise ValueError("cannot merge a boolean answer with a result set")
        return Answer(kind="ask", boolean=any(bool(p.boolean) for p in parts))
    width = max(len(p.variables) for p in parts)
    variables = next(p.variables for p in parts if len(p.variables) == width)
    rows = tuple(row + (None,) * (width - len(row)) for p in parts for row in p.rows)
    return Answer(kind="select", variables=variables, rows=rows)
