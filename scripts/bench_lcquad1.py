"""Reproduce the paper's Table IV (non-pretrained models) on LC-QuAD 1.0 within a fixed budget per run.

Runs Transformer and ConvSeq2Seq x raw / tag-within / tag-end x copy / no copy (no copy run on raw
questions: they hold no KB element to copy) on the paper's seeded 4,000/500/500 split, each run with
`nmt-sparql train` in its own process and folder, then writes one table: our BLEU and exact match beside
the paper's BLEU and answer accuracy, and the error distribution (Table XIV columns) of each run.
`--annotations linked` adds our KB linker's annotation (the `linked.*` settings of conf/linked/default.yaml; change
them with --override), which the paper has no figures for ("–").
No DBpedia is reachable offline, so exact match stands in for answer accuracy (a lower bound);
pass --kb URL to compute answer metrics against a DBpedia 2016-04 endpoint.

    python scripts/bench_lcquad1.py --data-root ../shared/datasets --budget-s 600 --out benchmarks/lcquad1

With --seeds, every run is repeated per seed and the table gives the mean and standard deviation over
the seeds. With --decode-choices, the run's own test evaluation is skipped: each choice (a set of Hydra
overrides of `nmt-sparql evaluate`) decodes the validation split, the one with the best validation exact
match decodes the test split, once. So checkpoints (train.select_by) and decoding options are both
chosen on validation only.

    python scripts/bench_lcquad1.py --data-root ../shared/datasets --seeds 1 2 3 --max-epochs 30 \
        --copy yes --annotations tag_within tag_end --decode-choices decode.beam=1 decode.beam=4
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from nmt_sparql.annotation.annotator import ANNOTATIONS

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
METRICS = ("bleu", "exact_match", "equivalent", "answer_accuracy")


def grid(models: list[str], annotations: list[str]) -> list[tuple[str, str, bool]]:
    return [(m, a, c) for m in models for a in annotations for c in (False, True) if not (a == "raw" and c)]


def _run(command: list[str], log: Path) -> int:
    with log.open("a") as fh:
        return subprocess.run(command, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode


def _evaluate(run_dir: Path, split: str, choice: str, out: Path, log: Path) -> dict | None:
    """One `nmt-sparql evaluate` of the run's best checkpoint; its metrics, or None when it failed."""
    command = [
        sys.executable, "-m", "nmt_sparql.cli", "evaluate", f"checkpoint={run_dir}", f"split={split}",
        f"out={out}", *choice.split(),
    ]  # fmt: skip
    if _run(command, log) != 0:
        return None
    return json.loads((out / "metrics.json").read_text())


def run_one(args: argparse.Namespace, model: str, annotation: str, copy: bool, seed: int) -> dict:
    name = f"{model}-{annotation}-{'copy' if copy else 'base'}-seed{seed}"
    run_dir = Path(args.out) / name
    choose = bool(args.decode_choices)
    command = [
        sys.executable, "-m", "nmt_sparql.cli", "train", "dataset=lcquad1", f"data.root={args.data_root}",
        f"data.dir={args.data_dir}", f"model={model}_{args.preset}", f"annotation={annotation}", f"copy={copy}",
        f"seed={seed}", f"train.time_budget_s={args.budget_s}", f"train.max_epochs={args.max_epochs}",
        "train.patience=null", "train.progress_bar=false", f"hydra.run.dir={run_dir}",
        *([f"kb={args.kb}"] if args.kb else []), *(["evaluate=false"] if choose else []), *args.override,
    ]  # fmt: skip
    started = time.perf_counter()
    log = run_dir / "bench.log"
    run_dir.mkdir(parents=True, exist_ok=True)
    log.write_text("")
    if (code := _run(command, log)) != 0:
        return {"name": name, "error": f"exit {code}, see {log}", "seconds": time.perf_counter() - started}
    chosen = None
    if choose:
        validation = {c: _evaluate(run_dir, "validation", c, run_dir / f"validation-{i}", log)
                      for i, c in enumerate(args.decode_choices)}  # fmt: skip
        scored = {c: m["exact_match"] for c, m in validation.items() if m is not None}
        if not scored:
            return {"name": name, "error": f"validation decoding failed, see {log}"}
        chosen = max(args.decode_choices, key=lambda c: scored.get(c, -1.0))
        if _evaluate(run_dir, "test", chosen, run_dir / "test", log) is None:
            return {"name": name, "error": f"test decoding failed, see {log}"}
    metrics = json.loads((run_dir / "test" / "metrics.json").read_text())
    report = json.loads((run_dir / "test" / "report.json").read_text())
    log_lines = (run_dir / "train_log.jsonl").read_text().splitlines()
    epochs = sum(json.loads(line).get("event") == "epoch" for line in log_lines)
    return {
        "name": name,
        "seed": seed,
        "metrics": metrics,
        "errors": report.get("errors"),
        "seconds": time.perf_counter() - started,
        "epochs": epochs,
        "decode": chosen,
        "validation_exact_match": scored if choose else None,
    }


