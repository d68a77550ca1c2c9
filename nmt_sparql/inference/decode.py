"""Annotated questions -> n-best query tokens, for any model and tokenization (evaluate, translate, serve)."""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from omegaconf import DictConfig

from nmt_sparql.decoding import QueryGrammar, beam_search, greedy
from nmt_sparql.decoding.banned import Banned
from nmt_sparql.decoding.grammar import token_class
from nmt_sparql.decoding.kb_constraint import KBConstraint
from nmt_sparql.inference.expected_answer import expected_answer, refused_forms
from nmt_sparql.metrics.query import tokens_parse
from nmt_sparql.sparql.prefixes import prefix_map

# BART/T5 write sub-word pieces the automaton cannot follow: with `decode.grammar` they decode this
# many hypotheses (at least) and the first one that parses comes first.
SUBWORD_CANDIDATES = 5
_GRAMMARS: weakref.WeakKeyDictionary[Any, dict[tuple[str, frozenset[str]], QueryGrammar]] = (
    weakref.WeakKeyDictionary()
)


def grammar_enabled(cfg: Mapping[str, Any] | DictConfig) -> bool:
    """`decode.grammar` (on when absent); `decode.typed_triples`, its former name, where only it is set
    (configs and exports written before the grammar)."""
    if cfg.get("grammar") is not None:
        return bool(cfg.get("grammar"))
    if cfg.get("typed_triples") is not None:
        return bool(cfg.get("typed_triples"))
    return True


def decode(
    model: torch.nn.Module, tokenizer: Any, questions: Sequence[str], cfg: DictConfig | dict
) -> list[list[list[str]]]:
    """The n-best query token lists of each question (one list when greedy), copy pointers resolved.
    `cfg["banned"]` (word-level target vocabularies): {step: tokens} refused at that step."""
    beam, n_best = int(cfg.get("beam", 1)), int(cfg.get("n_best", 1))
    banned = banned_ids(tokenizer, cfg.get("banned") or {})
    max_len, size = int(cfg.get("max_len", 100)), int(cfg.get("batch_size", 64))
    constrain = bool(cfg.get("kb_constraint", False))
    if constrain and not hasattr(tokenizer, "free"):  # the prompt codec's names outside the KB
        raise ValueError("decode.kb_constraint is for LLM prompts (model=llama)")
    constrained = grammar_enabled(cfg)
    word_level = constrained and getattr(tokenizer, "tgt_vocab", None) is not None
    rerank = constrained and not word_level
    if rerank:
        beam = max(beam, SUBWORD_CANDIDATES)
    out: list[list[list[str]]] = []
    for start in range(0, len(questions), size):
        items = [tokenizer.encode(q) for q in questions[start : start + size]]
        nbest: list[list[list[int]]] = [[] for _ in items]
        for classes, group in (
            by_slot_classes(items, tokenizer.kb) if word_level else [(None, range(len(items)))]
        ):
            sub = [items[j] for j in group]
            batch = tokenizer.collate(sub)
            bound = None
            if classes is not None:
                bound = query_grammar(tokenizer, classes).bind([i.slot_tokens for i in sub])
            if constrain:
                bound = KBConstraint.for_tokenizer(tokenizer.hf_tokenizer).with_elements(
                    [list(item.slot_tokens) for item in sub], tokenizer.free
                )
            if banned:
                bound = Banned(bound, banned)
            if beam == 1 and n_best == 1:
                found = [[ids] for ids in greedy(model, batch, max_len, bound)]
            else:
                width = beam if rerank else n_best
                found = [
                    [ids for ids, _ in hyps]
                    for hyps in beam_search(model, batch, beam, max_len, width, grammar=bound)
                ]
            for j, hyps in zip(group, found):
                nbest[j] = hyps
        for item, hyps in zip(items, nbest):
            tokens = [tokenizer.decode_ids(ids, item.slot_tokens) for ids in hyps]
            out.append(parsing_first(tokens, tokenizer.kb)[:n_best] if rerank else tokens)
    return out


def banned_ids(tokenizer: Any, banned: Mapping[int, Sequence[str]]) -> dict[int, list[int]]:
    """{step: target ids} of {step: tokens}; tokens the vocabulary lacks cannot be written anyway."""
    if not banned:
        return {}
    vocab = getattr(tokenizer, "tgt_vocab", None)
    if vocab is None:
        raise ValueError("decode.banned needs a word-level target vocabulary (transformer, convs2s)")
    return {int(t): [vocab.stoi[w] for w in words if w in vocab.stoi] for t, words in banned.items()}


def asked_forms(
    model: torch.nn.Module,
    tokenizer: Any,
    asked: Sequence[str],
    inputs: Sequence[str],
    nbest: list[list[list[str]]],
    cfg: DictConfig | dict,
) -> list[list[list[str]]]:
    """`nbest` with, for each question whose n-best holds no query of the form it asks for (yes/no,
    not yes/no, not a count: inference/expected_answer.py), the n-best of a decode that refuses the
    others' first tokens appended; word-level models only (the others' n-best is returned as it is).
    `asked`: the questions as asked; `inputs`: what the model reads."""
    if getattr(tokenizer, "tgt_vocab", None) is None:
        return nbest
    groups: dict[tuple[tuple[int, tuple[str, ...]], ...], list[int]] = {}
    for i, (question, hyps) in enumerate(zip(asked, nbest, strict=True)):
        refused = refused_forms(expected_answer(question), hyps)
        if refused:
            groups.setdefault(refused, []).append(i)
    out = list(nbest)
    for refused, rows in groups.items():
        settings = {**cfg, "banned": dict(refused)}
        for i, hyps in zip(rows, decode(model, tokenizer, [inputs[i] for i in rows], settings)):
            out[i] = [*out[i], *hyps]
    return out


def by_slot_classes(items: Sequence[Any], kb: str) -> list[tuple[frozenset[str], list[int]]]:
    """The examples of a batch grouped by the term classes of their copy slots: each group decodes
    with the automaton that knows exactly which kinds of KB element its examples can copy."""
    pm = prefix_map(kb)
    groups: dict[frozenset[str], list[int]] = {}
    for j, item in enumerate(items):
        groups.setdefault(frozenset(token_class(t, pm) for t in item.slot_tokens), []).append(j)
    return list(groups.items())


def parsing_first(hypotheses: list[list[str]], kb: str) -> list[list[str]]:
    """The hypotheses whose query parses first, each group in its beam order (BART/T5 with the grammar)."""
    parses = [tokens_parse(tokens, kb) for tokens in hypotheses]
    return [h for h, ok in zip(hypotheses, parses) if ok] + [h for h, ok in zip(hypotheses, parses) if not ok]


def query_grammar(tokenizer: Any, slot_classes: frozenset[str] = frozenset()) -> QueryGrammar:
    """The automaton of a word-level tokenizer's target vocabulary and the term classes its examples'
    copy slots bring, built once per vocabulary, KB and classes."""
    vocab = tokenizer.tgt_vocab
    built = _GRAMMARS.setdefault(vocab, {})
    key = (tokenizer.kb, slot_classes)
    if key not in built:
        built[key] = QueryGrammar(vocab.itos, tokenizer.kb, slot_classes)
    return built[key]
