"""The KB index a dataset is linked with: its KB file, its label files and its training split.

Built once per dataset, split and seed, and cached under `<data.dir>/<dataset>/linked/`. Only the
training split feeds the learned lexicon (question spans aligned with each element), so no
validation or test question leaks into what the linker knows. `linked.index` names a prebuilt index
(`nmt-sparql index build`) to use instead, for a KB too large to list here (an endpoint).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import time
from itertools import chain
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from nmt_sparql.annotation.labels import LabelResolver
from nmt_sparql.annotation.linking.build import kb_entries, kb_facts
from nmt_sparql.annotation.linking.index import FORMAT_VERSION, KBIndex
from nmt_sparql.annotation.linking.sources import (
    answer_slots,
    entries_from_examples,
    entries_from_label_files,
    frequent_elements,
)
from nmt_sparql.core.record import Example
from nmt_sparql.sparql.prefixes import prefix_map

log = logging.getLogger(__name__)
INDEX_FILE = "kb_index.sqlite"


def _label_files(cfg: DictConfig) -> list[Path]:
    return [Path(p) for p in (cfg.dataset.get("label_files") or {}).values() if p and Path(p).is_file()]


def index_path(cfg: DictConfig, train: list[Example]) -> Path:
    """Where the dataset's index is cached: one file per dataset config, seed and training split."""
    key = json.dumps(
        {
            "dataset": OmegaConf.to_container(cfg.dataset, resolve=True),
            "seed": int(cfg.seed),
            "train": sorted(ex.id for ex in train),
            "format": FORMAT_VERSION,  # a new index format builds a new file, never reads an old one
        },
        sort_keys=True,
    )
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]
    return Path(cfg.data.dir) / cfg.dataset.name / "linked" / f"index-{digest}.sqlite"


def dataset_index(cfg: DictConfig, train: list[Example], resolver: LabelResolver | None = None) -> Path:
    """The index file the dataset's questions are linked with: `linked.index`, or the cached build
    (`resolver`: the dataset's labels, for the training split's elements and aligned spans)."""
    given = (cfg.get("linked") or {}).get("index")
    if given:
        if not Path(given).is_file():
            raise FileNotFoundError(f"linked.index: {given} not found")
        return Path(given)
    path = index_path(cfg, train)
    if path.is_file():
        return path
    started = time.perf_counter()
    prefixes = prefix_map(cfg.dataset.kb)
    endpoint = str(cfg.dataset.get("endpoint") or "")
    entries = chain(
        kb_entries(endpoint, prefixes) if endpoint.startswith("embedded:") else [],
        entries_from_label_files(_label_files(cfg), prefixes),
        entries_from_examples(train, resolver),
    )
    facts = kb_facts(endpoint, prefixes) if endpoint.startswith("embedded:") else []
    index = KBIndex.build(
        path, entries, facts=facts, slots=answer_slots(train), implicit=frequent_elements(train)
    )
    log.info("KB index of %d elements built in %.1f s: %s", len(index), time.perf_counter() - started, path)
    index.close()
    return path


def copy_index(source: Path, folder: Path) -> Path:
    """`source` as `folder/kb_index.sqlite` (a hard link when possible: the cache file is only ever
    replaced, never rewritten in place), so a run or an export carries the index it was made with."""
    target = folder / INDEX_FILE
    tmp = folder / f".{INDEX_FILE}.tmp"
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)
    return target
