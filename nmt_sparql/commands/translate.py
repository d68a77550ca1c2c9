"""`nmt-sparql translate model=EXPORT_DIR`: questions (argument, file, or stdin) -> JSON lines on stdout.

One line per question: `question`, `input` (the annotated text the model read), `sparql`,
`explanation` (the query in plain English; `explain=false` leaves it out), and `answer` when a KB is
given. With a KB, the query is the one execution feedback and repair found in the beam's n-best
(inference/repair.py; `repair=false` turns it off), and `repair` holds its rounds. Questions are
decoded in batches of the export's decode batch size. `model=[DIR1,DIR2,DIR3]` (with a KB) asks
each export and returns the answer most of them give (serving/ensemble.py), with `ensemble`: the
member chosen and its votes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from omegaconf import DictConfig, ListConfig

from nmt_sparql.config_values import config_bool
from nmt_sparql.serving.ensemble import Ensemble
from nmt_sparql.serving.translator import Translator

REPAIR_BEAM = 5  # hypotheses repair starts from: the only width tried (issue #16: 5 rounds, 5-best)


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
    many = isinstance(cfg.export, ListConfig)
    translator = Ensemble.from_command(cfg) if many else Translator.from_command(cfg)
    # Repair is on wherever a KB is given (repair=false turns it off): a user's question deserves the
    # query of the n-best that answers. It decodes a beam of REPAIR_BEAM unless `beam` says otherwise.
    repair = translator.kb is not None if cfg.repair is None else config_bool(cfg.repair, "repair")
    beam = cfg.beam if cfg.beam is not None or not repair else REPAIR_BEAM
    try:
        results = translator.translate(
            questions,
            beam=beam,
            annotate=config_bool(cfg.annotate, "annotate"),
            answers=translator.kb is not None,
            explain=config_bool(cfg.explain, "explain"),
            repair=repair,
        )
    finally:
        translator.close()
    for result in results:
        sys.stdout.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    sys.stdout.flush()
    return len(results)
