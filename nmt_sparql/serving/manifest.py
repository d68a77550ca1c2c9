"""An export's manifest.json: the sha256 of every file, so a damaged export is refused by name.

Safetensors checks its header, not its data: a bit flipped in a weight loads and serves silently.
`write_manifest` hashes every file of a finished export (and gives it the user's usual file mode:
Hugging Face's save_pretrained writes 0600); `verify_manifest` recomputes the hashes on load and
names the first file that is missing, changed or not part of the export.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from nmt_sparql.atomic import FILE_MODE, atomic_write_json

MANIFEST = "manifest.json"
ALGORITHM = "sha256"
_CHUNK = 1 << 20


class ManifestError(ValueError):
    """An export whose files do not match its manifest."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _files(folder: Path) -> list[str]:
    """Every file under `folder` but the manifest, as sorted POSIX paths relative to it."""
    return sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if (p.is_file() or p.is_symlink()) and p.relative_to(folder).as_posix() != MANIFEST
    )


def write_manifest(folder: Path) -> None:
    """Hash every file of `folder` into folder/manifest.json (written atomically, last)."""
    files = {}
    for name in _files(folder):
        os.chmod(folder / name, FILE_MODE)
        files[name] = sha256_file(folder / name)
    atomic_write_json(folder / MANIFEST, {"algorithm": ALGORITHM, "files": files})


def verify_manifest(folder: Path) -> None:
    """Raise ManifestError naming the first file that is missing, altered or not listed."""
    path = folder / MANIFEST
    data = read_export_json(
        path,
        ManifestError,
        "missing; export again to add it (`nmt-sparql export checkpoint=RUN_DIR out=...`)",
    )
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or data.get("algorithm") != ALGORITHM:
        raise ManifestError(f"{path}: expected {{'algorithm': '{ALGORITHM}', 'files': {{path: hash}}}}")
    hint = "the export is damaged: export it again (`nmt-sparql export checkpoint=RUN_DIR out=...`)"
    for name, expected in sorted(files.items()):
        file = folder / name
        if not file.resolve().is_relative_to(folder.resolve()):
            raise ManifestError(f"{path}: entry {name!r} points outside {folder}")
        if not file.is_file():
            raise ManifestError(f"{file}: listed in {MANIFEST} but missing; {hint}")
        if sha256_file(file) != expected:
            raise ManifestError(f"{file}: sha256 differs from {MANIFEST} (truncated or corrupt); {hint}")
    unlisted = [str(folder / name) for name in _files(folder) if name not in files]
    if unlisted:
        raise ManifestError(
            f"files not listed in {path}: {unlisted}; an export holds only what `nmt-sparql export` "
            "wrote: remove them"
        )


def read_export_json(path: Path, error: type[ValueError], missing: str) -> Any:
    """One JSON file of an export; `error` names the file when it is absent (with the `missing` hint)
    or unreadable, so a damaged export never surfaces as a bare decoder error."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise error(f"{path}: unreadable ({exc}); export again") from None
