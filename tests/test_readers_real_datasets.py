"""The readers on the real upstream files in shared/datasets (counts, splits, canonical queries).

The same behaviour is pinned on inline fixtures in test_readers_formats.py; these tests check the
readers against every record of the real files when they are present.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest

from nmt_sparql.data.readers import ReadResult, read_dataset
from nmt_sparql.data.readers.nspm import SYMBOLS, decode_nspm
from nmt_sparql.sparql.tokens import TokenType, token_types, tokenize

ROOT = Path(
    os.environ.get("NMT_SPARQL_DATASETS", Path(__file__).resolve().parents[2] / "shared" / "datasets")
)
pytestmark = pytest.mark.skipif(not (ROOT / "lcquad1").is_dir(), reason=f"datasets not present at {ROOT}")

_CACHE: dict[str, ReadResult] = {}


def read(name: str) -> ReadResult:
    if name not in _CACHE:
        _CACHE[name] = read_dataset(name, ROOT)
    return _CACHE[name]


def test_lcquad1_reads_both_files_with_their_split_and_template_question():
    data = read("lcquad1")
    assert len(data) == 5000
    assert Counter(e.split for e in data) == {"train": 4000, "test": 1000}
    assert len({e.id for e in data}) == 5000
    first = next(e for e in data if e.id == "1501")
    assert first.question == "How many movies are there whose director is Stanley Kubrick?"
    assert first.marked_question == "How many <movies> are there whose <director> is <Stanley Kubrick>?"
    assert first.reformulated == "How many movies did Stanley Kubrick direct?"
    assert first.template_id == "101"
    assert [(k.token, k.kind) for k in first.kb_elements] == [
        ("dbo:director", "uri"),
        ("dbr:Stanley_Kubrick", "uri"),
    ]
    assert all(e.kb == "dbpedia" and "<" not in e.question for e in data)


def test_lcquad2_sample_reads_every_record_and_derives_templates():
    data = read("lcquad2-sample")
    assert len(data) == 4211 and not data.skipped
    assert all(e.kb == "wikidata" and e.split is None and e.question for e in data)
    assert all(e.template_id and e.template_id.startswith("s") for e in data)
    # 410 distinct raw intermediate queries collapse into a few dozen template skeletons.
    assert 10 <= len({e.template_id for e in data}) <= 100


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("nspm-movies", {"train": 3366, "validation": 420, "test": 420}),
        # compositions_v2/test.* end with a blank line pair, hence 463 records for 464 lines.
        ("nspm-compositions", {"train": 10707, "validation": 1189, "test": 463}),
    ],
)
def test_nspm_folders_read_with_dev_as_validation(name, counts):
    assert Counter(e.split for e in read(name)) == counts


@pytest.mark.parametrize("folder", ["movies_300", "compositions_v2"])
def test_nspm_every_local_line_decodes_to_sparql_without_encoding_residue(folder):
    """Every encoded line decodes into a query that tokenizes with the DBpedia map, with no token
    left over from the encoding and no token the tokenizer cannot classify (a name fragment the
    decoder failed to glue back would be one)."""
    residue = re.compile(r"<?[a-z]+_|_")  # `var_x`, `dbr_X`, `<dbo_X>`, `brack_open`, a `_piece` of a name
    lines = 0
    for stem in ("train", "dev", "test"):
        for line in (ROOT / "nspm" / folder / f"{stem}.sparql").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            lines += 1
            tokens = tokenize(decode_nspm(line), "dbpedia")
            types = token_types(tokens, "dbpedia")
            assert not [t for t in tokens if residue.match(t) or t in SYMBOLS], line
            assert TokenType.UNKNOWN not in types, line
            assert tokens.count("{") == tokens.count("}") == 1 and TokenType.URI in types, line
    assert lines == {"movies_300": 4206, "compositions_v2": 12359}[folder]


def test_qald_keeps_gold_answers_and_lists_broken_upstream_queries():
    qald9, qald10 = read("qald9"), read("qald10")
    assert (len(qald9), len(qald10)) == (407, 394)
    assert [(s.id, "parse" in s.error) for s in qald9.skipped] == [("56", True)]
    assert qald10.skipped == []  # id 311's blank node `_:ex` lexes
    assert all(e.kb == "dbpedia" and e.split == "train" for e in qald9)
    assert all(e.kb == "wikidata" and e.split == "test" for e in qald10)
    assert all(isinstance(e.answers, list) and len(e.answers) == 1 for e in qald9 + qald10)
    booleans = [e for e in qald10 if "boolean" in e.answers[0]]
    assert booleans and all(isinstance(e.answers[0]["boolean"], bool) for e in booleans)
    first = next(e for e in qald10 if e.id == "0")
    assert first.question == "After whom is the Riemannian geometry named?"
    assert (
        first.answers[0]["results"]["bindings"][0]["result"]["value"]
        == "http://www.wikidata.org/entity/Q42299"
    )
