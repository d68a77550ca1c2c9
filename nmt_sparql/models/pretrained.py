"""BART and T5 through transformers, with the masked KB copy layer on one cross-attention head.

Weights come from `from_pretrained` (a hub name or a local path) when given, else from a small
config with random init; embeddings are resized to the tokenizer. The decoder is fed embeddings
(`decoder_inputs_embeds`) so a copied id can enter as `<kb>` + slot embedding. The copy layer needs
the pre-softmax scores of one cross-attention head only: a forward hook keeps that layer's query
projection, and the head's keys are projected once from the encoder output, so every layer keeps
its fused (SDPA) attention and no attention weights are ever materialised or collected.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from transformers import (
    AutoConfig,
    AutoModelForSeq2SeqLM,
    BartConfig,
    PreTrainedModel,
    T5Config,
)
from transformers.modeling_outputs import BaseModelOutput

from nmt_sparql.core.interface import Batch, VocabSpec, reorder_rows
from nmt_sparql.models import t5_step
from nmt_sparql.models.copy import CopyGate, SlotEmbedding, check_slots, slot_index
from nmt_sparql.models.registry import architecture_kwargs, register_model


def pretrained_available(name_or_path: str) -> bool:
    """Whether a checkpoint can be loaded here (a local folder, or a hub name in the local cache/online)."""
    try:
        AutoConfig.from_pretrained(name_or_path)
    except OSError:
        return False
    return True


def load_hf_model(
    family: str, spec: VocabSpec, pretrained: str | None = None, **dims: Any
) -> PreTrainedModel:
    """`from_pretrained(pretrained)` or a fresh `family` model from `dims`; embeddings sized to V.

    Fused (SDPA) attention everywhere: the copy layer never needs attention weights from the model.
    """
    attn = "sdpa"
    if pretrained:
        # safetensors only: a pickled pytorch_model.bin (hub or local folder) is refused, never unpickled
        model = AutoModelForSeq2SeqLM.from_pretrained(
            pretrained, attn_implementation=attn, use_safetensors=True
        )
    elif family == "bart":
        config = BartConfig(
            vocab_size=spec.tgt_size,
            pad_token_id=spec.pad_id,
            bos_token_id=spec.bos_id,
            eos_token_id=spec.eos_id,
            decoder_start_token_id=spec.bos_id,
            forced_eos_token_id=None,
            **dims,
        )
        model = AutoModelForSeq2SeqLM.from_config(config, attn_implementation=attn)
    elif family == "t5":
        config = T5Config(
            vocab_size=spec.tgt_size,
            pad_token_id=spec.pad_id,
            eos_token_id=spec.eos_id,
            decoder_start_token_id=spec.bos_id,
            **dims,
        )
        model = AutoModelForSeq2SeqLM.from_config(config, attn_implementation=attn)
    else:
        raise ValueError(f"unknown pretrained family {family!r}: expected 'bart' or 't5'")
    model.resize_token_embeddings(spec.tgt_size)
    return model


def cross_attention(model: PreTrainedModel, layer: int) -> tuple[nn.Linear, nn.Linear, int, int, float]:
    """(query projection, key projection, heads, head dim, score scaling) of decoder layer `layer`'s
    cross-attention: T5's `EncDecAttention` or BART's `encoder_attn`."""
    decoder = model.get_decoder()
    if hasattr(decoder, "block"):
        attn = decoder.block[layer].layer[1].EncDecAttention
        return attn.q, attn.k, attn.n_heads, attn.key_value_proj_dim, float(attn.scaling)
    attn = decoder.layers[layer].encoder_attn
    return attn.q_proj, attn.k_proj, attn.num_heads, attn.head_dim, float(attn.scaling)


class PretrainedSeq2Seq(nn.Module):
    """A transformers encoder-decoder behind the project's step interface."""

    def __init__(
        self,
        model: PreTrainedModel,
        spec: VocabSpec,
        copy: bool,
        copy_layer: int = -1,
        copy_head: int = -1,
        max_slots: int = 64,
        gate_input: str = "logits",
    ):
        super().__init__()
        self.model, self.vocab_size, self.copy, self.max_slots = model, spec.tgt_size, copy, max_slots
        self.pad_id, self.bos_id, self.eos_id = spec.pad_id, spec.bos_id, spec.eos_id
        self.copy_layer, self.copy_head = copy_layer, copy_head
        self._copy_query: torch.Tensor | None = None
        if copy:
            q_proj, k_proj, heads, head_dim, scaling = cross_attention(model, copy_layer)
            self.copy_head = copy_head % heads
            rows = slice(self.copy_head * head_dim, (self.copy_head + 1) * head_dim)
            self._copy_key_rows = (k_proj, rows, scaling)  # a tuple: k_proj stays registered once, in model
            q_proj.register_forward_hook(self._keep_copy_query)
        dim = model.config.d_model
        embed = model.get_decoder().embed_tokens
        self.tgt_embed: nn.Module = (
            SlotEmbedding(embed, spec.tgt_size, spec.kb_id, dim, max_slots) if copy else embed
        )
        self.gate = CopyGate(spec.tgt_size, dim, gate_input) if copy else None
        # Under quantize=int8, T5's first encoder block stays fp32: chosen on validation (333/333 queries
        # identical to fp32 vs 331/333 all-int8; BENCHMARKS.md "T5 int8"); the decoder steps stay int8.
        self.int8_keeps_fp32 = ("model.encoder.block.0",) if model.config.model_type == "t5" else ()

    def _keep_copy_query(self, _module: nn.Module, _inputs: Any, output: torch.Tensor) -> None:
        self._copy_query = output

    def encode(self, batch: Batch) -> dict[str, Any]:
        if self.copy:
            check_slots(batch.src_slots, self.max_slots)
        limit = getattr(
            self.model.config, "max_position_embeddings", None
        )  # BART's learned positions; T5 has none
        if limit is not None and batch.src_ids.size(1) > limit:
            raise ValueError(
                f"an input of {batch.src_ids.size(1)} subword tokens is longer than the model's "
                f"max_position_embeddings={limit}: raise model.config.max_position_embeddings (from-config "
                "models), or lower linked.max_units or linked.per_mention (fewer linked candidates per question)"
            )
        out = self.model.get_encoder()(
            input_ids=batch.src_ids, attention_mask=batch.src_mask.long(), return_dict=True
        )
        state = {
            "hidden": out.last_hidden_state,
            "mask": batch.src_mask,
            "slot_index": slot_index(batch.src_slots) if self.copy else None,
        }
        if self.copy:
            k_proj, rows, _ = self._copy_key_rows
            bias = None if k_proj.bias is None else k_proj.bias[rows]
            state["copy_keys"] = F.linear(out.last_hidden_state, k_proj.weight[rows], bias)  # (B, S, d)
        return state

    def _copy_scores(self, state: dict[str, Any]) -> torch.Tensor:
        """(B, T, S) pre-softmax scores of the copy head, from the query the hook kept in this call."""
        query, self._copy_query = self._copy_query, None
        if query is None:
            raise RuntimeError("the copy layer's query projection did not run")
        _, rows, scaling = self._copy_key_rows
        return torch.matmul(query[..., rows], state["copy_keys"].transpose(1, 2)) * scaling

    def _run_decoder(
        self, ids: torch.Tensor, state: dict[str, Any], cache: Any | None, use_cache: bool
    ) -> tuple[torch.Tensor, Any]:
        out = self.model(
            encoder_outputs=BaseModelOutput(last_hidden_state=state["hidden"]),
            attention_mask=state["mask"].long(),
            decoder_inputs_embeds=self.tgt_embed(ids),
            past_key_values=cache,
            use_cache=use_cache,
            output_hidden_states=self.copy and self.gate is not None and self.gate.gate_input == "hidden",
            return_dict=True,
        )
        hidden = out.decoder_hidden_states[-1] if out.decoder_hidden_states is not None else None
        return self._log_probs(out.logits, hidden, state), out.past_key_values

    def _log_probs(
        self, logits: torch.Tensor, hidden: torch.Tensor | None, state: dict[str, Any]
    ) -> torch.Tensor:
        """Log-probabilities over the target vocabulary (and the copy slots) from the LM head's logits."""
        logits = logits[..., : self.vocab_size]
        if not self.copy:
            return F.log_softmax(logits.float(), dim=-1)
        return self.gate(logits, self._copy_scores(state), state["slot_index"], hidden)

    def forward(self, batch: Batch) -> torch.Tensor:
        if batch.tgt_ids is None:
            raise ValueError("forward needs batch.tgt_ids (teacher forcing)")
        return self._run_decoder(batch.tgt_ids[:, :-1], self.encode(batch), None, use_cache=False)[0]

    def decode_step(
        self, tokens: torch.Tensor, state: dict[str, Any], cache: Any | None
    ) -> tuple[torch.Tensor, Any]:
        """One token; T5 in eval mode takes the lean step of t5_step.py (same modules, same outputs)."""
        if cache is None and not self.model.training and t5_step.supports_fast_step(self.model):
            cache = t5_step.start_cache(self.model, state["hidden"], state["mask"])
        if isinstance(cache, t5_step.T5StepCache):
            logits, hidden = t5_step.step(self.model, self.tgt_embed(tokens[:, None]), cache)
            return self._log_probs(logits, hidden, state)[:, -1], cache
        log_probs, cache = self._run_decoder(tokens[:, None], state, cache, use_cache=True)
        return log_probs[:, -1], cache

    def reorder(
        self, state: dict[str, Any], cache: Any | None, index: torch.Tensor
    ) -> tuple[dict[str, Any], Any]:
        """Rows of the encoder state, and the HF cache reordered in place (it is a stateful object)."""
        if cache is not None:
            cache.reorder_cache(index.to(state["hidden"].device))
        return reorder_rows(state, index), cache


def _builder(family: str) -> Any:
    def build(cfg: dict[str, Any], spec: VocabSpec, copy: bool) -> PretrainedSeq2Seq:
        kwargs = architecture_kwargs(cfg, PretrainedSeq2Seq, skip=("config",))
        model = load_hf_model(family, spec, cfg.get("pretrained"), **(cfg.get("config") or {}))
        return PretrainedSeq2Seq(model, spec, copy, **kwargs)

    build.__doc__ = f"{family.upper()} from `pretrained` (hub name/path) or from the `config` dims."
    return build


build_bart = register_model("bart", codec="hf")(_builder("bart"))
build_t5 = register_model("t5", codec="hf")(_builder("t5"))
