"""scripts/compare_results.py: two runs compared question for question, gains and losses apart, with the
exact sign test; questions with no gold answer, sets in one folder only and excluded sets are left out."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from script_loader import load_script


@pytest.fixture(scope="module")
def compare() -> ModuleType:
    return load_script("compare_results")


def _write(folder: Path, name: str, correct: dict[str, bool | None]) -> None:
    folder.mkdir(exist_ok=True)
    rows = [{"id": qid, "question": f"question {qid}", "correct": c} for qid, c in correct.items()]
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_gains_and_losses_are_counted_apart_and_tested(
    compare: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before, after = tmp_path / "a", tmp_path / "b"
    _write(before, "set1.jsonl", {"q1": True, "q2": False, "q3": True, "q4": None})
    _write(after, "set1.jsonl", {"q1": False, "q2": True, "q3": True, "q4": True})
    _write(before, "blind.jsonl", {"b1": False})
    _write(after, "blind.jsonl", {"b1": True})
    _write(before, "only_before.jsonl", {"o1": True})
    (one,) = compare.compare_folders(before, after, exclude=["blind"])
    assert (one.name, one.scored, one.before, one.after) == ("set1", 3, 2, 2)  # q4: no gold answer
    assert one.gained == [("q2", "question q2")] and one.lost == [("q1", "question q1")]
    assert compare.main([str(before), str(after), "--exclude", "blind", "--show", "5"]) == 0
    printed = capsys.readouterr().out
    assert "sign test on 1 gained and 1 lost: p = 1" in printed and "LOST q1 question q1" in printed


def test_the_sign_test_is_exact_and_two_sided(compare: ModuleType) -> None:
    assert compare.sign_test(0, 0) == 1.0
    assert compare.sign_test(4, 0) == pytest.approx(0.125)  # 2 * (1/2)^4
    assert compare.sign_test(0, 4) == compare.sign_test(4, 0)
    assert compare.sign_test(35, 66) < 0.01


def test_a_bad_line_names_its_file_and_line(compare: ModuleType, tmp_path: Path) -> None:
    before, after = tmp_path / "a", tmp_path / "b"
    _write(before, "set1.jsonl", {"q1": True})
    _write(after, "set1.jsonl", {"q1": True})
    (after / "set1.jsonl").write_text('{"id": "q1", "correct": true}\nnot json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"set1.jsonl:2: not JSON"):
        compare.compare_folders(before, after, exclude=[])
    assert compare.main([str(before), str(tmp_path / "missing")]) == 2
