"""The copy mixture of §III.C: a distribution over [0, V + slots), copy mass only on present slots."""

from __future__ import annotations

import copy as copy_module
import dataclasses

import pytest
import torch

from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.models.copy import CopyGate, SlotEmbedding, slot_index, slot_log_probs
from nmt_sparql.models.registry import build_model
from nmt_sparql.training.loss import sequence_nll

V = 12
SPEC = VocabSpec(src_size=20, tgt_size=V, src_pad_id=0, pad_id=0, bos_id=1, eos_id=2, kb_id=4)
TINY = {
    "transformer": {"name": "transformer", "dim": 16, "ffn_dim": 32, "heads": 2, "encoder_layers": 1,
                    "decoder_layers": 2, "dropout": 0.0},
    "convs2s": {"name": "convs2s", "embed_dim": 16, "hidden_dim": 16, "encoder_layers": 1, "decoder_layers": 2,
                "dropout": 0.0},
    "bart": {"name": "bart", "config": {"d_model": 16, "encoder_layers": 1, "decoder_layers": 2,
             "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 32,
             "decoder_ffn_dim": 32, "dropout": 0.0, "max_position_embeddings": 32}},
    "t5": {"name": "t5", "config": {"d_model": 16, "d_kv": 8, "d_ff": 32, "num_layers": 1, "num_decoder_layers": 2,
           "num_heads": 2, "dropout_rate": 0.0}},
}  # fmt: skip


def copy_batch() -> Batch:
    """Row 0: slots 0 and 1 (slot 0 twice); row 1: slot 0 only; row 2: no KB element at all."""
    src = torch.tensor([[5, 4, 6, 4, 4, 2], [7, 4, 8, 2, 0, 0], [9, 10, 11, 2, 0, 0]])
    slots = torch.tensor([[-1, 0, -1, 1, 0, -1], [-1, 0, -1, -1, -1, -1], [-1] * 6])
    tgt = torch.tensor([[1, 5, 12, 13, 2], [1, 12, 6, 2, 0], [1, 7, 8, 2, 0]])
    return Batch(src, src != 0, slots, tgt)


def test_mixture_is_a_distribution_with_copy_mass_only_on_present_slots() -> None:
    torch.manual_seed(0)
    gate = CopyGate(V)
    batch = copy_batch()
    logits, scores = torch.randn(3, 4, V), torch.randn(3, 4, 6) * 3
    lp = gate(logits, scores, slot_index(batch.src_slots))
    assert lp.shape == (3, 4, V + 2)
    assert torch.allclose(lp.exp().sum(-1), torch.ones(3, 4), atol=1e-5)
    assert torch.isfinite(lp[0]).all()  # both slots present in row 0
    assert torch.isneginf(lp[1, :, V + 1]).all() and torch.isfinite(lp[1, :, V]).all()
    assert torch.isneginf(lp[2, :, V:]).all()
    # no KB element: p_copy must not leak, the row is exactly the generation distribution
    assert torch.allclose(lp[2, :, :V], torch.log_softmax(logits[2], -1), atol=1e-6)


def test_copy_probability_sums_attention_over_positions_of_a_slot() -> None:
    """p_C is the head's softmax restricted to KB positions, summed per slot (non-KB scores are ignored)."""
    slots = torch.tensor([[-1, 0, -1, 1, 0]])
    scores = torch.tensor([[[9.0, 1.0, 7.0, 2.0, 1.0]]])
    p = slot_log_probs(scores, slot_index(slots)).exp()[0, 0]
    e = torch.tensor([1.0, 2.0, 1.0]).exp()
    assert torch.allclose(p, torch.stack([(e[0] + e[2]) / e.sum(), e[1] / e.sum()]), atol=1e-6)


def test_gradients_reach_the_gate_and_the_attention_without_nans() -> None:
    torch.manual_seed(0)
    model = build_model(TINY["transformer"], SPEC, copy=True)
    batch = copy_batch()
    losses, counts = sequence_nll(model(batch), batch.tgt_ids[:, 1:], SPEC.pad_id, label_smoothing=0.1)
    loss = losses.sum() / counts.sum()
    loss.backward()
    assert torch.isfinite(loss)
    assert model.gate.B.weight.grad is not None and model.gate.B.weight.grad.abs().sum() > 0
    cross = model.decoder[-1].cross
    assert cross.q.weight.grad.abs().sum() > 0 and cross.k.weight.grad.abs().sum() > 0
    assert all(torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)


def test_label_smoothing_only_spreads_over_possible_ids() -> None:
    lp = torch.log(torch.tensor([[[0.5, 0.5, 0.0]]]))
    target = torch.tensor([[0]])
    plain, _ = sequence_nll(lp, target, pad_id=-1)
    smooth, _ = sequence_nll(lp, target, pad_id=-1, label_smoothing=0.2)
    assert torch.isclose(plain, torch.log(torch.tensor([2.0]))) and torch.isclose(smooth, plain)


def test_copied_token_enters_the_decoder_as_kb_plus_its_slot() -> None:
    torch.manual_seed(0)
    emb = SlotEmbedding(torch.nn.Embedding(V, 8), V, kb_id=4, dim=8, max_slots=3)
    out = emb(torch.tensor([[4, V, V + 2]]))
    assert torch.allclose(out[0, 1], emb.token_embedding.weight[4] + emb.slot_embedding.weight[0])
    assert torch.allclose(out[0, 2], emb.token_embedding.weight[4] + emb.slot_embedding.weight[2])
    with pytest.raises(ValueError, match="max_slots"):
        emb(torch.tensor([[V + 3]]))


