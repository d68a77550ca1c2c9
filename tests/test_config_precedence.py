"""Model presets set their training recipe through Hydra's defaults list, so explicit `train.*`
overrides win for every model, every accepted train key is read, and run folders written when model
configs still carried the recipe keep loading."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from test_export_roundtrip import QUESTIONS, TRANSFORMER, make_run

from nmt_sparql.cli import main
from nmt_sparql.models.registry import RECIPE_KEYS, ModelConfigError, build_model
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.translator import Translator
from nmt_sparql.training.config import TrainConfig, train_config

CONF = Path(__file__).resolve().parents[1] / "conf"
PRESETS = sorted(p.stem for p in (CONF / "model").glob("*.yaml"))


def settings(*overrides: str) -> TrainConfig:
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return TrainConfig.from_any(train_config(compose("train", overrides=list(overrides))))


@pytest.mark.parametrize("preset", PRESETS)
def test_explicit_train_settings_win_over_every_preset(preset: str) -> None:
    config = settings(f"model={preset}", "train.max_epochs=5", "train.clip_norm=0.5", "train.batch_size=3",
                      "train.optimizer.lr=0.25", "train.scheduler.warmup_steps=7")  # fmt: skip
    assert (config.max_epochs, config.clip_norm, config.batch_size) == (5, 0.5, 3)
    assert (config.optimizer.lr, config.scheduler.warmup_steps) == (0.25, 7)


def test_presets_keep_the_papers_table_iii_recipe() -> None:
    convs2s, transformer = settings("model=convs2s"), settings("model=transformer")
    assert (convs2s.optimizer.name, convs2s.optimizer.lr, convs2s.optimizer.momentum) == ("sgd", 0.5, 0.99)
    assert (convs2s.clip_norm, convs2s.batch_size, convs2s.max_epochs) == (0.1, 32, 500)
    assert (transformer.optimizer.name, transformer.optimizer.lr, transformer.max_epochs) == (
        "adam",
        5e-4,
        500,
    )
    # a warmup, then the paper's constant rate
    assert (transformer.scheduler.name, transformer.scheduler.warmup_steps) == ("none", 1000)
    for name, lr in (("bart", 1.5e-5), ("t5", 1.5e-3)):
        config = settings(f"model={name}")
        assert (config.optimizer.lr, config.scheduler.name, config.max_epochs) == (lr, "polynomial", 200)
    small = settings("model=convs2s_small")
    assert (small.max_epochs, small.clip_norm, small.optimizer.lr) == (
        40,
        1.0,
        0.003,
    )  # train.yaml's, its own


def test_every_train_key_is_a_setting_the_loop_reads() -> None:
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("train")
    read = {f.name for f in fields(TrainConfig)} - {"seed"}  # seed: the top-level `seed=`
    assert set(cfg.train) == read | {"resume"}  # resume: read by the train command
    assert set(cfg.train.optimizer) == {f.name for f in fields(TrainConfig().optimizer)}
    assert set(cfg.train.scheduler) == {f.name for f in fields(TrainConfig().scheduler)}


def test_cfg_job_shows_the_override(capsys: pytest.CaptureFixture[str]) -> None:
    main(["train", "--cfg", "job", "model=convs2s", "train.max_epochs=5"])
    job = OmegaConf.create(capsys.readouterr().out)
    assert job.train.max_epochs == 5 and job.train.optimizer.name == "sgd" and "max_epochs" not in job.model


def test_a_recipe_key_in_the_model_config_is_refused_by_training() -> None:
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        cfg = compose("train", overrides=["+model.max_epochs=5"])
    with pytest.raises(ValueError, match=r"model\.max_epochs: .*train\.max_epochs"):
        train_config(cfg)


def test_keys_no_code_reads_are_refused() -> None:
    from nmt_sparql.tokenization.word import WordTokenizer

    tokenizer = WordTokenizer.build([("a «dbr:X»", ["select", "dbr:X"])], True, "dbpedia")
    for key in ("epochs", "max_steps", "max_length", "max_source_length", "max_target_length"):
        with pytest.raises(ModelConfigError, match=key):
            build_model({**TRANSFORMER, key: 1}, tokenizer.spec, True)


def test_a_run_folder_in_the_old_layout_still_exports_and_translates(tmp_path: Path) -> None:
    old = {**TRANSFORMER, "optimizer": {"name": "sgd", "lr": 0.5}, "scheduler": {"name": "none"},
           "clip_norm": 0.1, "batch_size": 4, "max_epochs": 500, "label_smoothing": 0.1}  # fmt: skip
    run = make_run(tmp_path / "run", old)
    assert "optimizer" in OmegaConf.load(run / "config.yaml").model
    translator = Translator.from_pretrained(export_model(run, tmp_path / "export"))
    assert len(translator.translate(QUESTIONS, annotate=False)) == len(QUESTIONS)
    config = json.loads((tmp_path / "export" / "config.json").read_text())
    assert not RECIPE_KEYS & set(config["model"])  # the export's model config is the architecture only


@pytest.mark.parametrize("dataset", ["bundled", "lcquad1"])
def test_data_prepare_links_as_train_does(dataset: str) -> None:
    """`nmt-sparql data prepare annotation=linked` writes the data `train` would (same manifest, so
    `train` reuses it), linker settings and overrides of them included."""
    from nmt_sparql.preparation.prepare import _manifest

    overrides = [f"dataset={dataset}", "annotation=linked", "linked.similar=2"]
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        prepared = _manifest(compose("data", overrides=["action=prepare", *overrides]), {})
        trained = _manifest(compose("train", overrides=overrides), {})
    assert prepared["linked"]["similar"] == 2
    assert prepared == trained
