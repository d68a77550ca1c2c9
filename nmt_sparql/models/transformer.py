"""Vaswani et al. (2017) encoder-decoder in plain torch, with the copy layer on one cross-attention head.

Attention runs through `scaled_dot_product_attention`; the copy head's pre-softmax scores are
recomputed for that one head only. `decode_step` keeps a key/value cache per decoder layer
(self-attention grows one step at a time; cross-attention keys/values are computed once in `encode`).
`attention_dropout` is the rate on attention weights (None: `dropout`, the paper's single rate). A CPU
trains it outside `scaled_dot_product_attention`, whose dropout draws one random number per head, query
and key: with `models.dropout.keep_mask` a step of the default model is ~1.2x faster (BENCHMARKS.md).
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from nmt_sparql.core.interface import Batch, IncrementalDecoder, VocabSpec
from nmt_sparql.models.copy import CopyGate, SlotEmbedding, check_slots, slot_index
from nmt_sparql.models.dropout import Dropout, keep_mask
from nmt_sparql.models.registry import ModelConfigError, architecture_kwargs, register_model


def sinusoidal_positions(length: int, dim: int, offset: int = 0) -> torch.Tensor:
    """(length, dim) sin/cos position encodings starting at position `offset`."""
    pos = torch.arange(offset, offset + length, dtype=torch.float32)[:, None]
    freq = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(10000.0) / dim))
    pe = torch.zeros(length, dim)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq[: dim // 2])
    return pe


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        if dim % heads:
            raise ValueError(f"model dim {dim} is not divisible by {heads} heads")
        self.heads, self.head_dim, self.dropout = heads, dim // heads, dropout
        self.q, self.k, self.v, self.o = (nn.Linear(dim, dim) for _ in range(4))

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        return x.view(x.size(0), x.size(1), self.heads, self.head_dim).transpose(1, 2)

    def kv(self, memory: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self._split(self.k(memory)), self._split(self.v(memory))

    def forward(
        self,
        x: torch.Tensor,
        k: torch.Tensor,
        v: torch.Tensor,
        key_mask: torch.Tensor | None = None,
        causal: bool = False,
    ) -> torch.Tensor:
        """x (B, T, D) attends to k/v (B, H, S, Dh); key_mask (B, S) True on real keys."""
        mask = None if key_mask is None else key_mask[:, None, None, :]
        q = self._split(self.q(x))
        if self.training and self.dropout > 0.0 and q.device.type == "cpu":
            out = self._dropped_attention(q, k, v, mask, causal)
        else:
            out = F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, is_causal=causal, dropout_p=self.dropout if self.training else 0.0
            )
        return self.o(out.transpose(1, 2).reshape(x.size(0), x.size(1), -1))

    def _dropped_attention(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None, causal: bool
    ) -> torch.Tensor:
        """What `scaled_dot_product_attention` computes with `dropout_p`, with `dropout`'s cheaper CPU masks."""
        scores = (q * (1.0 / math.sqrt(self.head_dim))) @ k.transpose(-1, -2)
        if causal:
            scores = scores.masked_fill(
                torch.ones(q.size(2), k.size(2), dtype=torch.bool, device=q.device).triu(1), float("-inf")
            )
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(-1)
        kept = weights * keep_mask(weights.shape, self.dropout, weights.device)
        return (kept @ v) * (1.0 / (1.0 - self.dropout))  # the rescale on the smaller tensor

    def head_scores(self, x: torch.Tensor, k: torch.Tensor, head: int) -> torch.Tensor:
        """Pre-softmax scores (B, T, S) of one head: what the copy layer renormalises over KB positions."""
        q = self._split(self.q(x))[:, head]
        return q @ k[:, head].transpose(-1, -2) / math.sqrt(self.head_dim)


class EncoderLayer(nn.Module):
    def __init__(
        self, dim: int, heads: int, ffn: int, dropout: float, pre_norm: bool, attention_dropout: float
    ):
        super().__init__()
        self.attn = Attention(dim, heads, attention_dropout)
        self.ffn = nn.Sequential(nn.Linear(dim, ffn), nn.ReLU(), Dropout(dropout), nn.Linear(ffn, dim))
        self.n1, self.n2, self.drop, self.pre_norm = (
            nn.LayerNorm(dim),
            nn.LayerNorm(dim),
            Dropout(dropout),
            pre_norm,
        )

    def _sub(self, x: torch.Tensor, norm: nn.LayerNorm, fn: Any) -> torch.Tensor:
        return x + self.drop(fn(norm(x))) if self.pre_norm else norm(x + self.drop(fn(x)))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self._sub(x, self.n1, lambda h: self.attn(h, *self.attn.kv(h), key_mask=mask))
        return self._sub(x, self.n2, self.ffn)


class DecoderLayer(EncoderLayer):
    def __init__(
        self, dim: int, heads: int, ffn: int, dropout: float, pre_norm: bool, attention_dropout: float
    ):
        super().__init__(dim, heads, ffn, dropout, pre_norm, attention_dropout)
        self.cross, self.n3 = Attention(dim, heads, attention_dropout), nn.LayerNorm(dim)

    def step(
        self,
        x: torch.Tensor,
        self_kv: tuple[torch.Tensor, torch.Tensor] | None,
        cross_kv: tuple[torch.Tensor, torch.Tensor],
        mem_mask: torch.Tensor,
        copy_head: int | None,
    ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor], torch.Tensor | None]:
        """Run the layer on new positions x; self_kv holds earlier positions (None in teacher forcing)."""
        scores: list[torch.Tensor] = []
        new_kv: list[tuple[torch.Tensor, torch.Tensor]] = []

        def self_attn(h: torch.Tensor) -> torch.Tensor:
            k, v = self.attn.kv(h)
            if self_kv is not None:
                k, v = torch.cat([self_kv[0], k], dim=2), torch.cat([self_kv[1], v], dim=2)
            new_kv.append((k, v))
            return self.attn(h, k, v, causal=self_kv is None and h.size(1) > 1)

        def cross_attn(h: torch.Tensor) -> torch.Tensor:
            if copy_head is not None:
                scores.append(self.cross.head_scores(h, cross_kv[0], copy_head))
            return self.cross(h, *cross_kv, key_mask=mem_mask)

        x = self._sub(x, self.n1, self_attn)
        x = self._sub(x, self.n3, cross_attn)
        x = self._sub(x, self.n2, self.ffn)
        return x, new_kv[0], scores[0] if scores else None


