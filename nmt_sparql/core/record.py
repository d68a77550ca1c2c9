"""The canonical example record that flows through the whole pipeline.

Every reader produces `Example`s, annotation reads them, tokenization turns them into
ids, evaluation compares against them. Keeping one shape means a new dataset only
needs a reader.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from nmt_sparql.atomic import atomic_write_text

KBKind = Literal["uri", "literal"]
SPLITS = ("train", "validation", "test")


class RecordError(ValueError):
    """A malformed input record: the message names the file, the record index and the field."""

    def __init__(self, source: str | Path, index: int | str, field_name: str, problem: str):
        self.source, self.index, self.field_name = str(source), index, field_name
        super().__init__(f"{source}: record {index}: field '{field_name}': {problem}")


@dataclass(frozen=True)
class KBElement:
    """A knowledge-base element of a query: a URI or a literal, as its model token.

    `token` is the compact form the SPARQL tokenizer produces (`dbr:Ike_Clanton`,
    `"roman"`, `22.4`); `label` is its natural-language label when known.
    """

    token: str
    kind: KBKind
    label: str | None = None


@dataclass
class Example:
    """One question/query pair in the project's canonical form."""

    id: str
    question: str
    query: str
    kb: str
    kb_elements: list[KBElement] = field(default_factory=list)
    reformulated: str | None = None
    answers: list[dict[str, Any]] | bool | None = None
    template_id: str | None = None
    split: str | None = None
    annotated: str | None = None
    # Dataset-provided question with KB element spans marked, e.g. LC-QuAD's "<Stanley Kubrick>".
    marked_question: str | None = None
    # The query exactly as the dataset wrote it, kept for the round-trip check and for provenance.
    source_query: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kb_elements"] = [asdict(e) for e in self.kb_elements]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str | Path = "<dict>", index: int = 0) -> Example:
        """Build an Example from a JSON object, naming the field at fault when it is malformed."""
        if not isinstance(data, dict):
            raise RecordError(source, index, "<record>", f"expected a JSON object, got {type(data).__name__}")
        for name in ("id", "question", "query", "kb"):
            if name not in data:
                raise RecordError(source, index, name, "missing")
            if name != "id" and not isinstance(data[name], str):
                raise RecordError(source, index, name, f"expected a string, got {type(data[name]).__name__}")
        elements = []
        for j, raw in enumerate(data.get("kb_elements") or []):
            if not isinstance(raw, dict) or "token" not in raw or raw.get("kind") not in ("uri", "literal"):
                raise RecordError(source, index, f"kb_elements[{j}]", "expected {token, kind: uri|literal}")
            elements.append(KBElement(raw["token"], raw["kind"], raw.get("label")))
        known = {f for f in cls.__dataclass_fields__}
        extra = {k: v for k, v in data.items() if k in known and k != "kb_elements"}
        extra["id"] = str(data["id"])
        tid = extra.get("template_id")
        if tid is not None:
            extra["template_id"] = str(tid)
        return cls(kb_elements=elements, **extra)


def write_jsonl(path: str | Path, examples: Iterable[Example]) -> None:
    """Write examples as JSON lines, atomically (a crash never leaves a half file)."""
    text = "".join(json.dumps(e.to_dict(), ensure_ascii=False) + "\n" for e in examples)
    atomic_write_text(path, text)


def utf8_text(data: bytes, path: str | Path, first_line: int = 0) -> str:
    """`data` (the file's text from line index `first_line` on) decoded as UTF-8, or a RecordError
    naming the file, line and column of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = first_line + data.count(b"\n", 0, err.start)
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise RecordError(
            path,
            line,
            "<encoding>",
            f"line {line + 1} is not UTF-8 text (byte 0x{data[err.start]:02x} at column {column}); "
            "convert the file to UTF-8",
        ) from None


def read_utf8(path: str | Path) -> str:
    """A text file's content; a byte that is not UTF-8 is a RecordError naming the file and line."""
    return utf8_text(Path(path).read_bytes(), path)


def read_jsonl_indexed(path: str | Path) -> Iterator[tuple[int, Example]]:
    """(line index, example) of a JSONL file of records; the index is the one errors name."""
    path = Path(path)
    with path.open("rb") as fh:
        for i, raw in enumerate(fh):
            line = utf8_text(raw, path, i)
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as err:
                raise RecordError(
                    path, i, "<line>", f"invalid JSON: {err.msg} at column {err.colno}"
                ) from None
            yield i, Example.from_dict(data, path, i)


def read_jsonl(path: str | Path) -> Iterator[Example]:
    """Read examples written by `write_jsonl` (or by a user following the same format)."""
    return (example for _, example in read_jsonl_indexed(path))
