"""decode.typed_triples on a GPU: the caller binds the roles tables where it collated the batch (CPU),
the decoders move the batch to the model's device, and the tables must follow it there. With no GPU
in CI, the tables are put on the "meta" device, a device other than the model's, as a GPU run's
CPU tables are for a CUDA model."""

from __future__ import annotations

import torch
from test_decoding_typed_triples import TYPED, WISHES, Scripted, batch, roles

from nmt_sparql.decoding import beam_search, greedy


def test_roles_move_every_table_and_stay_put_when_already_there() -> None:
    bound = roles(2)
    moved = bound.to("meta")
    tables = [v for v in vars(moved).values() if isinstance(v, torch.Tensor)]
    assert len(tables) == 5 and all(t.device.type == "meta" for t in tables)
    assert bound.to("cpu") is bound and moved.to("meta") is moved
    back = moved.to("cpu")
    assert all(torch.equal(getattr(back, n), getattr(bound, n)) for n in ("slot_kind", "vocab_forbidden"))


def test_greedy_and_beam_decode_with_roles_bound_on_another_device_than_the_model() -> None:
    elsewhere = roles(2).to("meta")
    assert greedy(Scripted([WISHES, WISHES]), batch(2), 20, elsewhere) == [TYPED, TYPED]
    hyps = beam_search(Scripted([WISHES, WISHES]), batch(2), beam=3, max_len=20, roles=elsewhere)
    assert [h[0][0] for h in hyps] == [TYPED, TYPED]
