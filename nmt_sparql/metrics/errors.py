"""The paper's error taxonomy (§VI, Tables XIV-XVIII): which token types a model gets wrong, and
what it generates instead.

Only incorrect queries are analysed (not an exact match after canonical variable renaming). The
reference and predicted token sequences (variables renamed, so a consistent renaming is not an
error) are aligned with difflib's SequenceMatcher; inside a `replace` block the two sides are
aligned again on their token *types*, so that a URI replaced by another URI pairs up even when
the block lengths differ; what is still unpaired is matched by position. Every mismatch is one
error with a reference type (row) and a predicted type (column):
- a reference token with no counterpart is predicted as `deleted`;
- a predicted token with no counterpart has reference type `inserted`;
- a predicted URI token absent from the KB (or from a known-URI set) is typed `Fake URIs`.

Table XIV's distribution gives each error one category: its reference type, except that a
reference URI replaced by a fake URI counts as `Fake URIs` (the paper's URIs + FakeUris is the
share of reference URIs in error); an inserted token counts under its predicted type (an
inserted fake URI under `Fake URIs`). `distribution` is the share of error tokens;
`distribution_by_query` weighs every incorrect query equally (each of its errors 1/n).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from nmt_sparql.execution.base import ExistenceCheckError, KnowledgeBase
from nmt_sparql.metrics.query import canonical_variables
from nmt_sparql.sparql.prefixes import PrefixMap
from nmt_sparql.sparql.tokens import TokenType, token_types, tokenize

FAKE = "Fake URIs"
DELETED = "deleted"
INSERTED = "inserted"
CATEGORIES = ("URIs", FAKE, "SVocab", "Lit", "Fct", "Var", "Unk")  # Table XIV column order
ROWS = ("URIs", "SVocab", "Lit", "Fct", "Var", "Unk", INSERTED)
COLUMNS = ("URIs", FAKE, "SVocab", "Lit", "Fct", "Var", "Unk", DELETED)


@dataclass(frozen=True)
class TokenError:
    """One aligned mismatch; `reference`/`predicted` is None for an insertion/deletion."""

    reference: str | None
    predicted: str | None
    reference_type: str
    predicted_type: str

    @property
    def category(self) -> str:
        """The Table XIV column this error is counted in (see module docstring)."""
        if self.predicted_type == FAKE and self.reference_type in ("URIs", INSERTED):
            return FAKE
        return self.predicted_type if self.reference_type == INSERTED else self.reference_type


def _align(
    ref: list[str], pred: list[str], ref_t: list[str], pred_t: list[str]
) -> list[tuple[int | None, int | None]]:
    """Index pairs of mismatched tokens: (i, j), (i, None) deleted, (None, j) inserted."""
    out: list[tuple[int | None, int | None]] = []

    def pair_by_position(i1: int, i2: int, j1: int, j2: int) -> None:
        n = min(i2 - i1, j2 - j1)
        out.extend((i1 + k, j1 + k) for k in range(n))
        out.extend((i, None) for i in range(i1 + n, i2))
        out.extend((None, j) for j in range(j1 + n, j2))

    for tag, i1, i2, j1, j2 in SequenceMatcher(None, ref, pred, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace":
            pair_by_position(i1, i2, j1, j2)
            continue
        inner = SequenceMatcher(None, ref_t[i1:i2], pred_t[j1:j2], autojunk=False)
        for _, a1, a2, b1, b2 in inner.get_opcodes():
            pair_by_position(i1 + a1, i1 + a2, j1 + b1, j1 + b2)
    return out


def classify_errors(
    reference: Sequence[str],
    predicted: Sequence[str],
    kb: str | PrefixMap = "dbpedia",
    is_fake: Callable[[str], bool] | None = None,
) -> list[TokenError]:
    """The typed mismatches between two model-token sequences (empty when they match)."""
    ref, pred = canonical_variables(reference), canonical_variables(predicted)
    ref_t = [t.value for t in token_types(list(reference), kb)]
    pred_t = [t.value for t in token_types(list(predicted), kb)]
    errors = []
    for i, j in _align(ref, pred, ref_t, pred_t):
        p_type = DELETED if j is None else pred_t[j]
        if j is not None and p_type == "URIs" and is_fake is not None and is_fake(predicted[j]):
            p_type = FAKE
        errors.append(
            TokenError(
                reference=None if i is None else reference[i],
                predicted=None if j is None else predicted[j],
                reference_type=INSERTED if i is None else ref_t[i],
                predicted_type=p_type,
            )
        )
    return errors


def dataset_uris(queries: Iterable[str], kb: str | PrefixMap = "dbpedia") -> set[str]:
    """Every URI token of a dataset's queries: the known-URI set for fake-URI detection without a KB."""
    found: set[str] = set()
    for query in queries:
        tokens = tokenize(query, kb)
        found.update(
            t for t, kind in zip(tokens, token_types(tokens, kb), strict=True) if kind == TokenType.URI
        )
    return found


