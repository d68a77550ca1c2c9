"""Shared plumbing of the decoders: device placement and a deterministic (eval) model mode."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import nn

from nmt_sparql.core.interface import Batch, Seq2SeqModel


def model_device(model: Seq2SeqModel, batch: Batch) -> torch.device:
    """The device of the model's parameters (decoding follows the model), else the batch's."""
    parameters = getattr(model, "parameters", None)
    if callable(parameters):
        first = next(iter(parameters()), None)
        if first is not None:
            return first.device
    return batch.src_ids.device


@contextmanager
def eval_mode(model: Seq2SeqModel) -> Iterator[None]:
    """Disable dropout while decoding (outputs are deterministic), then restore every submodule's mode."""
    modules = list(model.modules()) if isinstance(model, nn.Module) else []
    modes = [module.training for module in modules]
    for module in modules:
        module.training = False
    try:
        with torch.inference_mode():
            yield
    finally:
        for module, mode in zip(modules, modes):
            module.training = mode


def check_max_len(max_len: int) -> None:
    if max_len < 1:
        raise ValueError(f"max_len must be >= 1, got {max_len}")
