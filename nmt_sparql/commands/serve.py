"""`nmt-sparql serve export=EXPORT_DIR [kb=...] host=127.0.0.1 port=8000`: the HTTP API of serving/server.py.

`model=[DIR1,DIR2,DIR3] kb=...` serves several exports together (serving/ensemble.py): each question
gets the answer most of them give."""

from __future__ import annotations

import uvicorn
from omegaconf import DictConfig, ListConfig

from nmt_sparql.serving.ensemble import Ensemble
from nmt_sparql.serving.server import Limits, create_app
from nmt_sparql.serving.translator import Translator


def run(cfg: DictConfig) -> None:
    many = isinstance(cfg.export, ListConfig)
    translator = Ensemble.from_command(cfg) if many else Translator.from_command(cfg)
    limits = Limits(
        max_questions=int(cfg.limits.max_questions),
        max_question_chars=int(cfg.limits.max_question_chars),
        max_beam=int(cfg.limits.max_beam),
    )
    app = create_app(
        translator,
        limits,
        max_batch=int(cfg.batching.max_batch),
        max_wait_ms=float(cfg.batching.max_wait_ms),
        execute_threads=int(cfg.batching.execute_threads),
    )
    print(f"serving {cfg.export} on http://{cfg.host}:{cfg.port} (API docs at /docs)")
    try:
        uvicorn.run(app, host=str(cfg.host), port=int(cfg.port), log_level="info")
    finally:
        translator.close()
