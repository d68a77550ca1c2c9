"""Neural SPARQL Machines / DBNQA parallel files: line i of a `.en` file with line i of its `.sparql`.

A folder holds `train`/`dev`/`test` pairs (dev becomes the validation split; `val`, `valid` and
`validation` are read as dev), or one or more other pairs (`data.en`/`data.sparql`, NSpM's older
`data_300.*`, DBNQA's `data.*`) with no official split. NSpM's own splitter writes train/dev/test next
to the `data.*` it cut them from, so when split pairs exist the other pairs are not read again.

The `.sparql` side is in the NSpM encoding, a chain of plain string replacements (LiberAI/NSpM
`generator_utils.py`, REPLACEMENTS table) that changed over the project's history. `decode_nspm`
reads every variant seen in the wild:

- brackets and separators: `brack_open`/`brack_close` `{}`, `par_open`/`par_close` and
  `attr_open`/`attr_close` `()`, `sep_dot` `.`, `sep_semi` `;`, `sep_com`/`sep_comma` `,`, `wildcard` `*`;
- `var_x` `?x`; `math_lt`/`math_gt`/`math_leq`/`math_geq`/`math_eq(l)`/`math_neq`/`math_mult`/
  `math_div`/`math_plus`/`math_minus`, `bool_not`; and the operators the encoder never replaced,
  written as they are (`=`, `!=`, `||`, `&&`, `<`, `>`), even glued to their operands (`?a=?b`);
- `quot`/`quote_str` around string literals, or literals written raw (`"Rome"@en`); `str_type` `^^`,
  `lang_en`/`@en`; `_oba_ X`/`_obd_ X` for `ORDER BY ASC(X)`/`DESC(X)`;
- prefixed names `dbr_X`, `<dbo_X>`, `rdf_type`, ... (`res_` is NSpM's alias of `dbr_`), and full
  IRIs such as `<http://xmlns.com/foaf/0.1/name>`;
- `[]`, the blank node of template queries; as a predicate (`?b [] ?a`, "any property", which SPARQL
  only allows as a variable) it becomes a fresh variable;
- template projections that Virtuoso accepted and SPARQL 1.1 does not: `select distinct(?x)`,
  `select ?a count(*) as ?c`.

Because the encoder replaced characters inside names too, a resource name containing `(`, `) `,
`. ` or `, ` comes out split over several tokens: `dbr_Colonie_(village) ,_New_York`,
`dbr_Glacier_National_Park_(U.S sep_dot)`, `dbr_Cheran_(director par_close`, and in the older
encoding `dbr_Alien_ attr_open film attr_close` (or `par_open ... par_close`), `<dbr_X_ attr_open Y
attr_close >`. The decoder glues those pieces back: a name keeps absorbing the next token while its
parentheses are unbalanced (a name ending in `_` opens them with the next `attr_open`), takes any
following piece that starts with `_` or `,` (no encoded token does), and a `<...` IRI runs to its `>`.
"""

from __future__ import annotations

import re
from pathlib import Path

from nmt_sparql.core.record import RecordError, read_utf8
from nmt_sparql.data.readers.base import InvalidQueryError, ReadResult, build_example
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import AGGREGATES, FUNCTIONS, KEYWORDS

# File stem -> split; any other stem with both files is a pair with no official split.
SPLIT_STEMS = {"train": "train", "dev": "validation", "val": "validation", "valid": "validation"}
SPLIT_STEMS |= {"validation": "validation", "test": "test"}
SPLIT_FILES = (("train", "train"), ("dev", "validation"), ("test", "test"))

