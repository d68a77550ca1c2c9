"""The lean T5 decoder step (models/t5_step.py) gives the transformers step's log-probabilities."""

from __future__ import annotations

import pytest
import torch

from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.decoding import beam_search, greedy
from nmt_sparql.models import t5_step
from nmt_sparql.models.registry import build_model
from nmt_sparql.serving.quantize import quantize_model

V = 40
SPEC = VocabSpec(src_size=V, tgt_size=V, src_pad_id=0, pad_id=0, bos_id=0, eos_id=1, kb_id=3)


def t5(copy_on: bool, gate_input: str = "logits", **config: object) -> torch.nn.Module:
    dims = {"d_model": 32, "d_kv": 8, "d_ff": 64, "num_layers": 2, "num_decoder_layers": 2, "num_heads": 4,
            "dropout_rate": 0.0, **config}  # fmt: skip
    torch.manual_seed(0)
    cfg = {"name": "t5", "config": dims, "max_slots": 8, "gate_input": gate_input}
    return build_model(cfg, SPEC, copy=copy_on).eval()


def batch(copy_on: bool) -> Batch:
    """Three rows, two padded; with copy, KB masks with slots in two of them."""
    src = torch.randint(4, V, (3, 9), generator=torch.Generator().manual_seed(1))
    src[1, 6:], src[2, 4:] = 0, 0
    slots = torch.full_like(src, -1)
    if copy_on:
        src[0, 2], src[0, 5], src[1, 1] = 3, 3, 3
        slots[0, 2], slots[0, 5], slots[1, 1] = 0, 1, 0
    return Batch(src, src != 0, slots)


def stepped(model: torch.nn.Module, b: Batch, tokens: torch.Tensor) -> tuple[torch.Tensor, object]:
    """Log-probs (B, T, V') of teacher-forced steps over `tokens` (B, T), reordering the rows to [2, 0]
    before the last step; and the final cache."""
    with torch.inference_mode():
        state, cache, out = model.encode(b), None, []
        for t in range(tokens.size(1)):
            if t == tokens.size(1) - 1:
                index = torch.tensor([2, 0])
                state, cache = model.reorder(state, cache, index)
                tokens, out = tokens[index], [o[index] for o in out]
            lp, cache = model.decode_step(tokens[:, t], state, cache)
            out.append(lp)
    return torch.stack(out, 1), cache


@pytest.mark.parametrize(
    ("copy_on", "gate_input", "config", "dtype"),
    [
        (False, "logits", {}, torch.float32),
        (True, "logits", {}, torch.float32),
        (True, "hidden", {}, torch.float32),
        (False, "logits", {"feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}, torch.float32),
        (True, "logits", {}, torch.bfloat16),
    ],
    ids=["plain", "copy", "copy-hidden-gate", "t5-v1.1", "bf16"],
)
def test_lean_step_gives_the_transformers_step_log_probs(
    monkeypatch: pytest.MonkeyPatch, copy_on: bool, gate_input: str, config: dict, dtype: torch.dtype
) -> None:
    model, b = t5(copy_on, gate_input, **config).to(dtype), batch(copy_on)
    # 40 steps: past the first buffer capacity, so growing the buffers and the position bias is covered
    tokens = torch.randint(4, V + (2 if copy_on else 0), (3, t5_step.FIRST_CAPACITY + 8),
                           generator=torch.Generator().manual_seed(2))  # fmt: skip
    tokens[:, 0] = SPEC.bos_id
    lean, cache = stepped(model, b, tokens)
    assert isinstance(cache, t5_step.T5StepCache) and cache.keys.size(3) == 2 * t5_step.FIRST_CAPACITY
    monkeypatch.setattr(t5_step, "supports_fast_step", lambda _model: False)
    reference, hf_cache = stepped(model, b, tokens)
    assert not isinstance(hf_cache, t5_step.T5StepCache)
    finite = torch.isfinite(reference)
    assert torch.equal(finite, torch.isfinite(lean))
    assert torch.allclose(lean[finite], reference[finite], atol=1e-5)


def test_lean_step_is_the_default_of_t5_decoding_and_keeps_greedy_and_beam_outputs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model, b = t5(True), batch(True)
    fast_greedy, fast_beam = greedy(model, b, 12), beam_search(model, b, 3, 12)
    monkeypatch.setattr(t5_step, "supports_fast_step", lambda _model: False)
    assert greedy(model, b, 12) == fast_greedy
    assert beam_search(model, b, 3, 12) == fast_beam


def test_int8_stacked_query_key_value_projection_gives_the_three_projections_values() -> None:
    """quantize=int8 stacks each decoder self-attention's int8 q, k, v into one Linear: same log-probs."""
    model = quantize_model(t5(True), "int8")
    attentions = [block.layer[0].SelfAttention for block in model.model.decoder.block]
    assert all(
        isinstance(getattr(a, t5_step.FUSED), torch.ao.nn.quantized.dynamic.Linear) for a in attentions
    )
    b = batch(True)
    tokens = torch.randint(4, V + 2, (3, 6), generator=torch.Generator().manual_seed(2))
    tokens[:, 0] = SPEC.bos_id
    fused, _ = stepped(model, b, tokens)
    for attention in attentions:
        delattr(attention, t5_step.FUSED)
    separate, _ = stepped(model, b, tokens)
    assert torch.equal(fused, separate)


def test_int8_leaves_the_first_encoder_block_of_t5_in_fp32_and_quantizes_every_other_linear() -> None:
    """The layers the model names in `int8_keeps_fp32` stay nn.Linear; all others become int8."""
    model = quantize_model(t5(True), "int8")
    dynamic = torch.ao.nn.quantized.dynamic.Linear
    first = [m for m in model.model.encoder.block[0].modules() if isinstance(m, (torch.nn.Linear, dynamic))]
    assert first and all(type(m) is torch.nn.Linear for m in first)
    rest = [
        (n, m) for n, m in model.named_modules()
        if isinstance(m, (torch.nn.Linear, dynamic)) and not n.startswith("model.encoder.block.0.")
    ]  # fmt: skip
    assert rest and all(isinstance(m, dynamic) for _, m in rest)
