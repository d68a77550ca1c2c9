"""write_report: markdown, CSV, JSON and a PNG heatmap, written atomically into the output folder."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from nmt_sparql.execution import Answer
from nmt_sparql.metrics import PredictionRecord, analyse_errors, evaluate_predictions
from nmt_sparql.metrics.errors import COLUMNS, FAKE, ROWS
from nmt_sparql.reports import write_report


def toks(text: str) -> list[str]:
    """Model tokens written space-separated, as a model emits them."""
    return text.split()


GOLD = toks("select distinct ?uri where { dbr:Philip_Novak dbp:mainInterests ?uri }")
PRED = toks("select distinct ?uri where { dbr:Timothy_Morton dbp:mainInterests ?uri }")


def _inputs() -> tuple[dict, object]:
    yes = Answer(kind="select", variables=("uri",), rows=(("http://dbpedia.org/resource/Ethics",),))
    records = [
        PredictionRecord("1", GOLD, PRED, gold_answer=yes, predicted_answer=Answer(kind="select")),
        PredictionRecord("2", GOLD, GOLD, gold_answer=yes, predicted_answer=yes),
    ]
    metrics = evaluate_predictions(records)
    errors = analyse_errors(
        [(r.gold_tokens, r.predicted_tokens) for r in records], known_uris={"dbr:Philip_Novak"}
    )
    return metrics, errors


def test_report_files_and_contents(tmp_path: Path) -> None:
    metrics, errors = _inputs()
    out = tmp_path / "report"
    paths = write_report(out, metrics, errors, "T5 LC-QuAD 1.0 tag-within")
    assert set(paths) == {
        "markdown", "json", "metrics_csv", "errors_csv", "confusion_csv", "confusion_counts_csv", "confusion_png",
    }  # fmt: skip
    assert all(p.parent == out and p.stat().st_size > 0 for p in paths.values())
    assert not list(out.glob(".*.tmp"))

    markdown = paths["markdown"].read_text(encoding="utf-8")
    assert markdown.startswith("# T5 LC-QuAD 1.0 tag-within")
    assert "| answer accuracy (%) | 50.0 |" in markdown
    assert "Answer metrics on 2 questions" in markdown
    assert "| URIs | 0.0 | 100.0 |" in markdown  # the one error: a reference URI replaced by a fake one

    with paths["metrics_csv"].open(encoding="utf-8") as fh:
        rows = dict(csv.reader(fh))
    assert float(rows["answer_f1"]) == pytest.approx(50.0) and rows["answers.kept"] == "2"
    with paths["confusion_csv"].open(encoding="utf-8") as fh:
        matrix = list(csv.reader(fh))
    assert matrix[0][1:] == list(COLUMNS) and [r[0] for r in matrix[1:]] == list(ROWS)
    assert float(matrix[1][1 + COLUMNS.index(FAKE)]) == 100.0
    with paths["errors_csv"].open(encoding="utf-8") as fh:
        by_category = {r["category"]: r for r in csv.DictReader(fh)}
    assert by_category[FAKE]["count"] == "1"

    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["errors"]["n_incorrect"] == 1 and data["metrics"]["n"] == 2
    assert paths["confusion_png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_without_error_analysis(tmp_path: Path) -> None:
    metrics, _ = _inputs()
    paths = write_report(tmp_path, metrics, None, "metrics only")
    assert set(paths) == {"markdown", "json", "metrics_csv"}
    assert "Error distribution" not in paths["markdown"].read_text(encoding="utf-8")
    assert not (tmp_path / "confusion.png").exists()
