"""Boolean switches of a command config, read strictly.

`bool("no")` and `bool("maybe")` are True, and so is any non-empty string in an `if`: `copy=no`
on the command line (Hydra reads it as the string "no") would silently train the copy model.
A switch must therefore be a real boolean (YAML's true/false, Hydra's true/false); anything else is
an error naming the key.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from omegaconf import DictConfig, OmegaConf


def config_bool(value: Any, key: str) -> bool:
    """`value` if it is a boolean, else ValueError naming `key`."""
    if isinstance(value, bool):
        return value
    raise ValueError(f"{key}: expected true or false, got {value!r}")


_ABSENT = object()


def check_switches(cfg: DictConfig, keys: Iterable[str]) -> None:
    """ValueError for the first of the dotted `keys` present in `cfg` whose value is not a boolean
    (null included); absent keys are left to their readers' defaults."""
    for key in keys:
        value = OmegaConf.select(cfg, key, default=_ABSENT)
        if value is not _ABSENT:
            config_bool(value, key)
