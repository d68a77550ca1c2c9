"""Question for question, two runs of `scripts/eval_translate.py --out` over the same question sets.

Two models (two seeds, two recipes), or one model under two versions of the code, answer the same sets;
a total alone hides that both gain and lose. Each folder holds one `--out` file per set (the same file
names in both); this prints each set's correct answers before and after, the questions gained and lost,
and the exact two-sided sign test (McNemar's) on them: the chance of a split at least this uneven if
gaining and losing were equally likely. Two seeds of the default recipe differ by dozens of questions on
the natural-question sets (BENCHMARKS.md, session 44), so a difference is read against that spread too.

    for s in benchmarks/natural_questions*.jsonl; do
      python scripts/eval_translate.py EXPORT $s --beam 5 --repair --out A/$(basename $s); done
    python scripts/compare_results.py A B --exclude heldout31 --show 20
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class SetComparison:
    """One set's answers in both runs: correct counts over the questions scored in both."""

    name: str
    before: int = 0
    after: int = 0
    scored: int = 0
    gained: list[tuple[str, str]] = field(default_factory=list)  # (id, question)
    lost: list[tuple[str, str]] = field(default_factory=list)


def read_results(path: Path) -> dict[str, dict]:
    """id -> record of one `--out` file; a line that is no JSON object with an `id` names file and line."""
    rows: dict[str, dict] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{n}: not JSON ({err.msg})") from None
        if not isinstance(row, dict) or "id" not in row or "correct" not in row:
            raise ValueError(f"{path}:{n}: expected a record with 'id' and 'correct'")
        rows[str(row["id"])] = row
    return rows


def compare_set(name: str, before: dict[str, dict], after: dict[str, dict]) -> SetComparison:
    """The questions both runs scored (a question whose gold answer is empty has `correct` null)."""
    out = SetComparison(name)
    for qid, old in before.items():
        new = after.get(qid)
        if new is None or old["correct"] is None or new["correct"] is None:
            continue
        out.scored += 1
        out.before += bool(old["correct"])
        out.after += bool(new["correct"])
        if new["correct"] and not old["correct"]:
            out.gained.append((qid, str(new.get("question", ""))))
        elif old["correct"] and not new["correct"]:
            out.lost.append((qid, str(new.get("question", ""))))
    return out


def sign_test(gained: int, lost: int) -> float:
    """Exact two-sided p-value of `gained` against `lost` under a fair coin (McNemar's exact test)."""
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(gained, lost) + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare_folders(before: Path, after: Path, exclude: list[str]) -> list[SetComparison]:
    """One comparison per `*.jsonl` file found in both folders, by name, minus names holding an `exclude`."""
    for folder in (before, after):
        if not folder.is_dir():
            raise FileNotFoundError(f"no such folder: {folder}")
    names = sorted(
        p.name
        for p in before.glob("*.jsonl")
        if (after / p.name).is_file() and not any(word in p.name for word in exclude)
    )
    if not names:
        raise ValueError(f"no results file is in both {before} and {after}")
    return [
        compare_set(name.removesuffix(".jsonl"), read_results(before / name), read_results(after / name))
        for name in names
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("before", type=Path, help="folder of --out files of the first run")
    parser.add_argument("after", type=Path, help="folder of --out files of the second run")
    parser.add_argument("--exclude", nargs="*", default=[], help="leave out the files whose names hold these")
    parser.add_argument("--show", type=int, default=0, help="list this many gained and lost questions")
    args = parser.parse_args(argv)
    try:
        sets = compare_folders(args.before, args.after, args.exclude)
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{'set':40} {'scored':>6} {'before':>7} {'after':>7} {'gained':>7} {'lost':>5}")
    for s in sets:
        print(f"{s.name:40} {s.scored:6} {s.before:7} {s.after:7} {len(s.gained):7} {len(s.lost):5}")
    scored = sum(s.scored for s in sets)
    before, after = sum(s.before for s in sets), sum(s.after for s in sets)
    gained = [g for s in sets for g in s.gained]
    lost = [g for s in sets for g in s.lost]
    print(f"{'all':40} {scored:6} {before:7} {after:7} {len(gained):7} {len(lost):5}")
    print(
        f"before {100 * before / max(scored, 1):.2f}%, after {100 * after / max(scored, 1):.2f}%; "
        f"sign test on {len(gained)} gained and {len(lost)} lost: p = {sign_test(len(gained), len(lost)):.3g}"
    )
    for label, rows in (("GAINED", gained), ("LOST", lost)):
        for qid, question in rows[: args.show]:
            print(f"{label} {qid} {question}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
