"""Answer accuracy and answer F1 (paper §IV.C): compare what the predicted and gold queries return.

Rules, chosen so that one comparison serves every dataset:
- ASK answers compare as booleans; a non-ASK prediction for an ASK question is wrong.
- A single numeric cell on both sides (COUNT) compares as a number (`3` = `3.0`).
- Anything else compares as sets of rows (set semantics: duplicate rows count once, for accuracy
  and F1 alike, as the paper's F1 over answer sets); rows whose cells are all unbound are ignored.
- A failed, refused or missing predicted answer is wrong (accuracy 0, F1 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from nmt_sparql.execution.answer import Answer, Row


@dataclass(frozen=True)
class AnswerScore:
    correct: bool
    precision: float
    recall: float
    f1: float


WRONG = AnswerScore(False, 0.0, 0.0, 0.0)
RIGHT = AnswerScore(True, 1.0, 1.0, 1.0)


def _rows(answer: Answer) -> frozenset[Row]:
    return frozenset(r for r in answer.values() if any(v is not None for v in r))


def score_answer(gold: Answer, predicted: Answer | None) -> AnswerScore:
    """Accuracy/precision/recall/F1 of one predicted answer against its (non-empty) gold answer."""
    if predicted is None or not predicted.ok:
        return WRONG
    if gold.kind == "ask" or predicted.kind == "ask":
        same = gold.kind == predicted.kind == "ask" and gold.boolean == predicted.boolean
        return RIGHT if same else WRONG
    gold_number, predicted_number = gold.number(), predicted.number()
    if gold_number is not None and predicted_number is not None:
        return RIGHT if gold_number == predicted_number else WRONG
    gold_rows, predicted_rows = _rows(gold), _rows(predicted)
    hits = len(gold_rows & predicted_rows)
    if hits == 0:
        return WRONG
    precision, recall = hits / len(predicted_rows), hits / len(gold_rows)
    return AnswerScore(
        gold_rows == predicted_rows, precision, recall, 2 * precision * recall / (precision + recall)
    )
