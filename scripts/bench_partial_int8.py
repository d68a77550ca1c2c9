"""Batch-1 greedy speed of int8 T5 with the first encoder block kept fp32 (an experiment, issue #19).

The T5 rows of scripts/bench_quantize.py (random init at conf/model/t5.yaml dims, every query 20 tokens
+ EOS, batch 1, passes round-robin) for three decoders: HF `generate` fp32, our greedy with the shipped
int8, and our greedy with int8 except the Linear layers named by `--keep` (scripts/compare_partial_int8.py).

    OMP_NUM_THREADS=1 python scripts/bench_partial_int8.py --keep encoder.block.0
"""

from __future__ import annotations

import argparse
import copy
import statistics

import torch
from bench_quantize import (
    EndsAt,
    bench_t5_config,
    build,
    greedy,
    hf_generate,
    int8,
    make_batches,
    measure,
    ours,
)
from compare_partial_int8 import partial_int8


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep", nargs="+", default=["encoder.block.0"])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--n-queries", type=int, default=4)
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--max-len", type=int, default=64)
    parser.add_argument("--query-len", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    length = args.query_len
    t5 = build(bench_t5_config(args.vocab_size, {}), args.vocab_size, False, "cpu")
    kept = partial_int8(args.keep)(copy.deepcopy(t5), "int8", "cpu")
    runs = {
        "t5/hf-generate/fp32": hf_generate(t5, args.max_len, length),
        "t5/greedy/int8": ours(greedy, EndsAt(int8(t5), length), args.max_len, "int8", length),
        "t5/greedy/int8-kept-fp32": ours(greedy, EndsAt(kept, length), args.max_len, "kept", length),
    }
    batches = make_batches(args.n_queries, 1, args.vocab_size, copy=False)
    timed = measure({name: (run, batches, args.repeats) for name, run in runs.items()}, "cpu")
    qps = {name: args.n_queries / statistics.median(times) for name, times in timed.items()}
    for name, times in timed.items():
        print(f"{name:26s} {qps[name]:7.2f} q/s  passes {[round(t, 3) for t in times]}")
    hf = qps["t5/hf-generate/fp32"]
    print(f"int8 vs HF generate fp32: {qps['t5/greedy/int8'] / hf:.2f}x")
    print(f"int8 with {args.keep} fp32 vs HF generate fp32: {qps['t5/greedy/int8-kept-fp32'] / hf:.2f}x")
    print(f"kept-fp32 vs int8: {qps['t5/greedy/int8-kept-fp32'] / qps['t5/greedy/int8']:.3f}x")


if __name__ == "__main__":
    main()
