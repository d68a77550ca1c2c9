"""Share of NSpM/DBNQA lines that decode to SPARQL 1.1 (rdflib parses the canonical text).

Walks every `*.sparql` file under the given folders, decodes each non-blank line with the NSpM reader's
decoder and checks it as every reader does (`checked_query`), then prints per file and in total the
lines read, the lines that failed and the rate, and the first failures (the issue asks >= 99.5%).

    python scripts/nspm_decode_rate.py ../shared/datasets/nspm [MORE_FOLDERS ...] [--show 5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from nmt_sparql.core.record import RecordError
from nmt_sparql.data.readers.base import checked_query
from nmt_sparql.data.readers.nspm import NspmDecodeError, decode_nspm


def line_failures(path: Path) -> tuple[int, list[tuple[int, str]]]:
    """(non-blank lines, [(line index, why)] of the lines that do not decode to a parsing query)."""
    lines, failures = 0, []
    for i, encoded in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not encoded.strip():
            continue
        lines += 1
        try:
            checked_query(path, i, "sparql", decode_nspm(encoded), "dbpedia", str(i))
        except (NspmDecodeError, RecordError) as err:
            failures.append((i, str(err)))
    return lines, failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--show", type=int, default=5, help="failures to print")
    args = parser.parse_args(argv)
    total = failed = 0
    shown: list[str] = []
    for folder in args.folders:
        for path in sorted(folder.rglob("*.sparql")):
            lines, failures = line_failures(path)
            total, failed = total + lines, failed + len(failures)
            rate = 1 - len(failures) / lines if lines else 1.0
            print(f"{path}: {lines} lines, {len(failures)} failed, {100 * rate:.2f}% decode to SPARQL 1.1")
            shown += [f"  {path}:{i + 1}: {why[:300]}" for i, why in failures]
    if not total:
        print("no .sparql line found", file=sys.stderr)
        return 1
    print(f"total: {total} lines, {failed} failed, {100 * (1 - failed / total):.2f}% decode to SPARQL 1.1")
    print("\n".join(shown[: args.show]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
