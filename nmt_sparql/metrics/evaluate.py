"""All metrics of one test run, from per-question prediction records.

Answer metrics are computed on the questions whose gold answer is non-empty only (the paper's
protocol, §VII): questions whose gold answer is empty, failed, or missing are excluded and
counted, so a reader sees how many questions the figures rest on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from nmt_sparql.execution.answer import Answer
from nmt_sparql.metrics.answers import score_answer
from nmt_sparql.metrics.query import corpus_bleu, equivalent_query, exact_match, is_valid_sparql, tokens_parse
from nmt_sparql.sparql.prefixes import PrefixMap


@dataclass
class PredictionRecord:
    """One test question: gold and predicted model tokens (`sparql.tokens.tokenize` form), their answers.

    `predicted_query` is the executable text when the caller has it; otherwise validity is checked on
    `detokenize(predicted_tokens, kb)`.
    """

    id: str
    gold_tokens: list[str]
    predicted_tokens: list[str]
    kb: str | PrefixMap = "dbpedia"
    gold_answer: Answer | None = None
    predicted_answer: Answer | None = None
    predicted_query: str | None = field(default=None)


def _pct(numerator: float, denominator: int) -> float | None:
    return 100.0 * numerator / denominator if denominator else None


def evaluate_predictions(records: Iterable[PredictionRecord]) -> dict[str, Any]:
    """BLEU, exact match, syntax-valid rate, answer accuracy and F1, empty-answer rate (in %), with the
    counts behind them."""
    records = list(records)
    n = len(records)
    valid = sum(
        is_valid_sparql(r.predicted_query)
        if r.predicted_query is not None
        else tokens_parse(r.predicted_tokens, r.kb)
        for r in records
    )
    gold_missing = gold_error = gold_empty = predicted_error = correct = 0
    f1_sum = 0.0
    for r in records:
        gold = r.gold_answer
        if gold is None:
            gold_missing += 1
            continue
        if not gold.ok:
            gold_error += 1
            continue
        if gold.is_empty():
            gold_empty += 1
            continue
        if r.predicted_answer is None or not r.predicted_answer.ok:
            predicted_error += 1
        score = score_answer(gold, r.predicted_answer)
        correct += score.correct
        f1_sum += score.f1
    kept = n - gold_missing - gold_error - gold_empty
    ran = [r.predicted_answer for r in records if r.predicted_answer is not None]
    empty = sum(a.ok and a.is_empty() for a in ran)
    return {
        "n": n,
        "bleu": corpus_bleu([r.gold_tokens for r in records], [r.predicted_tokens for r in records]),
        "exact_match": _pct(sum(exact_match(r.gold_tokens, r.predicted_tokens) for r in records), n),
        "equivalent": _pct(sum(equivalent_query(r.gold_tokens, r.predicted_tokens) for r in records), n),
        "syntax_valid": _pct(valid, n),
        "answer_accuracy": _pct(correct, kept),
        "answer_f1": _pct(f1_sum, kept),
        "empty_answer": _pct(empty, len(ran)),  # of the predicted queries that ran: no error, no row
        "answers": {
            "kept": kept,
            "gold_empty": gold_empty,
            "gold_error": gold_error,
            "gold_missing": gold_missing,
            "predicted_error": predicted_error,
        },
    }
