"""`export`: a self-contained, pickle-free folder that decodes exactly like the model it came from."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import torch
from omegaconf import OmegaConf
from safetensors.torch import load_file

from nmt_sparql.annotation.linking.index import KBIndex
from nmt_sparql.annotation.linking.sources import entries_from_store
from nmt_sparql.cli import main
from nmt_sparql.data.generate import bundled_kb_path
from nmt_sparql.inference.decode import decode
from nmt_sparql.inference.tokenizer import build_tokenizer
from nmt_sparql.models.registry import build_model
from nmt_sparql.preparation.linking_index import INDEX_FILE
from nmt_sparql.serving.export import PICKLE_SUFFIXES, ExportError, export_model
from nmt_sparql.serving.translator import Translator
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import detokenize, tokenize
from nmt_sparql.training.checkpoint import TrainState, save_checkpoint

_PREFIXES = "PREFIX ont: <http://nmt-sparql.org/ontology/> PREFIX res: <http://nmt-sparql.org/resource/> "
PAIRS = [
    ("What is the «ont:birthDate» of «res:Alfred_Nobel» ?",
     tokenize(_PREFIXES + "SELECT DISTINCT ?x WHERE { res:Alfred_Nobel ont:birthDate ?x }", "bundled")),
    ("Who is the «ont:spouse» of «res:Alfred_Nobel» ?",
     tokenize(_PREFIXES + "SELECT DISTINCT ?x WHERE { res:Alfred_Nobel ont:spouse ?x }", "bundled")),
    ("What is the «ont:capital» of «res:Botswana» ?",
     tokenize(_PREFIXES + "SELECT DISTINCT ?x WHERE { res:Botswana ont:capital ?x }", "bundled")),
    ("How many «ont:Country» are there ?",
     tokenize(_PREFIXES + "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Country }", "bundled")),
]  # fmt: skip
QUESTIONS = [q for q, _ in PAIRS] + ["Who is the «ont:spouse» of «res:Botswana» ?"]

TRANSFORMER = {"name": "transformer", "dim": 32, "ffn_dim": 64, "heads": 2, "encoder_layers": 1,
               "decoder_layers": 1, "dropout": 0.0, "max_slots": 8, "batch_size": 4}  # fmt: skip
BART = {"name": "bart", "pretrained": None, "max_slots": 8, "sp_vocab_size": 120,
        "config": {"d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
                   "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
                   "dropout": 0.0, "max_position_embeddings": 64}}  # fmt: skip
DECODE = {"beam": 1, "n_best": 1, "max_len": 24, "batch_size": 8}


def bundled_index(folder: Path) -> Path:
    """The bundled KB's index in `folder`, as a run on the bundled dataset carries it."""
    store = ox.Store()
    store.bulk_load(path=str(bundled_kb_path()), format=ox.RdfFormat.TURTLE)
    KBIndex.build(folder / INDEX_FILE, entries_from_store(store, prefix_map("bundled"))).close()
    return folder / INDEX_FILE


def make_run(
    run: Path,
    model_cfg: dict[str, Any] = TRANSFORMER,
    annotation: str = "tag_within",
    decode: dict = DECODE,
    linked: dict | None = None,
    index: bool = False,
) -> Path:
    """A run folder as `nmt-sparql train` leaves it (random-init weights: equality is what is tested);
    `index`: with the bundled KB's index, so raw questions are linked."""
    torch.manual_seed(0)
    run.mkdir(parents=True, exist_ok=True)
    if index:
        bundled_index(run)
    tokenizer = build_tokenizer(model_cfg, PAIRS, True, "bundled")
    tokenizer.save(run / "tokenizer")
    model = build_model(model_cfg, tokenizer.spec, True)
    cfg = {"dataset": {"name": "bundled", "kb": "bundled"}, "model": model_cfg, "copy": True,
           "annotation": annotation, "seed": 7, "decode": decode, "kb": "embedded:bundled",
           "linked": linked or {"index": None, "per_mention": 3, "add_missed_gold": 0.0}}  # fmt: skip
    (run / "config.yaml").write_text(OmegaConf.to_yaml(OmegaConf.create(cfg)), encoding="utf-8")
    save_checkpoint(run / "best", model, TrainState())
    return run


