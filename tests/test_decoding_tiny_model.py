"""A tiny real step model (GRU encoder-decoder, attention, optional masked-slot copy) for the
decoding and training tests, and the checks that it honours the step protocol of
nmt_sparql.core.interface: the cached decode_step must reproduce the teacher-forced forward.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator
from typing import Any

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from nmt_sparql.core.interface import Batch

PAD, BOS, EOS = 0, 1, 2
SRC_VOCAB = 14
MASK = SRC_VOCAB - 1  # source id of a masked KB element
VOCAB = 11  # decoder vocabulary V; copy ids are V + slot


class TinySeq2Seq(nn.Module):
    """GRU encoder-decoder whose cache is the decoder hidden state."""

    def __init__(self, copy: bool = True, dim: int = 24, dropout: float = 0.1) -> None:
        super().__init__()
        self.vocab_size, self.copy = VOCAB, copy
        self.pad_id, self.bos_id, self.eos_id = PAD, BOS, EOS
        self.src_emb = nn.Embedding(SRC_VOCAB, dim, padding_idx=PAD)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.init = nn.Linear(dim, dim)
        self.tgt_emb = nn.Embedding(VOCAB + 1, dim)  # row VOCAB: "a copied KB element" as decoder input
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.out = nn.Linear(2 * dim, VOCAB)
        self.gate = nn.Linear(2 * dim, 1)
        self.drop = nn.Dropout(dropout)

    def encode(self, batch: Batch) -> dict[str, torch.Tensor]:
        enc, _ = self.encoder(self.drop(self.src_emb(batch.src_ids)))
        mask = batch.src_mask.unsqueeze(-1).float()
        hidden = torch.tanh(self.init((enc * mask).sum(1) / mask.sum(1).clamp(min=1)))
        n_slots = int(batch.src_slots.max().item()) + 1 if batch.src_slots.numel() else 0
        slots = F.one_hot(batch.src_slots.clamp(min=0), max(n_slots, 1))[..., :n_slots].float()
        slots = slots * (batch.src_slots >= 0).unsqueeze(-1).float()
        return {"enc": enc, "mask": batch.src_mask, "slots": slots, "hidden": hidden}

    def _scores(self, state: dict[str, torch.Tensor], dec: torch.Tensor) -> torch.Tensor:
        """Decoder outputs (B, T, d) -> (B, T, V [+ n_slots]) log-probabilities."""
        logits = torch.einsum("btd,bsd->bts", dec, state["enc"]).masked_fill(
            ~state["mask"].unsqueeze(1), -1e9
        )
        feats = torch.cat([dec, logits.softmax(-1) @ state["enc"]], dim=-1)
        vocab = self.out(self.drop(feats)).log_softmax(-1)
        if not self.copy:
            return vocab
        # Copy: attention restricted to the positions of each slot, renormalised over the slots.
        in_slot = torch.where(state["slots"] > 0, 0.0, -1e9).unsqueeze(1)  # (B, 1, S, n_slots)
        slot_lp = (logits.unsqueeze(-1) + in_slot).logsumexp(dim=2).log_softmax(-1)
        absent = (state["slots"].sum(1) == 0).unsqueeze(1)  # a slot the example does not have: log 0
        gate = self.gate(feats).masked_fill(absent.all(-1, keepdim=True), 1e9)  # nothing to copy
        return torch.cat(
            [F.logsigmoid(gate) + vocab, (F.logsigmoid(-gate) + slot_lp).masked_fill(absent, -torch.inf)], -1
        )

    def _embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.drop(self.tgt_emb(tokens.clamp(max=VOCAB)))

    def forward(self, batch: Batch) -> torch.Tensor:
        state = self.encode(batch)
        dec, _ = self.decoder(self._embed(batch.tgt_ids[:, :-1]), state["hidden"].unsqueeze(0))
        return self._scores(state, dec)

    def decode_step(self, tokens: torch.Tensor, state: dict, cache: Any | None) -> tuple[torch.Tensor, Any]:
        hidden = state["hidden"].unsqueeze(0) if cache is None else cache
        dec, hidden = self.decoder(self._embed(tokens).unsqueeze(1), hidden)
        return self._scores(state, dec)[:, 0], hidden

    def reorder(self, state: dict, cache: Any, index: torch.Tensor) -> tuple[dict, Any]:
        return {k: v.index_select(0, index) for k, v in state.items()}, cache.index_select(1, index)


@pytest.fixture(autouse=True)
def one_thread() -> Iterator[None]:
    """Tiny tensors: threads only add overhead, and the test machine's cores are shared."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


