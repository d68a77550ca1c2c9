"""Check the `«unit»`s a user writes in a question before a model may copy them into a query.

A copy model writes a unit's text verbatim into the SPARQL it produces, so a unit is query text
chosen by whoever wrote the question: `«?y . SERVICE <http://10.0.0.5/> { ?x ?p ?o } } #»` would
become part of the query. A unit is therefore accepted only as one KB element, the way the project's
tokenizer writes them (sparql/tokens.py): an IRI `<...>` (no spaces or `<>"{}|^`\\`), a compact IRI
`prefix:local` (no spaces, no `<>"{}|^`\\`; with a prefix map, a prefix it knows), or a literal: a
quoted string with SPARQL escapes and an optional `@lang` or `^^datatype`, a number, true or false.
"""

from __future__ import annotations

import re

from nmt_sparql.annotation.annotate import split_question
from nmt_sparql.core.marks import unmark
from nmt_sparql.sparql.prefixes import PrefixMap


class UnitError(ValueError):
    """A `«unit»` of a question is not one well-formed KB element."""


_IRI = r"<[^<>\"{}|^`\\\x00-\x20]*>"
_PNAME = r"(?P<prefix>[A-Za-z][A-Za-z0-9_\-]*):[^<>\"{}|^`\\\x00-\x20]*"
_DATATYPE_PNAME = r"(?P<dt_prefix>[A-Za-z][A-Za-z0-9_\-]*):[^<>\"{}|^`\\\x00-\x20]*"
_ESCAPE = r"\\[tbnrf\"'\\]"
_STRING = rf'"(?:[^"\\\n\r]|{_ESCAPE})*"' + rf"|'(?:[^'\\\n\r]|{_ESCAPE})*'"
_LANG = r"@[A-Za-z]+(?:-[A-Za-z0-9]+)*"
_NUMBER = r"[+-]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][+-]?\d+)?"
_UNIT = re.compile(
    rf"(?:{_IRI})|(?:{_PNAME})|(?:(?:{_STRING})(?:{_LANG}|\^\^(?:{_IRI}|{_DATATYPE_PNAME}))?)"
    rf"|(?:{_NUMBER})|true|false"
)


def units(question: str) -> list[str]:
    """The KB tokens of the `«...»` units of `question`, as the model's splitter finds them."""
    return [token for token in map(unmark, split_question(question)) if token is not None]


def check_units(question: str, prefixes: PrefixMap | None = None) -> list[str]:
    """The units of `question` (see `units`), or UnitError naming the first one that is not a KB element.

    With `prefixes`, a compact IRI must use one of its prefixes (any other could not be written as SPARQL).
    """
    found = units(question)
    for token in found:
        match = _UNIT.fullmatch(token)
        if match is None:
            raise UnitError(
                f"unit «{token}» is not one KB element: write an IRI <...>, a prefixed name such as "
                'dbr:Berlin, or a literal such as "Berlin"@en or 42'
            )
        if prefixes is None:
            continue
        for prefix in (match.group("prefix"), match.group("dt_prefix")):
            if prefix is not None and prefix not in prefixes.prefixes:
                known = ", ".join(sorted(prefixes.prefixes))
                raise UnitError(
                    f"unit «{token}» uses prefix '{prefix}:', unknown to this KB (known: {known})"
                )
    return found
