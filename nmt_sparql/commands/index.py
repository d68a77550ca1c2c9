"""`nmt-sparql index build kb=... out=DIR`: the KB index the linker looks question words up in."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from nmt_sparql.annotation.linking.build import BUNDLED, build_index
from nmt_sparql.core.record import read_jsonl
from nmt_sparql.sparql.prefixes import prefix_map

INDEX_FILE = "index.sqlite"


def _paths(value: object) -> list[str]:
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]  # type: ignore[attr-defined]
    return [item.strip() for item in items if item.strip()]


def run(cfg: DictConfig) -> None:
    if cfg.action != "build":
        raise SystemExit(f"nmt-sparql index: unknown action '{cfg.action}'; expected build")
    kb = ",".join(_paths(cfg.kb)) or None  # kb=[a.ttl,b.nt]: Hydra reads a bare comma as a sweep
    prefixes = prefix_map(cfg.prefixes or ("bundled" if kb == BUNDLED else "generic"))
    examples, elements = [], []
    for key, found in (("examples", examples), ("elements", elements)):
        for path in _paths(cfg.get(key)):
            if not Path(path).is_file():
                raise FileNotFoundError(f"{key}={path}: no such file")
            found += read_jsonl(path)
    out = Path(cfg.out) / INDEX_FILE
    index = build_index(
        out,
        prefixes,
        kb=kb,
        labels=_paths(cfg.labels),
        lexicon=cfg.lexicon or None,
        examples=examples,
        word_forms=bool(cfg.word_forms),
        elements=elements,
    )
    size = out.stat().st_size
    print(f"{out}: {len(index)} elements, {size / 1e6:.1f} MB")
    index.close()
