"""The package's layers follow the pipeline: no module imports from a layer above its own.

A lower layer that reached up (tokenization importing models, data importing annotation) is how the
same idea ends up in two places; this test keeps the folder tree an honest picture of the pipeline.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "nmt_sparql"

# Bottom to top. Within one layer, modules may import each other.
LAYERS = (
    "atomic", "config_values", "core", "sparql", "execution", "data", "annotation", "preparation",
    "tokenization", "models", "training", "decoding", "metrics", "reports", "inference", "serving",
    "commands", "cli",
)  # fmt: skip


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "nmt_sparql" and len(parts) > 1 else None


def upward_imports() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        own = layer_of(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        if own not in LAYERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                target = layer_of(node.module)
                if target in LAYERS and LAYERS.index(target) > LAYERS.index(own):
                    found.append(f"{path.relative_to(PACKAGE.parent)}: {own} imports {node.module}")
    return found


def test_every_top_level_module_has_a_layer() -> None:
    names = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if not p.name.startswith("_")}
    names -= {"resources", "conf"}
    assert sorted(n for n in names if n not in LAYERS and not n.endswith(".egg-info")) == []


def test_no_module_imports_from_a_higher_layer() -> None:
    assert upward_imports() == []
