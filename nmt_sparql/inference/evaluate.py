"""Evaluate a model on a split: decode, detokenize, execute, score, analyse errors, report.

Shared by `train` (after training) and `evaluate` (on a saved checkpoint), so both report the
same figures in the same files: predictions.jsonl, metrics.json and report.md (+ CSV, PNG).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import torch
from omegaconf import DictConfig

from nmt_sparql.atomic import atomic_write_json, atomic_write_text
from nmt_sparql.core.record import Example
from nmt_sparql.execution.answer import Answer
from nmt_sparql.execution.base import execute_many
from nmt_sparql.execution.config import KBSettings
from nmt_sparql.execution.gold import gold_answers
from nmt_sparql.inference.decode import asked_forms, decode
from nmt_sparql.inference.kb import open_kb
from nmt_sparql.inference.repair import Repaired, repair_all, repair_rounds, rounds_histogram
from nmt_sparql.metrics.errors import analyse_errors, dataset_uris
from nmt_sparql.metrics.evaluate import PredictionRecord, evaluate_predictions
from nmt_sparql.reports.report import NO_KB, write_report
from nmt_sparql.sparql.tokens import detokenize, tokenize

log = logging.getLogger(__name__)


def evaluate_split(
    model: torch.nn.Module,
    tokenizer: Any,
    examples: list[Example],
    cfg: DictConfig,
    out_dir: str | Path,
    gold_cache: str | Path | None = None,
    index: str | Path | None = None,
) -> dict[str, Any]:
    """Score `model` on `examples` and write predictions, metrics and the report into `out_dir`.

    With `decode.repair` (or its first round alone, `decode.execution_guided`) each question's n-best
    is repaired on the KB (inference/repair.py), with the KB index file `index` when given."""
    out = Path(out_dir)
    kb = examples[0].kb if examples else "generic"
    questions = [ex.annotated or ex.question for ex in examples]
    candidates = decode(model, tokenizer, questions, cfg.decode)
    settings = KBSettings.from_config(cfg)
    knowledge_base = open_kb(cfg.get("kb"), kb, settings)
    try:
        predicted_answers: list[Answer | None] = [None] * len(examples)
        best = [c[0] for c in candidates]
        repairs: list[Repaired | None] = [None] * len(examples)
        rounds = repair_rounds(cfg.decode)
        if knowledge_base is not None and rounds:
            asked = [ex.question for ex in examples]
            candidates = asked_forms(model, tokenizer, asked, questions, candidates, cfg.decode)
            repairs = repair_all(
                knowledge_base,
                kb,
                candidates,
                questions,
                rounds,
                index,
                questions=asked,
            )
            best = [r.tokens for r in repairs]
            predicted_answers = [r.answer for r in repairs]
        elif knowledge_base is not None:
            answers = execute_many(
                knowledge_base,
                [detokenize(t, kb) for t in best],
                workers=settings.workers,
                desc="predicted queries",
            )
            predicted_answers = list(answers)
        has_answers = knowledge_base is not None or any(ex.answers is not None for ex in examples)
        gold = (
            gold_answers(examples, knowledge_base, gold_cache, workers=settings.workers)
            if has_answers
            else {}
        )
        gold_tokens = [tokenize(ex.query, ex.kb) for ex in examples]
        records = [
            PredictionRecord(ex.id, ref, hyp, kb, gold.get(ex.id), predicted_answers[i])
            for i, (ex, ref, hyp) in enumerate(zip(examples, gold_tokens, best))
        ]
        metrics = evaluate_predictions(records)
        if any(r is not None for r in repairs):
            metrics["repair"] = {"rounds": rounds, "answered_in": rounds_histogram([r for r in repairs if r])}
        if knowledge_base is None:  # nothing executed the predictions: answers cannot be scored
            metrics.update(answer_accuracy=None, answer_f1=None, answers={"kept": 0, "kb_given": False})
        errors = analyse_errors(
            zip(gold_tokens, best),
            kb,
            knowledge_base,
            known_uris=dataset_uris([ex.query for ex in examples], kb),
        )
    finally:
        if knowledge_base is not None:
            knowledge_base.close()
    lines = [
        json.dumps(
            {
                "id": ex.id,
                "question": q,
                "gold": ex.query,
                "predicted": detokenize(tokens, kb),
                "predicted_tokens": tokens,
                "answer": None if a is None else a.to_json(),
                **({} if r is None else {"repair": r.to_json()}),
            },
            ensure_ascii=False,
        )
        for ex, q, tokens, a, r in zip(examples, questions, best, predicted_answers, repairs)
    ]
    atomic_write_text(out / "predictions.jsonl", "".join(line + "\n" for line in lines))
    atomic_write_json(out / "metrics.json", metrics)
    write_report(out, metrics, errors, title=f"{len(examples)} test questions")
    return metrics


def format_metrics(metrics: dict[str, Any]) -> str:
    """The headline figures as a small table."""

    def pct(v: Any) -> str:
        return "n/a" if v is None else f"{v:.2f}"

    kept = metrics.get("answers", {}).get("kept")
    no_kb = metrics.get("answers", {}).get("kb_given") is False
    rows = [
        ("BLEU", pct(metrics.get("bleu"))),
        ("exact match %", pct(metrics.get("exact_match"))),
        ("equivalent query %", pct(metrics.get("equivalent"))),
        ("syntax valid %", pct(metrics.get("syntax_valid"))),
        ("answer accuracy %", NO_KB if no_kb else pct(metrics.get("answer_accuracy"))),
        ("answer F1 %", NO_KB if no_kb else pct(metrics.get("answer_f1"))),
        ("empty answers %", NO_KB if no_kb else pct(metrics.get("empty_answer"))),
        ("questions (answers kept)", f"{metrics.get('n')} ({kept})"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value:>10}" for name, value in rows)
