"""`nmt-sparql data download NAME | prepare | stats`."""

from __future__ import annotations

import json
from pathlib import Path

from omegaconf import DictConfig

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.data.download import download
from nmt_sparql.data.prepare import (
    annotate_splits,
    annotator,
    make_splits,
    prepare,
    prepared_dir,
    read_examples,
)
from nmt_sparql.data.stats import dataset_stats, format_stats


def run(cfg: DictConfig) -> None:
    if cfg.action == "download":
        root = Path(cfg.data.root) if cfg.data.get("root") else None
        files = download(cfg.name, Path(cfg.data.dir) / "raw", root=root)
        print(f"{cfg.name}: {len(files)} file(s) under {Path(cfg.data.dir) / 'raw'}")
    elif cfg.action == "prepare":
        splits = prepare(cfg)
        manifest = json.loads((prepared_dir(cfg) / "manifest.json").read_text(encoding="utf-8"))
        skipped = f", {manifest['skipped']} record(s) skipped" if manifest.get("skipped") else ""
        print(
            f"{cfg.dataset.name}/{cfg.annotation}: { ({k: len(v) for k, v in splits.items()}) }{skipped}"
            f" -> {prepared_dir(cfg)}"
        )
    elif cfg.action == "stats":
        read = read_examples(cfg)
        splits = make_splits(list(read), cfg)
        annotation = annotator(cfg, splits)
        try:
            coverage = annotate_splits(splits, annotation)
        finally:
            annotation.close()
        stats = dataset_stats(read, splits, cfg.annotation, int(cfg.seed), annotation.resolver)
        stats["input_coverage"] = coverage
        out = Path(cfg.out) if cfg.get("out") else prepared_dir(cfg)
        atomic_write_json(out / "stats.json", stats)
        print(format_stats(cfg.dataset.name, stats))
        print(f"\nwritten: {out / 'stats.json'}")
    else:
        raise SystemExit(f"nmt-sparql data: unknown action '{cfg.action}'")
