"""Each reader on small inline files: field mapping, canonical queries, KB elements, splits, and
malformed input raising RecordError that names the file, the record index and the field."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from nmt_sparql.core.record import Example, KBElement, RecordError
from nmt_sparql.data.readers import READERS, read_dataset
from nmt_sparql.data.readers.lcquad2 import derive_template_id, template_structure
from nmt_sparql.data.readers.nspm import decode_nspm
from nmt_sparql.sparql.tokens import canonicalize

DBR = "http://dbpedia.org/resource/"
DBO = "http://dbpedia.org/ontology/"


def write_json(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def assert_record_error(
    err: pytest.ExceptionInfo[RecordError], path: Path, index: int | str, field: str
) -> None:
    assert (err.value.source, err.value.index, err.value.field_name) == (str(path), index, field)
    assert str(path) in str(err.value) and field in str(err.value)


# ---------------------------------------------------------------- LC-QuAD 1.0

LCQ1 = {
    "_id": "1501",
    "corrected_question": "How many movies did Stanley Kubrick direct?",
    "intermediary_question": "How many <movies> are there whose <director> is <Stanley Kubrick>?",
    "sparql_query": f"SELECT DISTINCT COUNT(?uri) WHERE {{?uri <{DBO}director> <{DBR}Stanley_Kubrick>  . }}",
    "sparql_template_id": 101,
}


def lcquad1_root(tmp_path: Path, train: list, test: list) -> Path:
    write_json(tmp_path / "lcquad1" / "train-data.json", train)
    write_json(tmp_path / "lcquad1" / "test-data.json", test)
    return tmp_path


def test_lcquad1_maps_fields_and_keeps_the_file_split(tmp_path):
    test_record = {**LCQ1, "_id": "7", "corrected_question": "[]", "sparql_template_id": 2}
    data = read_dataset("lcquad1", lcquad1_root(tmp_path, [LCQ1], [test_record]))
    first, second = data
    assert first == Example(
        id="1501",
        question="How many movies are there whose director is Stanley Kubrick?",
        query=canonicalize(LCQ1["sparql_query"], "dbpedia"),
        kb="dbpedia",
        kb_elements=[KBElement("dbo:director", "uri"), KBElement("dbr:Stanley_Kubrick", "uri")],
        reformulated="How many movies did Stanley Kubrick direct?",
        template_id="101",
        split="train",
        marked_question=LCQ1["intermediary_question"],
        source_query=LCQ1["sparql_query"],
    )
    assert "( count ( ?uri ) as ?count )" in first.query
    assert (second.split, second.reformulated, second.template_id) == ("test", None, "2")


@pytest.mark.parametrize(
    ("record", "index", "field"),
    [
        ({k: v for k, v in LCQ1.items() if k != "sparql_query"}, 1, "sparql_query"),
        ({**LCQ1, "intermediary_question": 5}, 1, "intermediary_question"),
        ({**LCQ1, "sparql_query": "SELECT ?x WHERE { ?x nope:p ?y }"}, 1, "sparql_query"),
        ({**LCQ1, "sparql_query": "SELECT ?x WHERE { ?x ~ ?y }"}, 1, "sparql_query"),
        ("not an object", 1, "<record>"),
    ],
)
def test_lcquad1_malformed_record_names_file_index_field(tmp_path, record, index, field):
    root = lcquad1_root(tmp_path, [LCQ1, record], [])
    with pytest.raises(RecordError) as err:
        read_dataset("lcquad1", root)
    assert_record_error(err, root / "lcquad1" / "train-data.json", index, field)


def test_lcquad1_bad_json_names_the_file(tmp_path):
    root = lcquad1_root(tmp_path, [LCQ1], [])
    (root / "lcquad1" / "test-data.json").write_text('[{"_id": "1",', encoding="utf-8")
    with pytest.raises(RecordError) as err:
        read_dataset("lcquad1", root)
    assert_record_error(err, root / "lcquad1" / "test-data.json", "<file>", "<json>")


# ---------------------------------------------------------------- LC-QuAD 2.0

LCQ2 = {
    "uid": 19719,
    "NNQT_question": "What is {child} of {Ramesses II} ?",
    "question": "Who is the child of Ramesses II?",
    "paraphrased_question": "Who are Ramesses II's children?",
    "sparql_wikidata": "SELECT ?answer WHERE { wd:Q1523 wdt:P40 ?answer }",
    "template_id": 1,
}


def test_lcquad2_official_uses_template_question_and_falls_back_for_reformulation(tmp_path, caplog):
    train = [
        LCQ2,
        {**LCQ2, "uid": 2, "question": None},
        {**LCQ2, "uid": 3, "question": "[]", "paraphrased_question": []},
        {**LCQ2, "uid": 4, "NNQT_question": None, "question": "", "paraphrased_question": "[]"},
    ]
    write_json(tmp_path / "lcquad2" / "train.json", train)
    write_json(tmp_path / "lcquad2" / "test.json", [{**LCQ2, "uid": 5, "template_id": "statement_2"}])
    with caplog.at_level(logging.WARNING):
        data = read_dataset("lcquad2", tmp_path)
    assert [e.id for e in data] == ["19719", "2", "3", "5"]
    assert "skipped 1 record" in caplog.text
    first = data[0]
    assert (first.question, first.marked_question) == (
        "What is child of Ramesses II ?",
        LCQ2["NNQT_question"],
    )
    assert [e.reformulated for e in data] == [
        "Who is the child of Ramesses II?",
        "Who are Ramesses II's children?",
        None,
        "Who is the child of Ramesses II?",
    ]
    assert first.kb == "wikidata" and [k.token for k in first.kb_elements] == ["wd:Q1523", "wdt:P40"]
    assert [(e.split, e.template_id) for e in data] == [("train", "1")] * 3 + [("test", "statement_2")]


def test_lcquad2_malformed_record_names_file_index_field(tmp_path):
    write_json(tmp_path / "lcquad2" / "train.json", [LCQ2, {**LCQ2, "sparql_wikidata": ["x"]}])
    write_json(tmp_path / "lcquad2" / "test.json", [])
    with pytest.raises(RecordError) as err:
        read_dataset("lcquad2", tmp_path)
    assert_record_error(err, tmp_path / "lcquad2" / "train.json", 1, "sparql_wikidata")


SAMPLE = {
    "intermediate_sparql": "ASK WHERE { @@ent@@ @@pred@@ ?obj filter ( ?obj < 0.8 ) }",
    "paraphrased_question": "Is the albedo of Mars less than 0.8?",
    "question": "Does Mars have an albedo below 0.8?",
    "sparql_wikidata": "ASK WHERE { wd:Q111 wdt:P4501 ?obj filter ( ?obj < 0.8 ) }",
    "uid": 10,
}


def test_lcquad2_sample_falls_back_and_derives_template_ids(tmp_path, caplog):
    records = [
        SAMPLE,
        {
            **SAMPLE,
            "uid": 11,
            "question": None,
            "intermediate_sparql": SAMPLE["intermediate_sparql"].replace("0.8", "2"),
        },
        {
            **SAMPLE,
            "uid": 12,
            "question": "",
            "paraphrased_question": [],
            "NNQT_question": "Is {albedo} of {Mars} < 2?",
        },
        {**SAMPLE, "uid": 13, "question": None, "paraphrased_question": "[]"},
        {
            **SAMPLE,
            "uid": 14,
            "intermediate_sparql": "select distinct ?answer where { @@ent@@ @@pred@@ ?answer }",
        },
    ]
    write_json(tmp_path / "lcquad2-sample" / "test_KG_4211.json", records)
    with caplog.at_level(logging.WARNING):
        data = read_dataset("lcquad2-sample", tmp_path)
    assert [e.id for e in data] == ["10", "11", "12", "14"]
    assert "skipped 1 record" in caplog.text
    assert [e.question for e in data[:3]] == [
        SAMPLE["question"],
        SAMPLE["paraphrased_question"],
        "Is albedo of Mars < 2?",
    ]
    assert [e.reformulated for e in data[:3]] == [
        SAMPLE["paraphrased_question"],
        SAMPLE["paraphrased_question"],
        None,
    ]
    assert [e.marked_question for e in data[:3]] == [None, None, "Is {albedo} of {Mars} < 2?"]
    assert all(e.split is None for e in data)
    # Same shape, different compared constant -> same template; another shape -> another template.
    assert data[0].template_id == data[1].template_id == data[2].template_id != data[3].template_id
    assert [(k.token, k.kind) for k in data[0].kb_elements] == [
        ("wd:Q111", "uri"),
        ("wdt:P4501", "uri"),
        ("0.8", "literal"),
    ]


def test_template_structure_renames_variables_and_hides_constants():
    a = "SELECT DISTINCT ?sbj ?l WHERE { ?sbj rdfs:label ?l . FILTER ( CONTAINS ( lcase ( ?l ) , 'tityos' ) ) } LIMIT 25"
    b = "select distinct ?x ?y where { ?x rdfs:label ?y . FILTER ( CONTAINS ( lcase ( ?y ) , 'zoids' ) ) } limit 25"
    assert template_structure(a) == template_structure(b)
    assert (
        "?v0" in template_structure(a)
        and "@@lit@@" in template_structure(a)
        and "LIMIT 25" in template_structure(a)
    )
    assert (
        derive_template_id(a) == derive_template_id(b) != derive_template_id(a.replace("LIMIT 25", "LIMIT 5"))
    )


def test_lcquad2_sample_requires_intermediate_sparql(tmp_path):
    path = write_json(
        tmp_path / "lcquad2-sample" / "test_KG_4211.json",
        [{k: v for k, v in SAMPLE.items() if k != "intermediate_sparql"}],
    )
    with pytest.raises(RecordError) as err:
        read_dataset("lcquad2-sample", tmp_path)
    assert_record_error(err, path, 0, "intermediate_sparql")


# ---------------------------------------------------------------- NSpM


def nspm_folder(root: Path, name: str, pairs: dict[str, list[tuple[str, str]]]) -> Path:
    folder = root / "nspm" / name
    folder.mkdir(parents=True)
    for stem in ("train", "dev", "test"):
        rows = pairs.get(stem, [])
        (folder / f"{stem}.en").write_text("".join(q + "\n" for q, _ in rows), encoding="utf-8")
        (folder / f"{stem}.sparql").write_text("".join(s + "\n" for _, s in rows), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("encoded", "sparql"),
    [
        (
            "select var_x where brack_open dbr_7_Años dbo_runtime var_x brack_close",
            f"select ?x where {{ <{DBR}7_Años> <{DBO}runtime> ?x }}",
        ),
        (
            "select var_a where brack_open dbr_Colonie_(village) ,_New_York dbo_state var_b sep_dot var_b <dbo_location> var_a brack_close",
            f"select ?a where {{ <{DBR}Colonie_(village),_New_York> <{DBO}state> ?b . ?b <{DBO}location> ?a }}",
        ),
        (
            "select var_a where brack_open dbr_Glacier_National_Park_(U.S sep_dot) <dbo_nearestCity> var_a brack_close",
            f"select ?a where {{ <{DBR}Glacier_National_Park_(U.S.)> <{DBO}nearestCity> ?a }}",
        ),
        (
            "select var_x where brack_open dbr_Cheran_(director par_close dbo_abstract var_x brack_close",
            f"select ?x where {{ <{DBR}Cheran_(director)> <{DBO}abstract> ?x }}",
        ),
        (
            "select var_a where brack_open dbr_Barmouth_(Londonderry) _railway_station <dbo_district> var_a brack_close",
            f"select ?a where {{ <{DBR}Barmouth_(Londonderry)_railway_station> <{DBO}district> ?a }}",
        ),
        (
            "select var_x where brack_open var_x rdf_type dbo_Film sep_dot var_x dbo_runtime var_y sep_dot "
            "filter par_open var_y math_gt 4  math_mult  3600 par_close brack_close order by desc par_open var_y par_close limit 1",
            "select ?x where { ?x <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
            f"<{DBO}Film> . ?x <{DBO}runtime> ?y . filter ( ?y > 4 * 3600 ) }} order by desc ( ?y ) limit 1",
        ),
        (
            "select wildcard where brack_open var_x rdfs_label quot Alien quot @en sep_semi dbo_budget quot 11 quot str_type xsd_double brack_close _obd_ var_x",
            'select * where { ?x <http://www.w3.org/2000/01/rdf-schema#label> "Alien"@en ; '
            f'<{DBO}budget> "11"^^<http://www.w3.org/2001/XMLSchema#double> }} order by desc ( ?x )',
        ),
    ],
)
def test_decode_nspm_restores_sparql(encoded, sparql):
    assert decode_nspm(encoded) == sparql


def test_nspm_reads_splits_and_canonicalizes(tmp_path):
    nspm_folder(
        tmp_path,
        "movies_300",
        {
            "train": [
                (
                    "how long is 7 años",
                    "select var_x where brack_open dbr_7_Años dbo_runtime var_x brack_close",
                )
            ],
            "dev": [
                ("who is alien", "select var_x where brack_open dbr_Alien dbo_abstract var_x brack_close")
            ],
            "test": [
                ("", ""),
                (
                    "who directed alien",
                    "select var_x where brack_open dbr_Alien dbo_director var_x brack_close",
                ),
            ],
        },
    )
    data = READERS["nspm-movies"](tmp_path)
    assert [(e.id, e.split) for e in data] == [
        ("movies_300/train/0", "train"),
        ("movies_300/dev/0", "validation"),
        ("movies_300/test/1", "test"),
    ]
    assert data[0].query == canonicalize(f"select ?x where {{ <{DBR}7_Años> dbo:runtime ?x }}", "dbpedia")
    assert [k.token for k in data[2].kb_elements] == ["dbr:Alien", "dbo:director"]


def test_nspm_unknown_token_names_file_line_field(tmp_path):
    folder = nspm_folder(
        tmp_path,
        "compositions_v2",
        {
            "train": [
                ("q", "select var_a where brack_open dbr_X dbo_y var_a brack_close"),
                ("q2", "select var_a frobnicate"),
            ]
        },
    )
    with pytest.raises(RecordError) as err:
        READERS["nspm-compositions"](tmp_path)
    assert_record_error(err, folder / "train.sparql", 1, "sparql")
    assert "frobnicate" in str(err.value)


def test_nspm_misaligned_files_are_an_error(tmp_path):
    folder = nspm_folder(
        tmp_path,
        "movies_300",
        {"train": [("q", "select var_x where brack_open dbr_X dbo_y var_x brack_close")]},
    )
    (folder / "train.en").write_text("q\nextra\n", encoding="utf-8")
    with pytest.raises(RecordError) as err:
        READERS["nspm-movies"](tmp_path)
    assert_record_error(err, folder / "train.sparql", "<file>", "<lines>")


# ---------------------------------------------------------------- QALD


def qald_record(qid: object, sparql: str, en: str = "Who directed Alien?") -> dict:
    return {
        "id": qid,
        "question": [{"language": "de", "string": "Wer?"}, {"language": "en", "string": en}],
        "query": {"sparql": sparql},
        "answers": [
            {
                "head": {"vars": ["d"]},
                "results": {"bindings": [{"d": {"type": "uri", "value": DBR + "Ridley_Scott"}}]},
            }
        ],
    }


def test_qald_keeps_answers_and_skips_broken_upstream_queries(tmp_path, caplog):
    good = qald_record("1", f"PREFIX res: <{DBR}> SELECT ?d WHERE {{ res:Alien <{DBO}director> ?d }}")
    ask = {
        **qald_record(2, "ASK { wd:Q1 wdt:P31 wd:Q5 }", "Is the universe a human?"),
        "answers": [{"head": {}, "boolean": False}],
    }
    unparseable = qald_record("3", f"SELECT COUNT(DISTINCT ?uri AS ?uri) WHERE {{ ?uri <{DBO}director> ?d }}")
    unlexable = qald_record("4", 'SELECT ?x WHERE { ?x wdt:P20 "open }')
    write_json(tmp_path / "qald" / "qald-9-train-multilingual.json", {"questions": [good, unparseable]})
    write_json(tmp_path / "qald" / "qald_10.json", {"questions": [ask, unlexable]})
    with caplog.at_level(logging.WARNING):
        qald9, qald10 = read_dataset("qald9", tmp_path), read_dataset("qald10", tmp_path)
    assert [(e.id, e.question, e.kb, e.split) for e in qald9] == [
        ("1", "Who directed Alien?", "dbpedia", "train")
    ]
    assert qald9[0].answers == good["answers"]
    assert qald9[0].query == canonicalize(good["query"]["sparql"], "dbpedia")
    assert [(e.id, e.answers, e.kb, e.split) for e in qald10] == [
        ("2", [{"head": {}, "boolean": False}], "wikidata", "test")
    ]
    assert [(s.id, s.index, s.error.split(":")[0]) for s in qald9.skipped] == [("3", 1, "does not parse")]
    assert [(s.id, s.index, s.error.split(":")[0]) for s in qald10.skipped] == [("4", 1, "does not tokenize")]
    assert "id 3" in caplog.text and "id 4" in caplog.text


@pytest.mark.parametrize(
    ("record", "field"),
    [
        ({**qald_record("9", "ASK {}"), "question": [{"language": "de", "string": "Wer?"}]}, "question"),
        ({**qald_record("9", "ASK {}"), "query": {}}, "query.sparql"),
        ({**qald_record("9", "ASK {}"), "answers": [{"head": {}}]}, "answers[0]"),
        ({**qald_record("9", "ASK {}"), "id": None}, "id"),
    ],
)
def test_qald_malformed_record_names_file_index_field(tmp_path, record, field):
    path = write_json(tmp_path / "qald" / "qald_10.json", {"questions": [qald_record("1", "ASK {}"), record]})
    with pytest.raises(RecordError) as err:
        read_dataset("qald10", tmp_path)
    assert_record_error(err, path, 1, field)


# ---------------------------------------------------------------- user JSONL


def test_jsonl_reads_a_file_or_folder_and_canonicalizes(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    given = KBElement("dbr:Alien_(film)", "uri", "Alien")
    (folder / "a.jsonl").write_text(
        json.dumps(
            {
                "id": 1,
                "question": "Who directed Alien?",
                "query": "SELECT ?d WHERE { dbr:Alien dbo:director ?d }",
                "kb": "dbpedia",
            }
        )
        + "\n\n"
        + json.dumps(
            {
                "id": "x",
                "question": "q",
                "query": "select ?d where { <http://dbpedia.org/resource/Alien_(film)> dbo:director ?d }",
                "kb": "dbpedia",
                "split": "test",
                "kb_elements": [{"token": given.token, "kind": "uri", "label": "Alien"}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    (folder / "b.jsonl").write_text(
        json.dumps({"id": "w", "question": "q", "query": "ASK { wd:Q1 wdt:P31 wd:Q5 }", "kb": "wikidata"})
        + "\n",
        encoding="utf-8",
    )
    data = read_dataset("jsonl", folder)
    assert [e.id for e in data] == ["1", "x", "w"]
    assert data[0].query == canonicalize("SELECT ?d WHERE { dbr:Alien dbo:director ?d }", "dbpedia")
    assert [k.token for k in data[0].kb_elements] == ["dbr:Alien", "dbo:director"]
    assert data[1].kb_elements == [given] and data[1].split == "test"
    assert [e.id for e in read_dataset("jsonl", folder / "b.jsonl")] == ["w"]


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"id": 1, "question": "q"', "<line>"),
        ('{"id": 1, "question": "q", "kb": "dbpedia"}', "query"),
        ('{"id": 1, "question": "q", "query": "ASK {}", "kb": "nope"}', "kb"),
        ('{"id": 1, "question": "q", "query": "ASK {}", "kb": "dbpedia", "split": "dev"}', "split"),
        ('{"id": 1, "question": "q", "query": "ASK { ?x zz:y 1 }", "kb": "dbpedia"}', "query"),
    ],
)
def test_jsonl_malformed_line_names_file_index_field(tmp_path, line, field):
    path = tmp_path / "data.jsonl"
    ok = '{"id": 0, "question": "q", "query": "ASK {}", "kb": "dbpedia"}'
    path.write_text(f"{ok}\n{line}\n", encoding="utf-8")
    with pytest.raises(RecordError) as err:
        read_dataset("jsonl", path)
    assert_record_error(err, path, 1, field)


def test_unknown_dataset_and_missing_files_are_clear(tmp_path):
    with pytest.raises(KeyError, match="unknown dataset 'nope'.*lcquad1"):
        read_dataset("nope", tmp_path)
    with pytest.raises(FileNotFoundError, match="train-data.json"):
        read_dataset("lcquad1", tmp_path)
