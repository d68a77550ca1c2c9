"""Greedy decoding throughput of a T5-small-shaped copy model: cached greedy vs the references.

Decoders measured (all under torch.inference_mode, same inputs, same number of generated tokens):
  greedy/copy         nmt_sparql.decoding.greedy on the copy model (the decoder-cache path)
  reference/copy      benchmarks/reference_decoding.reference_greedy on the copy model: a full forward over
                      the whole prefix (encoder included) at every step for max_len steps
  greedy/no-copy      nmt_sparql.decoding.greedy on the same architecture without copy
  hf-generate/no-copy transformers `generate` (greedy, num_beams=1, use_cache=True) on that model

Equal work: the weights are random, so a row could emit EOS at any step. EOS is disabled for every
decoder: our wrappers get eos_id = -1 (an id argmax never returns), `generate` gets
min_new_tokens = max_new_tokens = max_len (its EOS logit is masked). Every query therefore yields
exactly max_len tokens, which the script checks, so queries/s and tokens/s differ by the factor max_len.

With --query-len L the comparison is the one of real use: a trained model ends its query at EOS after
L tokens (a typical LC-QuAD query is 15-25 tokens), which our greedy and `generate` both honour
(emulated by forcing EOS at step L+1 and masking it before), while the reference re-runs the full
model for max_len steps, as the reference code did whatever the query's length.

Usage: python scripts/bench_decode.py --batch-sizes 1 32 128 --out results/bench_decode.json
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import torch
import transformers
from omegaconf import OmegaConf

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.decoding import greedy
from nmt_sparql.models.registry import build_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from reference_decoding import reference_greedy  # noqa: E402  (the uncached baseline lives with the benchmarks)

PAD, BOS, EOS, KB = 0, 0, 1, 2  # T5 convention: the decoder starts from the pad id
NO_EOS = -1  # an id argmax never returns: rows never finish, every decoder does max_len steps
DECODERS = ("greedy/copy", "reference/copy", "greedy/no-copy", "hf-generate/no-copy")


def t5_config(vocab_size: int, overrides: dict[str, int]) -> dict[str, Any]:
    """The shipped conf/model/t5.yaml's model with random init (no weights) and optional smaller dims."""
    with resources.as_file(resources.files("nmt_sparql.conf") / "model" / "t5.yaml") as path:
        cfg = OmegaConf.to_container(OmegaConf.load(path).model, resolve=True)
    assert isinstance(cfg, dict)
    cfg["pretrained"] = None
    cfg["config"] = {**cfg["config"], **{k: v for k, v in overrides.items() if v is not None}}
    cfg["sp_vocab_size"] = vocab_size
    return cfg


def build(cfg: dict[str, Any], vocab_size: int, copy: bool, device: str) -> torch.nn.Module:
    spec = VocabSpec(
        src_size=vocab_size, tgt_size=vocab_size, src_pad_id=PAD, pad_id=PAD, bos_id=BOS, eos_id=EOS, kb_id=KB
    )
    torch.manual_seed(0)
    model = build_model(cfg, spec, copy=copy).to(device).eval()
    model.eos_id = NO_EOS
    return model


def make_batches(n_queries: int, batch_size: int, vocab_size: int, copy: bool, seed: int = 0) -> list[Batch]:
    """Questions of 20-30 tokens with 2-3 KB elements (masked `<kb>` + slot with copy, plain ids without)."""
    gen = torch.Generator().manual_seed(seed)
    batches = []
    for start in range(0, n_queries, batch_size):
        size = min(batch_size, n_queries - start)
        lengths = torch.randint(20, 31, (size,), generator=gen)
        width = int(lengths.max())
        src = torch.randint(KB + 1, vocab_size, (size, width), generator=gen)
        slots = torch.full((size, width), -1, dtype=torch.long)
        for row, length in enumerate(lengths.tolist()):
            n_kb = int(torch.randint(2, 4, (1,), generator=gen))
            positions = torch.randperm(length - 1, generator=gen)[:n_kb].sort().values
            src[row, length - 1] = EOS
            src[row, length:] = PAD
            if copy:
                src[row, positions] = KB
                slots[row, positions] = torch.arange(n_kb)
        mask = torch.arange(width)[None, :] < lengths[:, None]
        batches.append(Batch(src, mask, slots))
    return batches


