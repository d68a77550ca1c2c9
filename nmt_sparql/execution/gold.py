"""Gold answers: each gold query is run once and cached beside the prepared data.

Every evaluation (each model, seed and configuration) compares against the same gold answers,
and against a public endpoint these are the slow part. The cache maps example id to the query
text that was run and its answer; an entry is reused only while the query text is unchanged,
and failed queries are not cached (an endpoint outage must not become a permanent gold error).
Datasets that ship their answers (QALD) are converted, never re-queried.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.data.record import Example, RecordError
from nmt_sparql.execution.answer import Answer, answer_from_sparql_json, merge_answers
from nmt_sparql.execution.base import KnowledgeBase, execute_many
from nmt_sparql.sparql.tokens import SparqlSyntaxError, canonicalize

CACHE_FORMAT = "nmt-sparql gold answers v1"


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


def _read_cache(path: Path) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: corrupt gold-answer cache ({err.msg}); delete it to recompute") from None
    if (
        not isinstance(data, dict)
        or data.get("format") != CACHE_FORMAT
        or not isinstance(data.get("answers"), dict)
    ):
        raise ValueError(
            f"{path}: not a gold-answer cache of format {CACHE_FORMAT!r}; delete it to recompute"
        )
    return data["answers"]


def gold_answers(
    examples: Sequence[Example],
    kb: KnowledgeBase | None,
    cache_path: str | Path | None,
    workers: int = 1,
    progress: bool = True,
) -> dict[str, Answer]:
    """Example id -> gold Answer, querying `kb` only for examples without carried answers and not cached."""
    seen: set[str] = set()
    result: dict[str, Answer] = {}
    to_run: list[tuple[str, str]] = []
    cache = _read_cache(Path(cache_path)) if cache_path is not None else {}
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
        if entry is not None and entry.get("query") == text:
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
        if cache_path is not None:
            atomic_write_json(cache_path, {"format": CACHE_FORMAT, "answers": cache})
    return {e.id: result[e.id] for e in examples}
