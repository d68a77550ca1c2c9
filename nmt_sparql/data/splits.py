"""Train/validation/test splits: seeded random, official, unseen templates, unseen KB elements.

Every function returns `{"train": [...], "validation": [...], "test": [...]}` whose examples are
copies of the inputs with `Example.split` set (the inputs are left untouched), and is
deterministic given its seed: the same examples in the same order and the same seed always give
the same split. The paper's LC-QuAD 1.0 split is `random_split(all_5000, sizes=(4000, 500, 500))`.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from nmt_sparql.core.record import SPLITS, Example

DEFAULT_SEED = 42
Split = dict[str, list[Example]]


def _sizes(n: int, sizes: tuple[int, int, int] | None, ratios: Sequence[float]) -> tuple[int, int, int]:
    """(train, validation, test) counts from explicit sizes or from ratios of `n`."""
    if sizes is not None:
        if len(sizes) != 3 or any(s < 0 for s in sizes):
            raise ValueError(
                f"sizes must be three non-negative counts (train, validation, test), got {sizes}"
            )
        if sum(sizes) != n:
            raise ValueError(f"sizes {tuple(sizes)} add up to {sum(sizes)}, but there are {n} examples")
        return sizes[0], sizes[1], sizes[2]
    if len(ratios) != 3 or any(r < 0 for r in ratios) or abs(sum(ratios) - 1.0) > 1e-6:
        raise ValueError(f"ratios must be three non-negative numbers adding up to 1, got {tuple(ratios)}")
    n_val, n_test = round(ratios[1] * n), round(ratios[2] * n)
    return n - n_val - n_test, n_val, n_test


def _labelled(parts: dict[str, Iterable[Example]]) -> Split:
    return {name: [replace(e, split=name) for e in parts.get(name, ())] for name in SPLITS}


def _shuffled(items: Sequence, seed: int) -> list:
    order = list(items)
    random.Random(seed).shuffle(order)
    return order


def _check_ids(examples: Sequence[Example]) -> None:
    repeated = [i for i, c in Counter(e.id for e in examples).items() if c > 1]
    if repeated:
        raise ValueError(
            f"{len(repeated)} example id(s) occur more than once (e.g. '{repeated[0]}'): ids must be unique"
        )


def random_split(
    examples: Sequence[Example],
    sizes: tuple[int, int, int] | None = None,
    ratios: Sequence[float] = (0.8, 0.1, 0.1),
    seed: int = DEFAULT_SEED,
) -> Split:
    """Shuffle with `seed`, then cut into train/validation/test by `sizes` (exact) or `ratios`."""
    _check_ids(examples)
    n_train, n_val, _ = _sizes(len(examples), sizes, ratios)
    order = _shuffled(examples, seed)
    return _labelled(
        {
            "train": order[:n_train],
            "validation": order[n_train : n_train + n_val],
            "test": order[n_train + n_val :],
        }
    )


def official_split(
    examples: Sequence[Example], validation_fraction: float = 0.1, seed: int = DEFAULT_SEED
) -> Split:
    """The dataset's own split (`Example.split`). When it has no validation set, a seeded
    `validation_fraction` share of train becomes one (train keeps its original order otherwise)."""
    _check_ids(examples)
    parts: dict[str, list[Example]] = {name: [] for name in SPLITS}
    for e in examples:
        if e.split not in parts:
            raise ValueError(
                f"example '{e.id}' has split {e.split!r}: the official split needs every example in one of "
                f"{', '.join(SPLITS)} (this dataset has no official split: set dataset.split.kind=random)"
            )
        parts[e.split].append(e)
    if not parts["validation"] and parts["train"]:
        if not 0 < validation_fraction < 1:
            raise ValueError(f"validation_fraction must be in (0, 1), got {validation_fraction}")
        n_val = max(1, round(validation_fraction * len(parts["train"])))
        chosen = {e.id for e in _shuffled(parts["train"], seed)[:n_val]}
        parts["validation"] = [e for e in parts["train"] if e.id in chosen]
        parts["train"] = [e for e in parts["train"] if e.id not in chosen]
    return _labelled(parts)


def auto_split(
    examples: Sequence[Example],
    ratios: Sequence[float] = (0.8, 0.1, 0.1),
    seed: int = DEFAULT_SEED,
    validation_fraction: float = 0.1,
) -> Split:
    """The official split when every example has one, a seeded random one (`ratios`) when none has.

    A user's file either ships its split or not; one that labels only some records is ambiguous, so it
    is refused with the two settings that resolve it.
    """
    labelled = [e for e in examples if e.split is not None]
    if not labelled:
        return random_split(examples, ratios=ratios, seed=seed)
    if len(labelled) == len(examples):
        return official_split(examples, validation_fraction=validation_fraction, seed=seed)
    missing = next(e for e in examples if e.split is None)
    raise ValueError(
        f"{len(examples) - len(labelled)} of {len(examples)} examples have no split (e.g. '{missing.id}'): "
        "give every record a split, or set dataset.split.kind=random to ignore the given ones"
    )


def unseen_templates_split(
    examples: Sequence[Example], ratios: Sequence[float] = (0.8, 0.1, 0.1), seed: int = DEFAULT_SEED
) -> Split:
    """Templates are partitioned over the splits: no template id of validation or test occurs in train
    (nor in the other held-out split).

    Template ids are visited in a seeded order; each goes, whole, to test if it fits under test's
    target size (`ratios` of the examples), else to validation if it fits there, else to train. The
    held-out sets are therefore at most their target size.
    """
    _check_ids(examples)
    missing = [e.id for e in examples if e.template_id is None]
    if missing:
        raise ValueError(
            f"{len(missing)} example(s) have no template id (e.g. '{missing[0]}'): the unseen-template split "
            "needs one per example (LC-QuAD 1.0 and 2.0 have them; NSpM and QALD do not)"
        )
    groups: dict[str, list[Example]] = {}
    for e in examples:
        groups.setdefault(str(e.template_id), []).append(e)
    if len(groups) < 2:
        raise ValueError(
            f"the unseen-template split needs at least 2 distinct templates, found {len(groups)}"
        )
    _, n_val, n_test = _sizes(len(examples), None, ratios)
    target = {"test": n_test, "validation": n_val}
    filled = {"test": 0, "validation": 0}
    assigned: dict[str, str] = {}
    for tid in _shuffled(sorted(groups), seed):
        size = len(groups[tid])
        name = next((s for s in ("test", "validation") if filled[s] + size <= target[s]), "train")
        if name != "train":
            filled[name] += size
        assigned[tid] = name
    for name in ("test", "validation"):
        if target[name] and not filled[name]:
            raise ValueError(
                f"no template is small enough for a {name} set of at most {target[name]} examples; "
                "raise its ratio or use more data"
            )
    if not any(name == "train" for name in assigned.values()):
        raise ValueError("every template went to validation/test: lower their ratios")
    return _labelled({name: [e for e in examples if assigned[str(e.template_id)] == name] for name in SPLITS})


def uris(example: Example) -> set[str]:
    """The URIs of an example for the unseen-KB split: its KB elements of kind "uri" (entities,
    properties, classes; schema IRIs such as rdfs:label are SPARQL vocabulary, not KB elements)."""
    return {k.token for k in example.kb_elements if k.kind == "uri"}


def unseen_kb_split(
    examples: Sequence[Example], ratios: Sequence[float] = (0.8, 0.1, 0.1), seed: int = DEFAULT_SEED
) -> Split:
    """A split where every validation and test example has at least one URI (`uris`) that occurs in
    no training example.

    URIs are visited in a seeded order and "held out" when all the not-yet-held-out examples that
    use them fit in what remains of the validation+test target (`ratios`); every example that uses a
    held-out URI leaves train. Those examples are then shuffled and cut into test (its target size,
    or less) and validation. Examples without URIs always stay in train.
    """
    _check_ids(examples)
    _, n_val, n_test = _sizes(len(examples), None, ratios)
    need = n_val + n_test
    by_uri: dict[str, list[int]] = {}
    for i, e in enumerate(examples):
        for u in uris(e):
            by_uri.setdefault(u, []).append(i)
    held: set[int] = set()
    for uri in _shuffled(sorted(by_uri), seed):
        new = [i for i in by_uri[uri] if i not in held]
        if new and len(held) + len(new) <= need:
            held.update(new)
        if len(held) == need:
            break
    if need and not held:
        raise ValueError(f"no URI is rare enough to hold out {need} examples: raise the held-out ratios")
    pool = _shuffled(sorted(held), seed + 1)
    test_ids = set(pool[: min(n_test, len(pool))])
    parts: dict[str, list[Example]] = {name: [] for name in SPLITS}
    for i, e in enumerate(examples):
        parts["train" if i not in held else "test" if i in test_ids else "validation"].append(e)
    if not parts["train"]:
        raise ValueError("every example went to validation/test: lower their ratios")
    return _labelled(parts)
