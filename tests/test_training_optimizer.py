"""build_optimizer: Adam and AdamW run fused (one kernel over all parameters) where torch has the kernel."""

from __future__ import annotations

import torch

from nmt_sparql.training.config import OptimizerConfig
from nmt_sparql.training.optim import build_optimizer


def test_adam_is_fused_on_cpu_and_steps_like_the_per_tensor_loop() -> None:
    torch.manual_seed(0)
    fused_model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 2))
    loop_model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 2))
    loop_model.load_state_dict(fused_model.state_dict())
    cfg = OptimizerConfig(name="adam", lr=0.01)
    fused = build_optimizer(cfg, fused_model.parameters())
    loop = torch.optim.Adam(loop_model.parameters(), lr=0.01, betas=(0.9, 0.98), eps=1e-8, foreach=False)
    assert fused.defaults["fused"] is True
    x = torch.randn(16, 4)
    for _ in range(5):
        for model, optimizer in ((fused_model, fused), (loop_model, loop)):
            optimizer.zero_grad()
            model(x).square().mean().backward()
            optimizer.step()
    for a, b in zip(fused_model.parameters(), loop_model.parameters(), strict=True):
        assert torch.allclose(a, b, atol=1e-6)


def test_frozen_parameters_are_left_out() -> None:
    model = torch.nn.Linear(2, 2)
    model.bias.requires_grad_(False)
    optimizer = build_optimizer(OptimizerConfig(name="adamw"), model.parameters())
    assert [p for group in optimizer.param_groups for p in group["params"]] == [model.weight]
