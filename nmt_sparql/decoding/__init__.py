"""Batched, cached decoding over the model step interface (nmt_sparql.core.interface)."""

from nmt_sparql.decoding.beam import Hypothesis, beam_search
from nmt_sparql.decoding.grammar import QueryGrammar
from nmt_sparql.decoding.greedy import greedy

__all__ = ["Hypothesis", "QueryGrammar", "beam_search", "greedy"]
