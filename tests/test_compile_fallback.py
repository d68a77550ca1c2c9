"""`train.compile=true`: a method torch.compile cannot compile runs uncompiled, says why, and the run goes on."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import torch
from test_decoding_tiny_model import TinySeq2Seq, collate, make_examples, one_thread  # noqa: F401

from nmt_sparql.training import make_train_loader, train
from nmt_sparql.training.compile import FallbackCompiled, compile_model


def broken_backend(calls: list[int]):
    def backend(graph: torch.fx.GraphModule, inputs: list) -> None:
        calls.append(1)
        raise RuntimeError("no C++ compiler on this machine")

    return backend


def test_a_failing_compile_falls_back_to_eager_and_logs_why(caplog: pytest.LogCaptureFixture) -> None:
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 3)
    x = torch.randn(2, 4)
    expected = layer(x)
    calls: list[int] = []
    wrapped = compile_model(layer, ("forward",), backend=broken_backend(calls))
    with caplog.at_level(logging.WARNING):
        assert torch.equal(layer(x), expected)
        assert torch.equal(layer(x), expected)
    assert calls == [1]  # not retried after the first failure
    assert "no C++ compiler" in (wrapped["forward"].failure or "") and "runs uncompiled" in caplog.text


def test_a_compiled_method_gives_the_eager_result_and_real_errors_propagate() -> None:
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 3)
    x = torch.randn(2, 4)
    expected = layer(x)
    wrapped = compile_model(layer, ("forward",), backend="eager")
    assert torch.allclose(layer(x), expected) and wrapped["forward"].failure is None
    with pytest.raises(RuntimeError, match="shapes"):
        layer(torch.randn(2, 5))  # the eager method fails too: the caller's error, not a compile failure


def test_training_with_compile_goes_on_when_compiling_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_compile = torch.compile
    calls: list[int] = []
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: real_compile(fn, backend=broken_backend(calls)))
    torch.manual_seed(0)
    model = TinySeq2Seq(copy=True, dim=16)
    loader = make_train_loader(make_examples(8, seed=1), batch_size=4, collate_fn=collate, seed=0)
    config = {
        "max_epochs": 1,
        "compile": True,
        "progress_bar": False,
        "optimizer": {"name": "adam", "lr": 0.01},
    }
    result = train(config, model, loader, None, tmp_path / "run")
    assert calls and result.last is not None and (tmp_path / "run" / "last").is_dir()
    assert "forward" in vars(model)  # the instance's forward is the fallback wrapper


def test_a_compile_failure_in_inference_keeps_training_compiled(caplog: pytest.LogCaptureFixture) -> None:
    """Training and inference compile different graphs: the one that fails runs eagerly, the other stays
    compiled (a GPU run lost its compiled training step to a failing validation graph)."""
    torch.manual_seed(0)
    layer = torch.nn.Linear(4, 3)
    x = torch.randn(2, 4)
    compiled_calls: list[bool] = []

    def compiled(inputs: torch.Tensor) -> torch.Tensor:
        compiled_calls.append(torch.is_grad_enabled())
        if not torch.is_grad_enabled():
            raise RuntimeError("AssertionError in the inference graph")
        return layer.__class__.forward(layer, inputs)

    wrapper = FallbackCompiled("Linear.forward", layer.forward, compiled)
    with caplog.at_level(logging.WARNING), torch.no_grad():
        assert torch.equal(wrapper(x), layer(x))  # falls back, eager result
        assert torch.equal(wrapper(x), layer(x))  # not retried
    assert wrapper.failures.keys() == {"inference"} and "inference graph" in (wrapper.failure or "")
    assert "failed in inference" in caplog.text
    assert torch.equal(wrapper(x), layer(x)) and wrapper(x).requires_grad  # training: still compiled
    assert compiled_calls == [False, True, True]
    layer.eval()
    wrapper(x)  # eval mode with gradients on is inference too: eager, compiled not called again
    assert compiled_calls == [False, True, True]
