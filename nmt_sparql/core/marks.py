"""How a KB token is written as one `«unit»` of a model's input, and read back, for any token.

A unit is `«TOKEN»`. A token may itself hold guillemets (`dbr:Center_of_Theatrical_Arts_«House_of_Meyerhold»`):
such a token is escaped, `\\` as `\\\\` and `«`/`»` as `\\«`/`\\»`. Every other token is written as it is,
so existing data keeps its text, and the escape is unambiguous: only an escaped token has a `«` or `»`
inside its unit. Guillemets in free text (a question quoting a title «like this», a label) would read
as units; `plain_text` turns them into quotes.
"""

from __future__ import annotations

import re

OPEN, CLOSE = "«", "»"
# One unit: escapes (`\\x`) and anything but a guillemet or backslash; spaces inside a literal allowed.
UNIT_PATTERN = r"«(?:[^«»\\]|\\.)*»"
_UNIT = re.compile(UNIT_PATTERN)
_ESCAPED = re.compile(r"\\(.)")


def mark(token: str) -> str:
    """A KB token as one unit: `«dbr:Ike_Clanton»`; a token with guillemets is escaped (module doc)."""
    if OPEN not in token and CLOSE not in token:
        return f"{OPEN}{token}{CLOSE}"
    escaped = token.replace("\\", "\\\\").replace(OPEN, "\\" + OPEN).replace(CLOSE, "\\" + CLOSE)
    return f"{OPEN}{escaped}{CLOSE}"


def unmark(unit: str) -> str | None:
    """The KB token of a `«...»` unit (`mark` undone), or None when `unit` is not one."""
    if len(unit) < 2 or not unit.startswith(OPEN) or not unit.endswith(CLOSE):
        return None
    body = unit[1:-1]
    if OPEN not in body and CLOSE not in body:
        return body
    return _ESCAPED.sub(r"\1", body)


def find_units(text: str) -> list[str]:
    """The KB tokens of every unit in `text`, in order."""
    return [token for token in map(unmark, _UNIT.findall(text)) if token is not None]


def plain_text(text: str) -> str:
    """Free text with its guillemets as quotes, so that no word of it reads as a unit."""
    return text.replace(OPEN, '"').replace(CLOSE, '"')
