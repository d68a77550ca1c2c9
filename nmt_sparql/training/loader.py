"""Training loaders whose order is a function of (seed, epoch) only, so a resumed run sees the
same batches as an uninterrupted one."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence, Sized
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, Sampler
from transformers.trainer_pt_utils import get_length_grouped_indices

from nmt_sparql.annotation.annotate import reshuffle_tail


class PerEpoch(Dataset):
    """Items made afresh from (epoch, index) by `make`: data augmentation a resumed run repeats exactly.

    Indexed by `(epoch, index)` pairs, which `EpochShuffleSampler` yields for it: the epoch travels
    with the index, so no dataset state needs to reach loader workers or other processes.
    """

    def __init__(self, size: int, make: Callable[[int, int], Any]) -> None:
        self.size, self.make = size, make

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: tuple[int, int]) -> Any:
        epoch, index = key
        if not 0 <= index < self.size:
            raise IndexError(f"index {index} out of range for {self.size} items")
        return self.make(epoch, index)


class EpochShuffleSampler(Sampler):
    """A fresh permutation per epoch from seed + epoch (no hidden generator state to save).

    Yields plain indices, or `(epoch, index)` pairs for a `PerEpoch` dataset. With `lengths`, the
    permutation is grouped by length (transformers' `get_length_grouped_indices`: each run of
    `batch_size` indices holds examples of similar length, from mega-batches of 50 batches), the batches
    in a random order, so a batch pads little: about a third fewer token positions on the bundled linked
    questions.
    """

    def __init__(
        self, data: Sized, seed: int, lengths: Sequence[int] | None = None, batch_size: int = 1
    ) -> None:
        self.size, self.seed, self.epoch = len(data), seed, 0
        self.with_epoch = isinstance(data, PerEpoch)
        if lengths is not None and len(lengths) != self.size:
            raise ValueError(f"{len(lengths)} lengths for {self.size} examples")
        self.lengths, self.batch_size = (list(lengths) if lengths is not None else None), batch_size

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self) -> Iterator[int | tuple[int, int]]:
        generator = torch.Generator().manual_seed(self.seed + self.epoch)
        if self.lengths is not None and self.size > self.batch_size:
            grouped = get_length_grouped_indices(self.lengths, self.batch_size, generator=generator)
            batches = [grouped[i : i + self.batch_size] for i in range(0, self.size, self.batch_size)]
            full = len(batches) - (self.size % self.batch_size > 0)  # a short batch stays last
            shuffled = torch.randperm(full, generator=generator).tolist() + list(range(full, len(batches)))
            order = torch.tensor([i for k in shuffled for i in batches[k]])
        else:
            order = torch.randperm(self.size, generator=generator)
        if self.with_epoch:
            return iter([(self.epoch, i) for i in order.tolist()])
        return iter(order.tolist())

    def __len__(self) -> int:
        return self.size


def make_train_loader(
    dataset: Dataset,
    batch_size: int,
    collate_fn: Callable[[list[Any]], Any],
    seed: int,
    num_workers: int = 0,
    drop_last: bool = False,
    lengths: Sequence[int] | None = None,
) -> DataLoader:
    """Shuffled loader for `train` (grouped by length when `lengths` are given: `EpochShuffleSampler`).

    The loader gets a generator of its own: DataLoader draws a worker base seed from it at every
    `iter()`, which would otherwise consume the global torch RNG and shift dropout masks after a
    mid-epoch resume.
    """
    return DataLoader(
        dataset,  # type: ignore[arg-type]
        batch_size=batch_size,
        sampler=EpochShuffleSampler(dataset, seed, lengths, batch_size),  # type: ignore[arg-type]
        collate_fn=collate_fn,
        num_workers=num_workers,
        drop_last=drop_last,
        generator=torch.Generator().manual_seed(seed),
    )


def reshuffled_train_data(pairs: list[tuple[str, list[str]]], tokenizer: Any, seed: int) -> PerEpoch:
    """Training items whose appended `<sep> «token» label` units take a fresh order every epoch."""

    def make(epoch: int, index: int) -> Any:
        question, query = pairs[index]
        return tokenizer.encode(reshuffle_tail(question, random.Random(f"{seed}:{epoch}:{index}")), query)

    return PerEpoch(len(pairs), make)
