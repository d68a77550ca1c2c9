"""`nmt-sparql train`: prepared splits -> tokenizer -> model -> training loop -> evaluation.

The run folder (Hydra's output dir) holds everything needed to use the model again:
config.yaml, tokenizer/, best/ and last/ checkpoints, train_log.jsonl, the test report, and
kb_index.sqlite (any annotation but raw): the KB index its raw questions are linked with.
"""

from __future__ import annotations

import logging
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import torch
from accelerate import PartialState
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from torch.utils.data import DataLoader

from nmt_sparql.atomic import atomic_write_text
from nmt_sparql.config_values import check_switches
from nmt_sparql.core.record import Example
from nmt_sparql.data.fingerprint import record_code
from nmt_sparql.execution.gold import gold_cache_path
from nmt_sparql.inference.evaluate import evaluate_split, format_metrics
from nmt_sparql.inference.tokenizer import build_tokenizer
from nmt_sparql.models.pretrained import pretrained_available
from nmt_sparql.models.registry import build_model
from nmt_sparql.preparation.linking_index import INDEX_FILE, copy_index, dataset_index
from nmt_sparql.preparation.prepare import label_resolver, load_splits, prepared_dir
from nmt_sparql.sparql.tokens import tokenize
from nmt_sparql.training.checkpoint import load_weights
from nmt_sparql.training.config import train_config
from nmt_sparql.training.loader import make_train_loader, reshuffled_train_data
from nmt_sparql.training.lock import RunFolderLocked, run_folder_lock
from nmt_sparql.training.recipe import train

log = logging.getLogger(__name__)

# Boolean keys, checked strictly (`copy=no` is an error, not a copy model).
SWITCHES = (
    "copy", "reshuffle_tail", "evaluate", "train.resume", "train.progress_bar", "train.tensorboard", "train.wandb",
    "decode.grammar", "decode.typed_triples", "decode.execution_guided", "decode.repair", "decode.kb_constraint",
    "data.skip_invalid", "train.compile",
)  # fmt: skip


def run(cfg: DictConfig) -> dict[str, Any] | None:
    out = Path(HydraConfig.get().runtime.output_dir)
    with ExitStack() as stack:
        if PartialState().is_main_process:  # one lock per run: the main process holds it for all
            try:
                stack.enter_context(run_folder_lock(out))
            except RunFolderLocked as err:
                raise SystemExit(str(err)) from None
        return _run(cfg, out)


def _run(cfg: DictConfig, out: Path) -> dict[str, Any] | None:
    started = time.perf_counter()
    check_switches(cfg, SWITCHES)
    splits = load_splits(cfg)
    if cfg.annotation != "raw":  # the run carries the index its raw questions are linked with
        copy_index(dataset_index(cfg, splits["train"], label_resolver(cfg)), out)
        record_code(out)  # and the version of the code that linked its training questions
    copy = cfg["copy"]  # not cfg.copy: that is DictConfig.copy()
    model_cfg = OmegaConf.to_container(cfg.model, resolve=True)
    if model_cfg.get("pretrained") and not pretrained_available(model_cfg["pretrained"]):
        log.warning(
            "pretrained weights %s are not available here: training %s from its config instead",
            model_cfg["pretrained"],
            model_cfg["name"],
        )
        model_cfg["pretrained"] = None
    tokenizer, model, settings, train_loader, val_loader = training_inputs(cfg, splits, model_cfg)
    tokenizer.save(out / "tokenizer")
    saved = OmegaConf.create(OmegaConf.to_container(cfg, resolve=True))
    saved.model = model_cfg
    atomic_write_text(out / "config.yaml", OmegaConf.to_yaml(saved))
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"{model_cfg['name']} (copy={copy}, {n_params / 1e6:.2f}M parameters) on {cfg.dataset.name}/{cfg.annotation}: "
        f"{ {k: len(v) for k, v in splits.items()} }"
    )
    result = train(
        settings, model, train_loader, val_loader, out, model_config=model_cfg, resume=bool(cfg.train.resume)
    )
    print(f"trained in {time.perf_counter() - started:.0f} s ({result.stop_reason})")

    if not cfg.evaluate or not splits["test"] or not PartialState().is_main_process:
        return None
    load_weights(result.best or result.last, model)
    metrics = evaluate_split(
        model,
        tokenizer,
        splits["test"],
        cfg,
        out / "test",
        gold_cache=gold_cache_path(prepared_dir(cfg) / "test.jsonl"),
        index=out / INDEX_FILE if (out / INDEX_FILE).is_file() else None,
    )
    print(format_metrics(metrics))
    print(f"total time {time.perf_counter() - started:.0f} s; run folder: {out}")
    return metrics


def training_inputs(
    cfg: DictConfig, splits: dict[str, list[Example]], model_cfg: dict[str, Any]
) -> tuple[Any, torch.nn.Module, dict[str, Any], DataLoader, DataLoader | None]:
    """The tokenizer (fitted on the training split), the seeded model, the loop settings and the
    loaders a run trains with; scripts/bench_train_step.py times steps on exactly these."""
    pairs = {
        name: [(ex.annotated or ex.question, tokenize(ex.query, ex.kb)) for ex in part]
        for name, part in splits.items()
    }
    torch.manual_seed(int(cfg.seed))
    copy = cfg["copy"]  # not cfg.copy: that is DictConfig.copy()
    tokenizer = build_tokenizer(
        model_cfg, pairs["train"], copy, cfg.dataset.kb, cfg.get("copy_mask", "plain")
    )
    model = build_model(model_cfg, tokenizer.spec, copy)
    settings = train_config(cfg)
    train_items = [tokenizer.encode(q, t) for q, t in pairs["train"]]
    val_items = [tokenizer.encode(q, t) for q, t in pairs["validation"]]
    missing = sum(item.missing_kb for item in train_items)
    if missing:
        log.warning(
            "%d target KB token(s) of the training split are absent from their question (mapped to <unk>)",
            missing,
        )
    train_data = (
        reshuffled_train_data(pairs["train"], tokenizer, int(cfg.seed)) if cfg.reshuffle_tail else train_items
    )
    lengths = [len(it.src_ids) + len(it.tgt_ids or ()) for it in train_items]
    train_loader = make_train_loader(
        train_data,
        int(settings["batch_size"]),
        tokenizer.collate,
        int(cfg.seed),
        lengths=lengths if settings.get("group_by_length", False) else None,
    )
    val_loader = (
        DataLoader(val_items, batch_size=int(settings["batch_size"]), collate_fn=tokenizer.collate)
        if val_items
        else None
    )
    return tokenizer, model, settings, train_loader, val_loader
