"""From a dataset name and a config to annotated train/validation/test splits on disk.

`data prepare` writes `<data.dir>/<dataset>/<annotation>/{train,validation,test}.jsonl` plus a
manifest; training and evaluation read those files back with `load_splits`, preparing them
first when they are missing or were prepared with other settings.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.labels import LabelResolver
from nmt_sparql.annotation.linking.index import FORMAT_VERSION
from nmt_sparql.atomic import atomic_write_json
from nmt_sparql.config_values import config_bool
from nmt_sparql.core.record import SPLITS, Example, read_jsonl, write_jsonl
from nmt_sparql.data.fingerprint import code_hash, content_hash, source_paths
from nmt_sparql.data.lexicon import bundled_lexicon
from nmt_sparql.data.readers import USER_READERS, ReadResult, read_dataset
from nmt_sparql.data.readers.base import skipped_summary
from nmt_sparql.data.splits import (
    auto_split,
    official_split,
    random_split,
    unseen_kb_split,
    unseen_templates_split,
)
from nmt_sparql.data.synthesize import open_kb_source, synthesize
from nmt_sparql.preparation.linking_index import dataset_index

log = logging.getLogger(__name__)


def dataset_reader(cfg: DictConfig) -> str:
    """The reader of this dataset: `dataset.reader`, or the dataset's name for the built-in ones.

    A user's dataset keeps its reader (`jsonl`, `nspm`) whatever `dataset.name` it is given, so that two
    datasets of one format get their own prepared data and checkpoints.
    """
    return str(cfg.dataset.get("reader") or cfg.dataset.name)


def dataset_root(cfg: DictConfig) -> Path:
    """Where the raw dataset files are: the user's `dataset.path`, `data.root` (a local copy of the
    public datasets) or `<data.dir>/raw` (downloaded)."""
    if dataset_reader(cfg) in USER_READERS:
        if OmegaConf.is_missing(cfg.dataset, "path") or not cfg.dataset.get("path"):
            raise ValueError(
                f"dataset={dataset_reader(cfg)} reads your own files: set dataset.path=FILE_OR_FOLDER"
            )
        return Path(cfg.dataset.path)
    return Path(cfg.data.root) if cfg.data.get("root") else Path(cfg.data.dir) / "raw"


def read_examples(cfg: DictConfig) -> ReadResult:
    """The dataset's canonical examples, from the reader registry (or the bundled generator).

    `data.skip_invalid`: records whose query does not parse are skipped and listed, not refused.
    A dataset with no example left is an error naming where it was read.
    """
    given = cfg.dataset.get("reader_options")
    options = OmegaConf.to_container(given, resolve=True) if given else {}
    skip_invalid = config_bool(cfg.data.get("skip_invalid", False), "data.skip_invalid")
    root = dataset_root(cfg)
    examples = read_dataset(dataset_reader(cfg), root, skip_invalid=skip_invalid, **options)
    if not examples:
        skipped = f" ({len(examples.skipped)} record(s) skipped)" if examples.skipped else ""
        raise ValueError(f"{root}: dataset '{cfg.dataset.name}' has no examples{skipped}")
    return examples


def make_splits(examples: list[Example], cfg: DictConfig) -> dict[str, list[Example]]:
    """Split as the dataset config says: random (seeded sizes or ratios), official, or a generalization split."""
    split = cfg.dataset.split
    kind, seed = split.kind, int(cfg.seed)
    ratios = tuple(split.ratios) if split.get("ratios") else (0.8, 0.1, 0.1)
    if kind == "random":
        sizes = tuple(split.sizes) if split.get("sizes") else None
        return random_split(examples, sizes=sizes, ratios=ratios, seed=seed)
    if kind == "auto":
        return auto_split(
            examples, ratios=ratios, seed=seed, validation_fraction=ratios[1] / (ratios[0] + ratios[1])
        )
    if kind == "official":
        return official_split(examples, validation_fraction=ratios[1] / (ratios[0] + ratios[1]), seed=seed)
    if kind == "unseen_templates":
        return unseen_templates_split(examples, ratios=ratios, seed=seed)
    if kind == "unseen_kb":
        return unseen_kb_split(examples, ratios=ratios, seed=seed)
    raise ValueError(
        f"dataset.split.kind: unknown split '{kind}'; use auto, random, official, unseen_templates or unseen_kb"
    )


def label_resolver(cfg: DictConfig) -> LabelResolver:
    """Labels from the dataset's label files that exist (a missing optional file is only logged)."""
    files = []
    for name, path in (cfg.dataset.get("label_files") or {}).items():
        if path and Path(path).is_file():
            files.append(path)
        else:
            log.info(
                "label file dataset.label_files.%s not found at %s; using other label sources", name, path
            )
    return LabelResolver(files)


def annotator(cfg: DictConfig, splits: dict[str, list[Example]]) -> Annotator:
    """The annotator of this config (`linked`: with the dataset's KB index, built from its train split)."""
    resolver = label_resolver(cfg)
    if cfg.annotation != "linked":
        return Annotator(cfg.annotation, None, int(cfg.seed), resolver)
    index = dataset_index(cfg, splits.get("train", []), resolver)
    return Annotator.open("linked", index, cfg.get("linked"), int(cfg.seed), resolver)


