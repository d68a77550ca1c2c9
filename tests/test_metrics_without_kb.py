"""Without a KB, answer metrics read "n/a (no KB given)", not 0% and failed queries; with one, as before."""

from __future__ import annotations

from nmt_sparql.inference.evaluate import format_metrics
from nmt_sparql.reports.report import NO_KB, write_report

SCORED = {"n": 2, "bleu": 50.0, "exact_match": 50.0, "syntax_valid": 100.0, "answer_f1": 50.0}


def test_no_kb_reads_not_applicable(tmp_path):
    metrics = {
        **SCORED,
        "answer_accuracy": None,
        "answer_f1": None,
        "answers": {"kept": 0, "kb_given": False},
    }
    table = format_metrics(metrics)
    assert NO_KB in table.splitlines()[4]
    assert NO_KB in table.splitlines()[5]
    write_report(tmp_path, metrics, None, "t")
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert NO_KB in report and "predicted queries failed" not in report


def test_with_a_kb_the_figures_stay(tmp_path):
    answers = {"kept": 2, "gold_empty": 0, "gold_error": 0, "gold_missing": 0, "predicted_error": 1}
    metrics = {**SCORED, "answer_accuracy": 50.0, "answers": answers}
    assert NO_KB not in format_metrics(metrics) and "50.00" in format_metrics(metrics).splitlines()[4]
    write_report(tmp_path, metrics, None, "t")
    assert "1 predicted queries failed" in (tmp_path / "report.md").read_text(encoding="utf-8")
