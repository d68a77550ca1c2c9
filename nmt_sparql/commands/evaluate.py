"""`nmt-sparql evaluate checkpoint=RUN_DIR`: score a trained model on a split of a dataset."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig, OmegaConf, open_dict

from nmt_sparql.config_values import check_switches
from nmt_sparql.execution.gold import gold_cache_path
from nmt_sparql.inference.evaluate import evaluate_split, format_metrics
from nmt_sparql.inference.tokenizer import load_tokenizer
from nmt_sparql.models.registry import build_model
from nmt_sparql.preparation.linking_index import INDEX_FILE
from nmt_sparql.preparation.prepare import load_splits, prepared_dir
from nmt_sparql.training.checkpoint import load_weights, resolve_checkpoint


def evaluation_config(cfg: DictConfig, trained: DictConfig) -> DictConfig:
    """The run's training config with this command's choices (dataset, data folders, kb and its
    settings, decode) on top."""
    merged = OmegaConf.create(OmegaConf.to_container(trained, resolve=True))
    with open_dict(merged):
        if cfg.get("dataset") is not None:
            merged.dataset = cfg.dataset
        for key in ("root", "dir"):
            if cfg.data.get(key) is not None:
                merged.data[key] = cfg.data[key]
        merged.kb = cfg.kb if cfg.get("kb") is not None else merged.dataset.get("endpoint")
        merged.kb_allow_hosts = list(cfg.get("kb_allow_hosts") or [])
        merged.decode = cfg.decode
        for key in ("kb_timeout_s", "kb_retries", "kb_workers"):
            if cfg.get(key) is not None:
                merged[key] = cfg[key]
    return merged


def run(cfg: DictConfig) -> dict:
    run_dir = Path(cfg.checkpoint)
    if not (run_dir / "config.yaml").is_file():
        raise SystemExit(f"checkpoint={run_dir}: not a training run folder (no config.yaml)")
    merged = evaluation_config(cfg, OmegaConf.load(run_dir / "config.yaml"))
    check_switches(
        merged,
        (
            "copy",
            "decode.grammar",
            "decode.typed_triples",
            "decode.execution_guided",
            "decode.repair",
            "decode.kb_constraint",
            "data.skip_invalid",
        ),
    )
    examples = load_splits(merged)[cfg.split]
    tokenizer = load_tokenizer(run_dir / "tokenizer")
    model = build_model(OmegaConf.to_container(merged.model, resolve=True), tokenizer.spec, merged["copy"])
    weights = resolve_checkpoint(run_dir / "best") or run_dir / "last"
    load_weights(weights, model)
    out = Path(cfg.out) if cfg.get("out") else run_dir / f"eval-{merged.dataset.name}-{cfg.split}"
    gold = gold_cache_path(prepared_dir(merged) / f"{cfg.split}.jsonl")
    index = run_dir / INDEX_FILE
    metrics = evaluate_split(
        model, tokenizer, examples, merged, out, gold_cache=gold, index=index if index.is_file() else None
    )
    print(format_metrics(metrics))
    print(f"written: {out}")
    return metrics
