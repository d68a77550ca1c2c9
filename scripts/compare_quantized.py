"""Does a quantized model write the same queries as fp32? Share of identical queries and exact match.

The export is loaded twice in one process, once as exported in fp32 (`quantize=none`) and once per
mode asked (int8, bf16), and the annotated questions of a split (what `evaluate` decodes: the prepared
`annotated` field, so linking plays no part) are decoded greedily by each. Reported per mode: the share
of questions whose query tokens are identical to fp32's, exact match of both against the gold query,
and the decoding time of each (same process, same threads, modes interleaved over `--repeats`).

The split comes from the export's own settings (dataset, annotation, seed, linker), prepared under
`--data-dir` when missing, or from a training run folder (`--run`).

    OMP_NUM_THREADS=2 python scripts/compare_quantized.py /tmp/final-export --modes int8 bf16 \
        --threads 2 --out results/compare_quantized.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch
from hydra import compose, initialize_config_module
from omegaconf import DictConfig, OmegaConf

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.record import Example
from nmt_sparql.metrics.query import exact_match
from nmt_sparql.preparation.prepare import load_splits
from nmt_sparql.serving.quantize import QUANTIZE_MODES, cpu_has_bf16
from nmt_sparql.serving.translator import Translator
from nmt_sparql.sparql.tokens import tokenize


def split_config(config: dict[str, Any], data_dir: Path) -> DictConfig:
    """The `train` config that prepared the export's data: its dataset, annotation, seed and linker."""
    dataset = config["source"].get("dataset") or config["kb"]
    annotation = config["annotation"]
    with initialize_config_module("nmt_sparql.conf", version_base="1.3"):
        cfg = compose(
            "train",
            overrides=[
                f"dataset={dataset}",
                f"annotation={annotation['scheme']}",
                f"seed={int(annotation.get('seed', 0))}",
                f"data.dir={data_dir}",
            ],
        )
    if annotation.get("linked"):
        cfg.linked = OmegaConf.merge(cfg.linked, annotation["linked"])
    return cfg


def decode_split(translator: Translator, examples: list[Example]) -> tuple[list[list[str]], float]:
    """Greedy query tokens of each example's annotated question, and the seconds it took."""
    inputs = [ex.annotated or ex.question for ex in examples]
    start = time.perf_counter()
    results = translator.translate(inputs, beam=1, annotate=False)
    return [r.tokens for r in results], time.perf_counter() - start


def compare(export: Path, examples: list[Example], modes: list[str], repeats: int) -> dict[str, Any]:
    """Per mode: identical-query share with fp32, exact match of each, decoding seconds (median)."""
    translators = {m: Translator.from_pretrained(export, quantize=m) for m in ["none", *modes]}
    gold = [tokenize(ex.query, translators["none"].prefixes) for ex in examples]
    tokens: dict[str, list[list[str]]] = {}
    seconds: dict[str, list[float]] = {m: [] for m in translators}
    for _ in range(repeats):
        for mode, translator in translators.items():  # interleaved: the load changes alike for all
            tokens[mode], took = decode_split(translator, examples)
            seconds[mode].append(took)
    for translator in translators.values():
        translator.close()
    n = len(examples)
    fp32_exact = sum(exact_match(g, t) for g, t in zip(gold, tokens["none"]))
    result: dict[str, Any] = {
        "fp32": {"exact_match": fp32_exact / n, "decode_s": statistics.median(seconds["none"])}
    }
    for mode in modes:
        exact = sum(exact_match(g, t) for g, t in zip(gold, tokens[mode]))
        result[mode] = {
            "identical": sum(a == b for a, b in zip(tokens["none"], tokens[mode])) / n,
            "exact_match": exact / n,
            "exact_match_change": (exact - fp32_exact) / n,
            "decode_s": statistics.median(seconds[mode]),
            "speedup_vs_fp32": statistics.median(seconds["none"]) / statistics.median(seconds[mode]),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export", type=Path, help="an `nmt-sparql export` folder")
    parser.add_argument(
        "--modes", nargs="+", default=["int8"], choices=[m for m in QUANTIZE_MODES if m != "none"]
    )
    parser.add_argument("--split", default="test", choices=["train", "validation", "test"])
    parser.add_argument("--run", type=Path, default=None, help="take the split from this training run folder")
    parser.add_argument("--data-dir", type=Path, default=Path("data"), help="where the split is prepared")
    parser.add_argument("--repeats", type=int, default=3, help="timed passes per mode, interleaved")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    translator_config = json.loads((args.export / "config.json").read_text(encoding="utf-8"))
    cfg = (
        OmegaConf.load(args.run / "config.yaml")
        if args.run
        else split_config(translator_config, args.data_dir)
    )
    examples = load_splits(cfg)[args.split]
    if not examples:
        parser.error(f"the {args.split} split is empty")
    figures = compare(args.export, examples, args.modes, args.repeats)
    report = {
        "export": str(args.export),
        "split": args.split,
        "n": len(examples),
        "threads": args.threads,
        "cpu_bf16": cpu_has_bf16(),
        "torch": str(torch.__version__),
        "machine": platform.processor() or platform.machine(),
        **figures,
    }
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_json(args.out, report)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
