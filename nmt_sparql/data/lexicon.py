"""A user's phrasings for a KB's properties and classes, read from a JSON or YAML file.

The question grammar (`nmt_sparql.data.wording`) words any KB from its labels alone; a lexicon adds
the phrasings labels cannot give ("{s} was born in {o}" for a `birthPlace` labelled "birth place").
One entry per property or class, keyed by its prefixed name (resolved with the KB's prefix map) or
its full IRI, each kind a list of phrasings:

    {"ont:director": {"active": ["{o} directed {s}"], "passive": ["{s} was directed by {o}"],
                      "noun": ["director", "filmmaker"]},
     "ont:elevation": {"noun": ["elevation", "height"], "measure": ["high", "tall"]},
     "ont:population": {"question": ["How many people live in {s}?"]},
     "ont:City": {"noun": ["city", "town"]}}

Kinds: `noun` (a noun for the property or class), `plural` (its plural, when not regular),
`active` / `passive` (a clause with both slots: `{s}` the triple's subject, `{o}` its object; the
clause starts with one slot, e.g. "{o} directed {s}", "{s} was born in {o}"), `question` (a whole
question about `{s}`'s value, e.g. "How many people live in {s}?"), `measure` (the adjective of a
numeric property: "how high", "the highest") and `unit` (what its numbers count: "more than 1000
inhabitants", "higher than 8000 metres").
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import yaml

from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map

KINDS = ("noun", "plural", "active", "passive", "question", "measure", "unit")
SLOTS = {"active": ("{s}", "{o}"), "passive": ("{s}", "{o}"), "question": ("{s}",)}


class LexiconError(ValueError):
    """A malformed lexicon file: the message names the file and the key at fault."""

    def __init__(self, source: str | Path, key: str, problem: str):
        super().__init__(f"{source}: key '{key}': {problem}")


@dataclass(frozen=True)
class Lexicon:
    """IRI -> kind -> phrasings; empty when the user gives none."""

    entries: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def get(self, iri: str, kind: str) -> tuple[str, ...]:
        return self.entries.get(iri, {}).get(kind, ())


def _iri(key: str, pm: PrefixMap, source: Path) -> str:
    if key.startswith("<") and key.endswith(">"):
        return key[1:-1]
    if key.startswith(("http://", "https://", "urn:")):
        return key
    prefix, sep, local = key.partition(":")
    iri = pm.expand(prefix, local) if sep else None
    if iri is None:
        raise LexiconError(source, key, f"not an IRI nor a prefixed name of KB '{pm.name}'")
    return iri


def _check_phrase(source: Path, key: str, kind: str, phrase: object) -> str:
    if not isinstance(phrase, str) or not phrase.strip():
        raise LexiconError(source, f"{key}.{kind}", "expected a non-empty string")
    for slot in SLOTS.get(kind, ()):
        if slot not in phrase:
            raise LexiconError(source, f"{key}.{kind}", f"'{phrase}' lacks the slot {slot}")
    if kind in ("active", "passive") and not phrase.startswith(("{s}", "{o}")):
        raise LexiconError(source, f"{key}.{kind}", f"'{phrase}' must start with {{s}} or {{o}}")
    unknown = set(phrase.replace("{s}", "").replace("{o}", "")) & {"{", "}"}
    if unknown:
        raise LexiconError(source, f"{key}.{kind}", f"'{phrase}' has a slot other than {{s}} and {{o}}")
    return " ".join(phrase.split())


def load_lexicon(path: str | Path, pm: PrefixMap) -> Lexicon:
    """Read a lexicon file (.json, .yaml or .yml); every error names the file and the key."""
    source = Path(path)
    if not source.is_file():
        raise FileNotFoundError(f"lexicon file not found: {source}")
    text = source.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text) if source.suffix in (".yaml", ".yml") else json.loads(text)
    except (json.JSONDecodeError, yaml.YAMLError) as err:
        raise LexiconError(
            source, "<file>", f"not valid {source.suffix.lstrip('.') or 'JSON'}: {err}"
        ) from None
    if not isinstance(data, dict):
        raise LexiconError(source, "<file>", f"expected an object of entries, got {type(data).__name__}")
    entries: dict[str, dict[str, tuple[str, ...]]] = {}
    for key, entry in data.items():
        if not isinstance(entry, dict):
            raise LexiconError(source, str(key), f"expected an object of kinds, got {type(entry).__name__}")
        kinds: dict[str, tuple[str, ...]] = {}
        for kind, phrases in entry.items():
            if kind not in KINDS:
                raise LexiconError(source, f"{key}.{kind}", f"unknown kind; known: {', '.join(KINDS)}")
            if isinstance(phrases, str):
                phrases = [phrases]
            if not isinstance(phrases, list):
                raise LexiconError(source, f"{key}.{kind}", "expected a list of phrasings")
            kinds[kind] = tuple(_check_phrase(source, str(key), kind, p) for p in phrases)
        entries[_iri(str(key), pm, source)] = kinds
    return Lexicon(entries)


def bundled_lexicon_path() -> Path:
    """The lexicon of the KB shipped in the package: its own phrasings, and an example to follow."""
    return Path(str(files("nmt_sparql").joinpath("resources", "kb_lexicon.json")))


def bundled_lexicon() -> Lexicon:
    return load_lexicon(bundled_lexicon_path(), prefix_map("bundled"))
