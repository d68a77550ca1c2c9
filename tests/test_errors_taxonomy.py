"""Error taxonomy (§VI): alignment, token types, fake URIs, Table XIV distribution, Tables XV-XVIII matrix."""

from __future__ import annotations

from pathlib import Path

import pytest

from nmt_sparql.execution import EmbeddedStore
from nmt_sparql.metrics import analyse_errors, classify_errors, dataset_uris
from nmt_sparql.metrics.errors import COLUMNS, DELETED, FAKE, INSERTED, ROWS


def toks(text: str) -> list[str]:
    """Model tokens written space-separated, as a model emits them."""
    return text.split()


# Table X of the paper, as model tokens (space-separated; `filter(` split as the tokenizer does).
TABLE_X = {
    "URIs": (
        "select distinct ?uri where { dbr:Philip_Novak dbp:mainInterests ?uri }",
        "select distinct ?uri where { dbr:Timothy_Morton dbp:mainInterests ?uri }",
        "dbpedia",
    ),
    "Fake URIs": (
        "select distinct ?obj where { wd:Q206856 wdt:P166 ?obj . ?obj wdt:P31 wd:Q131647 }",
        "select distinct ?obj where { wd:Q206856 wdt:P166 ?obj . ?obj w:Pq31 wd:Q131647 }",
        "wikidata",
    ),
    "SVocab": (
        "select distinct ?uri where { dbr:Dan_Otero dbo:debutTeam ?uri }",
        "select distinct ?uri { dbr:John_Estes dbo:debutTeam ?uri . ?x dbo:debutTeam ?uri . }",
        "dbpedia",
    ),
    "Fonction": (
        "ask where wd:Q2084454 wdt:P5066 ?obj filter ( ?obj = 22.4 )",
        "ask where wd:Q2084454 wdt:P5066 ?obj where ( ?obj = 22_4 )",
        "wikidata",
    ),
    "Literal": (
        "ask where wd:Q2084454 wdt:P5066 ?obj filter ( ?obj = 22.4 )",
        "ask where wd:Q2084454 wdt:P5066 ?obj filter ( ?obj = 22_4 )",
        "wikidata",
    ),
}
KNOWN = dataset_uris([g for g, _, kb in TABLE_X.values() if kb == "dbpedia"], "dbpedia") | {
    "dbr:Timothy_Morton", "dbr:John_Estes", "wd:Q206856", "wdt:P166", "wdt:P31", "wd:Q131647",
}  # fmt: skip


def errors_of(name: str) -> list[tuple[str | None, str | None, str, str, str]]:
    gold, pred, kb = TABLE_X[name]
    found = classify_errors(gold.split(), pred.split(), kb, lambda t: t not in KNOWN)
    return [(e.reference, e.predicted, e.reference_type, e.predicted_type, e.category) for e in found]


def test_table_x_uri_error() -> None:
    assert errors_of("URIs") == [("dbr:Philip_Novak", "dbr:Timothy_Morton", "URIs", "URIs", "URIs")]


def test_table_x_fake_uri() -> None:
    assert errors_of("Fake URIs") == [("wdt:P31", "w:Pq31", "URIs", FAKE, FAKE)]


def test_table_x_svocab_error_with_deletion_and_insertions() -> None:
    assert errors_of("SVocab") == [
        ("where", None, "SVocab", DELETED, "SVocab"),
        ("dbr:Dan_Otero", "dbr:John_Estes", "URIs", "URIs", "URIs"),
        (None, ".", INSERTED, "SVocab", "SVocab"),
        (None, "?x", INSERTED, "Var", "Var"),
        (None, "dbo:debutTeam", INSERTED, "URIs", "URIs"),
        (None, "?uri", INSERTED, "Var", "Var"),
        (None, ".", INSERTED, "SVocab", "SVocab"),
    ]


def test_table_x_function_and_literal_rows() -> None:
    # The paper files `filter` -> `where` under "Fonction"; the project's tokenizer types `filter` as a
    # SPARQL keyword, so that substitution is SVocab -> SVocab here. The literal error is the same.
    assert errors_of("Fonction") == [
        ("filter", "where", "SVocab", "SVocab", "SVocab"),
        ("22.4", "22_4", "Lit", "Lit", "Lit"),
    ]
    assert errors_of("Literal") == [("22.4", "22_4", "Lit", "Lit", "Lit")]


