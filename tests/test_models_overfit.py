"""Every model, with and without copy, can fit a 20-example set to exact match under greedy decoding.

This pins that forward (teacher forcing), the copy mixture, the loss and decode_step agree: a model
that trains on forward but decodes through a different path would not reach exact match.
"""

from __future__ import annotations

import pytest
import torch

from nmt_sparql.decoding import greedy
from nmt_sparql.models.pretrained import PretrainedSeq2Seq, load_hf_model
from nmt_sparql.models.registry import build_model
from nmt_sparql.sparql.tokens import tokenize
from nmt_sparql.tokenization.hf import HFTokenizer
from nmt_sparql.tokenization.word import WordTokenizer
from nmt_sparql.training.loss import sequence_nll

PROPS = ["dbo:author", "dbp:office", "dbo:director", "dbo:spouse", "dbo:birthPlace"]
ENTS = ["Richard_Coke", "Ike_Clanton", "Stanley_Kubrick", "Ada_Lovelace", "Alan_Turing"]


def synthetic_pairs() -> list[tuple[str, list[str]]]:
    """20 tag-within style pairs over 3 templates; the KB elements vary per example."""
    pairs = []
    for i in range(20):
        p, e = PROPS[i % 5], f"dbr:{ENTS[(i * 3) % 5]}"
        if i % 3 == 0:
            q, s = f"what is the «{p}» of «{e}» ?", f"SELECT DISTINCT ?uri WHERE {{ {e} {p} ?uri }}"
        elif i % 3 == 1:
            q, s = f"whose «{p}» is «{e}» ?", f"SELECT DISTINCT ?uri WHERE {{ ?uri {p} {e} }}"
        else:
            q = f"how many «dbo:Thing» have «{p}» «{e}» ?"
            s = f"SELECT DISTINCT COUNT(?uri) WHERE {{ ?uri {p} {e} . ?uri a dbo:Thing }}"
        pairs.append((q, tokenize(s, "dbpedia")))
    return pairs


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models run fastest on one thread, and the test machine is shared."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


SMALL = {
    "transformer": {"name": "transformer", "dim": 48, "ffn_dim": 96, "heads": 4, "encoder_layers": 2,
                    "decoder_layers": 2, "dropout": 0.0, "pre_norm": True, "max_slots": 8},
    "convs2s": {"name": "convs2s", "embed_dim": 48, "hidden_dim": 48, "encoder_layers": 2, "decoder_layers": 2,
                "kernel_size": 3, "dropout": 0.0, "max_slots": 8},
    "bart": {"name": "bart", "pretrained": None, "max_slots": 8,
             "config": {"d_model": 48, "encoder_layers": 2, "decoder_layers": 2, "encoder_attention_heads": 4,
                        "decoder_attention_heads": 4, "encoder_ffn_dim": 96, "decoder_ffn_dim": 96,
                        "dropout": 0.0, "max_position_embeddings": 128}},
    "t5": {"name": "t5", "pretrained": None, "max_slots": 8,
           "config": {"d_model": 48, "d_kv": 12, "d_ff": 96, "num_layers": 2, "num_decoder_layers": 2,
                      "num_heads": 4, "dropout_rate": 0.0}},
}  # fmt: skip


def make_codec(name: str, copy: bool, pairs):
    if name in ("transformer", "convs2s"):
        return WordTokenizer.build(pairs, copy=copy, kb="dbpedia")
    return HFTokenizer.build(pairs, copy=copy, kb="dbpedia", sp_vocab_size=400)


def fit(model, codec, pairs, steps: int, lr: float) -> float:
    """Full-batch Adam until greedy decoding reproduces every query; returns the exact-match rate."""
    items = [codec.encode(q, t) for q, t in pairs]
    batch = codec.collate(items)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    accuracy = 0.0
    for step in range(1, steps + 1):
        model.train()
        losses, counts = sequence_nll(model(batch), batch.tgt_ids[:, 1:], model.pad_id)
        loss = losses.sum() / counts.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0:
            model.eval()
            with torch.no_grad():
                hyps = greedy(model, batch, max_len=80)
            decoded = [codec.decode_ids(h, it.slot_tokens) for h, it in zip(hyps, items, strict=True)]
            accuracy = sum(d == t for d, (_, t) in zip(decoded, pairs, strict=True)) / len(pairs)
            if accuracy == 1.0:
                break
    return accuracy


@pytest.mark.parametrize("copy", [True, False], ids=["copy", "nocopy"])
@pytest.mark.parametrize("name", ["transformer", "convs2s", "bart", "t5"])
def test_model_overfits_synthetic_set(name: str, copy: bool) -> None:
    torch.manual_seed(0)
    pairs = synthetic_pairs()
    codec = make_codec(name, copy, pairs)
    model = build_model(SMALL[name], codec.spec, copy)
    # lr 3e-3: at 1e-2 post-norm BART's loss spikes back up once fitted, on some CPUs' kernels.
    assert fit(model, codec, pairs, steps=300, lr=3e-3) == 1.0


@pytest.mark.parametrize("family", ["bart", "t5"])
def test_from_pretrained_loads_a_saved_checkpoint(tmp_path, family: str) -> None:
    """A local checkpoint written with save_pretrained loads through the `pretrained` key (no network)."""
    torch.manual_seed(0)
    pairs = synthetic_pairs()
    codec = make_codec(family, True, pairs)
    source = load_hf_model(family, codec.spec, None, **SMALL[family]["config"])
    source.save_pretrained(tmp_path / "ckpt")
    model = build_model({**SMALL[family], "pretrained": str(tmp_path / "ckpt")}, codec.spec, copy=True)
    assert isinstance(model, PretrainedSeq2Seq)
    for name, tensor in source.state_dict().items():
        assert torch.equal(model.model.state_dict()[name], tensor), name
    batch = codec.collate([codec.encode(q, t) for q, t in pairs[:4]])
    assert torch.isfinite(model(batch).logsumexp(-1)).all()
