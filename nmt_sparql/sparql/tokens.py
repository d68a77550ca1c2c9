"""The one place that knows how SPARQL becomes model tokens and back.

`tokenize` lexes a query, drops PREFIX/BASE declarations, compacts full IRIs with the
KB's prefix map (`<http://dbpedia.org/resource/X>` -> `dbr:X`), writes `rdf:type` as
`a`, lower-cases keywords, normalizes literals to one token each, splits punctuation,
and drops the optional `.` before a `}`. `detokenize` turns such tokens back into executable SPARQL 1.1 with the
PREFIX declarations it needs. `token_types` classifies tokens into the paper's classes
(§VI.A) and `kb_tokens` picks the KB vocabulary K out of a query.
"""

from __future__ import annotations

import re
from enum import Enum

from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
UNK = "<unk>"


class SparqlSyntaxError(ValueError):
    """A query that cannot be lexed; the message quotes the offending position."""


class TokenType(str, Enum):
    URI = "URIs"
    KEYWORD = "SVocab"
    FUNCTION = "Fct"
    LITERAL = "Lit"
    VARIABLE = "Var"
    UNKNOWN = "Unk"


_LOCAL_ESC = r"\\[_~.\-!$&'()*+,;=/?#@%]"
_PN_PREFIX = r"(?:[A-Za-z\u00C0-\uFFFF](?:[\w\-.\u00B7]*[\w\-\u00B7])?)?"
_PN_LOCAL = rf"(?:(?:[\w:\-\u00B7]|%[0-9A-Fa-f]{{2}}|{_LOCAL_ESC})(?:(?:[\w:\-.\u00B7]|%[0-9A-Fa-f]{{2}}|{_LOCAL_ESC})*)?)?"
_IRI = r"<[^<>\"{}|^`\\\x00-\x20]*>"
_LANG = r"@[A-Za-z]+(?:-[A-Za-z0-9]+)*"
_STRING = (
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'
    + r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    + r'|"(?:[^"\\\n]|\\.)*"'
    + r"|'(?:[^'\\\n]|\\.)*'"
)

_LEXER = re.compile(
    rf"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<iri>{_IRI})
  | (?P<string>(?:{_STRING})(?:{_LANG}|\^\^(?:{_IRI}|{_PN_PREFIX}:{_PN_LOCAL}))?)
  | (?P<var>[?$][\w\u00B7]+)
  | (?P<bnode>_:[\w\-\u00B7]+(?:\.[\w\-\u00B7]+)*)
  | (?P<number>(?:\d+\.\d+|\.\d+|\d+)(?:[eE][+-]?\d+)?)
  | (?P<pname>{_PN_PREFIX}:{_PN_LOCAL})
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op>\^\^|&&|\|\||!=|<=|>=|[=<>!+\-*/{{}}()\[\].,;|^])
    """,
    re.VERBOSE,
)

KEYWORDS = {
    "select", "distinct", "reduced", "where", "ask", "construct", "describe", "from", "named",
    "filter", "optional", "union", "minus", "graph", "service", "silent", "bind", "as", "values",
    "order", "by", "asc", "desc", "limit", "offset", "group", "having", "not", "exists", "in", "a",
    "undef", "prefix", "base",
}  # fmt: skip
FUNCTIONS = {
    "count", "sum", "min", "max", "avg", "sample", "group_concat", "separator", "str", "lang",
    "langmatches", "datatype", "bound", "iri", "uri", "bnode", "rand", "abs", "ceil", "floor", "round",
    "concat", "strlen", "ucase", "lcase", "encode_for_uri", "contains", "strstarts", "strends",
    "strbefore", "strafter", "year", "month", "day", "hours", "minutes", "seconds", "timezone", "tz",
    "now", "uuid", "struuid", "md5", "sha1", "sha256", "sha384", "sha512", "coalesce", "if",
    "strlang", "strdt", "sameterm", "isiri", "isuri", "isblank", "isliteral", "isnumeric", "regex",
    "substr", "replace",
}  # fmt: skip
OPERATORS = {"=", "!=", "<", ">", "<=", ">=", "&&", "||", "!", "+", "-", "*", "/", "^", "|"}
PUNCTUATION = {"{", "}", "(", ")", "[", "]", ".", ",", ";"}
AGGREGATES = {"count", "sum", "min", "max", "avg", "sample", "group_concat"}
# Prefixed in detokenized text only when every engine reads it: no `.` (pyoxigraph 0.5 rejects
# `dbr:U.S._Route_59`), no reserved character; other IRIs are written in full.
NUMBER = re.compile(r"-?\d+(\.\d+)?")  # a plain number literal token ("1960", "-2.5")
_SAFE_LOCAL = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_\-]*$")
# What a dataset writes when it forgets that `(` and `/` end a prefixed name: `dbr:Alien_(film)`,
# `dbr:AC/DC`. SPARQL reads `dbr:Alien_ ( film )`, which is no query, so it is refused by name.
_GLUED = re.compile(
    r"\((?!(?:[-+]?[\d.]+(?:[eE][-+]?\d+)?|true|false)\))[^\s()?$\"':,]+\)"  # not a cast: xsd:integer(5)
    r"|/(?!a[\s{}.;,])[A-Za-z0-9_][^\s/{}()<>:,;]*(?=[\s{}.;,]|$)"  # not a path: dbo:a/dbo:b, dbo:a/a
)
_SIMPLE_PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]*$")


def _unescape_string(body: str) -> str:
    escapes = {"t": "\t", "n": "\n", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(0)), body)


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def _split_literal(text: str) -> tuple[str, str, str]:
    """(body, quote, suffix) of a lexed string literal such as `'x'@en` or `\"1\"^^xsd:int`."""
    quote = text[:3] if text[:3] in ('"""', "'''") else text[0]
    end = text.rindex(quote)
    return text[len(quote) : end], quote, text[end + len(quote) :]


