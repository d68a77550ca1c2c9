"""Is a query valid SPARQL 1.1, and do two queries mean the same thing?

Both answers come from rdflib's parser and algebra, a parser independent of our tokenizer,
so the round-trip check in `data stats` is not the tokenizer grading itself.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import pyoxigraph as ox
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery

from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map
from nmt_sparql.sparql.tokens import detokenize, tokenize

# Virtuoso accepts `SELECT DISTINCT COUNT(?x)`; SPARQL 1.1 needs `(COUNT(?x) AS ?v)`.
_SHORTHAND = re.compile(
    r"\b(SELECT\s+(?:DISTINCT\s+|REDUCED\s+)?)(COUNT|SUM|MIN|MAX|AVG|SAMPLE)\s*(\((?:[^()]|\([^()]*\))*\))",
    re.IGNORECASE,
)

logging.getLogger("rdflib").setLevel(logging.ERROR)


def _algebra(query: str):
    return translateQuery(parseQuery(query)).algebra


def parse_error(query: str) -> str | None:
    """None if `query` parses as SPARQL 1.1, else the parser's message."""
    try:
        _algebra(query)
    except Exception as err:  # rdflib raises pyparsing and its own exceptions alike
        return f"{type(err).__name__}: {err}"
    return None


_SERVICE = re.compile(r"\bservice\b", re.IGNORECASE)


def query_parse_error(query: str) -> str | None:
    """None if `query` is a SPARQL 1.1 query for pyoxigraph's parser or for rdflib's, else rdflib's message.

    Readers check every query of a dataset: rdflib takes milliseconds a query (half a minute for
    LC-QuAD 1.0), pyoxigraph microseconds, so pyoxigraph decides first and rdflib only hears the
    queries it refuses (pyoxigraph 0.5 rejects some valid prefixed names, e.g. `dbr:U.S._Route_59`).
    pyoxigraph parses by preparing the query on an empty store, whose results are never read; a
    query naming SERVICE is left to rdflib, so that checking a dataset never sends a request.
    """
    if not _SERVICE.search(query):
        try:
            ox.Store().query(query)
        except (SyntaxError, ValueError, OSError):
            pass
        else:
            return None
    try:
        parseQuery(query)
    except Exception as err:  # rdflib raises pyparsing and its own exceptions alike
        return f"{type(err).__name__}: {err}"
    return None


def standard_text(query: str) -> str:
    """The dataset's text with Virtuoso's aggregate-projection shorthand written in SPARQL 1.1."""
    return _SHORTHAND.sub(
        lambda m: f"{m.group(1)}({m.group(2).lower()}{m.group(3)} AS ?{m.group(2).lower()})", query
    )


def with_declarations(query: str, kb: PrefixMap) -> str:
    """The query with PREFIX declarations for the KB's prefixes it uses without declaring (LC-QuAD 2.0)."""
    declared = {m.lower() for m in re.findall(r"PREFIX\s+([\w\-]*):", query, re.IGNORECASE)}
    missing = [
        p
        for p in kb.prefixes
        if p.lower() not in declared and re.search(rf"(?<![\w<]){re.escape(p)}:", query)
    ]
    return "".join(f"PREFIX {p}: <{kb.prefixes[p]}> " for p in missing) + query


def equivalent(a: str, b: str, kb: str | PrefixMap = "generic") -> bool:
    """Same rdflib algebra after parsing (prefixes resolved, `a` = rdf:type, shorthand made standard)."""
    pm = prefix_map(kb) if isinstance(kb, str) else kb
    try:
        return _algebra(with_declarations(standard_text(a), pm)) == _algebra(
            with_declarations(standard_text(b), pm)
        )
    except Exception:
        return False


@dataclass
class RoundTrip:
    ok: bool
    detokenized: str
    problem: str | None = None


def round_trip(query: str, kb: str | PrefixMap) -> RoundTrip:
    """Tokenize, detokenize, parse, and compare with the original: the tokenizer's loss-free check.

    Each side is parsed once (rdflib's parser is most of `data stats`'s time) and the two algebras are
    compared, as `equivalent` would after `parse_error` on each."""
    pm = prefix_map(kb) if isinstance(kb, str) else kb
    try:
        text = detokenize(tokenize(query, pm), pm)
    except ValueError as err:
        return RoundTrip(False, "", f"tokenize: {err}")
    try:
        detokenized = _algebra(text)
    except Exception as err:  # rdflib raises pyparsing and its own exceptions alike
        return RoundTrip(False, text, f"detokenized query does not parse: {type(err).__name__}: {err}")
    try:
        original = _algebra(with_declarations(standard_text(query), pm))
    except Exception as err:
        return RoundTrip(False, text, f"original does not parse: {type(err).__name__}: {err}")
    standard = with_declarations(standard_text(text), pm)
    if standard != text:  # `equivalent` compares the detokenized text made standard too
        try:
            detokenized = _algebra(standard)
        except Exception:
            return RoundTrip(False, text, "detokenized query is not equivalent to the original")
    if original != detokenized:
        return RoundTrip(False, text, "detokenized query is not equivalent to the original")
    return RoundTrip(True, text)
