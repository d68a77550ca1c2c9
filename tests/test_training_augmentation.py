"""Per-epoch data augmentation (`PerEpoch`): fresh items every epoch, the same ones after a resume."""

from __future__ import annotations

import json

from accelerate import Accelerator

from nmt_sparql.cli import main
from nmt_sparql.tokenization.word import WordTokenizer
from nmt_sparql.training import PerEpoch, make_train_loader
from nmt_sparql.training.loader import reshuffled_train_data

QUESTION = "who is the person whose opponent is ike clanton ? <sep> «dbr:Ike_Clanton» ike clanton <sep> «dbo:opponent» opponent <sep> «dbo:Person» person"
QUERY = [
    "select",
    "distinct",
    "?uri",
    "where",
    "{",
    "?uri",
    "dbo:opponent",
    "dbr:Ike_Clanton",
    ".",
    "?uri",
    "a",
    "dbo:Person",
    "}",
]


def epoch_items(loader, epoch: int) -> list:
    (loader.set_epoch if hasattr(loader, "set_epoch") else loader.sampler.set_epoch)(epoch)
    return [item for batch in loader for item in batch]


def make_loader():
    return make_train_loader(PerEpoch(6, lambda epoch, i: f"{i}@{epoch}"), 2, list, seed=3)


def test_per_epoch_items_change_with_the_epoch_and_repeat_exactly() -> None:
    loader = make_loader()
    first, second = epoch_items(loader, 0), epoch_items(loader, 1)
    assert sorted(first) == sorted(f"{i}@0" for i in range(6))
    assert sorted(second) == sorted(f"{i}@1" for i in range(6))
    assert epoch_items(make_loader(), 1) == second


def test_resumed_mid_epoch_loader_sees_the_rest_of_that_epoch() -> None:
    accelerator = Accelerator(cpu=True)
    full = epoch_items(accelerator.prepare(make_loader()), 2)
    resumed = accelerator.skip_first_batches(accelerator.prepare(make_loader()), 1)
    assert epoch_items(resumed, 2) == full[2:]


def test_reshuffled_items_keep_every_copy_target_on_its_kb_element() -> None:
    tokenizer = WordTokenizer.build([(QUESTION, QUERY)], copy=True, kb="dbpedia")
    data = reshuffled_train_data([(QUESTION, QUERY)], tokenizer, seed=0)
    items = [data[(epoch, 0)] for epoch in range(12)]
    assert len({tuple(item.src_ids) for item in items}) > 1
    for item in items:
        assert tokenizer.decode_ids(item.tgt_ids[1:-1], item.slot_tokens) == QUERY


def test_train_command_reshuffles_tag_end_units(tmp_path) -> None:
    run = tmp_path / "run"
    main(["train", "model.dim=16", "model.ffn_dim=32", "model.heads=2", "model.encoder_layers=1",
          "model.decoder_layers=1", "annotation=tag_end", "reshuffle_tail=true", "train.max_steps=2",
          "evaluate=false", "dataset.reader_options.n_per_template=5", "train.progress_bar=false",
          "data.augment=null", f"data.dir={tmp_path / 'data'}", f"hydra.run.dir={run}"])  # fmt: skip
    events = [json.loads(line) for line in (run / "train_log.jsonl").read_text().splitlines()]
    assert events[-1]["event"] == "stop" and events[-1]["reason"] == "max_steps"