Example = tuple[list[int], list[int], list[int]]  # source ids, source slots, target ids (BOS ... EOS)


def make_examples(n: int, seed: int, copy: bool = True) -> list[Example]:
    """Translate each source word to a target word; with copy, masked KB elements become copy ids."""
    rng = random.Random(seed)
    examples = []
    for _ in range(n):
        src, slots, tgt = [], [], [BOS]
        for _ in range(rng.randint(1, 7)):
            if copy and rng.random() < 0.25:
                slot = max(slots, default=-1) + 1
                src.append(MASK)
                slots.append(slot)
                tgt.append(VOCAB + slot)
            else:
                word = rng.randrange(3, MASK)
                src.append(word)
                slots.append(-1)
                tgt.append(3 + word % (VOCAB - 3))
        examples.append((src, slots, [*tgt, EOS]))
    return examples


def collate(examples: list[Example]) -> Batch:
    width = max(len(src) for src, _, _ in examples)
    depth = max(len(tgt) for _, _, tgt in examples)
    src_ids = torch.tensor([src + [PAD] * (width - len(src)) for src, _, _ in examples])
    slots = torch.tensor([sl + [-1] * (width - len(sl)) for _, sl, _ in examples])
    tgt_ids = torch.tensor([tgt + [PAD] * (depth - len(tgt)) for _, _, tgt in examples])
    return Batch(src_ids=src_ids, src_mask=src_ids != PAD, src_slots=slots, tgt_ids=tgt_ids)


@functools.cache
def trained_model(copy: bool = True, steps: int = 40) -> TinySeq2Seq:
    """Briefly fitted so that outputs have varied lengths and real copy pointers (not random init)."""
    torch.manual_seed(0)
    model = TinySeq2Seq(copy=copy)
    data = make_examples(256, seed=1, copy=copy)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    for step in range(steps):
        batch = collate(data[(step * 32) % 256 : (step * 32) % 256 + 32])
        lp = model(batch)
        target = batch.tgt_ids[:, 1:]
        loss = F.nll_loss(lp.reshape(-1, lp.size(-1)), target.reshape(-1), ignore_index=PAD)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval()


def test_cached_steps_reproduce_teacher_forced_forward() -> None:
    model = trained_model()
    batch = collate(make_examples(5, seed=7))
    with torch.no_grad():
        full = model(batch)
        state, cache, steps = model.encode(batch), None, []
        for t in range(batch.tgt_ids.size(1) - 1):
            lp, cache = model.decode_step(batch.tgt_ids[:, t], state, cache)
            steps.append(lp)
    torch.testing.assert_close(torch.stack(steps, dim=1), full, rtol=1e-5, atol=1e-5)


def test_copy_ids_follow_the_extended_space() -> None:
    model = trained_model()
    batch = collate(make_examples(5, seed=7))
    with torch.no_grad():
        lp = model(batch)
    n_slots = int(batch.src_slots.max()) + 1
    assert lp.size(-1) == VOCAB + n_slots
    assert torch.allclose(lp.exp().sum(-1), torch.ones(lp.shape[:2]), atol=1e-5)
    for row in range(len(batch)):  # a slot absent from an example cannot be copied
        for slot in range(n_slots):
            assert torch.isinf(lp[row, :, VOCAB + slot]).all() == bool((batch.src_slots[row] != slot).all())