def annotate_splits(splits: dict[str, list[Example]], annotator: Annotator) -> dict[str, float]:
    """Fill each example's labelled KB elements and annotated question, in place; per split, the share
    of examples whose every KB element is in the input (`linked`: the linker's recall)."""
    coverage = {}
    for name, examples in splits.items():
        for ex in examples:
            ex.kb_elements = annotator.resolver.resolve(ex)
        annotated = annotator.examples(
            examples, train=name == "train", gold=[ex.kb_elements for ex in examples]
        )
        for ex, annotation in zip(examples, annotated):
            ex.annotated = annotation.text
        coverage[name] = sum(a.fully_tagged for a in annotated) / len(examples) if examples else 0.0
    return coverage


def prepared_dir(cfg: DictConfig) -> Path:
    return Path(cfg.data.dir) / cfg.dataset.name / cfg.annotation


def sources_hash(cfg: DictConfig) -> str:
    """The content hash of the files this config's prepared data is made from (data/fingerprint.py)."""
    return content_hash(source_paths(cfg, dataset_reader(cfg), dataset_root(cfg)))


def _manifest(
    cfg: DictConfig, splits: dict[str, list[Example]], skipped: int = 0, sources: str | None = None
) -> dict[str, Any]:
    linked = cfg.get("linked") if cfg.annotation == "linked" else None
    return {
        "dataset": OmegaConf.to_container(cfg.dataset, resolve=True),
        "annotation": cfg.annotation,
        "seed": int(cfg.seed),
        "skip_invalid": config_bool(cfg.data.get("skip_invalid", False), "data.skip_invalid"),
        "linked": (
            {**OmegaConf.to_container(linked, resolve=True), "index_format": FORMAT_VERSION}
            if linked is not None
            else None
        ),
        "augment": [cfg.data.get("augment"), cfg.data.get("augment_n")],
        "sizes": {name: len(examples) for name, examples in splits.items()},
        "skipped": skipped,
        "sources": sources,
        "code": code_hash(),
    }


def augment_training_split(splits: dict[str, list[Example]], cfg: DictConfig) -> None:
    """`data.augment=KB`: add `data.augment_n` pairs synthesized from KB to the training split, queries
    written with the dataset's prefix map; validation and test stay the dataset's own."""
    spec = cfg.data.get("augment")
    if not spec:
        return
    source = open_kb_source(str(spec))
    lexicon = bundled_lexicon() if source.kb_name == "bundled" else None
    n = int(cfg.data.get("augment_n") or 3000)
    synthetic = synthesize(source.store, cfg.dataset.kb, n=n, seed=int(cfg.seed), lexicon=lexicon).examples
    for example in synthetic:
        example.id, example.split = f"augment-{example.id}", "train"
    splits["train"] = list(splits.get("train", [])) + synthetic
    log.info("data.augment: %d synthesized training pairs from %s", len(synthetic), spec)


def prepare(cfg: DictConfig) -> dict[str, list[Example]]:
    """Read, split, label and annotate a dataset, and write the splits and their manifest."""
    sources = sources_hash(cfg)
    examples = read_examples(cfg)
    splits = make_splits(list(examples), cfg)
    augment_training_split(splits, cfg)
    annotation = annotator(cfg, splits)
    try:
        coverage = annotate_splits(splits, annotation)
    finally:
        annotation.close()
    log.info(
        "questions whose every KB element is in their input: %s",
        {k: round(v, 4) for k, v in coverage.items()},
    )
    out = prepared_dir(cfg)
    for name in SPLITS:
        write_jsonl(out / f"{name}.jsonl", splits.get(name, []))
    atomic_write_json(out / "manifest.json", _manifest(cfg, splits, len(examples.skipped), sources))
    log.info("prepared %s under %s", {k: len(v) for k, v in splits.items()}, out)
    if examples.skipped:
        log.warning("%s", skipped_summary(examples.skipped))
    return splits


def load_splits(cfg: DictConfig) -> dict[str, list[Example]]:
    """The prepared splits for this config, preparing them when missing, prepared with other settings,
    or made from source files whose content has changed since."""
    out = prepared_dir(cfg)
    manifest = out / "manifest.json"
    if manifest.is_file():
        saved = json.loads(manifest.read_text(encoding="utf-8"))
        wanted = _manifest(cfg, {}, sources=sources_hash(cfg))
        if (
            all(saved.get(k, False) == wanted[k] for k in ("dataset", "annotation", "seed", "skip_invalid"))
            and saved.get("linked") == wanted["linked"]
            and saved.get("augment") == wanted["augment"]
        ):
            if saved.get("sources") != wanted["sources"]:
                log.info("the source files of %s changed since they were prepared: preparing again", out)
            elif saved.get("code") != wanted["code"]:
                log.info("%s was prepared by another version of nmt-sparql's code: preparing again", out)
            else:
                return {name: list(read_jsonl(out / f"{name}.jsonl")) for name in SPLITS}
    return prepare(cfg)