SYMBOLS = {
    "brack_open": "{",
    "brack_close": "}",
    "par_open": "(",
    "par_close": ")",
    "attr_open": "(",
    "attr_close": ")",
    "sep_dot": ".",
    "sep_semi": ";",
    "sep_com": ",",
    "sep_comma": ",",
    "wildcard": "*",
    "math_leq": "<=",
    "math_geq": ">=",
    "math_lt": "<",
    "math_gt": ">",
    "math_eq": "=",
    "math_eql": "=",
    "math_neq": "!=",
    "math_mult": "*",
    "math_div": "/",
    "math_plus": "+",
    "math_minus": "-",
    "bool_not": "!",
}
# Characters the encoder left as they were: they pass through.
RAW = {"=", "!=", "<", ">", "<=", ">=", "||", "&&", "!", "+", "-", "*", "/"}
RAW |= {"{", "}", "(", ")", ".", ";", ",", "[", "]"}
QUOTES = {"quot", "quote_str"}
# Encoded prefix (`dbr_`) -> prefix of the dbpedia map; `res_` is NSpM's alias of `dbr_`.
PREFIXES = {
    p: p
    for p in (
        "dbr",
        "dbo",
        "dbp",
        "dbc",
        "dct",
        "geo",
        "georss",
        "rdf",
        "rdfs",
        "foaf",
        "owl",
        "yago",
        "skos",
        "xsd",
    )
}
PREFIXES["res"] = "dbr"
_NAME = re.compile(rf"^(<?)({'|'.join(sorted(PREFIXES, key=len, reverse=True))})_(.+?)(>?)$")
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
_ENCODED_VARIABLE = re.compile(r"^var_[A-Za-z0-9_]+$")
_VARIABLE = re.compile(r"^[?$][A-Za-z0-9_]+$")
_FULL_IRI = re.compile(r'^<[^<>"{}|^`\\\x00-\x20]+>$')
_LANG = re.compile(r"^@[A-Za-z]+(?:-[A-Za-z0-9]+)*$")
_GLUED_OPERATOR = re.compile(r"(<=|>=|!=|\|\||&&|=|<|>)")
# A property name with a variable glued on; only schema prefixes (`dbr_Ivar_Aasen` is one resource).
_GLUED_VARIABLE = re.compile(
    r"^(dbo|dbp|rdf|rdfs|foaf|dct|geo|georss|skos|owl)_([A-Za-z0-9_]*[A-Za-z0-9])var_(\w+)$"
)
_IRI_UNSAFE = re.compile(r'[<>"{}|^`\\\x00-\x20]')
_PIECE = {
    "par_close": ")",
    "attr_close": ")",
    "par_open": "(",
    "attr_open": "(",
    "sep_dot": ".",
    "sep_com": ",",
}
_OPENS = ("par_open", "attr_open")


class NspmDecodeError(ValueError):
    """An encoded query with a token the NSpM encoding does not define."""


def _piece_text(token: str) -> str:
    """A fragment of a split resource name, with encoded punctuation turned back into characters."""
    for encoded, char in _PIECE.items():
        token = token.replace(encoded, char)
    return token


def _is_open_iri(token: str) -> bool:
    """`<dbr_Alien_` or `<http://...Foo_`: an IRI the encoder split, waiting for its `>`."""
    return token.startswith("<") and len(token) > 1 and token not in RAW and ">" not in token


def _glue_iri(tokens: list[str], i: int, tok: str) -> tuple[str, int]:
    """`<...` plus the pieces up to the one that ends with `>` (unchanged when no piece does); the older
    encoder turned the `>` after a `)` into ` math_gt `, which therefore closes the IRI too."""
    end = next((j for j in range(i, len(tokens)) if tokens[j].endswith(">") or tokens[j] == "math_gt"), None)
    if end is None:
        return tok, i
    pieces = [">" if t == "math_gt" else _piece_text(t) for t in tokens[i : end + 1]]
    return tok + "".join(pieces), end + 1


def _glue_names(tokens: list[str]) -> list[str]:
    """Re-join resource names and IRIs that the string-replacement encoder split over several tokens."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if _is_open_iri(tok):
            tok, i = _glue_iri(tokens, i, tok)
            out.append(tok)
            continue
        if _NAME.match(tok) is None or tok.startswith("<"):
            out.append(tok)
            continue
        if tok.endswith("_") and i < len(tokens) and tokens[i] in _OPENS:
            tok += "("
            i += 1
        while i < len(tokens):
            nxt = tokens[i]
            if tok.count("(") > tok.count(")") or nxt[:1] in ("_", ","):
                tok += _piece_text(nxt)
                i += 1
            else:
                break
        out.append(tok)
    return out


def _glue_raw_literals(tokens: list[str]) -> list[str]:
    """A raw string literal (`"Le Monde"@fr`, older encodings left `"` as it was) split at its spaces,
    joined back into one token."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok[:1] in ('"', "'") and not _closed_literal(tok):
            end = next((j for j in range(i, len(tokens)) if tok[0] in tokens[j]), None)
            if end is not None:
                tok = " ".join(tokens[i - 1 : end + 1])
                i = end + 1
        out.append(tok)
    return out


def _closed_literal(token: str) -> bool:
    quote = token[0]
    return len(token) > 1 and quote in token[1:]


def _iri(prefix: str, local: str) -> str:
    ns = prefix_map("dbpedia").prefixes[PREFIXES[prefix]]
    local = _IRI_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), local)
    return f"<{ns}{local}>"


def _name_iri(token: str) -> str | None:
    """`dbr_X` / `<dbo_X>` as a full IRI, or None when `token` is no encoded name."""
    name = _NAME.match(token)
    if name is None or bool(name.group(1)) != bool(name.group(4)):
        return None
    return _iri(name.group(2), name.group(3))


