"""`train.compile=true`: torch.compile for the training forward and the decoding steps, with a fallback.

torch.compile only fails when a compiled function first runs (tracing, a backend without a C++
compiler, an unsupported op), so each method is wrapped: on its first failure the reason is logged
and that method runs uncompiled from then on; the run goes on. An error the eager method raises too
is the caller's and propagates. Methods are replaced on the instance, so the state dict's keys (and
checkpoints, exports) are those of the uncompiled model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import torch

log = logging.getLogger(__name__)

# The teacher-forced forward (training, validation) and the incremental decoder (greedy, beam search).
METHODS = ("forward", "encode", "decode_step")


class FallbackCompiled:
    """A compiled method that switches to its eager version, for good, at its first failure in a mode.

    Training (module in train mode, gradients on) and inference (eval mode or no gradients) compile
    different graphs, and one can fail where the other works (on an H200, torch 2.11: a Transformer's
    eval-mode graph failed at its first validation while its training graph had compiled), so a failure
    sends only its own mode back to eager."""

    def __init__(self, name: str, eager: Callable[..., Any], compiled: Callable[..., Any]):
        self.name, self.eager, self.compiled = name, eager, compiled
        self.failures: dict[str, str] = {}  # mode -> why it failed

    @property
    def failure(self) -> str | None:
        """Why the first failing mode fell back (None: no failure)."""
        return next(iter(self.failures.values()), None)

    def _mode(self) -> str:
        owner = getattr(self.eager, "__self__", None)
        return "training" if getattr(owner, "training", True) and torch.is_grad_enabled() else "inference"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        mode = self._mode()
        if mode in self.failures:
            return self.eager(*args, **kwargs)
        try:
            return self.compiled(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - any compile failure falls back; eager re-raises real errors
            result = self.eager(*args, **kwargs)
            self.failures[mode] = _reason(exc)
            log.warning(
                "torch.compile of %s failed in %s (%s); it runs uncompiled there",
                self.name,
                mode,
                self.failures[mode],
            )
            return result


def _reason(exc: BaseException) -> str:
    """The root cause of a compile failure in one line (dynamo wraps the backend's own error)."""
    while (inner := getattr(exc, "inner_exception", None) or exc.__cause__) is not None:
        exc = inner
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def compile_model(
    model: torch.nn.Module, methods: tuple[str, ...] = METHODS, **options: Any
) -> dict[str, FallbackCompiled]:
    """Compile `model`'s `methods` in place (those it has), each with its own fallback; `options` go to
    torch.compile (e.g. `backend`, `dynamic`). Returns the wrappers, whose `failure` says what fell back."""
    wrapped: dict[str, FallbackCompiled] = {}
    for name in methods:
        eager = getattr(model, name, None)
        if eager is None:
            continue
        try:
            compiled = torch.compile(eager, **options)
        except Exception as exc:  # noqa: BLE001 - e.g. an unknown backend or a platform without dynamo
            log.warning(
                "torch.compile of %s is unavailable (%s: %s); it runs uncompiled",
                name,
                type(exc).__name__,
                exc,
            )
            continue
        wrapped[name] = FallbackCompiled(f"{type(model).__name__}.{name}", eager, compiled)
        setattr(model, name, wrapped[name])
    return wrapped
