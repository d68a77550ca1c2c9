"""The hand-written natural questions of benchmarks/: readable, canonical, answered, and not in the generator's words.

The set measures how the system does on questions people write, so a record that does not read, a gold
query that the tokenizer does not reproduce or that the bundled KB does not answer, or a question that
a generator template could have produced, would make that measurement wrong.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from nmt_sparql.core.record import Example
from nmt_sparql.data.generate import BUNDLED_KB, PHRASES, bundled_kb_path, generate, load_store
from nmt_sparql.data.readers.jsonl import read_jsonl_data
from nmt_sparql.execution.embedded import EmbeddedStore
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import TokenType, detokenize, token_types, tokenize

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
# Each set, with the questions it has at least in all and of each kind.
SETS = {
    "natural_questions.jsonl": (80, 12),
    "natural_questions_heldout.jsonl": (60, 10),
    "natural_questions_heldout2.jsonl": (72, 12),
    "natural_questions_heldout3.jsonl": (72, 12),
    "natural_questions_heldout4.jsonl": (96, 16),
    "natural_questions_heldout5.jsonl": (96, 16),
    "natural_questions_heldout6.jsonl": (96, 16),
    "natural_questions_heldout7.jsonl": (96, 12),
    "natural_questions_heldout8.jsonl": (96, 16),
    "natural_questions_heldout9.jsonl": (96, 16),
    "natural_questions_heldout10.jsonl": (96, 16),
    "natural_questions_heldout11.jsonl": (96, 16),
    "natural_questions_heldout12.jsonl": (96, 16),
    "natural_questions_heldout13.jsonl": (96, 16),
    "natural_questions_heldout14.jsonl": (96, 16),
    "natural_questions_heldout15.jsonl": (96, 16),
    "natural_questions_heldout16.jsonl": (96, 16),
    "natural_questions_heldout17.jsonl": (96, 16),
    "natural_questions_heldout18.jsonl": (96, 16),
    "natural_questions_heldout19.jsonl": (96, 16),
    "natural_questions_heldout20.jsonl": (96, 16),
    "natural_questions_heldout21.jsonl": (96, 16),
    "natural_questions_heldout22.jsonl": (96, 16),
    "natural_questions_heldout23.jsonl": (96, 16),
    "natural_questions_heldout24.jsonl": (96, 16),
    "natural_questions_heldout25.jsonl": (96, 16),
    "natural_questions_heldout26.jsonl": (96, 16),
    "natural_questions_heldout27.jsonl": (96, 16),
    "natural_questions_heldout28.jsonl": (96, 16),
    "natural_questions_heldout29.jsonl": (96, 16),
    "natural_questions_heldout30.jsonl": (96, 16),
    "natural_questions_heldout31.jsonl": (96, 16),
    "natural_questions_heldout32.jsonl": (96, 16),
    "natural_questions_heldout33.jsonl": (96, 16),
    "natural_questions_heldout34.jsonl": (96, 16),
    "natural_questions_heldout35.jsonl": (96, 16),
    "natural_questions_heldout36.jsonl": (96, 16),
    "natural_questions_heldout37.jsonl": (96, 16),
    "natural_questions_heldout38.jsonl": (96, 16),
    "natural_questions_heldout39.jsonl": (96, 16),
    "natural_questions_heldout40.jsonl": (96, 16),
    "natural_questions_heldout41.jsonl": (96, 16),
    "natural_questions_heldout42.jsonl": (96, 16),
    "natural_questions_heldout43.jsonl": (96, 16),
    "natural_questions_heldout44.jsonl": (96, 16),
    "natural_questions_heldout45.jsonl": (96, 16),
    "natural_questions_heldout46.jsonl": (96, 16),
}
KINDS = ("one_hop", "list", "two_hop", "count", "ask", "superlative_comparison")


def frame_pattern(template: str) -> re.Pattern[str]:
    """A generator template as a regex over a whole question: each `{slot}` matches any words."""
    body = template.rstrip("?.").strip()
    parts = re.split(r"\{\w+\}", body)
    return re.compile(r"\s*" + r"(.+)".join(re.escape(p) for p in parts) + r"\s*[?.]?\s*", re.IGNORECASE)


FRAMES = [(name, t, frame_pattern(t)) for name, templates in PHRASES.items() for t in templates]


def generator_frame(question: str) -> str | None:
    """The first generator template that `question` fits, or None."""
    text = " ".join(question.split())
    return next((t for _, t, pattern in FRAMES if pattern.fullmatch(text)), None)


@pytest.fixture(scope="module", params=sorted(SETS))
def benchmark(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="module")
def records(benchmark: str) -> list[dict]:
    with (BENCHMARKS / benchmark).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def examples(benchmark: str) -> list[Example]:
    return list(read_jsonl_data(BENCHMARKS / benchmark))


@pytest.fixture(scope="module")
def kb():
    store = EmbeddedStore([bundled_kb_path()], prefixes=BUNDLED_KB)
    yield store
    store.close()


def test_every_record_reads_through_the_jsonl_reader_with_its_query_already_canonical(
    benchmark: str, records: list[dict], examples: list[Example]
) -> None:
    assert len(examples) == len(records) >= SETS[benchmark][0]
    for record, example in zip(records, examples):
        assert set(record) == {"id", "question", "query", "kind", "kb"}, record["id"]
        assert example.kb == BUNDLED_KB and example.question.strip(), record["id"]
        assert example.query == record["query"], f"{record['id']}: query is not in canonical form"


def test_ids_are_unique_and_every_kind_has_enough_questions(benchmark: str, records: list[dict]) -> None:
    ids = Counter(r["id"] for r in records)
    assert [i for i, n in ids.items() if n > 1] == []
    kinds = Counter(r["kind"] for r in records)
    assert set(kinds) == set(KINDS)
    assert {k: n for k, n in kinds.items() if n < SETS[benchmark][1]} == {}


def test_the_held_out_set_shares_no_question_or_query_with_the_first() -> None:
    def read(name: str) -> list[dict]:
        return [json.loads(line) for line in (BENCHMARKS / name).open(encoding="utf-8") if line.strip()]

    first, held_out = read("natural_questions.jsonl"), read("natural_questions_heldout.jsonl")
    words = {" ".join(re.findall(r"\w+", r["question"].lower())) for r in first}
    assert [r["id"] for r in held_out if " ".join(re.findall(r"\w+", r["question"].lower())) in words] == []
    assert [r["id"] for r in held_out if r["query"] in {f["query"] for f in first}] == []


def test_every_query_tokenizes_and_round_trips(examples: list[Example]) -> None:
    """The detokenized query is the gold text itself: stricter than `round_trip`'s same algebra, and it
    spares rdflib's parser (16 ms a query, for 40 sets); the KB test below has the engine parse each."""
    pm = prefix_map(BUNDLED_KB)
    for example in examples:
        assert detokenize(tokenize(example.query, pm), pm) == example.query, example.id


