"""`data download NAME`: fetch a dataset's upstream files into the dataset root, or copy them from a
local folder laid out the same way (a machine without network, a mirror, CI).

Each registry entry is (upstream URL, path under the dataset root, zip members). A zip source
(NSpM ships its splits zipped) is unpacked: the listed members, found by file name wherever the
archive nests them, are written into the folder `path`. With a local `root` the unpacked files are
copied from `root/path/member`. Every file is written atomically, so an interrupted download never
leaves a truncated file that a later read would trust.

Not fetched: the `lcquad2-sample` label files (`entity_labels.json`, `relation_labels.json`) are a
JSON conversion of upstream `lcq2_labels.pickle`; unpickling downloaded data would run arbitrary code,
so they are only copied from a local root when present there.
"""

from __future__ import annotations

import io
import shutil
import urllib.error
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from nmt_sparql.atomic import atomic_write

TIMEOUT_S = 60.0
_NSPM_SPLITS = tuple(f"{stem}.{ext}" for stem in ("train", "dev", "test") for ext in ("en", "sparql"))


class Source(NamedTuple):
    url: str
    path: str
    members: tuple[str, ...] = ()
    optional: bool = False


class DownloadError(RuntimeError):
    """A source that could not be fetched or unpacked; the message names the URL."""


_LCQUAD1 = "https://raw.githubusercontent.com/AskNowQA/LC-QuAD/data"
_NSPM = "https://raw.githubusercontent.com/LiberAI/NSpM/v1/data"
_SAMPLE = "https://raw.githubusercontent.com/debayan/sigir2022-sparqlbaselines/main/ptlm/lcquad2"

DATASETS: dict[str, list[Source]] = {
    "lcquad1": [
        Source(f"{_LCQUAD1}/train-data.json", "lcquad1/train-data.json"),
        Source(f"{_LCQUAD1}/test-data.json", "lcquad1/test-data.json"),
        Source(f"{_LCQUAD1}/resources/templates.json", "lcquad1/templates.json"),
        Source(f"{_LCQUAD1}/resources/entities.txt", "lcquad1/entities.txt"),
        Source(f"{_LCQUAD1}/resources/predicates.txt", "lcquad1/predicates.txt"),
    ],
    "lcquad2": [
        Source(
            "https://raw.githubusercontent.com/AskNowQA/LC-QuAD2.0/master/dataset/train.json",
            "lcquad2/train.json",
        ),
        Source(
            "https://raw.githubusercontent.com/AskNowQA/LC-QuAD2.0/master/dataset/test.json",
            "lcquad2/test.json",
        ),
    ],
    "lcquad2-sample": [
        Source(f"{_SAMPLE}/test_KG_4211.json", "lcquad2-sample/test_KG_4211.json"),
        Source("", "lcquad2-sample/entity_labels.json", optional=True),
        Source("", "lcquad2-sample/relation_labels.json", optional=True),
    ],
    "nspm": [
        Source(f"{_NSPM}/movies_300.zip", "nspm/movies_300", _NSPM_SPLITS),
        Source(f"{_NSPM}/Compositions_v2.zip", "nspm/compositions_v2", _NSPM_SPLITS),
    ],
    "qald": [
        Source(
            "https://raw.githubusercontent.com/ag-sc/QALD/master/9/data/qald-9-train-multilingual.json",
            "qald/qald-9-train-multilingual.json",
        ),
        Source(
            "https://raw.githubusercontent.com/KGQA/QALD-10/main/data/qald_10/qald_10.json",
            "qald/qald_10.json",
        ),
        Source("https://raw.githubusercontent.com/KGQA/QALD-10/main/LICENSE", "qald/LICENSE-qald10"),
    ],
}


def fetch(url: str, timeout: float = TIMEOUT_S) -> bytes:
    """The body of `url` (tests replace this function; nothing else touches the network)."""
    request = urllib.request.Request(url, headers={"User-Agent": "nmt-sparql"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()
    except (urllib.error.URLError, TimeoutError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise DownloadError(f"cannot download {url}: {reason}") from err


def _write(path: Path, data: bytes) -> Path:
    atomic_write(path, lambda tmp: tmp.write_bytes(data))
    return path


def _copy(src: Path, path: Path) -> Path:
    atomic_write(path, lambda tmp: shutil.copyfile(src, tmp))
    return path


def _unzip(source: Source, data: bytes, dest: Path) -> list[Path]:
    """Write the source's members, found by file name in the archive, into `dest/source.path`."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as err:
        raise DownloadError(f"{source.url} is not a zip archive: {err}") from err
    by_name: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        parts = PurePosixPath(info.filename).parts
        if info.is_dir() or "__MACOSX" in parts or parts[-1].startswith("._"):
            continue
        by_name.setdefault(parts[-1], info)
    missing = [m for m in source.members if m not in by_name]
    if missing:
        raise DownloadError(
            f"{source.url} lacks {', '.join(missing)} (archive has: {', '.join(sorted(by_name))})"
        )
    return [_write(dest / source.path / m, archive.read(by_name[m])) for m in source.members]


def download(name: str, dest: Path, root: Path | None = None) -> list[Path]:
    """Put dataset `name`'s files under `dest` (the dataset root); returns the paths written.

    With `root`, the files are copied from that folder (same layout as `dest`); otherwise they are
    fetched from upstream.
    """
    if name not in DATASETS:
        raise KeyError(f"unknown dataset '{name}'; downloadable: {', '.join(sorted(DATASETS))}")
    dest = Path(dest)
    written: list[Path] = []
    for source in DATASETS[name]:
        targets = [f"{source.path}/{m}" for m in source.members] or [source.path]
        if root is not None:
            for rel in targets:
                src = Path(root) / rel
                if src.is_file():
                    written.append(_copy(src, dest / rel))
                elif not source.optional:
                    raise FileNotFoundError(f"{name}: {src} is missing from the local root {root}")
        elif source.url:
            data = fetch(source.url)
            written.extend(
                _unzip(source, data, dest) if source.members else [_write(dest / source.path, data)]
            )
    return written
