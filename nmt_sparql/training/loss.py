"""Token-level NLL over the extended (vocabulary + copy slot) space, pad ignored."""

from __future__ import annotations

import torch


def sequence_nll(
    log_probs: torch.Tensor, targets: torch.Tensor, pad_id: int, label_smoothing: float = 0.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-example summed loss (B,) and non-pad target counts (B,).

    With label smoothing, the smoothing mass is spread over the classes the model can produce
    for that example only: copy slots an example lacks have log-prob -inf and are skipped (a
    uniform prior over them would make the loss infinite).
    """
    if log_probs.shape[:2] != targets.shape:
        raise ValueError(f"log-probs {tuple(log_probs.shape)} do not match targets {tuple(targets.shape)}")
    if targets.numel() and int(targets.max()) >= log_probs.size(-1):
        raise ValueError(
            f"target id {int(targets.max())} is outside the model's output space of size {log_probs.size(-1)}"
        )
    log_probs = log_probs.float()
    real = targets != pad_id
    loss = -log_probs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    if label_smoothing > 0:
        finite = torch.isfinite(log_probs)
        uniform = -log_probs.masked_fill(~finite, 0.0).sum(-1) / finite.sum(-1).clamp(min=1)
        loss = (1.0 - label_smoothing) * loss + label_smoothing * uniform
    return loss.masked_fill(~real, 0.0).sum(-1), real.sum(-1)
