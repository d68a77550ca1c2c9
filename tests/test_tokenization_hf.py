"""The BART/T5 codec: schema elements and prefixes as added tokens, same Batch layout, exact round trip."""

from __future__ import annotations

from nmt_sparql.sparql.tokens import tokenize
from nmt_sparql.tokenization.hf import HFTokenizer

PAIRS = [
    ("what is the «dbo:author» of «dbr:Richard_Coke» ?",
     tokenize("SELECT DISTINCT ?uri WHERE { dbr:Richard_Coke dbo:author ?uri }")),
    ("how many «dbo:Film» have «dbo:name» «\"in the mood\"@en» ?",
     tokenize('SELECT (COUNT(?count) AS ?c) WHERE { ?count a dbo:Film . ?count dbo:name "in the mood"@en } LIMIT 5')),
    ("where was «dbr:Ada_Lovelace» born ?",
     tokenize("SELECT ?a WHERE { dbr:Ada_Lovelace dbo:birthPlace ?a . FILTER(?a != dbr:London) }")),
]  # fmt: skip


def test_schema_elements_and_prefixes_are_single_added_tokens() -> None:
    enc = HFTokenizer.build(PAIRS, copy=False, sp_vocab_size=200)
    tok = enc.hf_tokenizer
    for schema in ("select", "distinct", "where", "{", "}", "dbo:", "dbr:", "<kb>", "<sep>"):
        ids = tok(schema, add_special_tokens=False)["input_ids"]
        assert len(ids) == 1 and tok.convert_ids_to_tokens(ids[0]) == schema, schema
    assert enc.target_token_ids("dbo:author")[0] == tok.convert_tokens_to_ids("dbo:")


def test_target_round_trip_without_copy_keeps_literals_and_variables_whole() -> None:
    enc = HFTokenizer.build(PAIRS, copy=False, sp_vocab_size=200)
    for question, query in PAIRS:
        item = enc.encode(question, query)
        assert all(s == -1 for s in item.src_slots)
        assert enc.decode_ids(item.tgt_ids, []) == query


def test_copy_masks_kb_units_and_targets_point_to_slots(tmp_path) -> None:
    enc = HFTokenizer.build(PAIRS, copy=True, sp_vocab_size=200)
    v = len(enc.hf_tokenizer)
    assert enc.spec.tgt_size == v and enc.spec.kb_id == enc.kb_id
    item = enc.encode(*PAIRS[1])
    assert item.slot_tokens == ["dbo:Film", "dbo:name", '"in the mood"@en']
    assert [s for i, s in zip(item.src_ids, item.src_slots, strict=True) if i == enc.kb_id] == [0, 1, 2]
    assert item.src_ids[-1] == enc.hf_tokenizer.eos_token_id
    assert {v, v + 1, v + 2} <= set(item.tgt_ids) and item.missing_kb == 0
    assert enc.decode_ids(item.tgt_ids, item.slot_tokens) == PAIRS[1][1]
    missing = enc.encode(*PAIRS[2])  # dbo:birthPlace and dbr:London are in the query only
    assert missing.missing_kb == 2
    enc.save(tmp_path)
    again = HFTokenizer.load(tmp_path)
    assert again.encode(*PAIRS[1]) == item
    batch = again.collate([again.encode(q, t) for q, t in PAIRS])
    assert batch.src_ids.shape == batch.src_slots.shape and batch.tgt_ids.shape[0] == 3
