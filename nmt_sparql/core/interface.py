"""What every model offers, so training and decoding never look inside one.

Target id space: ids in [0, V) are decoder-vocabulary tokens (S for copy models, S ∪ K for
models without copy); with copy, id V + k means "copy the KB element of slot k" of that
example (slots are numbered 0..n-1 in order of first appearance in the source).
Source: with copy, every KB element position holds the mask id and `src_slots` gives its
slot (-1 elsewhere); without copy, `src_slots` is all -1.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Protocol

import torch
from torch import nn


@dataclass
class Batch:
    src_ids: torch.Tensor  # (B, S) long, padded with the source pad id
    src_mask: torch.Tensor  # (B, S) bool, True on real tokens
    src_slots: torch.Tensor  # (B, S) long, slot of a masked KB element, -1 elsewhere
    tgt_ids: torch.Tensor | None = None  # (B, T) long: BOS ... EOS, padded with the target pad id

    def to(self, device: torch.device | str) -> Batch:
        return Batch(
            **{
                f.name: (None if getattr(self, f.name) is None else getattr(self, f.name).to(device))
                for f in fields(self)
            }
        )

    def __len__(self) -> int:
        return self.src_ids.size(0)


@dataclass(frozen=True)
class VocabSpec:
    """What a model builder needs to know about the tokenization it will be fed."""

    src_size: int  # encoder vocabulary size (W, or the HF tokenizer size)
    tgt_size: int  # V: decoder vocabulary size (S with copy, S ∪ K without; the HF tokenizer size)
    src_pad_id: int
    pad_id: int  # target pad id
    bos_id: int  # first decoder input (the HF decoder start token for BART/T5)
    eos_id: int
    kb_id: int  # the <kb> mask id, in both id spaces; decoder input of a copied token is built from it


class Seq2SeqModel(Protocol):
    """The step interface. `log_probs` are over the extended space [0, V + n_slots)."""

    vocab_size: int  # V
    copy: bool
    pad_id: int
    bos_id: int
    eos_id: int

    def forward(self, batch: Batch) -> torch.Tensor:
        """Teacher forcing on batch.tgt_ids[:, :-1] -> (B, T-1, V + max_slots) log-probabilities."""

    def encode(self, batch: Batch) -> Any:
        """Run the encoder once; the state is what decode_step needs (and can be reordered)."""

    def decode_step(self, tokens: torch.Tensor, state: Any, cache: Any | None) -> tuple[torch.Tensor, Any]:
        """Last generated tokens (B,) -> ((B, V + max_slots) log-probs of the next token, new cache)."""

    def reorder(self, state: Any, cache: Any, index: torch.Tensor) -> tuple[Any, Any]:
        """Select/reorder batch rows of state and cache (beam search, dropping finished rows)."""


def reorder_rows(obj: Any, index: torch.Tensor) -> Any:
    """index_select dim 0 of every tensor in a nest of dicts/lists/tuples (model states and caches)."""
    if isinstance(obj, torch.Tensor):
        return obj.index_select(0, index.to(obj.device))
    if isinstance(obj, dict):
        return {k: reorder_rows(v, index) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(reorder_rows(v, index) for v in obj)
    return obj


class IncrementalDecoder(nn.Module):
    """The step interface for models whose decoder runs on a token prefix with a cache.

    A subclass provides `encode(batch) -> state` and `_run_decoder(ids, state, cache) ->
    (log_probs, cache)`; teacher forcing, one-step decoding and reordering follow from them.
    """

    def _run_decoder(self, ids: torch.Tensor, state: Any, cache: Any | None) -> tuple[torch.Tensor, Any]:
        raise NotImplementedError

    def encode(self, batch: Batch) -> Any:
        raise NotImplementedError

    def forward(self, batch: Batch) -> torch.Tensor:
        if batch.tgt_ids is None:
            raise ValueError("forward needs batch.tgt_ids (teacher forcing)")
        return self._run_decoder(batch.tgt_ids[:, :-1], self.encode(batch), None)[0]

    def decode_step(self, tokens: torch.Tensor, state: Any, cache: Any | None) -> tuple[torch.Tensor, Any]:
        log_probs, cache = self._run_decoder(tokens[:, None], state, cache)
        return log_probs[:, -1], cache

    def reorder(self, state: Any, cache: Any | None, index: torch.Tensor) -> tuple[Any, Any | None]:
        return reorder_rows(state, index), reorder_rows(cache, index)
