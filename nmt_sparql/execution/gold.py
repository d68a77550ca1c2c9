"""Gold answers: each gold query is run once and cached beside the prepared data.

Every evaluation (each model, seed and configuration) compares against the same gold answers,
and against a public endpoint these are the slow part. The cache maps the KB's identity (endpoint
URL, or sha256 of the RDF files) and example id to the query text that was run and its answer; an
entry is reused only for the same KB while the query text is unchanged (answers from an empty
endpoint must not stand in for the bundled KB's), and failed queries are not cached (an endpoint
outage must not become a permanent gold error).
Datasets that ship their answers (QALD) are converted, never re-queried.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.record import Example, RecordError
from nmt_sparql.execution.answer import Answer, answer_from_sparql_json, merge_answers
from nmt_sparql.execution.base import KnowledgeBase, execute_many
from nmt_sparql.sparql.tokens import SparqlSyntaxError, canonicalize

log = logging.getLogger(__name__)

CACHE_FORMAT = "nmt-sparql gold answers v2"
_OLD_FORMATS = ("nmt-sparql gold answers v1",)  # keyed by example id only: which KB answered is unknown


def gold_cache_path(data_file: str | Path) -> Path:
    """Where the gold answers of a prepared split live: `test.jsonl` -> `test.gold_answers.json`."""
    data_file = Path(data_file)
    return data_file.with_name(f"{data_file.stem}.gold_answers.json")


def gold_query_text(example: Example) -> str:
    """The text sent for a gold query: the project's canonical SPARQL (standard COUNT projection,
    full PREFIX declarations), or the dataset's own text when it cannot be tokenized."""
    try:
        return canonicalize(example.query, example.kb)
    except (SparqlSyntaxError, KeyError):
        return example.query


def carried_answer(example: Example, index: int = 0, source: str = "<examples>") -> Answer | None:
    """The Answer of a dataset-provided `Example.answers` (SPARQL JSON objects or a boolean), or None."""
    raw = example.answers
    if raw is None:
        return None
    items: list[Any] = [raw] if isinstance(raw, bool) else raw
    if not isinstance(items, list):
        raise RecordError(source, index, "answers", f"expected a list or a boolean, got {type(raw).__name__}")
    try:
        return merge_answers([answer_from_sparql_json(item) for item in items])
    except ValueError as err:
        raise RecordError(source, index, "answers", str(err)) from None


Cache = dict[str, dict[str, dict[str, Any]]]  # KB identity -> example id -> {"query", "answer"}


def _read_cache(path: Path) -> Cache:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: corrupt gold-answer cache ({err.msg}); delete it to recompute") from None
    if isinstance(data, dict) and data.get("format") in _OLD_FORMATS:
        log.warning("%s: gold answers cached without the KB that produced them: recomputing", path)
        return {}
    if (
        not isinstance(data, dict)
        or data.get("format") != CACHE_FORMAT
        or not isinstance(data.get("kbs"), dict)
        or not all(isinstance(v, dict) for v in data["kbs"].values())
    ):
        raise ValueError(
            f"{path}: not a gold-answer cache of format {CACHE_FORMAT!r}; delete it to recompute"
        )
    return data["kbs"]


def gold_answers(
    examples: Sequence[Example],
    kb: KnowledgeBase | None,
    cache_path: str | Path | None,
    workers: int = 1,
    progress: bool = True,
) -> dict[str, Answer]:
    """Example id -> gold Answer, querying `kb` only for examples without carried answers and not
    cached for this KB."""
    seen: set[str] = set()
    result: dict[str, Answer] = {}
    to_run: list[tuple[str, str]] = []
    caches = _read_cache(Path(cache_path)) if cache_path is not None else {}
    identity = kb.identity() if kb is not None else None
    cache = caches.setdefault(identity, {}) if identity is not None else {}
    for i, example in enumerate(examples):
        if example.id in seen:
            raise RecordError("<examples>", i, "id", f"duplicate id {example.id!r}")
        seen.add(example.id)
        carried = carried_answer(example, i)
        if carried is not None:
            result[example.id] = carried
            continue
        text = gold_query_text(example)
        entry = cache.get(example.id)
        if isinstance(entry, dict) and entry.get("query") == text and "answer" in entry:
            result[example.id] = Answer.from_json(entry["answer"])
        else:
            to_run.append((example.id, text))
    if to_run:
        if kb is None:
            raise ValueError(
                f"{len(to_run)} gold queries need a knowledge base (none given), e.g. {to_run[0][0]!r}"
            )
        answers = execute_many(kb, [t for _, t in to_run], workers=workers, progress=progress, desc="gold")
        for (example_id, text), answer in zip(to_run, answers, strict=True):
            result[example_id] = answer
            if answer.ok:
                cache[example_id] = {"query": text, "answer": answer.to_json()}
        if cache_path is not None and identity is not None:
            atomic_write_json(cache_path, {"format": CACHE_FORMAT, "kbs": caches})
    return {e.id: result[e.id] for e in examples}
