"""The uncached baseline: every step re-runs the teacher-forced forward over the whole prefix.

This is how the paper's reference code generated (one full forward per step, encoder included,
for the maximum length, no early stop). It exists to measure the speed-up of the cached
decoders (scripts/bench_decode.py) and to check that the cache changes nothing (tests/test_decoding_*.py);
it lives beside the benchmarks, outside the package, because nothing should decode with it for real.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from nmt_sparql.core.interface import Batch, Seq2SeqModel
from nmt_sparql.decoding._common import check_max_len, eval_mode, model_device


def _prefix_batch(batch: Batch, prefix: torch.Tensor, pad_id: int) -> Batch:
    """`forward` reads tgt_ids[:, :-1], so append one pad column to score the prefix's next token."""
    pad = torch.full((prefix.size(0), 1), pad_id, dtype=prefix.dtype, device=prefix.device)
    return Batch(batch.src_ids, batch.src_mask, batch.src_slots, torch.cat([prefix, pad], dim=1))


def reference_greedy(model: Seq2SeqModel, batch: Batch, max_len: int) -> list[list[int]]:
    """Greedy decoding by `max_len` full forwards; same output convention as `greedy`."""
    check_max_len(max_len)
    with eval_mode(model):
        batch = batch.to(model_device(model, batch))
        prefix = torch.full((len(batch), 1), model.bos_id, dtype=torch.long, device=batch.src_ids.device)
        for _ in range(max_len):
            log_probs = model.forward(_prefix_batch(batch, prefix, model.pad_id))
            prefix = torch.cat([prefix, log_probs[:, -1].argmax(dim=-1, keepdim=True)], dim=1)
        outputs = []
        for row in prefix[:, 1:].tolist():
            outputs.append(row[: row.index(model.eos_id)] if model.eos_id in row else row)
        return outputs


class TeacherForcedStepper(nn.Module):
    """Any model as a step model without a decoder cache: the 'cache' is the token prefix.

    `beam_search(TeacherForcedStepper(model), ...)` is the uncached beam search, used to check
    that the cached one returns the same hypotheses.
    """

    def __init__(self, model: Seq2SeqModel) -> None:
        super().__init__()
        self.model = model
        self.vocab_size, self.copy = model.vocab_size, model.copy
        self.pad_id, self.bos_id, self.eos_id = model.pad_id, model.bos_id, model.eos_id
        self.training = bool(getattr(model, "training", False))  # mirror the wrapped model

    def forward(self, batch: Batch) -> torch.Tensor:
        return self.model.forward(batch)

    def encode(self, batch: Batch) -> Batch:
        return batch

    def decode_step(
        self, tokens: torch.Tensor, state: Batch, cache: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        prefix = tokens.unsqueeze(1) if cache is None else torch.cat([cache, tokens.unsqueeze(1)], dim=1)
        return self.model.forward(_prefix_batch(state, prefix, self.pad_id))[:, -1], prefix

    def reorder(self, state: Batch, cache: Any, index: torch.Tensor) -> tuple[Batch, torch.Tensor]:
        rows = Batch(state.src_ids[index], state.src_mask[index], state.src_slots[index])
        return rows, cache[index]
