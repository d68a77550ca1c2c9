"""Annotated questions -> n-best query tokens, for any model and tokenization (evaluate, translate, serve)."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from omegaconf import DictConfig

from nmt_sparql.decoding import QueryGrammar, beam_search, greedy
from nmt_sparql.decoding.kb_constraint import KBConstraint
from nmt_sparql.metrics.query import tokens_parse

# BART/T5 write sub-word pieces the automaton cannot follow: with `decode.grammar` they decode this
# many hypotheses (at least) and the first one that parses comes first.
SUBWORD_CANDIDATES = 5
_GRAMMARS: weakref.WeakKeyDictionary[Any, dict[str, QueryGrammar]] = weakref.WeakKeyDictionary()


def grammar_enabled(cfg: Mapping[str, Any] | DictConfig) -> bool:
    """`decode.grammar` (on when absent); `decode.typed_triples`, its former name, where only it is set
    (configs and exports written before the grammar)."""
    if cfg.get("grammar") is not None:
        return bool(cfg.get("grammar"))
    if cfg.get("typed_triples") is not None:
        return bool(cfg.get("typed_triples"))
    return True


def decode(
    model: torch.nn.Module, encoder: Any, questions: Sequence[str], cfg: DictConfig | dict
) -> list[list[list[str]]]:
    """The n-best query token lists of each question (one list when greedy), copy pointers resolved."""
    beam, n_best = int(cfg.get("beam", 1)), int(cfg.get("n_best", 1))
    max_len, size = int(cfg.get("max_len", 100)), int(cfg.get("batch_size", 64))
    constrain = bool(cfg.get("kb_constraint", False))
    if constrain and not hasattr(encoder, "free"):  # the prompt codec's names outside the KB
        raise ValueError("decode.kb_constraint is for LLM prompts (model=llama)")
    constrained = grammar_enabled(cfg)
    grammar = query_grammar(encoder) if constrained and getattr(encoder, "tgt_vocab", None) else None
    rerank = constrained and grammar is None
    if rerank:
        beam = max(beam, SUBWORD_CANDIDATES)
    out: list[list[list[str]]] = []
    for start in range(0, len(questions), size):
        items = [encoder.encode(q) for q in questions[start : start + size]]
        batch = encoder.collate(items)
        bound = None if grammar is None else grammar.bind([i.slot_tokens for i in items])
        if constrain:
            bound = KBConstraint.for_tokenizer(encoder.tokenizer).with_elements(
                [list(item.slot_tokens) for item in items], encoder.free
            )
        if beam == 1 and n_best == 1:
            nbest = [[ids] for ids in greedy(model, batch, max_len, bound)]
        else:
            width = beam if rerank else n_best
            nbest = [
                [ids for ids, _ in hyps]
                for hyps in beam_search(model, batch, beam, max_len, width, grammar=bound)
            ]
        for item, hyps in zip(items, nbest):
            tokens = [encoder.decode_ids(ids, item.slot_tokens) for ids in hyps]
            out.append(parsing_first(tokens, encoder.kb)[:n_best] if rerank else tokens)
    return out


def parsing_first(hypotheses: list[list[str]], kb: str) -> list[list[str]]:
    """The hypotheses whose query parses first, each group in its beam order (BART/T5 with the grammar)."""
    parses = [tokens_parse(tokens, kb) for tokens in hypotheses]
    return [h for h, ok in zip(hypotheses, parses) if ok] + [h for h, ok in zip(hypotheses, parses) if not ok]


def query_grammar(encoder: Any) -> QueryGrammar:
    """The automaton of a word-level encoder's target vocabulary, built once per vocabulary and KB."""
    vocab = encoder.tgt_vocab
    by_kb = _GRAMMARS.setdefault(vocab, {})
    if encoder.kb not in by_kb:
        by_kb[encoder.kb] = QueryGrammar(vocab.itos, encoder.kb)
    return by_kb[encoder.kb]
