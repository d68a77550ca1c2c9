"""KBIndex at scale: build time, file size and lookup latency over synthetic labels (seeded).

Labels are 1 to 4 words drawn (Zipf-like) from a vocabulary of pronounceable pseudo-words, so common
words are common as in real labels; popularity is Zipf-distributed. 1% of the elements are
properties and classes. Lookups are timed per kind of match: an exact label, some of a label's words
(keywords), a label with its last word cut short (prefix), a label with one typo (fuzzy), and a
property lookup (kinds filter).

    python scripts/bench_index.py --labels 1000000 --out benchmarks/index.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from nmt_sparql.annotation.linking.index import Entry, KBIndex
from nmt_sparql.atomic import atomic_write_text

SYLLABLES = [c + v for c in "bdfghklmnprstvz" for v in ("a", "e", "i", "o", "u", "ar", "en", "is", "on")]


def vocabulary(n: int, rng: random.Random) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < n:
        words["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    return list(words)


def synthetic(n_labels: int, seed: int) -> tuple[list[Entry], list[str]]:
    rng = random.Random(seed)
    words = vocabulary(max(1000, n_labels // 10), rng)
    cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(words))))
    entries, seen = [], set()
    n_schema = n_labels // 100
    for i in range(n_labels):
        label = " ".join(rng.choices(words, cum_weights=cumulative, k=rng.choice((1, 2, 2, 3, 3, 4)))).title()
        kind = "entity" if i >= n_schema else ("property" if i % 2 else "class")
        if kind != "entity":
            label = label.lower()
        if label in seen:
            label = f"{label} {i}"
        seen.add(label)
        entries.append(Entry(f"ex:e{i}", kind, (label,), float(int(1e6 / (1 + rng.paretovariate(1.2))))))
    return entries, words


def typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(1, len(word))
    return word[:i] + word[i + 1 :] if rng.random() < 0.5 else word[:i] + rng.choice("aeiou") + word[i:]


def queries(entries: list[Entry], n: int, seed: int) -> Iterator[tuple[str, str, list[str] | None]]:
    rng = random.Random(seed + 1)
    sample = rng.sample(entries, n)
    for entry in sample:
        label = entry.labels[0]
        words = label.split()
        yield "exact", label, None
        yield "keywords", " ".join(rng.sample(words, max(1, len(words) - 1))), None
        if len(words[-1]) > 4:
            yield "prefix", " ".join([*words[:-1], words[-1][: len(words[-1]) - 2]]), None
        longest = max(range(len(words)), key=lambda k: len(words[k]))
        yield "fuzzy", " ".join(typo(w, rng) if k == longest else w for k, w in enumerate(words)), None
    for entry in [e for e in entries if e.kind == "property"][:n]:
        yield "property (kinds filter)", entry.labels[0].split()[0], ["property"]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--labels", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    entries, _ = synthetic(args.labels, args.seed)
    generate_s = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.sqlite"
        start = time.perf_counter()
        index = KBIndex.build(path, entries)
        build_s = time.perf_counter() - start
        size = path.stat().st_size
        start = time.perf_counter()
        index.close()
        index = KBIndex.open(path)
        open_s = time.perf_counter() - start
        timings: dict[str, list[float]] = {}
        found: dict[str, int] = {}
        for kind, phrase, kinds in queries(entries, args.queries, args.seed):
            t0 = time.perf_counter()
            hits = index.lookup(phrase, kinds, k=10)
            timings.setdefault(kind, []).append(time.perf_counter() - t0)
            found[kind] = found.get(kind, 0) + bool(hits)
        index.close()
    result = {
        "labels": args.labels,
        "elements": len(entries),
        "generate_s": round(generate_s, 1),
        "build_s": round(build_s, 1),
        "index_mb": round(size / 1e6, 1),
        "open_s": round(open_s, 3),
        "lookup_ms": {
            kind: {
                "n": len(ts),
                "p50": round(1000 * statistics.median(ts), 2),
                "p95": round(1000 * sorted(ts)[int(0.95 * (len(ts) - 1))], 2),
                "mean": round(1000 * statistics.mean(ts), 2),
                "with_hits": round(found[kind] / len(ts), 3),
            }
            for kind, ts in timings.items()
        },
    }
    text = json.dumps(result, indent=2)
    if args.out:
        atomic_write_text(args.out, text + "\n")
    print(text)


if __name__ == "__main__":
    main()
