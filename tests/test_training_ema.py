"""train.ema_decay: a warmed-up moving average of the weights is what validation scores and best/
keeps, last/ carries it, and a resumed run ends with the same average as an uninterrupted one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from test_decoding_tiny_model import TinySeq2Seq, make_examples, one_thread  # noqa: F401
from test_training_resume import Preempted, assert_same_run, run
from test_training_selection import fit

from nmt_sparql.training.checkpoint import CheckpointError, TrainState, load_checkpoint, save_checkpoint
from nmt_sparql.training.config import TrainConfig
from nmt_sparql.training.ema import moving_average


def test_the_average_starts_at_the_weights_and_its_decay_warms_up() -> None:
    model = torch.nn.Linear(1, 1, bias=False)
    average = moving_average(model, decay=0.99)
    with torch.no_grad():
        model.weight.fill_(1.0)
        average.update_parameters(model)  # the first update copies
        assert float(average.module.weight.detach()) == 1.0
        model.weight.fill_(0.0)
        average.update_parameters(model)  # one update before: decay (1 + 1) / (10 + 1), not 0.99
    assert float(average.module.weight.detach()) == pytest.approx(2 / 11)


def test_best_holds_the_average_and_last_holds_the_weights_and_the_average(tmp_path: Path) -> None:
    fit(tmp_path, max_epochs=1, ema_decay=0.9)  # one epoch: its validation is best/
    best = load_file(str(tmp_path / "best" / "model.safetensors"))
    last = load_file(str(tmp_path / "last" / "model.safetensors"))
    average = load_file(str(tmp_path / "last" / "ema.safetensors"))
    assert not (tmp_path / "best" / "ema.safetensors").exists()
    assert best.keys() == last.keys()
    assert all(torch.equal(best[k], average[f"module.{k}"]) for k in best)
    assert any(not torch.equal(best[k], last[k]) for k in best)
    validated = json.loads((tmp_path / "last" / "state.json").read_text())["best_val_loss"]
    plain = tmp_path / "plain"  # the same run without the average validates other weights
    fit(plain, max_epochs=1)
    assert json.loads((plain / "last" / "state.json").read_text())["best_val_loss"] != validated


def test_resume_with_a_moving_average_is_exact(tmp_path: Path) -> None:
    full, cut = tmp_path / "full", tmp_path / "cut"
    full_model = run(full, ema_decay=0.9)
    with pytest.raises(Preempted):
        run(cut, crash_at=24 + 4 * 3 + 2, ema_decay=0.9)
    resumed = run(cut, init_seed=123, ema_decay=0.9)
    assert_same_run(full, full_model, cut, resumed)
    for name in ("last/ema", "best/model"):
        a, b = (load_file(str(d / f"{name}.safetensors")) for d in (full, cut))
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a), name


def test_resuming_a_run_without_an_average_names_the_missing_file(tmp_path: Path) -> None:
    model = TinySeq2Seq(dim=8)
    save_checkpoint(tmp_path / "last", model, TrainState())
    with pytest.raises(CheckpointError, match=r"last/ema.safetensors: missing"):
        load_checkpoint(tmp_path / "last", model, ema=moving_average(model, 0.9), restore_rng=False)


def test_a_decay_outside_zero_to_one_is_refused_by_name() -> None:
    for bad in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="ema_decay must be in"):
            TrainConfig.from_any({"ema_decay": bad})


def test_integer_buffers_are_copied_not_averaged() -> None:
    model = torch.nn.Linear(1, 1, bias=False)
    model.register_buffer("seen", torch.tensor(0))
    average = moving_average(model, decay=0.99)
    with torch.no_grad():
        for seen in (1, 7):
            model.seen.fill_(seen)
            average.update_parameters(model)
    assert average.module.seen.dtype == torch.long and int(average.module.seen) == 7
