"""Reproduce the paper's Table IV (non-pretrained models) on LC-QuAD 1.0 within a fixed budget per run.

Runs Transformer and ConvSeq2Seq x raw / tag-within / tag-end x copy / no copy (no copy run on raw
questions: they hold no KB element to copy) on the paper's seeded 4,000/500/500 split, each run with
`nmt-sparql train` in its own process and folder, then writes one table: our BLEU and exact match beside
the paper's BLEU and answer accuracy, and the error distribution (Table XIV columns) of each run.
No DBpedia is reachable offline, so exact match stands in for answer accuracy (a lower bound);
pass --kb URL to compute answer metrics against a DBpedia 2016-04 endpoint.

    python scripts/bench_lcquad1.py --data-root ../shared/datasets --budget-s 600 --out benchmarks/lcquad1
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

# Table IV, LC-QuAD 1.0: (BLEU, answer accuracy) per (model, annotation, copy).
PAPER = {
    ("transformer", "raw", False): (69, 33),
    ("transformer", "tag_within", False): (82, 41),
    ("transformer", "tag_within", True): (99, 95),
    ("transformer", "tag_end", False): (74, 38),
    ("transformer", "tag_end", True): (49, 1.8),
    ("convs2s", "raw", False): (69, 23),
    ("convs2s", "tag_within", False): (78, 28),
    ("convs2s", "tag_within", True): (99, 96),
    ("convs2s", "tag_end", False): (75, 25),
    ("convs2s", "tag_end", True): (90, 77),
}
ERROR_TYPES = ("URIs", "Fake URIs", "SVocab", "Lit", "Fct", "Var", "Unk")


def grid(models: list[str], annotations: list[str]) -> list[tuple[str, str, bool]]:
    return [(m, a, c) for m in models for a in annotations for c in (False, True) if not (a == "raw" and c)]


def run_one(args: argparse.Namespace, model: str, annotation: str, copy: bool) -> dict:
    name = f"{model}-{annotation}-{'copy' if copy else 'base'}"
    run_dir = Path(args.out) / name
    command = [
        sys.executable, "-m", "nmt_sparql.cli", "train", "dataset=lcquad1", f"data.root={args.data_root}",
        f"data.dir={args.data_dir}", f"model={model}_{args.preset}", f"annotation={annotation}", f"copy={copy}",
        f"train.time_budget_s={args.budget_s}", f"train.max_epochs={args.max_epochs}", "train.patience=null",
        "train.progress_bar=false", f"hydra.run.dir={run_dir}", *([f"kb={args.kb}"] if args.kb else []),
        *args.override,
    ]  # fmt: skip
    started = time.perf_counter()
    log = run_dir / "bench.log"
    run_dir.mkdir(parents=True, exist_ok=True)
    with log.open("w") as fh:
        proc = subprocess.run(command, stdout=fh, stderr=subprocess.STDOUT, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        return {"name": name, "error": f"exit {proc.returncode}, see {log}", "seconds": elapsed}
    metrics = json.loads((run_dir / "test" / "metrics.json").read_text())
    report = json.loads((run_dir / "test" / "report.json").read_text())
    log_lines = (run_dir / "train_log.jsonl").read_text().splitlines()
    epochs = sum(json.loads(line).get("event") == "epoch" for line in log_lines)
    return {
        "name": name,
        "metrics": metrics,
        "errors": report.get("errors"),
        "seconds": elapsed,
        "epochs": epochs,
    }


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def table(results: list[dict], keys: list[tuple[str, str, bool]]) -> str:
    head = ("| model | annotation | copy | BLEU | exact match % | equivalent % | answer acc. % | paper BLEU | paper acc. % | "
            + " | ".join(ERROR_TYPES) + " | epochs | minutes |")  # fmt: skip
    lines = [head, "|" + "---|" * (11 + len(ERROR_TYPES))]
    for (model, annotation, copy), res in zip(keys, results):
        paper = PAPER.get((model, annotation, copy), (None, None))
        if "error" in res:
            lines.append(f"| {model} | {annotation} | {copy} | {res['error']} |")
            continue
        m = res["metrics"]
        dist = (res.get("errors") or {}).get("distribution", {})
        lines.append(
            f"| {model} | {annotation} | {'yes' if copy else 'no'} | {_fmt(m.get('bleu'))} | {_fmt(m.get('exact_match'))} "
            f"| {_fmt(m.get('equivalent'))} | {_fmt(m.get('answer_accuracy'))} | {paper[0] if paper[0] is not None else '–'} "
            f"| {paper[1] if paper[1] is not None else '–'} | "
            + " | ".join(_fmt(dist.get(t)) for t in ERROR_TYPES)
            + f" | {res['epochs']} | {res['seconds'] / 60:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-root", required=True, help="folder with lcquad1/ (e.g. ../shared/datasets)")
    parser.add_argument("--data-dir", default="data", help="where prepared splits are cached")
    parser.add_argument("--out", default="benchmarks/lcquad1")
    parser.add_argument("--budget-s", type=float, default=600, help="wall-clock training budget per run")
    parser.add_argument("--max-epochs", type=int, default=500)
    parser.add_argument(
        "--preset", default="small", help="model config suffix: conf/model/<model>_<preset>.yaml"
    )
    parser.add_argument("--models", nargs="+", default=["transformer", "convs2s"])
    parser.add_argument("--annotations", nargs="+", default=["tag_within", "tag_end", "raw"])
    parser.add_argument(
        "--copy", choices=["both", "yes", "no"], default="both", help="which runs: with copy, without, both"
    )
    parser.add_argument("--kb", default=None, help="SPARQL endpoint URL for answer metrics (DBpedia 2016-04)")
    parser.add_argument("--override", nargs="*", default=[], help="extra Hydra overrides for every run")
    args = parser.parse_args()

    keys = [
        k for k in grid(args.models, args.annotations) if args.copy == "both" or k[2] == (args.copy == "yes")
    ]
    results = []
    for model, annotation, copy in keys:
        res = run_one(args, model, annotation, copy)
        results.append(res)
        print(
            f"{res['name']}: "
            + (
                res.get("error")
                or json.dumps(
                    {
                        k: res["metrics"].get(k)
                        for k in ("bleu", "exact_match", "equivalent", "answer_accuracy")
                    }
                )
            ),
            flush=True,
        )
    out = Path(args.out)
    text = table(results, keys)
    (out / "results.md").write_text(text + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(text)


if __name__ == "__main__":
    main()
