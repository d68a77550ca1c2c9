"""Batched beam search with the decoder cache; finished examples leave the batch.

Every live (example, hypothesis) pair is one row of the decoder batch, grouped by example. Each
step ranks the 2·beam best continuations of every example: EOS candidates among the first
`beam` ranks become finished hypotheses (fairseq rule), the best `beam` others stay live. An
example is done once it has `beam` finished hypotheses; its rows are then removed with
`model.reorder` in the same call that reorders the surviving beams.
"""

from __future__ import annotations

import torch

from nmt_sparql.core.interface import Batch, Seq2SeqModel
from nmt_sparql.decoding._common import check_max_len, eval_mode, model_device
from nmt_sparql.decoding.grammar import BoundGrammar

Hypothesis = tuple[list[int], float]


def beam_search(
    model: Seq2SeqModel,
    batch: Batch,
    beam: int,
    max_len: int,
    n_best: int = 1,
    length_penalty: float = 1.0,
    grammar: BoundGrammar | None = None,
) -> list[list[Hypothesis]]:
    """The `n_best` best hypotheses of each example, best first, as (ids, score).

    ids exclude BOS and EOS (ids >= model.vocab_size are copy pointers); score is the summed
    log-probability (EOS included) divided by length**length_penalty, length counting EOS.
    Hypotheses still open after `max_len` tokens are finished there, without EOS. With `grammar`,
    every id that cannot continue a valid query within the example's length cap is masked, and only
    hypotheses of finite score (valid queries) are returned.
    """
    check_max_len(max_len)
    if beam < 1:
        raise ValueError(f"beam must be >= 1, got {beam}")
    if not 1 <= n_best <= beam:
        raise ValueError(f"n_best must be in [1, beam={beam}], got {n_best}")
    with eval_mode(model):
        batch = batch.to(model_device(model, batch))
        device = batch.src_ids.device
        state = model.encode(batch)
        finished: list[list[Hypothesis]] = [[] for _ in range(len(batch))]
        examples = list(range(len(batch)))  # example of each live group, in row order
        scores = torch.zeros(len(batch), 1, device=device)  # (groups, width)
        hyps = torch.zeros(len(batch), 1, 0, dtype=torch.long, device=device)  # (groups, width, t)
        tokens = torch.full((len(batch),), model.bos_id, dtype=torch.long, device=device)
        cache = None
        rules = None if grammar is None else grammar.start(batch.src_mask, max_len)
        for t in range(max_len):
            log_probs, cache = model.decode_step(tokens, state, cache)
            if rules is not None:
                log_probs = rules.restrict(log_probs, t)
            groups, width = scores.shape
            extended = log_probs.size(-1)
            candidates = (scores.unsqueeze(-1) + log_probs.float().view(groups, width, extended)).view(
                groups, -1
            )
            k = min(2 * beam, candidates.size(1))
            top_scores, top_index = candidates.topk(k, dim=-1)
            src_beam, token = top_index // extended, top_index % extended
            is_eos = token == model.eos_id
            final_step = t + 1 == max_len

            eos_hits = (is_eos[:, :beam] & torch.isfinite(top_scores[:, :beam])).nonzero().tolist()
            for g, rank in eos_hits:
                ids = hyps[g, src_beam[g, rank]].tolist()
                score = top_scores[g, rank].item() / (t + 1) ** length_penalty
                finished[examples[g]].append((ids, score))

            # The best `new_width` non-EOS candidates of each group stay live (each beam row adds at
            # most one EOS, so every group has at least k - width of them).
            new_width = min(beam, k - width)
            live_rank = (~is_eos).cumsum(dim=-1)
            pick = (~is_eos) & (live_rank <= new_width)
            src_beam = src_beam[pick].view(groups, new_width)
            token = token[pick].view(groups, new_width)
            new_scores = top_scores[pick].view(groups, new_width)
            new_hyps = torch.cat([hyps.gather(1, _expand(src_beam, hyps)), token.unsqueeze(-1)], dim=-1)

            if final_step:
                for g in range(groups):
                    if len(finished[examples[g]]) < beam:
                        for b in range(new_width):
                            score = new_scores[g, b].item() / (t + 1) ** length_penalty
                            if rules is None or score > float("-inf"):
                                finished[examples[g]].append((new_hyps[g, b].tolist(), score))
                break
            keep = [g for g in range(groups) if len(finished[examples[g]]) < beam]
            if not keep:
                break
            keep_t = torch.tensor(keep, dtype=torch.long, device=device)
            rows = (keep_t.unsqueeze(1) * width + src_beam[keep_t]).view(-1)
            state, cache = model.reorder(state, cache, rows)
            examples = [examples[g] for g in keep]
            scores, hyps = new_scores[keep_t], new_hyps[keep_t]
            tokens = token[keep_t].view(-1)
            rules = None if rules is None else rules.select(rows).advance(tokens)
        return [_best(found, n_best) for found in finished]


def _expand(src_beam: torch.Tensor, hyps: torch.Tensor) -> torch.Tensor:
    return src_beam.unsqueeze(-1).expand(-1, -1, hyps.size(-1))


def _best(found: list[Hypothesis], n_best: int) -> list[Hypothesis]:
    return sorted(found, key=lambda h: -h[1])[:n_best]
