"""Hugging Face tokenization for BART and T5, with the same Batch layout as the word codec.

Following the paper (§III.B, after Banerjee et al.), every SPARQL schema element seen in the
training queries and every URI prefix of the KB is an added special token, as are `<kb>` and
`<sep>`. A target query is encoded token by token (schema tokens as their one id, `prefix:local`
as the prefix id plus the sub-words of `local`, anything else as sub-words that start with the
tokenizer's word-boundary marker), so generated ids map back to query tokens without guessing
where spaces were. When no pretrained tokenizer is given, a SentencePiece unigram model is trained
on the training split and wrapped as a transformers T5Tokenizer.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import sentencepiece as spm
from transformers import AddedToken, AutoTokenizer, PreTrainedTokenizerBase, T5Tokenizer

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import TokenType, kb_tokens, token_types
from nmt_sparql.tokenization.kbmask import (
    META_FILE,
    Encoded,
    Splitter,
    assign_slots,
    collate,
    default_splitter,
    kb_unit,
    read_tokenizer_meta,
)
from nmt_sparql.tokenization.vocab import KB, SEP, UNK, VocabError

_BOUNDARY = ("▁", "Ġ")
_WORD = re.compile(r"^[a-z_]+$")
_SYMBOL = re.compile(r"^[^\w\s\"'?$<:]+$|^<=?$")
_OPEN_LITERAL = re.compile(r'^"(?:[^"\\]|\\.)*$')


def schema_tokens(queries: Iterable[Sequence[str]], kb: str) -> list[str]:
    """SPARQL keywords, functions, operators and punctuation of the training queries (not KB, not vars)."""
    seen: dict[str, None] = {}
    for query in queries:
        for tok, kind in zip(query, token_types(list(query), kb), strict=True):
            is_schema = kind in (TokenType.KEYWORD, TokenType.FUNCTION)
            if is_schema and (_WORD.match(tok) or _SYMBOL.match(tok)):
                seen.setdefault(tok, None)
    return list(seen)


def train_sentencepiece(texts: Iterable[str], vocab_size: int = 1000) -> T5Tokenizer:
    """A unigram model over the training texts, as a T5-style tokenizer (pad 0, eos 1, unk 2)."""
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(list(texts)),
        model_writer=model,
        vocab_size=vocab_size,
        model_type="unigram",
        hard_vocab_limit=False,
        character_coverage=1.0,
        pad_id=0,
        eos_id=1,
        unk_id=2,
        bos_id=-1,
        minloglevel=2,
    )
    proc = spm.SentencePieceProcessor(model_proto=model.getvalue())
    vocab = [(proc.id_to_piece(i), proc.get_score(i)) for i in range(proc.get_piece_size())]
    return T5Tokenizer(vocab=vocab, extra_ids=0)


class HFTokenizer:
    """Codec over a transformers tokenizer; V = len(tokenizer), copy ids are V + slot."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        copy: bool,
        kb: str = "dbpedia",
        splitter: Splitter | None = None,
    ):
        self.hf_tokenizer, self.copy, self.kb = tokenizer, copy, kb
        self._splitter = splitter
        if tokenizer.pad_token_id is None or tokenizer.eos_token_id is None:
            raise VocabError("the tokenizer needs a pad and an eos token")
        # An added token that is also a sub-word of the base vocabulary shares that sub-word's id, so
        # its id is ambiguous on the way back: such tokens are encoded as ordinary sub-words instead.
        base = tokenizer.backend_tokenizer.model
        added = {t: i for t, i in tokenizer.get_added_vocab().items() if base.token_to_id(t) is None}
        if KB not in added or SEP not in added:
            raise VocabError(
                f"the tokenizer lacks the added tokens {KB} and {SEP}: build it with HFTokenizer.build"
            )
        self._added = added
        self._prefixes = {t for t in added if t.endswith(":") and t[:-1] in prefix_map(kb).prefixes}
        self._id_to_added = {i: t for t, i in added.items()}
        self._lead = "" if self._raw_pieces("a")[0][0].startswith(_BOUNDARY) else " "
        self.kb_id = added[KB]
        self.start_id = (
            tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.pad_token_id
        )

    # -- building ---------------------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        pairs: Iterable[tuple[str, Sequence[str]]],
        copy: bool,
        kb: str = "dbpedia",
        pretrained: str | None = None,
        sp_vocab_size: int = 1000,
        splitter: Splitter | None = None,
    ) -> HFTokenizer:
        """Load `pretrained`'s tokenizer, or train SentencePiece on the pairs; then add the special tokens."""
        pairs = list(pairs)
        split = splitter or default_splitter()
        if pretrained is not None:
            tokenizer = AutoTokenizer.from_pretrained(pretrained)
        else:
            texts = []
            for question, query in pairs:
                texts.append(" ".join(kb_unit(w) or w for w in split(question)))
                texts.append(" ".join(query))
            tokenizer = train_sentencepiece(texts, sp_vocab_size)
        words = schema_tokens([q for _, q in pairs], kb)
        prefixes = [p + ":" for p in prefix_map(kb).prefixes]
        tokenizer.add_tokens(
            [AddedToken(t, single_word=True, normalized=False, special=True) for t in words]
            + [AddedToken(t, normalized=False, special=True) for t in [*prefixes, KB, SEP]],
            special_tokens=True,
        )
        return cls(tokenizer, copy, kb, splitter)

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        self.hf_tokenizer.save_pretrained(str(directory / "tokenizer"))
        atomic_write_json(directory / META_FILE, {"type": "hf", "copy": self.copy, "kb": self.kb})

    @classmethod
    def load(cls, directory: str | Path, splitter: Splitter | None = None) -> HFTokenizer:
        directory = Path(directory)
        meta = read_tokenizer_meta(directory, "hf")
        tokenizer = AutoTokenizer.from_pretrained(str(directory / "tokenizer"))
        return cls(tokenizer, meta["copy"], meta.get("kb", "dbpedia"), splitter)

    # -- encoding ---------------------------------------------------------------------------------
    @property
    def spec(self) -> VocabSpec:
        t, v = self.hf_tokenizer, len(self.hf_tokenizer)
        return VocabSpec(v, v, t.pad_token_id, t.pad_token_id, self.start_id, t.eos_token_id, self.kb_id)

    def _raw_pieces(self, text: str) -> list[tuple[str, int]]:
        """Sub-words of `text` from the tokenizer's model alone: added tokens are not matched inside."""
        bt = self.hf_tokenizer.backend_tokenizer
        norm = bt.normalizer.normalize_str(text) if bt.normalizer else text
        words = bt.pre_tokenizer.pre_tokenize_str(norm) if bt.pre_tokenizer else [(norm, None)]
        return [(p.value, p.id) for w, _ in words for p in bt.model.tokenize(w)]

    def _text_ids(self, text: str) -> list[int]:
        return self.hf_tokenizer(text, add_special_tokens=False)["input_ids"] if text else []

    def target_token_ids(self, token: str) -> list[int]:
        """Ids of one query token (see module docstring for why token by token)."""
        if token in self._added:
            return [self._added[token]]
        head, sep, local = token.partition(":")
        if sep and head + ":" in self._prefixes and not token.startswith(('"', "<", "?")):
            return [self._added[head + ":"]] + [i for _, i in self._raw_pieces(self._lead + local)]
        return [i for _, i in self._raw_pieces(self._lead + token)]

    def encode(self, question: str, query: Sequence[str] | None = None) -> Encoded:
        split = self._splitter or default_splitter()
        units = [(w, kb_unit(w)) for w in split(question)]
        slot_tokens = assign_slots([u for _, u in units if u is not None]) if self.copy else []
        slot_of = {t: k for k, t in enumerate(slot_tokens)}
        src_ids: list[int] = (
            [] if self.hf_tokenizer.bos_token_id is None else [self.hf_tokenizer.bos_token_id]
        )
        src_slots: list[int] = [-1] * len(src_ids)
        text: list[str] = []
        for word, token in units:
            if self.copy and token is not None:
                ids = self._text_ids(" ".join(text))
                src_ids += ids + [self.kb_id]
                src_slots += [-1] * len(ids) + [slot_of[token]]
                text = []
            else:
                text.append(token if token is not None else word)
        ids = self._text_ids(" ".join(text))
        src_ids += ids + [self.hf_tokenizer.eos_token_id]
        src_slots += [-1] * (len(ids) + 1)
        enc = Encoded(src_ids, src_slots, slot_tokens=slot_tokens)
        if query is not None:
            kb_set = set(kb_tokens(list(query), self.kb)) if self.copy else set()
            v, tgt = len(self.hf_tokenizer), [self.start_id]
            for tok in query:
                if tok in kb_set:
                    if tok in slot_of:
                        tgt.append(v + slot_of[tok])
                    else:
                        tgt.append(self.hf_tokenizer.unk_token_id)
                        enc.missing_kb += 1
                else:
                    tgt += self.target_token_ids(tok)
            enc.tgt_ids = tgt + [self.hf_tokenizer.eos_token_id]
        return enc

    def collate(self, items: Sequence[Encoded]) -> Batch:
        return collate(items, self.hf_tokenizer.pad_token_id, self.hf_tokenizer.pad_token_id)

    def decode_ids(self, ids: Sequence[int], slot_tokens: Sequence[str]) -> list[str]:
        """Generated ids -> query tokens, splitting at added tokens and word-boundary sub-words."""
        v, t = len(self.hf_tokenizer), self.hf_tokenizer
        out: list[str] = []
        head: str = ""  # a prefix waiting for its local part
        pieces: list[str] = []

        def flush() -> None:
            nonlocal head, pieces
            if head or pieces:
                out.append(head + (t.convert_tokens_to_string(pieces).strip() if pieces else ""))
            head, pieces = "", []

        for pos, raw in enumerate(ids):
            i = int(raw)
            if i == t.eos_token_id:
                break
            if i == t.pad_token_id or (pos == 0 and i == self.start_id):
                continue
            if i >= v:
                flush()
                out.append(slot_tokens[i - v] if i - v < len(slot_tokens) else UNK)
            elif i in self._id_to_added:
                flush()
                tok = self._id_to_added[i]
                if tok in self._prefixes:
                    head = tok
                else:
                    out.append(tok)
            else:
                piece = t.convert_ids_to_tokens(i)
                current = t.convert_tokens_to_string(pieces).strip() if pieces else ""
                inside_literal = bool(pieces) and _OPEN_LITERAL.match(current) is not None
                if piece.startswith(_BOUNDARY) and pieces and not inside_literal:
                    flush()
                pieces.append(piece)
        flush()
        return out
