"""best/ holds the lowest validation loss, early stopping and step limits end runs where they
should, and the loss is the pad-free NLL over the extended output space."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from accelerate import Accelerator
from test_decoding_tiny_model import VOCAB, TinySeq2Seq, collate, make_examples, one_thread  # noqa: F401
from torch.utils.data import DataLoader

from nmt_sparql.decoding import greedy
from nmt_sparql.training import TrainConfig, evaluate, load_weights, make_train_loader, sequence_nll, train

BASE = {
    "seed": 0,
    "max_epochs": 4,
    "log_every_steps": 0,
    "progress_bar": False,
    "optimizer": {"name": "sgd", "lr": 0.5, "momentum": 0.9},
}


def fit(out: Path, **overrides):
    torch.manual_seed(0)
    model = TinySeq2Seq(dim=16)
    train_loader = make_train_loader(make_examples(16, seed=21), 4, collate, seed=0)
    val_loader = DataLoader(make_examples(8, seed=22), batch_size=4, collate_fn=collate)
    return model, val_loader, train({**BASE, **overrides}, model, train_loader, val_loader, out)


def epoch_records(out: Path) -> list[dict]:
    lines = (out / "train_log.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["event"] == "epoch"]


def test_best_checkpoint_has_the_lowest_validation_loss(tmp_path: Path) -> None:
    model, val_loader, result = fit(tmp_path, max_epochs=5, optimizer={"name": "sgd", "lr": 3.0})
    epochs = epoch_records(tmp_path)
    losses = [r["val_loss"] for r in epochs]
    best_epoch = losses.index(min(losses)) + 1
    assert best_epoch < len(epochs)  # this lr overshoots: the best is not simply the last epoch
    assert result.state.best_epoch == best_epoch and result.state.best_val_loss == min(losses)
    assert json.loads((tmp_path / "best" / "state.json").read_text())["epoch"] == best_epoch
    assert json.loads((tmp_path / "last" / "state.json").read_text())["epoch"] == len(epochs) == 5
    load_weights(tmp_path / "best", model)
    assert evaluate(model, val_loader, Accelerator(cpu=True), model.pad_id).loss == pytest.approx(min(losses))


def test_early_stopping_after_patience_epochs_without_improvement(tmp_path: Path) -> None:
    # min_delta is out of reach, so only the first epoch counts as an improvement
    _, _, result = fit(tmp_path, max_epochs=10, patience=2, min_delta=100.0)
    assert result.stop_reason == "early_stopping"
    assert [r["epoch"] for r in epoch_records(tmp_path)] == [1, 2, 3]
    assert result.state.best_epoch == 1 and result.state.bad_epochs == 2
    assert json.loads((tmp_path / "best" / "state.json").read_text())["epoch"] == 1


def test_max_steps_stops_mid_epoch_and_a_finished_run_does_not_restart(tmp_path: Path) -> None:
    _, _, result = fit(tmp_path, max_steps=6)  # 4 steps per epoch
    assert result.stop_reason == "max_steps" and result.state.step == 6
    state = json.loads((tmp_path / "last" / "state.json").read_text())
    assert (state["epoch"], state["batch_in_epoch"]) == (1, 2)
    stop = json.loads((tmp_path / "train_log.jsonl").read_text().splitlines()[-1])
    assert stop["event"] == "stop" and stop["reason"] == "max_steps" and math.isfinite(stop["val_loss"])
    _, _, again = fit(tmp_path, max_steps=6)
    assert again.state.step == 6 and len(epoch_records(tmp_path)) == 1


def test_time_budget_ends_the_run(tmp_path: Path) -> None:
    _, _, result = fit(tmp_path, max_epochs=None, time_budget_s=0.5)
    assert result.stop_reason == "time_budget" and result.state.elapsed_s >= 0.5


def test_loss_ignores_pad_and_smooths_only_over_reachable_classes() -> None:
    log_probs = torch.log_softmax(torch.randn(2, 3, VOCAB + 2), -1)
    log_probs[0, :, VOCAB + 1] = -torch.inf  # example 0 has one slot only
    log_probs[0] = log_probs[0].log_softmax(-1)
    targets = torch.tensor([[5, VOCAB, 0], [4, VOCAB + 1, 2]])
    loss, count = sequence_nll(log_probs, targets, pad_id=0)
    assert count.tolist() == [2, 3]
    assert loss[0].item() == pytest.approx(-(log_probs[0, 0, 5] + log_probs[0, 1, VOCAB]).item())
    smoothed, _ = sequence_nll(log_probs, targets, pad_id=0, label_smoothing=0.1)
    assert torch.isfinite(smoothed).all()
    uniform = -log_probs[0, 0, : VOCAB + 1].mean()
    want = 0.9 * -log_probs[0, 0, 5] + 0.1 * uniform
    assert sequence_nll(log_probs[:1, :1], targets[:1, :1], 0, 0.1)[0].item() == pytest.approx(want.item())
    with pytest.raises(ValueError, match="outside the model's output space"):
        sequence_nll(log_probs, torch.full((2, 3), VOCAB + 2), pad_id=0)


def test_bad_config_names_the_key() -> None:
    with pytest.raises(ValueError, match="optimiser"):
        TrainConfig.from_any({"optimiser": {"name": "adam"}})
    with pytest.raises(ValueError, match="optimizer.name"):
        TrainConfig.from_any({"optimizer": {"name": "lion"}})


def test_select_by_exact_match_keeps_the_epoch_that_decodes_best(tmp_path: Path) -> None:
    """This lr overfits: the loss is lowest at epoch 2, while greedy decoding is best from epoch 3 on."""
    model, val_loader, result = fit(
        tmp_path, max_epochs=5, select_by="exact_match", optimizer={"name": "adam", "lr": 0.1}
    )
    epochs = epoch_records(tmp_path)
    exacts, losses = [r["val_exact"] for r in epochs], [r["val_loss"] for r in epochs]
    top = max(exacts)
    want = min((losses[i], i + 1) for i, e in enumerate(exacts) if e == top)[1]  # ties: the lower loss
    assert want != losses.index(min(losses)) + 1
    assert result.state.best_epoch == want and result.state.best_val_exact == top > 0
    load_weights(tmp_path / "best", model)
    assert greedy_exact_match(model, val_loader) == top
    with pytest.raises(ValueError, match="select_by"):
        TrainConfig.from_any({"select_by": "bleu"})


def greedy_exact_match(model, loader: DataLoader) -> float:
    hits, total = 0, 0
    for batch in loader:
        for predicted, target in zip(
            greedy(model, batch, max_len=batch.tgt_ids.size(1)), batch.tgt_ids[:, 1:].tolist()
        ):
            hits += predicted == target[: target.index(model.eos_id)]
            total += 1
    return hits / total


def test_validation_exact_match_is_what_greedy_decoding_gets_exactly_right(tmp_path: Path) -> None:
    """Scored from the teacher-forced pass, checked against real decoding after each of 4 epochs."""
    exacts = []
    for epochs in range(1, 5):
        model, val_loader, _ = fit(
            tmp_path / str(epochs), max_epochs=epochs, optimizer={"name": "adam", "lr": 0.1}
        )
        logged = epoch_records(tmp_path / str(epochs))[-1]["val_exact"]
        assert evaluate(model, val_loader, Accelerator(cpu=True), model.pad_id).exact == logged
        assert greedy_exact_match(model, val_loader) == logged
        exacts.append(logged)
    assert len(set(exacts)) > 1  # the check saw several different scores
