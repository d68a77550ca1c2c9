"""`export quantize=int8|bf16`: the setting travels in config.json, weights stay fp32 safetensors, and
`translate`/`serve` (Translator.from_pretrained) run the model the way the export says."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file
from test_export_roundtrip import QUESTIONS, TRANSFORMER, make_run

from nmt_sparql.cli import main
from nmt_sparql.serving import quantize
from nmt_sparql.serving.export import PICKLE_SUFFIXES, export_model
from nmt_sparql.serving.manifest import write_manifest
from nmt_sparql.serving.translator import Translator

DYNAMIC_INT8 = torch.ao.nn.quantized.dynamic.Linear
CONVS2S = {"name": "convs2s", "embed_dim": 32, "hidden_dim": 32, "encoder_layers": 1, "decoder_layers": 1,
           "kernel_size": 3, "dropout": 0.0, "max_slots": 8}  # fmt: skip


def _kinds(model: torch.nn.Module) -> set[type]:
    return {type(m) for m in model.modules()}


@pytest.mark.parametrize("model_cfg", [TRANSFORMER, CONVS2S], ids=["transformer", "convs2s-weight-norm"])
def test_an_int8_export_keeps_fp32_weights_and_translates_in_int8(tmp_path: Path, model_cfg: dict) -> None:
    run = make_run(tmp_path / "run", model_cfg)
    plain = export_model(run, tmp_path / "plain")
    out = export_model(run, tmp_path / "int8", quantize="int8")
    assert json.loads((out / "config.json").read_text())["quantize"] == "int8"
    assert json.loads((plain / "config.json").read_text())["quantize"] == "none"
    weights, fp32 = load_file(out / "model.safetensors"), load_file(plain / "model.safetensors")
    assert weights.keys() == fp32.keys() and all(torch.equal(weights[k], fp32[k]) for k in fp32)
    assert {t.dtype for t in weights.values()} == {torch.float32}
    assert not [p for p in out.rglob("*") if p.suffix in PICKLE_SUFFIXES]

    translator = Translator.from_pretrained(out)
    assert DYNAMIC_INT8 in _kinds(translator.model) and torch.nn.Linear not in _kinds(translator.model)
    results = translator.translate(QUESTIONS, annotate=False)
    assert len(results) == len(QUESTIONS) and all(r.input == q for r, q in zip(results, QUESTIONS))

    fp32 = Translator.from_pretrained(out, quantize="none")  # the caller's setting wins
    assert DYNAMIC_INT8 not in _kinds(fp32.model)


def test_the_export_command_records_the_setting(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    main(["export", f"checkpoint={run}", f"out={tmp_path / 'out'}", "quantize=int8"])
    assert json.loads((tmp_path / "out" / "config.json").read_text())["quantize"] == "int8"


def test_an_unknown_setting_is_refused_naming_where_it_came_from(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    with pytest.raises(ValueError, match="int4"):
        export_model(run, tmp_path / "bad", quantize="int4")
    out = export_model(run, tmp_path / "out")
    config = json.loads((out / "config.json").read_text())
    (out / "config.json").write_text(json.dumps({**config, "quantize": "fp8"}))
    write_manifest(out)
    with pytest.raises(ValueError, match=r"config\.json: field 'quantize'.*fp8"):
        Translator.from_pretrained(out)


def test_bf16_runs_in_bf16_where_the_cpu_has_it_and_stays_fp32_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    out = export_model(make_run(tmp_path / "run"), tmp_path / "out", quantize="bf16")
    monkeypatch.setattr(quantize, "cpu_has_bf16", lambda: False)
    with caplog.at_level(logging.WARNING):
        translator = Translator.from_pretrained(out)
    assert translator.model.src_embed.weight.dtype == torch.float32
    assert "no native bf16" in caplog.text
    monkeypatch.setattr(quantize, "cpu_has_bf16", lambda: True)  # emulated here, native on such a CPU
    translator = Translator.from_pretrained(out)
    assert {p.dtype for p in translator.model.parameters()} == {torch.bfloat16}
    assert len(translator.translate(QUESTIONS, annotate=False)) == len(QUESTIONS)
