"""The training recipe (accelerate) and its checkpoints (safetensors + JSON, atomic, exact resume)."""

from nmt_sparql.training.checkpoint import (
    TrainState,
    load_checkpoint,
    load_weights,
    read_model_config,
    resolve_checkpoint,
    save_checkpoint,
)
from nmt_sparql.training.config import OptimizerConfig, SchedulerConfig, TrainConfig
from nmt_sparql.training.loader import EpochShuffleSampler, PerEpoch, make_train_loader
from nmt_sparql.training.loss import sequence_nll
from nmt_sparql.training.recipe import TrainResult, evaluate, train

__all__ = [
    "EpochShuffleSampler",
    "PerEpoch",
    "OptimizerConfig",
    "SchedulerConfig",
    "TrainConfig",
    "TrainResult",
    "TrainState",
    "evaluate",
    "load_checkpoint",
    "load_weights",
    "make_train_loader",
    "read_model_config",
    "resolve_checkpoint",
    "save_checkpoint",
    "sequence_nll",
    "train",
]
