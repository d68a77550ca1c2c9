"""Our Transformer as a CTranslate2 model (the optional `bench` extra): the same log-probabilities."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.models.transformer import TransformerSeq2Seq

ctranslate2 = pytest.importorskip("ctranslate2")
from nmt_sparql.serving import ct2  # noqa: E402

SPEC = VocabSpec(src_size=50, tgt_size=40, src_pad_id=0, pad_id=0, bos_id=1, eos_id=2, kb_id=3)


def model(pre_norm: bool, copy: bool = False) -> TransformerSeq2Seq:
    torch.manual_seed(0)
    net = TransformerSeq2Seq(
        SPEC, copy, dim=32, ffn_dim=64, heads=4, encoder_layers=2, decoder_layers=2, dropout=0.0,
        pre_norm=pre_norm, max_slots=8,
    )  # fmt: skip
    for p in net.parameters():  # away from the near-uniform init, so a wrong mapping shows
        p.data.normal_(0, 0.5)
    return net.eval()


@pytest.mark.parametrize("pre_norm", [True, False], ids=["pre-norm", "post-norm"])
def test_a_converted_transformer_scores_targets_as_ours_does(tmp_path: Path, pre_norm: bool) -> None:
    net = model(pre_norm)
    src = torch.randint(4, 50, (3, 12), generator=torch.Generator().manual_seed(1))
    src[:, -1] = 2
    tgt = torch.randint(4, 40, (3, 8), generator=torch.Generator().manual_seed(2))
    tgt[:, 0], tgt[:, -1] = 1, 2
    with torch.inference_mode():
        log_probs = net(Batch(src, torch.ones_like(src, dtype=torch.bool), torch.full_like(src, -1), tgt))
    ours = log_probs.gather(-1, tgt[:, 1:, None])[..., 0]
    folder = ct2.save(ct2.transformer_spec(net), tmp_path / "ct2", "float32")
    translator = ctranslate2.Translator(str(folder), compute_type="float32", intra_threads=1)
    scored = translator.score_batch(
        [[f"t{i}" for i in row] for row in src.tolist()],
        [[f"t{i}" for i in row[1:-1]] for row in tgt.tolist()],
    )
    theirs = torch.tensor([r.log_probs for r in scored])
    assert torch.allclose(theirs, ours, atol=1e-4)


def test_a_copy_model_is_refused() -> None:
    with pytest.raises(ValueError, match="copy"):
        ct2.transformer_spec(model(True, copy=True))
