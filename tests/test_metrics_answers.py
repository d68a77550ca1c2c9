"""Answer accuracy/F1 on hand-computed cases (§IV.C), and the non-empty-gold protocol of evaluate."""

from __future__ import annotations

import pytest

from nmt_sparql.execution import Answer
from nmt_sparql.execution.answer import answer_from_sparql_json
from nmt_sparql.metrics import PredictionRecord, evaluate_predictions, score_answer


def toks(text: str) -> list[str]:
    """Model tokens written space-separated, as a model emits them."""
    return text.split()


XSD_INT = "http://www.w3.org/2001/XMLSchema#integer"
XSD_DEC = "http://www.w3.org/2001/XMLSchema#decimal"


def sel(*values: str | None) -> Answer:
    return Answer(kind="select", variables=("x",), rows=tuple((v,) for v in values))


def test_partial_overlap_f1() -> None:
    score = score_answer(sel("a", "b", "c", "d"), sel("a", "b", "e"))
    assert not score.correct
    assert score.precision == pytest.approx(2 / 3) and score.recall == pytest.approx(1 / 2)
    assert score.f1 == pytest.approx(2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))  # 4/7


def test_duplicates_use_set_semantics() -> None:
    score = score_answer(sel("a", "b"), sel("a", "a", "a", "b"))
    assert score.correct and score.f1 == 1.0
    assert score_answer(sel("a", "b"), sel("a", "a")).f1 == pytest.approx(2 / 3)


def test_cells_are_the_distinct_bound_values_in_the_rows_order() -> None:
    rows = (("b", None), ("a", "b"), ("c", "a"))
    assert Answer(kind="select", variables=("x", "y"), rows=rows).cells() == ["b", "a", "c"]


def test_ask_compares_booleans() -> None:
    yes, no = Answer(kind="ask", boolean=True), Answer(kind="ask", boolean=False)
    assert score_answer(no, no).correct and score_answer(no, no).f1 == 1.0
    assert score_answer(yes, no).f1 == 0.0
    assert score_answer(yes, sel("true")).f1 == 0.0  # a SELECT is no answer to an ASK question
    assert score_answer(sel("a"), yes).f1 == 0.0


def test_count_compares_as_number() -> None:
    gold = answer_from_sparql_json({"head": {"vars": ["c"]}, "results": {"bindings": [
        {"c": {"type": "typed-literal", "datatype": XSD_INT, "value": "3"}}]}})  # fmt: skip
    pred = answer_from_sparql_json({"head": {"vars": ["n"]}, "results": {"bindings": [
        {"n": {"type": "literal", "datatype": XSD_DEC, "value": "3.0"}}]}})  # fmt: skip
    assert gold.number() == 3 and score_answer(gold, pred).correct
    assert not score_answer(gold, sel("4")).correct
    assert not score_answer(gold, sel("3", "4")).correct  # a list is not a count


def test_errors_and_missing_predictions_are_wrong() -> None:
    assert score_answer(sel("a"), Answer.failed("timeout")).f1 == 0.0
    assert score_answer(sel("a"), None).f1 == 0.0
    assert score_answer(sel("a"), sel()).f1 == 0.0


def _record(i: int, gold: Answer | None, pred: Answer | None) -> PredictionRecord:
    query = toks("select ?x where { ?x dbo:p dbr:A }")
    return PredictionRecord(str(i), query, query, gold_answer=gold, predicted_answer=pred)


def test_evaluate_keeps_only_non_empty_gold_and_counts_the_rest() -> None:
    records = [
        _record(0, sel("a", "b"), sel("a", "b")),  # acc 1, f1 1
        _record(1, sel("a", "b", "c", "d"), sel("a", "b", "e")),  # acc 0, f1 4/7
        _record(2, Answer(kind="ask", boolean=False), Answer(kind="ask", boolean=False)),  # acc 1, f1 1
        _record(3, sel("a"), Answer.failed("SyntaxError")),  # acc 0, f1 0
        _record(4, sel(), sel()),  # empty gold: excluded
        _record(5, sel(None), sel("z")),  # only unbound cells: empty, excluded
        _record(6, Answer.failed("timeout"), sel("a")),  # gold failed: excluded
        _record(7, None, sel("a")),  # no gold answer: excluded
    ]
    result = evaluate_predictions(records)
    assert result["answers"] == {
        "kept": 4,
        "gold_empty": 2,
        "gold_error": 1,
        "gold_missing": 1,
        "predicted_error": 1,
    }
    assert result["answer_accuracy"] == pytest.approx(100 * 2 / 4)
    assert result["answer_f1"] == pytest.approx(100 * (1 + 4 / 7 + 1 + 0) / 4)
    assert result["n"] == 8 and result["bleu"] == pytest.approx(100.0)
    assert result["exact_match"] == 100.0 and result["syntax_valid"] == 100.0


def test_evaluate_query_metrics_without_answers() -> None:
    gold = toks("select ?x where { ?x dbo:p dbr:A }")
    records = [
        PredictionRecord("a", gold, [t.replace("?x", "?y") for t in gold]),
        PredictionRecord("b", gold, gold[:-1]),
        PredictionRecord("c", gold, gold, predicted_query="SELECT ?x WHERE { ?x <http://p> <http://a> }"),
    ]
    result = evaluate_predictions(records)
    assert result["exact_match"] == pytest.approx(200 / 3) and result["equivalent"] == pytest.approx(200 / 3)
    assert result["syntax_valid"] == pytest.approx(200 / 3)
    assert result["answer_accuracy"] is None and result["answers"]["kept"] == 0
