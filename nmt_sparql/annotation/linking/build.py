"""One index from every source a user names: a KB (RDF files, the bundled KB, an endpoint URL), label
files, a user lexicon and a training set. `nmt-sparql index build` and the benchmarks call this."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from nmt_sparql.annotation.linking.index import Entry, Fact, KBIndex
from nmt_sparql.annotation.linking.linker import STOPWORDS
from nmt_sparql.annotation.linking.sources import (
    answer_slots,
    entries_from_cooccurrence,
    entries_from_endpoint,
    entries_from_examples,
    entries_from_label_files,
    entries_from_lexicon,
    entries_from_store,
    facts_from_store,
    frequent_elements,
)
from nmt_sparql.core.record import Example
from nmt_sparql.data.generate import bundled_kb_path, load_store
from nmt_sparql.execution.endpoint import EndpointKB
from nmt_sparql.sparql.prefixes import PrefixMap

log = logging.getLogger(__name__)
BUNDLED = "embedded:bundled"


def kb_entries(kb: str, prefixes: PrefixMap, page: int = 10000) -> list[Entry]:
    """Entries of `kb`: `embedded:bundled`, `[embedded:]FILE[,FILE]` (RDF files), or an endpoint URL."""
    kb = kb.strip()
    if kb.startswith(("http://", "https://")):
        return list(entries_from_endpoint(EndpointKB(kb, prefixes=prefixes), prefixes, page))
    if kb == BUNDLED:
        paths = [bundled_kb_path()]
    else:
        paths = [Path(p.strip()) for p in kb.removeprefix("embedded:").split(",") if p.strip()]
    if not paths:
        raise ValueError(f"kb={kb!r}: no RDF file given")
    return list(entries_from_store(load_store(paths), prefixes))


def kb_facts(kb: str, prefixes: PrefixMap) -> list[Fact]:
    """The facts of an embedded `kb` (`embedded:bundled`, RDF files) for `KBIndex.relations`; none for an
    endpoint (a whole public KB's triples are not copied into the index)."""
    kb = kb.strip()
    if kb.startswith(("http://", "https://")):
        return []
    if kb == BUNDLED:
        paths = [bundled_kb_path()]
    else:
        paths = [Path(p.strip()) for p in kb.removeprefix("embedded:").split(",") if p.strip()]
    return list(facts_from_store(load_store(paths), prefixes)) if paths else []


def build_index(
    out: str | Path,
    prefixes: PrefixMap,
    kb: str | None = None,
    labels: Sequence[str | Path] = (),
    lexicon: str | Path | None = None,
    examples: Iterable[Example] = (),
    word_forms: bool = True,
    elements: Iterable[Example] = (),
) -> KBIndex:
    """Index the elements of `kb`, of the label files, and of the training `examples` (with the question
    spans they align with each element, and the words that co-occur with properties and classes), then
    the user `lexicon`'s phrases; written atomically to `out`. The properties and classes most training
    queries use (`frequent_elements`: Wikidata's `wdt:P31`) are stored for the linker to propose for
    every question. `elements`: examples whose queries' KB
    elements are indexed by their own labels only, none of their question words (a dataset's every
    split: the elements a KB holds, for a KB that is not at hand)."""
    entries: list[Entry] = []
    if kb:
        entries += kb_entries(kb, prefixes)
    if labels:
        entries += entries_from_label_files(labels, prefixes)
    examples = list(examples)
    entries += entries_from_examples(examples)
    entries += entries_from_cooccurrence(examples, stopwords=STOPWORDS)
    entries += entries_from_examples(elements, lexicon=False)
    if lexicon:
        kinds = {}
        for entry in entries:
            kinds.setdefault(entry.token, entry.kind)
        entries += entries_from_lexicon(lexicon, kinds)
    if not entries:
        raise ValueError("nothing to index: give a kb, label files or training examples")
    facts = kb_facts(kb, prefixes) if kb else []
    log.info("indexing %d entries and %d facts into %s", len(entries), len(facts), out)
    return KBIndex.build(
        out,
        entries,
        word_forms=word_forms,
        facts=facts,
        slots=answer_slots(examples),
        implicit=frequent_elements(examples),
    )
