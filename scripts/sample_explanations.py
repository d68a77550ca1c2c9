"""Random explanations of dataset queries, for a person to review (BENCHMARKS.md, "Explanations").

Reads LC-QuAD 1.0, the LC-QuAD 2.0 sample, QALD-9 and QALD-10 with the project's readers, draws
`--per-dataset` examples of each with a seeded generator, and writes a markdown list: the question,
the query (canonical form) and its explanation. Wikidata IRIs are named by the LC-QuAD 2.0 sample's
label files; DBpedia IRIs by their readable local names (no DBpedia labels offline).

Usage: python scripts/sample_explanations.py --root ../shared/datasets --seed 0 --per-dataset 5
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

from nmt_sparql.data.readers import read_dataset
from nmt_sparql.inference.explain import ExplainError, TermLabels, explain

DATASETS = (
    ("lcquad1", "dbpedia"),
    ("lcquad2-sample", "wikidata"),
    ("qald9", "dbpedia"),
    ("qald10", "wikidata"),
)


def sample(root: Path, seed: int, per_dataset: int) -> list[str]:
    """Markdown items, `per_dataset` per dataset, in dataset order."""
    rng = random.Random(seed)
    folder = root / "lcquad2-sample"
    wikidata = TermLabels(
        "wikidata", label_files=[folder / "entity_labels.json", folder / "relation_labels.json"]
    )
    items = []
    for name, kb in DATASETS:
        examples = list(read_dataset(name, root, skip_invalid=True))
        labels = wikidata if kb == "wikidata" else TermLabels(kb)
        for example in rng.sample(examples, per_dataset):
            try:
                text = explain(example.query, kb, labels)
            except ExplainError as err:
                text = f"(not explained: {err})"
            query = re.sub(r"^(?:PREFIX\s+[\w\-]*:\s*<[^>]*>\s*)+", "", example.query)
            items.append(f"- **{name} {example.id}**: {example.question}\n  `{query}`\n  → {text}")
    return items


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("../shared/datasets"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-dataset", type=int, default=5)
    args = parser.parse_args()
    print("\n".join(sample(args.root, args.seed, args.per_dataset)))


if __name__ == "__main__":
    main()
