"""Annotated question + query tokens -> ids for the from-scratch models, and back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.sparql.tokens import kb_tokens
from nmt_sparql.tokenization.kbmask import (
    META_FILE,
    Encoded,
    Splitter,
    assign_slots,
    collate,
    default_splitter,
    kb_unit,
    read_tokenizer_meta,
    typed_mask,
)
from nmt_sparql.tokenization.vocab import KB, SEP, UNK, VocabError, WordVocab

MASKS = ("plain", "typed")


class WordTokenizer:
    """Word-level codec; with `copy` the encoder never sees KB elements (they become `<kb>` + slot).

    `mask="typed"` writes the mask as the element's kind (`<kb:class>`, `<kb:entity>`, ...; see
    kbmask.typed_mask) instead of the paper's single `<kb>`.
    """

    def __init__(
        self,
        src_vocab: WordVocab,
        tgt_vocab: WordVocab,
        copy: bool,
        kb: str = "dbpedia",
        splitter: Splitter | None = None,
        mask: str = "plain",
    ):
        if mask not in MASKS:
            raise VocabError(f"copy mask must be one of {', '.join(MASKS)}, got {mask!r}")
        self.src_vocab, self.tgt_vocab, self.copy, self.kb, self.mask = src_vocab, tgt_vocab, copy, kb, mask
        self._splitter = splitter

    # -- building ---------------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        pairs: Iterable[tuple[str, Sequence[str]]],
        copy: bool,
        kb: str = "dbpedia",
        min_freq: int = 1,
        splitter: Splitter | None = None,
        mask: str = "plain",
    ) -> WordTokenizer:
        """Vocabularies from the training split's (annotated question, query tokens) pairs."""
        probe = cls(WordVocab([]), WordVocab([]), copy, kb, splitter, mask)
        src_seqs, tgt_seqs = [], []
        for question, query in pairs:
            src_seqs.append([probe._masked(w, unit) for w, unit in probe.source_units(question)])
            kb_set = set(kb_tokens(list(query), kb)) if copy else set()
            tgt_seqs.append([t for t in query if t not in kb_set])
        return cls(
            WordVocab.build(src_seqs, min_freq), WordVocab.build(tgt_seqs, min_freq), copy, kb, splitter, mask
        )

    def _masked(self, word: str, token: str | None) -> str:
        """The source word the encoder sees: a KB unit becomes its mask with copy."""
        if not self.copy or token is None:
            return word
        return typed_mask(token) if self.mask == "typed" else KB

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        self.src_vocab.save(directory / "src_vocab.json")
        self.tgt_vocab.save(directory / "tgt_vocab.json")
        atomic_write_json(
            directory / META_FILE, {"type": "word", "copy": self.copy, "kb": self.kb, "mask": self.mask}
        )

    @classmethod
    def load(cls, directory: str | Path, splitter: Splitter | None = None) -> WordTokenizer:
        directory = Path(directory)
        meta = read_tokenizer_meta(directory, "word")
        src, tgt = WordVocab.load(directory / "src_vocab.json"), WordVocab.load(directory / "tgt_vocab.json")
        return cls(src, tgt, meta["copy"], meta.get("kb", "dbpedia"), splitter, meta.get("mask", "plain"))

    # -- encoding ---------------------------------------------------------------------------------
    @property
    def spec(self) -> VocabSpec:
        t = self.tgt_vocab
        return VocabSpec(
            len(self.src_vocab), len(t), self.src_vocab.pad_id, t.pad_id, t.bos_id, t.eos_id, t.kb_id
        )

    def source_units(self, question: str) -> list[tuple[str, str | None]]:
        """(model word, KB token or None) per unit: words lower-cased, KB units kept verbatim."""
        split = self._splitter or default_splitter()
        units = []
        for word in split(question):
            token = kb_unit(word)
            units.append((word if token is not None or word == SEP else word.lower(), token))
        return units

    def encode(self, question: str, query: Sequence[str] | None = None) -> Encoded:
        """Ids of one example; `query` (model tokens) is optional at inference time."""
        units = self.source_units(question)
        slot_tokens = assign_slots([u for _, u in units if u is not None]) if self.copy else []
        slot_of = {t: k for k, t in enumerate(slot_tokens)}
        src_ids, src_slots = [], []
        for word, token in units:
            if self.copy and token is not None:
                src_ids.append(self.src_vocab.id(self._masked(word, token)))
                src_slots.append(slot_of[token])
            else:
                src_ids.append(self.src_vocab.id(word))
                src_slots.append(-1)
        src_ids.append(self.src_vocab.eos_id)
        src_slots.append(-1)
        enc = Encoded(src_ids, src_slots, slot_tokens=slot_tokens)
        if query is not None:
            kb_set = set(kb_tokens(list(query), self.kb)) if self.copy else set()
            tgt = [self.tgt_vocab.bos_id]
            for tok in query:
                if tok in kb_set:
                    if tok in slot_of:
                        tgt.append(len(self.tgt_vocab) + slot_of[tok])
                    else:
                        tgt.append(self.tgt_vocab.unk_id)
                        enc.missing_kb += 1
                else:
                    tgt.append(self.tgt_vocab.id(tok))
            enc.tgt_ids = tgt + [self.tgt_vocab.eos_id]
        return enc

    def collate(self, items: Sequence[Encoded]) -> Batch:
        return collate(items, self.src_vocab.pad_id, self.tgt_vocab.pad_id)

    def decode_ids(self, ids: Sequence[int], slot_tokens: Sequence[str]) -> list[str]:
        """Generated ids -> query tokens: copy pointers resolve to the example's KB tokens."""
        v, out = len(self.tgt_vocab), []
        for i in ids:
            i = int(i)
            if i == self.tgt_vocab.eos_id:
                break
            if i in (self.tgt_vocab.bos_id, self.tgt_vocab.pad_id):
                continue
            if i >= v:
                out.append(slot_tokens[i - v] if i - v < len(slot_tokens) else UNK)
            else:
                out.append(self.tgt_vocab.token(i))
        return out
