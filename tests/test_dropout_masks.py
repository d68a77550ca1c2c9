"""CPU dropout masks from 64-bit random words (models/dropout.py) and the attention that uses them.

The masks must be the Bernoulli(1 - p) masks `F.dropout` draws (rate, independence of the four
16-bit parts of a word, the 1/(1 - p) rescale), reproducible from the seed; the Transformer's CPU
training attention must compute what `scaled_dot_product_attention` computes when nothing is dropped.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from test_copy_layer import SPEC, TINY, copy_batch

from nmt_sparql.models.dropout import Dropout, dropout, keep_mask
from nmt_sparql.models.registry import build_model
from nmt_sparql.models.transformer import Attention


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5])
def test_a_mask_keeps_each_element_with_probability_one_minus_p(p: float) -> None:
    torch.manual_seed(0)
    mask = keep_mask((1001, 403), p, torch.device("cpu"))  # not a multiple of 4 elements
    assert mask.shape == (1001, 403) and mask.dtype == torch.bool
    assert abs(mask.float().mean().item() - (1 - p)) < 0.005
    parts = mask.flatten()[: mask.numel() // 4 * 4].view(-1, 4).float().mean(0)  # each 16 bits of a word
    assert torch.allclose(parts, torch.full((4,), 1 - p), atol=0.01)


def test_masks_follow_the_seed() -> None:
    torch.manual_seed(3)
    first = keep_mask((64, 64), 0.1, torch.device("cpu"))
    torch.manual_seed(3)
    assert torch.equal(first, keep_mask((64, 64), 0.1, torch.device("cpu")))
    assert not torch.equal(first, keep_mask((64, 64), 0.1, torch.device("cpu")))


def test_dropout_zeroes_and_rescales_like_f_dropout() -> None:
    torch.manual_seed(0)
    x = torch.rand(200, 300) + 1.0
    y = dropout(x, 0.2, training=True)
    kept = y != 0
    assert torch.allclose(y[kept], x[kept] / 0.8)
    assert abs(kept.float().mean().item() - 0.8) < 0.01
    assert dropout(x, 0.2, training=False) is x and dropout(x, 0.0, training=True) is x
    assert torch.equal(dropout(x, 1.0, training=True), torch.zeros_like(x))


def test_the_module_keeps_nn_dropout_state_and_eval_behaviour() -> None:
    module = Dropout(0.25)
    assert isinstance(module, torch.nn.Dropout) and module.state_dict() == {} and module.p == 0.25
    x = torch.randn(8, 8)
    assert torch.equal(module.eval()(x), x)


@pytest.mark.parametrize("causal", [False, True])
def test_cpu_training_attention_is_scaled_dot_product_attention_when_nothing_drops(causal: bool) -> None:
    torch.manual_seed(0)
    attention = Attention(dim=32, heads=4, dropout=1e-9).train()  # p rounds to 0: every weight kept
    x, memory = torch.randn(3, 7, 32), torch.randn(3, 7 if causal else 9, 32)
    k, v = attention.kv(memory)
    key_mask = None if causal else torch.arange(9)[None, :] < torch.tensor([[9], [5], [1]])
    out = attention(x, k, v, key_mask=key_mask, causal=causal)
    q = attention._split(attention.q(x))
    mask = None if key_mask is None else key_mask[:, None, None, :]
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
    expected = attention.o(expected.transpose(1, 2).reshape(3, 7, -1))
    assert torch.allclose(out, expected, atol=1e-6)


def test_cpu_training_attention_drops_whole_weights_and_rescales() -> None:
    torch.manual_seed(0)
    attention = Attention(dim=16, heads=1, dropout=0.5).train()
    attention.o = torch.nn.Identity()
    x = torch.randn(1, 200, 16)
    k, v = attention.kv(torch.randn(1, 1, 16))  # one key: every weight is 1 before dropout
    out = attention(x, k, v)
    dropped = (out == 0).all(-1)
    assert 0.4 < dropped.float().mean().item() < 0.6
    assert torch.allclose(out[0, ~dropped[0]], v[0, 0].expand(int((~dropped).sum()), -1) * 2, atol=1e-6)


def test_a_model_in_train_mode_is_random_and_in_eval_mode_is_not() -> None:
    torch.manual_seed(0)
    model = build_model({**TINY["transformer"], "dropout": 0.3}, SPEC, copy=True)
    batch = copy_batch()
    assert not torch.equal(model.train()(batch), model(batch))
    model.eval()
    assert torch.equal(model(batch), model(batch))
    assert math.isfinite(float(model.train()(batch).float().exp().sum()))
