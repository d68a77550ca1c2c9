"""`nmt-sparql explain "QUERY" [kb=...] [index=...] [labels=[...]]`: a SPARQL query in plain English.

Labels for IRIs come from a KB index (`index=`), label files (`labels=`), else readable local names.
A query that does not parse is refused with the parser's message (exit status 2), never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

from omegaconf import DictConfig

from nmt_sparql.annotation.linking.index import IndexFileError, KBIndex
from nmt_sparql.inference.explain import ExplainError, TermLabels, explain


def _paths(value: object) -> list[str]:
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]  # type: ignore[attr-defined]
    return [item.strip() for item in items if item.strip()]


def read_query(query: str | None, source: str | None) -> str:
    """The query to explain: `query`, else the whole of file `source` (`-` or none: stdin)."""
    if query is not None and source is not None:
        raise SystemExit("nmt-sparql explain: give either a query or input=..., not both")
    if query is not None:
        return str(query)
    if source is None or source == "-":
        return sys.stdin.read()
    path = Path(source)
    if not path.is_file():
        raise SystemExit(f"nmt-sparql explain: input={source}: no such file")
    return path.read_text(encoding="utf-8")


def run(cfg: DictConfig) -> str:
    query = read_query(cfg.query, cfg.input)
    index = None
    try:
        if cfg.index:
            index = KBIndex.open(cfg.index)
        labels = TermLabels(str(cfg.kb), index, _paths(cfg.labels))
        text = explain(query, labels.prefixes, labels)
    except (ExplainError, IndexFileError, KeyError, FileNotFoundError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"nmt-sparql explain: {message}", file=sys.stderr)
        raise SystemExit(2) from None
    finally:
        if index is not None:
            index.close()
    print(text)
    return text
