"""Optimizer and learning-rate schedule from the config (paper Table III: SGD for ConvSeq2Seq,
Adam for the Transformer, Adam with polynomial decay and warmup for BART/T5)."""

from __future__ import annotations

from collections.abc import Iterable

import torch
from transformers import get_constant_schedule_with_warmup, get_polynomial_decay_schedule_with_warmup

from nmt_sparql.training.config import OptimizerConfig, SchedulerConfig


def build_optimizer(cfg: OptimizerConfig, params: Iterable[torch.nn.Parameter]) -> torch.optim.Optimizer:
    params = [p for p in params if p.requires_grad]
    if cfg.name == "sgd":
        return torch.optim.SGD(
            params, lr=cfg.lr, momentum=cfg.momentum, nesterov=cfg.nesterov, weight_decay=cfg.weight_decay
        )
    betas = (cfg.betas[0], cfg.betas[1])
    # One fused kernel for all parameters instead of a loop of small ops per tensor (the per-tensor loop
    # was ~9% of a CPU step of the small default model, BENCHMARKS.md); on CUDA the fastest Adam too.
    fused = all(p.is_floating_point() and p.device.type in ("cpu", "cuda") for p in params) or None
    if cfg.name == "adam":
        return torch.optim.Adam(
            params, lr=cfg.lr, betas=betas, eps=cfg.eps, weight_decay=cfg.weight_decay, fused=fused
        )
    if cfg.name == "adamw":
        return torch.optim.AdamW(
            params, lr=cfg.lr, betas=betas, eps=cfg.eps, weight_decay=cfg.weight_decay, fused=fused
        )
    raise ValueError(f"unknown optimizer {cfg.name!r}")


def build_scheduler(
    cfg: SchedulerConfig, optimizer: torch.optim.Optimizer, total_steps: int
) -> torch.optim.lr_scheduler.LambdaLR:
    """Stepped once per optimizer step; `total_steps` counts optimizer steps."""
    if cfg.name in ("constant", "none"):
        return get_constant_schedule_with_warmup(optimizer, num_warmup_steps=cfg.warmup_steps)
    if cfg.name == "polynomial":
        return get_polynomial_decay_schedule_with_warmup(
            optimizer,
            cfg.warmup_steps,
            max(total_steps, cfg.warmup_steps + 1),
            lr_end=cfg.end_lr,
            power=cfg.power,
        )
    raise ValueError(f"unknown scheduler {cfg.name!r}")
