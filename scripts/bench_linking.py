"""Linker recall on a dataset's test split: are the gold KB elements of each question among its candidates?

Per dataset (split as the dataset configs split it, seed 42), an index is built from what is
available offline, the linker runs on each test question as written, and the script reports:
- all: the share of questions whose every gold element (URIs and literals of the query) is a candidate;
- recall@k per element kind (entity, property, class, literal): the share of gold elements of that
  kind found among the question's k best candidates of the kind (by score, then position);
- candidates per question, and linking time per question.

Indexes: bundled = the bundled KB + the train split's lexicon (the question spans tag-within aligns
with each element, and the words that co-occur with properties and classes); lcquad1 = every KB
element of the dataset's queries (local names) + entities.txt + predicates.txt + the train lexicon;
lcquad2-sample = entity_labels.json + relation_labels.json, with Wikidata properties as wdt:, p:, ps:
and pq: elements (+ the train lexicon, a second row). With a train lexicon, the elements at least 20% of the training
queries use are proposed for every question (Linker implicit=, sources.frequent_elements).

    python scripts/bench_linking.py --data-root ../shared/datasets --out benchmarks/linking.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from nmt_sparql.annotation.labels import query_elements
from nmt_sparql.annotation.linking.build import BUNDLED, kb_entries
from nmt_sparql.annotation.linking.index import Entry, KBIndex
from nmt_sparql.annotation.linking.linker import STOPWORDS, Linker
from nmt_sparql.annotation.linking.sources import (
    element_kinds,
    entries_from_cooccurrence,
    entries_from_examples,
    entries_from_label_files,
    frequent_elements,
)
from nmt_sparql.atomic import atomic_write_text
from nmt_sparql.core.record import Example
from nmt_sparql.data.readers import read_dataset
from nmt_sparql.data.splits import random_split
from nmt_sparql.sparql.prefixes import prefix_map

KS = (1, 3, 5, 10)
KINDS = ("entity", "property", "class", "literal")


def gold(example: Example) -> dict[str, str]:
    """token -> kind of every KB element of the example's query."""
    uris = element_kinds(example)
    out = {}
    for element in query_elements(example):
        if element.kind == "literal":
            out[element.token] = "literal"
        elif element.token in uris:
            out[element.token] = uris[element.token]
    return out


def measure(linker: Linker, examples: Sequence[Example], field: str = "question") -> dict:
    """Recall of the linker over `examples` (the question text from `field`)."""
    complete, n_candidates, seconds = 0, [], []
    found_at: dict[str, list[int | None]] = defaultdict(list)
    for example in examples:
        question = getattr(example, field) or example.question
        start = time.perf_counter()
        candidates = linker.link(question)
        seconds.append(time.perf_counter() - start)
        n_candidates.append(len(candidates))
        ranked: dict[str, list[str]] = defaultdict(list)
        for c in sorted(candidates, key=lambda c: (-c.score, c.start, c.token)):
            ranked[c.kind].append(c.token)
        elements = gold(example)
        complete += all(any(token in r for r in ranked.values()) for token in elements)
        for token, kind in elements.items():
            # A literal or element linked under another kind still counts for "all", not for its kind.
            position = ranked[kind].index(token) + 1 if token in ranked[kind] else None
            found_at[kind].append(position)
    recall = {
        kind: {
            "n": len(found_at[kind]),
            **{f"@{k}": _share(found_at[kind], k) for k in KS},
            "any": _share(found_at[kind], None),
        }
        for kind in KINDS
        if found_at[kind]
    }
    return {
        "questions": len(examples),
        "all_gold_found": round(complete / max(1, len(examples)), 4),
        "recall": recall,
        "candidates_per_question": round(statistics.mean(n_candidates), 2) if n_candidates else 0,
        "ms_per_question": round(1000 * statistics.mean(seconds), 2) if seconds else 0,
    }


def train_lexicon(train: Sequence[Example]) -> list[Entry]:
    """The training split's elements with the question spans aligned to them, and co-occurring words."""
    return list(entries_from_examples(train)) + list(entries_from_cooccurrence(train, stopwords=STOPWORDS))


def _share(positions: list[int | None], k: int | None) -> float:
    hits = sum(1 for p in positions if p is not None and (k is None or p <= k))
    return round(hits / max(1, len(positions)), 4)


