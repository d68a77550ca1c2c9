"""Write one evaluation's metrics and error tables as markdown, CSV, JSON and a confusion heatmap.

The markdown mirrors the paper's tables (Table XIV row, Tables XV-XVIII matrix) so results can be
read next to it; CSV/JSON are for aggregating runs. Every file is written atomically: an
interrupted report leaves the previous files, never half ones. The heatmap uses matplotlib's
object API (no pyplot global state), rendered by Agg, so it works headless and in threads.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from nmt_sparql.atomic import atomic_write, atomic_write_json, atomic_write_text
from nmt_sparql.metrics.errors import CATEGORIES, COLUMNS, ROWS, ErrorReport

METRIC_LABELS = {
    "n": "questions",
    "bleu": "BLEU",
    "exact_match": "exact match (%)",
    "equivalent": "equivalent query (%)",
    "syntax_valid": "syntax valid (%)",
    "answer_accuracy": "answer accuracy (%)",
    "answer_f1": "answer F1 (%)",
    "empty_answer": "empty answers (%)",
}


# What answer metrics read when no KB executed the predicted queries (not a model failure).
NO_KB = "n/a (no KB given)"
ANSWER_METRICS = ("answer_accuracy", "answer_f1")


def _metric_value(metrics: Mapping[str, Any], key: str) -> Any:
    answers = metrics.get("answers")
    no_kb = isinstance(answers, Mapping) and answers.get("kb_given") is False
    return NO_KB if no_kb and key in ANSWER_METRICS else metrics.get(key)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        if isinstance(value, Mapping):
            out.extend(_flatten(value, f"{prefix}{key}."))
        else:
            out.append((f"{prefix}{key}", value))
    return out


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.1f}"
    return str(value)


def _csv(rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows([["" if v is None else v for v in row] for row in rows])
    return buffer.getvalue()


def _md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _confusion_rows(errors: ErrorReport, percent: bool) -> list[list[Any]]:
    table = errors.confusion if percent else errors.confusion_counts
    return [[row, *(table[row][col] for col in COLUMNS)] for row in ROWS]


def _heatmap(errors: ErrorReport, title: str) -> Figure:
    fig = Figure(figsize=(8.5, 5.5), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    values = [[errors.confusion[row][col] for col in COLUMNS] for row in ROWS]
    image = ax.imshow(values, cmap="Blues", vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(COLUMNS)), labels=COLUMNS, rotation=30, ha="right")
    ax.set_yticks(range(len(ROWS)), labels=ROWS)
    ax.set_xlabel("predicted type")
    ax.set_ylabel("reference type")
    ax.set_title(f"{title}\nerrors by type, % of each reference row (n={errors.n_errors})", fontsize=10)
    for r, row in enumerate(ROWS):
        total = sum(errors.confusion_counts[row].values())
        for c, _ in enumerate(COLUMNS):
            value = values[r][c]
            if total:
                ax.text(
                    c, r, f"{value:.0f}", ha="center", va="center", color="white" if value > 60 else "black"
                )
    fig.colorbar(image, ax=ax, label="%")
    fig.tight_layout()
    return fig


def _markdown(metrics: Mapping[str, Any], errors: ErrorReport | None, title: str) -> str:
    parts = [f"# {title}", "", "## Metrics", ""]
    parts.append(
        _md_table(
            ["metric", "value"],
            [[METRIC_LABELS[k], _metric_value(metrics, k)] for k in METRIC_LABELS if k in metrics],
        )
    )
    answers = metrics.get("answers")
    if isinstance(answers, Mapping) and answers.get("kb_given") is False:
        parts += ["", f"Answer metrics: {NO_KB}; pass kb=FILE or kb=URL to execute the queries."]
    elif isinstance(answers, Mapping):
        parts += [
            "",
            f"Answer metrics on {answers.get('kept')} questions with a non-empty gold answer "
            f"(excluded: {answers.get('gold_empty')} empty, {answers.get('gold_error')} failed, "
            f"{answers.get('gold_missing')} without gold answer); "
            f"{answers.get('predicted_error')} predicted queries failed and count as wrong.",
        ]
    repair = metrics.get("repair")
    if isinstance(repair, Mapping):
        histogram = repair.get("answered_in", {})
        parts += [
            "",
            "## Repair rounds",
            "",
            f"Execution feedback and repair, at most {repair.get('rounds')} round(s) (round 1: the n-best "
            "in order); the round in which each question's query answered:",
            "",
            _md_table(
                ["answered in", "questions"],
                [[k if k == "gave up" else f"round {k}", v] for k, v in histogram.items()],
            ),
        ]
    if errors is not None:
        parts += [
            "",
            "## Error distribution (Table XIV)",
            "",
            f"{errors.n_incorrect} incorrect queries of {errors.n_queries}, {errors.n_errors} token errors; "
            f"fake-URI check: {errors.fake_uri_check}."
            + (
                f" The KB existence check could not run: {errors.fake_uri_problem}"
                if errors.fake_uri_problem
                else ""
            ),
            "",
            _md_table(
                ["", *CATEGORIES],
                [
                    ["% of error tokens", *(errors.distribution[c] for c in CATEGORIES)],
                    ["% by query", *(errors.distribution_by_query[c] for c in CATEGORIES)],
                    ["count", *(errors.counts[c] for c in CATEGORIES)],
                ],
            ),
            "",
            "## Reference type x predicted type (Tables XV-XVIII), % of each row",
            "",
            _md_table(["reference \\ predicted", *COLUMNS], _confusion_rows(errors, percent=True)),
            "",
            "`deleted`: a reference token with no counterpart; `inserted`: a predicted token with none.",
            "",
            "![confusion](confusion.png)",
        ]
    return "\n".join(parts) + "\n"


def write_report(
    out_dir: str | Path, metrics: Mapping[str, Any], errors: ErrorReport | None, title: str
) -> dict[str, Path]:
    """Write report.md, report.json, metrics.csv and (with `errors`) errors.csv, confusion.csv,
    confusion_counts.csv and confusion.png into `out_dir`; returns the paths by name."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "markdown": out / "report.md",
        "json": out / "report.json",
        "metrics_csv": out / "metrics.csv",
    }
    atomic_write_text(paths["metrics_csv"], _csv([["metric", "value"], *_flatten(metrics)]))
    atomic_write_json(
        paths["json"],
        {"title": title, "metrics": dict(metrics), "errors": errors.to_dict() if errors else None},
    )
    if errors is not None:
        paths.update(
            errors_csv=out / "errors.csv",
            confusion_csv=out / "confusion.csv",
            confusion_counts_csv=out / "confusion_counts.csv",
            confusion_png=out / "confusion.png",
        )
        atomic_write_text(
            paths["errors_csv"],
            _csv(
                [["category", "count", "percent_of_errors", "percent_by_query"]]
                + [
                    [c, errors.counts[c], errors.distribution[c], errors.distribution_by_query[c]]
                    for c in CATEGORIES
                ]
            ),
        )
        header = ["reference\\predicted", *COLUMNS]
        atomic_write_text(paths["confusion_csv"], _csv([header, *_confusion_rows(errors, percent=True)]))
        atomic_write_text(
            paths["confusion_counts_csv"], _csv([header, *_confusion_rows(errors, percent=False)])
        )
        figure = _heatmap(errors, title)
        atomic_write(paths["confusion_png"], lambda p: figure.savefig(p, format="png"))
    atomic_write_text(paths["markdown"], _markdown(metrics, errors, title))
    return paths