class EndsAt(torch.nn.Module):
    """A model whose rows end with EOS after exactly `length` tokens, as a trained model's queries do.

    The wrapped model's step is computed in full at every step; only EOS is masked before step
    `length` + 1 and forced at it, so the decoder's work is that of a real `length`-token query.
    """

    def __init__(self, model: torch.nn.Module, length: int):
        super().__init__()
        self.inner, self.length = model, length
        self.vocab_size, self.copy, self.pad_id, self.bos_id = (
            model.vocab_size,
            model.copy,
            model.pad_id,
            model.bos_id,
        )
        self.eos_id = EOS

    def encode(self, batch: Batch) -> Any:
        return self.inner.encode(batch)

    def decode_step(self, tokens: torch.Tensor, state: Any, cache: Any | None) -> tuple[torch.Tensor, Any]:
        inner_cache, step = cache if cache is not None else (None, 0)
        log_probs, inner_cache = self.inner.decode_step(tokens, state, inner_cache)
        log_probs = log_probs.clone()
        if step < self.length:
            log_probs[:, EOS] = float("-inf")
        else:
            log_probs.fill_(float("-inf"))
            log_probs[:, EOS] = 0.0
        return log_probs, (inner_cache, step + 1)

    def reorder(self, state: Any, cache: Any, index: torch.Tensor) -> tuple[Any, Any]:
        inner_cache, step = cache
        state, inner_cache = self.inner.reorder(state, inner_cache, index)
        return state, (inner_cache, step)


def _check_lengths(outputs: list[list[int]], max_len: int, name: str) -> None:
    if any(len(ids) != max_len for ids in outputs):
        raise RuntimeError(f"{name}: a query did not decode exactly {max_len} tokens (unequal work)")


def ours(
    decode: Callable[..., list[list[int]]],
    model: torch.nn.Module,
    max_len: int,
    name: str,
    length: int | None = None,
) -> Callable:
    """Decode with at most `max_len` steps; every query must come out `length` (default max_len) tokens long."""

    def run(batch: Batch) -> None:
        _check_lengths(decode(model, batch, max_len), max_len if length is None else length, name)

    return run


class EndAtProcessor(transformers.LogitsProcessor):
    """`generate`'s side of `EndsAt`: EOS masked for the first `length` tokens, forced as token `length` + 1.

    So `generate` runs the same `length` + 1 decoder steps as our greedy does on a `length`-token query.
    """

    def __init__(self, length: int):
        self.length = length

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        if input_ids.size(1) - 1 < self.length:  # input_ids holds the decoder start + the tokens so far
            return scores.index_fill(1, torch.tensor([EOS], device=scores.device), float("-inf"))
        forced = torch.full_like(scores, float("-inf"))
        forced[:, EOS] = 0.0
        return forced


def hf_generate(model: torch.nn.Module, max_len: int, length: int | None = None) -> Callable:
    """`generate` on the HF T5 inside the non-copy wrapper: exactly max_len new tokens (EOS never
    emitted), or with `length`, `length` tokens then EOS (as `EndsAt` makes ours)."""
    hf = model.model
    if length is None:
        steps = {"max_new_tokens": max_len, "min_new_tokens": max_len}
    else:
        steps = {
            "max_new_tokens": length + 1,
            "eos_token_id": EOS,
            "logits_processor": transformers.LogitsProcessorList([EndAtProcessor(length)]),
        }

    def run(batch: Batch) -> None:
        with torch.inference_mode():
            out = hf.generate(
                input_ids=batch.src_ids,
                attention_mask=batch.src_mask.long(),
                do_sample=False,
                num_beams=1,
                use_cache=True,
                **steps,
            )
        rows = [row[1:] for row in out.tolist()]
        if length is not None:
            if any(row[-1] != EOS for row in rows):
                raise RuntimeError("hf-generate: a query did not end with EOS (unequal work)")
            rows = [row[:-1] for row in rows]
        _check_lengths(rows, max_len if length is None else length, "hf-generate")

    return run


