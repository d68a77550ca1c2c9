"""Evaluation metrics: BLEU, exact match, query equivalence, syntax validity, answer accuracy/F1, and the error taxonomy."""

from nmt_sparql.metrics.answers import AnswerScore, score_answer
from nmt_sparql.metrics.errors import ErrorReport, TokenError, analyse_errors, classify_errors, dataset_uris
from nmt_sparql.metrics.evaluate import PredictionRecord, evaluate_predictions
from nmt_sparql.metrics.query import (
    canonical_variables,
    corpus_bleu,
    equivalent_query,
    exact_match,
    is_valid_sparql,
)

__all__ = [
    "AnswerScore",
    "ErrorReport",
    "PredictionRecord",
    "TokenError",
    "analyse_errors",
    "canonical_variables",
    "classify_errors",
    "corpus_bleu",
    "dataset_uris",
    "equivalent_query",
    "evaluate_predictions",
    "exact_match",
    "is_valid_sparql",
    "score_answer",
]
