"""`nmt-sparql translate model=EXPORT_DIR`: questions (argument, file, or stdin) -> JSON lines on stdout.

One line per question: `question`, `input` (the annotated text the model read), `sparql`, and
`answer` when a KB is given. Questions are decoded in batches of the export's decode batch size.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from omegaconf import DictConfig

from nmt_sparql.config_values import config_bool
from nmt_sparql.execution.config import KBSettings
from nmt_sparql.serving.translator import Translator


def _lines(stream: TextIO) -> Iterator[str]:
    for line in stream:
        if line.strip():
            yield line.strip()


def read_questions(question: str | None, source: str | None, stdin: TextIO) -> list[str]:
    """The questions to translate: `question`, else the lines of `source` (a file, or `-`/none: stdin)."""
    if question is not None and source is not None:
        raise ValueError("give either question=... or input=..., not both")
    if question is not None:
        if not str(question).strip():
            raise ValueError("question: empty")
        return [str(question)]
    if source is None or source == "-":
        return list(_lines(stdin))
    path = Path(source)
    if not path.is_file():
        raise FileNotFoundError(f"input={source}: no such file")
    with path.open(encoding="utf-8") as handle:
        return list(_lines(handle))


def run(cfg: DictConfig) -> int:
    questions = read_questions(cfg.question, cfg.input, sys.stdin)
    translator = Translator.from_pretrained(
        cfg.export,
        device=cfg.device,
        kb=cfg.kb,
        index=cfg.index,
        kb_settings=KBSettings.from_config(cfg),
        quantize=cfg.get("quantize"),
    )
    try:
        results = translator.translate(
            questions,
            beam=cfg.beam,
            annotate=config_bool(cfg.annotate, "annotate"),
            answers=translator.kb is not None,
        )
    finally:
        translator.close()
    for result in results:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return len(results)
