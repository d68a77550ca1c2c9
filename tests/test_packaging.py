"""Every subpackage ships, and the Hydra configs ship inside the package."""

from importlib import resources
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "nmt_sparql").rglob("__init__.py")
    } | {"nmt_sparql.conf"}
    assert found == listed


def test_configs_are_importable_as_package_data():
    assert (resources.files("nmt_sparql.conf") / "data.yaml").is_file()
