"""Checkpoints hold no pickle, round-trip optimizer/scheduler/RNG state exactly, and a crash
while saving never destroys the previous checkpoint."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from test_decoding_tiny_model import TinySeq2Seq, collate, make_examples, one_thread  # noqa: F401

import nmt_sparql.training.checkpoint as checkpoint
from nmt_sparql.training import (
    SchedulerConfig,
    TrainState,
    load_checkpoint,
    load_weights,
    resolve_checkpoint,
    save_checkpoint,
)
from nmt_sparql.training.optim import build_scheduler


def trained_objects(seed: int, steps: int = 2):
    torch.manual_seed(seed)
    model = TinySeq2Seq(dim=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    scheduler = build_scheduler(SchedulerConfig(name="polynomial", warmup_steps=1), optimizer, total_steps=10)
    batch = collate(make_examples(4, seed=seed))
    for _ in range(steps):
        lp = model(batch)
        loss = -lp.gather(-1, batch.tgt_ids[:, 1:, None]).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
    return model, optimizer, scheduler


def test_round_trip_without_pickle(tmp_path: Path) -> None:
    model, optimizer, scheduler = trained_objects(seed=0)
    random.seed(7)
    np.random.seed(7)
    torch.manual_seed(7)
    save_checkpoint(
        tmp_path / "last",
        model,
        TrainState(epoch=2, step=5, best_val_loss=1.5),
        optimizer,
        scheduler,
        model_config={"dim": 8},
    )
    expected = (random.random(), np.random.rand(), torch.rand(3))
    assert {p.suffix for p in (tmp_path / "last").iterdir()} == {".json", ".safetensors"}

    fresh, fresh_opt, fresh_sched = trained_objects(seed=1, steps=1)
    state = load_checkpoint(tmp_path / "last", fresh, fresh_opt, fresh_sched)
    assert (state.epoch, state.step, state.best_val_loss) == (2, 5, 1.5)
    assert (random.random(), np.random.rand()) == expected[:2] and torch.equal(torch.rand(3), expected[2])
    for a, b in zip(model.state_dict().values(), fresh.state_dict().values()):
        assert torch.equal(a, b)
    saved, loaded = optimizer.state_dict(), fresh_opt.state_dict()
    assert saved["param_groups"] == loaded["param_groups"]
    for pid, slots in saved["state"].items():
        assert all(torch.equal(v, loaded["state"][pid][k]) for k, v in slots.items())
    assert fresh_sched.state_dict() == scheduler.state_dict()
    assert json.loads((tmp_path / "last" / "model_config.json").read_text()) == {"dim": 8}


def test_failure_mid_write_keeps_the_previous_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, opt, sched = trained_objects(seed=0)
    save_checkpoint(tmp_path / "last", first, TrainState(step=1), opt, sched)
    second, opt2, sched2 = trained_objects(seed=1)

    def disk_full(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(checkpoint, "save_model", disk_full)  # dies after the RNG files, before the rest
    with pytest.raises(OSError, match="No space"):
        save_checkpoint(tmp_path / "last", second, TrainState(step=2), opt2, sched2)
    monkeypatch.undo()

    probe = TinySeq2Seq(dim=8)
    assert load_checkpoint(tmp_path / "last", probe, restore_rng=False).step == 1
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), probe.state_dict().values()))

    save_checkpoint(tmp_path / "last", second, TrainState(step=2), opt2, sched2)  # the next save succeeds
    assert load_checkpoint(tmp_path / "last", probe, restore_rng=False).step == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last"]  # no temporary leftovers


def test_crash_between_the_renames_recovers_the_old_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, _, _ = trained_objects(seed=0)
    save_checkpoint(tmp_path / "last", first, TrainState(step=1))
    real_replace = os.replace

    def crash_on_swap_in(src, dst):
        if Path(src).name == ".last.tmp":
            raise OSError("killed")
        real_replace(src, dst)

    monkeypatch.setattr(checkpoint.os, "replace", crash_on_swap_in)
    with pytest.raises(OSError, match="killed"):
        save_checkpoint(tmp_path / "last", trained_objects(seed=1)[0], TrainState(step=2))
    monkeypatch.undo()
    assert not (tmp_path / "last").exists()  # the crash left only .last.old behind
    assert resolve_checkpoint(tmp_path / "last") == tmp_path / "last"
    probe = TinySeq2Seq(dim=8)
    load_weights(tmp_path / "last", probe)
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), probe.state_dict().values()))


def test_mismatched_model_is_a_clear_error(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "last", TinySeq2Seq(dim=8), TrainState())
    with pytest.raises(ValueError, match="model.safetensors: missing"):
        load_weights(tmp_path / "last", torch.nn.Sequential(torch.nn.Linear(2, 2)))
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        load_weights(tmp_path / "nothing", TinySeq2Seq(dim=8))
