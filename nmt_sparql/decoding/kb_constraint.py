"""Keep a sub-word model's generated IRIs inside its prompt's KB elements (`decode.kb_constraint`).

The LLM analogue of the copy layer: a causal LM spells IRIs out in sub-words, so nothing stops it
from inventing one. This restriction follows each row's current word (the bytes generated since
the last whitespace): a word that looks like an IRI (`prefix:local`, `<...>`; not a variable or a
literal) must stay a prefix of one of the example's KB elements (or of a training query's
non-KB prefixed name, such as a vocabulary IRI), and may only end where such a name ends. It works
on token *bytes* (SentencePiece `▁` and `<0xNN>` pieces, byte-level BPE `Ġ` pieces), so it holds
for any tokenizer of those two families. `start` gives rows with the interface of decoding/grammar.py's
(`restrict`, `advance`, `select`), so greedy and beam search apply it unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from transformers import PreTrainedTokenizerBase

_WS = re.compile(rb"\s+")
_BYTE_PIECE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet, reversed: the printable character that stands for each byte."""
    bs = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    )
    cs, n = list(bs), 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def token_bytes(tokenizer: PreTrainedTokenizerBase) -> tuple[list[bytes], list[bool]]:
    """The bytes each id writes, and whether it is a special token (eos, pad, ...: ends a word)."""
    pieces = tokenizer.convert_ids_to_tokens(list(range(len(tokenizer))))
    special = set(tokenizer.all_special_ids) | {
        i for t, i in tokenizer.get_added_vocab().items() if t in tokenizer.all_special_tokens
    }
    byte_level = any(p is not None and p.startswith("Ġ") for p in pieces)
    decoder = _byte_decoder() if byte_level else {}
    out: list[bytes] = []
    for piece in pieces:
        if piece is None:
            out.append(b"")
        elif byte_level:
            out.append(bytes(decoder[c] for c in piece if c in decoder) or piece.encode("utf-8"))
        elif (m := _BYTE_PIECE.match(piece)) is not None:
            out.append(bytes([int(m.group(1), 16)]))
        else:
            out.append(piece.replace("▁", " ").encode("utf-8"))
    return out, [i in special for i in range(len(pieces))]


def iri_like(word: bytes) -> bool:
    """A word the constraint governs: a prefixed name or `<IRI>` (not `?var`, a literal or `<`, `<=`)."""
    if not word or word[:1] in (b'"', b"?", b"$", b"'"):
        return False
    return b":" in word or (word[:1] == b"<" and word not in (b"<", b"<="))


@dataclass(frozen=True)
class ConstraintRows:
    """The current (unfinished) word of each decoder row, and the example each row decodes: the
    decoders' constraint interface (`restrict`, `advance`, `select`, as decoding/grammar.py's rows)."""

    constraint: KBConstraint
    words: list[bytes]
    examples: list[int]

    def restrict(self, log_probs: torch.Tensor, emitted: int) -> torch.Tensor:
        return self.constraint.restrict(log_probs, self.words, self.examples)

    def advance(self, tokens: torch.Tensor) -> ConstraintRows:
        return ConstraintRows(self.constraint, self.constraint.advance(self.words, tokens), self.examples)

    def select(self, index: torch.Tensor) -> ConstraintRows:
        picked = index.tolist()
        return ConstraintRows(
            self.constraint, [self.words[i] for i in picked], [self.examples[i] for i in picked]
        )