def test_operator_and_unknown_and_variable_errors() -> None:
    gold = toks("select ?x where { ?x dbo:height ?h filter ( ?h > 2 ) }")
    pred = toks("select ?x where { ?x dbo:height ?x filter ( ?h < <unk> ) }")
    found = classify_errors(gold, pred, "dbpedia")
    assert [(e.reference_type, e.predicted_type) for e in found] == [
        ("Var", "Var"),
        ("Fct", "Fct"),
        ("Lit", "Unk"),
    ]


def test_consistent_variable_renaming_is_not_an_error() -> None:
    gold = toks("select ?uri where { ?uri dbo:p dbr:A }")
    assert classify_errors(gold, [t.replace("?uri", "?x") for t in gold]) == []
    report = analyse_errors([(gold, [t.replace("?uri", "?x") for t in gold])])
    assert report.n_incorrect == 0 and report.n_errors == 0


def test_replace_blocks_pair_by_type() -> None:
    # Two tokens replaced by one: the URI pairs with the URI, the keyword is deleted.
    gold = toks("select ?x where { ?x dbo:p dbr:A . }")
    pred = toks("select ?x where { ?x dbo:p dbr:B }")
    found = classify_errors(gold, pred)
    assert [(e.reference, e.predicted_type) for e in found] == [("dbr:A", "URIs"), (".", DELETED)]


def test_distribution_and_confusion_hand_computed() -> None:
    pairs = [(TABLE_X[n][0].split(), TABLE_X[n][1].split()) for n in ("URIs", "Fake URIs", "SVocab")]
    ok = toks("select ?x where { ?x dbo:p dbr:A }")
    pairs.append((ok, ok))
    report = analyse_errors(pairs, "wikidata", known_uris=KNOWN | {"dbp:mainInterests", "dbo:debutTeam"})
    assert (report.n_queries, report.n_incorrect, report.n_errors, report.fake_uri_check) == (
        4,
        3,
        9,
        "known-uris",
    )
    # 9 errors: URIs 3 (two substitutions, one inserted URI), Fake 1, SVocab 3 (1 deleted + 2 inserted), Var 2.
    assert report.counts == {"URIs": 3, FAKE: 1, "SVocab": 3, "Lit": 0, "Fct": 0, "Var": 2, "Unk": 0}
    assert report.distribution["URIs"] == pytest.approx(100 * 3 / 9)
    assert sum(report.distribution.values()) == pytest.approx(100.0)
    # By query: query 1 gives URIs 1; query 2 Fake 1; query 3 splits 1 over its 7 errors.
    assert report.distribution_by_query["URIs"] == pytest.approx(100 * (1 + 2 / 7) / 3)
    assert report.distribution_by_query[FAKE] == pytest.approx(100 / 3)
    assert report.confusion_counts["URIs"] == {"URIs": 2, FAKE: 1, **dict.fromkeys(COLUMNS[2:], 0)}
    assert report.confusion["URIs"]["URIs"] == pytest.approx(200 / 3)
    assert report.confusion["SVocab"][DELETED] == 100.0
    assert report.confusion[INSERTED]["Var"] == pytest.approx(40.0)  # 2 of the 5 inserted tokens
    assert report.confusion["Lit"] == dict.fromkeys(COLUMNS, 0.0)
    for row in ROWS:
        total = sum(report.confusion[row].values())
        assert total == pytest.approx(100.0) or total == 0.0


def test_fake_uris_checked_against_a_kb(tmp_path: Path) -> None:
    data = tmp_path / "kb.nt"
    data.write_text(
        "<http://www.wikidata.org/entity/Q206856> <http://www.wikidata.org/prop/direct/P166> "
        "<http://www.wikidata.org/entity/Q1> .\n"
        "<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P31> "
        "<http://www.wikidata.org/entity/Q131647> .\n",
        encoding="utf-8",
    )
    gold, pred, _ = TABLE_X["Fake URIs"]
    other = "select distinct ?obj where { wd:Q206856 wdt:P166 ?obj . ?obj wdt:P31 wd:Q1 }"
    with EmbeddedStore([data], prefixes="wikidata") as kb:
        report = analyse_errors(
            [(gold.split(), pred.split()), (gold.split(), other.split())], "wikidata", knowledge_base=kb
        )
    assert report.fake_uri_check == "kb"
    assert report.counts[FAKE] == 1 and report.counts["URIs"] == 1  # wd:Q1 exists: a wrong but real URI
    no_check = analyse_errors([(gold.split(), pred.split())], "wikidata")
    assert no_check.fake_uri_check == "off" and no_check.counts[FAKE] == 0