def _index(entries: list[Entry], folder: Path, name: str) -> tuple[KBIndex, float]:
    start = time.perf_counter()
    index = KBIndex.build(folder / f"{name}.sqlite", entries)
    return index, time.perf_counter() - start


def bench_bundled(folder: Path, options: dict) -> list[dict]:
    examples = list(read_dataset("bundled", Path(".")))
    splits = random_split(examples, ratios=(0.8, 0.1, 0.1), seed=42)
    entries = kb_entries(BUNDLED, prefix_map("bundled")) + train_lexicon(splits["train"])
    index, build_s = _index(entries, folder, "bundled")
    row = {"dataset": "bundled", "index": "bundled KB + train lexicon", "elements": len(index)}
    implicit = frequent_elements(splits["train"])
    row |= {"build_s": round(build_s, 2), "implicit": implicit}
    row |= measure(Linker(index, implicit=implicit, **options), splits["test"])
    return [row]


def bench_lcquad1(root: Path, folder: Path, options: dict) -> list[dict]:
    examples = list(read_dataset("lcquad1", root))
    splits = random_split(examples, sizes=(4000, 500, 500), seed=42)
    pm = prefix_map("dbpedia")
    entries = train_lexicon(splits["train"])
    entries += entries_from_examples(examples, lexicon=False)
    entries += entries_from_label_files(
        [root / "lcquad1" / "entities.txt", root / "lcquad1" / "predicates.txt"], pm
    )
    index, build_s = _index(entries, folder, "lcquad1")
    implicit = frequent_elements(splits["train"])
    linker = Linker(index, implicit=implicit, **options)
    base = {"dataset": "lcquad1", "elements": len(index), "build_s": round(build_s, 2), "implicit": implicit}
    return [
        {**base, "index": "query elements + entities/predicates.txt + train lexicon", "text": "template question",
         **measure(linker, splits["test"])},
        {**base, "index": "query elements + entities/predicates.txt + train lexicon", "text": "corrected_question",
         **measure(linker, splits["test"], "reformulated")},
    ]  # fmt: skip


def bench_lcquad2(root: Path, folder: Path, options: dict) -> list[dict]:
    examples = list(read_dataset("lcquad2-sample", root))
    splits = random_split(examples, ratios=(0.8, 0.1, 0.1), seed=42)
    files = [root / "lcquad2-sample" / "entity_labels.json", root / "lcquad2-sample" / "relation_labels.json"]
    pm = prefix_map("wikidata")
    rows = []
    labels = list(entries_from_label_files(files, pm))
    for prefix in ("p", "ps", "pq"):  # the statement forms of each property, beside wdt:
        labels += entries_from_label_files(files[1:], pm, property_prefix=prefix)
    implicit = frequent_elements(splits["train"])
    for name, entries, always in (
        ("entity_labels + relation_labels", labels, []),
        (
            "entity_labels + relation_labels + train lexicon",
            labels + train_lexicon(splits["train"]),
            implicit,
        ),
    ):
        index, build_s = _index(entries, folder, "lcquad2")
        base = {
            "dataset": "lcquad2-sample",
            "index": name,
            "elements": len(index),
            "build_s": round(build_s, 2),
        }
        rows.append(
            {**base, "implicit": always, **measure(Linker(index, implicit=always, **options), splits["test"])}
        )
        index.close()
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-root", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--datasets", default="bundled,lcquad1,lcquad2-sample")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--embedder", default=None, help="sentence encoder of the linker (default: none)")
    parser.add_argument("--similar", type=int, default=0, help="linked.similar (needs --embedder)")
    args = parser.parse_args(argv)
    options = {"embedder": args.embedder, "similar": args.similar}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in args.datasets.split(","):
            if name == "bundled":
                rows += bench_bundled(folder, options)
            elif name == "lcquad1":
                rows += bench_lcquad1(args.data_root, folder, options)
            elif name == "lcquad2-sample":
                rows += bench_lcquad2(args.data_root, folder, options)
            else:
                raise SystemExit(f"unknown dataset {name!r}")
            print(json.dumps(rows[-1]), file=sys.stderr)
    text = json.dumps(rows, indent=2)
    if args.out:
        atomic_write_text(args.out, text + "\n")
    print(text)


if __name__ == "__main__":
    main()