def _raw_literal(token: str) -> str | None:
    """A literal the encoder left raw, its `^^datatype` decoded; None when `token` is no literal."""
    quote = token[:1]
    if quote not in ('"', "'") or not _closed_literal(token):
        return None
    end = token.rindex(quote)
    body, suffix = token[: end + 1], token[end + 1 :]
    if not suffix or _LANG.match(suffix):
        return body + suffix
    if suffix.startswith("^^"):
        datatype = suffix[2:]
        iri = _name_iri(datatype) or (datatype if _FULL_IRI.match(datatype) else None)
        return None if iri is None else f"{body}^^{iri}"
    return None


def _decode_token(tok: str) -> str | None:
    """One self-contained encoded token as SPARQL text, or None when it is not one."""
    if _GLUED_VARIABLE.match(tok):
        return None
    if tok in SYMBOLS:
        return SYMBOLS[tok]
    if _ENCODED_VARIABLE.match(tok):
        return "?" + tok[4:]
    if tok in RAW or tok == "[]" or _VARIABLE.match(tok):
        return tok
    if _NUMBER.match(tok) or tok.lower() in KEYWORDS or tok.lower() in FUNCTIONS:
        return tok
    iri = _name_iri(tok)
    if iri is not None:
        return iri
    return tok if _FULL_IRI.match(tok) else _raw_literal(tok)


def _split_glued(tok: str) -> list[str] | None:
    """`var_a=dbr_X` -> [`?a`, `=`, `<...X>`], `dbp_lengthvar_b` (a template's `dbp:length?b`) ->
    [`<...length>`, `?b`], when every piece decodes; else None."""
    glued_variable = _GLUED_VARIABLE.match(tok)
    if glued_variable is not None:
        return [_iri(glued_variable.group(1), glued_variable.group(2)), "?" + glued_variable.group(3)]
    pieces = [p for p in _GLUED_OPERATOR.split(tok) if p]
    if len(pieces) < 2:
        return None
    decoded = [_decode_token(p) for p in pieces]
    return None if any(d is None for d in decoded) else [d for d in decoded if d is not None]


def _decode_tokens(encoded: str) -> list[str]:
    tokens = _glue_raw_literals(_glue_names(encoded.split()))
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok in QUOTES:
            end = next((j for j in range(i, len(tokens)) if tokens[j] in QUOTES), None)
            if end is None:
                raise NspmDecodeError(f"unclosed string literal ('{tok}' at token {i - 1}) in: {encoded!r}")
            body = " ".join(tokens[i:end]).replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'"{body}"')
            i = end + 1
        elif (tok == "lang_en" or _LANG.match(tok)) and out and out[-1].endswith('"'):
            out[-1] += "@en" if tok == "lang_en" else tok
        elif tok == "str_type" and out and out[-1].endswith('"'):
            out[-1] += "^^"
        elif tok in ("_oba_", "_obd_") and i < len(tokens):
            out += ["order", "by", "asc" if tok == "_oba_" else "desc", "(", *_decode_tokens(tokens[i]), ")"]
            i += 1
        elif out and out[-1].endswith('"^^') and _name_iri(tok):
            out[-1] += _name_iri(tok) or ""
        elif (decoded := _decode_token(tok)) is not None:
            out.append(decoded)
        elif (pieces := _split_glued(tok)) is not None:
            out += pieces
        else:
            raise NspmDecodeError(f"token {tok!r} is not part of the NSpM encoding, in: {encoded!r}")
    return out


def _is_term(item: str) -> bool:
    return item[:1] in ("?", "$", "<", '"', "'") or item in ("[]", "]") or _NUMBER.match(item) is not None


def _blank_predicates_as_variables(items: list[str]) -> list[str]:
    """`?b [] ?a` ("any property" in a template) as `?b ?p1 ?a`: SPARQL allows no blank predicate."""
    used = {item for item in items if item.startswith("?")}
    fresh = (f"?p{n}" for n in range(1, len(items) + 2) if f"?p{n}" not in used)
    out: list[str] = []
    for k, item in enumerate(items):
        prev = out[-1] if out else ""
        before = out[-2] if len(out) > 1 else ""
        predicate = prev == ";" or (_is_term(prev) and before in ("{", ".", "}", ""))
        if item == "[]" and predicate and k + 1 < len(items) and _is_term(items[k + 1]):
            item = next(fresh)
        out.append(item)
    return out


