"""Decoder-only LLMs (Llama, Code Llama, any AutoModelForCausalLM) behind the step interface.

The prompt (tokenization/prompt.py) is the "source", the answer the "target": `encode` runs the
prompt once and keeps its KV cache, `decode_step` extends it one token at a time, and teacher
forcing returns log-probs at the answer positions only, so the recipe's loss is the answer-only
loss of instruction fine-tuning. Prompts are left-aligned by padding on the left (position ids
follow the attention mask), so a batch decodes together whatever its prompt lengths.

Weights come from `pretrained` (a hub name or a local folder with safetensors) or from a small
LlamaConfig with random init. `lora.r > 0` wraps the model with peft LoRA adapters (only they
train); `quantization: 4bit` loads the frozen base in NF4 through bitsandbytes (QLoRA, CUDA only).
Checkpoints hold what cannot be reloaded from `pretrained`: the adapters only when the base comes
from `pretrained`, everything otherwise, nothing for an export whose weights are its hf/ folder
(`frozen`). Export merges the adapters into the base (`merge_and_freeze`).
"""

from __future__ import annotations

import inspect
import logging
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules.module import _IncompatibleKeys
from transformers import AutoModelForCausalLM, LlamaConfig, PreTrainedModel

from nmt_sparql.core.interface import Batch, VocabSpec, reorder_rows
from nmt_sparql.models.registry import ModelConfigError, architecture_kwargs, register_model

log = logging.getLogger(__name__)

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def left_align(ids: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-padded rows -> the same rows padded on the left (so every prompt ends at the last column)."""
    width = ids.size(1)
    shift = width - mask.long().sum(1, keepdim=True)
    index = (torch.arange(width, device=ids.device).unsqueeze(0) - shift) % width
    return ids.gather(1, index), mask.gather(1, index)


def positions(mask: torch.Tensor) -> torch.Tensor:
    """Position ids that skip padding: 0 at each row's first real token."""
    return (mask.long().cumsum(1) - 1).clamp(min=0)


def _quantization_config(quantization: str, dtype: torch.dtype) -> Any:
    """bitsandbytes settings of QLoRA (NF4, double quantization) or 8-bit; a clear error without it."""
    if quantization not in ("4bit", "8bit"):
        raise ModelConfigError(f"model.quantization must be null, '4bit' or '8bit', got {quantization!r}")
    try:
        import bitsandbytes  # noqa: F401
    except ImportError:
        raise ModelConfigError(
            f"model.quantization={quantization} (QLoRA) needs bitsandbytes and a CUDA GPU: "
            "`pip install bitsandbytes`, or set model.quantization=null (plain LoRA)"
        ) from None
    if not torch.cuda.is_available():
        raise ModelConfigError(f"model.quantization={quantization} needs a CUDA GPU (bitsandbytes)")
    from transformers import BitsAndBytesConfig

    if quantization == "8bit":
        return BitsAndBytesConfig(load_in_8bit=True)
    return BitsAndBytesConfig(
        load_in_4bit=True,
        bnb_4bit_quant_type="nf4",
        bnb_4bit_use_double_quant=True,
        bnb_4bit_compute_dtype=dtype if dtype != torch.float32 else torch.bfloat16,
    )


def load_causal_lm(
    spec: VocabSpec,
    pretrained: str | None = None,
    config: Mapping[str, Any] | None = None,
    lora: Mapping[str, Any] | None = None,
    quantization: str | None = None,
    dtype: str | None = None,
    gradient_checkpointing: bool = False,
    frozen: bool = False,
) -> CausalLM:
    """The model a `model=llama` config describes (see module docstring)."""
    torch_dtype = DTYPES.get(dtype or "float32")
    if torch_dtype is None:
        raise ModelConfigError(f"model.dtype must be one of {sorted(DTYPES)} or null, got {dtype!r}")
    if pretrained:
        kwargs: dict[str, Any] = {"dtype": torch_dtype, "use_safetensors": True}
        if quantization:
            from accelerate import PartialState

            kwargs["quantization_config"] = _quantization_config(quantization, torch_dtype)
            kwargs["device_map"] = {"": PartialState().local_process_index}
        # safetensors only: a pickled pytorch_model.bin is refused, never unpickled
        model = AutoModelForCausalLM.from_pretrained(pretrained, **kwargs)
    else:
        if quantization:
            raise ModelConfigError("model.quantization needs pretrained weights (model.pretrained=...)")
        if not config:  # LlamaConfig's defaults are a 7B model: never built by accident from random init
            raise ModelConfigError(
                "model.pretrained is not available and model.config is empty: give weights "
                "(model.pretrained=NAME_OR_PATH) or the dims of a random-init Llama (see model=llama_small)"
            )
        llama = LlamaConfig(
            vocab_size=spec.tgt_size,
            pad_token_id=spec.pad_id,
            eos_token_id=spec.eos_id,
            bos_token_id=None,
            **dict(config or {}),
        )
        model = AutoModelForCausalLM.from_config(llama).to(torch_dtype)
    if model.get_input_embeddings().num_embeddings < spec.tgt_size:
        model.resize_token_embeddings(spec.tgt_size)  # a pad token added to a tokenizer without one
    if gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if quantization:
        from peft import prepare_model_for_kbit_training

        model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=gradient_checkpointing)
    rank = int((lora or {}).get("r", 0) or 0)
    if quantization and not rank:
        raise ModelConfigError("a quantized base cannot be trained: set model.lora.r > 0 (QLoRA)")
    if rank:
        model = add_lora(model, rank, lora or {})
    return CausalLM(model, spec, adapters_only=bool(pretrained) and bool(rank), frozen=frozen)


