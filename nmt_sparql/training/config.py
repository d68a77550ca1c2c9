"""The training recipe's settings: one typed record, validated when read from Hydra/YAML/dicts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from nmt_sparql.models.registry import RECIPE_KEYS

OPTIMIZERS = ("sgd", "adam", "adamw")
SCHEDULERS = ("constant", "none", "polynomial")  # "none": constant LR (the models' configs say so)
PRECISIONS = ("no", "fp16", "bf16")
SELECTIONS = ("loss", "exact_match")


@dataclass
class OptimizerConfig:
    name: str = "adam"
    lr: float = 5e-4
    weight_decay: float = 0.0
    betas: list[float] = field(default_factory=lambda: [0.9, 0.98])
    eps: float = 1e-8
    momentum: float = 0.99  # SGD only (fairseq's ConvSeq2Seq recipe: Nesterov, 0.99)
    nesterov: bool = True


@dataclass
class SchedulerConfig:
    name: str = "constant"
    warmup_steps: int = 0
    total_steps: int | None = None  # None: max_steps, else max_epochs x optimizer steps per epoch
    end_lr: float = 0.0  # polynomial only
    power: float = 1.0


@dataclass
class TrainConfig:
    seed: int = 0
    batch_size: int = 32  # read by whoever builds the loaders (make_train_loader)
    group_by_length: bool = False  # batches of similar lengths (less padding), read by make_train_loader
    max_epochs: int | None = 100
    max_steps: int | None = None  # optimizer steps
    time_budget_s: float | None = None  # wall clock over all runs of this out_dir, resumes included
    grad_accum_steps: int = 1
    clip_norm: float | None = None
    label_smoothing: float = 0.0
    # Exponential moving average of the weights, updated every optimizer step: validation, best/ and
    # so evaluation and export use the average (a constant LR leaves the last weights noisy). None: off.
    ema_decay: float | None = None
    mixed_precision: str = "bf16"  # used on GPU only; CPU runs in full precision
    cpu: bool = False  # force CPU even when a GPU is visible
    compile: bool = False  # torch.compile the forward and decoding steps; falls back (logged) where it fails
    patience: int | None = None  # epochs without a better validation score before stopping
    min_delta: float = 0.0  # loss improvements smaller than this do not count
    select_by: str = "loss"  # best/: lowest validation loss, or highest greedy exact match (ties: loss)
    save_every_steps: int | None = None  # also refresh last/ mid-epoch (long epochs, preemption)
    log_every_steps: int = 50
    progress_bar: bool = True  # still off when stderr is not a TTY or CI is set
    tensorboard: bool = False
    wandb: bool = False
    project: str = "nmt-sparql"  # tracker project name
    optimizer: OptimizerConfig = field(default_factory=OptimizerConfig)
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)

    @classmethod
    def from_any(cls, cfg: TrainConfig | Mapping[str, Any] | Any) -> TrainConfig:
        """Accept a TrainConfig, a dict or an OmegaConf node; unknown keys and bad types are errors."""
        if isinstance(cfg, TrainConfig):
            config = cfg
        else:
            try:
                config = OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(cls), cfg))
            except OmegaConfBaseException as exc:
                raise ValueError(f"invalid training config: {exc}") from exc
        config.validate()
        return config

    def validate(self) -> None:
        checks = [
            (self.optimizer.name in OPTIMIZERS, f"optimizer.name must be one of {OPTIMIZERS}"),
            (self.scheduler.name in SCHEDULERS, f"scheduler.name must be one of {SCHEDULERS}"),
            (self.mixed_precision in PRECISIONS, f"mixed_precision must be one of {PRECISIONS}"),
            (self.select_by in SELECTIONS, f"select_by must be one of {SELECTIONS}"),
            (self.grad_accum_steps >= 1, "grad_accum_steps must be >= 1"),
            (0.0 <= self.label_smoothing < 1.0, "label_smoothing must be in [0, 1)"),
            (self.ema_decay is None or 0.0 < self.ema_decay < 1.0, "ema_decay must be in (0, 1) or null"),
            (len(self.optimizer.betas) == 2, "optimizer.betas must have two values"),
            (
                any(x is not None for x in (self.max_epochs, self.max_steps, self.time_budget_s)),
                "set at least one of max_epochs, max_steps, time_budget_s",
            ),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(f"invalid training config: {message}")


def train_config(cfg: DictConfig) -> dict[str, Any]:
    """The loop's settings: `train:` as Hydra composed it (conf/train.yaml, then the model preset's
    recipe, then the command line), and the run's seed."""
    recipe = sorted(RECIPE_KEYS & set(cfg.model))
    if recipe:
        raise ValueError(
            f"model.{recipe[0]}: training settings belong under train: (train.{recipe[0]}); model "
            f"configs carry the architecture only (found {recipe})"
        )
    settings = OmegaConf.to_container(cfg.train, resolve=True)
    if "seed" in settings:
        raise ValueError("train.seed: the run's seed is the top-level `seed=`")
    settings.pop("resume", None)
    settings["seed"] = int(cfg.seed)
    return settings
