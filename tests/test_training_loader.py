"""The training order: a function of (seed, epoch) only, grouped by length when lengths are given."""

from __future__ import annotations

import random

from nmt_sparql.training.loader import EpochShuffleSampler, PerEpoch, make_train_loader


def _spread(batches: list[list[int]], lengths: list[int]) -> float:
    """Mean (longest - shortest) length within a batch: what padding costs."""
    return sum(max(lengths[i] for i in b) - min(lengths[i] for i in b) for b in batches) / len(batches)


def test_length_grouped_batches_pad_less_and_keep_every_example_once() -> None:
    rng = random.Random(0)
    lengths = [rng.randint(5, 60) for _ in range(1000)]
    grouped = make_train_loader(list(range(1000)), 16, list, seed=7, lengths=lengths)
    plain = make_train_loader(list(range(1000)), 16, list, seed=7)

    batches = list(grouped)
    assert sorted(i for b in batches for i in b) == list(range(1000))
    assert _spread(batches, lengths) < _spread(list(plain), lengths) / 4


def test_the_grouped_order_depends_on_seed_and_epoch_only() -> None:
    lengths = [i % 37 for i in range(300)]
    first, again = (
        EpochShuffleSampler(range(300), 3, lengths, 8),
        EpochShuffleSampler(range(300), 3, lengths, 8),
    )
    assert list(first) == list(again)
    first.set_epoch(1)
    assert list(first) != list(again)
    again.set_epoch(1)
    assert list(first) == list(again)


def test_a_per_epoch_dataset_gets_its_epoch_with_grouped_indices() -> None:
    data = PerEpoch(40, lambda epoch, i: (epoch, i))
    sampler = EpochShuffleSampler(data, 0, [i % 5 for i in range(40)], 4)
    sampler.set_epoch(2)
    keys = list(sampler)
    assert {e for e, _ in keys} == {2} and sorted(i for _, i in keys) == list(range(40))
