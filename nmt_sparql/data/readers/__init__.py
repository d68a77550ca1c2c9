"""Dataset readers: one module per upstream format, one registry from dataset name to reader.

Every reader takes the dataset root (the folder laid out like `shared/datasets`: `lcquad1/`,
`lcquad2/`, `lcquad2-sample/`, `nspm/`, `qald/`) and returns a `ReadResult`: a list of canonical
`Example`s (query canonicalized, KB elements listed, official split kept) that also lists the
upstream records it skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from nmt_sparql.data.readers.base import ReadResult, SkippedRecord
from nmt_sparql.data.readers.bundled import read_bundled
from nmt_sparql.data.readers.jsonl import read_jsonl_data
from nmt_sparql.data.readers.lcquad1 import read_lcquad1
from nmt_sparql.data.readers.lcquad2 import read_lcquad2, read_lcquad2_sample
from nmt_sparql.data.readers.nspm import read_nspm
from nmt_sparql.data.readers.qald import read_qald

Reader = Callable[..., ReadResult]

# Every reader takes `skip_invalid` (skip and list records whose query does not parse, instead of
# refusing the dataset). QALD always skips and lists its few broken upstream queries, whose gold
# answers come with the file; the bundled generator writes only queries its tests parse.
READERS: dict[str, Reader] = {
    "lcquad1": lambda root, skip_invalid=False: read_lcquad1(root / "lcquad1", skip_invalid),
    "lcquad2": lambda root, skip_invalid=False: read_lcquad2(root / "lcquad2", skip_invalid),
    "lcquad2-sample": lambda root, skip_invalid=False: read_lcquad2_sample(
        root / "lcquad2-sample" / "test_KG_4211.json", skip_invalid
    ),
    "nspm-movies": lambda root, skip_invalid=False: read_nspm(root / "nspm" / "movies_300", skip_invalid),
    "nspm-compositions": lambda root, skip_invalid=False: read_nspm(
        root / "nspm" / "compositions_v2", skip_invalid
    ),
    "qald9": lambda root, skip_invalid=False: read_qald(
        root / "qald" / "qald-9-train-multilingual.json", "dbpedia", "train"
    ),
    "qald10": lambda root, skip_invalid=False: read_qald(root / "qald" / "qald_10.json", "wikidata", "test"),
    # The user's own data (`dataset.path`): the .jsonl file or folder, the NSpM/DBNQA folder, a QALD file.
    "jsonl": read_jsonl_data,
    "nspm": lambda root, skip_invalid=False: read_nspm(root, skip_invalid),
    "qald": lambda root, skip_invalid=False, kb="dbpedia": read_qald(root, kb, None),
    # Generated from the KB shipped in the package: needs no download.
    "bundled": read_bundled,
}


class UnknownDatasetError(KeyError, ValueError):
    """A dataset name no reader reads: a bad setting (ValueError) found by lookup (KeyError)."""


# Readers of a user's own files: they read `dataset.path`, not a folder under `data.root`.
USER_READERS = ("jsonl", "nspm", "qald")


def read_dataset(name: str, root: Path | str, **options: Any) -> ReadResult:
    """Read dataset `name` under `root` (for `jsonl`, `nspm` and `qald`, `root` is the user's file or folder).

    `options` go to readers that take them (`bundled`: generator, n, n_per_template, seed; all: skip_invalid).
    """
    if name not in READERS:
        raise UnknownDatasetError(
            f"unknown dataset '{name}'; known: {', '.join(sorted(READERS))} "
            "(your own data: dataset=jsonl or dataset=nspm with dataset.path=..., dataset.name=NAME)"
        )
    return READERS[name](Path(root), **options)


__all__ = [
    "READERS",
    "USER_READERS",
    "UnknownDatasetError",
    "ReadResult",
    "Reader",
    "SkippedRecord",
    "read_dataset",
]