def test_convs2s_refuses_a_sequence_longer_than_its_learned_positions_naming_max_positions() -> None:
    """Not an index error deep inside torch: the message names the length, the limit and the remedy."""
    model = build_model({**TINY["convs2s"], "max_positions": 8}, SPEC, copy=True)
    model(copy_batch())  # 6 source and 4 target positions: within the table
    n = 9
    long_input = Batch(torch.full((1, n), 5), torch.ones(1, n, dtype=torch.bool), torch.full((1, n), -1))
    with pytest.raises(ValueError, match=r"input of 9 tokens .*model\.max_positions=8.*linked\.max_units"):
        model.encode(long_input)
    long_query = dataclasses.replace(copy_batch(), tgt_ids=torch.full((3, n + 1), 5))
    with pytest.raises(ValueError, match=r"query of 9 tokens .*model\.max_positions=8"):
        model(long_query)


def test_bart_refuses_an_input_longer_than_its_learned_positions_naming_the_limit() -> None:
    model = build_model(TINY["bart"], SPEC, copy=True)
    n = 33  # max_position_embeddings is 32
    long_input = Batch(torch.full((1, n), 5), torch.ones(1, n, dtype=torch.bool), torch.full((1, n), -1))
    with pytest.raises(ValueError, match=r"input of 33 subword tokens .*max_position_embeddings=32"):
        model.encode(long_input)


@pytest.mark.parametrize("name", ["transformer", "convs2s", "bart", "t5"])
def test_masked_kb_elements_never_reach_the_encoder(name: str) -> None:
    """The encoder sees only the mask id at KB positions (hooked on its embedding or HF encoder input)."""
    torch.manual_seed(0)
    model = build_model(TINY[name], SPEC, copy=True)
    seen: list[torch.Tensor] = []
    if name in ("transformer", "convs2s"):
        model.src_embed.register_forward_hook(lambda _m, args, _out: seen.append(args[0].clone()))
    else:
        encoder = model.model.get_encoder()
        encoder.register_forward_pre_hook(
            lambda _m, _a, kw: seen.append(kw["input_ids"].clone()), with_kwargs=True
        )
    batch = copy_batch()
    model(batch)
    assert len(seen) == 1
    kb_positions = batch.src_slots >= 0
    assert (seen[0][kb_positions] == SPEC.kb_id).all()
    assert not (seen[0][~kb_positions] == SPEC.kb_id).any()


@pytest.mark.parametrize("copy", [True, False], ids=["copy", "nocopy"])
@pytest.mark.parametrize("name", ["transformer", "convs2s", "bart", "t5"])
def test_decode_step_with_cache_equals_forward_and_reorders(name: str, copy: bool) -> None:
    torch.manual_seed(0)
    model = build_model(TINY[name], SPEC, copy=copy).eval()
    batch = copy_batch()
    if not copy:
        batch = Batch(batch.src_ids.masked_fill(batch.src_ids == 4, 3), batch.src_mask,
                      torch.full_like(batch.src_slots, -1), batch.tgt_ids.clamp(max=V - 1))  # fmt: skip
    with torch.no_grad():
        full = model(batch)
        state, cache, steps = model.encode(batch), None, []
        for t in range(batch.tgt_ids.size(1) - 1):
            lp, cache = model.decode_step(batch.tgt_ids[:, t], state, cache)
            steps.append(lp)
        stepped = torch.stack(steps, 1)
        assert full.shape == stepped.shape == (3, 4, V + (2 if copy else 0))
        assert torch.equal(torch.isinf(full), torch.isinf(stepped))
        assert torch.allclose(full.nan_to_num(neginf=0.0), stepped.nan_to_num(neginf=0.0), atol=1e-4)
        # reorder: the next step of reordered rows equals the reordered next step
        index = torch.tensor([2, 0])
        ref, _ = model.decode_step(batch.tgt_ids[:, -1], state, copy_module.deepcopy(cache))
        state2, cache2 = model.reorder(state, cache, index)
        nxt, _ = model.decode_step(batch.tgt_ids[index, -1], state2, cache2)
        assert torch.allclose(nxt.nan_to_num(neginf=0.0), ref[index].nan_to_num(neginf=0.0), atol=1e-4)


@pytest.mark.parametrize("copy_layer", [0, -1])
@pytest.mark.parametrize("name", ["bart", "t5"])
def test_copy_head_scores_give_the_models_own_cross_attention_weights(name: str, copy_layer: int) -> None:
    """The hook-derived scores of the copy head, softmaxed over real tokens, are the eager attention."""
    torch.manual_seed(0)
    cfg = {**TINY[name], "copy_layer": copy_layer, "copy_head": 1}
    model = build_model(cfg, SPEC, copy=True).eval()
    batch = copy_batch()
    inputs = {
        "attention_mask": batch.src_mask.long(),
        "decoder_inputs_embeds": model.tgt_embed(batch.tgt_ids[:, :-1]),
    }
    with torch.no_grad():
        state = model.encode(batch)
        model.model(encoder_outputs=(state["hidden"],), **inputs)
        ours = model._copy_scores(state).masked_fill(~batch.src_mask[:, None, :], float("-inf")).softmax(-1)
        model.model.set_attn_implementation("eager")
        out = model.model(encoder_outputs=(state["hidden"],), output_attentions=True, **inputs)
    theirs = out.cross_attentions[copy_layer][:, 1]
    assert torch.allclose(ours, theirs, atol=1e-5)
