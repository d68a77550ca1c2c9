"""Training loaders whose order is a function of (seed, epoch) only, so a resumed run sees the
same batches as an uninterrupted one."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sized
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class EpochShuffleSampler(Sampler[int]):
    """A fresh permutation per epoch from seed + epoch (no hidden generator state to save)."""

    def __init__(self, data: Sized, seed: int) -> None:
        self.size, self.seed, self.epoch = len(data), seed, 0

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def __iter__(self) -> Iterator[int]:
        order = torch.Generator().manual_seed(self.seed + self.epoch)
        return iter(torch.randperm(self.size, generator=order).tolist())

    def __len__(self) -> int:
        return self.size


def make_train_loader(
    dataset: Dataset,
    batch_size: int,
    collate_fn: Callable[[list[Any]], Any],
    seed: int,
    num_workers: int = 0,
    drop_last: bool = False,
) -> DataLoader:
    """Shuffled loader for `train`.

    The loader gets a generator of its own: DataLoader draws a worker base seed from it at every
    `iter()`, which would otherwise consume the global torch RNG and shift dropout masks after a
    mid-epoch resume.
    """
    return DataLoader(
        dataset,  # type: ignore[arg-type]
        batch_size=batch_size,
        sampler=EpochShuffleSampler(dataset, seed),  # type: ignore[arg-type]
        collate_fn=collate_fn,
        num_workers=num_workers,
        drop_last=drop_last,
        generator=torch.Generator().manual_seed(seed),
    )
