"""A moving average of the weights (train.ema_decay): what validation scores and best/ keeps.

The small default models train at a constant learning rate, so the weights of any one step are a
noisy draw around a good point; the average is that point, and it varies less from seed to seed.
The decay warms up, (1 + n) / (10 + n) capped at `decay` after n updates (as in TensorFlow's
ExponentialMovingAverage with num_updates), so the random initialization is forgotten within the
first epoch instead of lingering for ~1/(1 - decay) steps.
"""

from __future__ import annotations

import torch
from torch.optim.swa_utils import AveragedModel


def moving_average(model: torch.nn.Module, decay: float) -> AveragedModel:
    """A copy of `model` that `update_parameters(model)` moves towards it after each optimizer step."""

    def average(averaged: list[torch.Tensor], current: list[torch.Tensor], updates: torch.Tensor) -> None:
        if not averaged[0].is_floating_point():  # tensors come grouped by dtype: integer buffers are copied
            torch._foreach_copy_(averaged, current)
            return
        step_decay = min(decay, (1.0 + float(updates)) / (10.0 + float(updates)))
        torch._foreach_lerp_(averaged, current, 1.0 - step_decay)  # one kernel per group, not one per tensor

    return AveragedModel(model, multi_avg_fn=average, use_buffers=True)