class TransformerSeq2Seq(IncrementalDecoder):
    """Encoder-decoder of the paper's Table III ("Transf."), with optional masked KB copy."""

    def __init__(
        self,
        spec: VocabSpec,
        copy: bool,
        dim: int = 512,
        ffn_dim: int = 2048,
        heads: int = 8,
        encoder_layers: int = 6,
        decoder_layers: int = 6,
        dropout: float = 0.1,
        attention_dropout: float | None = None,
        pre_norm: bool = False,
        copy_layer: int = -1,
        copy_head: int = -1,
        max_slots: int = 64,
        gate_input: str = "logits",
        share_decoder_embeddings: bool = True,
    ):
        super().__init__()
        self.vocab_size, self.copy, self.max_slots = spec.tgt_size, copy, max_slots
        self.pad_id, self.bos_id, self.eos_id, self.dim = spec.pad_id, spec.bos_id, spec.eos_id, dim
        self.copy_layer = copy_layer % decoder_layers
        self.copy_head = copy_head % heads
        if attention_dropout is not None and not 0.0 <= attention_dropout < 1.0:
            raise ModelConfigError(f"model.attention_dropout must be in [0, 1), got {attention_dropout}")
        attention = dropout if attention_dropout is None else attention_dropout
        self.src_embed = nn.Embedding(spec.src_size, dim, padding_idx=spec.src_pad_id)
        self.tgt_tokens = nn.Embedding(spec.tgt_size, dim, padding_idx=spec.pad_id)
        for emb in (self.src_embed, self.tgt_tokens):
            nn.init.normal_(emb.weight, std=dim**-0.5)
            nn.init.zeros_(emb.weight[emb.padding_idx])
        self.tgt_embed: nn.Module = (
            SlotEmbedding(self.tgt_tokens, spec.tgt_size, spec.kb_id, dim, max_slots)
            if copy
            else self.tgt_tokens
        )
        self.encoder = nn.ModuleList(
            EncoderLayer(dim, heads, ffn_dim, dropout, pre_norm, attention) for _ in range(encoder_layers)
        )
        self.decoder = nn.ModuleList(
            DecoderLayer(dim, heads, ffn_dim, dropout, pre_norm, attention) for _ in range(decoder_layers)
        )
        self.enc_norm = nn.LayerNorm(dim) if pre_norm else nn.Identity()
        self.dec_norm = nn.LayerNorm(dim) if pre_norm else nn.Identity()
        self.drop = Dropout(dropout)
        self.out = nn.Linear(dim, spec.tgt_size, bias=False)
        if share_decoder_embeddings:
            self.out.weight = self.tgt_tokens.weight
        self.gate = CopyGate(spec.tgt_size, dim, gate_input) if copy else None

    def _embed(self, emb: nn.Module, ids: torch.Tensor, offset: int = 0) -> torch.Tensor:
        x = emb(ids) * math.sqrt(self.dim) + sinusoidal_positions(ids.size(1), self.dim, offset).to(
            self.tgt_tokens.weight  # not self.out: an int8 quantized head has no weight tensor
        )
        return self.drop(x)

    def encode(self, batch: Batch) -> dict[str, Any]:
        if self.copy:
            check_slots(batch.src_slots, self.max_slots)
        x = self._embed(self.src_embed, batch.src_ids)
        for layer in self.encoder:
            x = layer(x, batch.src_mask)
        memory = self.enc_norm(x)
        return {
            "mask": batch.src_mask,
            "slot_index": slot_index(batch.src_slots) if self.copy else None,
            "cross_kv": [layer.cross.kv(memory) for layer in self.decoder],
        }

    def _run_decoder(
        self, ids: torch.Tensor, state: dict[str, Any], cache: dict[str, Any] | None
    ) -> tuple[torch.Tensor, dict[str, Any]]:
        step = 0 if cache is None else cache["step"]
        x = self._embed(self.tgt_embed, ids, step)
        new_kv, scores = [], None
        for i, layer in enumerate(self.decoder):
            head = self.copy_head if self.copy and i == self.copy_layer else None
            past = None if cache is None else cache["kv"][i]
            x, kv, s = layer.step(x, past, state["cross_kv"][i], state["mask"], head)
            new_kv.append(kv)
            scores = s if s is not None else scores
        hidden = self.dec_norm(x)
        logits = self.out(hidden)
        if not self.copy:
            log_probs = F.log_softmax(logits.float(), dim=-1)
        else:
            log_probs = self.gate(logits, scores, state["slot_index"], hidden)
        return log_probs, {"step": step + ids.size(1), "kv": new_kv}


@register_model("transformer", codec="word")
def build_transformer(cfg: dict[str, Any], spec: VocabSpec, copy: bool) -> TransformerSeq2Seq:
    return TransformerSeq2Seq(spec, copy, **architecture_kwargs(cfg, TransformerSeq2Seq))
