"""`nmt-sparql train` and `nmt-sparql evaluate` end to end on the bundled KB, tiny and short."""

import json

from nmt_sparql.cli import main
from nmt_sparql.data.fingerprint import CODE_FILE

TINY = [
    "model.dim=16",
    "model.ffn_dim=32",
    "model.heads=2",
    "model.encoder_layers=1",
    "model.decoder_layers=1",
]


def test_train_then_evaluate_writes_checkpoints_metrics_and_report(tmp_path, capsys):
    run = tmp_path / "run"
    main(["train", *TINY, "train.max_steps=3", "dataset.reader_options.n_per_template=15", "data.augment_n=100", "train.progress_bar=false", f"data.dir={tmp_path / 'data'}",
          f"hydra.run.dir={run}"])  # fmt: skip
    out = capsys.readouterr().out
    assert "answer accuracy %" in out
    for name in ("config.yaml", "tokenizer/tokenization.json", "best/model.safetensors", "train_log.jsonl",
                 "test/predictions.jsonl", "test/metrics.json", "test/report.md", "test/confusion.png",
                 CODE_FILE):  # fmt: skip
        assert (run / name).is_file(), name
    metrics = json.loads((run / "test/metrics.json").read_text())
    assert metrics["n"] > 10 and metrics["answers"]["kept"] > 0
    assert not list(run.rglob("*.pt")) and not list(run.rglob("*.pkl"))

    main(["evaluate", f"checkpoint={run}", "split=validation", "decode.beam=2", f"out={tmp_path / 'eval'}"])
    again = json.loads((tmp_path / "eval/metrics.json").read_text())
    assert again["n"] > 10
    assert "BLEU" in capsys.readouterr().out

    main(["evaluate", f"checkpoint={run}", "split=validation", "decode.beam=2", "decode.n_best=2",
          "decode.repair=true", f"out={tmp_path / 'repair'}"])  # fmt: skip
    repaired = json.loads((tmp_path / "repair/metrics.json").read_text())
    assert sum(repaired["repair"]["answered_in"].values()) == repaired["n"] and "empty_answer" in repaired
    lines = (tmp_path / "repair/predictions.jsonl").read_text().splitlines()
    assert all(json.loads(line)["repair"]["rounds"] for line in lines)
    assert "## Repair rounds" in (tmp_path / "repair/report.md").read_text()


def test_copy_false_trains_a_model_without_copy(tmp_path):
    run = tmp_path / "run"
    main(["train", *TINY, "copy=false", "train.max_steps=1", "evaluate=false", "dataset.reader_options.n_per_template=5", "data.augment=null",
          f"data.dir={tmp_path / 'data'}", f"hydra.run.dir={run}"])  # fmt: skip
    assert json.loads((run / "tokenizer" / "tokenization.json").read_text())["copy"] is False


def test_a_multirun_writes_each_run_in_a_folder_that_export_takes(tmp_path):
    sweep = tmp_path / "multirun"
    main(["train", "-m", "seed=1,2", *TINY, "train.max_steps=1", "evaluate=false", "dataset.reader_options.n_per_template=5", "data.augment=null",
          f"data.dir={tmp_path / 'data'}", f"hydra.sweep.dir={sweep}"])  # fmt: skip
    assert sorted(p.name for p in sweep.iterdir() if p.is_dir()) == ["0", "1"]
    assert "seed: 2" in (sweep / "1" / "config.yaml").read_text()
    main(["export", f"checkpoint={sweep / '1'}", f"out={tmp_path / 'export'}"])
    assert (tmp_path / "export" / "model.safetensors").is_file()
