"""The cached, batched decoders return exactly what the uncached reference computes, whatever
the batch size, and really drop finished rows from the work."""

from __future__ import annotations

import pytest
import torch
from reference_decoding import TeacherForcedStepper, reference_greedy
from test_decoding_tiny_model import VOCAB, collate, make_examples, one_thread, trained_model  # noqa: F401

from nmt_sparql.core.interface import Batch
from nmt_sparql.decoding import beam_search, greedy

MAX_LEN = 12


class CountingModel:
    """Delegates to a model and records the batch size of every decode_step call."""

    def __init__(self, model: torch.nn.Module) -> None:
        self.model, self.sizes = model, []
        self.vocab_size, self.copy = model.vocab_size, model.copy
        self.pad_id, self.bos_id, self.eos_id = model.pad_id, model.bos_id, model.eos_id
        self.parameters = model.parameters

    def encode(self, batch: Batch):
        return self.model.encode(batch)

    def decode_step(self, tokens, state, cache):
        self.sizes.append(tokens.size(0))
        return self.model.decode_step(tokens, state, cache)

    def reorder(self, state, cache, index):
        return self.model.reorder(state, cache, index)


@pytest.mark.parametrize("copy", [True, False])
def test_greedy_equals_uncached_reference(copy: bool) -> None:
    model = trained_model(copy=copy)
    batch = collate(make_examples(9, seed=3, copy=copy))
    cached = greedy(model, batch, MAX_LEN)
    assert cached == reference_greedy(model, batch, MAX_LEN)
    assert len({len(ids) for ids in cached}) > 1  # rows finish at different steps
    assert any(token >= VOCAB for ids in cached for token in ids) == copy  # copy pointers are kept


def test_beam_equals_uncached_beam() -> None:
    model = trained_model()
    batch = collate(make_examples(6, seed=4))
    cached = beam_search(model, batch, beam=4, max_len=MAX_LEN, n_best=4)
    uncached = beam_search(TeacherForcedStepper(model), batch, beam=4, max_len=MAX_LEN, n_best=4)
    assert [[ids for ids, _ in hyps] for hyps in cached] == [[ids for ids, _ in hyps] for hyps in uncached]
    for a, b in zip(cached, uncached):
        assert [s for _, s in a] == pytest.approx([s for _, s in b], abs=1e-5)
        assert [s for _, s in a] == sorted((s for _, s in a), reverse=True)


def test_beam_scores_are_length_normalised_sequence_log_probs() -> None:
    model = trained_model()
    examples = make_examples(4, seed=5)
    for penalty in (0.0, 1.0):
        hyps = beam_search(
            model, collate(examples), beam=3, max_len=MAX_LEN, n_best=3, length_penalty=penalty
        )
        for (src, slots, _), found in zip(examples, hyps):
            for ids, score in found:
                target = [model.bos_id, *ids, model.eos_id][: MAX_LEN + 1]
                with torch.no_grad():
                    lp = model(collate([(src, slots, [*target, model.pad_id])]))[0]
                total = lp[torch.arange(len(target) - 1), torch.tensor(target[1:])].sum()
                assert score == pytest.approx(total.item() / (len(target) - 1) ** penalty, abs=1e-4)


@pytest.mark.parametrize("batch_size", [1, 3, 7])
def test_batch_size_does_not_change_outputs(batch_size: int) -> None:
    model = trained_model()
    examples = make_examples(7, seed=6)
    alone = [greedy(model, collate([ex]), MAX_LEN)[0] for ex in examples]
    alone_beam = [beam_search(model, collate([ex]), 3, MAX_LEN, n_best=2)[0] for ex in examples]
    chunks = [examples[i : i + batch_size] for i in range(0, len(examples), batch_size)]
    batched = [ids for chunk in chunks for ids in greedy(model, collate(chunk), MAX_LEN)]
    batched_beam = [h for chunk in chunks for h in beam_search(model, collate(chunk), 3, MAX_LEN, n_best=2)]
    assert batched == alone
    assert [[ids for ids, _ in h] for h in batched_beam] == [[ids for ids, _ in h] for h in alone_beam]
    for got, want in zip(batched_beam, alone_beam):
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-5)


def test_beam_of_one_is_greedy() -> None:
    model = trained_model()
    batch = collate(make_examples(9, seed=8))
    assert [h[0][0] for h in beam_search(model, batch, beam=1, max_len=MAX_LEN)] == greedy(
        model, batch, MAX_LEN
    )


def test_greedy_drops_finished_rows_and_stops_when_all_are_done() -> None:
    counting = CountingModel(trained_model())
    batch = collate(make_examples(9, seed=3))
    outputs = greedy(counting, batch, max_len=50)
    lengths = sorted(len(ids) for ids in outputs)
    assert len(counting.sizes) == lengths[-1] + 1 < 50  # the longest row's EOS ends decoding
    # after step t only the rows longer than t tokens are still computed
    assert counting.sizes == [sum(n >= t for n in lengths) for t in range(len(counting.sizes))]


def test_beam_drops_finished_examples() -> None:
    counting = CountingModel(trained_model())
    beam = 3
    beam_search(counting, collate(make_examples(9, seed=3)), beam=beam, max_len=50)
    sizes = counting.sizes
    assert sizes[0] == 9 and sizes[1] == 9 * beam and len(sizes) < 50
    assert all(s % beam == 0 for s in sizes[1:]) and sizes == [sizes[0], *sorted(sizes[1:], reverse=True)]
    assert sizes[-1] < sizes[1]


def test_decoding_is_deterministic_and_restores_training_mode() -> None:
    model = trained_model()
    batch = collate(make_examples(9, seed=3))
    model.train()  # dropout on: the decoders must switch it off, then give the mode back
    try:
        first = greedy(model, batch, MAX_LEN)
        assert model.training
        assert greedy(model, batch, MAX_LEN) == first == reference_greedy(model, batch, MAX_LEN)
    finally:
        model.eval()


def test_max_len_caps_every_output() -> None:
    model = trained_model()
    batch = collate(make_examples(9, seed=3))
    assert max(len(ids) for ids in greedy(model, batch, 2)) == 2
    assert all(len(h[0][0]) <= 2 for h in beam_search(model, batch, 2, 2))
    with pytest.raises(ValueError, match="n_best"):
        beam_search(model, batch, beam=2, max_len=4, n_best=3)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_decoding_follows_the_model_to_cuda() -> None:
    model = trained_model()
    batch = collate(make_examples(7, seed=6))
    want = greedy(model, batch, MAX_LEN)
    try:
        model.cuda()
        assert greedy(model, batch, MAX_LEN) == want  # the CPU batch is moved to the model's device
        assert [h[0][0] for h in beam_search(model, batch, 1, MAX_LEN)] == want
    finally:
        model.cpu()