def _reference(run: Path, beam: int, grammar: bool = True) -> list[str]:
    """SPARQL from the run's own model and tokenizer, as `evaluate` would decode it."""
    from nmt_sparql.inference.tokenizer import load_tokenizer
    from nmt_sparql.training.checkpoint import load_weights

    cfg = OmegaConf.to_container(OmegaConf.load(run / "config.yaml"))
    tokenizer = load_tokenizer(run / "tokenizer")
    model = build_model(cfg["model"], tokenizer.spec, True).eval()
    load_weights(run / "best", model)
    with torch.inference_mode():
        nbest = decode(model, tokenizer, QUESTIONS, {**DECODE, "beam": beam, "grammar": grammar})
    return [detokenize(hyps[0], "bundled") for hyps in nbest]


@pytest.mark.parametrize("model_cfg", [TRANSFORMER, BART], ids=["transformer", "bart"])
def test_exported_model_gives_the_same_sparql_as_before_export(tmp_path: Path, model_cfg: dict) -> None:
    run = make_run(tmp_path / "run", model_cfg)
    out = export_model(run, tmp_path / "export")
    expected = {beam: _reference(run, beam) for beam in (1, 3)}
    shutil.rmtree(run)  # the export must not need the run folder
    translator = Translator.from_pretrained(out)
    for beam in (1, 3):
        got = translator.translate(QUESTIONS, beam=beam, annotate=False)
        assert [t.sparql for t in got] == expected[beam]
        assert [t.input for t in got] == QUESTIONS


def test_an_export_keeps_the_grammar_switch_and_decodes_with_it(tmp_path: Path, monkeypatch) -> None:
    from nmt_sparql.decoding.grammar import GrammarRows

    calls = []
    restrict = GrammarRows.restrict
    monkeypatch.setattr(GrammarRows, "restrict", lambda self, *a: calls.append(1) or restrict(self, *a))
    run = make_run(tmp_path / "run", decode={**DECODE, "grammar": True})
    out = export_model(run, tmp_path / "export")
    assert json.loads((out / "config.json").read_text())["decode"]["grammar"] is True
    expected = _reference(run, 1, grammar=True)
    calls.clear()
    got = [t.sparql for t in Translator.from_pretrained(out).translate(QUESTIONS, annotate=False)]
    assert calls, "the exported model decoded without its grammar"
    assert got == expected


def test_an_export_written_before_the_grammar_maps_typed_triples_onto_it(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    out = export_model(run, tmp_path / "export")
    config = {**json.loads((out / "config.json").read_text()), "version": 1}  # an export without manifest
    (out / "manifest.json").unlink()
    for old, grammar in ((True, True), (False, False)):
        (out / "config.json").write_text(json.dumps({**config, "decode": {**DECODE, "typed_triples": old}}))
        got = [t.sparql for t in Translator.from_pretrained(out).translate(QUESTIONS, annotate=False)]
        assert got == _reference(run, 1, grammar=grammar)


def test_export_holds_no_pickle_and_describes_the_model(tmp_path: Path) -> None:
    out = export_model(make_run(tmp_path / "run", BART), tmp_path / "export")
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"model.safetensors", "config.json", "prefixes.json", "tokenizer/tokenization.json"} <= files
    assert "hf/model.safetensors" in files and "hf/config.json" in files  # BART body in Hugging Face format
    assert not [f for f in files if f.endswith(PICKLE_SUFFIXES)]
    config = json.loads((out / "config.json").read_text())
    assert config["copy"] is True and config["kb"] == "bundled"
    assert config["annotation"] == {
        "scheme": "tag_within", "seed": 7, "linked": {"index": None, "per_mention": 3, "add_missed_gold": 0.0},
        "code": None,  # a run folder written before runs recorded the code that linked their data
    }  # fmt: skip
    assert config["decode"] == DECODE and config["model"]["pretrained"] == "hf"
    assert (
        json.loads((out / "prefixes.json").read_text())["prefixes"]["res"]
        == "http://nmt-sparql.org/resource/"
    )
    from transformers import AutoModelForSeq2SeqLM

    assert AutoModelForSeq2SeqLM.from_pretrained(out / "hf").config.d_model == 32


def test_export_replaces_the_folder_whole_and_a_failed_export_leaves_it(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    out = tmp_path / "export"
    main(["export", f"checkpoint={run}", f"out={out}"])
    first = load_file(out / "model.safetensors")
    export_model(run, out)
    second = load_file(out / "model.safetensors")
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export", "run"]  # no temp folder left
    shutil.rmtree(run / "best")
    with pytest.raises(ExportError, match="no complete checkpoint"):
        export_model(run, out)
    assert (out / "config.json").is_file()
    with pytest.raises(ExportError, match="config.yaml: not found"):
        export_model(tmp_path / "missing", tmp_path / "other")
