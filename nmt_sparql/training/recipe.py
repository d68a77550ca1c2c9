"""The training recipe, in view: one function, one loop (nanoGPT / torchtune style).

accelerate makes the same code run on CPU, one GPU, several GPUs or nodes (`accelerate launch`),
with bf16/fp16 autocast on GPU. Loss: token NLL over the model's extended log-probs (vocabulary +
copy slots) on batch.tgt_ids[:, 1:], pad ignored, optional label smoothing. Each epoch ends with
a validation loss and the share of validation examples that greedy decoding gets exactly right;
best/ keeps the best epoch by either (`select_by`), last/ the latest state (also every
`save_every_steps`), and resuming from last/ replays exactly what an uninterrupted run does.
With `ema_decay`, a moving average of the weights is what validation scores and best/ keeps.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import asdict, dataclass, is_dataclass
from pathlib import Path
from typing import Any

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

from nmt_sparql.training.checkpoint import (
    TrainState,
    load_checkpoint,
    read_train_config,
    resolve_checkpoint,
    save_checkpoint,
)
from nmt_sparql.training.compile import compile_model
from nmt_sparql.training.config import TrainConfig
from nmt_sparql.training.ema import moving_average
from nmt_sparql.training.log import MetricsLog
from nmt_sparql.training.loss import sequence_nll
from nmt_sparql.training.optim import build_optimizer, build_scheduler


@dataclass
class TrainResult:
    state: TrainState
    stop_reason: str  # max_epochs | max_steps | time_budget | early_stopping
    best: Path | None  # None without validation data
    last: Path


@dataclass
class Validation:
    loss: float  # mean token NLL, without label smoothing
    exact: float  # share of examples that greedy decoding gets exactly right


def evaluate(model: torch.nn.Module, loader: DataLoader, accelerator: Accelerator, pad_id: int) -> Validation:
    """Mean token NLL and greedy exact match over the whole (prepared) loader, in one teacher-forced pass.

    Greedy decoding reproduces a reference exactly if and only if, fed the reference prefix, the
    model's most likely next token is the reference token at every position up to EOS: so the
    argmax of the loss pass scores what `evaluate` will decode, at no decoding cost. The loss can
    rise while this still improves (the model grows over-confident on the examples it gets wrong).
    Runs in a forked RNG so that validation never shifts the training randomness (dropout,
    loader seeds): a run that validates more often still trains on the same numbers.
    """
    was_training = model.training
    model.eval()
    devices = [accelerator.device] if accelerator.device.type == "cuda" else []
    total = torch.zeros((), dtype=torch.float64, device=accelerator.device)
    count = torch.zeros((), dtype=torch.long, device=accelerator.device)
    hits = torch.zeros((), dtype=torch.long, device=accelerator.device)
    examples = torch.zeros((), dtype=torch.long, device=accelerator.device)
    with torch.random.fork_rng(devices=devices), torch.no_grad():
        for batch in loader:
            log_probs, targets = model(batch), batch.tgt_ids[:, 1:]
            losses, counts = sequence_nll(log_probs, targets, pad_id)
            right = ((log_probs.argmax(-1) == targets) | (targets == pad_id)).all(-1)
            losses, counts, right = accelerator.gather_for_metrics((losses, counts, right))
            total += losses.sum()
            count += counts.sum()
            hits += right.sum()
            examples += right.numel()
    model.train(was_training)
    if int(count) == 0:
        raise ValueError("validation loader has no target tokens")
    return Validation(loss=float(total / count), exact=int(hits) / int(examples))


def _model_config(model: torch.nn.Module, given: dict[str, Any] | None) -> dict[str, Any] | None:
    config = given if given is not None else getattr(model, "config", None)
    if is_dataclass(config) and not isinstance(config, type):
        return asdict(config)
    if hasattr(config, "to_dict"):  # transformers PretrainedConfig
        return config.to_dict()
    return dict(config) if isinstance(config, dict) else None


def _flat(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Trackers (tensorboard hparams) take flat scalars."""
    flat: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value if isinstance(value, (int, float, str, bool)) else str(value)
    return flat


# Settings that may change between a run and its resumption without changing what is trained.
_RESUMABLE_CHANGES = {
    "max_epochs",
    "max_steps",
    "time_budget_s",
    "patience",
    "min_delta",
    "progress_bar",
    "log_every_steps",
    "save_every_steps",
    "tensorboard",
    "wandb",
    "project",
    "cpu",
    "compile",
}


