"""Instruction prompts for decoder-only LLMs (the paper's Llama / Code Llama setting, Figure 1).

An annotated question becomes one prompt; its query is the answer, written as the model tokens
joined by spaces (plain text: an LLM reads SPARQL as code, no added tokens). The prompt lists the
question's KB elements (its `«token»` units, inline for tag_within, in the `<sep> «token» label`
tail for tag_end and linked) so the model can copy them, as the paper does to simulate tag-end:

    ###Instruction: Use the following URIs: «dbo:designer» designer, «dbr:X» X to translate into SPARQL query the following question:
    ###Input: what is the designer of X ?
    ###Output: select distinct ?uri where { ... }

A raw question has no elements: the instruction then asks for the translation without a list.
`style="plain"` is the paper's standard fine-tuning: the (annotated) question and the answer only.

Layout for the step interface (core/interface.py): `src_ids` is the whole prompt, `tgt_ids` is
`[start] + answer + [eos]` where `start` is a placeholder the causal model never reads (the prompt's
last position predicts the first answer token): the loss over `tgt_ids[1:]` is the answer-only loss.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from transformers import AutoTokenizer, PreTrainedTokenizerBase

from nmt_sparql.annotation.annotate import SEP, split_question
from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.sparql.tokens import SparqlSyntaxError, kb_tokens, tokenize
from nmt_sparql.tokenization.hf import train_sentencepiece
from nmt_sparql.tokenization.kbmask import META_FILE, Encoded, collate, kb_unit, read_tokenizer_meta
from nmt_sparql.tokenization.vocab import UNK, VocabError

STYLES = ("instruction", "plain")
_UNIT = re.compile(r"«[^«»]*»")


def prompt_parts(question: str) -> tuple[str, list[str], list[str]]:
    """(question text without its `<sep>` tail, listed units "«token» label", KB tokens in order).

    Inline units are listed as `«token»`; tail units keep their label (and kind, for linked)."""
    head, *tail = question.split(f" {SEP} ")
    head = head.strip()
    units: dict[str, str] = {}
    for word in split_question(head):
        token = kb_unit(word)
        if token is not None:
            units.setdefault(token, word)
    for unit in tail:
        unit = unit.strip()
        match = _UNIT.match(unit)
        if match is None:
            continue
        units.setdefault(match.group()[1:-1], unit)
    return head, list(units.values()), list(units)


def build_prompt(question: str, style: str = "instruction") -> str:
    """The prompt text for an annotated question (see module docstring); ends at `###Output:`."""
    if style not in STYLES:
        raise ValueError(f"model.prompt must be one of {STYLES}, got {style!r}")
    head, units, _ = prompt_parts(question)
    if style == "plain":
        return f"###Input: {' '.join(question.split())}\n###Output:"
    if units:
        task = f"Use the following URIs: {', '.join(units)} to translate into SPARQL query the following question:"
    else:
        task = "Translate into SPARQL query the following question:"
    return f"###Instruction: {task}\n###Input: {head}\n###Output:"


def answer_text(query: Sequence[str]) -> str:
    """The answer an LLM writes: the model tokens of the query joined by spaces."""
    return " ".join(query)


def free_words(queries: Iterable[Sequence[str]], kb: str) -> list[str]:
    """Prefixed names of the training queries that are not KB elements (e.g. vocabulary IRIs):
    generating them is never restricted by the KB-element constraint."""
    seen: dict[str, None] = {}
    for query in queries:
        listed = set(kb_tokens(list(query), kb))
        for tok in query:
            if tok not in listed and ":" in tok and not tok.startswith(('"', "?", "$")):
                seen.setdefault(tok, None)
    return list(seen)


class PromptTokenizer:
    """Codec of a causal LM: annotated question -> prompt ids, query -> answer ids and back."""

    def __init__(
        self,
        tokenizer: PreTrainedTokenizerBase,
        kb: str = "dbpedia",
        style: str = "instruction",
        free: Sequence[str] = (),
    ):
        if style not in STYLES:
            raise ValueError(f"model.prompt must be one of {STYLES}, got {style!r}")
        if tokenizer.eos_token_id is None:
            raise VocabError("the tokenizer needs an eos token")
        if tokenizer.pad_token_id is None:
            # A pad distinct from eos: the loss ignores pad targets, and eos must be learnt.
            if tokenizer.unk_token_id is not None and tokenizer.unk_token_id != tokenizer.eos_token_id:
                tokenizer.pad_token = tokenizer.unk_token
            else:
                tokenizer.add_special_tokens({"pad_token": "<pad>"})
        if tokenizer.pad_token_id == tokenizer.eos_token_id:
            raise VocabError("the tokenizer's pad token is its eos token: give it a distinct pad token")
        self.hf_tokenizer, self.kb, self.style, self.free = tokenizer, kb, style, list(free)
        self.copy = False

    @classmethod
    def build(
        cls,
        pairs: Iterable[tuple[str, Sequence[str]]],
        kb: str = "dbpedia",
        pretrained: str | None = None,
        sp_vocab_size: int = 1000,
        style: str = "instruction",
    ) -> PromptTokenizer:
        """`pretrained`'s tokenizer, or a SentencePiece model fitted on the training prompts and answers."""
        pairs = list(pairs)
        if pretrained is not None:
            tokenizer = AutoTokenizer.from_pretrained(pretrained)
        else:
            texts = [text for q, t in pairs for text in (build_prompt(q, style), answer_text(t))]
            tokenizer = train_sentencepiece(texts, sp_vocab_size)
        return cls(tokenizer, kb, style, free_words([q for _, q in pairs], kb))

    def save(self, directory: str | Path) -> None:
        directory = Path(directory)
        self.hf_tokenizer.save_pretrained(str(directory / "tokenizer"))
        atomic_write_json(
            directory / META_FILE,
            {"type": "prompt", "copy": False, "kb": self.kb, "style": self.style, "free": self.free},
        )

    @classmethod
    def load(cls, directory: str | Path) -> PromptTokenizer:
        directory = Path(directory)
        meta = read_tokenizer_meta(directory, "prompt")
        tokenizer = AutoTokenizer.from_pretrained(str(directory / "tokenizer"))
        return cls(
            tokenizer, meta.get("kb", "dbpedia"), meta.get("style", "instruction"), meta.get("free", [])
        )

    @property
    def start_id(self) -> int:
        """The placeholder first target id (never read by the model, see module docstring)."""
        return int(self.hf_tokenizer.pad_token_id)

    @property
    def spec(self) -> VocabSpec:
        t, v = self.hf_tokenizer, len(self.hf_tokenizer)
        unk = t.unk_token_id if t.unk_token_id is not None else t.pad_token_id
        return VocabSpec(v, v, t.pad_token_id, t.pad_token_id, self.start_id, t.eos_token_id, unk)

    def _ids(self, text: str) -> list[int]:
        return self.hf_tokenizer(text, add_special_tokens=False)["input_ids"]

    def encode(self, question: str, query: Sequence[str] | None = None) -> Encoded:
        """Prompt ids (bos first when the tokenizer has one); `slot_tokens` are the prompt's KB elements."""
        t = self.hf_tokenizer
        ids = ([t.bos_token_id] if t.bos_token_id is not None else []) + self._ids(
            build_prompt(question, self.style)
        )
        enc = Encoded(ids, [-1] * len(ids), slot_tokens=prompt_parts(question)[2])
        if query is not None:
            enc.tgt_ids = [self.start_id, *self._ids(answer_text(query)), t.eos_token_id]
        return enc

    def collate(self, items: Sequence[Encoded]) -> Batch:
        return collate(items, self.hf_tokenizer.pad_token_id, self.hf_tokenizer.pad_token_id)

    def decode_ids(self, ids: Sequence[int], slot_tokens: Sequence[str] = ()) -> list[str]:
        """Generated answer ids -> query tokens (the SPARQL lexer's); when the text does not lex, word by
        word, with `<unk>` for a word that is no token (an unknown prefix cannot reach detokenize)."""
        t = self.hf_tokenizer
        kept = []
        for raw in ids:
            if int(raw) == t.eos_token_id:
                break
            kept.append(int(raw))
        text = t.decode(kept, skip_special_tokens=True, clean_up_tokenization_spaces=False).strip()
        try:
            return tokenize(text, self.kb)
        except SparqlSyntaxError:
            return [self._word(w) for w in text.split()]

    def _word(self, word: str) -> str:
        """One whitespace-separated word of a text the lexer refused: its token, or `<unk>`."""
        try:
            tokens = tokenize(word, self.kb)
        except SparqlSyntaxError:
            return UNK
        return tokens[0] if len(tokens) == 1 else UNK
