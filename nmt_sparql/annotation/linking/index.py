"""A persistent index of a KB's elements by their labels: SQLite FTS5, one file, no pickle.

The GRASP design (a prefix-keyword index ranked by exact and prefix keyword matches, ties broken by
popularity), held in SQLite so that millions of labels fit on one machine:

- `elements` (token, kind, preferred label, popularity) and `labels` (every label, alias or lexicon
  phrase of an element, normalized: case-folded, accents dropped, words joined by one space);
- labels are written in order of descending popularity, so an FTS5 scan in rowid order meets the most
  popular elements first and a LIMIT keeps the best of a common word without ranking all its matches;
- `labels_fts` (FTS5, unicode61) answers keyword and prefix matches, filtered by kind inside FTS5;
- `words` + `words_tri` (FTS5 trigram over the index's distinct words) correct a misspelt query word
  to the words it is one or two edits from, so "Ridly Scott" finds "Ridley Scott".

Ranking: exact label > every query word in the label > every query word a prefix of a label word >
the same after typo correction; within a tier, labels the query covers better first, then popularity.
`KBIndex` is the whole interface the linker uses: names (`lookup`, `exact`, `initialled`, `label`,
`kind`) and, when the index holds them, facts (`relations`, `attributes` ...); a backend for a search
server (OpenSearch, a KB's own text index) needs the same methods.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from rapidfuzz.distance import OSA

from nmt_sparql.annotation.linking.wordforms import is_dictionary_word, with_word_forms
from nmt_sparql.atomic import atomic_write

Kind = Literal["entity", "property", "class"]
KINDS: tuple[Kind, ...] = get_args(Kind)
# 2: the `facts` table (entity-to-entity triples and class memberships; empty for a KB indexed from labels).
# 3: `facts` also says which properties of a subject have numbers or dates (object MEASURED).
# 4: a label's trailing qualifier is dropped in a derived label ("The Godfather (film)": "The Godfather");
#    the `slots` table (what answers training's "who" questions: a property's objects or subjects).
# 5: the same tables; linking also proposes the properties of two-fact paths (`paths`), so data
#    prepared with an earlier index is linked again.
# 6: `facts` also says which properties of a subject have text values (object TEXT: a chemical symbol),
#    so `properties` knows every property an entity has.
# 7: an entity labelled by a common noun ("physicist", "horror film") also matches its plural, so data
#    prepared with an earlier index is linked again.
# 8: `implicit` (the elements proposed for every question).
# 9: a word that is a lemma is inflected as that lemma only ("found": founded, not find's forms), so data
#    prepared with an earlier index is linked again.
# 10: an entity label's trailing legal form is dropped in a derived label ("Apple Inc.": "Apple"), so data
#    prepared with an earlier index is linked again.
FORMAT_VERSION = "10"
# 1: written before `facts`, opened as an index without facts; 2: without measured properties;
# 3: without qualifier-free labels; 4: as 5; 5: without text-valued properties; 6: without entity plurals;
# 7: without implicit elements; 8: as 9; 9: as 10.
_READABLE_FORMATS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", FORMAT_VERSION)
_WORD = re.compile(r"\w+")
# A label's trailing qualifier, "The Godfather (film)": people say the name without it.
QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")
# A company's trailing legal form, "Apple Inc.", "Nike, Inc.": people say the name without it.
LEGAL_FORM = re.compile(
    r",?\s+(?:inc|incorporated|ltd|limited|corp|corporation|company|co|llc|plc|ag|gmbh|s\.?a|n\.?v|group)\.?$",
    re.IGNORECASE,
)
# Tiers of a match; `Hit.score` is the tier, plus 0.4 when the phrase covers the whole label (0.2 when
# not), plus 0.1 when a label (not a derived word form) matched.
EXACT, KEYWORDS, PREFIX, FUZZY = 4.0, 3.0, 2.0, 1.0
# A misspelt word of this many characters may be corrected; longer ones may be two edits off.
_MIN_FUZZY_CHARS = 4
_TWO_EDITS_CHARS = 8
# A first name spelt otherwise keeps this many letters of its label's ("freddy": Freddie).
_NAME_STEM = 4
_FUZZY_WORDS = 8
# Labels fetched per tier before re-ranking: the most popular ones, as labels are stored by popularity.
_FETCH_PER_K = 20
# Acronyms (`initialled`): up to this many letters, the initials of a label's words but these.
_MAX_ACRONYM = 5
# Clipped names (`clipped`: "Caltech"): at least this many letters from each of two words of a label.
_MIN_CLIP = 3
# Function words of names: no initials of an acronym, and what a shortened name may drop with a class word.
_NAME_FUNCTION_WORDS = frozenset({"of", "the", "and", "for", "at", "in", "on", "de", "du", "la"})
# A triple between two IRIs as model tokens (subject, property, object); ("x", "a", "C") for a membership.
Fact = tuple[str, str, str]
# What answers the training questions opening with a word: (word, property, "object" | "subject").
Slot = tuple[str, str, str]
# The object of a fact whose value is a number or a date (`facts` keeps which properties measure what).
MEASURED = '"'
# The object of a fact whose value is another literal: a text (a symbol, a motto), not a label.
TEXT = "'"
# `paths` and `shared` follow at most this many facts of each direction out of an entity.
_PATH_NEIGHBOURS = 2000


class IndexFileError(ValueError):
    """An index file that is missing, not SQLite, or not written by this version; the message names it."""


@dataclass(frozen=True)
class Entry:
    """One KB element to index: its model token, kind, labels (first = preferred) and popularity."""

    token: str
    kind: Kind
    labels: tuple[str, ...]
    popularity: float = 0.0
    # Phrases derived from the labels (word forms: "directed" for "director"): matched like labels,
    # ranked just below a label that matches as well.
    forms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Hit:
    """An element found for a phrase: its preferred label, the label that matched, and the score."""

    token: str
    kind: Kind
    label: str
    matched: str
    score: float
    tier: float = 0.0  # EXACT, KEYWORDS, PREFIX or FUZZY
    coverage: float = 0.0  # the share of the label's words the phrase matched (of the longer of the two)
    derived: bool = False  # matched a derived word form, not a label


def first_name_variant(word: str) -> bool:
    """Whether a word before the last of a name may be another spelling of its label's word that keeps its
    first `_NAME_STEM` letters ("freddy": Freddie; "jon": no, too short): a name's word English does not know."""
    return len(word) >= _NAME_STEM + 1 and word.isalpha() and not is_dictionary_word(word)


