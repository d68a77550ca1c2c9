"""Gehring et al. (2017) convolutional sequence to sequence model, with the masked KB copy layer.

Encoder and decoder are stacks of 1-D convolutions with GLU and scaled residuals over token +
learned position embeddings; every decoder layer attends to the encoder (keys z, values z + e).
The copy layer uses the pre-softmax attention scores of one decoder layer (ConvS2S attention has
a single head). `decode_step` keeps, per decoder layer, the last kernel_size − 1 inputs of its
causal convolution, so one step costs one window per layer.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.parametrizations import weight_norm

from nmt_sparql.core.interface import Batch, IncrementalDecoder, VocabSpec
from nmt_sparql.models.copy import CopyGate, SlotEmbedding, check_slots, slot_index
from nmt_sparql.models.dropout import dropout as apply_dropout
from nmt_sparql.models.registry import architecture_kwargs, register_model

_HALF = math.sqrt(0.5)


def _linear(n_in: int, n_out: int, dropout: float, wn: bool) -> nn.Module:
    layer = nn.Linear(n_in, n_out)
    nn.init.normal_(layer.weight, std=math.sqrt((1 - dropout) / n_in))
    nn.init.zeros_(layer.bias)
    return weight_norm(layer) if wn else layer


def _conv(channels: int, kernel: int, dropout: float, wn: bool) -> nn.Module:
    conv = nn.Conv1d(channels, 2 * channels, kernel)
    nn.init.normal_(conv.weight, std=math.sqrt(4 * (1 - dropout) / (kernel * channels)))
    nn.init.zeros_(conv.bias)
    return weight_norm(conv) if wn else conv


def _positions(
    start: int, length: int, limit: int, device: torch.device, what: str, remedy: str
) -> torch.Tensor:
    """Position ids start .. start + length - 1, refused past the learned table with the remedy (torch
    would stop with a bare index error inside the embedding)."""
    if start + length > limit:
        raise ValueError(
            f"{what} of {start + length} tokens is longer than model.max_positions={limit} "
            f"(ConvS2S's learned positions): {remedy}"
        )
    return torch.arange(start, start + length, device=device)


class ConvS2S(IncrementalDecoder):
    """The paper's "CNN" model (Table III), with optional masked KB copy."""

    def __init__(
        self,
        spec: VocabSpec,
        copy: bool,
        embed_dim: int = 512,
        hidden_dim: int = 512,
        encoder_layers: int = 15,
        decoder_layers: int = 15,
        kernel_size: int = 3,
        dropout: float = 0.2,
        max_positions: int = 1024,
        copy_layer: int = -1,
        max_slots: int = 64,
        gate_input: str = "logits",
        weight_norm: bool = True,
    ):
        super().__init__()
        if kernel_size % 2 == 0:
            raise ValueError(
                f"kernel_size must be odd for the encoder's centred convolution, got {kernel_size}"
            )
        self.vocab_size, self.copy, self.max_slots = spec.tgt_size, copy, max_slots
        self.max_positions = max_positions
        self.pad_id, self.bos_id, self.eos_id = spec.pad_id, spec.bos_id, spec.eos_id
        self.kernel, self.dropout, self.copy_layer = kernel_size, dropout, copy_layer % decoder_layers
        self.src_embed = nn.Embedding(spec.src_size, embed_dim, padding_idx=spec.src_pad_id)
        self.tgt_tokens = nn.Embedding(spec.tgt_size, embed_dim, padding_idx=spec.pad_id)
        self.src_pos, self.tgt_pos = (
            nn.Embedding(max_positions, embed_dim),
            nn.Embedding(max_positions, embed_dim),
        )
        for emb in (self.src_embed, self.tgt_tokens, self.src_pos, self.tgt_pos):
            nn.init.normal_(emb.weight, std=0.1)
        self.tgt_embed: nn.Module = (
            SlotEmbedding(self.tgt_tokens, spec.tgt_size, spec.kb_id, embed_dim, max_slots)
            if copy
            else self.tgt_tokens
        )
        wn = weight_norm
        self.enc_in, self.enc_out = (
            _linear(embed_dim, hidden_dim, dropout, wn),
            _linear(hidden_dim, embed_dim, 0, wn),
        )
        self.enc_convs = nn.ModuleList(
            _conv(hidden_dim, kernel_size, dropout, wn) for _ in range(encoder_layers)
        )
        self.dec_in, self.dec_out = (
            _linear(embed_dim, hidden_dim, dropout, wn),
            _linear(hidden_dim, embed_dim, 0, wn),
        )
        self.dec_convs = nn.ModuleList(
            _conv(hidden_dim, kernel_size, dropout, wn) for _ in range(decoder_layers)
        )
        self.att_in = nn.ModuleList(_linear(hidden_dim, embed_dim, 0, wn) for _ in range(decoder_layers))
        self.att_out = nn.ModuleList(_linear(embed_dim, hidden_dim, 0, wn) for _ in range(decoder_layers))
        self.out = _linear(embed_dim, spec.tgt_size, dropout, wn)
        self.gate = CopyGate(spec.tgt_size, embed_dim, gate_input) if copy else None

    def _drop(self, x: torch.Tensor) -> torch.Tensor:
        return apply_dropout(x, self.dropout, self.training)

    def encode(self, batch: Batch) -> dict[str, Any]:
        if self.copy:
            check_slots(batch.src_slots, self.max_slots)
        positions = _positions(
            0,
            batch.src_ids.size(1),
            self.max_positions,
            batch.src_ids.device,
            "an input",
            "raise model.max_positions, or lower linked.max_units or linked.per_mention "
            "(fewer linked candidates per question)",
        )
        e = self._drop(self.src_embed(batch.src_ids) + self.src_pos(positions))
        pad = ~batch.src_mask[:, :, None]
        x = self.enc_in(e)
        for conv in self.enc_convs:
            residual = x
            h = self._drop(x).masked_fill(pad, 0.0).transpose(1, 2)
            h = F.pad(h, ((self.kernel - 1) // 2, (self.kernel - 1) // 2))
            x = (F.glu(conv(h), dim=1).transpose(1, 2) + residual) * _HALF
        keys = self.enc_out(x).masked_fill(pad, 0.0)
        return {
            "keys": keys,
            "values": (keys + e) * _HALF,
            "mask": batch.src_mask,
            "slot_index": slot_index(batch.src_slots) if self.copy else None,
        }

    def _run_decoder(
        self, ids: torch.Tensor, state: dict[str, Any], cache: dict[str, Any] | None
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        step = 0 if cache is None else cache["step"]
        positions = _positions(
            step,
            ids.size(1),
            self.max_positions,
            ids.device,
            "a query",
            "raise model.max_positions, or lower decode.max_len",
        )
        e = self._drop(self.tgt_embed(ids) + self.tgt_pos(positions))
        x = self.dec_in(e)
        mask = state["mask"][:, None, :]
        n_src = state["mask"].sum(-1).to(x.dtype)[:, None, None]
        windows, scores = [], None
        for i, conv in enumerate(self.dec_convs):
            residual = x
            h = self._drop(x)
            past = (
                h.new_zeros(h.size(0), self.kernel - 1, h.size(2)) if cache is None else cache["windows"][i]
            )
            h = torch.cat([past, h], dim=1)
            windows.append(h[:, h.size(1) - (self.kernel - 1) :])
            x = F.glu(conv(h.transpose(1, 2)), dim=1).transpose(1, 2)
            d = (self.att_in[i](x) + e) * _HALF
            s = d @ state["keys"].transpose(1, 2)  # (B, T, S)
            if i == self.copy_layer:
                scores = s
            attn = F.softmax(s.masked_fill(~mask, float("-inf")), dim=-1)
            context = attn @ state["values"] * (n_src * torch.rsqrt(n_src))
            x = (self.att_out[i](context) + x) * _HALF
            x = (x + residual) * _HALF
        hidden = self._drop(self.dec_out(x))
        logits = self.out(hidden)
        if not self.copy:
            log_probs = F.log_softmax(logits.float(), dim=-1)
        else:
            log_probs = self.gate(logits, scores, state["slot_index"], hidden)
        return log_probs, {"step": step + ids.size(1), "windows": windows}


@register_model("convs2s", codec="word")
def build_convs2s(cfg: dict[str, Any], spec: VocabSpec, copy: bool) -> ConvS2S:
    return ConvS2S(spec, copy, **architecture_kwargs(cfg, ConvS2S))