class _Compactor:
    """Resolves prefixed names and IRIs against a query's declarations and a KB's prefix map."""

    def __init__(self, kb: PrefixMap):
        self.kb = kb
        self.declared: dict[str, str] = {}

    def iri_of_pname(self, pname: str, where: int, query: str) -> str:
        prefix, local = pname.split(":", 1)
        ns = self.declared.get(prefix, self.kb.prefixes.get(prefix))
        if ns is None:
            raise SparqlSyntaxError(f"undeclared prefix '{prefix}:' at character {where} of: {query!r}")
        return ns + re.sub(r"\\(.)", r"\1", local)

    def token_of_iri(self, iri: str) -> str:
        if iri == RDF_TYPE:
            return "a"
        found = self.kb.compact(iri)
        if found is None or not _SIMPLE_PREFIX.match(found[0]):
            return f"<{iri}>"
        return f"{found[0]}:{found[1]}"


def tokenize(query: str, kb: str | PrefixMap = "dbpedia") -> list[str]:
    """SPARQL text -> model tokens (see module docstring for the normal form)."""
    pm = prefix_map(kb) if isinstance(kb, str) else kb
    comp = _Compactor(pm)
    raw: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(query):
        m = _LEXER.match(query, pos)
        if m is None:
            raise SparqlSyntaxError(f"unexpected character {query[pos]!r} at {pos} of: {query!r}")
        kind = m.lastgroup or ""
        text = m.group()
        if kind == "pname" and text.endswith(".") and not text.endswith("\\."):
            text = text.rstrip(".")
        pos = m.start() + len(text)
        if kind == "pname" and (glued := _GLUED.match(query, pos)) is not None:
            escaped = re.sub(r"([()/])", r"\\\1", glued.group())
            raise SparqlSyntaxError(
                f"prefixed name {text + glued.group()!r} at {m.start()}: '(', ')' and '/' end a prefixed "
                f"name; escape them ({text + escaped}) or write the IRI in full (<...>), in: {query!r}"
            )
        if kind not in ("ws", "comment"):
            raw.append((kind, text, m.start()))

    tokens: list[str] = []
    i = 0
    while i < len(raw):
        kind, text, where = raw[i]
        lower = text.lower()
        if kind == "name" and lower == "prefix" and i + 2 < len(raw) and raw[i + 1][0] == "pname":
            comp.declared[raw[i + 1][1].rstrip(":")] = raw[i + 2][1][1:-1]
            i += 3
            continue
        if kind == "name" and lower == "base" and i + 1 < len(raw):
            i += 2
            continue
        if kind == "iri":
            tokens.append(comp.token_of_iri(text[1:-1]))
        elif kind == "pname":
            tokens.append(comp.token_of_iri(comp.iri_of_pname(text, where, query)))
        elif kind == "string":
            body, quote, suffix = _split_literal(text)
            value = _unescape_string(body)
            if suffix.startswith("^^"):
                dt = suffix[2:]
                iri = dt[1:-1] if dt.startswith("<") else comp.iri_of_pname(dt, where, query)
                suffix = "^^" + comp.token_of_iri(iri)
            elif suffix:
                suffix = suffix.lower()
            tokens.append(_quote(value) + suffix)
        elif kind == "var":
            tokens.append("?" + text[1:])
        elif kind == "name":
            tokens.append(
                lower if lower in KEYWORDS or lower in FUNCTIONS or lower in ("true", "false") else text
            )
        else:
            tokens.append(text)
        i += 1
    # A `.` that closes a group is optional in SPARQL and used at random in datasets (LC-QuAD 1.0):
    # dropping it gives one canonical form, so a model is never asked to guess it.
    return [
        t for j, t in enumerate(tokens) if not (t == "." and j + 1 < len(tokens) and tokens[j + 1] == "}")
    ]


