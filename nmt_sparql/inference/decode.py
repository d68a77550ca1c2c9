"""Annotated questions -> n-best query tokens, for any model and tokenization (evaluate, translate, serve)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from omegaconf import DictConfig

from nmt_sparql.decoding import TripleRoles, beam_search, greedy
from nmt_sparql.decoding.kb_constraint import KBConstraint


def decode(
    model: torch.nn.Module, encoder: Any, questions: Sequence[str], cfg: DictConfig | dict
) -> list[list[list[str]]]:
    """The n-best query token lists of each question (one list when greedy), copy pointers resolved."""
    beam, n_best = int(cfg.get("beam", 1)), int(cfg.get("n_best", 1))
    max_len, size = int(cfg.get("max_len", 100)), int(cfg.get("batch_size", 64))
    roles = triple_roles(encoder) if cfg.get("typed_triples", False) else None
    constrain = bool(cfg.get("kb_constraint", False))
    if constrain and (roles is not None or not hasattr(encoder, "free")):  # PromptEncoder's free names
        raise ValueError(
            "decode.kb_constraint is for LLM prompts (model=llama), and excludes decode.typed_triples"
        )
    out: list[list[list[str]]] = []
    for start in range(0, len(questions), size):
        items = [encoder.encode(q) for q in questions[start : start + size]]
        batch = encoder.collate(items)
        bound = None if roles is None else roles.with_slots([i.slot_tokens for i in items])
        if constrain:
            bound = KBConstraint.for_tokenizer(encoder.tokenizer).with_elements(
                [list(item.slot_tokens) for item in items], encoder.free
            )
        if beam == 1 and n_best == 1:
            nbest = [[ids] for ids in greedy(model, batch, max_len, bound)]
        else:
            nbest = [
                [ids for ids, _ in hyps]
                for hyps in beam_search(model, batch, beam, max_len, n_best, roles=bound)
            ]
        out += [
            [encoder.decode_ids(ids, item.slot_tokens) for ids in hyps] for item, hyps in zip(items, nbest)
        ]
    return out


def triple_roles(encoder: Any) -> TripleRoles:
    """`decode.typed_triples` for a word-level encoder, whose decoder ids are whole SPARQL tokens."""
    vocab = getattr(encoder, "tgt_vocab", None)
    if vocab is None:
        raise ValueError(
            "decode.typed_triples needs a word-level tokenization (convs2s, transformer): "
            "BART/T5 decode sub-word pieces, whose triple positions it cannot follow"
        )
    return TripleRoles(vocab.itos, encoder.kb)
