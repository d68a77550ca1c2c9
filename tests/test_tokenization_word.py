"""Word vocabularies and the KB-masking codec of the from-scratch models."""

from __future__ import annotations

import json

import pytest

from nmt_sparql.inference.tokenizer import load_tokenizer
from nmt_sparql.sparql.tokens import tokenize
from nmt_sparql.tokenization.vocab import SPECIALS, VocabError, WordVocab
from nmt_sparql.tokenization.word import WordTokenizer

PAIRS = [
    ("Who is the «dbr:Person» whose «dbr:opponent» is «dbr:Ike_Clanton» ?",
     tokenize("SELECT DISTINCT ?uri WHERE { ?uri dbr:opponent dbr:Ike_Clanton . ?uri a dbr:Person }")),
    ("Give me all the organizations named «\"zollkriminal amt\"» ? <sep> «dbo:Organisation» organisation",
     tokenize('SELECT ?x WHERE { ?x a dbo:Organisation . ?x rdfs:label "zollkriminal amt" }')),
]  # fmt: skip


def test_vocab_specials_min_freq_and_json_roundtrip(tmp_path) -> None:
    vocab = WordVocab.build([["a", "b", "a"], ["a", "c"]], min_freq=2)
    assert vocab.itos[: len(SPECIALS)] == list(SPECIALS) and "a" in vocab and "b" not in vocab
    assert vocab.id("b") == vocab.unk_id
    vocab.save(tmp_path / "v.json")
    assert WordVocab.load(tmp_path / "v.json").itos == vocab.itos
    (tmp_path / "bad.json").write_text(json.dumps({"specials": ["<pad>"], "tokens": []}))
    with pytest.raises(VocabError, match="bad.json.*specials"):
        WordVocab.load(tmp_path / "bad.json")


def test_copy_masks_kb_units_with_slots_in_order_of_first_appearance() -> None:
    enc = WordTokenizer.build(PAIRS, copy=True)
    item = enc.encode(*PAIRS[0])
    assert item.slot_tokens == ["dbr:Person", "dbr:opponent", "dbr:Ike_Clanton"]
    kb = enc.src_vocab.kb_id
    assert [s for i, s in zip(item.src_ids, item.src_slots, strict=True) if i == kb] == [0, 1, 2]
    assert all(s == -1 for i, s in zip(item.src_ids, item.src_slots, strict=True) if i != kb)
    assert "dbr:Person" not in enc.tgt_vocab and "«dbr:Person»" not in enc.src_vocab  # S only / W only
    assert enc.src_vocab.id("who") != enc.src_vocab.unk_id  # lower-cased words
    v = len(enc.tgt_vocab)
    assert item.tgt_ids[0] == enc.tgt_vocab.bos_id and item.tgt_ids[-1] == enc.tgt_vocab.eos_id
    assert v + 2 in item.tgt_ids and v + 0 in item.tgt_ids  # dbr:Ike_Clanton, dbr:Person copied
    assert enc.decode_ids(item.tgt_ids, item.slot_tokens) == PAIRS[0][1]


def test_literal_units_with_spaces_and_sep_survive_the_split() -> None:
    enc = WordTokenizer.build(PAIRS, copy=True)
    item = enc.encode(*PAIRS[1])
    assert item.slot_tokens == ['"zollkriminal amt"', "dbo:Organisation"]
    assert enc.src_vocab.sep_id in item.src_ids
    assert enc.decode_ids(item.tgt_ids, item.slot_tokens) == PAIRS[1][1]


def test_target_kb_token_missing_from_the_source_becomes_unk_and_is_counted() -> None:
    enc = WordTokenizer.build(PAIRS, copy=True)
    item = enc.encode("who is «dbr:Ike_Clanton» ?", PAIRS[0][1])
    assert item.missing_kb == 2 and item.tgt_ids.count(enc.tgt_vocab.unk_id) == 2


def test_without_copy_kb_units_are_ordinary_tokens(tmp_path) -> None:
    enc = WordTokenizer.build(PAIRS, copy=False)
    item = enc.encode(*PAIRS[0])
    assert all(s == -1 for s in item.src_slots) and enc.src_vocab.kb_id not in item.src_ids
    assert "dbr:Ike_Clanton" in enc.tgt_vocab and max(item.tgt_ids) < len(enc.tgt_vocab)
    enc.save(tmp_path)
    again = WordTokenizer.load(tmp_path)
    assert again.encode(*PAIRS[0]) == item and not again.copy


def test_a_tokenizer_saved_under_its_former_name_encoder_json_still_loads(tmp_path) -> None:
    enc = WordTokenizer.build(PAIRS, copy=True)
    enc.save(tmp_path)
    (tmp_path / "tokenization.json").rename(tmp_path / "encoder.json")
    again = load_tokenizer(tmp_path)
    assert isinstance(again, WordTokenizer) and again.encode(*PAIRS[0]) == enc.encode(*PAIRS[0])


def test_collate_pads_sources_slots_and_targets() -> None:
    enc = WordTokenizer.build(PAIRS, copy=True)
    items = [enc.encode(*p) for p in PAIRS]
    batch = enc.collate(items)
    n = max(len(it.src_ids) for it in items)
    assert batch.src_ids.shape == batch.src_slots.shape == batch.src_mask.shape == (2, n)
    short = min(range(2), key=lambda i: len(items[i].src_ids))
    assert not batch.src_mask[short, -1] and batch.src_slots[short, -1] == -1
    assert batch.tgt_ids.shape[1] == max(len(it.tgt_ids) for it in items)


def test_typed_mask_tells_the_kind_but_not_the_element():
    from nmt_sparql.tokenization.kbmask import typed_mask
    from nmt_sparql.tokenization.word import WordTokenizer

    assert [typed_mask(t) for t in ("dbo:Person", "dbo:birthPlace", "dbp:x", "dbr:Paris", '"roman"', "wd:Q5")] == [
        "<kb:class>", "<kb:property>", "<kb:property>", "<kb:entity>", "<kb:literal>", "<kb:entity>",
    ]  # fmt: skip
    pairs = [("who is the «dbo:Person» whose «dbo:opponent» is «dbr:Ike_Clanton» ?",
              ["select", "?uri", "where", "{", "?uri", "dbo:opponent", "dbr:Ike_Clanton", ".", "?uri", "a", "dbo:Person", "}"])]  # fmt: skip
    enc = WordTokenizer.build(pairs, copy=True, kb="dbpedia", mask="typed")
    encoded = enc.encode(*pairs[0])
    words = [enc.src_vocab.token(i) for i in encoded.src_ids]
    assert words[3] == "<kb:class>" and words[5] == "<kb:property>" and words[7] == "<kb:entity>"
    assert not any(w.startswith("«") for w in words)
    assert encoded.src_slots[3] == 0 and encoded.src_slots[7] == 2
