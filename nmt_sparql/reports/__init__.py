"""Evaluation reports: markdown, CSV, JSON and a confusion-matrix heatmap."""

from nmt_sparql.reports.report import write_report

__all__ = ["write_report"]
