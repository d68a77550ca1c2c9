"""int8 with some Linear layers kept in fp32: identical-query share with fp32 (an experiment, issue #19).

Like scripts/compare_quantized.py (same `compare`), but `quantize=int8` quantizes only the nn.Linear
whose qualified name contains none of the `--keep` substrings; the others stay fp32. The split comes
from a training run folder (`--run`); `--data-dir` replaces the run's data.dir, so that preparing the
split writes nothing into the run's own folders.

    OMP_NUM_THREADS=1 python scripts/compare_partial_int8.py EXPORT --run RUN --data-dir data \
        --split validation --keep encoder.block.0
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import torch
from omegaconf import OmegaConf
from torch import nn

sys.path.insert(0, str(Path(__file__).parent))
import compare_quantized  # noqa: E402

from nmt_sparql.models import t5_step  # noqa: E402
from nmt_sparql.preparation.prepare import load_splits  # noqa: E402
from nmt_sparql.serving import quantize, translator  # noqa: E402


def partial_int8(keep: list[str]):
    """A quantize_model whose int8 leaves the Linear layers named by `keep` in fp32."""

    def quantize_model(model: nn.Module, mode: str, device: str | torch.device = "cpu") -> nn.Module:
        if mode != "int8":
            return quantize.quantize_model(model, mode, device)
        names = {n for n, m in model.named_modules() if isinstance(m, nn.Linear)}
        chosen = {n for n in names if not any(k in n for k in keep)}
        print(f"int8: {len(chosen)} of {len(names)} Linear; fp32: {sorted(names - chosen)}", file=sys.stderr)
        qconfig = torch.ao.quantization.per_channel_dynamic_qconfig
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = torch.ao.quantization.quantize_dynamic(
                quantize.fold_parametrizations(model.eval()),
                dict.fromkeys(chosen, qconfig),
                dtype=torch.qint8,
            )
        return t5_step.fuse_int8_projections(model)

    return quantize_model


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("export", type=Path)
    parser.add_argument(
        "--run", type=Path, required=True, help="the training run folder the split comes from"
    )
    parser.add_argument("--data-dir", type=Path, required=True, help="where the split is prepared")
    parser.add_argument("--split", default="test", choices=["train", "validation", "test"])
    parser.add_argument(
        "--keep", nargs="*", default=[], help="name substrings of the Linear layers kept fp32"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    translator.quantize_model = partial_int8(args.keep)
    cfg = OmegaConf.load(args.run / "config.yaml")
    cfg.data.dir = str(args.data_dir)
    examples = load_splits(cfg)[args.split]
    figures = compare_quantized.compare(args.export, examples, ["int8"], 1)
    n = len(examples)
    identical = round(figures["int8"]["identical"] * n)
    print(json.dumps({"keep": args.keep, "split": args.split, "n": n, "identical_n": identical, **figures}))


if __name__ == "__main__":
    main()
