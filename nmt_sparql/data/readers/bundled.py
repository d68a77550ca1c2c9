"""The bundled dataset: question/query pairs made from the KB shipped in the package, no download.

Two generators: `synthesis` (query graphs explored in the KB and worded by the question grammar with
the bundled lexicon, `nmt_sparql.data.synthesize`) and `templates` (the 12 fixed templates of
`nmt_sparql.data.generate`, kept to compare with and to reproduce earlier runs).
"""

from __future__ import annotations

from pathlib import Path

from nmt_sparql.data.generate import BUNDLED_KB, TEMPLATE_IDS, bundled_kb_path, generate, load_store
from nmt_sparql.data.lexicon import bundled_lexicon
from nmt_sparql.data.readers.base import ReadResult
from nmt_sparql.data.splits import DEFAULT_SEED
from nmt_sparql.data.synthesize import synthesize

GENERATORS = ("synthesis", "templates")


def read_bundled(
    root: Path | None = None,
    generator: str = "synthesis",
    n: int | None = None,
    n_per_template: int = 300,
    seed: int = DEFAULT_SEED,
    skip_invalid: bool = False,
) -> ReadResult:
    """Examples over the bundled KB; `n` (synthesis) defaults to the templates' size, 12 x n_per_template.

    `skip_invalid` is every reader's option; generated queries were executed, so none is skipped."""
    del root, skip_invalid  # the KB ships with the package
    store = load_store(bundled_kb_path())
    if generator == "templates":
        return ReadResult(generate(store, BUNDLED_KB, n_per_template=n_per_template, seed=seed))
    if generator == "synthesis":
        size = n if n is not None else len(TEMPLATE_IDS) * n_per_template
        return ReadResult(
            synthesize(store, BUNDLED_KB, n=size, seed=seed, lexicon=bundled_lexicon()).examples
        )
    raise ValueError(
        f"dataset bundled: reader_options.generator '{generator}' is not one of {', '.join(GENERATORS)}"
    )