def _render_iri_token(token: str, pm: PrefixMap, used: set[str]) -> str:
    """A compact IRI token as SPARQL text: prefixed when safe for every engine, else a full IRI."""
    if token.startswith("<") and token.endswith(">"):
        return token
    prefix, local = token.split(":", 1)
    ns = pm.prefixes.get(prefix)
    if ns is None:
        raise SparqlSyntaxError(f"token {token!r} uses a prefix unknown to KB '{pm.name}'")
    if _SAFE_LOCAL.match(local):
        used.add(prefix)
        return token
    return f"<{ns}{local}>"


def _is_pname_token(token: str) -> bool:
    return (
        ":" in token
        and not token.startswith(('"', "<", "?"))
        and _SIMPLE_PREFIX.match(token.split(":", 1)[0]) is not None
    )


def _standard_projection(tokens: list[str]) -> list[str]:
    """Rewrite Virtuoso's `SELECT COUNT(?x)` shorthand (LC-QuAD 1.0) as `SELECT (COUNT(?x) AS ?count)`."""
    out: list[str] = []
    i = 0
    in_projection = False
    taken = {t for t in tokens if t.startswith("?")}
    while i < len(tokens):
        tok = tokens[i]
        if tok == "select":
            in_projection = True
        elif tok in ("where", "{", "from"):
            in_projection = False
        if (
            in_projection
            and tok in AGGREGATES
            and i + 1 < len(tokens)
            and tokens[i + 1] == "("
            and (not out or out[-1] != "(")
        ):
            depth, j = 0, i + 1
            while j < len(tokens):
                depth += tokens[j] == "("
                depth -= tokens[j] == ")"
                if depth == 0:
                    break
                j += 1
            name, n = f"?{tok}", 1
            while name in taken:
                name, n = f"?{tok}{n}", n + 1
            taken.add(name)
            out.extend(["(", *tokens[i : j + 1], "as", name, ")"])
            i = j + 1
            continue
        out.append(tok)
        i += 1
    return out


def _is_path_step(text: str) -> bool:
    return (text.startswith("<") and text.endswith(">")) or _is_pname_token(text)


