"""Query-level metrics: corpus BLEU over model tokens, normalised exact match, query equivalence,
syntax validity.

All scores are percentages (0-100), like the paper's tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

from pyparsing.exceptions import ParseBaseException
from rdflib.plugins.sparql.parser import parseQuery
from sacrebleu.metrics import BLEU

from nmt_sparql.sparql.prefixes import PrefixMap
from nmt_sparql.sparql.tokens import SparqlSyntaxError, detokenize


def corpus_bleu(references: Sequence[Sequence[str]], hypotheses: Sequence[Sequence[str]]) -> float:
    """sacreBLEU over space-joined model tokens with `tokenize='none'` (the tokens are already the units).

    `effective_order` only matters when the whole corpus has no 4-gram (all queries under 4 tokens):
    identical short corpora then score 100 instead of 0. A literal token with spaces inside
    (`"the x"@en`) counts as several words, on both sides alike.
    """
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references but {len(hypotheses)} hypotheses")
    if not references:
        return 0.0
    bleu = BLEU(tokenize="none", effective_order=True)
    score = bleu.corpus_score([" ".join(h) for h in hypotheses], [[" ".join(r) for r in references]]).score
    return min(100.0, score)


def canonical_variables(tokens: Sequence[str]) -> list[str]:
    """Variables renamed `?v0, ?v1, ...` by order of first appearance: `?uri`/`?x` naming is not an error."""
    names: dict[str, str] = {}
    return [names.setdefault(t, f"?v{len(names)}") if t.startswith("?") else t for t in tokens]


def exact_match(reference: Sequence[str], hypothesis: Sequence[str]) -> bool:
    """Same tokens after canonical variable renaming (inputs are `sparql.tokens.tokenize` outputs)."""
    return canonical_variables(reference) == canonical_variables(hypothesis)


# Tokens after which a group is more than a set of triple patterns: reordering it could change answers.
_NOT_A_TRIPLE_SET = {
    "{",
    "}",
    "[",
    ";",
    ",",
    "filter",
    "optional",
    "union",
    "minus",
    "bind",
    "values",
    "service",
    "graph",
}
MAX_TRIPLES_PERMUTED = 6  # 720 orders; LC-QuAD queries have 1-3 triples


def _split_triples(tokens: Sequence[str]) -> tuple[list[str], list[list[str]], list[str]] | None:
    """(head, triple patterns, tail) of a query whose one group is a plain set of triple patterns, else None."""
    if tokens.count("{") != 1 or tokens.count("}") != 1:
        return None
    open_at, close_at = tokens.index("{"), tokens.index("}")
    body = list(tokens[open_at + 1 : close_at])
    if open_at > close_at or any(t.lower() in _NOT_A_TRIPLE_SET for t in body):
        return None
    triples: list[list[str]] = [[]]
    for token in body:
        if token == ".":
            triples.append([])
        else:
            triples[-1].append(token)
    if triples[-1] == []:
        triples.pop()
    if not triples or any(len(t) != 3 for t in triples):
        return None
    return list(tokens[: open_at + 1]), triples, list(tokens[close_at:])


def equivalent_query(reference: Sequence[str], hypothesis: Sequence[str]) -> bool:
    """Exact match, or the same query with its triple patterns in another order.

    A basic graph pattern is a set: `{ ?x p o . ?x a C }` and `{ ?x a C . ?x p o }` return the same
    answers on every KB, so this is still a lower bound of answer accuracy, tighter than exact match
    when no KB is at hand. Only a single group of plain triple patterns is reordered (no FILTER,
    OPTIONAL, UNION, nested group or `;` lists), with at most MAX_TRIPLES_PERMUTED triples.
    """
    if exact_match(reference, hypothesis):
        return True
    ref, hyp = _split_triples(reference), _split_triples(hypothesis)
    if ref is None or hyp is None or len(hyp[1]) != len(ref[1]) or len(hyp[1]) > MAX_TRIPLES_PERMUTED:
        return False
    if ref[0] != hyp[0] and canonical_variables(ref[0]) != canonical_variables(hyp[0]):
        return False
    target = canonical_variables(reference)
    head, triples, tail = hyp
    for order in permutations(triples):
        body = [token for triple in order for token in (*triple, ".")][:-1]
        if canonical_variables([*head, *body, *tail]) == target:
            return True
    return False


def is_valid_sparql(query: str) -> bool:
    """Whether rdflib's SPARQL 1.1 grammar accepts `query` as a query."""
    try:
        parseQuery(query)
    except (ParseBaseException, ValueError):
        return False
    return True


def tokens_parse(tokens: Sequence[str], kb: str | PrefixMap) -> bool:
    """Whether model tokens detokenize into a parseable query (an unknown prefix makes it invalid)."""
    try:
        text = detokenize(list(tokens), kb)
    except (SparqlSyntaxError, KeyError):
        return False
    return is_valid_sparql(text)
