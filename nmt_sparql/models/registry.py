"""Config name -> model builder, fairseq style: each model module registers its builder.

`build_model(cfg, spec, copy)` takes the model config (the `model:` section of conf/model/<name>.yaml),
the tokenization's `VocabSpec` and the top-level `copy` flag. `CODECS[name]` says which tokenization a model expects:
"word" (tokenization.word.WordTokenizer), "hf" (tokenization.hf.HFTokenizer) or "prompt" (tokenization.prompt.PromptTokenizer:
instruction prompts of decoder-only LLMs).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from torch import nn

from nmt_sparql.core.interface import VocabSpec

Builder = Callable[[dict[str, Any], VocabSpec, bool], nn.Module]

MODELS: dict[str, Builder] = {}
CODECS: dict[str, str] = {}

# Keys of a model config read outside the architecture: by the registry, the train command
# (pretrained) and the tokenization (min_freq: word vocabularies, sp_vocab_size: SentencePiece).
NON_ARCHITECTURE_KEYS = frozenset({"name", "pretrained", "min_freq", "sp_vocab_size"})
# Training settings that model configs of older runs carried (they are train.* now): dropped when
# such a run folder or export is loaded, refused by training (commands/train.py).
RECIPE_KEYS = frozenset(
    {"optimizer", "scheduler", "batch_size", "clip_norm", "label_smoothing", "max_epochs"}
)
_BUILTIN = (
    "nmt_sparql.models.transformer",
    "nmt_sparql.models.convs2s",
    "nmt_sparql.models.pretrained",
    "nmt_sparql.models.causal_lm",
)


class ModelConfigError(ValueError):
    """A model config that names an unknown model or key."""


def register_model(name: str, codec: str) -> Callable[[Builder], Builder]:
    """Decorator: make `builder` available as config name `name`."""
    if codec not in ("word", "hf", "prompt"):
        raise ValueError(f"codec must be 'word', 'hf' or 'prompt', got {codec!r}")

    def wrap(builder: Builder) -> Builder:
        if name in MODELS and MODELS[name] is not builder:
            raise ValueError(f"model {name!r} is registered twice")
        MODELS[name], CODECS[name] = builder, codec
        return builder

    return wrap


def _plain(cfg: Any) -> dict[str, Any]:
    """A plain dict from a Hydra/OmegaConf config or a mapping."""
    try:
        from omegaconf import DictConfig, OmegaConf

        if isinstance(cfg, DictConfig):
            return dict(OmegaConf.to_container(cfg, resolve=True))  # type: ignore[arg-type]
    except ImportError:
        pass
    if not isinstance(cfg, Mapping):
        raise ModelConfigError(f"model config must be a mapping, got {type(cfg).__name__}")
    return dict(cfg)


def architecture_kwargs(
    cfg: dict[str, Any], target: Callable[..., Any], skip: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Config keys that are parameters of `target`; any key neither architecture nor training is an error."""
    params = set(inspect.signature(target).parameters) - {"self", "spec", "copy", "model", *skip}
    unknown = set(cfg) - params - NON_ARCHITECTURE_KEYS - set(skip)
    if unknown:
        allowed = sorted(params | NON_ARCHITECTURE_KEYS | set(skip))
        raise ModelConfigError(
            f"model {cfg.get('name')!r}: unknown config keys {sorted(unknown)}; allowed: {allowed}"
        )
    return {k: v for k, v in cfg.items() if k in params}


def ensure_registered() -> None:
    for module in _BUILTIN:
        importlib.import_module(module)


def codec_for(name: str) -> str:
    ensure_registered()
    if name not in CODECS:
        raise ModelConfigError(f"unknown model {name!r}; known: {sorted(MODELS)}")
    return CODECS[name]


def build_model(cfg: Any, spec: VocabSpec, copy: bool) -> nn.Module:
    """Build the model named by `cfg.name` for the given vocabularies, with or without copy."""
    ensure_registered()
    plain = {k: v for k, v in _plain(cfg).items() if k not in RECIPE_KEYS}  # older runs' model configs
    name = plain.get("name")
    if name not in MODELS:
        raise ModelConfigError(f"model config field 'name': unknown model {name!r}; known: {sorted(MODELS)}")
    return MODELS[name](plain, spec, copy)
