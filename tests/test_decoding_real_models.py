"""The project's own models (conf/model/*_small.yaml, random init) decode identically with the
cached decoders and the uncached reference, and train a step with the recipe."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf
from reference_decoding import TeacherForcedStepper, reference_greedy
from test_decoding_tiny_model import MASK, SRC_VOCAB, VOCAB, make_examples, one_thread  # noqa: F401
from test_decoding_tiny_model import collate as tiny_collate
from torch.utils.data import DataLoader

from nmt_sparql.core.interface import Batch, VocabSpec
from nmt_sparql.decoding import beam_search, greedy
from nmt_sparql.models.registry import build_model
from nmt_sparql.training import make_train_loader, train

CONF = Path(__file__).resolve().parents[1] / "conf" / "model"
KB = VOCAB - 1  # the <kb> mask id must be valid in both id spaces
SPEC = VocabSpec(src_size=SRC_VOCAB, tgt_size=VOCAB, src_pad_id=0, pad_id=0, bos_id=1, eos_id=2, kb_id=KB)


def collate(examples: list) -> Batch:
    batch = tiny_collate(examples)
    batch.src_ids = batch.src_ids.masked_fill(batch.src_ids == MASK, KB)
    return batch


@pytest.fixture(params=["transformer_small", "convs2s_small"])
def model(request: pytest.FixtureRequest) -> torch.nn.Module:
    torch.manual_seed(0)
    return build_model(
        OmegaConf.to_container(OmegaConf.load(CONF / f"{request.param}.yaml").model), SPEC, copy=True
    )


def test_cached_decoding_matches_the_uncached_reference(model: torch.nn.Module) -> None:
    batch = collate(make_examples(5, seed=3))
    cached = greedy(model, batch, 8)
    assert cached == reference_greedy(model, batch, 8)
    assert [h[0][0] for h in beam_search(model, batch, 1, 8)] == cached
    beams = beam_search(model, batch, 3, 8, n_best=3)
    uncached = beam_search(TeacherForcedStepper(model), batch, 3, 8, n_best=3)
    assert [[ids for ids, _ in h] for h in beams] == [[ids for ids, _ in h] for h in uncached]


def test_the_recipe_trains_the_model(model: torch.nn.Module, tmp_path: Path) -> None:
    loader = make_train_loader(make_examples(16, seed=1), 8, collate, seed=0)
    val = DataLoader(make_examples(8, seed=2), batch_size=8, collate_fn=collate)
    cfg = {"max_epochs": 2, "progress_bar": False, "optimizer": {"name": "adam", "lr": 0.003}}
    result = train(cfg, model, loader, val, tmp_path)
    assert result.state.step == 4 and result.best is not None
