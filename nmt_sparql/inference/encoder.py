"""The tokenization a model reads: built from the training pairs, saved in the run, reloaded at inference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nmt_sparql.models.registry import CODECS, ensure_registered
from nmt_sparql.tokenization.hf import HFEncoder
from nmt_sparql.tokenization.kbmask import read_encoder_meta
from nmt_sparql.tokenization.prompt import PromptEncoder
from nmt_sparql.tokenization.word import Encoder


def build_encoder(
    model_cfg: dict[str, Any], pairs: list[tuple[str, list[str]]], copy: bool, kb: str, mask: str = "plain"
) -> Any:
    """The tokenization the model expects: word vocabularies, or a (pretrained or trained) HF tokenizer."""
    ensure_registered()
    if CODECS[model_cfg["name"]] == "prompt":
        return PromptEncoder.build(
            pairs,
            kb,
            pretrained=model_cfg.get("pretrained"),
            sp_vocab_size=model_cfg.get("sp_vocab_size", 1000),
            style=model_cfg.get("prompt", "instruction"),
        )
    if CODECS[model_cfg["name"]] == "hf":
        if mask != "plain":
            raise ValueError(
                f"copy_mask={mask}: typed masks are implemented for transformer and convs2s only"
            )
        return HFEncoder.build(
            pairs,
            copy,
            kb,
            pretrained=model_cfg.get("pretrained"),
            sp_vocab_size=model_cfg.get("sp_vocab_size", 1000),
        )
    return Encoder.build(pairs, copy, kb, min_freq=model_cfg.get("min_freq", 1), mask=mask)


def load_encoder(directory: Path) -> Any:
    """Reload the tokenization saved by a training run."""
    kind = read_encoder_meta(directory)["type"]
    if kind == "prompt":
        return PromptEncoder.load(directory)
    return Encoder.load(directory) if kind == "word" else HFEncoder.load(directory)
