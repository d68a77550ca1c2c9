"""Per-KB prefix maps: how full IRIs are compacted into model tokens and expanded back."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib.resources import files

COMMON = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "foaf": "http://xmlns.com/foaf/0.1/",
    "dct": "http://purl.org/dc/terms/",
    "schema": "http://schema.org/",
    "prov": "http://www.w3.org/ns/prov#",
}

DBPEDIA = {
    "dbr": "http://dbpedia.org/resource/",
    "dbo": "http://dbpedia.org/ontology/",
    "dbp": "http://dbpedia.org/property/",
    "dbc": "http://dbpedia.org/resource/Category:",
    "yago": "http://dbpedia.org/class/yago/",
    "geo": "http://www.w3.org/2003/01/geo/wgs84_pos#",
    "georss": "http://www.georss.org/georss/",
}

WIKIDATA = {
    "wd": "http://www.wikidata.org/entity/",
    "wds": "http://www.wikidata.org/entity/statement/",
    "wdv": "http://www.wikidata.org/value/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "psv": "http://www.wikidata.org/prop/statement/value/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
    "pqv": "http://www.wikidata.org/prop/qualifier/value/",
    "wdno": "http://www.wikidata.org/prop/novalue/",
    "wikibase": "http://wikiba.se/ontology#",
    "bd": "http://www.bigdata.com/rdf#",
}

# Schema IRIs a query template uses by itself: part of the SPARQL vocabulary S, not the KB vocabulary K.
VOCABULARY_IRIS = {
    "rdfs:label",
    "wikibase:label",
    "wikibase:language",
    "bd:serviceParam",
    "schema:description",
}


@dataclass(frozen=True)
class PrefixMap:
    """Prefixes of one knowledge base, longest namespace first so `dbc:` wins over `dbr:`."""

    name: str
    prefixes: dict[str, str]
    vocabulary_iris: frozenset[str] = field(default_factory=lambda: frozenset(VOCABULARY_IRIS))

    def compact(self, iri: str) -> tuple[str, str] | None:
        """(prefix, local) for the longest namespace that `iri` starts with, or None."""
        best: tuple[str, str] | None = None
        for prefix, ns in self.prefixes.items():
            if (
                iri.startswith(ns)
                and len(iri) > len(ns)
                and (best is None or len(ns) > len(self.prefixes[best[0]]))
            ):
                best = (prefix, iri[len(ns) :])
        return best

    def expand(self, prefix: str, local: str) -> str | None:
        ns = self.prefixes.get(prefix)
        return None if ns is None else ns + local


# The KB shipped in the package (nmt_sparql/resources/kb.ttl) and its `res:` / `ont:` namespaces.
BUNDLED = json.loads(
    files("nmt_sparql").joinpath("resources", "kb_prefixes.json").read_text(encoding="utf-8")
)

KB_PREFIXES: dict[str, PrefixMap] = {
    "dbpedia": PrefixMap("dbpedia", {**COMMON, **DBPEDIA}),
    "wikidata": PrefixMap("wikidata", {**COMMON, **WIKIDATA}),
    "generic": PrefixMap("generic", dict(COMMON)),
    "bundled": PrefixMap("bundled", {**COMMON, **BUNDLED}),
}


def prefix_map(kb: str, extra: dict[str, str] | None = None) -> PrefixMap:
    """The prefix map of a KB by name (`dbpedia`, `wikidata`, `generic`, or a bundled KB's own)."""
    if kb not in KB_PREFIXES:
        raise KeyError(f"unknown KB prefix map '{kb}'; known: {', '.join(sorted(KB_PREFIXES))}")
    base = KB_PREFIXES[kb]
    if not extra:
        return base
    return PrefixMap(base.name, {**base.prefixes, **extra}, base.vocabulary_iris)


def register_prefix_map(name: str, prefixes: dict[str, str]) -> PrefixMap:
    """Add a KB's prefix map (a user's own RDF data) so datasets over it can be tokenized."""
    KB_PREFIXES[name] = PrefixMap(name, {**COMMON, **prefixes})
    return KB_PREFIXES[name]
