"""`nmt-sparql data download NAME | prepare | stats | generate`."""

from __future__ import annotations

import json
from pathlib import Path

from omegaconf import DictConfig

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.record import write_jsonl
from nmt_sparql.data.download import download
from nmt_sparql.data.generate import GenerationError
from nmt_sparql.data.lexicon import LexiconError, bundled_lexicon, load_lexicon
from nmt_sparql.data.synthesize import open_kb_source, synthesize
from nmt_sparql.preparation.prepare import (
    annotate_splits,
    annotator,
    make_splits,
    prepare,
    prepared_dir,
    read_examples,
)
from nmt_sparql.preparation.stats import dataset_stats, format_stats
from nmt_sparql.sparql.prefixes import prefix_map


def generate_command(cfg: DictConfig) -> None:
    """`data generate kb=FILE|URL|embedded:bundled out=DIR`: synthesized JSONL the `jsonl` reader reads."""
    if not cfg.get("kb") or not cfg.get("out"):
        raise SystemExit("nmt-sparql data generate: needs kb=FILE|URL|embedded:bundled and out=DIR")
    try:
        source = open_kb_source(str(cfg.kb))
        kb_name = source.kb_name
        if cfg.get("lexicon"):
            lexicon = load_lexicon(cfg.lexicon, prefix_map(kb_name, extra=source.declared))
        else:
            lexicon = bundled_lexicon() if kb_name == "bundled" else None
        result = synthesize(source.store, kb_name, n=int(cfg.n), seed=int(cfg.seed), lexicon=lexicon)
    except (FileNotFoundError, GenerationError, LexiconError) as err:
        raise SystemExit(f"nmt-sparql data generate: {err}") from None
    out = Path(cfg.out)
    write_jsonl(out / "synthetic.jsonl", result.examples)
    atomic_write_json(out / "report.json", result.report)
    for key in ("family", "form", "shape", "hops", "edges", "answer"):
        print(f"{key:>8}: {result.report[key]}")
    print(
        f"{len(result.examples)} examples (kb {kb_name}) -> {out / 'synthetic.jsonl'}; distribution: {out / 'report.json'}"
    )


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
        stats = dataset_stats(read, splits, cfg.annotation, int(cfg.seed), annotation.resolver, coverage)
        stats["input_coverage"] = coverage
        out = Path(cfg.out) if cfg.get("out") else prepared_dir(cfg)
        atomic_write_json(out / "stats.json", stats)
        print(format_stats(cfg.dataset.name, stats))
        print(f"\nwritten: {out / 'stats.json'}")
    elif cfg.action == "generate":
        generate_command(cfg)
    else:
        raise SystemExit(f"nmt-sparql data: unknown action '{cfg.action}'")
