"""Build a knowledge base from one config string, so every command names its KB the same way.

`embedded:PATH[,PATH...]` or a bare file path loads RDF files into an in-memory pyoxigraph store
(a directory is opened as an existing on-disk store); `http(s)://...` is a SPARQL endpoint.
Option `allow_hosts` (both kinds): the hosts a query's SERVICE / FROM may name (execution/safety.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.embedded import EmbeddedStore
from nmt_sparql.execution.endpoint import EndpointKB
from nmt_sparql.execution.safety import allowed_hosts

_ENDPOINT_KEYS = {"timeout_s", "retries", "backoff_s", "default_graph", "method", "prefixes", "allow_hosts"}
_EMBEDDED_KEYS = {"timeout_s", "prefixes", "location", "allow_hosts"}


def kb_from_config(cfg: str | Mapping[str, Any]) -> KnowledgeBase:
    """A KnowledgeBase from `"embedded:a.ttl,b.nt"`, `"a.ttl"`, `"http://host/sparql"`, or a mapping
    `{"source": <one of those>, **options}` (timeout_s, prefixes, retries, backoff_s, default_graph, ...)."""
    if isinstance(cfg, str):
        source, options = cfg, {}
    elif isinstance(cfg, Mapping):
        if not isinstance(cfg.get("source"), str):
            raise ValueError("kb config: field 'source' must be a string (embedded:PATH or an endpoint URL)")
        source, options = cfg["source"], {k: v for k, v in cfg.items() if k != "source" and v is not None}
    else:
        raise TypeError(f"kb config must be a string or a mapping, got {type(cfg).__name__}")
    source = source.strip()
    if source.startswith(("http://", "https://")):
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