def _name_words(words: list[str]) -> int:
    """How many words a label or phrase has, initials aside: "Tolkien" is all of "J. R. R. Tolkien"."""
    return max(1, sum(len(w) > 1 for w in words))


def _coverage(query: list[str], label: list[str]) -> float:
    """The share of a label's name words the phrase matched (of the longer of the two). One letter alone
    matches none of a label's longer words: "C" is no part of "C. S. Lewis" worth naming ("E.T." is)."""
    if len(query) == 1 and len(query[0]) == 1 and any(len(w) > 1 for w in label):
        return 0.0
    n_query, n_label = _name_words(query), _name_words(label)
    return min(n_query, n_label) / max(n_query, n_label)


def _edits_allowed(word: str) -> int:
    """How many edits a misspelling of `word` may be off: none below four characters."""
    return 0 if len(word) < _MIN_FUZZY_CHARS else 2 if len(word) >= _TWO_EDITS_CHARS else 1


def misspelt(word: str, correct: str) -> bool:
    """Whether `word` is `correct` or a misspelling of it the index would correct ("pucini": puccini)."""
    limit = _edits_allowed(word)
    return word == correct or (limit > 0 and OSA.distance(word, correct, score_cutoff=limit) <= limit)


def normalize(text: str) -> str:
    """Case-folded words without accents, joined by one space: the form labels and queries are compared in."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(_WORD.findall(plain))


_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE elements (id INTEGER PRIMARY KEY, token TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
                       label TEXT NOT NULL, popularity REAL NOT NULL);
CREATE TABLE staged (element INTEGER NOT NULL, text TEXT NOT NULL, norm TEXT NOT NULL, rank INTEGER NOT NULL,
                     derived INTEGER NOT NULL);
CREATE TABLE labels (id INTEGER PRIMARY KEY, element INTEGER NOT NULL, text TEXT NOT NULL,
                     norm TEXT NOT NULL, kind TEXT NOT NULL, derived INTEGER NOT NULL);
CREATE TABLE facts (s TEXT NOT NULL, p TEXT NOT NULL, o TEXT NOT NULL);
CREATE TABLE slots (word TEXT NOT NULL, p TEXT NOT NULL, side TEXT NOT NULL, n INTEGER NOT NULL);
"""
_INDEXES = """
CREATE INDEX labels_norm ON labels (norm);
CREATE VIRTUAL TABLE labels_fts USING fts5 (norm, kind, content='labels', content_rowid='id',
                                            tokenize='unicode61 remove_diacritics 2', prefix='2 3');
INSERT INTO labels_fts (labels_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE labels_vocab USING fts5vocab (labels_fts, 'col');
CREATE TABLE words (id INTEGER PRIMARY KEY, word TEXT NOT NULL UNIQUE, n INTEGER NOT NULL);
INSERT INTO words (word, n) SELECT term, doc FROM labels_vocab WHERE col = 'norm';
DROP TABLE labels_vocab;
CREATE VIRTUAL TABLE words_tri USING fts5 (word, content='words', content_rowid='id', tokenize='trigram');
INSERT INTO words_tri (words_tri) VALUES ('rebuild');
CREATE INDEX facts_so ON facts (s, o);
CREATE INDEX facts_o ON facts (o, p);
CREATE INDEX facts_members ON facts (p, o, s);
"""


