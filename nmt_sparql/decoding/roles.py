"""Typed triples: a KB element only goes where its kind can stand (ours, `decode.typed_triples`).

The copy layer chooses *which* element to emit; with tag-end questions it often puts one where its
kind cannot stand: a property as the object of `a`, an entity as a predicate (about 40% of the
ConvSeq2Seq tag-end copy errors on LC-QuAD 1.0). Decoding tracks, for each row, which position of
a triple pattern the next token fills, and masks the KB elements (copy slots, or KB tokens of a
vocabulary without copy) whose kind does not fit:

- subject: no property, no literal;     predicate: no entity, class or literal;
- object of `a`: classes only;          any other object: no property.

Where a term must come, the punctuation that would break the triple (`.`, `;`, `,`, `}`, a
misplaced `a`, the end of the query; in an object, any keyword or bracket) is masked too, so a
masked element is replaced by another term rather than by a syntax error. Kinds come from the
element's name (kbmask.typed_mask: DBpedia classes are capitalised); an element of unknown kind (a
full IRI) is never masked, and neither is anything outside a plain triple pattern: after FILTER,
BIND, a bracket, ... the row is left free until the next `{`.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch

from nmt_sparql.sparql.prefixes import PrefixMap
from nmt_sparql.sparql.tokens import TokenType, token_types
from nmt_sparql.tokenization.kbmask import typed_mask
from nmt_sparql.tokenization.vocab import SPECIALS, UNK

# Kinds of what an id stands for.
OTHER, ENTITY, PROPERTY, CLASS, LITERAL = range(5)
_KIND_OF_MASK = {
    "<kb:entity>": ENTITY,
    "<kb:property>": PROPERTY,
    "<kb:class>": CLASS,
    "<kb:literal>": LITERAL,
}

# What a token does to the triple position: a term fills it, the rest are punctuation (SPECIAL:
# the tokenizer's markers, EOS among them).
TERM, OPEN, CLOSE, DOT, A, SEMI, COMMA, BREAK, SPECIAL = range(9)
_PUNCTUATION = {"{": OPEN, "}": CLOSE, ".": DOT, "a": A, ";": SEMI, ",": COMMA}
_PUNCTUATION.update(dict.fromkeys(set(SPECIALS) - {UNK}, SPECIAL))
_TERMS = (TokenType.URI, TokenType.LITERAL, TokenType.VARIABLE, TokenType.UNKNOWN)

# Where the next token goes.
FREE, SUBJECT, PREDICATE, OBJECT, CLASS_OBJECT, END, CLASS_END = range(7)
_NEXT = torch.full((7, 9), FREE, dtype=torch.long)
_NEXT[:, OPEN] = SUBJECT
for _state, _after in ((SUBJECT, PREDICATE), (PREDICATE, OBJECT), (OBJECT, END), (CLASS_OBJECT, CLASS_END)):
    _NEXT[_state, TERM] = _after
_NEXT[PREDICATE, A] = CLASS_OBJECT
_NEXT[END, DOT] = _NEXT[CLASS_END, DOT] = SUBJECT
_NEXT[END, SEMI] = _NEXT[CLASS_END, SEMI] = PREDICATE
_NEXT[END, COMMA], _NEXT[CLASS_END, COMMA] = OBJECT, CLASS_OBJECT

_FORBIDDEN = torch.zeros((7, 5), dtype=torch.bool)
_FORBIDDEN[SUBJECT, [PROPERTY, LITERAL]] = True
_FORBIDDEN[PREDICATE, [ENTITY, CLASS, LITERAL]] = True
_FORBIDDEN[OBJECT, PROPERTY] = True
_FORBIDDEN[CLASS_OBJECT, [ENTITY, PROPERTY, LITERAL]] = True

# Punctuation that cannot come where a term must (a `}` may follow a `.`: `{ ?s ?p ?o . }`).
_MISPLACED = torch.zeros((7, 9), dtype=torch.bool)
_MISPLACED[SUBJECT, [DOT, SEMI, COMMA, A, SPECIAL]] = True
_MISPLACED[PREDICATE, [OPEN, CLOSE, DOT, SEMI, COMMA, SPECIAL]] = True
_MISPLACED[OBJECT, [OPEN, CLOSE, DOT, SEMI, COMMA, A, BREAK, SPECIAL]] = True  # no `(` collections,
_MISPLACED[CLASS_OBJECT, [OPEN, CLOSE, DOT, SEMI, COMMA, A, BREAK, SPECIAL]] = True  # no `[` blank nodes

_TABLES = ("token_class", "vocab_forbidden", "slot_forbidden", "next", "slot_kind")


def element_kind(token: str) -> int:
    """The kind of a KB token (OTHER when its name does not tell)."""
    return _KIND_OF_MASK.get(typed_mask(token), OTHER)


class TripleRoles:
    """The per-row triple position and the mask it puts on the next token's log-probs.

    `vocabulary` lists the decoder's tokens by id (its size is V); `with_slots` binds the KB
    elements of each example of a batch, by copy slot, and the decoders put every table on the
    device they decode on once per batch (`to`), so a decoding step only indexes. Rows are named by their example index, so beams and
    dropped rows only need their example ids reordered with them.
    """

    def __init__(self, vocabulary: Sequence[str], kb: str | PrefixMap):
        types = [token_types([t], kb)[0] for t in vocabulary]  # each alone: the vocabulary is no query
        self.token_class = torch.tensor(
            [_PUNCTUATION.get(t, TERM if ty in _TERMS else BREAK) for t, ty in zip(vocabulary, types)],
            dtype=torch.long,
        )
        vocab_kind = torch.tensor(
            [
                element_kind(t) if ty in (TokenType.URI, TokenType.LITERAL) else OTHER
                for t, ty in zip(vocabulary, types)
            ],
            dtype=torch.long,
        )
        # (positions, V): what the vocabulary may not put at each position, fixed for the model.
        self.vocab_forbidden = _FORBIDDEN[:, vocab_kind] | _MISPLACED[:, self.token_class]
        self.slot_forbidden, self.next = _FORBIDDEN, _NEXT
        self.slot_kind = torch.zeros((0, 0), dtype=torch.long)
        self.device = torch.device("cpu")
        self._host = {name: getattr(self, name) for name in _TABLES}  # CPU originals: `to` copies from them

    def with_slots(self, slot_tokens: Sequence[Sequence[str]]) -> TripleRoles:
        """The same vocabulary with `slot_tokens[e]`, the copy slots of example e of a batch (on CPU:
        the decoders move the tables to the device they decode on, see `to`)."""
        width = max((len(s) for s in slot_tokens), default=0)
        slot_kind = torch.tensor(
            [[element_kind(t) for t in s] + [OTHER] * (width - len(s)) for s in slot_tokens], dtype=torch.long
        ).view(len(slot_tokens), width)
        bound = copy.copy(self)
        bound._host = {**self._host, "slot_kind": slot_kind}
        for name, table in bound._host.items():
            setattr(bound, name, table)
        bound.device = torch.device("cpu")
        return bound

    def to(self, device: torch.device | str) -> TripleRoles:
        """These tables on `device` (self when already there), copied from the CPU originals: decoding
        moves the batch to the model's device, wherever the caller collated it and bound the slots."""
        device = torch.device(device)
        if device == self.device:
            return self
        moved = copy.copy(self)
        for name, table in self._host.items():
            setattr(moved, name, table.to(device))
        moved.device = device
        return moved

    def start(self, rows: int, device: torch.device) -> torch.Tensor:
        """Nothing decoded yet: every row is outside a triple pattern."""
        return torch.full((rows,), FREE, dtype=torch.long, device=device)

    def restrict(self, log_probs: torch.Tensor, states: torch.Tensor, examples: torch.Tensor) -> torch.Tensor:
        """(rows, V + M) log-probs with the elements that cannot fill each row's position at -inf."""
        m = log_probs.size(-1) - self.token_class.numel()
        slots = self.slot_kind[examples, :m]
        slots = torch.nn.functional.pad(slots, (0, m - slots.size(1)), value=OTHER)
        forbidden = torch.cat(
            [self.vocab_forbidden[states], self.slot_forbidden[states.unsqueeze(-1), slots]], dim=-1
        )
        forbidden &= ~forbidden.all(dim=-1, keepdim=True)  # nothing fits: leave the row to the model
        return log_probs.masked_fill(forbidden, float("-inf"))

    def advance(self, states: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        """The positions after each row emits `tokens` (copy pointers, ids >= V, are terms)."""
        v = self.token_class.numel()
        token_class = torch.where(tokens < v, self.token_class[tokens.clamp(max=v - 1)], TERM)
        return self.next[states, token_class]
