"""Batch-1 greedy decoding in int8: ours (dynamic int8 Linear layers) vs HF `generate` fp32 vs CTranslate2.

One run, decoders timed round-robin (pass r of every decoder before pass r + 1), same threads:
  T5 (conf/model/t5.yaml dims, random init, no copy):
    t5/hf-generate/fp32   transformers `generate` (greedy, cache) on the fp32 model: the baseline
    t5/greedy/fp32        nmt_sparql.decoding.greedy on the same fp32 model
    t5/greedy/int8        the same greedy on the model as `quantize=int8` loads it (serving/quantize.py)
    t5/greedy-hf-step/int8  the same, each step through the transformers forward (decode_step before
                          models/t5_step.py): what the lean step gains
    t5/ct2/int8           CTranslate2 (int8 weights, its T5 converter) on the same weights
  Transformer (ours, random init, no copy, T5-small dims by default, post-norm as conf/model/transformer.yaml):
    transformer/greedy/fp32, transformer/greedy/int8, transformer/ct2/int8 (nmt_sparql/serving/ct2.py)

Equal work as in scripts/bench_decode.py: every query ends with EOS after exactly `--query-len` tokens
(`query-len` + 1 decoder steps) for ours and `generate`; CTranslate2 gets min = max decoding length =
`query-len` + 1, the same number of decoder steps, and the script checks every query's length.
CTranslate2 is the optional `bench` extra (pip install 'nmt-sparql[bench]'); without it its rows are skipped.

    python scripts/bench_quantize.py --threads 2 --repeats 7 --out results/bench_quantize.json
"""

from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import transformers
from bench_decode import BOS, EOS, KB, PAD, EndsAt, build, cpu_model, hf_generate, make_batches, measure, ours
from bench_decode import t5_config as bench_t5_config

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.decoding import greedy
from nmt_sparql.models.registry import build_model
from nmt_sparql.serving.quantize import quantize_model


def load_ct2() -> Any | None:
    try:
        import ctranslate2
    except ImportError:
        return None
    return ctranslate2


def transformer_model(args: argparse.Namespace) -> torch.nn.Module:
    """Our non-copy Transformer, random init, vocabulary and ids as the T5 rows use (start = pad = 0)."""
    spec = VocabSpec(
        src_size=args.vocab_size, tgt_size=args.vocab_size, src_pad_id=PAD, pad_id=PAD, bos_id=BOS, eos_id=EOS,
        kb_id=KB,
    )  # fmt: skip
    cfg = {
        "name": "transformer", "dim": args.d_model, "ffn_dim": args.d_ff, "heads": args.num_heads,
        "encoder_layers": args.num_layers, "decoder_layers": args.num_layers, "dropout": 0.0,
        "pre_norm": args.pre_norm, "share_decoder_embeddings": True,
    }  # fmt: skip
    torch.manual_seed(0)
    return build_model(cfg, spec, copy=False).eval()


def ct2_run(ct2: Any, folder: Path, threads: int, length: int) -> Callable[[Batch], None]:
    """CTranslate2 greedy on int8 weights: exactly `length` + 1 decoder steps per query."""
    translator = ct2.Translator(str(folder), device="cpu", compute_type="int8", intra_threads=threads)

    def run(batch: Batch) -> None:
        sources = [
            [f"t{i}" for i, keep in zip(row, mask) if keep]
            for row, mask in zip(batch.src_ids.tolist(), batch.src_mask.tolist())
        ]
        out = translator.translate_batch(
            sources, beam_size=1, max_decoding_length=length + 1, min_decoding_length=length + 1
        )
        if any(len(r.hypotheses[0]) != length + 1 for r in out):
            raise RuntimeError("ct2: a query did not decode exactly query-len + 1 steps (unequal work)")

    return run