def detokenize(tokens: list[str], kb: str | PrefixMap = "dbpedia") -> str:
    """Model tokens -> executable SPARQL 1.1 text with the PREFIX declarations it uses."""
    pm = prefix_map(kb) if isinstance(kb, str) else kb
    used: set[str] = set()
    parts: list[str] = []
    for tok in _standard_projection(list(tokens)):
        if tok.startswith('"') and "^^" in tok[tok.rindex('"') :]:
            head, dt = tok.rsplit("^^", 1)
            parts.append(head + "^^" + (_render_iri_token(dt, pm, used) if _is_pname_token(dt) else dt))
        elif _is_pname_token(tok) or (tok.startswith("<") and tok.endswith(">") and len(tok) > 2):
            parts.append(_render_iri_token(tok, pm, used))
        elif tok in ("*", "+") and parts and _is_path_step(parts[-1]):
            parts[-1] += tok  # a property-path modifier is glued to its IRI: `wdt:P279*`
        else:
            parts.append(tok)
    header = "".join(f"PREFIX {p}: <{pm.prefixes[p]}> " for p in sorted(used))
    return header + " ".join(parts)


def canonicalize(query: str, kb: str | PrefixMap = "dbpedia") -> str:
    """The project's canonical text of a query: its tokens written back as SPARQL."""
    return detokenize(tokenize(query, kb), kb)


def _after_lang_equals(tokens: list[str], i: int) -> bool:
    """True for the `"en"` of `lang ( ?x ) = "en"`: a template constant, not a KB literal."""
    return (
        i >= 5
        and tokens[i - 1] in ("=", ",")
        and tokens[i - 2] == ")"
        and tokens[i - 5] in ("lang", "langmatches")
    )


def token_types(tokens: list[str], kb: str | PrefixMap = "dbpedia") -> list[TokenType]:
    """Classify each token into the paper's classes (URIs, SVocab, Fct, Lit, Var, Unk)."""
    pm = prefix_map(kb) if isinstance(kb, str) else kb
    types: list[TokenType] = []
    for i, tok in enumerate(tokens):
        if tok == UNK:
            types.append(TokenType.UNKNOWN)
        elif tok.startswith(("?", "_:")):
            types.append(TokenType.VARIABLE)
        elif tok.startswith('"') or tok in ("true", "false"):
            types.append(TokenType.KEYWORD if _after_lang_equals(tokens, i) else TokenType.LITERAL)
        elif tok[:1].isdigit() or (tok[:1] == "." and tok[1:2].isdigit()):
            after_limit = i > 0 and tokens[i - 1] in ("limit", "offset")
            types.append(TokenType.KEYWORD if after_limit else TokenType.LITERAL)
        elif (tok.startswith("<") and tok.endswith(">") and len(tok) > 2) or _is_pname_token(tok):
            types.append(TokenType.KEYWORD if tok in pm.vocabulary_iris else TokenType.URI)
        elif tok in FUNCTIONS or tok in OPERATORS:
            types.append(TokenType.FUNCTION)
        elif tok in KEYWORDS or tok in PUNCTUATION:
            types.append(TokenType.KEYWORD)
        else:
            types.append(TokenType.UNKNOWN)
    return types


def kb_tokens(tokens: list[str], kb: str | PrefixMap = "dbpedia") -> list[str]:
    """The KB vocabulary K of a query (URIs and literals), unique, in order of appearance."""
    seen: dict[str, None] = {}
    for tok, kind in zip(tokens, token_types(tokens, kb)):
        if kind in (TokenType.URI, TokenType.LITERAL):
            seen.setdefault(tok, None)
    return list(seen)


def literal_value(token: str) -> str:
    """The lexical value of a literal token (`\"roman\"@en` -> `roman`, `22.4` -> `22.4`)."""
    if not token.startswith('"'):
        return token
    body, _, _ = _split_literal(token)
    return _unescape_string(body)


def local_name(token: str) -> str:
    """The part of an IRI token after its prefix or last `/` or `#`: the fallback label."""
    if token.startswith("<"):
        return re.split(r"[/#]", token[1:-1].rstrip("/"))[-1]
    return token.split(":", 1)[1] if ":" in token else token
