"""`data stats`: the paper's Table II for a dataset, plus the checks the foundation promises.

Vocabularies (§III.C.1): W = question tokens (KB units excluded), S = SPARQL vocabulary,
K = KB elements (URIs and literals). OOV = test tokens never seen in train. The round-trip rate
is the share of upstream queries that tokenize, detokenize, parse and are algebra-equivalent to
the original; the tagging coverage is the share of examples whose every KB element is tagged
inside the question (tag-within).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nmt_sparql.annotation.annotate import annotate, split_question
from nmt_sparql.annotation.labels import LabelResolver
from nmt_sparql.core.record import Example
from nmt_sparql.data.readers import ReadResult
from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map
from nmt_sparql.sparql.tokens import TokenType, detokenize, token_types, tokenize
from nmt_sparql.sparql.validate import equivalent, round_trip

VOCABS = ("W", "S", "K")


def example_vocab(ex: Example) -> dict[str, set[str]]:
    """The W, S and K tokens of one example (W from its annotated question, or the raw one)."""
    words = {t.lower() for t in split_question(ex.annotated or ex.question) if not t.startswith("«")}
    tokens = tokenize(ex.query, ex.kb)
    s, k = set(), set()
    for tok, kind in zip(tokens, token_types(tokens, ex.kb)):
        (k if kind in (TokenType.URI, TokenType.LITERAL) else s).add(tok)
    return {"W": words, "S": s, "K": k}


def vocab_table(splits: dict[str, list[Example]]) -> dict[str, dict[str, int]]:
    """Table II: per vocabulary, sizes per split and in total, and test tokens unseen in train (`oov`);
    `table["oov"]` repeats the OOV counts of W, S and K side by side."""
    per_split: dict[str, dict[str, set[str]]] = {}
    for name, examples in splits.items():
        acc: dict[str, set[str]] = {v: set() for v in VOCABS}
        for ex in examples:
            for v, toks in example_vocab(ex).items():
                acc[v] |= toks
        per_split[name] = acc
    table: dict[str, dict[str, int]] = {}
    for v in VOCABS:
        row = {"total": len(set().union(*(acc[v] for acc in per_split.values())))}
        row.update({name: len(acc[v]) for name, acc in per_split.items()})
        train, test = per_split.get("train", {}).get(v, set()), per_split.get("test", {}).get(v, set())
        row["oov"] = len(test - train)
        table[v] = row
    table["oov"] = {v: table[v]["oov"] for v in VOCABS}
    return table


_IRIREF = re.compile(r"<([^<>\"{}|^`\\\x00-\x20]*)>")
_PLACEHOLDER = "urn:nmt-sparql:kb:{}"


def _skeletons(query: str, pm: PrefixMap) -> tuple[str, str] | None:
    """(original, detokenized) with every KB IRI as a numbered placeholder, or None when a KB token's
    IRI is not written in full in the original (a prefixed name: no skeleton, the full check runs).

    Dataset queries share a few templates, so their skeletons repeat and rdflib, which is most of the
    round trip's time, parses each skeleton once. A KB IRI is replaced only where the original writes
    exactly the IRI the tokenizer read, so a mangled IRI finds no placeholder and fails the check."""
    try:
        tokens = tokenize(query, pm)
    except ValueError:
        return None
    written = set(_IRIREF.findall(query))
    numbers: dict[str, int] = {}
    skeleton_tokens = []
    for token, kind in zip(tokens, token_types(tokens, pm)):
        if kind is TokenType.URI:
            if token.startswith("<"):
                iri = token[1:-1]
            else:
                prefix, _, local = token.partition(":")
                iri = pm.expand(prefix, local) or ""
            if iri not in written:
                return None
            token = "<" + _PLACEHOLDER.format(numbers.setdefault(iri, len(numbers))) + ">"
        skeleton_tokens.append(token)
    original = _IRIREF.sub(
        lambda m: (
            "<" + _PLACEHOLDER.format(numbers[m.group(1)]) + ">" if m.group(1) in numbers else m.group(0)
        ),
        query,
    )
    return original, detokenize(skeleton_tokens, pm)


def round_trip_ok(query: str, kb: str, cache: dict[tuple[str, str, str], bool]) -> bool:
    """Whether `round_trip(query, kb)` passes, decided once per query skeleton (`_skeletons`); a skeleton
    that does not pass (or a query without one) is checked in full."""
    skeletons = _skeletons(query, prefix_map(kb))
    if skeletons is not None:
        key = (*skeletons, kb)
        if key not in cache:
            cache[key] = equivalent(skeletons[0], skeletons[1], kb)
        if cache[key]:
            return True
    return round_trip(query, kb).ok


def round_trip_report(examples: Iterable[Example]) -> tuple[float, list[dict[str, str]]]:
    """(rate, failures) of the upstream queries' round trip through the tokenizer (`round_trip_ok`; a
    failing query is checked again for the reason)."""
    failures, total = [], 0
    cache: dict[tuple[str, str, str], bool] = {}
    for ex in examples:
        total += 1
        if round_trip_ok(ex.source_query or ex.query, ex.kb, cache):
            continue
        result = round_trip(ex.source_query or ex.query, ex.kb)
        if not result.ok:
            failures.append(
                {"id": ex.id, "problem": result.problem or "", "query": ex.source_query or ex.query}
            )
    return (1 - len(failures) / total if total else 0.0), failures


def dataset_stats(
    read: ReadResult,
    splits: dict[str, list[Example]],
    annotation: str,
    seed: int,
    resolver: LabelResolver,
    coverage: dict[str, float] | None = None,
) -> dict:
    """Everything `stats.json` holds; `splits` must already be annotated with `annotation`, and
    `coverage` (`annotate_splits`'s, per split) spares annotating again when that was tag_within."""
    examples = [ex for part in splits.values() for ex in part]
    rate, failures = round_trip_report(examples)
    if annotation == "tag_within" and coverage is not None:
        tagged = round(sum(coverage.get(name, 0.0) * len(part) for name, part in splits.items()))
    else:
        tagged = sum(annotate(ex, "tag_within", seed, resolver).fully_tagged for ex in examples)
    return {
        "splits": {name: len(part) for name, part in splits.items()},
        "annotation": annotation,
        "vocab": vocab_table(splits),
        "roundtrip_rate": rate,
        "roundtrip_failures": failures,
        "tagging_coverage": tagged / len(examples) if examples else 0.0,
        "label_sources": dict(resolver.stats),
        "skipped_upstream": [vars(s) for s in read.skipped],
    }


def format_stats(name: str, stats: dict) -> str:
    """Table II as text, then the checks."""
    columns = ["total", *stats["splits"], "oov"]
    lines = [
        f"{name}: {stats['splits']} (annotation: {stats['annotation']})",
        "",
        f"{'vocab':<6}" + "".join(f"{c:>12}" for c in columns),
    ]
    for v in VOCABS:
        lines.append(f"{v:<6}" + "".join(f"{stats['vocab'][v].get(c, 0):>12}" for c in columns))
    lines += [
        "",
        f"SPARQL round trip: {100 * stats['roundtrip_rate']:.2f}% ({len(stats['roundtrip_failures'])} failing)",
        f"tag-within coverage: {100 * stats['tagging_coverage']:.2f}%",
        "every KB element in the input (linked: linker recall): "
        + ", ".join(f"{k} {100 * v:.2f}%" for k, v in stats.get("input_coverage", {}).items()),
        f"label sources: {stats['label_sources']}",
        f"upstream records skipped: {len(stats['skipped_upstream'])}",
    ]
    for failure in stats["roundtrip_failures"][:10]:
        lines.append(f"  round trip failed: {failure['id']}: {failure['problem'][:160]}")
    for skipped in stats["skipped_upstream"][:10]:
        lines.append(f"  skipped: {skipped['id']}: {skipped['error'][:160]}")
    return "\n".join(lines)
