"""`dataset=nspm dataset.path=DIR`: any NSpM/DBNQA folder, and the encodings of NSpM's whole history."""

from __future__ import annotations

from pathlib import Path

import pytest

from nmt_sparql.cli import main
from nmt_sparql.core.record import RecordError, read_jsonl
from nmt_sparql.data.readers.base import canonical_query
from nmt_sparql.data.readers.nspm import decode_nspm, read_nspm
from nmt_sparql.sparql.validate import query_parse_error

DBR = "http://dbpedia.org/resource/"


def pairs(folder: Path, stem: str, rows: list[tuple[str, str]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.en").write_text("".join(q + "\n" for q, _ in rows), encoding="utf-8")
    (folder / f"{stem}.sparql").write_text("".join(s + "\n" for _, s in rows), encoding="utf-8")


# Lines as the NSpM encoders of different years wrote them (generator_utils.py REPLACEMENTS).
@pytest.mark.parametrize(
    ("encoded", "expected"),
    [
        # older: `(` inside a name -> ` attr_open `, `)` -> ` attr_close `
        (
            "select var_a where  brack_open  dbr_Alien_ attr_open film attr_close dbo_abstract var_a  brack_close",
            f"select ?a where {{ <{DBR}Alien_(film)> dbo:abstract ?a }}",
        ),
        (
            "select var_a where brack_open dbr_Alien_ par_open film par_close dbo_abstract var_a brack_close",
            f"select ?a where {{ <{DBR}Alien_(film)> dbo:abstract ?a }}",
        ),
        # `<dbr_X_(y)>`: the `>` after `)` became ` math_gt `
        (
            "ask where brack_open <dbr_Alien_ attr_open film attr_close math_gt rdf_type dbo_Film brack_close",
            f"ask where {{ <{DBR}Alien_(film)> a dbo:Film }}",
        ),
        # the comparison template ("which is taller"): raw `=` and `||`, `order by ?b` shortened
        (
            "select var_a where brack_open var_a dbp_height var_b sep_dot FILTER attr_open var_a = dbr_A "
            "|| var_a = dbr_B attr_close brack_close _oba_ var_b limit 1",
            "select ?a where { ?a dbp:height ?b . filter ( ?a = dbr:A || ?a = dbr:B ) } order by asc ( ?b ) limit 1",
        ),
        ("ask where brack_open var_a dbo_x var_b filter attr_open var_a=dbr_A attr_close brack_close", None),
        # full IRIs, raw literals, `[]` as object and as predicate, template projections
        ("select var_a where brack_open dbr_X <http://xmlns.com/foaf/0.1/name> var_a brack_close", None),
        ('select var_a where brack_open var_a rdfs_label "Le Monde"@fr brack_close', None),
        (
            "select distinct attr_open var_x attr_close where brack_open var_x dbp_complete [] brack_close",
            "select distinct ?x where { ?x dbp:complete [] }",
        ),
        (
            "select var_a count attr_open wildcard attr_close as var_c where brack_open var_b [] var_a "
            "brack_close group by var_a _obd_ var_c",
            "select ?a ( count ( * ) as ?c ) where { ?b ?p1 ?a } group by ?a order by desc ( ?c )",
        ),
        # a template's `dbp:length?b`, glued by the encoder
        (
            "select var_a where brack_open var_a dbp_lengthvar_b brack_close",
            "select ?a where { ?a dbp:length ?b }",
        ),
    ],
)
def test_every_historical_encoding_decodes_to_sparql_that_parses(encoded, expected):
    query, _ = canonical_query(decode_nspm(encoded), "dbpedia")
    assert query_parse_error(query) is None
    if expected is not None:
        assert query == canonical_query(expected, "dbpedia")[0]


def test_resource_names_containing_var_stay_whole():
    assert f"<{DBR}Ivar_Aasen>" in decode_nspm(
        "select var_a where brack_open dbr_Ivar_Aasen dbo_x var_a brack_close"
    )


def test_data_pair_folder_has_no_official_split(tmp_path):
    pairs(tmp_path, "data", [("is x a film", "ask where brack_open dbr_X rdf_type dbo_Film brack_close")])
    (read,) = read_nspm(tmp_path)
    assert read.split is None and read.id == f"{tmp_path.name}/data/0"


def test_split_pairs_win_over_the_data_pair_they_were_cut_from(tmp_path):
    row = ("is x a film", "ask where brack_open dbr_X rdf_type dbo_Film brack_close")
    for stem in ("data", "train", "val", "test"):
        pairs(tmp_path, stem, [row])
    assert [e.split for e in read_nspm(tmp_path)] == ["train", "validation", "test"]


def test_sparql_without_its_questions_is_named(tmp_path):
    pairs(tmp_path, "data", [("q", "ask where brack_open dbr_X rdf_type dbo_Film brack_close")])
    (tmp_path / "data.en").unlink()
    with pytest.raises(FileNotFoundError, match="data.en"):
        read_nspm(tmp_path)


def test_undecodable_line_is_skippable_and_named(tmp_path):
    good = ("is x a film", "ask where brack_open dbr_X rdf_type dbo_Film brack_close")
    pairs(tmp_path, "data", [good, ("q", "ask where brack_open frobnicate brack_close"), good])
    with pytest.raises(RecordError, match=r"data\.sparql: record 1: field 'sparql'.*data\.skip_invalid=true"):
        read_nspm(tmp_path)
    read = read_nspm(tmp_path, skip_invalid=True)
    assert len(read) == 2 and [(s.index, "frobnicate" in s.error) for s in read.skipped] == [(1, True)]


def test_prepare_reads_a_user_folder_under_its_own_name(tmp_path):
    folder = tmp_path / "monument"
    rows = [
        (f"is x{i} a monument", f"ask where brack_open dbr_X{i} rdf_type dbo_Monument brack_close")
        for i in range(10)
    ]
    pairs(folder, "data", rows)
    data_dir = tmp_path / "data"
    main(
        [
            "data",
            "prepare",
            "dataset=nspm",
            f"dataset.path={folder}",
            "dataset.name=monument",
            f"data.dir={data_dir}",
        ]
    )
    prepared = data_dir / "monument" / "tag_within"
    sizes = {
        name: len(list(read_jsonl(prepared / f"{name}.jsonl"))) for name in ("train", "validation", "test")
    }
    assert sizes == {"train": 8, "validation": 1, "test": 1}