def _bare(label: str, kind: str) -> str:
    """A label as people say it: without its trailing qualifier, and an entity's without a legal form
    ("Apple Inc.": Apple)."""
    bare = QUALIFIER.sub("", label)
    return LEGAL_FORM.sub("", bare) if kind == "entity" and " " in bare else bare


def _write(
    path: Path,
    entries: Iterable[Entry],
    facts: Iterable[Fact] = (),
    slots: Mapping[Slot, int] | None = None,
    implicit: Sequence[str] = (),
) -> None:
    db = sqlite3.connect(path)
    try:
        db.executescript("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" + _SCHEMA)
        ids: dict[str, int] = {}
        staged: list[tuple[int, str, str, int, int]] = []
        for entry in entries:
            if entry.kind not in KINDS:
                raise ValueError(
                    f"entry {entry.token!r}: kind must be one of {', '.join(KINDS)}, got {entry.kind!r}"
                )
            labels = [" ".join(label.split()) for label in entry.labels]
            labels = [label for label in labels if normalize(label)]
            element = ids.get(entry.token)
            if element is None:
                if not labels:
                    continue
                element = ids[entry.token] = len(ids) + 1
                db.execute(
                    "INSERT INTO elements VALUES (?, ?, ?, ?, ?)",
                    (element, entry.token, entry.kind, labels[0], float(entry.popularity)),
                )
            elif entry.popularity:
                # The same element from several sources: its labels are pooled, its popularity is the highest.
                db.execute(
                    "UPDATE elements SET popularity = max(popularity, ?) WHERE id = ?",
                    (float(entry.popularity), element),
                )
            staged.extend((element, label, normalize(label), rank, 0) for rank, label in enumerate(labels))
            staged.extend(
                (element, bare, normalize(bare), len(labels), 1)
                for label in labels
                if (bare := _bare(label, entry.kind)) != label and normalize(bare)
            )
            staged.extend(
                (element, form, normalize(form), len(labels), 1) for form in entry.forms if normalize(form)
            )
            if len(staged) >= 50_000:
                db.executemany("INSERT INTO staged VALUES (?, ?, ?, ?, ?)", staged)
                staged.clear()
        db.executemany("INSERT INTO staged VALUES (?, ?, ?, ?, ?)", staged)
        db.execute(
            """INSERT INTO labels (element, text, norm, kind, derived)
               SELECT s.element, min(s.text), s.norm, e.kind, min(s.derived)
               FROM staged s JOIN elements e ON e.id = s.element
               GROUP BY s.element, s.norm ORDER BY e.popularity DESC, s.element, min(s.rank)"""
        )
        db.execute("DROP TABLE staged")
        db.executemany("INSERT INTO facts VALUES (?, ?, ?)", facts)
        db.executemany("INSERT INTO slots VALUES (?, ?, ?, ?)", [(*k, n) for k, n in (slots or {}).items()])
        db.executescript(_INDEXES)
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [
                ("format", FORMAT_VERSION),
                ("elements", str(len(ids))),
                ("implicit", json.dumps(list(implicit))),
            ],
        )
        db.commit()
        db.execute("VACUUM")
    finally:
        db.close()


def _implicit(db: sqlite3.Connection, path: Path) -> tuple[str, ...]:
    """The index's implicit elements (meta `implicit`, a JSON list of tokens); a value that is not one
    raises `IndexFileError` naming the file."""
    found = db.execute("SELECT value FROM meta WHERE key = 'implicit'").fetchone()
    if found is None:
        return ()
    try:
        tokens = json.loads(found[0])
    except json.JSONDecodeError:
        tokens = None
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise IndexFileError(
            f"{path}: meta 'implicit' must be a JSON list of KB tokens, got {found[0][:80]!r}"
        )
    return tuple(tokens)