class KBConstraint:
    """Token tables of one tokenizer, and (after `with_elements`) the allowed names of each example."""

    def __init__(self, pieces: list[bytes], special: list[bool]):
        self.pieces, self.special = pieces, special
        self.lead = [bool(p[:1].isspace()) for p in pieces]
        self.body = [p.lstrip() for p in pieces]
        self._by_body: dict[bytes, list[int]] = {}  # tokens without leading space, by their bytes
        for i, (body, lead, sp) in enumerate(zip(self.body, self.lead, special)):
            if not lead and not sp and body:
                self._by_body.setdefault(body, []).append(i)
        self._risky = [  # tokens that can start or extend an IRI-like word
            i for i, (b, sp) in enumerate(zip(self.body, special)) if not sp and (b":" in b or b"<" in b)
        ]
        self._ends = torch.tensor([lead or sp for lead, sp in zip(self.lead, special)], dtype=torch.bool)
        self.elements: list[list[bytes] | None] = []

    @classmethod
    def for_tokenizer(cls, tokenizer: PreTrainedTokenizerBase) -> KBConstraint:
        cached = getattr(tokenizer, "_nmt_sparql_kb_constraint", None)
        if cached is None:
            cached = cls(*token_bytes(tokenizer))
            tokenizer._nmt_sparql_kb_constraint = cached
        return cached

    def with_elements(self, elements: Sequence[Sequence[str]], free: Sequence[str] = ()) -> KBConstraint:
        """A copy bound to a batch: example i may write the IRIs `elements[i]` and `free`; an example
        whose prompt lists no element (a raw question) is left free."""
        bound = KBConstraint.__new__(KBConstraint)
        bound.__dict__.update(self.__dict__)
        shared = [f.encode("utf-8") for f in free]
        bound.elements = [
            sorted({e.encode("utf-8") for e in row} | set(shared)) if row else None for row in elements
        ]
        return bound

    def start(self, src_mask: torch.Tensor, max_len: int) -> ConstraintRows:
        """Every row of a batch at the start of its answer, with no word begun."""
        n = src_mask.size(0)
        return ConstraintRows(self, [b""] * n, list(range(n)))

    def _next_word(self, word: bytes, token: int, allowed: Sequence[bytes] | None) -> bytes | None:
        """The row's word after `token`; None when `allowed` is given and the token breaks the rule."""

        def complete_ok(w: bytes) -> bool:
            return allowed is None or not iri_like(w) or w in allowed

        def partial_ok(w: bytes) -> bool:
            return allowed is None or not iri_like(w) or any(a.startswith(w) for a in allowed)

        if self.special[token]:
            return b"" if complete_ok(word) else None
        if self.lead[token]:
            if not complete_ok(word):
                return None
            word = b""
        *done, last = _WS.split(word + self.body[token])
        if not all(complete_ok(w) for w in done if w):
            return None
        return last if partial_ok(last) else None

    def restrict(
        self, log_probs: torch.Tensor, words: Sequence[bytes], examples: Sequence[int]
    ) -> torch.Tensor:
        """-inf on every token that would write an IRI outside the row's example's names."""
        log_probs = log_probs.clone()
        vocab = min(len(self.pieces), log_probs.size(-1))
        for r, (word, example) in enumerate(zip(words, examples)):
            allowed = self.elements[example]
            if allowed is None:
                continue
            if iri_like(word) or word in (b"<", b"<="):
                keep = torch.zeros(log_probs.size(-1), dtype=torch.bool)
                for name in allowed:
                    if name.startswith(word):
                        rest = name[len(word) :]
                        for k in range(1, len(rest) + 1):
                            keep[self._by_body.get(rest[:k], [])] = True
                if word == b"<":
                    keep[self._by_body.get(b"=", [])] = True
                if not iri_like(word) or word in allowed:  # the word may end here
                    keep[:vocab] |= self._ends[:vocab]
                for i in self._risky:
                    if keep[i] and self._next_word(word, i, allowed) is None:
                        keep[i] = False
                if bool(keep.any()):
                    log_probs[r, ~keep.to(log_probs.device)] = float("-inf")
            else:
                banned = [i for i in self._risky if i < vocab and self._next_word(word, i, allowed) is None]
                log_probs[r, banned] = float("-inf")
        return log_probs

    def advance(self, words: Sequence[bytes], tokens: torch.Tensor) -> list[bytes]:
        """Each row's word after it emits its token."""
        return [
            self._next_word(word, token, None) or b"" if token < len(self.pieces) else b""
            for word, token in zip(words, tokens.tolist())
        ]
