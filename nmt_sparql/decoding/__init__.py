"""Batched, cached decoding over the model step interface (nmt_sparql.core.interface)."""

from nmt_sparql.decoding.beam import Hypothesis, beam_search
from nmt_sparql.decoding.greedy import greedy
from nmt_sparql.decoding.reference import TeacherForcedStepper, reference_greedy
from nmt_sparql.decoding.roles import TripleRoles

__all__ = ["Hypothesis", "TeacherForcedStepper", "TripleRoles", "beam_search", "greedy", "reference_greedy"]
