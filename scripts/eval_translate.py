"""Answer accuracy of an exported model on raw questions, the way a user asks them (`translate`).

Each question goes through `Translator` (linking, decoding, execution on the KB), and its answer is
compared with the gold query's answer by the project's answer metric (nmt_sparql/metrics/answers.py),
so the figure is comparable with what `evaluate` reports for the same questions. Questions come
from a JSONL file of {question, query[, id, kind | template_id | template]} records (e.g.
benchmarks/natural_questions.jsonl) or from a training run folder (its prepared test split, read
as raw questions: the `question` field, never the annotated text). Accuracy is printed overall and
per `kind` / `template_id` / `template` field when the records have one, with the empty-answer rate;
`--repair` decodes the beam's n-best and repairs it on the KB (inference/repair.py) and prints the
histogram of the round each answer came from.

    python scripts/eval_translate.py EXPORT_DIR benchmarks/natural_questions.jsonl --kb embedded:bundled
    python scripts/eval_translate.py EXPORT_DIR checkpoints/bundled/RUN --out results/translate.jsonl
    python scripts/eval_translate.py EXPORT_DIR benchmarks/natural_questions.jsonl --beam 5 --repair
    python scripts/eval_translate.py EXPORT_1 QUESTIONS --with EXPORT_2 --with EXPORT_3 --beam 5 --repair
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from nmt_sparql.core.record import Example, RecordError
from nmt_sparql.execution.answer import Answer
from nmt_sparql.execution.gold import gold_answers
from nmt_sparql.metrics.answers import score_answer
from nmt_sparql.metrics.query import is_valid_sparql
from nmt_sparql.preparation.prepare import load_splits
from nmt_sparql.serving.ensemble import Ensemble
from nmt_sparql.serving.translator import Translator

GROUP_FIELDS = ("kind", "template_id", "template")


def read_questions(source: Path, kb: str, split: str = "test") -> tuple[list[Example], list[str | None]]:
    """The examples to ask and each one's group (kind or template), from a JSONL file or a run folder
    (its prepared `split`)."""
    if source.is_dir():
        cfg = OmegaConf.load(source / "config.yaml")
        examples = load_splits(cfg)[split]
        return examples, [ex.template_id for ex in examples]
    examples, groups = [], []
    with source.open(encoding="utf-8") as handle:
        for i, line in enumerate(handle):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise RecordError(source, i, "<line>", f"invalid JSON: {err.msg}") from None
            if not isinstance(record, dict):
                raise RecordError(source, i, "<record>", "expected a JSON object")
            for name in ("question", "query"):
                if not isinstance(record.get(name), str) or not record[name].strip():
                    raise RecordError(source, i, name, "missing or not a non-empty string")
            examples.append(Example(str(record.get("id", i)), record["question"], record["query"], kb))
            groups.append(next((str(record[f]) for f in GROUP_FIELDS if record.get(f) is not None), None))
    return examples, groups


def evaluate(
    translator: Translator | Ensemble, examples: list[Example], beam: int | None, repair: bool = False
) -> list[dict[str, Any]]:
    """One record per question: its input, predicted SPARQL and whether its answer is the gold one
    (`correct` None where the gold answer is empty or failed: excluded, as `evaluate` does)."""
    assert translator.kb is not None
    gold = gold_answers(examples, translator.kb, None, progress=False)
    results = translator.translate([ex.question for ex in examples], beam=beam, answers=True, repair=repair)
    rows = []
    for ex, result in zip(examples, results, strict=True):
        predicted = Answer.from_json(result.answer) if result.answer is not None else None
        kept = gold[ex.id].ok and not gold[ex.id].is_empty()
        score = score_answer(gold[ex.id], predicted) if kept else None
        rows.append(
            {"id": ex.id, "question": ex.question, "input": result.input, "gold": ex.query,
             "predicted": result.sparql, "valid": is_valid_sparql(result.sparql),
             "correct": None if score is None else score.correct,
             "f1": None if score is None else score.f1,
             "empty": predicted is None or predicted.is_empty(), "repair": result.repair,
             "ensemble": result.ensemble}
        )  # fmt: skip
    return rows


def report(rows: list[dict[str, Any]], groups: list[str | None]) -> str:
    """Accuracy and syntax-valid rate overall and per group, as a small table (accuracy leaves out the
    questions with an empty gold answer)."""
    by_group: dict[str, list[bool]] = defaultdict(list)
    valid_by_group: dict[str, list[bool]] = defaultdict(list)
    for row, group in zip(rows, groups, strict=True):
        if group is not None:
            valid_by_group[group].append(row["valid"])
            if row["correct"] is not None:
                by_group[group].append(row["correct"])
    lines = [f"{'group':<28} {'n':>5} {'answer accuracy %':>18} {'valid %':>8}"]
    for group in sorted(valid_by_group):
        flags, valid = by_group[group], valid_by_group[group]
        accuracy = 100 * sum(flags) / max(len(flags), 1)
        lines.append(f"{group:<28} {len(flags):>5} {accuracy:>18.2f} {100 * sum(valid) / len(valid):>8.2f}")
    total = [row["correct"] for row in rows if row["correct"] is not None]
    valid = 100 * sum(row["valid"] for row in rows) / max(len(rows), 1)
    lines.append(f"{'all':<28} {len(total):>5} {100 * sum(total) / max(len(total), 1):>18.2f} {valid:>8.2f}")
    empty = sum(row["empty"] for row in rows)
    lines.append(f"empty or failed answers: {empty} of {len(rows)} ({100 * empty / max(len(rows), 1):.2f}%)")
    repairs = [row["repair"] for row in rows if row["repair"] is not None]
    if repairs:
        found = Counter(
            "gave up" if r["answered_in"] is None else f"round {r['answered_in']}" for r in repairs
        )
        lines.append("answered in: " + ", ".join(f"{k}: {v}" for k, v in sorted(found.items())))
    if len(total) < len(rows):
        lines.append(f"({len(rows) - len(total)} question(s) with an empty or failed gold answer left out)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export", type=Path, help="an `nmt-sparql export` folder")
    parser.add_argument("questions", type=Path, help="a JSONL of {question, query} or a training run folder")
    parser.add_argument(
        "--with", dest="others", type=Path, action="append", default=[], metavar="EXPORT",
        help="another export (repeatable): the answer most of the exports give (serving/ensemble.py)",
    )  # fmt: skip
    parser.add_argument("--kb", default="embedded:bundled", help="KB the answers come from")
    parser.add_argument(
        "--split", default="test", choices=("train", "validation", "test"),
        help="a run folder's split to ask (choices are made on validation; test is reported once)",
    )  # fmt: skip
    parser.add_argument("--beam", type=int, default=None, help="beam size (default: the export's)")
    parser.add_argument("--repair", action="store_true", help="repair the beam's n-best on the KB")
    parser.add_argument(
        "--rounds", type=int, default=5, help="repair rounds (1: the first answering hypothesis)"
    )
    parser.add_argument("--out", type=Path, default=None, help="write one JSON line per question here")
    parser.add_argument(
        "--grammar", choices=("on", "off"), default=None, help="decode.grammar (default: the export's)"
    )
    args = parser.parse_args(argv)
    members = [Translator.from_pretrained(args.export, kb=args.kb)]
    members += [Translator.from_pretrained(path) for path in args.others]
    for member in members:
        member.repair_rounds = args.rounds
        if args.grammar is not None:
            member.decode_defaults["grammar"] = args.grammar == "on"
    asker = Ensemble(members) if args.others else members[0]
    try:
        examples, groups = read_questions(args.questions, members[0].config["kb"], args.split)
        rows = evaluate(asker, examples, args.beam, args.repair)
    finally:
        asker.close()
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(report(rows, groups))
    return 0


if __name__ == "__main__":
    sys.exit(main())
