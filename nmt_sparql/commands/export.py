"""`nmt-sparql export checkpoint=RUN_DIR out=DIR`: see nmt_sparql/serving/export.py for the folder layout."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from nmt_sparql.serving.export import export_model


def run(cfg: DictConfig) -> Path:
    quantize = cfg.get("quantize", "none")
    out = export_model(cfg.checkpoint, cfg.out, checkpoint=str(cfg.which), quantize=quantize)
    print(f"exported {cfg.checkpoint} ({cfg.which}, quantize={quantize}) -> {out}")
    return out
