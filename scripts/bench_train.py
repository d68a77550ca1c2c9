"""Training throughput (examples/s) of each model at its small preset, with and without copy.

Each run is `nmt-sparql train` for a few epochs in its own process (no evaluation); the figure is
the median examples/s over the epochs after the first (the first pays for warm-up, and with
`train.compile=true` for compiling). `--compile both` runs each model without and with torch.compile
in turn (interleaved, so a change of machine load falls on both) and notes a logged compile fallback.

    python scripts/bench_train.py --dataset lcquad1 --data-root ../shared/datasets --epochs 3
    python scripts/bench_train.py --copy yes --compile both --epochs 4 --out /tmp/bench/train_compile
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path


def run(args: argparse.Namespace, model: str, copy: bool, compiled: bool = False) -> dict:
    run_dir = Path(args.out) / f"{model}-copy{copy}{'-compiled' if compiled else ''}"
    command = [
        sys.executable, "-m", "nmt_sparql.cli", "train", f"dataset={args.dataset}", f"model={model}_small",
        f"copy={copy}", "annotation=tag_within", f"train.max_epochs={args.epochs}", "train.patience=null",
        "train.resume=false", "train.progress_bar=false", "evaluate=false", f"hydra.run.dir={run_dir}",
        *([f"data.root={args.data_root}"] if args.data_root else []), f"train.compile={compiled}",
        *args.override,
    ]  # fmt: skip
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    epochs = [json.loads(line) for line in (run_dir / "train_log.jsonl").read_text().splitlines()]
    speeds = [e["examples_per_s"] for e in epochs if e.get("event") == "epoch"]
    fallbacks = [line for line in (done.stdout + done.stderr).splitlines() if "torch.compile of" in line]
    return {
        "model": model,
        "copy": copy,
        "compile": compiled,
        "examples_per_s": statistics.median(speeds[1:] or speeds),
        "epochs": speeds,
        "first_epoch_s": next((e["epoch_time_s"] for e in epochs if e.get("event") == "epoch"), None),
        "compile_fallbacks": fallbacks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default="bundled")
    parser.add_argument("--data-root", default=None)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--models", nargs="+", default=["transformer", "convs2s", "bart", "t5"])
    parser.add_argument("--out", default="benchmarks/train_speed")
    parser.add_argument("--copy", choices=["both", "yes", "no"], default="both")
    parser.add_argument("--compile", choices=["both", "yes", "no"], default="no", help="train.compile")
    parser.add_argument("--override", nargs="*", default=[])
    args = parser.parse_args()
    copies = {"both": (True, False), "yes": (True,), "no": (False,)}[args.copy]
    compiles = {"both": (False, True), "yes": (True,), "no": (False,)}[args.compile]
    rows = [run(args, m, copy, c) for m in args.models for copy in copies for c in compiles]
    lines = [
        "| model (small preset) | copy | compile | examples/s | first epoch s | fallbacks |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['model']} | {'yes' if r['copy'] else 'no'} | {'yes' if r['compile'] else 'no'} "
        f"| {r['examples_per_s']:.0f} | {r['first_epoch_s']:.1f} | {len(r['compile_fallbacks'])} |"
        for r in rows
    ]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
