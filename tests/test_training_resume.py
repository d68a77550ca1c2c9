"""An interrupted run resumed from last/ ends with bit-identical weights to an uninterrupted one
(dropout, gradient accumulation, clipping, warmup + polynomial decay, label smoothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from test_decoding_tiny_model import TinySeq2Seq, collate, make_examples, one_thread  # noqa: F401
from torch.utils.data import DataLoader

from nmt_sparql.training import make_train_loader, train

CONFIG = {
    "seed": 0,
    "max_epochs": 3,
    "grad_accum_steps": 2,
    "clip_norm": 1.0,
    "label_smoothing": 0.1,
    "save_every_steps": 2,
    "log_every_steps": 1,
    "progress_bar": False,
    "optimizer": {"name": "adam", "lr": 0.01},
    "scheduler": {"name": "polynomial", "warmup_steps": 2, "total_steps": 9},
}


class Preempted(RuntimeError):
    pass


class CrashingData(torch.utils.data.Dataset):
    """Raises on the n-th item fetch, like a job killed in the middle of an epoch."""

    def __init__(self, examples: list, crash_at: int | None) -> None:
        self.examples, self.crash_at, self.fetched = examples, crash_at, 0

    def __len__(self) -> int:
        return len(self.examples)

    def __getitem__(self, index: int):
        self.fetched += 1
        if self.fetched == self.crash_at:
            raise Preempted("simulated preemption")
        return self.examples[index]


def run(out: Path, crash_at: int | None = None, init_seed: int = 0, **overrides) -> TinySeq2Seq:
    torch.manual_seed(init_seed)
    model = TinySeq2Seq(copy=True, dim=16, dropout=0.2)
    data = CrashingData(make_examples(24, seed=11), crash_at)
    train_loader = make_train_loader(data, batch_size=4, collate_fn=collate, seed=5)
    val_loader = DataLoader(make_examples(8, seed=12), batch_size=4, collate_fn=collate)
    train({**CONFIG, **overrides}, model, train_loader, val_loader, out)
    return model


def records(out: Path) -> list[dict]:
    timing = {"examples_per_s", "tokens_per_s", "epoch_time_s", "elapsed_s"}
    lines = (out / "train_log.jsonl").read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in timing} for line in lines]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, TinySeq2Seq]:
    out = tmp_path_factory.mktemp("full")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as in every test (one_thread): float sums depend on the thread count
    try:
        return out, run(out)
    finally:
        torch.set_num_threads(threads)


def assert_same_run(a: Path, model_a: TinySeq2Seq, b: Path, model_b: TinySeq2Seq) -> None:
    for (name, pa), (_, pb) in zip(model_a.named_parameters(), model_b.named_parameters()):
        assert torch.equal(pa, pb), name
    for name in ("model", "optimizer", "scheduler"):
        files = [(d / "last" / f"{name}.safetensors") for d in (a, b)]
        if files[0].exists():
            ta, tb = load_file(files[0]), load_file(files[1])
            assert ta.keys() == tb.keys() and all(torch.equal(ta[k], tb[k]) for k in ta), name
    state = [json.loads((d / "last" / "state.json").read_text()) for d in (a, b)]
    assert {k: v for k, v in state[0].items() if k != "elapsed_s"} == {
        k: v for k, v in state[1].items() if k != "elapsed_s"
    }
    assert records(a) == records(b)


def test_resume_after_a_crash_mid_epoch_is_exact(uninterrupted, tmp_path: Path) -> None:
    full_dir, full_model = uninterrupted
    # 6 batches of 4 per epoch: fetch 24 + 4 * 3 + 2 is inside the 4th batch of epoch 2,
    # after the mid-epoch save at step 4 (batch 2 of epoch 2, since 2 batches make a step).
    with pytest.raises(Preempted):
        run(tmp_path, crash_at=24 + 4 * 3 + 2)
    state = json.loads((tmp_path / "last" / "state.json").read_text())
    assert (state["epoch"], state["batch_in_epoch"], state["step"]) == (1, 2, 4)
    resumed = run(tmp_path, init_seed=123)  # a different init: the checkpoint must overwrite it
    assert_same_run(full_dir, full_model, tmp_path, resumed)


def test_stop_at_an_epoch_end_then_continue_is_exact(uninterrupted, tmp_path: Path) -> None:
    full_dir, full_model = uninterrupted
    run(tmp_path, max_epochs=1)
    assert json.loads((tmp_path / "last" / "state.json").read_text())["epoch"] == 1
    resumed = run(tmp_path, init_seed=123)
    assert_same_run(full_dir, full_model, tmp_path, resumed)


def test_uninterrupted_run_trains(uninterrupted) -> None:
    full_dir, _ = uninterrupted
    epochs = [r for r in records(full_dir) if r["event"] == "epoch"]
    assert [r["epoch"] for r in epochs] == [1, 2, 3] and epochs[-1]["step"] == 9
    assert epochs[-1]["train_loss"] < epochs[0]["train_loss"]
    lines = [json.loads(line) for line in (full_dir / "train_log.jsonl").read_text().splitlines()]
    assert all(r["examples_per_s"] > 0 for r in lines if r["event"] == "epoch")
