"""Neural SPARQL Machines / DBNQA parallel files: `{train,dev,test}.en` and `.sparql`, line i with line i.

The `.sparql` side is in the NSpM encoding (LiberAI/NSpM `generator_utils.py`, REPLACEMENTS table and
its later variants): `brack_open`/`brack_close` for `{`/`}`, `par_open`/`par_close` and
`attr_open`/`attr_close` for parentheses, `sep_dot` `.`, `sep_semi` `;`, `sep_com`/`sep_comma` `,`,
`var_x` `?x`, `wildcard` `*`, `math_lt`/`math_gt`/`math_leq`/`math_geq`/`math_eq(l)`/`math_neq`/
`math_mult`/`math_div`/`math_plus`/`math_minus` for the operators, `bool_not` `!`, `quot`/`quote_str`
around string literals, `str_type` `^^`, `lang_en` `@en`, `_oba_ X`/`_obd_ X` for
`ORDER BY ASC(X)`/`DESC(X)`, and `dbr_X`, `dbo_X`, `<dbo_X>`, `rdf_type`, ... for prefixed names
(`prefix_` for `prefix:`).

The encoder was a chain of plain string replacements, so a resource name containing `) `, `. ` or
`, ` comes out split over several tokens (`dbr_Colonie_(village) ,_New_York`,
`dbr_Glacier_National_Park_(U.S sep_dot)`, `dbr_Cheran_(director par_close`). `decode_nspm` glues
those pieces back: a name keeps absorbing the next token while its parentheses are unbalanced, and
takes any following piece that starts with `_` or `,` (no encoded token does).
"""

from __future__ import annotations

import re
from pathlib import Path

from nmt_sparql.core.record import RecordError, read_utf8
from nmt_sparql.data.readers.base import ReadResult, build_example
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import FUNCTIONS, KEYWORDS

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
_IRI_UNSAFE = re.compile(r'[<>"{}|^`\\\x00-\x20]')
_PIECE = {
    "par_close": ")",
    "attr_close": ")",
    "par_open": "(",
    "attr_open": "(",
    "sep_dot": ".",
    "sep_com": ",",
}


class NspmDecodeError(ValueError):
    """An encoded query with a token the NSpM encoding does not define."""


def _piece_text(token: str) -> str:
    """A fragment of a split resource name, with encoded punctuation turned back into characters."""
    for encoded, char in _PIECE.items():
        token = token.replace(encoded, char)
    return token


def _glue_names(tokens: list[str]) -> list[str]:
    """Re-join resource names that the string-replacement encoder split over several tokens."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if _NAME.match(tok) is None or tok.startswith("<"):
            out.append(tok)
            continue
        while i < len(tokens):
            nxt = tokens[i]
            if tok.count("(") > tok.count(")") or nxt[:1] in ("_", ","):
                tok += _piece_text(nxt)
                i += 1
            else:
                break
        out.append(tok)
    return out


def _iri(prefix: str, local: str) -> str:
    ns = prefix_map("dbpedia").prefixes[PREFIXES[prefix]]
    local = _IRI_UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8")), local)
    return f"<{ns}{local}>"


def decode_nspm(encoded: str) -> str:
    """NSpM-encoded query -> SPARQL text (full IRIs; canonicalize it with the dbpedia prefix map)."""
    tokens = _glue_names(encoded.split())
    out: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        name = _NAME.match(tok)
        if tok in SYMBOLS:
            out.append(SYMBOLS[tok])
        elif tok.startswith("var_") and len(tok) > 4:
            out.append("?" + tok[4:])
        elif tok in QUOTES:
            end = next((j for j in range(i, len(tokens)) if tokens[j] in QUOTES), None)
            if end is None:
                raise NspmDecodeError(f"unclosed string literal ('{tok}' at token {i - 1}) in: {encoded!r}")
            body = " ".join(tokens[i:end]).replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'"{body}"')
            i = end + 1
        elif tok in ("lang_en", "@en") and out and out[-1].endswith('"'):
            out[-1] += "@en"
        elif tok == "str_type" and out and out[-1].endswith('"'):
            out[-1] += "^^"
        elif tok in ("_oba_", "_obd_") and i < len(tokens):
            target = decode_nspm(tokens[i])
            out.append(f"order by {'asc' if tok == '_oba_' else 'desc'} ( {target} )")
            i += 1
        elif name is not None and bool(name.group(1)) == bool(name.group(4)):
            iri = _iri(name.group(2), name.group(3))
            if out and out[-1].endswith('"^^'):
                out[-1] += iri
            else:
                out.append(iri)
        elif _NUMBER.match(tok) or tok.lower() in KEYWORDS or tok.lower() in FUNCTIONS:
            out.append(tok)
        else:
            raise NspmDecodeError(f"token {tok!r} is not part of the NSpM encoding, in: {encoded!r}")
    return " ".join(out)


def _read_lines(path: Path) -> list[str]:
    if not path.is_file():
        raise FileNotFoundError(f"NSpM file not found: {path}")
    return read_utf8(path).splitlines()


def read_nspm_split(folder: Path, stem: str, split: str | None, skip_invalid: bool = False) -> ReadResult:
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
    result = ReadResult(skip_invalid=skip_invalid)
    for i, (question, encoded) in enumerate(zip(questions, queries)):
        if not question.strip() and not encoded.strip():
            continue  # a blank pair (compositions_v2/test ends with one): no record
        if not question.strip():
            raise RecordError(en_path, i, "question", "empty line")
        if not encoded.strip():
            raise RecordError(sparql_path, i, "sparql", "empty line")
        try:
            decoded = decode_nspm(encoded)
        except NspmDecodeError as err:
            raise RecordError(sparql_path, i, "sparql", str(err)) from err
        with result.invalid_queries_skipped():
            result.append(
                build_example(
                    sparql_path,
                    i,
                    "sparql",
                    decoded,
                    "dbpedia",
                    id=f"{folder.name}/{stem}/{i}",
                    question=" ".join(question.split()),
                    split=split,
                )
            )
    return result


def read_nspm(folder: Path, skip_invalid: bool = False) -> ReadResult:
    """A folder with `train`, `dev` and `test` pairs (dev becomes the validation split)."""
    folder = Path(folder)
    result = ReadResult()
    for stem, split in SPLIT_FILES:
        result.extend_result(read_nspm_split(folder, stem, split, skip_invalid))
    return result