def test_every_query_names_only_kb_elements_and_has_an_answer(examples: list[Example], kb) -> None:
    pm = prefix_map(BUNDLED_KB)
    asks = []
    for example in examples:
        tokens = tokenize(example.query, pm)
        uris = {t for t, kind in zip(tokens, token_types(tokens, pm)) if kind is TokenType.URI}
        assert kb.exists(uris) == uris, f"{example.id}: not in the KB: {sorted(uris - kb.exists(uris))}"
        answer = kb.query(example.query)
        assert answer.error is None, f"{example.id}: {answer.error}"
        if answer.kind == "ask":
            asks.append(answer.boolean)
            continue
        assert answer.rows and all(v is not None for row in answer.rows for v in row), example.id
        if "count" in example.query.split():
            assert int(answer.rows[0][0]) > 0, example.id
    assert True in asks and False in asks


def test_no_question_fits_a_generator_template(records: list[dict]) -> None:
    fitting = {r["id"]: generator_frame(r["question"]) for r in records}
    assert {i: t for i, t in fitting.items() if t is not None} == {}


def test_the_template_patterns_recognise_generated_questions() -> None:
    generated = generate(load_store(bundled_kb_path()), BUNDLED_KB, n_per_template=4)
    assert generated
    assert [e.question for e in generated if generator_frame(e.question) is None] == []
