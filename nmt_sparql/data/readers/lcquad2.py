"""LC-QuAD 2.0 (Wikidata), in two shapes.

Official release (`train.json`, `test.json`; fields `uid`, `NNQT_question`, `question`,
`paraphrased_question`, `sparql_wikidata`, `template_id`, ...): `question` is the template question
`NNQT_question` with its `{`/`}` marks removed (what the paper trains on), `marked_question` keeps the
marks, and `reformulated` is the human `question`, or `paraphrased_question` when upstream left the
former null, empty or "[]".

The 4,211-entry sample of debayan/sigir2022-sparqlbaselines (`test_KG_4211.json`) has no template id
and (mostly) no `NNQT_question`: `question` is the human question, falling back to
`paraphrased_question`, then to an `NNQT_question` where one exists; `reformulated` is
`paraphrased_question`. Its template id is derived from the structure of `intermediate_sparql`
(`derive_template_id`). It has no official split.

Records with no question text in any field are skipped, with one logged warning per file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nmt_sparql.data.readers.base import (
    ReadResult,
    build_example,
    load_json,
    optional_template_id,
    optional_text,
    require_list,
    require_record,
    require_str,
    required_id,
    warn_skipped_empty,
)

OFFICIAL_FILES = (("train.json", "train"), ("test.json", "test"))

_STRUCTURE = re.compile(
    r"""(?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
      | (?P<var>[?$]\w+)
      | (?P<number>[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)
      | (?P<word>[^\s(){}.,;'"]+)
      | (?P<punct>[(){}.,;])""",
    re.VERBOSE,
)


def unbrace(marked: str) -> str:
    return " ".join(marked.replace("{", "").replace("}", "").split())


def template_structure(intermediate_sparql: str) -> str:
    """The skeleton of an `intermediate_sparql` query: variables renamed in order of appearance,
    string literals and compared numbers replaced by placeholders, keywords upper-cased.

    Two queries built from the same template (same shape, different entities, predicates and
    literal constants) get the same skeleton; `LIMIT`/`OFFSET` numbers stay, they are part of the
    template.
    """
    names: dict[str, str] = {}
    out: list[str] = []
    for m in _STRUCTURE.finditer(intermediate_sparql):
        kind, text = m.lastgroup, m.group()
        if kind == "string":
            out.append("@@lit@@")
        elif kind == "var":
            out.append(names.setdefault(text, f"?v{len(names)}"))
        elif kind == "number":
            out.append(text if out and out[-1] in ("LIMIT", "OFFSET") else "@@num@@")
        elif kind == "word" and not text.startswith("@@"):
            out.append(text.upper())
        else:
            out.append(text)
    return " ".join(out)


def derive_template_id(intermediate_sparql: str) -> str:
    """A short stable id of a query's template skeleton (`template_structure`)."""
    return "s" + hashlib.sha1(template_structure(intermediate_sparql).encode("utf-8")).hexdigest()[:10]


def _read_file(
    path: Path, skip_invalid: bool, question_fields: Callable[[dict[str, Any], int], dict[str, Any] | None]
) -> ReadResult:
    """Every record of one LC-QuAD 2.0 JSON file; `question_fields` picks a record's question, marks,
    reformulation, template id and split (None: no question text, the record is skipped and counted)."""
    result = ReadResult(skip_invalid=skip_invalid)
    empty = 0
    for i, raw in enumerate(require_list(load_json(path), path)):
        record = require_record(raw, path, i)
        fields = question_fields(record, i)
        if fields is None:
            empty += 1
            continue
        with result.invalid_queries_skipped():
            query = require_str(record, "sparql_wikidata", path, i)
            uid = required_id(record, "uid", path, i)
            result.append(build_example(path, i, "sparql_wikidata", query, "wikidata", id=uid, **fields))
    warn_skipped_empty(path, empty)
    return result


def read_lcquad2_file(path: Path, split: str | None, skip_invalid: bool = False) -> ReadResult:
    """One file of the official LC-QuAD 2.0 release."""

    def fields(record: dict[str, Any], i: int) -> dict[str, Any] | None:
        nnqt = optional_text(record, "NNQT_question", path, i)
        reformulated = optional_text(record, "question", path, i) or optional_text(
            record, "paraphrased_question", path, i
        )
        question = unbrace(nnqt) if nnqt else reformulated
        if not question:
            return None
        template_id = optional_template_id(record, "template_id", path, i)
        return dict(question=question, marked_question=nnqt, reformulated=reformulated,
                    template_id=template_id, split=split)  # fmt: skip

    return _read_file(path, skip_invalid, fields)


def read_lcquad2(folder: Path, skip_invalid: bool = False) -> ReadResult:
    """The official release: `train.json` and `test.json` of a folder."""
    result = ReadResult()
    for name, split in OFFICIAL_FILES:
        result.extend_result(read_lcquad2_file(Path(folder) / name, split, skip_invalid))
    return result


def read_lcquad2_sample(path: Path, skip_invalid: bool = False) -> ReadResult:
    """The sigir2022-sparqlbaselines sample file (`test_KG_4211.json`)."""
    path = Path(path)

    def fields(record: dict[str, Any], i: int) -> dict[str, Any] | None:
        human = optional_text(record, "question", path, i)
        paraphrase = optional_text(record, "paraphrased_question", path, i)
        nnqt = optional_text(record, "NNQT_question", path, i)
        question = human or paraphrase or (unbrace(nnqt) if nnqt else None)
        if not question:
            return None
        # The marks only describe `question` when the question is the template one.
        marked = nnqt if nnqt and question == unbrace(nnqt) else None
        template_id = derive_template_id(require_str(record, "intermediate_sparql", path, i))
        return dict(question=question, marked_question=marked, reformulated=paraphrase,
                    template_id=template_id, split=None)  # fmt: skip

    return _read_file(path, skip_invalid, fields)
