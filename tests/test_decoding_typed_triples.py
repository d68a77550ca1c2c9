"""decode.typed_triples: KB elements only where their kind fits the triple, and no punctuation where a
term must come; greedy and beam follow the model wherever its choice fits, and nothing is masked
outside plain triple patterns."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from nmt_sparql.core.interface import Batch
from nmt_sparql.decoding import TripleRoles, beam_search, greedy
from nmt_sparql.decoding.roles import CLASS_OBJECT, FREE, OBJECT, PREDICATE, SUBJECT
from nmt_sparql.inference.decode import triple_roles
from nmt_sparql.tokenization.vocab import SPECIALS

VOCAB = [*SPECIALS, "select", "?x", "where", "{", "}", ".", "a", "filter", "(", ")", "dbo:Film", "dbr:Rome"]
V = len(VOCAB)
ID = {t: i for i, t in enumerate(VOCAB)}
SLOTS = ["dbr:Paris", "dbo:capital", "dbo:City"]  # entity, property, class: copy ids V, V + 1, V + 2
COPY = {t: V + k for k, t in enumerate(SLOTS)}
MAX_SLOTS = 4


def ids(*tokens: str) -> list[int]:
    return [COPY[t] if t in COPY else ID[t] for t in tokens]


class Scripted:
    """A model whose step t ranks, for each example, `wishes[example][t]` first to last."""

    vocab_size, copy, pad_id, bos_id, eos_id = V, True, ID["<pad>"], ID["<s>"], ID["</s>"]

    def __init__(self, wishes: list[list[list[str]]]):
        self.wishes = wishes

    def encode(self, batch: Batch) -> dict:
        return {"example": torch.arange(len(batch))}

    def decode_step(self, tokens: torch.Tensor, state: dict, cache: int | None) -> tuple[torch.Tensor, int]:
        step = cache or 0
        scores = torch.full((len(tokens), V + MAX_SLOTS), -30.0)
        for row, example in enumerate(state["example"].tolist()):
            for rank, token_id in enumerate(ids(*self.wishes[example][step])):
                scores[row, token_id] = -float(rank)
        return scores.log_softmax(-1), step + 1

    def reorder(self, state: dict, cache: int, index: torch.Tensor) -> tuple[dict, int]:
        return {"example": state["example"][index]}, cache


# Most likely first: a property as subject, an entity as predicate, `}` and a property after `a`.
WISHES = [
    ["select"], ["?x"], ["where"], ["{"], ["dbo:capital", "dbr:Paris"], ["dbr:Paris", "dbo:capital"],
    ["?x"], ["."], ["?x"], ["a"], ["dbo:capital", "}", "dbo:City"], ["}"], ["</s>"],
]  # fmt: skip
PLAIN = ids(
    *["select", "?x", "where", "{", "dbo:capital", "dbr:Paris", "?x", ".", "?x", "a", "dbo:capital", "}"]
)
TYPED = ids(
    *["select", "?x", "where", "{", "dbr:Paris", "dbo:capital", "?x", ".", "?x", "a", "dbo:City", "}"]
)


def batch(n: int) -> Batch:
    return Batch(
        torch.ones(n, 3, dtype=torch.long), torch.ones(n, 3, dtype=torch.bool), torch.full((n, 3), -1)
    )


def roles(n: int) -> TripleRoles:
    return TripleRoles(VOCAB, "dbpedia").with_slots([SLOTS] * n)


def test_greedy_puts_each_element_where_its_kind_fits() -> None:
    model = Scripted([WISHES, WISHES])
    assert greedy(model, batch(2), 20) == [PLAIN, PLAIN]
    assert greedy(model, batch(2), 20, roles(2)) == [TYPED, TYPED]


def test_beam_search_puts_each_element_where_its_kind_fits() -> None:
    model = Scripted([WISHES])
    assert beam_search(model, batch(1), beam=3, max_len=20)[0][0][0] == PLAIN
    assert beam_search(model, batch(1), beam=3, max_len=20, roles=roles(1))[0][0][0] == TYPED


def test_positions_follow_the_triple_pattern_and_free_outside_it() -> None:
    r = roles(1)
    states, seen = r.start(1, torch.device("cpu")), []
    for token in [
        "select",
        "?x",
        "where",
        "{",
        "?x",
        "dbo:capital",
        "dbr:Paris",
        ".",
        "?x",
        "a",
        "dbo:City",
        ".",
        "filter",
        "(",
        "?x",
    ]:
        states = r.advance(states, torch.tensor(ids(token)))
        seen.append(int(states))
    assert seen == [
        FREE, FREE, FREE, SUBJECT, PREDICATE, OBJECT, 5, SUBJECT, PREDICATE, CLASS_OBJECT, 6, SUBJECT, FREE,
        FREE, FREE,
    ]  # fmt: skip
    log_probs = torch.zeros(1, V + MAX_SLOTS)
    free = r.restrict(log_probs, torch.tensor([FREE]), torch.tensor([0]))
    assert torch.isfinite(free).all()  # inside FILTER ( ... ) nothing is masked
    masked = {
        state: {VOCAB[i] if i < V else SLOTS[i - V] for i in range(V + 3) if not torch.isfinite(row[i])}
        for state in (SUBJECT, PREDICATE, OBJECT, CLASS_OBJECT)
        for row in r.restrict(log_probs, torch.tensor([state]), torch.tensor([0]))
    }
    specials = set(SPECIALS) - {"<unk>"}
    assert masked[SUBJECT] == {"dbo:capital", ".", "a"} | specials
    assert masked[PREDICATE] == {"dbr:Paris", "dbo:City", "dbo:Film", "dbr:Rome", "{", "}", "."} | specials
    assert (
        masked[OBJECT]
        == {"dbo:capital", "{", "}", ".", "a", "select", "where", "filter", "(", ")"} | specials
    )
    assert masked[CLASS_OBJECT] == masked[OBJECT] | {"dbr:Paris", "dbr:Rome"}


def test_typed_triples_need_a_word_level_tokenization() -> None:
    with pytest.raises(ValueError, match="typed_triples needs a word-level tokenization"):
        triple_roles(SimpleNamespace(kb="dbpedia"))
