"""A damaged checkpoint or export is refused by name, with what to do; exports carry a sha256
manifest and no pickle; every file written is as readable as the user's other files (0644)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import torch
from test_checkpoint_atomic import trained_objects
from test_decoding_tiny_model import TinySeq2Seq, one_thread  # noqa: F401
from test_export_roundtrip import BART, QUESTIONS, make_run

from nmt_sparql.atomic import FILE_MODE
from nmt_sparql.serving.export import export_model
from nmt_sparql.serving.manifest import MANIFEST, ManifestError
from nmt_sparql.serving.translator import ExportFormatError, Translator
from nmt_sparql.training.checkpoint import (
    CheckpointError,
    TrainState,
    load_checkpoint,
    load_weights,
    save_checkpoint,
)


def truncate(path: Path, keep: int = 20) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def flip_last_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))


def test_truncated_weights_name_the_file_and_the_remedy(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "best", TinySeq2Seq(dim=8), TrainState())
    truncate(tmp_path / "best" / "model.safetensors")
    with pytest.raises(CheckpointError) as err:
        load_weights(tmp_path / "best", TinySeq2Seq(dim=8))
    message = str(err.value)
    assert message.startswith(f"{tmp_path / 'best' / 'model.safetensors'}: truncated or corrupt (")
    assert "delete" in message and "last/" in message


def test_weights_of_another_model_size_name_the_file_and_the_remedy(tmp_path: Path) -> None:
    save_checkpoint(tmp_path / "last", TinySeq2Seq(dim=8), TrainState())
    with pytest.raises(
        ValueError, match=r"last/model\.safetensors: its weights do not fit .*hydra\.run\.dir"
    ):
        load_weights(tmp_path / "last", TinySeq2Seq(dim=16))


def test_a_resume_from_a_damaged_last_says_it_cannot_resume(tmp_path: Path) -> None:
    model, optimizer, scheduler = trained_objects(seed=0)
    save_checkpoint(tmp_path / "last", model, TrainState(), optimizer, scheduler)
    truncate(tmp_path / "last" / "optimizer.safetensors", keep=100)
    with pytest.raises(
        CheckpointError, match=r"last/optimizer\.safetensors: truncated or corrupt .*cannot resume"
    ):
        load_checkpoint(tmp_path / "last", model, optimizer, scheduler)
    (tmp_path / "last" / "scheduler.json").unlink()
    with pytest.raises(CheckpointError, match=r"last/scheduler\.json: missing"):
        load_checkpoint(tmp_path / "last", model, None, scheduler)


def test_export_of_a_damaged_checkpoint_names_the_file(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    truncate(run / "best" / "model.safetensors")
    with pytest.raises(CheckpointError, match=r"best/model\.safetensors: truncated or corrupt .*which=last"):
        export_model(run, tmp_path / "export")


def test_the_manifest_lists_every_file_of_the_export_and_files_are_0644(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", BART)
    out = export_model(run, tmp_path / "export")
    manifest = json.loads((out / MANIFEST).read_text())
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert manifest["algorithm"] == "sha256" and sorted(manifest["files"]) == [
        f for f in files if f != MANIFEST
    ]
    assert "hf/model.safetensors" in manifest["files"]
    written = [*out.rglob("*"), *(run / "best").iterdir()]
    modes = {str(p): oct(os.stat(p).st_mode & 0o777) for p in written if p.is_file()}
    assert set(modes.values()) == {oct(FILE_MODE)}, modes


def test_a_bit_flipped_export_is_refused_naming_the_file(tmp_path: Path) -> None:
    out = export_model(make_run(tmp_path / "run"), tmp_path / "export")
    Translator.from_pretrained(out)  # whole: loads
    flip_last_byte(out / "model.safetensors")
    with pytest.raises(ManifestError, match=rf"{out / 'model.safetensors'}: sha256 differs"):
        Translator.from_pretrained(out)


def test_unlisted_and_missing_files_are_refused(tmp_path: Path) -> None:
    out = export_model(make_run(tmp_path / "run"), tmp_path / "export")
    (out / "tokenizer" / "extra.json").write_text("{}")
    with pytest.raises(ManifestError, match=r"not listed in .*extra\.json"):
        Translator.from_pretrained(out)
    (out / "tokenizer" / "extra.json").unlink()
    (out / "prefixes.json").unlink()
    with pytest.raises(ManifestError, match=r"prefixes\.json: listed in manifest\.json but missing"):
        Translator.from_pretrained(out)


@pytest.mark.parametrize("name", ["pytorch_model.bin", "weights.pt", "state.pkl"])
def test_pickle_weights_in_an_export_are_refused_before_loading(tmp_path: Path, name: str) -> None:
    out = export_model(make_run(tmp_path / "run", BART), tmp_path / "export")
    torch.save({"x": torch.zeros(1)}, out / "hf" / name)
    with pytest.raises(ExportFormatError, match=rf"refusing .*{out / 'hf' / name}"):
        Translator.from_pretrained(out)


def test_an_export_from_before_manifests_still_loads_and_reports_damage_by_file(tmp_path: Path) -> None:
    out = export_model(make_run(tmp_path / "run"), tmp_path / "export")
    (out / MANIFEST).unlink()
    with pytest.raises(ManifestError, match=r"manifest\.json: missing"):
        Translator.from_pretrained(out)  # a version 2 export must have one
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "version": 1}))
    assert Translator.from_pretrained(out).translate(QUESTIONS[:1], annotate=False)
    truncate(out / "model.safetensors")
    with pytest.raises(CheckpointError, match=rf"{out / 'model.safetensors'}: truncated or corrupt .*export"):
        Translator.from_pretrained(out)


def test_evaluate_falls_back_to_last_after_a_damaged_best_is_deleted(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    shutil.copytree(run / "best", run / "last")
    truncate(run / "best" / "model.safetensors")
    with pytest.raises(CheckpointError, match="best/model.safetensors"):
        export_model(run, tmp_path / "export")
    shutil.rmtree(run / "best")  # what the error says to do
    assert (export_model(run, tmp_path / "export") / MANIFEST).is_file()


def test_hugging_face_weights_load_from_safetensors_only(tmp_path: Path) -> None:
    from transformers import AutoModelForSeq2SeqLM, BartConfig

    from nmt_sparql.core.interface import VocabSpec
    from nmt_sparql.models.pretrained import load_hf_model

    dims = {"d_model": 16, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
            "decoder_attention_heads": 2, "encoder_ffn_dim": 16, "decoder_ffn_dim": 16}  # fmt: skip
    spec = VocabSpec(src_size=40, tgt_size=40, src_pad_id=0, pad_id=0, bos_id=1, eos_id=2, kb_id=3)
    model = AutoModelForSeq2SeqLM.from_config(BartConfig(vocab_size=40, **dims))
    model.save_pretrained(tmp_path / "pickled")
    (tmp_path / "pickled" / "model.safetensors").unlink()
    torch.save(model.state_dict(), tmp_path / "pickled" / "pytorch_model.bin")
    with pytest.raises(OSError, match="safetensors"):
        load_hf_model("bart", spec, str(tmp_path / "pickled"))
    model.save_pretrained(tmp_path / "safe")
    assert load_hf_model("bart", spec, str(tmp_path / "safe")).config.d_model == 16
