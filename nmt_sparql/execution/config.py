"""Build a knowledge base from one config string, so every command names its KB the same way.

`embedded:PATH[,PATH...]` or a bare file path loads RDF files into an in-memory pyoxigraph store
(a directory is opened as an existing on-disk store); `http(s)://...` is a SPARQL endpoint.
Option `allow_hosts` (both kinds): the hosts a query's SERVICE / FROM may name (execution/safety.py).
`KBSettings` carries the command-line knobs every command shares (`kb_timeout_s`, `kb_retries`,
`kb_workers`, `kb_allow_hosts`), so a slow or dead endpoint can be bounded without editing code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.embedded import EmbeddedStore
from nmt_sparql.execution.endpoint import EndpointKB
from nmt_sparql.execution.safety import allowed_hosts

_ENDPOINT_KEYS = {
    "timeout_s", "retries", "backoff_s", "default_graph", "method", "prefixes", "breaker_after", "breaker_reset_s",
    "allow_hosts",
}  # fmt: skip
_EMBEDDED_KEYS = {"timeout_s", "prefixes", "location", "allow_hosts"}


@dataclass(frozen=True)
class KBSettings:
    """How queries reach a KB: a per-query time limit, retries of transient endpoint failures
    (embedded stores have none), and how many queries run at once."""

    timeout_s: float = 30.0
    retries: int = 3
    workers: int = 1
    allow_hosts: frozenset[str] = frozenset()

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> KBSettings:
        """From a command config's `kb_timeout_s`, `kb_retries`, `kb_workers` (absent: the defaults);
        a bad value is a ValueError naming its key."""
        timeout = cfg.get("kb_timeout_s", cls.timeout_s)
        retries = cfg.get("kb_retries", cls.retries)
        workers = cfg.get("kb_workers", cls.workers)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"kb_timeout_s: expected a number of seconds > 0, got {timeout!r}")
        if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
            raise ValueError(f"kb_retries: expected an integer >= 0, got {retries!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"kb_workers: expected an integer >= 1, got {workers!r}")
        return cls(float(timeout), retries, workers, allowed_hosts(cfg.get("kb_allow_hosts")))


def is_endpoint(source: str) -> bool:
    return source.strip().startswith(("http://", "https://"))


def kb_from_config(cfg: str | Mapping[str, Any], settings: KBSettings | None = None) -> KnowledgeBase:
    """A KnowledgeBase from `"embedded:a.ttl,b.nt"`, `"a.ttl"`, `"http://host/sparql"`, or a mapping
    `{"source": <one of those>, **options}` (timeout_s, prefixes, retries, backoff_s, default_graph, ...).

    `settings` give timeout_s, allow_hosts (and retries, for an endpoint) where the options do not."""
    if isinstance(cfg, str):
        source, options = cfg, {}
    elif isinstance(cfg, Mapping):
        if not isinstance(cfg.get("source"), str):
            raise ValueError("kb config: field 'source' must be a string (embedded:PATH or an endpoint URL)")
        source, options = cfg["source"], {k: v for k, v in cfg.items() if k != "source" and v is not None}
    else:
        raise TypeError(f"kb config must be a string or a mapping, got {type(cfg).__name__}")
    source = source.strip()
    if settings is not None:
        options.setdefault("timeout_s", settings.timeout_s)
        options.setdefault("allow_hosts", settings.allow_hosts)
        if is_endpoint(source):
            options.setdefault("retries", settings.retries)
    if is_endpoint(source):
        unknown = set(options) - _ENDPOINT_KEYS
        if unknown:
            raise ValueError(f"kb config: unknown option(s) for an endpoint: {', '.join(sorted(unknown))}")
        hosts = allowed_hosts(options.pop("allow_hosts", None))
        endpoint = EndpointKB(source, **options)
        endpoint.allow_hosts = hosts
        return endpoint
    unknown = set(options) - _EMBEDDED_KEYS
    if unknown:
        raise ValueError(f"kb config: unknown option(s) for an embedded store: {', '.join(sorted(unknown))}")
    paths = [Path(p.strip()) for p in source.removeprefix("embedded:").split(",") if p.strip()]
    if not paths:
        raise ValueError(f"kb config {source!r}: no RDF file or store directory given")
    if len(paths) == 1 and paths[0].is_dir():
        return EmbeddedStore(location=paths[0], **options)
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"kb config {source!r}: not found: {', '.join(missing)}")
    return EmbeddedStore(files=paths, **options)