def _standard_projection(items: list[str]) -> list[str]:
    """Template projections that SPARQL 1.1 refuses, rewritten: `distinct ( ?x )` -> `distinct ?x`,
    `count ( * ) as ?c` -> `( count ( * ) as ?c )`. Only the projection (before `where` or `{`) changes."""
    lower = [item.lower() for item in items]
    end = next((k for k, item in enumerate(lower) if item in ("where", "{")), len(items))
    out: list[str] = []
    k = 0
    while k < end:
        item = lower[k]
        lone_variable = item == "(" and k + 2 < end and items[k + 1].startswith("?") and items[k + 2] == ")"
        if lone_variable and (not out or out[-1].lower() not in FUNCTIONS):
            out.append(items[k + 1])
            k += 3
            continue
        if item in AGGREGATES and k + 1 < end and items[k + 1] == "(" and (not out or out[-1] != "("):
            close = next((j for j in range(k + 1, end) if items[j] == ")"), None)
            if close is not None and close + 2 < end and lower[close + 1] == "as":
                out += ["(", *items[k : close + 3], ")"]
                k = close + 3
                continue
        out.append(items[k])
        k += 1
    return out + items[end:]


def decode_nspm(encoded: str) -> str:
    """NSpM-encoded query -> SPARQL text (full IRIs; canonicalize it with the dbpedia prefix map)."""
    items = _decode_tokens(encoded)
    return " ".join(_standard_projection(_blank_predicates_as_variables(items)))


def _read_lines(path: Path) -> list[str]:
    if not path.is_file():
        raise FileNotFoundError(f"NSpM file not found: {path}")
    return read_utf8(path).splitlines()


def read_nspm_split(
    folder: Path, stem: str, split: str | None, skip_invalid: bool = False, id_prefix: str | None = None
) -> ReadResult:
    """One `stem.en` / `stem.sparql` pair of an NSpM folder."""
    en_path, sparql_path = folder / f"{stem}.en", folder / f"{stem}.sparql"
    questions, queries = _read_lines(en_path), _read_lines(sparql_path)
    if len(questions) != len(queries):
        raise RecordError(
            sparql_path,
            "<file>",
            "<lines>",
            f"{len(queries)} queries but {len(questions)} questions in {en_path}",
        )
    prefix = id_prefix if id_prefix is not None else folder.name
    result = ReadResult(skip_invalid=skip_invalid)
    for i, (question, encoded) in enumerate(zip(questions, queries)):
        if not question.strip() and not encoded.strip():
            continue  # a blank pair (compositions_v2/test ends with one): no record
        if not question.strip():
            raise RecordError(en_path, i, "question", "empty line")
        if not encoded.strip():
            raise RecordError(sparql_path, i, "sparql", "empty line")
        record_id = f"{prefix}/{stem}/{i}"
        with result.invalid_queries_skipped():
            try:
                decoded = decode_nspm(encoded)
            except NspmDecodeError as err:
                raise InvalidQueryError(sparql_path, i, "sparql", str(err), record_id) from err
            result.append(
                build_example(
                    sparql_path,
                    i,
                    "sparql",
                    decoded,
                    "dbpedia",
                    id=record_id,
                    question=" ".join(question.split()),
                    split=split,
                )
            )
    return result


def nspm_pairs(folder: Path) -> list[tuple[str, str | None]]:
    """(stem, split) of the `.en`/`.sparql` pairs to read in `folder`: its train/dev/test pairs when it
    has any, else every pair (no official split). A `.sparql` file without its `.en` is an error."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(
            f"NSpM folder not found: {folder} (set dataset.path to a folder of .en/.sparql)"
        )
    stems = sorted(p.stem for p in folder.glob("*.sparql"))
    for stem in stems:
        if not (folder / f"{stem}.en").is_file():
            raise FileNotFoundError(f"{folder / (stem + '.sparql')} has no question file {stem}.en beside it")
    if not stems:
        raise FileNotFoundError(
            f"no .sparql file in {folder}: an NSpM folder holds data.en/data.sparql or train/dev/test pairs"
        )
    order = {stem: n for n, stem in enumerate(SPLIT_STEMS)}
    split_stems = sorted((s for s in stems if s in SPLIT_STEMS), key=order.__getitem__)
    if split_stems:
        return [(stem, SPLIT_STEMS[stem]) for stem in split_stems]
    return [(stem, None) for stem in stems]


def read_nspm(folder: Path, skip_invalid: bool = False, id_prefix: str | None = None) -> ReadResult:
    """Every pair of an NSpM/DBNQA folder (`nspm_pairs`), queries decoded, canonicalized and checked."""
    folder = Path(folder)
    result = ReadResult(skip_invalid=skip_invalid)
    for stem, split in nspm_pairs(folder):
        result.extend_result(read_nspm_split(folder, stem, split, skip_invalid, id_prefix))
    return result