def measure(
    runs: dict[str, tuple[Callable[[Batch], None], list[Batch], int]], device: str
) -> dict[str, list[float]]:
    """Timed passes over each decoder's batches, interleaved: pass r of every decoder runs before pass r + 1.

    Round-robin order spreads slow drifts of the machine (other load, clock changes) over all
    decoders alike instead of charging them to whichever ran last. Each decoder first gets a one-query
    warm-up (cheap even for the reference). `runs` maps a name to (run, batches, repeats).
    """
    on_device = {name: [b.to(device) for b in batches] for name, (_, batches, _) in runs.items()}
    for name, (run, _, _) in runs.items():
        first = on_device[name][0]
        run(Batch(first.src_ids[:1], first.src_mask[:1], first.src_slots[:1]))
    times: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(max(repeats for _, _, repeats in runs.values())):
        for name, (run, _, repeats) in runs.items():
            if r >= repeats:
                continue
            if device == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            for batch in on_device[name]:
                run(batch)
            if device == "cuda":
                torch.cuda.synchronize()
            times[name].append(time.perf_counter() - start)
    return times


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def markdown_table(results: list[dict[str, Any]], batch_sizes: list[int]) -> str:
    by = {(r["decoder"], r["batch_size"]): r for r in results}
    lines = [
        "| decoder | " + " | ".join(f"batch {b} (q/s)" for b in batch_sizes) + " |",
        "|---|" + "---:|" * len(batch_sizes),
    ]
    for name in DECODERS:
        cells = [f"{by[name, b]['queries_per_s']:.2f}" if (name, b) in by else "-" for b in batch_sizes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for label, num, den in (
        ("speed-up vs (a) reference", "greedy/copy", "reference/copy"),
        ("greedy/copy vs (b) HF generate", "greedy/copy", "hf-generate/no-copy"),
        ("greedy/no-copy vs (b) HF generate", "greedy/no-copy", "hf-generate/no-copy"),
    ):
        cells = [
            f"{by[num, b]['queries_per_s'] / by[den, b]['queries_per_s']:.2f}x"
            if (num, b) in by and (den, b) in by
            else "-"
            for b in batch_sizes
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 32, 128])
    p.add_argument(
        "--n-queries", type=int, default=128, help="queries per timed pass (rounded up to a batch)"
    )
    p.add_argument("--min-batches", type=int, default=1, help="at least this many batches per timed pass")
    p.add_argument("--ref-queries", type=int, default=1, help="queries per pass for the slow reference")
    p.add_argument("--max-len", type=int, default=64)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--ref-repeats", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--d-model", type=int)
    p.add_argument("--d-ff", type=int)
    p.add_argument("--num-layers", type=int, help="encoder and decoder layers")
    p.add_argument("--num-heads", type=int)
    p.add_argument(
        "--query-len", type=int, help="queries end after this many tokens (the reference still runs max_len)"
    )
    p.add_argument("--decoders", nargs="+", choices=DECODERS, default=list(DECODERS))
    p.add_argument("--out", type=Path, help="JSON results file")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    dims = {"d_model": args.d_model, "d_ff": args.d_ff, "num_heads": args.num_heads}
    if args.num_layers is not None:
        dims |= {"num_layers": args.num_layers, "num_decoder_layers": args.num_layers}
    if args.d_model is not None and args.num_heads is not None:
        dims["d_kv"] = args.d_model // args.num_heads
    cfg = t5_config(args.vocab_size, dims)
    models = {copy: build(cfg, args.vocab_size, copy, args.device) for copy in (True, False)}
    results = []
    for batch_size in args.batch_sizes:
        runs, sizes = {}, {}
        for name in args.decoders:
            slow = name.startswith("reference")
            wanted = args.ref_queries if slow else max(args.n_queries, args.min_batches * batch_size)
            sizes[name] = -(-wanted // batch_size) * batch_size  # whole batches only
            copy = name.endswith("/copy")
            model = models[copy]
            length = args.max_len if slow or args.query_len is None else args.query_len
            if name.startswith("hf"):
                run = hf_generate(model, args.max_len, args.query_len)
            elif slow:
                run = ours(reference_greedy, model, args.max_len, name)
            else:
                stepper = model if args.query_len is None else EndsAt(model, args.query_len)
                run = ours(greedy, stepper, args.max_len, name, length)
            batches = make_batches(sizes[name], batch_size, args.vocab_size, copy)
            runs[name] = (run, batches, args.ref_repeats if slow else args.repeats)
        timed = measure(runs, args.device)
        for name, times in timed.items():
            n_queries = sizes[name]
            length = (
                args.max_len if name.startswith("reference") or args.query_len is None else args.query_len
            )
            median = statistics.median(times)
            results.append(
                {
                    "decoder": name,
                    "batch_size": batch_size,
                    "n_queries": n_queries,
                    "seconds": times,
                    "median_s": median,
                    "queries_per_s": n_queries / median,
                    "tokens_per_s": n_queries * length / median,
                }
            )
            print(f"{name:20s} batch {batch_size:4d}: {n_queries / median:9.2f} q/s ({times})", flush=True)
    table = markdown_table(results, args.batch_sizes)
    print(table)
    report = {
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "model_config": cfg["config"],
        "eos_rule": (
            "EOS disabled: eos_id=-1 for ours, min_new_tokens=max_new_tokens=max_len for generate"
            if args.query_len is None
            else f"queries end at EOS after {args.query_len} tokens (ours, generate); the reference runs max_len"
        ),
        "machine": {
            "cpu": cpu_model(),
            "threads": torch.get_num_threads(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
            "device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu",
        },
        "results": results,
        "table": table,
    }
    if args.out is not None:
        atomic_write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