def _fmt(values: list[float | None]) -> str:
    """One figure, or the mean ± standard deviation of several (one per seed)."""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:.1f}"
    return f"{statistics.mean(values):.1f} ± {statistics.stdev(values):.1f}"


def _error_share(run: dict, kind: str) -> float | None:
    return ((run.get("errors") or {}).get("distribution") or {}).get(kind)


def table(results: list[list[dict]], keys: list[tuple[str, str, bool]]) -> str:
    """A row per (model, annotation, copy): figures over its seeds' runs."""
    head = ("| model | annotation | copy | seeds | BLEU | exact match % | equivalent % | answer acc. % | paper BLEU "
            "| paper acc. % | " + " | ".join(ERROR_TYPES) + " | epochs | decoding chosen | minutes |")  # fmt: skip
    lines = [head, "|" + "---|" * (13 + len(ERROR_TYPES))]
    for (model, annotation, copy), runs in zip(keys, results):
        paper = PAPER.get((model, annotation, copy), (None, None))
        failed = [r["error"] for r in runs if "error" in r]
        if failed:
            lines.append(f"| {model} | {annotation} | {copy} | {'; '.join(failed)} |")
            continue
        col = {key: _fmt([r["metrics"].get(key) for r in runs]) for key in METRICS}
        seeds = ", ".join(str(r["seed"]) for r in runs)
        decoding = ", ".join(r["decode"] or "train's" for r in runs)
        lines.append(
            f"| {model} | {annotation} | {'yes' if copy else 'no'} | {seeds} | {col['bleu']} | {col['exact_match']} "
            f"| {col['equivalent']} | {col['answer_accuracy']} | {paper[0] if paper[0] is not None else '–'} "
            f"| {paper[1] if paper[1] is not None else '–'} | "
            + " | ".join(_fmt([_error_share(r, t) for r in runs]) for t in ERROR_TYPES)
            + f" | {_fmt([r['epochs'] for r in runs])} | {decoding} "
            f"| {_fmt([r['seconds'] / 60 for r in runs])} |"
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
    parser.add_argument(
        "--annotations", nargs="+", choices=ANNOTATIONS, default=["tag_within", "tag_end", "raw"]
    )
    parser.add_argument(
        "--copy", choices=["both", "yes", "no"], default="both", help="which runs: with copy, without, both"
    )
    parser.add_argument("--kb", default=None, help="SPARQL endpoint URL for answer metrics (DBpedia 2016-04)")
    parser.add_argument("--override", nargs="*", default=[], help="extra Hydra overrides for every run")
    parser.add_argument("--seeds", nargs="+", type=int, default=[42], help="one run per seed; mean ± std")
    parser.add_argument(
        "--decode-choices",
        nargs="*",
        default=[],
        help="decoding options to choose from on validation, each one quoted set of evaluate overrides",
    )
    args = parser.parse_args()

    keys = [
        k for k in grid(args.models, args.annotations) if args.copy == "both" or k[2] == (args.copy == "yes")
    ]
    results = []
    for model, annotation, copy in keys:
        runs = []
        for seed in args.seeds:
            res = run_one(args, model, annotation, copy, seed)
            runs.append(res)
            shown = {k: res["metrics"].get(k) for k in METRICS} if "metrics" in res else {}
            print(
                f"{res['name']}: " + (res.get("error") or json.dumps({**shown, "decode": res["decode"]})),
                flush=True,
            )
        results.append(runs)
    out = Path(args.out)
    text = table(results, keys)
    (out / "results.md").write_text(text + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(text)


if __name__ == "__main__":
    main()
