"""The tokenization a model reads: built from the training pairs, saved in the run, reloaded at inference."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nmt_sparql.models.registry import CODECS, ensure_registered
from nmt_sparql.tokenization.hf import HFTokenizer
from nmt_sparql.tokenization.kbmask import read_tokenizer_meta
from nmt_sparql.tokenization.prompt import PromptTokenizer
from nmt_sparql.tokenization.word import WordTokenizer


def build_tokenizer(
    model_cfg: dict[str, Any], pairs: list[tuple[str, list[str]]], copy: bool, kb: str, mask: str = "plain"
) -> Any:
    """The tokenization the model expects: word vocabularies, or a (pretrained or trained) HF tokenizer."""
    ensure_registered()
    if CODECS[model_cfg["name"]] == "prompt":
        return PromptTokenizer.build(
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
        return HFTokenizer.build(
            pairs,
            copy,
            kb,
            pretrained=model_cfg.get("pretrained"),
            sp_vocab_size=model_cfg.get("sp_vocab_size", 1000),
        )
    return WordTokenizer.build(pairs, copy, kb, min_freq=model_cfg.get("min_freq", 1), mask=mask)


def load_tokenizer(directory: Path) -> Any:
    """Reload the tokenization saved by a training run."""
    kind = read_tokenizer_meta(directory)["type"]
    if kind == "prompt":
        return PromptTokenizer.load(directory)
    return WordTokenizer.load(directory) if kind == "word" else HFTokenizer.load(directory)
