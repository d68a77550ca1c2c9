"""Checkpoints without pickle: tensors in safetensors files, everything else in JSON.

A checkpoint is a folder (best/ or last/) holding
  model.safetensors              the weights (shared/tied tensors handled by safetensors.torch.save_model)
  optimizer.safetensors/.json    optimizer state: tensors / the rest of the state dict
  scheduler.json                 LR scheduler state (scaler.json: fp16 loss scaler)
  ema.safetensors                the moving average of the weights (train.ema_decay), last/ only
  rng_<rank>.safetensors/.json   torch (+ CUDA) / python and numpy RNG states of each process
  state.json                     counters (TrainState)
  model_config.json, train_config.json   what built the model and the run (when given)
The folder is written in a temporary sibling and swapped in with renames, so a crash while
saving leaves the previous checkpoint as it was (see `_commit` / `resolve_checkpoint`).
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load_file, load_model, save_file, save_model

from nmt_sparql.atomic import atomic_write, atomic_write_json


class CheckpointError(ValueError):
    """A checkpoint file that is missing, truncated or corrupt; the message names it and what to do."""


def recovery_hint(folder: Path) -> str:
    """What to do about a damaged checkpoint folder, by its role in the run folder."""
    if folder.name == "last":
        return f"the run cannot resume from it: delete {folder} to train again from the start (best/ is kept)"
    if folder.name == "best":
        return f"delete {folder} and use last/ (evaluate falls back to it; export with which=last)"
    return f"delete {folder} and write it again"


def corrupt_file(file: Path, exc: BaseException, hint: str) -> CheckpointError:
    """The error for a weights/state file that cannot be read: the file, the reason, the remedy."""
    reason = str(exc).removeprefix("Error while deserializing header: ")
    if isinstance(exc, FileNotFoundError):
        return CheckpointError(f"{file}: missing; {hint}")
    return CheckpointError(f"{file}: truncated or corrupt ({reason}); {hint}")


@dataclass
class TrainState:
    """Counters that, with weights/optimizer/scheduler/RNG, define where a run is."""

    epoch: int = 0  # epochs completed
    batch_in_epoch: int = 0  # micro-batches of the current epoch already trained on
    step: int = 0  # optimizer steps
    examples: int = 0  # training examples seen
    epoch_loss: float = 0.0  # summed token loss of the current epoch so far (its log survives a resume)
    epoch_tokens: int = 0
    best_val_loss: float | None = None  # validation loss of best/
    best_val_exact: float | None = None  # its validation greedy exact match
    best_epoch: int | None = None
    bad_epochs: int = 0  # epochs since best/ last improved (early stopping)
    elapsed_s: float = 0.0  # wall clock over all runs

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: Path) -> TrainState:
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"{source}: unknown fields {sorted(unknown)}")
        return cls(**data)


# --- tree codec: a state dict -> (JSON-able tree, flat tensor dict) and back --------------------


def _encode(obj: Any, path: str, tensors: dict[str, torch.Tensor]) -> Any:
    if isinstance(obj, torch.Tensor):
        tensors[path] = obj.detach().cpu().contiguous()
        return {"__tensor__": path}
    if isinstance(obj, dict):
        if all(isinstance(k, str) for k in obj):
            return {"__dict__": {k: _encode(v, f"{path}.{k}", tensors) for k, v in obj.items()}}
        # optimizer states are keyed by int parameter ids: keep keys as (key, value) pairs
        return {"__items__": [[k, _encode(v, f"{path}.{k}", tensors)] for k, v in obj.items()]}
    if isinstance(obj, (list, tuple)):
        items = [_encode(v, f"{path}.{i}", tensors) for i, v in enumerate(obj)]
        return {"__tuple__": items} if isinstance(obj, tuple) else items
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"cannot store {type(obj).__name__} at {path} without pickle")


def _decode(obj: Any, tensors: dict[str, torch.Tensor]) -> Any:
    if isinstance(obj, list):
        return [_decode(v, tensors) for v in obj]
    if isinstance(obj, dict):
        if "__tensor__" in obj:
            return tensors[obj["__tensor__"]]
        if "__dict__" in obj:
            return {k: _decode(v, tensors) for k, v in obj["__dict__"].items()}
        if "__items__" in obj:
            return {k: _decode(v, tensors) for k, v in obj["__items__"]}
        if "__tuple__" in obj:
            return tuple(_decode(v, tensors) for v in obj["__tuple__"])
    return obj


def _save_tree(folder: Path, name: str, tree: Any) -> None:
    tensors: dict[str, torch.Tensor] = {}
    encoded = _encode(tree, name, tensors)
    if tensors:
        atomic_write(folder / f"{name}.safetensors", lambda p: save_file(tensors, str(p)))
    atomic_write_json(folder / f"{name}.json", encoded)


def _load_tree(folder: Path, name: str) -> Any:
    file = folder / f"{name}.safetensors"
    try:
        tensors = load_file(str(file)) if file.exists() else {}
    except (SafetensorError, OSError) as exc:
        raise corrupt_file(file, exc, recovery_hint(folder)) from exc
    tree = _read_json(folder / f"{name}.json")
    try:
        return _decode(tree, tensors)
    except KeyError as exc:
        raise CheckpointError(
            f"{file}: tensor {exc} named by {name}.json is missing; {recovery_hint(folder)}"
        ) from exc


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise corrupt_file(path, exc, recovery_hint(path.parent)) from exc


# --- RNG --------------------------------------------------------------------------------------


def rng_state() -> dict[str, Any]:
    state: dict[str, Any] = {
        "python": random.getstate(),
        "numpy": list(np.random.get_state()),
        "torch": torch.get_rng_state(),
    }
    state["numpy"][1] = state["numpy"][1].tolist()
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    kind, keys, pos, has_gauss, cached = state["numpy"]
    np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), pos, has_gauss, cached))
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(list(state["cuda"]))


# --- atomic folder swap -----------------------------------------------------------------------


def _old(path: Path) -> Path:
    return path.with_name(f".{path.name}.old")


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp")


def resolve_checkpoint(path: str | Path) -> Path | None:
    """The complete checkpoint at `path`, finishing a swap that a crash interrupted; None if none."""
    path = Path(path)
    if not path.exists() and _old(path).exists():
        os.replace(_old(path), path)  # crashed between the two renames of _commit: the old one is whole
    if _old(path).exists():
        shutil.rmtree(_old(path))
    return path if (path / "state.json").exists() else None


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _commit(tmp: Path, path: Path) -> None:
    """Swap a fully written folder in: path -> .old, tmp -> path, drop .old."""
    _fsync_dir(tmp)
    if path.exists():
        os.replace(path, _old(path))
    os.replace(tmp, path)
    _fsync_dir(path.parent)
    shutil.rmtree(_old(path), ignore_errors=True)


# --- save / load ------------------------------------------------------------------------------


def save_checkpoint(
    path: str | Path,
    model: torch.nn.Module,
    state: TrainState,
    optimizer: torch.optim.Optimizer | None = None,
    scheduler: Any | None = None,
    scaler: Any | None = None,
    ema: torch.nn.Module | None = None,
    model_config: dict[str, Any] | None = None,
    train_config: dict[str, Any] | None = None,
    rank: int = 0,
    is_main: bool = True,
    barrier: Callable[[], None] = lambda: None,
) -> Path:
    """Write a checkpoint folder atomically. In multi-process runs every process must call it
    (each stores its own RNG state) with `barrier` = accelerator.wait_for_everyone."""
    path = Path(path)
    tmp = _tmp(path)
    if is_main:
        resolve_checkpoint(path)
        shutil.rmtree(tmp, ignore_errors=True)  # leftover of a crashed save
        tmp.mkdir(parents=True)
    barrier()
    _save_tree(tmp, f"rng_{rank}", rng_state())
    if is_main:
        atomic_write(tmp / "model.safetensors", lambda p: save_model(model, str(p)))
        if optimizer is not None:
            _save_tree(tmp, "optimizer", optimizer.state_dict())
        if scheduler is not None:
            _save_tree(tmp, "scheduler", scheduler.state_dict())
        if scaler is not None:
            _save_tree(tmp, "scaler", scaler.state_dict())
        if ema is not None:
            atomic_write(tmp / "ema.safetensors", lambda p: save_model(ema, str(p)))
        if model_config is not None:
            atomic_write_json(tmp / "model_config.json", model_config)
        if train_config is not None:
            atomic_write_json(tmp / "train_config.json", train_config)
        atomic_write_json(tmp / "state.json", asdict(state))  # written last: marks the folder complete
    barrier()
    if is_main:
        _commit(tmp, path)
    barrier()
    return path


def load_weights(path: str | Path, model: torch.nn.Module) -> None:
    """Weights only (evaluation, decoding); strict: every parameter must be present."""
    folder = resolve_checkpoint(path)
    if folder is None:
        raise FileNotFoundError(f"{path}: no checkpoint")
    file = folder / "model.safetensors"
    try:
        missing, unexpected = load_model(model, str(file), strict=False)
    except (SafetensorError, OSError) as exc:
        raise corrupt_file(file, exc, recovery_hint(folder)) from exc
    except RuntimeError as exc:  # shapes that differ: another vocabulary or model size
        raise ValueError(
            f"{file}: its weights do not fit this model ({str(exc).splitlines()[-1].strip()}); it was "
            "trained on other data or with another model config: resume it with the same config, or "
            "train in a fresh folder (hydra.run.dir=...)"
        ) from exc
    if missing or unexpected:
        raise ValueError(
            f"{folder}/model.safetensors: missing {sorted(missing)}, unexpected {sorted(unexpected)}"
        )


def load_checkpoint(
    path: str | Path,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer | None = None,
    scheduler: Any | None = None,
    scaler: Any | None = None,
    ema: torch.nn.Module | None = None,
    restore_rng: bool = True,
    rank: int = 0,
) -> TrainState:
    """Restore everything `save_checkpoint` wrote and return the counters."""
    load_weights(path, model)
    folder = Path(path)
    if optimizer is not None:
        optimizer.load_state_dict(_load_tree(folder, "optimizer"))
    if scheduler is not None:
        scheduler.load_state_dict(_load_tree(folder, "scheduler"))
    if scaler is not None and (folder / "scaler.json").exists():
        scaler.load_state_dict(_load_tree(folder, "scaler"))
    if ema is not None:
        file = folder / "ema.safetensors"
        if not file.exists():
            raise CheckpointError(f"{file}: missing (the run trained without train.ema_decay?)")
        try:
            load_model(ema, str(file))
        except (SafetensorError, OSError) as exc:
            raise corrupt_file(file, exc, recovery_hint(folder)) from exc
    if restore_rng:
        if not (folder / f"rng_{rank}.json").exists():
            raise ValueError(f"{folder}: no RNG state for process {rank} (resumed with more processes?)")
        set_rng_state(_load_tree(folder, f"rng_{rank}"))
    return TrainState.from_dict(_read_json(folder / "state.json"), folder / "state.json")


def read_model_config(path: str | Path) -> dict[str, Any] | None:
    file = Path(path) / "model_config.json"
    return _read_json(file) if file.exists() else None


def read_train_config(path: str | Path) -> dict[str, Any] | None:
    file = Path(path) / "train_config.json"
    return _read_json(file) if file.exists() else None
