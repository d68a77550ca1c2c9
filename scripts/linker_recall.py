"""Linker recall of an export on questions as people type them: are a question's gold KB elements in
what the model reads?

Each question goes through the export's annotator (`Translator.annotate`, the same text `translate`
feeds the model); "all gold" is the share of questions whose every URI and literal of the gold query is
one of the input's «units»; the time is the annotator's per question (after one warm-up question, so a
sentence encoder's loading is not in it). Questions come from JSONL files of {question, query} (e.g. the natural
question sets of benchmarks/) or a run folder's prepared split (`--split`, read as raw questions).
`--show` lists what each missed question lacks (leave it off for a blind set).

    python scripts/linker_recall.py EXPORT benchmarks/natural_questions.jsonl --show
    python scripts/linker_recall.py EXPORT checkpoints/bundled/RUN --split validation
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from eval_translate import read_questions

from nmt_sparql.annotation.units import units
from nmt_sparql.serving.translator import Translator
from nmt_sparql.sparql.tokens import TokenType, token_types, tokenize


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export", type=Path, help="an `nmt-sparql export` folder")
    parser.add_argument(
        "questions", type=Path, nargs="+", help="JSONL files of {question, query} or run folders"
    )
    parser.add_argument("--split", default="test", choices=("train", "validation", "test"))
    parser.add_argument("--show", action="store_true", help="print each missed question and what it lacks")
    args = parser.parse_args(argv)
    translator = Translator.from_pretrained(args.export)
    translator.annotate("a first question, to load what linking needs")
    try:
        for source in args.questions:
            examples, _ = read_questions(source, translator.config["kb"], args.split)
            found = n_units = 0
            seconds = 0.0
            for ex in examples:
                tokens = tokenize(ex.query, translator.prefixes)
                kinds = token_types(tokens, translator.prefixes)
                gold = {t for t, k in zip(tokens, kinds) if k in (TokenType.URI, TokenType.LITERAL)}
                start = time.perf_counter()
                given = units(translator.annotate(ex.question))
                seconds += time.perf_counter() - start
                n_units += len(given)
                missed = gold - set(given)
                found += not missed
                if missed and args.show:
                    print(f"  {ex.id}  {ex.question}  lacks {' '.join(sorted(missed))}")
            n = max(len(examples), 1)
            print(
                f"{source}: all gold {found}/{len(examples)} = {100 * found / n:.1f}%, {n_units / n:.1f} units "
                f"per question, {1000 * seconds / n:.1f} ms per question"
            )
    finally:
        translator.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
