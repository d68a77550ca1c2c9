"""Refuse SPARQL Update before it reaches a store.

Model output is untrusted text that runs against a user's KB: a generated `DROP ALL` or
`DELETE WHERE { ?s ?p ?o }` must never be executed. Three independent checks, any one refuses:
the first keyword after the prologue (PREFIX/BASE) must be a query form; no update keyword may
appear as a bare word anywhere outside strings, IRIs and comments (catches `SELECT ... ; DROP ALL`);
and text that rdflib parses as an Update is refused. Text that parses as neither query nor update
but starts with a query form is let through: endpoints such as Virtuoso accept non-standard
queries that rdflib rejects, and a store answers a bad query with an error, not a change.
"""

from __future__ import annotations

import re

from pyparsing.exceptions import ParseBaseException
from rdflib.plugins.sparql.parser import parseQuery, parseUpdate

QUERY_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
UPDATE_KEYWORDS = ("INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH")


class UnsafeQueryError(ValueError):
    """The text is SPARQL Update (or not a query form) and was not sent to the knowledge base."""


_PROLOGUE = re.compile(
    r"""\s*(?:
        (?:\#[^\n]*\n?)
      | (?:PREFIX\s+[^\s:<>]*:\s*<[^<>]*>)
      | (?:BASE\s*<[^<>]*>)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_FIRST_WORD = re.compile(r"\s*([A-Za-z]+)")
# Strings (all four quotings), IRIs and comments: whatever is inside them is data, not keywords.
_OPAQUE = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""' + r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"' + r"|'(?:[^'\\\n]|\\.)*'" + r"|<[^<>\s\"{}|^`\\]*>" + r"|\#[^\n]*",
)
_BARE_UPDATE = re.compile(
    r"(?<![\w:?$@\-.])(" + "|".join(UPDATE_KEYWORDS) + r")(?![\w:\-])",
    re.IGNORECASE,
)
# rdflib's parser reports bad text as pyparsing errors, and odd escapes as ValueError.
_PARSE_ERRORS = (ParseBaseException, ValueError)


def query_form(sparql: str) -> str:
    """The query form (SELECT/ASK/CONSTRUCT/DESCRIBE) of `sparql`, or UnsafeQueryError.

    Call this before every execution; it is cheap next to running the query.
    """
    pos = 0
    while (m := _PROLOGUE.match(sparql, pos)) is not None and m.end() > pos:
        pos = m.end()
    first = _FIRST_WORD.match(sparql, pos)
    word = first.group(1).upper() if first else ""
    if word in UPDATE_KEYWORDS:
        raise UnsafeQueryError(f"refused SPARQL Update ({word}): only {', '.join(QUERY_FORMS)} are executed")
    if word not in QUERY_FORMS:
        shown = word or sparql[pos : pos + 20].strip() or "<empty>"
        forms = ", ".join(QUERY_FORMS)
        raise UnsafeQueryError(f"refused: not a SPARQL query form (starts with {shown!r}); expected {forms}")
    bare = _BARE_UPDATE.search(_OPAQUE.sub(" ", sparql))
    if bare is not None:
        raise UnsafeQueryError(f"refused: update keyword {bare.group(1).upper()!r} inside a {word} query")
    try:
        parseQuery(sparql)
    except _PARSE_ERRORS:
        try:
            parseUpdate(sparql)
        except _PARSE_ERRORS:
            return word
        raise UnsafeQueryError("refused: the text parses as SPARQL Update") from None
    return word
