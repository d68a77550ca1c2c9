"""Reduced-precision inference weights: dynamic int8 Linear layers on CPU, bf16 where the hardware has it.

A batch-1 decoding step is memory-bound (it streams every weight matrix once per generated token), so
fewer bytes per weight is what makes it faster. The export keeps fp32 model.safetensors and records the
setting in config.json (`quantize`); the model is quantized when it is loaded, so an export never
holds a pickled quantized module and its weights stay readable by any safetensors tool.
"""

from __future__ import annotations

import logging
import warnings

import torch
from torch import nn
from torch.nn.utils import parametrize

from nmt_sparql.models import t5_step

log = logging.getLogger(__name__)

QUANTIZE_MODES = ("none", "int8", "bf16")


def check_mode(mode: object, where: str = "quantize") -> str:
    """`mode` as one of QUANTIZE_MODES, or a ValueError that names `where` the value came from."""
    text = "none" if mode is None else str(mode).lower()
    if text not in QUANTIZE_MODES:
        raise ValueError(f"{where}: {mode!r} is not one of {', '.join(QUANTIZE_MODES)}")
    return text


def cpu_has_bf16() -> bool:
    """Native bf16 matmuls on this CPU (AVX512-BF16 or AMX); elsewhere bf16 is emulated and slower."""
    return bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())


def fold_parametrizations(model: nn.Module) -> nn.Module:
    """Parametrized weights (ConvS2S's weight norm) as plain ones: int8 swaps plain nn.Linear only,
    and an inference model never needs the parametrization again."""
    for module in model.modules():
        if parametrize.is_parametrized(module):
            for name in list(module.parametrizations):
                parametrize.remove_parametrizations(module, name, leave_parametrized=True)
    return model


def fp32_under_int8(model: nn.Module) -> set[str]:
    """Qualified names of the nn.Linear layers int8 leaves in fp32: those under a module the model names
    in its `int8_keeps_fp32` (like transformers' `_keep_in_fp32_modules`), where rounding flips queries."""
    prefixes = tuple(f"{name}." for name in getattr(model, "int8_keeps_fp32", ()))
    return {n for n, m in model.named_modules() if isinstance(m, nn.Linear) and n.startswith(prefixes)}


def quantize_model(model: nn.Module, mode: str, device: str | torch.device = "cpu") -> nn.Module:
    """The eval-mode `model` with `mode` applied on `device` (the model is already there).

    int8: every nn.Linear becomes a dynamically quantized one (int8 weights with one scale per output
    channel, which keeps more queries identical to fp32 than one per tensor; activations quantized per
    batch; CPU only: on another device the model stays as it is, with a warning), except those under the
    modules the model names in `int8_keeps_fp32` (`fp32_under_int8`); a T5's decoder
    self-attention projections also get one stacked int8 Linear (models/t5_step.py). bf16: all weights in
    bfloat16 (on a CPU without native bf16 the model stays fp32, with a warning). Log-probabilities
    keep their dtype handling in the models (the softmax runs in fp32).
    """
    mode = check_mode(mode)
    device = torch.device(device)
    if mode == "none":
        return model
    if mode == "int8":
        if device.type != "cpu":
            log.warning(
                "quantize=int8 is CPU-only (dynamic quantization); on %s the model stays as it is", device
            )
            return model
        with warnings.catch_warnings():  # torch.ao's deprecation notices, on every load of a served model
            warnings.simplefilter("ignore", DeprecationWarning)
            warnings.filterwarnings("ignore", message=".*quantized tensor creation functions.*")
            qconfig = torch.ao.quantization.per_channel_dynamic_qconfig
            kept = fp32_under_int8(model)
            linears = [n for n, m in model.named_modules() if isinstance(m, nn.Linear) and n not in kept]
            quantized = torch.ao.quantization.quantize_dynamic(
                fold_parametrizations(model.eval()), dict.fromkeys(linears, qconfig), dtype=torch.qint8
            )
            return t5_step.fuse_int8_projections(quantized)
    if device.type == "cpu" and not cpu_has_bf16():
        log.warning("quantize=bf16: this CPU has no native bf16 (AVX512-BF16/AMX); the model stays fp32")
        return model
    return model.to(torch.bfloat16)
