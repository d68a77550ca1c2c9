"""Every distinct query shape of LC-QuAD 1.0, the LC-QuAD 2.0 sample and QALD-9/10 is explained.

A shape is a query with its IRIs and literals abstracted; one query of each shape is explained, and
each of its entities (dbr:, wd:) must be named in the explanation by its label (LC-QuAD 2.0's label
files for Wikidata ids they hold, the readable local name for DBpedia), never by a raw IRI.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from nmt_sparql.annotation.labels import local_name_label
from nmt_sparql.inference.explain import ExplainError, TermLabels, explain
from nmt_sparql.sparql.tokens import SparqlSyntaxError, TokenType, token_types, tokenize
from nmt_sparql.sparql.validate import parse_error, standard_text, with_declarations

ROOT = Path(
    os.environ.get("NMT_SPARQL_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)
pytestmark = pytest.mark.skipif(not (ROOT / "lcquad1").is_dir(), reason=f"datasets not present at {ROOT}")


def _queries(name: str) -> list[str]:
    if name == "lcquad1":
        records = [r for f in ("train-data.json", "test-data.json") for r in _json(ROOT / "lcquad1" / f)]
        return [r["sparql_query"] for r in records]
    if name == "lcquad2-sample":
        return [r["sparql_wikidata"] for r in _json(ROOT / "lcquad2-sample" / "test_KG_4211.json")]
    file = "qald-9-train-multilingual.json" if name == "qald9" else "qald_10.json"
    return [q["query"]["sparql"] for q in _json(ROOT / "qald" / file)["questions"]]


def _json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _shape(query: str, kb: str) -> str:
    try:
        tokens = tokenize(query, kb)
    except SparqlSyntaxError:
        return query
    kinds = token_types(tokens, kb)
    return " ".join(
        "U" if k is TokenType.URI else "L" if k is TokenType.LITERAL else t for t, k in zip(tokens, kinds)
    )


@pytest.fixture(scope="module")
def wikidata_labels() -> TermLabels:
    folder = ROOT / "lcquad2-sample"
    return TermLabels(
        "wikidata", label_files=[folder / "entity_labels.json", folder / "relation_labels.json"]
    )


@pytest.mark.parametrize(
    "name, kb",
    [("lcquad1", "dbpedia"), ("lcquad2-sample", "wikidata"), ("qald9", "dbpedia"), ("qald10", "wikidata")],
)
def test_every_query_shape_is_explained_with_labels(name: str, kb: str, wikidata_labels: TermLabels) -> None:
    labels = wikidata_labels if kb == "wikidata" else TermLabels(kb)
    shapes: dict[str, str] = {}
    for query in _queries(name):
        shapes.setdefault(_shape(query, kb), query)
    unparsable = 0
    for query in shapes.values():
        try:
            text = explain(query, kb, labels)
        except ExplainError:
            assert parse_error(with_declarations(standard_text(query), labels.prefixes)) is not None, query
            unparsable += 1
            continue
        assert text[:1].isupper() and text.endswith("."), (query, text)
        assert "http://" not in text and not re.search(r"\b(?:dbr|dbo|dbp|wd|wdt|p|ps|pq):\w", text), (
            query,
            text,
        )
        for entity in re.findall(r"\b(?:wd:Q\d+|dbr:[^\s{}()<>,;]+)", " ".join(tokenize(query, kb))):
            known = labels.known(labels.prefixes.expand(*entity.split(":", 1)) or "")
            label = (known or local_name_label(entity)).lower()
            forms = (label, label + "s", label + "es", label[:-1] + "ies")  # a class may be counted: "cities"
            assert any(form in text.lower() for form in forms), (entity, label, query, text)
    assert len(shapes) >= {"lcquad1": 26, "lcquad2-sample": 31, "qald9": 150, "qald10": 200}[name]
    assert unparsable <= 2