class TransformersStep(torch.nn.Module):
    """A T5 whose steps run through the transformers forward, as `decode_step` did before models/t5_step.py."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.inner = model
        self.vocab_size, self.copy, self.pad_id, self.bos_id, self.eos_id = (
            model.vocab_size, model.copy, model.pad_id, model.bos_id, model.eos_id,
        )  # fmt: skip

    def encode(self, batch: Batch) -> Any:
        return self.inner.encode(batch)

    def decode_step(self, tokens: torch.Tensor, state: Any, cache: Any | None) -> tuple[torch.Tensor, Any]:
        log_probs, cache = self.inner._run_decoder(tokens[:, None], state, cache, use_cache=True)
        return log_probs[:, -1], cache

    def reorder(self, state: Any, cache: Any, index: torch.Tensor) -> tuple[Any, Any]:
        return self.inner.reorder(state, cache, index)


def int8(model: torch.nn.Module) -> torch.nn.Module:
    """A copy of `model` as `quantize=int8` runs it (the fp32 model stays for the other rows)."""
    return quantize_model(copy.deepcopy(model), "int8", "cpu")


def decoders(args: argparse.Namespace, ct2: Any, workdir: Path) -> dict[str, Callable[[Batch], None]]:
    """Every decoder to time, by name (CTranslate2 rows only when it is installed)."""
    from nmt_sparql.serving import ct2 as convert

    length = args.query_len
    t5_cfg = bench_t5_config(args.vocab_size, {})
    t5 = build(t5_cfg, args.vocab_size, False, "cpu")
    t5_int8 = int8(t5)
    runs = {
        "t5/hf-generate/fp32": hf_generate(t5, args.max_len, length),
        "t5/greedy/fp32": ours(greedy, EndsAt(t5, length), args.max_len, "t5/greedy/fp32", length),
        "t5/greedy/int8": ours(greedy, EndsAt(t5_int8, length), args.max_len, "t5/greedy/int8", length),
        "t5/greedy-hf-step/int8": ours(
            greedy, EndsAt(TransformersStep(t5_int8), length), args.max_len, "t5/greedy-hf-step/int8", length
        ),
    }
    if ct2 is not None:
        runs["t5/ct2/int8"] = ct2_run(
            ct2, convert.save(convert.t5_spec(t5.model), workdir / "t5", "int8"), args.threads, length
        )
    tf = transformer_model(args)
    runs |= {
        "transformer/greedy/fp32": ours(greedy, EndsAt(tf, length), args.max_len, "tf/fp32", length),
        "transformer/greedy/int8": ours(greedy, EndsAt(int8(tf), length), args.max_len, "tf/int8", length),
    }
    if ct2 is not None:
        folder = convert.save(convert.transformer_spec(tf, args.max_len + 2), workdir / "transformer", "int8")
        runs["transformer/ct2/int8"] = ct2_run(ct2, folder, args.threads, length)
    return runs


RATIOS = (
    ("t5: our int8 vs HF generate fp32 (target >= 1.8x)", "t5/greedy/int8", "t5/hf-generate/fp32"),
    ("t5: our fp32 vs HF generate fp32", "t5/greedy/fp32", "t5/hf-generate/fp32"),
    ("t5: our int8, transformers step vs HF generate fp32", "t5/greedy-hf-step/int8", "t5/hf-generate/fp32"),
    ("t5: lean step vs transformers step (int8)", "t5/greedy/int8", "t5/greedy-hf-step/int8"),
    ("t5: CTranslate2 int8 vs HF generate fp32", "t5/ct2/int8", "t5/hf-generate/fp32"),
    ("t5: CTranslate2 int8 vs our int8", "t5/ct2/int8", "t5/greedy/int8"),
    ("transformer: our int8 vs our fp32", "transformer/greedy/int8", "transformer/greedy/fp32"),
    ("transformer: CTranslate2 int8 vs our fp32", "transformer/ct2/int8", "transformer/greedy/fp32"),
    ("transformer: CTranslate2 int8 vs our int8", "transformer/ct2/int8", "transformer/greedy/int8"),
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n-queries", type=int, default=8, help="batch-1 queries per timed pass")
    p.add_argument("--query-len", type=int, default=20, help="tokens per query before EOS")
    p.add_argument("--max-len", type=int, default=64)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument(
        "--d-model", type=int, default=512, help="our Transformer's dims (T5 uses conf/model/t5.yaml)"
    )
    p.add_argument("--d-ff", type=int, default=2048)
    p.add_argument("--num-layers", type=int, default=6)
    p.add_argument("--num-heads", type=int, default=8)
    p.add_argument("--pre-norm", action="store_true", help="pre-norm Transformer (default: post-norm)")
    p.add_argument("--out", type=Path, help="JSON results file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    ct2 = load_ct2()
    with tempfile.TemporaryDirectory() as tmp:
        runs = decoders(args, ct2, Path(tmp))
        batches = make_batches(args.n_queries, 1, args.vocab_size, copy=False)
        timed = measure({name: (run, batches, args.repeats) for name, run in runs.items()}, "cpu")
    rows = {}
    for name, times in timed.items():
        median = statistics.median(times)
        rows[name] = {"seconds": times, "median_s": median, "queries_per_s": args.n_queries / median}
        print(
            f"{name:26s} {args.n_queries / median:7.2f} q/s  passes {[round(t, 2) for t in times]}",
            flush=True,
        )
    ratios = {
        label: rows[num]["queries_per_s"] / rows[den]["queries_per_s"]
        for label, num, den in RATIOS
        if num in rows and den in rows
    }
    for label, value in ratios.items():
        print(f"{label}: {value:.2f}x")
    report = {
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "machine": {
            "cpu": cpu_model(),
            "threads": torch.get_num_threads(),
            "torch": str(torch.__version__),
            "transformers": transformers.__version__,
            "ctranslate2": getattr(ct2, "__version__", None),
        },
        "results": rows,
        "ratios": ratios,
    }
    if args.out is not None:
        atomic_write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
