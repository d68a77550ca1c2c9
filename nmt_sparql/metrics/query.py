"""Query-level metrics: corpus BLEU over model tokens, normalised exact match, syntax validity.

All scores are percentages (0-100), like the paper's tables.
"""

from __future__ import annotations

from collections.abc import Sequence

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
