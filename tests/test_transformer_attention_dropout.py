"""model.attention_dropout: the rate on attention weights, apart from the residual/FFN `dropout`.

Off, a CPU step is much cheaper (most of its random numbers are drawn for the (heads x queries x
keys) attention weights); null, every preset's value, keeps the paper's single rate, so older run
folders, whose model configs lack the key, build the model they trained.
"""

from __future__ import annotations

import pytest
import torch
from test_copy_layer import SPEC, TINY, copy_batch

from nmt_sparql.models.registry import ModelConfigError, build_model
from nmt_sparql.models.transformer import Attention


def attention_rates(model: torch.nn.Module) -> set[float]:
    return {m.dropout for m in model.modules() if isinstance(m, Attention)}


def test_attention_dropout_defaults_to_the_model_dropout() -> None:
    model = build_model({**TINY["transformer"], "dropout": 0.3}, SPEC, copy=True)
    assert attention_rates(model) == {0.3}


def test_attention_dropout_zero_leaves_only_the_residual_dropout_random() -> None:
    torch.manual_seed(0)
    cfg = {**TINY["transformer"], "dropout": 0.0, "attention_dropout": 0.0}
    model = build_model(cfg, SPEC, copy=True).train()
    assert attention_rates(model) == {0.0}
    batch = copy_batch()
    assert torch.equal(model(batch), model(batch))  # nothing random is left in train mode
    noisy = build_model({**cfg, "attention_dropout": 0.5}, SPEC, copy=True).train()
    assert not torch.equal(noisy(batch), noisy(batch))


def test_an_attention_dropout_outside_zero_to_one_is_refused_by_name() -> None:
    for bad in (-0.1, 1.0):
        with pytest.raises(ModelConfigError, match="model.attention_dropout"):
            build_model({**TINY["transformer"], "attention_dropout": bad}, SPEC, copy=True)