def add_lora(model: PreTrainedModel, rank: int, lora: Mapping[str, Any]) -> nn.Module:
    """peft LoRA adapters (r, alpha, dropout, target_modules); the base weights stop training."""
    from peft import LoraConfig, get_peft_model

    unknown = set(lora) - {"r", "alpha", "dropout", "target_modules"}
    if unknown:
        raise ModelConfigError(
            f"model.lora: unknown keys {sorted(unknown)}; allowed: r, alpha, dropout, target_modules"
        )
    config = LoraConfig(
        r=rank,
        lora_alpha=int(lora.get("alpha") or 2 * rank),
        lora_dropout=float(lora.get("dropout") or 0.0),
        target_modules=lora.get("target_modules") or None,
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, config)


class CausalLM(nn.Module):
    """A transformers causal LM with the project's encode / decode_step / forward interface."""

    def __init__(self, model: nn.Module, spec: VocabSpec, adapters_only: bool = False, frozen: bool = False):
        super().__init__()
        self.model, self.vocab_size, self.copy = model, spec.tgt_size, False
        self.pad_id, self.bos_id, self.eos_id = spec.pad_id, spec.bos_id, spec.eos_id
        self.adapters_only, self.frozen = adapters_only, frozen
        if frozen:
            self.requires_grad_(False)
        self._keep_logits = "logits_to_keep" in inspect.signature(self._hf().forward).parameters

    def _hf(self) -> PreTrainedModel:
        """The transformers model under any peft wrapper."""
        get_base = getattr(self.model, "get_base_model", None)
        return get_base() if callable(get_base) else self.model

    # -- checkpoint contents (see module docstring) ------------------------------------------------
    def _saved(self) -> set[str] | None:
        if self.frozen:
            return set()
        if self.adapters_only:
            return {name for name, p in self.named_parameters() if p.requires_grad}
        return None

    def state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        full = super().state_dict(*args, **kwargs)
        saved = self._saved()
        if saved is None:
            return full
        prefix = kwargs.get("prefix", args[1] if len(args) > 1 else "")
        return OrderedDict((k, v) for k, v in full.items() if k.removeprefix(prefix) in saved)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> Any:
        result = super().load_state_dict(state_dict, strict=False, assign=assign)
        saved = self._saved()
        missing = [k for k in result.missing_keys if saved is None or k in saved]
        if strict and (missing or result.unexpected_keys):
            raise RuntimeError(f"CausalLM weights: missing {missing}, unexpected {result.unexpected_keys}")
        return _IncompatibleKeys(missing, result.unexpected_keys)

    def merge_and_freeze(self) -> None:
        """Fold LoRA adapters into the base weights; the model is then exported as plain weights."""
        merge = getattr(self.model, "merge_and_unload", None)
        if callable(merge):
            self.model = merge()
        self.adapters_only, self.frozen = False, True
        self.requires_grad_(False)

    # -- the step interface ------------------------------------------------------------------------
    def _run(self, ids: torch.Tensor, mask: torch.Tensor, pos: torch.Tensor, keep: int, cache: Any) -> Any:
        extra = {"logits_to_keep": keep} if self._keep_logits else {}
        out = self.model(
            input_ids=ids,
            attention_mask=mask.long(),
            position_ids=pos,
            past_key_values=cache,
            use_cache=cache is not None or keep == 1,
            return_dict=True,
            **extra,
        )
        return out.logits[:, -keep:, : self.vocab_size], out.past_key_values

    def forward(self, batch: Batch) -> torch.Tensor:
        """Log-probs of tgt_ids[:, 1:] given the prompt and the answer before each position."""
        if batch.tgt_ids is None:
            raise ValueError("forward needs batch.tgt_ids (teacher forcing)")
        prompt, prompt_mask = left_align(batch.src_ids, batch.src_mask)
        answer = batch.tgt_ids[:, 1:-1]
        ids = torch.cat([prompt, answer], dim=1)
        mask = torch.cat([prompt_mask, answer != self.pad_id], dim=1)
        keep = batch.tgt_ids.size(1) - 1
        logits, _ = self._run(ids, mask, positions(mask), keep, None)
        return F.log_softmax(logits.float(), dim=-1)

    def encode(self, batch: Batch) -> dict[str, Any]:
        """Run the prompt once: its cache and the log-probs of the first answer token."""
        prompt, mask = left_align(batch.src_ids, batch.src_mask)
        pos = positions(mask)
        logits, cache = self._run(prompt, mask, pos, 1, None)
        return {
            "first": F.log_softmax(logits[:, -1].float(), dim=-1),
            "kv": cache,
            "mask": mask,
            "pos": pos[:, -1] + 1,
        }

    def decode_step(
        self, tokens: torch.Tensor, state: dict[str, Any], cache: Any | None
    ) -> tuple[torch.Tensor, Any]:
        """The first call returns the prompt's prediction (its input is the start placeholder)."""
        if cache is None:
            return state.pop("first"), {
                "kv": state.pop("kv"),
                "mask": state.pop("mask"),
                "pos": state.pop("pos"),
            }
        mask = torch.cat([cache["mask"], torch.ones_like(cache["mask"][:, :1])], dim=1)
        logits, kv = self._run(tokens[:, None], mask, cache["pos"][:, None], 1, cache["kv"])
        return F.log_softmax(logits[:, -1].float(), dim=-1), {"kv": kv, "mask": mask, "pos": cache["pos"] + 1}

    def reorder(
        self, state: dict[str, Any], cache: Any | None, index: torch.Tensor
    ) -> tuple[dict[str, Any], Any]:
        if cache is None:
            return reorder_rows(state, index), None
        cache["kv"].reorder_cache(index.to(cache["mask"].device))
        return state, {"kv": cache["kv"], "mask": cache["mask"][index], "pos": cache["pos"][index]}


@register_model("llama", codec="prompt")
def build_llama(cfg: dict[str, Any], spec: VocabSpec, copy: bool) -> CausalLM:
    """Llama / Code Llama / any causal LM from `pretrained`, or a random-init Llama from `config`."""
    if copy:
        raise ModelConfigError(
            f"model {cfg.get('name')!r}: a causal LM reads the KB elements in its prompt and has no copy "
            "layer: use copy=false (decode.kb_constraint=true keeps its IRIs to the prompt's elements)"
        )
    return load_causal_lm(spec, **architecture_kwargs(cfg, load_causal_lm, skip=("prompt",)))
