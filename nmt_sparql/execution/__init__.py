"""Knowledge-base backends: query execution with update refusal, normalised answers, gold-answer cache."""

from nmt_sparql.execution.answer import Answer, answer_from_sparql_json
from nmt_sparql.execution.base import KnowledgeBase, execute_many
from nmt_sparql.execution.config import kb_from_config
from nmt_sparql.execution.embedded import EmbeddedStore
from nmt_sparql.execution.endpoint import EndpointKB
from nmt_sparql.execution.gold import gold_answers, gold_cache_path
from nmt_sparql.execution.safety import UnsafeQueryError, query_form

__all__ = [
    "Answer",
    "EmbeddedStore",
    "EndpointKB",
    "KnowledgeBase",
    "UnsafeQueryError",
    "answer_from_sparql_json",
    "execute_many",
    "gold_answers",
    "gold_cache_path",
    "kb_from_config",
    "query_form",
]
