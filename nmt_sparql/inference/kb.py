"""The KB a query runs on, from the one spec string every command takes (`kb=...`)."""

from __future__ import annotations

from nmt_sparql.data.generate import bundled_kb_path
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.config import KBSettings, kb_from_config
from nmt_sparql.execution.embedded import EmbeddedStore


def open_kb(spec: str | None, kb: str, settings: KBSettings | None = None) -> KnowledgeBase | None:
    """The KB to execute queries on: `embedded:bundled`, `embedded:FILES`, a file, or an endpoint URL,
    with the command's `kb_timeout_s` / `kb_retries` / `kb_allow_hosts` (`KBSettings`)."""
    if not spec:
        return None
    settings = settings or KBSettings()
    if spec == "embedded:bundled":
        return EmbeddedStore(
            [bundled_kb_path()], prefixes=kb, timeout_s=settings.timeout_s, allow_hosts=settings.allow_hosts
        )
    return kb_from_config({"source": spec, "prefixes": kb}, settings)
