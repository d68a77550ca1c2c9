"""Milliseconds per optimizer step of a run's model on its prepared training data, in one process.

A step here is what `train` does per batch: forward, loss, backward, gradient clipping, the optimizer
(`training/optim.build_optimizer`) and the moving average of the weights (`training/ema`), without
validation, logging or checkpoints, so settings that change only the step's cost (an optimizer kernel,
a dropout) are compared without the noise of whole epochs. The data is the run config's prepared
splits (`nmt-sparql train` prepares them once; `data.dir=...` to point at them); any Hydra override of
`conf/train.yaml` selects the variant. Each repeat builds the model afresh from the seed and times
`--steps` steps after `--warmup`; the figure is the median over repeats.

    python scripts/bench_train_step.py --repeats 3 -- data.dir=/tmp/data
    python scripts/bench_train_step.py --repeats 3 -- data.dir=/tmp/data model.attention_dropout=0.0
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from pathlib import Path

import torch
from hydra import compose, initialize_config_dir
from omegaconf import DictConfig, OmegaConf

from nmt_sparql.atomic import atomic_write_text
from nmt_sparql.commands.train import training_inputs
from nmt_sparql.preparation.prepare import load_splits
from nmt_sparql.training.config import TrainConfig
from nmt_sparql.training.ema import moving_average
from nmt_sparql.training.loss import sequence_nll
from nmt_sparql.training.optim import build_optimizer

CONF = Path(__file__).resolve().parents[1] / "conf"


def time_steps(cfg: DictConfig, steps: int, warmup: int) -> dict[str, float]:
    """One repeat: ms per step and examples/s over `steps` steps after `warmup`."""
    model_cfg = OmegaConf.to_container(cfg.model, resolve=True)
    _, model, loop, loader, _ = training_inputs(cfg, load_splits(cfg), model_cfg)
    model.train()
    settings = TrainConfig.from_any(loop)
    optimizer = build_optimizer(settings.optimizer, model.parameters())
    ema = None if settings.ema_decay is None else moving_average(model, settings.ema_decay)
    batches = itertools.islice(itertools.cycle(loader), warmup + steps)
    examples, start = 0, 0.0
    for i, batch in enumerate(batches):
        if i == warmup:
            start = time.perf_counter()
        losses, counts = sequence_nll(model(batch), batch.tgt_ids[:, 1:], model.pad_id)
        (losses.sum() / counts.sum().clamp(min=1)).backward()
        if settings.clip_norm:
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.clip_norm)
        optimizer.step()
        optimizer.zero_grad()
        if ema is not None:
            ema.update_parameters(model)
        examples += len(batch) if i >= warmup else 0
    elapsed = time.perf_counter() - start
    return {"ms_per_step": 1000 * elapsed / steps, "examples_per_s": examples / elapsed}


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("overrides", nargs="*", help="Hydra overrides of conf/train.yaml")
    parser.add_argument("--steps", type=positive, default=240)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--repeats", type=positive, default=3)
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()
    with initialize_config_dir(config_dir=str(CONF), version_base=None):
        cfg = compose("train", overrides=args.overrides)
    runs = [time_steps(cfg, args.steps, args.warmup) for _ in range(args.repeats)]
    result = {
        "overrides": args.overrides,
        "threads": torch.get_num_threads(),
        "ms_per_step": statistics.median(r["ms_per_step"] for r in runs),
        "examples_per_s": statistics.median(r["examples_per_s"] for r in runs),
        "repeats": runs,
    }
    print(json.dumps(result))
    if args.out:
        atomic_write_text(args.out, json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
