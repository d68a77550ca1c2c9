"""Batched greedy decoding with the decoder cache; finished rows leave the batch."""

from __future__ import annotations

import torch

from nmt_sparql.core.interface import Batch, Seq2SeqModel
from nmt_sparql.decoding._common import check_max_len, eval_mode, model_device
from nmt_sparql.decoding.grammar import BoundGrammar


def greedy(
    model: Seq2SeqModel, batch: Batch, max_len: int, grammar: BoundGrammar | None = None
) -> list[list[int]]:
    """Most likely next token at each step, for every example of `batch`.

    Returns one id list per example, without BOS and EOS (a row that reaches `max_len` tokens
    stops there). Ids >= model.vocab_size are copy pointers, kept for the tokenization layer.
    The encoder runs once; rows that emit EOS are removed with `model.reorder` so later steps
    only compute the unfinished ones, and decoding stops as soon as every row is done. With
    `grammar`, every id that cannot continue a valid query within the example's length cap is masked.
    """
    check_max_len(max_len)
    with eval_mode(model):
        batch = batch.to(model_device(model, batch))
        state = model.encode(batch)
        cache = None
        outputs: list[list[int]] = [[] for _ in range(len(batch))]
        rows = torch.arange(len(batch), device=batch.src_ids.device)  # example index of each live row
        tokens = torch.full((len(batch),), model.bos_id, dtype=torch.long, device=batch.src_ids.device)
        rules = None if grammar is None else grammar.start(batch.src_mask, max_len)
        for step in range(max_len):
            log_probs, cache = model.decode_step(tokens, state, cache)
            if rules is not None:
                log_probs = rules.restrict(log_probs, step)
            tokens = log_probs.argmax(dim=-1)
            if rules is not None:
                rules = rules.advance(tokens)
            alive = tokens != model.eos_id
            for row, token, keep in zip(rows.tolist(), tokens.tolist(), alive.tolist()):
                if keep:
                    outputs[row].append(token)
            if not bool(alive.any()):
                break
            if not bool(alive.all()):
                keep_index = alive.nonzero().squeeze(1)
                state, cache = model.reorder(state, cache, keep_index)
                rows, tokens = rows[keep_index], tokens[keep_index]
                rules = None if rules is None else rules.select(keep_index)
        return outputs
