"""Screen a draft set of natural questions against every set in benchmarks/ before it joins them.

A new held-out set measures something only if it asks what no earlier set asked. A draft's question
repeats an earlier one when its gold query is the same in any written form (prefixes, variable names,
`;` and `,` abbreviations, triple order, spacing and case, with or without its class triples), and it is
worded too close to one when most of its content words are an earlier question's. The draft must not
sit in benchmarks/ while it is screened (its records would match themselves).

    python scripts/screen_new_questions.py /tmp/draft.jsonl [--sets benchmarks] [--overlap 0.6]

Prints each repeat with the earlier ids it repeats, and the number of repeats; exits 1 when a gold
query repeats an earlier one (a wording overlap is reported, for the writer to judge).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

_PREFIX = re.compile(r"PREFIX\s+\S+\s+<[^>]*>", re.IGNORECASE)
_VARIABLE = re.compile(r"\?\w+")
_TYPE = re.compile(r"\s(?:a|rdf:type|<http://www\.w3\.org/1999/02/22-rdf-syntax-ns#type>)\s")
# Keywords that open a statement of their own in a group graph pattern.
_STARTS = frozenset(["filter", "optional", "values", "bind", "minus", "service", "graph"])
# Words too common to tell two questions apart.
_COMMON = frozenset(
    ["the", "a", "an", "of", "in", "is", "was", "what", "which", "who", "did", "does", "do", "how", "by"]
)


def canonical(query: str, drop_types: bool = False) -> str:
    """The query with prefixes, variable names, spacing, case and the order of its triple patterns
    written away (and its class triples, with `drop_types`): equal for two spellings of one query."""
    spaced = re.sub(r"([(){}])", r" \1 ", _PREFIX.sub(" ", query))
    text = " ".join(spaced.split()).lower()
    names: dict[str, str] = {}
    text = _VARIABLE.sub(lambda m: names.setdefault(m.group(0), f"?v{len(names)}"), text)
    body = re.search(r"\{(.*)\}", text)
    if body is None:
        return text
    parts = _statements(body.group(1).split())
    if drop_types:
        parts = [p for p in parts if not _TYPE.search(f" {p} ")]
    return f"{text[: body.start()]}{{ {' . '.join(sorted(parts))} }}{text[body.end() :]}"


def _statements(tokens: list[str]) -> list[str]:
    """The body's statements, one triple pattern or FILTER/OPTIONAL/... each: "s p o ; q v , w" is
    written out as three triples, so a query spelt with `;` and `,` matches one spelt with `.`; a group
    in braces or parentheses stays whole."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for token in tokens:
        if depth == 0 and token in (".", ";", ","):
            if len(current) >= 3 or token == ".":
                parts.append(" ".join(current))
                current = {".": [], ";": current[:1], ",": current[:2]}[token]
            continue
        if depth == 0 and token in _STARTS and current:
            parts.append(" ".join(current))
            current = []
        current.append(token)
        depth += (token in ("(", "{")) - (token in (")", "}"))
    parts.append(" ".join(current))
    return [p for p in parts if p]


def content_words(question: str) -> set[str]:
    """The words of a question that say what it asks."""
    return set(re.findall(r"[a-z0-9]+", question.lower())) - _COMMON


def read(path: Path) -> list[dict]:
    """The records of a JSONL file, naming the file and line of one that is not a JSON object."""
    records = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                raise SystemExit(f"{path}:{i}: invalid JSON: {err.msg}") from None
            if not isinstance(record, dict) or not isinstance(record.get("query"), str):
                raise SystemExit(f"{path}:{i}: expected a JSON object with a 'query' string")
            records.append(record)
    return records


def screen(draft: list[dict], earlier: list[dict], overlap: float = 0.6) -> list[tuple[str, str, list[str]]]:
    """(draft id, "query" or "words", earlier ids) for each draft record that repeats earlier ones."""
    seen: dict[str, list[str]] = {}
    for record in earlier:
        for drop in (False, True):
            seen.setdefault(canonical(record["query"], drop), []).append(str(record.get("id")))
    found = []
    for i, record in enumerate(draft):
        name = str(record.get("id", i))
        same = {e for drop in (False, True) for e in seen.get(canonical(record["query"], drop), [])}
        if same:
            found.append((name, "query", sorted(same)))
        words = content_words(record.get("question", ""))
        close = [
            str(e.get("id"))
            for e in earlier
            if words
            and (other := content_words(e.get("question", "")))
            and len(words & other) / len(words | other) >= overlap
        ]
        if close:
            found.append((name, "words", close))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("draft", type=Path, help="the draft set, a JSONL of {id, question, query}")
    parser.add_argument("--sets", type=Path, default=Path(__file__).resolve().parents[1] / "benchmarks")
    parser.add_argument("--overlap", type=float, default=0.6, help="share of content words that is too close")
    args = parser.parse_args(argv)
    if args.draft.resolve().parent == args.sets.resolve():
        parser.error(f"{args.draft} sits in {args.sets}: screen it from elsewhere")
    earlier = [r for path in sorted(args.sets.glob("*.jsonl")) for r in read(path)]
    found = screen(read(args.draft), earlier, args.overlap)
    for name, why, ids in found:
        print(f"{name} repeats ({why}): {' '.join(ids[:4])}")
    repeats = sum(why == "query" for _, why, _ in found)
    print(
        f"{repeats} gold queries repeat earlier ones; {len(found) - repeats} questions are worded close to one"
    )
    return 1 if repeats else 0


if __name__ == "__main__":
    sys.exit(main())
