"""A training run folder -> a self-contained inference folder (no training config, no pickle).

The export holds everything `Translator.from_pretrained` needs:
  model.safetensors   the chosen checkpoint's weights
  config.json         model config, copy flag, KB name, annotation scheme and seed, decode defaults,
                      `quantize` (none | int8 | bf16: applied when the fp32 weights are loaded, serving/quantize.py)
  tokenizer/          the run's tokenization (word vocabularies or a Hugging Face tokenizer), JSON only
  prefixes.json       the KB prefix map, so a user's own KB detokenizes without registering it
  kb_index.sqlite     the KB index raw questions are linked with (runs of a non-raw annotation)
  hf/                 BART/T5/LLMs: the underlying transformers model + tokenizer (save_pretrained; an
                      LLM's LoRA adapters merged in), usable by Hugging Face tools and loaded from here
  manifest.json       the sha256 of every other file (serving/manifest.py), checked on load
It is written in a temporary sibling folder and renamed into place, so a crash leaves no half export.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf
from safetensors.torch import save_model

from nmt_sparql.atomic import atomic_write, atomic_write_json
from nmt_sparql.data.fingerprint import recorded_code
from nmt_sparql.inference.tokenizer import load_tokenizer
from nmt_sparql.models.causal_lm import CausalLM
from nmt_sparql.models.pretrained import PretrainedSeq2Seq
from nmt_sparql.models.registry import RECIPE_KEYS, build_model, codec_for
from nmt_sparql.preparation.linking_index import INDEX_FILE, copy_index
from nmt_sparql.serving.manifest import write_manifest
from nmt_sparql.serving.quantize import check_mode
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.training.checkpoint import load_weights, resolve_checkpoint

FORMAT = "nmt-sparql-export"
VERSION = 2  # 2: manifest.json (version 1 exports have none)
DECODE_KEYS = ("beam", "n_best", "max_len", "batch_size", "grammar", "kb_constraint")
# Files an export may never contain: pickles run code when loaded.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".pt", ".pth", ".bin", ".ckpt")


class ExportError(ValueError):
    """A run folder that cannot be exported (missing or malformed parts)."""


def find_pickles(folder: Path) -> list[str]:
    """Files under `folder` in a pickle format (torch/HF `.bin`, `.pt`, ...): never written nor loaded."""
    return sorted(str(p) for p in folder.rglob("*") if p.suffix.lower() in PICKLE_SUFFIXES)


def _run_config(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "config.yaml"
    if not path.is_file():
        raise ExportError(f"{path}: not found; is {run_dir} a `nmt-sparql train` run folder?")
    cfg = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    for key in ("model", "copy", "annotation", "dataset"):
        if key not in cfg:
            raise ExportError(f"{path}: field '{key}' is missing")
    return cfg


def export_config(
    cfg: dict[str, Any], checkpoint: Path, quantize: str = "none", code: str | None = None
) -> dict[str, Any]:
    """The inference settings of a run: what builds the model and how its inputs are written (`code`:
    the version of the code that linked its training questions, `recorded_code`)."""
    model_cfg = {k: v for k, v in cfg["model"].items() if k not in RECIPE_KEYS}  # older runs carried them
    if codec_for(model_cfg["name"]) in ("hf", "prompt"):
        model_cfg["pretrained"] = "hf"  # the export's own hf/ folder, resolved at load time
    if codec_for(model_cfg["name"]) == "prompt":  # adapters merged into hf/, nothing else to load
        model_cfg.update(lora=None, quantization=None, gradient_checkpointing=False, frozen=True)
    decode = cfg.get("decode") or {}
    return {
        "format": FORMAT,
        "version": VERSION,
        "model": model_cfg,
        "copy": bool(cfg["copy"]),
        "kb": cfg["dataset"]["kb"],
        "annotation": {
            "scheme": cfg["annotation"],
            "seed": int(cfg.get("seed", 0)),
            "linked": cfg.get("linked"),
            "code": code,
        },
        "decode": {k: decode[k] for k in DECODE_KEYS if k in decode},
        "quantize": check_mode(quantize),
        "source": {"dataset": cfg["dataset"].get("name"), "checkpoint": str(checkpoint)},
    }


def _write(model: Any, tokenizer: Any, config: dict[str, Any], folder: Path, index: Path | None) -> None:
    folder.mkdir(parents=True)
    if index is not None:
        copy_index(index, folder)
    if isinstance(model, CausalLM):
        model.merge_and_freeze()
    atomic_write(folder / "model.safetensors", lambda p: save_model(model, str(p)))
    tokenizer.save(folder / "tokenizer")
    pm = prefix_map(config["kb"])
    atomic_write_json(
        folder / "prefixes.json",
        {"name": pm.name, "prefixes": pm.prefixes, "vocabulary_iris": sorted(pm.vocabulary_iris)},
    )
    if isinstance(model, (PretrainedSeq2Seq, CausalLM)):
        model.model.save_pretrained(str(folder / "hf"))
        tokenizer.hf_tokenizer.save_pretrained(str(folder / "hf"))
    atomic_write_json(folder / "config.json", config)
    pickles = find_pickles(folder)
    if pickles:
        raise ExportError(f"export would contain pickle files: {pickles}")
    write_manifest(folder)  # last: marks the export complete


def export_model(
    run_dir: str | Path, out: str | Path, checkpoint: str = "best", quantize: str = "none"
) -> Path:
    """Write the export of `run_dir`'s `checkpoint` (best, else last) into `out`, replacing it atomically.

    `quantize` (none | int8 | bf16) is how `translate` and `serve` run the model: kept in config.json,
    the weights stay fp32 safetensors."""
    quantize = check_mode(quantize)
    run_dir, out = Path(run_dir), Path(out)
    cfg = _run_config(run_dir)
    folder = resolve_checkpoint(run_dir / checkpoint)
    if folder is None and checkpoint == "best":
        folder = resolve_checkpoint(run_dir / "last")
    if folder is None:
        raise ExportError(f"{run_dir}: no complete checkpoint '{checkpoint}' (nor last/)")
    tokenizer = load_tokenizer(run_dir / "tokenizer")
    build_cfg = cfg["model"]
    if codec_for(build_cfg["name"]) == "prompt":  # merged into a full-precision base, on any machine
        build_cfg = {**build_cfg, "quantization": None, "gradient_checkpointing": False}
    model = build_model(build_cfg, tokenizer.spec, bool(cfg["copy"]))
    load_weights(folder, model)
    config = export_config(cfg, folder, quantize, recorded_code(run_dir))

    tmp = out.with_name(f".{out.name}.tmp")
    old = out.with_name(f".{out.name}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        index = run_dir / INDEX_FILE
        _write(model, tokenizer, config, tmp, index if index.is_file() else None)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if out.exists():
        os.replace(out, old)
    os.replace(tmp, out)
    shutil.rmtree(old, ignore_errors=True)
    return out
