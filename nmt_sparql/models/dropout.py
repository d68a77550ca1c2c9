"""Dropout whose CPU masks cost one random 64-bit word per four elements.

On a CPU, torch draws one random number per element for `F.dropout` and for the attention dropout of
`scaled_dot_product_attention`; for a small model those draws are most of a training step (BENCHMARKS.md,
session 15). Here one 64-bit draw gives four 16-bit uniforms, each kept when it is at or above p's
threshold: the same Bernoulli(1 - p) mask, with p rounded to 1/65,536, at about a seventh of the cost.
On other devices (fast GPU generators) `F.dropout` is used as it is.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

_WORD_MIN, _WORD_MAX = -(2**63), 2**63 - 1  # random_ draws from [min, max): all 64 bits random
_HALF = 2**15  # int16 values lie in [-2**15, 2**15)


def keep_mask(shape: torch.Size | tuple[int, ...], p: float, device: torch.device) -> torch.Tensor:
    """A boolean mask of `shape`, each element True with probability 1 - p (p to 1/65,536)."""
    n = math.prod(shape)
    words = torch.empty((n + 3) // 4, dtype=torch.int64, device=device).random_(_WORD_MIN, _WORD_MAX)
    threshold = round(p * 2**16) - _HALF
    return (words.view(torch.int16)[:n] >= threshold).view(shape)


def dropout(x: torch.Tensor, p: float, training: bool) -> torch.Tensor:
    """`F.dropout(x, p, training)`, with CPU masks from `keep_mask`."""
    if not training or p == 0.0:
        return x
    if x.device.type != "cpu" or p >= 1.0:
        return F.dropout(x, p, True)
    return x * (keep_mask(x.shape, p, x.device) * (1.0 / (1.0 - p))).to(x.dtype)


class Dropout(nn.Dropout):
    """`nn.Dropout` (same state, same repr) with `dropout`'s CPU masks."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return dropout(x, self.p, self.training)
