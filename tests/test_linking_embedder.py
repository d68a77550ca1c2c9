"""The linker's sentence encoder: the hub model loads from its pip-packaged copy, offline, and ranks a
property that a question describes in other words first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nmt_sparql.annotation.linking.embedder import DEFAULT_MODEL, Embedder, model_path


def test_the_default_encoder_loads_from_its_packaged_copy_and_a_folder_as_it_is(tmp_path: Path) -> None:
    folder = Path(model_path(DEFAULT_MODEL))
    assert folder.is_dir() and (folder / "config.json").is_file()
    assert model_path(str(tmp_path)) == str(tmp_path)
    assert model_path("someone/not-packaged") == "someone/not-packaged"


def test_an_unloadable_encoder_is_an_error_that_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="linked.embedder.*no model in that folder"):
        Embedder(str(tmp_path)).encode(["a question"])


def test_words_that_describe_a_property_are_most_like_its_label() -> None:
    embedder = Embedder()
    labels = ["occupation", "birth place", "alma mater", "band member"]
    living = embedder.similarity("what does do for a living", labels)
    college = embedder.similarity("where did go to college", labels)
    assert int(np.argmax(living)) == 0 and int(np.argmax(college)) == 2
    vectors = embedder.encode(labels)
    assert vectors.shape == (4, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
