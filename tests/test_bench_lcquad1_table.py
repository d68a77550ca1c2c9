"""scripts/bench_lcquad1.py: an annotation the paper has no figures for (linked) runs and reads "–" there."""

from __future__ import annotations

from types import ModuleType

import pytest
from script_loader import load_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script("bench_lcquad1")


def test_linked_runs_with_and_without_copy_and_its_paper_columns_read_a_dash(bench: ModuleType) -> None:
    keys = bench.grid(["convs2s"], ["linked", "tag_end"])
    assert keys[:2] == [("convs2s", "linked", False), ("convs2s", "linked", True)]
    run = {
        "seed": 42,
        "metrics": {"bleu": 80.0, "exact_match": 60.0},
        "seconds": 60,
        "epochs": 3,
        "decode": None,
    }
    rows = [line.split(" | ") for line in bench.table([[run]] * len(keys), keys).splitlines()[2:]]
    paper = {(row[1], row[2]): (row[8], row[9]) for row in rows}
    assert paper[("linked", "no")] == paper[("linked", "yes")] == ("–", "–")
    assert paper[("tag_end", "yes")] == ("90", "77")


def test_runs_of_several_seeds_read_as_mean_and_standard_deviation(bench: ModuleType) -> None:
    runs = [
        {"seed": seed, "metrics": {"exact_match": em}, "seconds": 60, "epochs": 30, "decode": "decode.beam=1"}
        for seed, em in ((1, 60.0), (2, 70.0))
    ]
    (row,) = bench.table([runs], [("convs2s", "tag_end", True)]).splitlines()[2:]
    cells = row.split(" | ")
    assert cells[3] == "1, 2" and cells[5] == "65.0 ± 7.1" and cells[4] == "–"
