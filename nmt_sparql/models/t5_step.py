"""T5's one-token decoder step on the model's own modules, without the transformers call machinery.

At batch 1 a decoder step of a 512-dim T5 in int8 spends as much time around its matmuls as in them
(BENCHMARKS.md, issue #19): `T5ForConditionalGeneration.forward` builds masks, cache objects and the
relative position bias again at every step. Here everything a step does not change is computed once
per decoding: the self-attention position bias of every (query, key) pair up to a capacity, the
encoder's keys and values of every cross-attention, the source padding mask. Keys and values of the
generated tokens go into preallocated buffers (one tensor for all layers, so a reorder is one
index_select). The step calls the same Linear, layer-norm and feed-forward modules as transformers (so
a quantized model, its hooks and any T5 variant's feed-forward run unchanged) and the same attention
kernel with the same additive masks, so its log-probabilities are those of the transformers step.

In int8 (`fuse_int8_projections`, called by serving/quantize.py) each self-attention's query, key and
value projections also run as one Linear: the three int8 weight matrices stacked, so one call quantizes
the input once and multiplies once (a 512-wide int8 Linear at batch 1 costs its fixed overhead more than
its weights); with the same input scale, integer accumulation and per-row scales it gives the same values.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

FIRST_CAPACITY = 32  # generated tokens the buffers hold before they double
FUSED = "fused_qkv"  # the int8 query-key-value Linear's name on a decoder self-attention module
PER_CHANNEL = (torch.per_channel_affine, torch.per_channel_symmetric)


def supports_fast_step(model: nn.Module) -> bool:
    """A T5 encoder-decoder (the stack this step reimplements), in a dtype whose step transformers does
    not clamp (fp16 T5 clamps infinities between sublayers)."""
    decoder = getattr(model, "decoder", None)
    return (
        getattr(getattr(model, "config", None), "model_type", None) == "t5"
        and hasattr(decoder, "block")
        and decoder.final_layer_norm.weight.dtype != torch.float16
    )


@dataclass
class T5StepCache:
    """What a decoding keeps between steps: self-attention keys/values (layers, rows, heads, capacity,
    head dim) of the first `length` tokens, each layer's cross-attention keys/values, the additive source
    mask and the self-attention position bias (1, heads, capacity, capacity)."""

    keys: torch.Tensor
    values: torch.Tensor
    cross_keys: list[torch.Tensor]
    cross_values: list[torch.Tensor]
    cross_mask: torch.Tensor
    position_bias: torch.Tensor
    length: int = 0

    def reorder_cache(self, index: torch.Tensor) -> None:
        """Keep rows `index`, in place (as transformers' caches do)."""
        self.keys, self.values = self.keys.index_select(1, index), self.values.index_select(1, index)
        self.cross_keys = [k.index_select(0, index) for k in self.cross_keys]
        self.cross_values = [v.index_select(0, index) for v in self.cross_values]
        self.cross_mask = self.cross_mask.index_select(0, index)


def _heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """(B, T, heads * d) -> (B, heads, T, d)."""
    return x.view(x.size(0), x.size(1), heads, -1).transpose(1, 2)


def _merge(x: torch.Tensor) -> torch.Tensor:
    """(B, heads, T, d) -> (B, T, heads * d)."""
    return x.transpose(1, 2).reshape(x.size(0), x.size(2), -1)


def _position_bias(model: nn.Module, capacity: int) -> torch.Tensor:
    """The decoder's relative position bias of every query and key position below `capacity`, as
    transformers computes it for each step (its first block holds the bias table)."""
    attention = model.decoder.block[0].layer[0].SelfAttention
    return attention.compute_bias(capacity, capacity)


def start_cache(model: nn.Module, hidden: torch.Tensor, mask: torch.Tensor) -> T5StepCache:
    """The cache before the first step: cross-attention keys/values of encoder output `hidden` (B, S, D)
    and its additive padding mask (0 on tokens, the dtype's minimum on padding, as transformers adds)."""
    blocks = model.decoder.block
    first = blocks[0].layer[0].SelfAttention
    rows, heads, head_dim = hidden.size(0), first.n_heads, first.key_value_proj_dim
    buffer = hidden.new_zeros(len(blocks), rows, heads, FIRST_CAPACITY, head_dim)
    cross = [block.layer[1].EncDecAttention for block in blocks]
    cross_mask = torch.zeros(mask.shape, dtype=hidden.dtype, device=hidden.device)
    cross_mask = cross_mask.masked_fill(~mask.bool(), torch.finfo(hidden.dtype).min)[:, None, None, :]
    return T5StepCache(
        keys=buffer,
        values=buffer.clone(),
        cross_keys=[_heads(a.k(hidden), heads) for a in cross],
        cross_values=[_heads(a.v(hidden), heads) for a in cross],
        cross_mask=cross_mask,
        position_bias=_position_bias(model, FIRST_CAPACITY).to(hidden.dtype),
    )


def _grow(model: nn.Module, cache: T5StepCache) -> None:
    """Double the capacity (buffers and position bias) when the next token would not fit."""
    capacity = cache.keys.size(3)
    if cache.length < capacity:
        return
    shape = list(cache.keys.shape)
    shape[3] = 2 * capacity
    keys, values = cache.keys.new_zeros(shape), cache.values.new_zeros(shape)
    keys[:, :, :, :capacity], values[:, :, :, :capacity] = cache.keys, cache.values
    cache.keys, cache.values = keys, values
    cache.position_bias = _position_bias(model, 2 * capacity).to(cache.position_bias.dtype)


def step(model: nn.Module, embeds: torch.Tensor, cache: T5StepCache) -> tuple[torch.Tensor, torch.Tensor]:
    """(logits (B, 1, V), final hidden (B, 1, D)) of the next token from its input embeddings (B, 1, D);
    `cache` gains the token's keys and values. The hidden state is the decoder's output after its final
    layer norm, as transformers' `decoder_hidden_states[-1]`."""
    _grow(model, cache)
    t = cache.length
    bias = cache.position_bias[:, :, t : t + 1, : t + 1]
    x = embeds
    for i, block in enumerate(model.decoder.block):
        self_layer, cross_layer, ff_layer = block.layer
        attn = self_layer.SelfAttention
        h = self_layer.layer_norm(x)
        fused = getattr(attn, FUSED, None)
        q, k, v = fused(h).chunk(3, dim=-1) if fused is not None else (attn.q(h), attn.k(h), attn.v(h))
        cache.keys[i, :, :, t : t + 1] = _heads(k, attn.n_heads)
        cache.values[i, :, :, t : t + 1] = _heads(v, attn.n_heads)
        out = F.scaled_dot_product_attention(
            _heads(q, attn.n_heads),
            cache.keys[i, :, :, : t + 1],
            cache.values[i, :, :, : t + 1],
            attn_mask=bias,
            scale=1.0,
        )
        x = x + attn.o(_merge(out))
        attn = cross_layer.EncDecAttention
        h = cross_layer.layer_norm(x)
        out = F.scaled_dot_product_attention(
            _heads(attn.q(h), attn.n_heads),
            cache.cross_keys[i],
            cache.cross_values[i],
            attn_mask=cache.cross_mask,
            scale=1.0,
        )
        x = x + attn.o(_merge(out))
        x = ff_layer(x)
    cache.length = t + 1
    hidden = model.decoder.final_layer_norm(x)
    config = model.config
    scaled = hidden * config.d_model**-0.5 if _scales_outputs(config) else hidden
    return model.lm_head(scaled), hidden


def _scales_outputs(config: object) -> bool:
    """Whether the LM head reads the decoder output times d_model^-0.5 (tied embeddings; transformers 5
    names it `scale_decoder_outputs`)."""
    return bool(getattr(config, "scale_decoder_outputs", getattr(config, "tie_word_embeddings", True)))


def _per_row(weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(int8 values, scale and zero point of each output row) of a quantized weight, per tensor or per row."""
    if weight.qscheme() in PER_CHANNEL:  # per output row: _stackable checked the axis
        return weight.int_repr(), weight.q_per_channel_scales(), weight.q_per_channel_zero_points()
    rows = weight.size(0)
    scales = torch.full((rows,), weight.q_scale(), dtype=torch.float64)
    return weight.int_repr(), scales, torch.full((rows,), weight.q_zero_point(), dtype=torch.long)


def _stackable(part: nn.Module) -> bool:
    """A dynamic int8 Linear without bias whose scales, if per channel, are per output row."""
    if type(part) is not torch.ao.nn.quantized.dynamic.Linear or part.bias() is not None:
        return False
    weight = part.weight()
    per_tensor = weight.qscheme() not in PER_CHANNEL
    return weight.dtype == torch.qint8 and (per_tensor or weight.q_per_channel_axis() == 0)


def _stacked(parts: list[nn.Module]) -> nn.Module:
    """One dynamic int8 Linear whose output is the outputs of `parts` side by side (same int8 weights)."""
    rows = [_per_row(part.weight()) for part in parts]
    weight = torch._make_per_channel_quantized_tensor(
        torch.cat([r[0] for r in rows]),
        torch.cat([r[1] for r in rows]).double(),
        torch.cat([r[2] for r in rows]).long(),
        0,
    )
    fused = torch.ao.nn.quantized.dynamic.Linear(
        weight.size(1), weight.size(0), bias_=False, dtype=torch.qint8
    )
    fused.set_weight_bias(weight, None)
    return fused


def fuse_int8_projections(model: nn.Module) -> nn.Module:
    """Give every decoder self-attention of each T5 inside the int8 `model` its stacked query-key-value
    Linear (the step uses it; the separate projections stay for the transformers forward). A model
    without a T5, or whose projections are not dynamic int8 without bias, is left as it is."""
    for module in list(model.modules()):
        if not supports_fast_step(module):
            continue
        for block in module.decoder.block:
            attn = block.layer[0].SelfAttention
            parts = [attn.q, attn.k, attn.v]
            if all(_stackable(p) for p in parts):
                setattr(attn, FUSED, _stacked(parts))
    return model
