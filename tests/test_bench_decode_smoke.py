"""scripts/bench_decode.py runs end to end on a tiny T5 and reports equal-work results for every decoder."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import load_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script("bench_decode")


def test_inputs_are_questions_with_two_or_three_masked_kb_slots(bench: ModuleType) -> None:
    (batch,) = bench.make_batches(6, 8, vocab_size=100, copy=True)
    lengths = batch.src_mask.sum(-1)
    assert len(batch) == 6 and bool(((lengths >= 20) & (lengths <= 30)).all())
    n_slots = (batch.src_slots >= 0).sum(-1)
    assert bool(((n_slots >= 2) & (n_slots <= 3)).all())
    assert bool((batch.src_ids[batch.src_slots >= 0] == bench.KB).all())
    (plain,) = bench.make_batches(6, 8, vocab_size=100, copy=False)
    assert bool((plain.src_slots == -1).all()) and not bool((plain.src_ids == bench.KB).any())


def test_the_script_measures_all_decoders_and_writes_json(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    argv = ["--batch-sizes", "1", "2", "--n-queries", "2", "--max-len", "4", "--repeats", "1"]
    argv += ["--threads", "1", "--vocab-size", "64", "--d-model", "16", "--d-ff", "32"]
    argv += ["--num-layers", "1", "--num-heads", "2", "--out", str(out)]
    report = bench.main(argv)
    assert json.loads(out.read_text()) == report
    results = {(r["decoder"], r["batch_size"]): r for r in report["results"]}
    assert set(results) == {(name, b) for name in bench.DECODERS for b in (1, 2)}
    for r in results.values():
        assert r["queries_per_s"] > 0
        assert r["tokens_per_s"] == pytest.approx(r["queries_per_s"] * 4)
    assert results["reference/copy", 2]["n_queries"] == 2  # one whole batch
    assert "| speed-up vs (a) reference |" in report["table"]


def test_query_len_ends_our_queries_early_while_the_reference_runs_max_len(bench: ModuleType) -> None:
    argv = ["--batch-sizes", "2", "--n-queries", "2", "--max-len", "6", "--query-len", "3", "--repeats", "1"]
    argv += ["--threads", "1", "--vocab-size", "64", "--d-model", "16", "--d-ff", "32", "--num-layers", "1"]
    report = bench.main(argv + ["--num-heads", "2"])
    tokens = {r["decoder"]: r["tokens_per_s"] / r["queries_per_s"] for r in report["results"]}
    assert tokens["reference/copy"] == pytest.approx(6) and tokens["greedy/copy"] == pytest.approx(3)
    assert tokens["hf-generate/no-copy"] == pytest.approx(3)


@pytest.mark.parametrize("query_len", [None, 3])
def test_generate_and_our_greedy_run_the_same_number_of_decoder_steps(
    bench: ModuleType, query_len: int | None
) -> None:
    """Equal work: with --query-len both run L + 1 steps (L tokens, then EOS); without, both run max_len."""
    from nmt_sparql.decoding import greedy

    cfg = bench.t5_config(
        64, {"d_model": 16, "d_ff": 32, "num_heads": 2, "d_kv": 8, "num_layers": 1, "num_decoder_layers": 1}
    )
    model = bench.build(cfg, 64, copy=False, device="cpu")
    calls: list[int] = []
    # the decoder's final layer norm runs once per step, in generate's decoder call and in our lean T5 step
    model.model.get_decoder().final_layer_norm.register_forward_hook(lambda *_: calls.append(1))
    (batch,) = bench.make_batches(2, 2, vocab_size=64, copy=False)
    stepper = model if query_len is None else bench.EndsAt(model, query_len)
    bench.ours(greedy, stepper, 6, "greedy", query_len)(batch)
    ours, calls[:] = len(calls), []
    bench.hf_generate(model, 6, query_len)(batch)
    assert ours == len(calls) == (6 if query_len is None else query_len + 1)
