"""KB masking shared by the word and Hugging Face tokenizers (paper §III.C).

A question is a list of units: plain text, or a KB element `«TOKEN»`. With copy, each KB unit
becomes the `<kb>` mask id and gets a slot (one per distinct element, in order of first
appearance); a target KB token becomes `V + slot`. Without copy, KB units stay ordinary tokens.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from nmt_sparql.core.interface import Batch
from nmt_sparql.core.marks import unmark
from nmt_sparql.tokenization.vocab import VocabError

Splitter = Callable[[str], list[str]]
# A saved tokenizer's own settings (type, copy, kb, ...), beside the vocabularies or the HF tokenizer files.
META_FILE = "tokenization.json"
# Its name in run folders and exports written before the tokenizer was called so; they still load.
LEGACY_META_FILE = "encoder.json"


def read_tokenizer_meta(directory: Path, kind: str | None = None) -> dict[str, Any]:
    """A saved tokenizer's settings (type, copy, kb, ...), checked; errors name the file and field."""
    path = directory / META_FILE
    if not path.is_file() and (directory / LEGACY_META_FILE).is_file():
        path = directory / LEGACY_META_FILE
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise VocabError(f"{path}: cannot read: {err}") from err
    if (
        not isinstance(meta, dict)
        or meta.get("type") not in ("word", "hf", "prompt")
        or not isinstance(meta.get("copy"), bool)
    ):
        raise VocabError(f"{path}: field 'type' must be 'word', 'hf' or 'prompt' and 'copy' a bool")
    if kind is not None and meta["type"] != kind:
        raise VocabError(f"{path}: field 'type' is {meta['type']!r}, expected {kind!r}")
    return meta


def default_splitter() -> Splitter:
    """The project's question splitter, which keeps `«...»` units whole even with spaces inside."""
    from nmt_sparql.annotation.annotate import split_question

    return split_question


def kb_unit(word: str) -> str | None:
    """The KB token of a `«TOKEN»` unit, or None for an ordinary word."""
    return unmark(word) if len(word) > 2 else None


ROLE_PREFIXES = {
    "entity": {"dbr", "res", "wd", "dbc"},
    "property": {"dbp", "wdt", "p", "ps", "pq", "psv", "pqv"},
    "ontology": {"dbo", "ont", "schema", "foaf", "dct", "yago", "owl", "rdfs", "skos"},
}


def typed_mask(token: str) -> str:
    """The typed mask word of a KB token: `<kb:literal>`, `<kb:entity>`, `<kb:class>`, `<kb:property>`, `<kb:uri>`.

    It tells the encoder what kind of element stands at a masked position (a class is not a property)
    without telling which one: an improvement over the paper's single `<kb>` mask, chosen with
    `copy_mask=typed`. Ontology names follow the DBpedia convention: classes capitalised, properties not.
    """
    if token.startswith('"') or token[:1].isdigit() or token in ("true", "false"):
        return "<kb:literal>"
    prefix, _, local = token.partition(":")
    if token.startswith("<") or not local:
        return "<kb:uri>"
    if prefix in ROLE_PREFIXES["entity"]:
        return "<kb:entity>"
    if prefix in ROLE_PREFIXES["property"]:
        return "<kb:property>"
    if prefix in ROLE_PREFIXES["ontology"]:
        return "<kb:class>" if local[:1].isupper() else "<kb:property>"
    return "<kb:uri>"


def assign_slots(kb_units: Sequence[str]) -> list[str]:
    """Distinct KB tokens in order of first appearance: slot k holds element k."""
    return list(dict.fromkeys(kb_units))


@dataclass
class Encoded:
    """One example as ids; `slot_tokens[k]` is what the copy id `V + k` stands for."""

    src_ids: list[int]
    src_slots: list[int]
    tgt_ids: list[int] | None = None
    slot_tokens: list[str] = field(default_factory=list)
    missing_kb: int = 0  # target KB tokens absent from the source (mapped to <unk>)


def collate(items: Sequence[Encoded], src_pad_id: int, tgt_pad_id: int) -> Batch:
    """Pad a list of encoded examples into a Batch (targets only when every item has one)."""
    if not items:
        raise ValueError("cannot collate an empty list of examples")
    n, s_len = len(items), max(len(it.src_ids) for it in items)
    src = torch.full((n, s_len), src_pad_id, dtype=torch.long)
    slots = torch.full((n, s_len), -1, dtype=torch.long)
    mask = torch.zeros((n, s_len), dtype=torch.bool)
    for i, it in enumerate(items):
        src[i, : len(it.src_ids)] = torch.tensor(it.src_ids, dtype=torch.long)
        slots[i, : len(it.src_slots)] = torch.tensor(it.src_slots, dtype=torch.long)
        mask[i, : len(it.src_ids)] = True
    tgt = None
    if all(it.tgt_ids is not None for it in items):
        t_len = max(len(it.tgt_ids or []) for it in items)
        tgt = torch.full((n, t_len), tgt_pad_id, dtype=torch.long)
        for i, it in enumerate(items):
            tgt[i, : len(it.tgt_ids or [])] = torch.tensor(it.tgt_ids or [], dtype=torch.long)
    return Batch(src_ids=src, src_mask=mask, src_slots=slots, tgt_ids=tgt)
