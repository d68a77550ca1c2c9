"""The masked KB-vocabulary copy layer (paper §III.C), shared by the four encoder-decoders.

    p(t) = p_copy · p_C(t) + (1 − p_copy) · p_G(t)

p_G is the softmax of the decoder logits over V (the SPARQL vocabulary S); p_C is the
cross-attention of one chosen layer/head, restricted to the masked KB positions of the source,
renormalised there and summed per slot; p_copy = σ(B · logits) with B a learned Linear(V→1)
(or of the decoder hidden state, an option). Everything is computed in log space over the
extended space [0, V + max_slots); ids that are impossible for an example are −inf, and an example
without KB elements gets p_copy = 0 so no mass leaks to copy ids.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class CopyGate(nn.Module):
    """Mixes the generation and copy distributions of one decoder output."""

    def __init__(self, vocab_size: int, hidden_dim: int | None = None, gate_input: str = "logits"):
        super().__init__()
        if gate_input not in ("logits", "hidden"):
            raise ValueError(f"copy gate_input must be 'logits' or 'hidden', got {gate_input!r}")
        if gate_input == "hidden" and hidden_dim is None:
            raise ValueError("copy gate_input 'hidden' needs hidden_dim")
        self.gate_input = gate_input
        self.B = nn.Linear(vocab_size if gate_input == "logits" else int(hidden_dim or 0), 1)

    def forward(
        self,
        logits: torch.Tensor,
        attn_scores: torch.Tensor,
        index: dict[str, torch.Tensor],
        hidden: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """(B, T, V) logits, (B, T, S) attention scores, a batch's `slot_index` -> (B, T, V + M) log-probs.

        `attn_scores` are pre-softmax scores of the chosen head (or log attention weights: the
        restricted softmax is the same either way).
        """
        gate_in = logits if self.gate_input == "logits" else hidden
        if gate_in is None:
            raise ValueError("copy gate_input 'hidden' needs the decoder hidden state")
        gate = self.B(gate_in).float()  # (B, T, 1)
        log_gen = F.log_softmax(logits.float(), dim=-1)
        log_copy_slots = slot_log_probs(attn_scores.float(), index)  # (B, T, M)
        gen_part = log_gen + F.logsigmoid(-gate).masked_fill(
            ~index["has_slots"], 0.0
        )  # p_copy = 0 without slots
        copy_part = F.logsigmoid(gate) + log_copy_slots  # -inf on absent slots (rows without slots too)
        return torch.cat([gen_part, copy_part], dim=-1)


def slot_index(src_slots: torch.Tensor) -> dict[str, torch.Tensor]:
    """The masks p_C needs from a batch's (B, S) slots, built once per `encode`, not at every step.

    A dict of (B, ...) tensors, so decoders select its rows like the rest of the state. M, the
    number of slots, is one more than the batch's largest slot. Rows and slots without positions
    get finite stand-ins (all positions allowed) so no NaN gradient arises; `absent` then sets them
    to -inf.
    """
    n_slots = int(src_slots.max().clamp(min=-1)) + 1 if src_slots.numel() else 0
    valid = src_slots >= 0  # (B, S)
    row_has = valid.any(dim=-1, keepdim=True)
    onehot = src_slots[:, :, None] == torch.arange(n_slots, device=src_slots.device)  # (B, S, M)
    present = onehot.any(dim=1)  # (B, M)
    return {
        "off_positions": (~(valid | ~row_has))[:, None, :],  # (B, 1, S): positions outside the copy softmax
        "off_slot": (~(onehot | ~present[:, None, :]))[:, None],  # (B, 1, S, M): position not of slot m
        "absent": (~present)[:, None, :],  # (B, 1, M)
        "has_slots": row_has[:, :, None],  # (B, 1, 1)
    }


def slot_log_probs(scores: torch.Tensor, index: dict[str, torch.Tensor]) -> torch.Tensor:
    """log p_C per slot: softmax of (B, T, S) `scores` over KB positions, summed per slot; -inf for absent slots."""
    log_pos = F.log_softmax(scores.masked_fill(index["off_positions"], float("-inf")), dim=-1)  # (B, T, S)
    per_slot = log_pos[:, :, :, None].masked_fill(index["off_slot"], float("-inf"))  # (B, T, S, M)
    return torch.logsumexp(per_slot, dim=2).masked_fill(index["absent"], float("-inf"))


class SlotEmbedding(nn.Module):
    """Decoder input embedding over the extended space: a copied id V + k is `<kb>` + slot embedding k.

    So the decoder knows which KB element it copied without ever seeing the element itself.
    """

    def __init__(self, token_embedding: nn.Module, vocab_size: int, kb_id: int, dim: int, max_slots: int):
        super().__init__()
        self.token_embedding, self.vocab_size, self.kb_id, self.max_slots = (
            token_embedding,
            vocab_size,
            kb_id,
            max_slots,
        )
        self.slot_embedding = nn.Embedding(max_slots, dim)
        with torch.no_grad():  # start at the scale of the token embeddings so the slot is not drowned out
            sample = token_embedding(
                torch.arange(min(vocab_size, 256), device=self.slot_embedding.weight.device)
            )
            nn.init.normal_(self.slot_embedding.weight, std=float(sample.float().std()))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        top = int(ids.max()) if ids.numel() else -1
        if top < self.vocab_size:  # no copied id (most decoding steps): a plain lookup
            return self.token_embedding(ids)
        if top >= self.vocab_size + self.max_slots:
            raise ValueError(f"copy id beyond max_slots={self.max_slots}: raise the model's max_slots")
        is_copy = ids >= self.vocab_size
        base = self.token_embedding(torch.where(is_copy, torch.full_like(ids, self.kb_id), ids))
        slots = (ids - self.vocab_size).clamp(min=0)
        return base + self.slot_embedding(slots) * is_copy[..., None].to(base.dtype)


def check_slots(src_slots: torch.Tensor, max_slots: int) -> None:
    """Refuse an example with more distinct KB elements than the model has slot embeddings."""
    if src_slots.numel() and int(src_slots.max()) >= max_slots:
        raise ValueError(
            f"an example has {int(src_slots.max()) + 1} KB slots; the model's max_slots is {max_slots}"
        )
