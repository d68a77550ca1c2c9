"""Word vocabularies of the from-scratch models (Transformer, ConvS2S).

The source vocabulary W holds the lower-cased words of annotated questions (plus the KB units
themselves for models without copy); the target vocabulary holds query tokens: only S for copy
models (KB elements are copied, never generated), S ∪ K otherwise. Specials come first so their ids
are the same in every vocabulary.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from nmt_sparql.atomic import atomic_write_json

PAD, BOS, EOS, UNK, KB, SEP = "<pad>", "<s>", "</s>", "<unk>", "<kb>", "<sep>"
SPECIALS = (PAD, BOS, EOS, UNK, KB, SEP)


class VocabError(ValueError):
    """A vocabulary file that cannot be loaded; the message names the file and the problem."""


class WordVocab:
    """Token <-> id map with fixed specials; unknown tokens map to <unk>."""

    def __init__(self, tokens: Iterable[str]):
        self.itos: list[str] = list(SPECIALS)
        for tok in tokens:
            if tok not in SPECIALS:
                self.itos.append(tok)
        self.stoi: dict[str, int] = {t: i for i, t in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise VocabError("duplicate tokens in vocabulary")

    @classmethod
    def build(cls, sequences: Iterable[Iterable[str]], min_freq: int = 1) -> WordVocab:
        """Count tokens of the training split; keep those seen `min_freq` times, most frequent first."""
        counts: Counter[str] = Counter()
        for seq in sequences:
            counts.update(seq)
        kept = [t for t, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if c >= min_freq]
        return cls(kept)

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: str) -> bool:
        return token in self.stoi

    def id(self, token: str) -> int:
        return self.stoi.get(token, self.unk_id)

    def token(self, index: int) -> str:
        return self.itos[index]

    pad_id = property(lambda self: self.stoi[PAD])
    bos_id = property(lambda self: self.stoi[BOS])
    eos_id = property(lambda self: self.stoi[EOS])
    unk_id = property(lambda self: self.stoi[UNK])
    kb_id = property(lambda self: self.stoi[KB])
    sep_id = property(lambda self: self.stoi[SEP])

    def save(self, path: str | Path) -> None:
        atomic_write_json(path, {"specials": list(SPECIALS), "tokens": self.itos[len(SPECIALS) :]})

    @classmethod
    def load(cls, path: str | Path) -> WordVocab:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as err:
            raise VocabError(f"{path}: cannot read vocabulary: {err}") from err
        if not isinstance(data, dict) or data.get("specials") != list(SPECIALS):
            raise VocabError(f"{path}: field 'specials' must be {list(SPECIALS)}")
        tokens = data.get("tokens")
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise VocabError(f"{path}: field 'tokens' must be a list of strings")
        return cls(tokens)
