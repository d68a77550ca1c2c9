"""Batched greedy decoding with the decoder cache; finished rows leave the batch."""

from __future__ import annotations

import torch

from nmt_sparql.core.interface import Batch, Seq2SeqModel
from nmt_sparql.decoding._common import check_max_len, eval_mode, model_device
from nmt_sparql.decoding.roles import TripleRoles


def greedy(
    model: Seq2SeqModel, batch: Batch, max_len: int, roles: TripleRoles | None = None
) -> list[list[int]]:
    """Most likely next token at each step, for every example of `batch`.

    Returns one id list per example, without BOS and EOS (a row that reaches `max_len` tokens
    stops there). Ids >= model.vocab_size are copy pointers, kept for the tokenization layer.
    The encoder runs once; rows that emit EOS are removed with `model.reorder` so later steps
    only compute the unfinished ones, and decoding stops as soon as every row is done. With
    `roles`, KB elements are kept to the triple positions their kind can fill.
    """
    check_max_len(max_len)
    with eval_mode(model):
        batch = batch.to(model_device(model, batch))
        state = model.encode(batch)
        cache = None
        outputs: list[list[int]] = [[] for _ in range(len(batch))]
        rows = torch.arange(len(batch), device=batch.src_ids.device)  # example index of each live row
        tokens = torch.full((len(batch),), model.bos_id, dtype=torch.long, device=batch.src_ids.device)
        roles = None if roles is None else roles.to(tokens.device)
        positions = None if roles is None else roles.start(len(batch), tokens.device)
        for _ in range(max_len):
            log_probs, cache = model.decode_step(tokens, state, cache)
            if roles is not None:
                log_probs = roles.restrict(log_probs, positions, rows)
            tokens = log_probs.argmax(dim=-1)
            if roles is not None:
                positions = roles.advance(positions, tokens)
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
                positions = None if positions is None else positions[keep_index]
        return outputs
