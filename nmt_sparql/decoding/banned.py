"""A decoding constraint that refuses some ids at some steps, over the grammar's (or none).

Execution feedback can only choose among the hypotheses a beam holds: when every one of them has a
form the question rules out ("Stanford alumni" decoded as five ASKs, "Did Mozart compose Carmen?" as
five SELECTs), the question is decoded again with that form's first tokens refused
(inference/decode.py `asked_forms`). The rows have the interface of decoding/grammar.py's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from nmt_sparql.decoding.grammar import BoundGrammar, GrammarRows


class Banned:
    """`inner` (a bound grammar, or None) with the ids of `at[t]` refused at step `t`."""

    def __init__(self, inner: BoundGrammar | None, at: Mapping[int, Sequence[int]]):
        self.inner, self.at = inner, dict(at)

    def start(self, src_mask: torch.Tensor, max_len: int) -> BannedRows:
        rows = None if self.inner is None else self.inner.start(src_mask, max_len)
        device = src_mask.device
        ids = {t: torch.tensor(list(v), dtype=torch.long, device=device) for t, v in self.at.items() if v}
        return BannedRows(rows, ids)


class BannedRows:
    """Decoder rows: the inner rows' mask, then the step's banned ids at -inf."""

    def __init__(self, rows: GrammarRows | None, at: dict[int, torch.Tensor]):
        self.rows, self.at = rows, at

    def restrict(self, log_probs: torch.Tensor, emitted: int) -> torch.Tensor:
        if self.rows is not None:
            log_probs = self.rows.restrict(log_probs, emitted)
        ids = self.at.get(emitted)
        return log_probs if ids is None else log_probs.index_fill(-1, ids, float("-inf"))

    def select(self, index: torch.Tensor) -> BannedRows:
        return BannedRows(None if self.rows is None else self.rows.select(index), self.at)

    def advance(self, tokens: torch.Tensor) -> BannedRows:
        return BannedRows(None if self.rows is None else self.rows.advance(tokens), self.at)