def _warn_config_change(accelerator: Accelerator, last: Path, config: dict[str, Any]) -> None:
    saved = read_train_config(last) or config
    changed = sorted(k for k in config if k not in _RESUMABLE_CHANGES and saved.get(k) != config[k])
    if changed:
        accelerator.print(f"warning: resuming {last} with changed settings {changed}: not an exact resume")


def train(
    cfg: TrainConfig | dict[str, Any] | Any,
    model: torch.nn.Module,
    train_loader: DataLoader,
    val_loader: DataLoader | None,
    out_dir: str | Path,
    *,
    model_config: dict[str, Any] | None = None,
    resume: bool = True,
) -> TrainResult:
    """Train `model` (a Seq2SeqModel) and write best/, last/ and train_log.jsonl under `out_dir`.

    `train_loader` should come from `make_train_loader` (per-epoch seeded order, own generator)
    for exact resumption. With `resume`, an existing out_dir/last/ is continued; a finished run
    stops at once. Seed the RNG before building `model`; `train` reseeds with cfg.seed.
    """
    config = TrainConfig.from_any(cfg)
    out = Path(out_dir)
    on_cpu = config.cpu or not torch.cuda.is_available()
    trackers = [name for name, on in (("tensorboard", config.tensorboard), ("wandb", config.wandb)) if on]
    accelerator = Accelerator(
        cpu=on_cpu,
        mixed_precision="no" if on_cpu else config.mixed_precision,
        gradient_accumulation_steps=config.grad_accum_steps,
        log_with=trackers or None,
        project_dir=str(out),
        step_scheduler_with_optimizer=False,
    )
    set_seed(config.seed)
    base = model
    pad_id = base.pad_id
    optimizer = build_optimizer(config.optimizer, base.parameters())
    model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)
    ema = None if config.ema_decay is None else moving_average(base, config.ema_decay)
    if config.compile:
        compile_model(base)  # the decoding steps too: validation exact match and the run's test decode
    if val_loader is not None:
        val_loader = accelerator.prepare(val_loader)
    steps_per_epoch = math.ceil(len(train_loader) / config.grad_accum_steps)
    total_steps = (
        config.scheduler.total_steps or config.max_steps or (config.max_epochs or 0) * steps_per_epoch
    )
    if config.scheduler.name == "polynomial" and not total_steps:
        raise ValueError("polynomial decay needs scheduler.total_steps, max_steps or max_epochs")
    scheduler = build_scheduler(config.scheduler, optimizer.optimizer, total_steps)

    state = TrainState()
    last = resolve_checkpoint(out / "last") if resume else None
    if last is not None:
        state = load_checkpoint(
            last, base, optimizer, scheduler, accelerator.scaler, ema, rank=accelerator.process_index
        )
        accelerator.print(f"resumed from {last}: epoch {state.epoch}, step {state.step}")
        _warn_config_change(accelerator, last, asdict(config))
    log = MetricsLog(
        out / "train_log.jsonl", accelerator, resume_step=state.step if last is not None else None
    )
    train_config = asdict(config)
    saved_model_config = _model_config(base, model_config)
    if trackers:
        accelerator.init_trackers(config.project, config=_flat(train_config))

    scored = model if ema is None else ema.module  # what validation scores and best/ keeps

    def save(name: str) -> Path:
        best = name == "best"
        return save_checkpoint(
            out / name,
            accelerator.unwrap_model(scored if best else model),
            state,
            optimizer,
            scheduler,
            accelerator.scaler,
            None if best else ema,
            saved_model_config,
            train_config,
            rank=accelerator.process_index,
            is_main=accelerator.is_main_process,
            barrier=accelerator.wait_for_everyone,
        )

    start = time.monotonic()
    elapsed_before = state.elapsed_s

    def limit_reached() -> str | None:
        state.elapsed_s = elapsed_before + time.monotonic() - start
        if config.max_steps is not None and state.step >= config.max_steps:
            return "max_steps"
        if config.time_budget_s is not None and state.elapsed_s >= config.time_budget_s:
            return "time_budget"
        if config.max_epochs is not None and state.epoch >= config.max_epochs:
            return "max_epochs"
        return None

    def validate_and_select(end_of_epoch: bool) -> tuple[float | None, float | None]:
        """Validation loss (and exact match); best/ when the selected score improves.

        Only epoch ends count towards patience.
        """
        if val_loader is None:
            return None, None
        validation = evaluate(scored, val_loader, accelerator, pad_id)
        val_loss, val_exact = validation.loss, validation.exact
        lower_loss = state.best_val_loss is None or val_loss < state.best_val_loss - config.min_delta
        if config.select_by == "loss":
            better = lower_loss
        else:
            best_exact = -1.0 if state.best_val_exact is None else state.best_val_exact
            better = val_exact > best_exact or (val_exact == best_exact and lower_loss)
        if better:
            state.best_val_loss, state.best_val_exact = val_loss, val_exact
            state.best_epoch, state.bad_epochs = state.epoch, 0
            save("best")
        elif end_of_epoch:
            state.bad_epochs += 1
        return val_loss, val_exact

    show_bar = config.progress_bar and sys.stderr.isatty() and not os.environ.get("CI")
    bar = tqdm(
        total=config.max_steps or total_steps or None,
        initial=state.step,
        unit="step",
        disable=not (show_bar and accelerator.is_main_process),
    )
    stop_reason = limit_reached()
    while stop_reason is None:
        skip = state.batch_in_epoch
        loader = accelerator.skip_first_batches(train_loader, skip) if skip else train_loader
        loader.set_epoch(state.epoch)
        model.train()
        epoch_start, examples, tokens = time.monotonic(), 0, 0
        window_loss, window_tokens = 0.0, 0
        for batch in loader:
            with accelerator.accumulate(model):
                losses, counts = sequence_nll(
                    model(batch), batch.tgt_ids[:, 1:], pad_id, config.label_smoothing
                )
                n_tokens = counts.sum()
                loss = losses.sum() / n_tokens.clamp(min=1)
                if not torch.isfinite(loss):
                    raise FloatingPointError(
                        f"non-finite training loss at epoch {state.epoch}, step {state.step}"
                    )
                accelerator.backward(loss)
                if accelerator.sync_gradients and config.clip_norm:
                    accelerator.clip_grad_norm_(model.parameters(), config.clip_norm)
                optimizer.step()
                optimizer.zero_grad()
            state.batch_in_epoch += 1
            batch_examples = len(batch) * accelerator.num_processes
            examples += batch_examples
            state.examples += batch_examples
            batch_loss, batch_tokens = float(losses.detach().sum()), int(n_tokens)
            tokens += batch_tokens * accelerator.num_processes
            state.epoch_loss += batch_loss
            state.epoch_tokens += batch_tokens
            window_loss += batch_loss
            window_tokens += batch_tokens
            if not accelerator.sync_gradients:
                continue
            if not accelerator.optimizer_step_was_skipped:
                scheduler.step()
                if ema is not None:
                    ema.update_parameters(model)
            state.step += 1
            bar.update(1)
            if config.log_every_steps and state.step % config.log_every_steps == 0:
                mean = window_loss / max(window_tokens, 1)
                lr = scheduler.get_last_lr()[0]
                log.write({"event": "step", "step": state.step, "epoch": state.epoch, "loss": mean, "lr": lr})
                bar.set_postfix(loss=f"{mean:.3f}")
                window_loss, window_tokens = 0.0, 0
            stop_reason = limit_reached()
            if stop_reason is not None:
                break
            if config.save_every_steps and state.step % config.save_every_steps == 0:
                save("last")
        train_time = time.monotonic() - epoch_start
        train_loss = state.epoch_loss / max(state.epoch_tokens, 1)
        end_of_epoch = stop_reason is None
        if end_of_epoch:
            state.epoch, state.batch_in_epoch, state.epoch_loss, state.epoch_tokens = (
                state.epoch + 1,
                0,
                0.0,
                0,
            )
        val_loss, val_exact = validate_and_select(end_of_epoch)
        state.elapsed_s = elapsed_before + time.monotonic() - start
        log.write(
            {
                "event": "epoch" if end_of_epoch else "stop",
                "step": state.step,
                "epoch": state.epoch,
                "train_loss": train_loss,
                "val_loss": val_loss,
                "best_val_loss": state.best_val_loss,
                **(
                    {}
                    if val_exact is None
                    else {"val_exact": val_exact, "best_val_exact": state.best_val_exact}
                ),
                "lr": scheduler.get_last_lr()[0],
                "examples_per_s": examples / max(train_time, 1e-9),
                "tokens_per_s": tokens / max(train_time, 1e-9),
                "epoch_time_s": train_time,
                "elapsed_s": state.elapsed_s,
                **({} if end_of_epoch else {"reason": stop_reason}),
            },
            console=True,
        )
        save("last")
        if end_of_epoch and config.patience is not None and state.bad_epochs >= config.patience:
            stop_reason = "early_stopping"
        elif end_of_epoch:
            stop_reason = limit_reached()
    bar.close()
    if trackers:
        accelerator.end_training()
    best = resolve_checkpoint(out / "best") if val_loader is not None else None
    return TrainResult(state=state, stop_reason=stop_reason, best=best, last=out / "last")
