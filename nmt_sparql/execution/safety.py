"""Refuse SPARQL Update, and queries that make a store contact other hosts, before they reach a store.

Model output and user annotations are untrusted text that runs against a user's KB: a generated
`DROP ALL` or `DELETE WHERE { ?s ?p ?o }` must never be executed. Three independent checks, any one
refuses: the first keyword after the prologue (PREFIX/BASE) must be a query form; no update keyword
may appear as a bare word anywhere outside strings, IRIs and comments (catches `SELECT ... ; DROP ALL`);
and text that rdflib parses as an Update is refused. Text that parses as neither query nor update
but starts with a query form is let through: endpoints such as Virtuoso accept non-standard
queries that rdflib rejects, and a store answers a bad query with an error, not a change.

A query is also a request to fetch: `SERVICE <http://10.0.0.5/...>` makes pyoxigraph (and most
engines) send HTTP requests to any host, and an engine may dereference `FROM`/`FROM NAMED` graph
IRIs (Virtuoso's sponger). So SERVICE is refused unless its IRI is http(s) on an allowed host, and
FROM/FROM NAMED unless the IRI names no host (`urn:g`) or an allowed one (`LOAD` is an update: always
refused). Two independent readings must both pass: rdflib's parse tree (exact, prefixes resolved)
when rdflib can parse the text, and a lexical scan of every bare SERVICE/FROM keyword (the parse tree
of a text rdflib cannot parse is unknown; a keyword whose target cannot be resolved is refused).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from urllib.parse import urljoin, urlsplit

from pyparsing import ParseResults
from pyparsing.exceptions import ParseBaseException
from rdflib.plugins.sparql.parser import expandUnicodeEscapes, parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.term import URIRef, Variable

QUERY_FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")
UPDATE_KEYWORDS = ("INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH")


class UnsafeQueryError(ValueError):
    """The text is SPARQL Update, not a query form, or would contact a host that is not allowed;
    it was not sent to the knowledge base."""


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
# A keyword as a bare word: not part of a variable, prefixed name, language tag or local name.
_BEFORE, _AFTER = r"(?<![\w:?$@\-.])", r"(?![\w:\-])"
_BARE_UPDATE = re.compile(_BEFORE + "(" + "|".join(UPDATE_KEYWORDS) + ")" + _AFTER, re.IGNORECASE)
# Variables, blank nodes and language tags may contain any word; so may a prefixed name's local part.
# Anywhere else (runs of word characters, a prefix) SERVICE/FROM counts even inside a longer word: a
# parser without word boundaries reads `1SERVICE`, `trueSERVICE` or `from:x` (FROM :x) as two tokens,
# and valid SPARQL has no other word containing them (a prefix named `from:` is refused too).
_NAME_OR_WORD = re.compile(
    r"(?P<name>[?$][\w\u00B7]+|_:[\w\-.\u00B7]*|@[A-Za-z]+(?:-[A-Za-z0-9]+)*)"
    r"|(?P<prefix>[A-Za-z\u00C0-\uFFFF][\w\-.\u00B7]*)?:(?:[\w\-.:%\u00B7]|\\.)*"
    r"|(?P<word>\w+)"
)
_FETCH_WORD = re.compile("SERVICE|FROM", re.IGNORECASE)
_GAP = r"(?:\s|\#[^\n]*(?:\n|$))*"
# What follows SERVICE / FROM: an optional SILENT / NAMED, then an IRI, a prefixed name or a variable.
_TARGET = re.compile(
    _GAP + r"(?:(SILENT|NAMED)" + _AFTER + _GAP + ")?"
    r"(?:<(?P<iri>[^<>\"{}|^`\\\x00-\x20]*)>"
    r"|(?P<prefix>[A-Za-z\u00C0-\uFFFF][\w\-.\u00B7]*)?:(?P<local>(?:[\w\-.:%\u00B7]|\\.)*)"
    r"|(?P<var>[?$]\w+))",
    re.IGNORECASE,
)
_PREFIX_DECL = re.compile(r"PREFIX\s+([^\s:<>]*):\s*<([^<>]*)>", re.IGNORECASE)
_BASE_DECL = re.compile(r"BASE\s*<([^<>]*)>", re.IGNORECASE)
# rdflib's parser reports bad text as pyparsing errors, and odd escapes as ValueError.
_PARSE_ERRORS = (ParseBaseException, ValueError)


def allowed_hosts(hosts: Iterable[str] | str | None) -> frozenset[str]:
    """The operator's allow list as lower-case `host` or `host:port` entries (a bare string is one host).

    Matching is exact: `dbpedia.org` does not allow `www.dbpedia.org`, which keeps encoded or
    look-alike host names (`127.0.0.1.nip.io`, `%31%32%37.0.0.1`) out.
    """
    if hosts is None:
        return frozenset()
    entries = [hosts] if isinstance(hosts, str) else list(hosts)
    out = set()
    for entry in entries:
        if not isinstance(entry, str) or not entry.strip():
            raise ValueError(f"kb_allow_hosts: each entry must be a host name, got {entry!r}")
        host = entry.strip().lower()
        if any(c in host for c in "/@?#\\ ") or host.startswith(("http:", "https:")):
            raise ValueError(
                f"kb_allow_hosts: {entry!r} must be a host or host:port (e.g. dbpedia.org), not a URL"
            )
        out.add(host)
    return frozenset(out)


def _host_entries(iri: str) -> set[str] | None:
    """The allow-list entries that would admit `iri` (`host`, `host:port`), None when it names no host."""
    try:
        parts = urlsplit(iri)
        port = parts.port
    except ValueError:
        return {"<malformed authority>"}
    if parts.scheme.lower() == "file":
        return {"<local file>"}
    if not parts.netloc:
        return None
    host = parts.hostname or ""
    shown = f"[{host}]" if ":" in host else host
    return {shown} if port is None else {shown, f"{shown}:{port}"}


def _refuse_target(keyword: str, iri: str | None, hosts: frozenset[str]) -> None:
    """UnsafeQueryError unless `keyword <iri>` stays on an allowed host (or, for FROM, names no host)."""
    if iri is None:
        raise UnsafeQueryError(
            f"refused: {keyword} target cannot be resolved to an IRI, so its host is unknown"
        )
    entries = _host_entries(iri)
    if entries is None:
        if keyword == "SERVICE":
            raise UnsafeQueryError(f"refused: SERVICE <{iri}> names no http(s) host")
        return
    scheme_ok = keyword != "SERVICE" or urlsplit(iri).scheme.lower() in ("http", "https")
    if not scheme_ok or not entries & hosts:
        shown = max(entries, key=len)
        raise UnsafeQueryError(
            f"refused: {keyword} <{iri}> would contact {shown}, which is not an allowed host "
            "(operator setting kb_allow_hosts)"
        )


def _lexical_targets(sparql: str) -> Iterator[tuple[str, str | None]]:
    """(keyword, resolved IRI or None) for every bare SERVICE/FROM keyword of the text."""
    masked = _OPAQUE.sub(lambda m: " " * len(m.group()), sparql)
    declared: dict[str, list[str]] = {}
    for prefix, namespace in _PREFIX_DECL.findall(sparql):
        declared.setdefault(prefix, []).append(namespace)
    bases = _BASE_DECL.findall(sparql)
    for token in _NAME_OR_WORD.finditer(masked):
        part = "word" if token.group("word") is not None else "prefix"
        if token.group(part) is None:
            continue
        for found in _FETCH_WORD.finditer(token.group(part)):
            end = token.start(part) + found.end()
            yield from _target_iris(sparql, found.group().upper(), end, declared, bases)


def _target_iris(
    sparql: str, keyword: str, end: int, declared: dict[str, list[str]], bases: list[str]
) -> Iterator[tuple[str, str | None]]:
    """(keyword, IRI) for each IRI the keyword ending at `end` may name (every declaration of its prefix,
    every BASE); (keyword, None) when it names a variable or nothing readable."""
    target = _TARGET.match(sparql, end)
    if target is None or target.group("var"):
        yield keyword, None
        return
    if target.group("iri") is not None:
        candidates: list[str | None] = [target.group("iri")]
    else:
        local = re.sub(r"\\(.)", r"\1", target.group("local"))
        candidates = [ns + local for ns in declared.get(target.group("prefix") or "", [])] or [None]
    for iri in candidates:
        if iri is not None and not urlsplit(iri).scheme and bases:
            for base in bases:
                yield keyword, urljoin(base, iri)
        else:
            yield keyword, iri


def _tree(node: object) -> Iterator[CompValue]:
    """Every CompValue of an rdflib parse result, depth first."""
    if isinstance(node, CompValue):
        yield node
        for value in node.values():
            yield from _tree(value)
    elif isinstance(node, (ParseResults, list, tuple)):
        for value in node:
            yield from _tree(value)


def _field(node: CompValue, key: str) -> object:
    """A raw field of a parse node, None when absent (CompValue.get returns the key itself)."""
    return dict.get(node, key)


def _parsed_targets(parsed: ParseResults) -> Iterator[tuple[str, str | None]]:
    """(keyword, resolved IRI or None) for every SERVICE pattern and dataset clause of a parsed query."""
    prologue, body = parsed[0], parsed[1]
    declared: dict[str, str] = {}
    base = ""
    for decl in _tree(prologue):
        if decl.name == "PrefixDecl":
            declared[str(_field(decl, "prefix") or "")] = str(_field(decl, "iri"))
        elif decl.name == "Base":
            base = str(_field(decl, "iri"))

    def resolve(term: object) -> str | None:
        if isinstance(term, CompValue) and term.name == "pname":
            namespace = declared.get(str(_field(term, "prefix") or ""))
            return None if namespace is None else namespace + str(_field(term, "localname") or "")
        if isinstance(term, URIRef):
            return urljoin(base, str(term)) if base and not urlsplit(str(term)).scheme else str(term)
        return None  # a variable, or a term rdflib left unresolved

    for node in _tree(body):
        if node.name == "ServiceGraphPattern":
            term = _field(node, "term")
            yield "SERVICE", None if isinstance(term, Variable) else resolve(term)
        elif node.name == "DatasetClause":
            term = _field(node, "default")
            yield "FROM", resolve(_field(node, "named") if term is None else term)


def _check_form(sparql: str) -> str:
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
    return word


def query_form(sparql: str, allow_hosts: Iterable[str] | str | None = ()) -> str:
    """The query form (SELECT/ASK/CONSTRUCT/DESCRIBE) of `sparql`, or UnsafeQueryError.

    `allow_hosts`: hosts that SERVICE and FROM may name (see `allowed_hosts`); none by default.
    Call this before every execution; it is cheap next to running the query.
    """
    hosts = allowed_hosts(allow_hosts)
    word = _check_form(sparql)
    # SPARQL expands \uXXXX escapes before parsing (§19.2), so `\u0053ERVICE` is SERVICE to a store:
    # the lexical checks read the text as written and as a store reads it.
    for text in dict.fromkeys((sparql, expandUnicodeEscapes(sparql))):
        _check_form(text)
        bare = _BARE_UPDATE.search(_OPAQUE.sub(" ", text))
        if bare is not None:
            raise UnsafeQueryError(f"refused: update keyword {bare.group(1).upper()!r} inside a {word} query")
        for keyword, iri in _lexical_targets(text):
            _refuse_target(keyword, iri, hosts)
    try:
        parsed = parseQuery(sparql)
    except _PARSE_ERRORS:
        try:
            parseUpdate(sparql)
        except _PARSE_ERRORS:
            return word
        raise UnsafeQueryError("refused: the text parses as SPARQL Update") from None
    for keyword, iri in _parsed_targets(parsed):
        _refuse_target(keyword, iri, hosts)
    return word