class KBIndex:
    """Lookup of KB elements by label in an SQLite file written by `build` (read-only once opened)."""

    def __init__(self, db: sqlite3.Connection, path: Path):
        self._db = db
        self.path = path
        # A linker looks the same words up many times (every span, every kind).
        self._alternatives = functools.lru_cache(maxsize=100_000)(self._alternatives_uncached)
        self._neighbours = functools.lru_cache(maxsize=100_000)(self._neighbours_uncached)
        self._size = int(db.execute("SELECT count(*) FROM elements").fetchone()[0])
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        self._has_facts, self._has_slots = "facts" in tables, "slots" in tables
        self._answer_classes: dict[str, frozenset[str]] = {}
        self._class_words: frozenset[str] | None = None
        # Elements most training queries use whatever the words (an index built before it: none).
        self.implicit = _implicit(db, path)
        self._max_words = int(
            db.execute(
                "SELECT coalesce(max(length(norm) - length(replace(norm, ' ', '')) + 1), 0) FROM labels"
            ).fetchone()[0]
        )

    @classmethod
    def build(
        cls,
        path: str | Path,
        entries: Iterable[Entry],
        word_forms: bool = True,
        facts: Iterable[Fact] = (),
        slots: Mapping[Slot, int] | None = None,
        implicit: Sequence[str] = (),
    ) -> KBIndex:
        """Index `entries` (and the KB's `facts`, for `relations`; training's answer `slots`, for
        `answer_classes`; the `implicit` elements a linker proposes for every question, from
        `sources.frequent_elements`) into `path`, written to a temporary file and renamed over it in
        one step.

        An element met several times (from several sources) keeps its first kind and preferred label,
        gains every label, and takes the highest popularity. With `word_forms`, properties and classes
        also get the inflections and derivations of their label words (wordforms.py).
        """
        path = Path(path)
        if word_forms:
            entries = with_word_forms(entries)

        def write(tmp: Path) -> None:
            tmp.unlink()  # SQLite creates its own file; atomic_write only reserved the name
            _write(tmp, entries, facts, slots, implicit)

        atomic_write(path, write)
        return cls.open(path)

    @classmethod
    def open(cls, path: str | Path) -> KBIndex:
        """Open an index file read-only; a missing, foreign or corrupt file raises `IndexFileError` naming it."""
        path = Path(path)
        if not path.is_file():
            raise IndexFileError(f"KB index not found: {path}")
        try:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
            found = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.DatabaseError as err:
            raise IndexFileError(f"{path}: not a KB index (SQLite says: {err})") from None
        if found is None or found[0] not in _READABLE_FORMATS:
            db.close()
            raise IndexFileError(
                f"{path}: KB index format {found and found[0]!r}, expected {FORMAT_VERSION!r}"
            )
        try:
            return cls(db, path)
        except sqlite3.DatabaseError as err:
            db.close()
            raise IndexFileError(f"{path}: corrupt KB index (SQLite says: {err})") from None
        except IndexFileError:
            db.close()
            raise

    def __len__(self) -> int:
        return self._size

    @property
    def max_words(self) -> int:
        """The number of words of the longest label: no phrase longer than that can match exactly."""
        return self._max_words

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> KBIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def label(self, token: str) -> str | None:
        row = self._db.execute("SELECT label FROM elements WHERE token = ?", (token,)).fetchone()
        return row[0] if row else None

    def elements(self, kinds: Collection[Kind]) -> list[tuple[str, Kind, str]]:
        """(token, kind, preferred label) of every element of `kinds`, in the index's order."""
        marks = ",".join("?" * len(kinds))
        return self._db.execute(
            f"SELECT token, kind, label FROM elements WHERE kind IN ({marks}) ORDER BY id", list(kinds)
        ).fetchall()

    def kind(self, token: str) -> Kind | None:
        row = self._db.execute("SELECT kind FROM elements WHERE token = ?", (token,)).fetchone()
        return row[0] if row else None

    def names(self, token: str) -> list[str]:
        """Every normalized label and alias of an element (its words, inflections, learned spans)."""
        rows = self._db.execute(
            "SELECT DISTINCT l.norm FROM labels l JOIN elements e ON e.id = l.element WHERE e.token = ?",
            (token,),
        )
        return [row[0] for row in rows]

    def relations(self, a: str, b: str, k: int = 2) -> list[str]:
        """The `k` properties the KB most often links `a` and `b` with, either way round: between two
        entities, the facts that join them; between a class and an entity, the facts that join the
        class's members to the entity ("universities" and "London": city). [] without facts."""
        if not self._has_facts or k <= 0:
            return []
        if self.kind(a) == "class":
            rows = self._db.execute(
                "SELECT p, count(*) AS n FROM ("
                " SELECT f.p FROM facts m JOIN facts f ON f.s = m.s WHERE m.p = 'a' AND m.o = ? AND f.o = ?"
                " UNION ALL"
                " SELECT f.p FROM facts m JOIN facts f ON f.o = m.s WHERE m.p = 'a' AND m.o = ? AND f.s = ?"
                ") WHERE p != 'a' GROUP BY p ORDER BY n DESC, p LIMIT ?",
                (a, b, a, b, k),
            ).fetchall()
        else:
            rows = self._db.execute(
                "SELECT p, count(*) AS n FROM facts WHERE p != 'a' AND (s = ? AND o = ? OR s = ? AND o = ?)"
                " GROUP BY p ORDER BY n DESC, p LIMIT ?",
                (a, b, b, a, k),
            ).fetchall()
        return [p for p, _ in rows]

    def paths(self, cls: str, entity: str, k: int = 2) -> list[str]:
        """The properties of the `k` two-fact paths that most often join `cls`'s members to `entity`
        through one other element, in path order ("albums" and "London": artist, then hometown; "films"
        and "Stephen King": based on, then author): what a question leaves unsaid when it joins a
        class to an entity through something it does not name. [] without facts. The entity's
        neighbours are capped, so a hub of a large KB costs a bounded lookup."""
        if not self._has_facts or k <= 0:
            return []
        rows = self._db.execute(
            "WITH near(y, p2) AS ("
            " SELECT * FROM (SELECT o, p FROM facts WHERE s = :e AND p != 'a' AND o NOT IN (:m, :t) LIMIT :cap)"
            " UNION ALL SELECT * FROM (SELECT s, p FROM facts WHERE o = :e AND p != 'a' LIMIT :cap)),"
            " hop(p1, p2) AS ("
            " SELECT f.p, near.p2 FROM near JOIN facts f ON f.o = near.y"
            "  JOIN facts m ON m.s = f.s AND m.p = 'a' AND m.o = :c WHERE f.p != 'a'"
            " UNION ALL"
            " SELECT f.p, near.p2 FROM near JOIN facts f ON f.s = near.y"
            "  JOIN facts m ON m.s = f.o AND m.p = 'a' AND m.o = :c WHERE f.p != 'a')"
            " SELECT p1, p2, count(*) AS n FROM hop GROUP BY p1, p2 ORDER BY n DESC, p1, p2 LIMIT :k",
            {"e": entity, "c": cls, "m": MEASURED, "t": TEXT, "cap": _PATH_NEIGHBOURS, "k": k},
        ).fetchall()
        return list(dict.fromkeys(p for p1, p2, _ in rows for p in (p1, p2)))

    def shared(self, a: str, b: str, k: int = 2) -> list[str]:
        """The properties of the `k` pairs of facts that most often link one element to both entities
        ("American" and "physicist": nationality and occupation; "Spielberg" and "John Williams":
        director and music composer), in the order of `a`, then `b`: what joins two values of one
        thing that no fact joins directly. [] without facts; each entity's facts are capped."""
        if not self._has_facts or k <= 0:
            return []
        rows = self._db.execute(
            "WITH fa(x, p) AS (SELECT s, p FROM facts WHERE o = :a AND p != 'a' LIMIT :cap),"
            " fb(x, p) AS (SELECT s, p FROM facts WHERE o = :b AND p != 'a' LIMIT :cap)"
            " SELECT fa.p, fb.p, count(*) AS n FROM fa JOIN fb ON fa.x = fb.x AND fa.p != fb.p"
            " GROUP BY fa.p, fb.p ORDER BY n DESC, fa.p, fb.p LIMIT :k",
            {"a": a, "b": b, "cap": _PATH_NEIGHBOURS, "k": k},
        ).fetchall()
        return list(dict.fromkeys(p for pa, pb, _ in rows for p in (pa, pb)))

    def properties(self, entity: str) -> list[str]:
        """The properties of the facts an entity takes part in, either way round, most used first: what
        a question about it may ask, whatever words it uses. [] without facts."""
        if not self._has_facts:
            return []
        rows = self._db.execute(
            "SELECT p, count(*) AS n FROM (SELECT p FROM facts WHERE s = ? AND p != 'a'"
            " UNION ALL SELECT p FROM facts WHERE o = ? AND p != 'a') GROUP BY p ORDER BY n DESC, p",
            (entity, entity),
        ).fetchall()
        return [p for p, _ in rows]

    def values(self, cls: str, k: int = 500) -> list[str]:
        """The `k` elements a class's members are most often linked to (their facts' objects, not
        numbers or texts): what a word beside the class may name ("Dutch painters": Netherlands, the
        painters' nationality; "horror novels": Horror fiction, a genre). [] without facts."""
        if not self._has_facts or k <= 0:
            return []
        rows = self._db.execute(
            "SELECT f.o, count(*) AS n FROM facts m JOIN facts f ON f.s = m.s WHERE m.p = 'a' AND m.o = ?"
            " AND f.p != 'a' AND f.o NOT IN (?, ?) GROUP BY f.o ORDER BY n DESC, f.o LIMIT ?",
            (cls, MEASURED, TEXT, k),
        ).fetchall()
        return [o for o, _ in rows]

    def classes(self, entity: str) -> frozenset[str]:
        """The classes the KB gives an entity (empty without facts)."""
        if not self._has_facts:
            return frozenset()
        rows = self._db.execute("SELECT o FROM facts WHERE s = ? AND p = 'a'", (entity,))
        return frozenset(row[0] for row in rows)

    def answer_classes(self, word: str) -> frozenset[str]:
        """The classes whose members fill a slot that answered training questions opening with `word`
        ("who": the objects of director, author, artist... are people and bands, never a language);
        empty when training had no such question or the index has no facts."""
        if word not in self._answer_classes:
            found: set[str] = set()
            if self._has_facts and self._has_slots:
                for p, side in self._db.execute(
                    "SELECT p, side FROM slots WHERE word = ?", (word,)
                ).fetchall():
                    member = "f.o" if side == "object" else "f.s"
                    rows = self._db.execute(
                        f"SELECT DISTINCT m.o FROM facts f JOIN facts m ON m.s = {member} AND m.p = 'a' WHERE f.p = ?",
                        (p,),
                    )
                    found.update(row[0] for row in rows)
            self._answer_classes[word] = frozenset(found)
        return self._answer_classes[word]

    def attributes(self, element: str, k: int = 3) -> list[str]:
        """The `k` properties whose values are numbers or dates that a class's members (most members
        first) or an entity (the KB's most used first) have: what a superlative or "how tall" asks
        about ("the oldest university": founding year). [] without facts."""
        if not self._has_facts or k <= 0:
            return []
        if self.kind(element) == "class":
            sql = (
                "SELECT f.p, count(*) AS n FROM facts m JOIN facts f ON f.s = m.s"
                " WHERE m.p = 'a' AND m.o = ? AND f.o = ? GROUP BY f.p ORDER BY n DESC, f.p LIMIT ?"
            )
        else:
            sql = (
                "SELECT f.p, (SELECT count(*) FROM facts g WHERE g.p = f.p AND g.o = f.o) AS n FROM facts f"
                " WHERE f.s = ? AND f.o = ? GROUP BY f.p ORDER BY n DESC, f.p LIMIT ?"
            )
        return [p for p, _ in self._db.execute(sql, (element, MEASURED, k)).fetchall()]

    def _corrections(self, word: str) -> list[str]:
        """Index words one edit (two for long words) from a word, closest first."""
        if len(word) < _MIN_FUZZY_CHARS:
            return []
        grams = {word[i : i + 3] for i in range(len(word) - 2)}
        query = " OR ".join(f'"{g}"' for g in sorted(grams))
        rows = self._db.execute(
            "SELECT w.word, w.n FROM words_tri JOIN words w ON w.id = words_tri.rowid "
            "WHERE words_tri MATCH ? ORDER BY rank LIMIT 200",
            (query,),
        ).fetchall()
        # Trigrams miss a transposition in a short word ("frnace"): words of the same first letter and
        # about the same length are tried too, in the order of the words table (bounded).
        rows += self._db.execute(
            "SELECT word, n FROM words WHERE word >= ? AND word < ? AND length(word) BETWEEN ? AND ? LIMIT 5000",
            (word[0], chr(ord(word[0]) + 1), len(word) - 1, len(word) + 1),
        ).fetchall()
        limit = _edits_allowed(word)
        close = {(OSA.distance(word, w, score_cutoff=limit), -n, w) for w, n in rows}
        return [w for d, _, w in sorted(c for c in close if c[0] <= limit)][:_FUZZY_WORDS]

    def _alternatives_uncached(self, word: str) -> tuple[str, ...]:
        """Corrections of a word the index does not hold; none for a word it holds."""
        if self._db.execute("SELECT 1 FROM words WHERE word = ?", (word,)).fetchone() is not None:
            return ()
        return tuple(self._corrections(word))

    def _neighbours_uncached(self, word: str) -> tuple[str, ...]:
        """The index's other words as close to a name's word as a correction would be, though the index
        holds it too; none for an English word ("band" is no misspelt "and")."""
        if is_dictionary_word(word):
            return ()
        return tuple(w for w in self._corrections(word) if w != word)

    def _fts(self, match: str, kinds: Collection[Kind], limit: int) -> list[tuple[int, str, str, int]]:
        """Labels matching an FTS5 query, most popular first. A kind filter inside FTS5 pays off for the
        rare kinds (properties, classes); entities are most labels, so they are filtered on the rows."""
        select = (
            "SELECT l.element, l.text, l.norm, l.derived FROM labels_fts f JOIN labels l ON l.id = f.rowid "
            "WHERE labels_fts MATCH ?"
        )
        if len(kinds) == len(KINDS):
            return self._db.execute(
                f"{select} ORDER BY f.rowid LIMIT ?", (f"norm : ({match})", limit)
            ).fetchall()
        if "entity" in kinds:
            marks = ",".join("?" * len(kinds))
            return self._db.execute(
                f"{select} AND l.kind IN ({marks}) ORDER BY f.rowid LIMIT ?",
                (f"norm : ({match})", *kinds, limit),
            ).fetchall()
        kind_filter = " OR ".join(f'"{k}"' for k in kinds)
        return self._db.execute(
            f"{select} ORDER BY f.rowid LIMIT ?", (f"norm : ({match}) AND kind : ({kind_filter})", limit)
        ).fetchall()

    def lookup(self, phrase: str, kinds: Collection[Kind] | None = None, k: int = 10) -> list[Hit]:
        """The `k` best elements (of `kinds`, default all) whose labels match `phrase`, best first."""
        norm = normalize(phrase)
        kinds = [kind for kind in KINDS if kinds is None or kind in kinds]
        if not norm or not kinds or k <= 0:
            return []
        words = norm.split()
        limit = k * _FETCH_PER_K
        found: list[tuple[float, int, str, str, int]] = []  # (tier, element, text, norm, derived)
        exact = self._labelled(norm, kinds, limit, forms=True)
        found += [(EXACT, *row) for row in exact]
        found += [(KEYWORDS, *row) for row in self._fts(" ".join(f'"{w}"' for w in words), kinds, limit)]
        # A lower tier only ranks after these: it is not asked for once k elements are found.
        if len({row[1] for row in found}) < k and len(words[-1]) >= (1 if len(words) > 1 else 2):
            prefix = " ".join(f'"{w}"' for w in words[:-1]) + f' "{words[-1]}"*'
            found += [(PREFIX, *row) for row in self._fts(prefix, kinds, limit)]
        if not exact and len({row[1] for row in found}) < k:
            groups, corrected = [], False
            for w in words:
                alternatives = list(self._alternatives(w))
                corrected |= bool(alternatives)
                groups.append("(" + " OR ".join(f'"{a}"' for a in [w, *alternatives]) + ")")
            if corrected:
                found += [(FUZZY, *row) for row in self._fts(" AND ".join(groups), kinds, limit)]
            elif not found and len(words) > 1:
                # No label holds the words together: a name's word may be a misspelling that happens to be
                # another name's ("herman hesse": Herman Melville's "herman"), and a first name another
                # spelling of the one its label has ("freddy mercury": Freddie Mercury).
                groups = []
                for i, w in enumerate(words):
                    terms = [f'"{a}"' for a in [w, *self._neighbours(w)]]
                    if i < len(words) - 1 and first_name_variant(w):
                        terms.append(f'"{w[:_NAME_STEM]}"*')
                    groups.append("(" + " OR ".join(terms) + ")")
                found += [(FUZZY, *row) for row in self._fts(" AND ".join(groups), kinds, limit)]
        return self._rank(found, words, k)

    def exact(self, phrase: str, kinds: Collection[Kind], k: int = 4) -> list[Hit]:
        """The elements of `kinds` one of whose labels (not a derived form) is `phrase`, and nothing
        else: `lookup`'s first tier alone, for names guessed from other words (`place_names`)."""
        norm = normalize(phrase)
        if not norm or not kinds:
            return []
        rows = self._labelled(norm, kinds, k * _FETCH_PER_K, forms=False)
        return self._rank([(EXACT, *row) for row in rows], norm.split(), k)

    def initialled(self, acronym: str, k: int = 4) -> list[Hit]:
        """The entities one of whose labels (not a derived form) has the acronym's letters as the
        initials of its words, function words aside ("UK": United Kingdom; "MIT": Massachusetts
        Institute of Technology): the most popular, and those at least half as popular ("US": the
        United States, not the Ugandan shilling), at most `k`."""
        letters = normalize(acronym).replace(" ", "")
        if not 2 <= len(letters) <= _MAX_ACRONYM or not letters.isalpha():
            return []
        match = " AND ".join(f'"{c}"*' for c in letters)
        labels: dict[int, str] = {}
        for element, text, norm, derived in self._fts(match, ["entity"], k * _FETCH_PER_K * 10):
            if (
                not derived
                and "".join(w[0] for w in norm.split() if w not in _NAME_FUNCTION_WORDS) == letters
            ):
                labels.setdefault(element, text)
        return self._most_popular(labels, k)

    def class_words(self) -> frozenset[str]:
        """The words of the class labels ("river", "university", "album"): what a name may drop."""
        if self._class_words is None:
            labels = (label for _, _, label in self.elements(["class"]))
            self._class_words = frozenset(w for label in labels for w in normalize(label).split())
        return self._class_words

    def senses(self, entity: str, k: int = 4) -> list[Hit]:
        """The entities whose label is `entity`'s with only words of class labels (and function words)
        added, and which no fact joins to it: another thing a name shortened by its kind may mean ("the
        Amazon": Amazon River as well as the company). Not one the entity is part of ("Stanford": the
        town of Stanford University, a relation candidate already). Most popular first; [] from an index
        written before it held facts."""
        words = normalize(self.label(entity) or "").split()
        if not self._has_facts or not words:
            return []
        allowed = self.class_words() | _NAME_FUNCTION_WORDS
        labels: dict[int, str] = {}
        for element, text, norm, derived in self._fts(
            " ".join(f'"{w}"' for w in words), ["entity"], k * _FETCH_PER_K
        ):
            added = set(norm.split()) - set(words)
            if not derived and added and added <= allowed:
                labels.setdefault(element, text)
        rows = sorted(self._element_rows(list(labels)), key=lambda r: (-r[4], r[1])) if labels else []
        return [
            Hit(token, kind, label, labels[element], KEYWORDS, KEYWORDS, 1.0)
            for element, token, kind, label, _ in rows
            if not self.relations(entity, token, 1)
        ][:k]

    def clipped(self, word: str, k: int = 4) -> list[Hit]:
        """The entities one of whose labels (not a derived form) `word` clips: the start of one of its
        words, then the start of a later one, `_MIN_CLIP` letters or more each ("Caltech": California
        Institute of Technology; "FedEx": Federal Express): the most popular, and those at least half as
        popular, at most `k`."""
        letters = normalize(word).replace(" ", "")
        if len(letters) < 2 * _MIN_CLIP or not letters.isalpha():
            return []
        labels: dict[int, str] = {}
        for cut in range(_MIN_CLIP, len(letters) - _MIN_CLIP + 1):
            head, tail = letters[:cut], letters[cut:]
            for element, text, norm, derived in self._fts(
                f'"{head}"* AND "{tail}"*', ["entity"], k * _FETCH_PER_K
            ):
                words = [w for w in norm.split() if w not in _NAME_FUNCTION_WORDS]
                if not derived and any(
                    a.startswith(head) and any(b.startswith(tail) for b in words[i + 1 :])
                    for i, a in enumerate(words)
                ):
                    labels.setdefault(element, text)
        return self._most_popular(labels, k)

    def _most_popular(self, labels: dict[int, str], k: int) -> list[Hit]:
        """Exact hits for the elements of `labels` (id -> the label that matched): the most popular, and
        those at least half as popular, at most `k`."""
        if not labels:
            return []
        rows = sorted(self._element_rows(list(labels)), key=lambda r: (-r[4], r[1]))
        return [
            Hit(token, kind, label, labels[element], EXACT, EXACT, 1.0)
            for element, token, kind, label, popularity in rows[:k]
            if popularity >= rows[0][4] / 2
        ]

    def _labelled(
        self, norm: str, kinds: Collection[Kind], limit: int, forms: bool
    ) -> list[tuple[int, str, str, int]]:
        """(element, text, norm, derived) of the labels of `kinds` that are `norm` exactly (with derived
        word forms when `forms`), in the order they were stored."""
        marks = ",".join("?" * len(kinds))
        derived = "" if forms else " AND derived = 0"
        return self._db.execute(
            f"SELECT element, text, norm, derived FROM labels WHERE norm = ?{derived} AND kind IN ({marks}) "
            "ORDER BY id LIMIT ?",
            (norm, *kinds, limit),
        ).fetchall()

    def _element_rows(self, ids: list[int]) -> list[tuple[int, str, str, str, float]]:
        """(id, token, kind, label, popularity) of the elements with these ids."""
        marks = ",".join("?" * len(ids))
        return self._db.execute(
            f"SELECT id, token, kind, label, popularity FROM elements WHERE id IN ({marks})", ids
        ).fetchall()

    def _rank(self, found: list[tuple[float, int, str, str, int]], words: list[str], k: int) -> list[Hit]:
        """One hit per element, its best label deciding (GRASP); then score, popularity, token."""
        best: dict[int, tuple[float, float, float, bool, str]] = {}  # element -> (score, tier, coverage, ...)
        for tier, element, text, label_norm, derived in found:
            coverage = _coverage(words, label_norm.split())
            # A label the phrase covers whole ranks first; among partial matches popularity decides
            # ("Mozart": the composer, not the label with fewer extra words).
            score = tier + (0.4 if coverage == 1 else 0.2) + (0.0 if derived else 0.1)
            if element not in best or score > best[element][0]:
                best[element] = (score, tier, coverage, bool(derived), text)
        if not best:
            return []
        rows = self._element_rows(list(best))
        # Ties: the label the phrase covers more of, then popularity (label files give none).
        ranked = sorted(rows, key=lambda r: (-best[r[0]][0], -best[r[0]][2], -r[4], r[1]))[:k]
        hits = []
        for element, token, kind, label, _ in ranked:
            score, tier, coverage, derived, text = best[element]
            hits.append(Hit(token, kind, label, text, round(score, 6), tier, round(coverage, 6), derived))
        return hits