def _percentages(counts: dict[str, float], keys: Sequence[str]) -> dict[str, float]:
    total = sum(counts.get(k, 0.0) for k in keys)
    return {k: (100.0 * counts.get(k, 0.0) / total if total else 0.0) for k in keys}


@dataclass
class ErrorReport:
    """Tables XIV (distribution) and XV-XVIII (confusion, row-normalised %) for one configuration."""

    n_queries: int
    n_incorrect: int
    n_errors: int
    fake_uri_check: str  # "kb", "known-uris" or "off"
    counts: dict[str, int]
    distribution: dict[str, float]
    distribution_by_query: dict[str, float]
    confusion_counts: dict[str, dict[str, int]]
    confusion: dict[str, dict[str, float]] = field(default_factory=dict)
    # Why the KB existence check could not run (endpoint down, failing): the report says so.
    fake_uri_problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_queries": self.n_queries,
            "n_incorrect": self.n_incorrect,
            "n_errors": self.n_errors,
            "fake_uri_check": self.fake_uri_check,
            "fake_uri_problem": self.fake_uri_problem,
            "counts": self.counts,
            "distribution": self.distribution,
            "distribution_by_query": self.distribution_by_query,
            "confusion_counts": self.confusion_counts,
            "confusion": self.confusion,
        }


def analyse_errors(
    pairs: Iterable[tuple[Sequence[str], Sequence[str]]],
    kb: str | PrefixMap = "dbpedia",
    knowledge_base: KnowledgeBase | None = None,
    known_uris: set[str] | None = None,
) -> ErrorReport:
    """Error taxonomy over (reference tokens, predicted tokens) pairs.

    Fake URIs: predicted URI tokens that `knowledge_base.exists` does not find, or, without a KB or
    when its existence check fails (`fake_uri_problem` says why), that are not in `known_uris` (e.g.
    `dataset_uris` of all the dataset's queries); with neither, no URI is called fake and
    `fake_uri_check` is "off".
    """
    pairs = [(list(r), list(p)) for r, p in pairs]
    incorrect = [(r, p) for r, p in pairs if canonical_variables(r) != canonical_variables(p)]
    is_fake: Callable[[str], bool] | None = None
    check, problem = "off", None
    if knowledge_base is not None:
        predicted_uris = {
            t
            for _, p in incorrect
            for t, kind in zip(p, token_types(p, kb), strict=True)
            if kind == TokenType.URI
        }
        try:
            existing = knowledge_base.exists(predicted_uris)
        except ExistenceCheckError as err:
            problem = str(err)
        else:
            is_fake, check = (lambda t: t not in existing), "kb"
    if is_fake is None and known_uris is not None:
        is_fake, check = (lambda t: t not in known_uris), "known-uris"

    counts = dict.fromkeys(CATEGORIES, 0)
    by_query = dict.fromkeys(CATEGORIES, 0.0)
    confusion = {row: dict.fromkeys(COLUMNS, 0) for row in ROWS}
    n_errors = 0
    for reference, predicted in incorrect:
        errors = classify_errors(reference, predicted, kb, is_fake)
        n_errors += len(errors)
        for error in errors:
            counts[error.category] += 1
            by_query[error.category] += 1.0 / len(errors)
            confusion[error.reference_type][error.predicted_type] += 1
    return ErrorReport(
        n_queries=len(pairs),
        n_incorrect=len(incorrect),
        n_errors=n_errors,
        fake_uri_check=check,
        counts=counts,
        distribution=_percentages(dict(counts), CATEGORIES),
        distribution_by_query=_percentages(by_query, CATEGORIES),
        confusion_counts=confusion,
        confusion={row: _percentages(dict(cols), COLUMNS) for row, cols in confusion.items()},
        fake_uri_problem=problem,
    )
