"""Lexicon files: JSON or YAML phrasings, and errors that name the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nmt_sparql.data.lexicon import LexiconError, bundled_lexicon, load_lexicon
from nmt_sparql.sparql.prefixes import prefix_map

ONT = "http://nmt-sparql.org/ontology/"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_and_yaml_entries_resolve_prefixed_names(tmp_path: Path) -> None:
    data = {"ont:director": {"active": ["{o} directed {s}"], "noun": "filmmaker"}}
    lexicon = load_lexicon(_write(tmp_path, "lex.json", json.dumps(data)), prefix_map("bundled"))
    assert lexicon.get(ONT + "director", "active") == ("{o} directed {s}",)
    assert lexicon.get(ONT + "director", "noun") == ("filmmaker",)
    yaml_text = "<http://example.org/p>:\n  passive: ['{s} was made by {o}']\n"
    lexicon = load_lexicon(_write(tmp_path, "lex.yaml", yaml_text), prefix_map("generic"))
    assert lexicon.get("http://example.org/p", "passive") == ("{s} was made by {o}",)


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ('{"ont:director": {"verb": ["x"]}}', "ont:director.verb", "unknown kind"),
        ('{"ont:director": {"active": ["{o} directed it"]}}', "ont:director.active", "lacks the slot {s}"),
        ('{"ont:director": {"active": ["{o} directed {x} {s}"]}}', "ont:director.active", "slot other than"),
        ('{"nope:director": {"noun": ["x"]}}', "nope:director", "prefixed name"),
        ('{"ont:director": ["director"]}', "ont:director", "expected an object"),
        ('{"ont:director": {"noun": [""]}}', "ont:director.noun", "non-empty string"),
        ("{not json", "<file>", "not valid"),
    ],
)
def test_bad_entries_name_the_file_and_key(tmp_path: Path, text: str, key: str, problem: str) -> None:
    path = _write(tmp_path, "lex.json", text)
    with pytest.raises(LexiconError) as err:
        load_lexicon(path, prefix_map("bundled"))
    assert str(path) in str(err.value) and f"'{key}'" in str(err.value) and problem in str(err.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="lexicon file not found"):
        load_lexicon(tmp_path / "none.json", prefix_map("bundled"))


def test_bundled_lexicon_loads() -> None:
    assert bundled_lexicon().get(ONT + "birthPlace", "passive")
