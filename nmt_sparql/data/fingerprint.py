"""What prepared data was made from: a content hash of the dataset's source files, and one of the code.

Prepared splits are reused only while their manifest matches the config *and* this hash, so a dataset
file edited in place (or a label file, or the KB that `data.augment` synthesizes from) is prepared
again instead of silently training on the old splits. The hash covers the bytes of every source file
and their names relative to where they were found, not times or absolute paths, so a copied or
re-downloaded dataset with the same content keeps its prepared data.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from omegaconf import DictConfig

from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.data.generate import bundled_kb_path

# Where each built-in reader's files are, under the dataset root (`data.root` or `<data.dir>/raw`).
BUILT_IN_SOURCES = {
    "lcquad1": "lcquad1",
    "lcquad2": "lcquad2",
    "lcquad2-sample": "lcquad2-sample/test_KG_4211.json",
    "nspm-movies": "nspm/movies_300",
    "nspm-compositions": "nspm/compositions_v2",
    "qald9": "qald/qald-9-train-multilingual.json",
    "qald10": "qald/qald_10.json",
}
_CHUNK = 1 << 20
# The package's code that turns source files into prepared splits: readers, synthesis and wording,
# annotation and linking, canonical SPARQL.
_PREPARING_CODE = ("annotation", "data", "preparation", "sparql")


def _files(path: Path) -> list[tuple[str, Path]]:
    """(name to hash under, file) of a file, or of every file under a folder, in a fixed order."""
    if path.is_file():
        return [(path.name, path)]
    if path.is_dir():
        return [(str(f.relative_to(path)), f) for f in sorted(path.rglob("*")) if f.is_file()]
    return []


def content_hash(paths: Iterable[Path]) -> str:
    """sha256 over the names and bytes of every file in `paths` (files, or folders walked in order)."""
    digest = hashlib.sha256()
    for path in paths:
        for name, file in _files(Path(path)):
            digest.update(f"{name}\0".encode())
            with file.open("rb") as fh:
                while chunk := fh.read(_CHUNK):
                    digest.update(chunk)
            digest.update(b"\0")
    return digest.hexdigest()


def source_paths(cfg: DictConfig, reader: str, root: Path) -> list[Path]:
    """The files a prepared dataset depends on: the reader's input (`root` for a user's file or folder),
    the dataset's label files, and the KB files of `data.augment`."""
    if reader in BUILT_IN_SOURCES:
        paths = [root / BUILT_IN_SOURCES[reader]]
    elif reader == "bundled":
        paths = [bundled_kb_path()]
    else:
        paths = [root]
    paths += [Path(p) for p in (cfg.dataset.get("label_files") or {}).values() if p]
    augment = str(cfg.data.get("augment") or "")
    paths += [Path(p) for p in augment.removeprefix("embedded:").split(",") if p and Path(p).is_file()]
    return paths


# The file in a run folder that records `code_hash` of the code that prepared the run's data.
CODE_FILE = "prepared_code.json"


def record_code(run: Path) -> None:
    """Write `code_hash` into the run folder: its model reads questions as this code links them."""
    atomic_write_json(run / CODE_FILE, {"code": code_hash()})


def recorded_code(run: Path) -> str | None:
    """The `code_hash` a run recorded (None: a run from before it was recorded)."""
    path = run / CODE_FILE
    if not path.is_file():
        return None
    try:
        code = json.loads(path.read_text(encoding="utf-8"))["code"]
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a record of the code that prepared the run's data ({err!r})") from err
    if not isinstance(code, str):
        raise ValueError(f"{path}: field 'code' must be a string, got {code!r}")
    return code


@functools.cache
def code_hash() -> str:
    """sha256 over the Python sources of the modules that prepare data, so splits prepared by other
    code (an upgraded linker, a new question grammar) are prepared again: training reads questions
    linked as this version's `translate` links them."""
    package = Path(__file__).resolve().parent.parent
    return content_hash(sorted(f for part in _PREPARING_CODE for f in (package / part).rglob("*.py")))
