"""Execution feedback and repair (`decode.repair`): on a tiny KB and KB index built here."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from nmt_sparql.annotation.linking.index import MEASURED, Entry, KBIndex
from nmt_sparql.execution.answer import Answer
from nmt_sparql.execution.base import KnowledgeBase
from nmt_sparql.execution.embedded import EmbeddedStore
from nmt_sparql.execution.safety import UnsafeQueryError
from nmt_sparql.inference.asked_order import ranking_dropped
from nmt_sparql.inference.repair import (
    ANSWERED,
    EMPTY,
    MAX_ROUNDS,
    PARSE_ERROR,
    REFUSED,
    UNKNOWN_IRI,
    WRONG_KIND,
    Repaired,
    Repairer,
    expected_of,
    repair_rounds,
    rounds_histogram,
)
from nmt_sparql.inference.said import Said, names_the_kb_lacks
from nmt_sparql.metrics.evaluate import PredictionRecord, evaluate_predictions
from nmt_sparql.reports.report import write_report
from nmt_sparql.sparql.patterns import (
    apart,
    braces,
    falls_apart,
    filters_nothing,
    idle_filters,
    reads_unbound,
    repeats_a_pattern,
)
from nmt_sparql.sparql.prefixes import PrefixMap, register_prefix_map
from nmt_sparql.sparql.tokens import detokenize, token_types, tokenize

TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Ridley_Scott a ont:Person ; ont:birthPlace res:South_Shields ; ont:birthDate "1937-11-30" .
res:Alien a ont:Film ; ont:director res:Ridley_Scott ; ont:releaseYear 1979 .
res:Blade_Runner a ont:Film ; ont:director res:Ridley_Scott ; ont:releaseYear 1982 ; ont:basedOn res:Androids_Novel .
res:Hovis_Advert a ont:Advert ; ont:director res:Ridley_Scott .
res:South_Shields a ont:Town .
res:Pathe_Newsreel a ont:Newsreel ; ont:releaseYear 1990 ; ont:director res:Pathe_Studio .
"""
ENTRIES = [
    Entry("res:Ridley_Scott", "entity", ("Ridley Scott",)),
    Entry("res:South_Shields", "entity", ("South Shields",)),
    Entry("res:Alien", "entity", ("Alien",)),
    Entry("res:Blade_Runner", "entity", ("Blade Runner",)),
    # A class whose label is exactly the misspelt name: only an entity may replace an entity.
    Entry("ont:RidleyScot", "class", ("Ridley Scot",)),
    Entry("ont:Person", "class", ("person",)),
    Entry("ont:Film", "class", ("film",)),
    Entry("ont:Town", "class", ("town",)),
    Entry("ont:birthPlace", "property", ("birth place",)),
    Entry("ont:birthDate", "property", ("birth date",)),
    Entry("ont:director", "property", ("director",)),
    Entry("ont:releaseYear", "property", ("release year",)),
    Entry("ont:basedOn", "property", ("based on",)),
]


class Recording(KnowledgeBase):
    """The tiny store, remembering every query that reached it (after the safety check)."""

    def __init__(self, store: EmbeddedStore):
        super().__init__(store.prefixes)
        self.store, self.sent = store, []

    def _run(self, sparql: str, form: str) -> Answer:
        self.sent.append(sparql)
        return self.store.query(sparql)

    def _existing_iris(self, iris: Sequence[str]) -> set[str]:
        return self.store._existing_iris(iris)

    def close(self) -> None:
        self.store.close()


@contextmanager
def _repairer_on(
    tmp_path: Path,
    prefixes: PrefixMap,
    ttl: str,
    entries: Sequence[Entry],
    max_rounds: int = 5,
    facts: Sequence[tuple[str, str, str]] = (),
) -> Iterator[Repairer]:
    """A repairer on a test's own facts: a store of `ttl` and a KB index of `entries` (and of `facts`,
    for `KBIndex.relations`)."""
    (tmp_path / "kb.ttl").write_text(ttl, encoding="utf-8")
    with (
        EmbeddedStore([tmp_path / "kb.ttl"], prefixes=prefixes, timeout_s=10) as store,
        KBIndex.build(tmp_path / "index.sqlite", entries, facts=facts) as index,
    ):
        yield Repairer(Recording(store), prefixes, index, max_rounds=max_rounds)


@pytest.fixture(scope="module")
def prefixes() -> PrefixMap:
    return register_prefix_map(
        "repairtest", {"res": "http://repair.test/resource/", "ont": "http://repair.test/ontology/"}
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, prefixes: PrefixMap) -> Iterator[EmbeddedStore]:
    path = tmp_path_factory.mktemp("kb") / "kb.ttl"
    path.write_text(TTL, encoding="utf-8")
    with EmbeddedStore([path], prefixes=prefixes, timeout_s=10) as kb:
        yield kb


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KBIndex]:
    with KBIndex.build(tmp_path_factory.mktemp("index") / "index.sqlite", ENTRIES) as built:
        yield built


@pytest.fixture
def kb(store: EmbeddedStore) -> Recording:
    return Recording(store)


def _tokens(query: str) -> list[str]:
    return tokenize(
        "PREFIX res: <http://repair.test/resource/> PREFIX ont: <http://repair.test/ontology/> " + query,
        "repairtest",
    )


def test_an_unknown_entity_is_replaced_by_the_nearest_entity_of_the_index(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { res:Ridley_Scot ont:birthPlace ?x }")
    repaired = Repairer(kb, prefixes, index).repair([hypothesis])

    assert repaired.answered_in == 2 and repaired.gave_up is None
    assert "res:Ridley_Scott" in repaired.tokens and "res:Ridley_Scot" not in repaired.tokens
    assert repaired.answer is not None and repaired.answer.rows == (
        ("http://repair.test/resource/South_Shields",),
    )
    first, second = repaired.rounds
    assert [(a.source, a.outcome, a.detail) for a in first.attempts] == [
        ("hypothesis 1", UNKNOWN_IRI, "res:Ridley_Scot")
    ]
    assert second.attempts[-1].outcome == ANSWERED
    assert "res:Ridley_Scot -> res:Ridley_Scott" in second.attempts[-1].source
    # the query with the unknown IRI never ran, and the class with the same label was never tried
    assert not any("Ridley_Scot>" in q or "Ridley_Scot " in q for q in kb.sent)
    assert not any("RidleyScot" in q for q in kb.sent)


def test_an_empty_pattern_is_rewritten_within_the_domains_the_kb_holds(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """`?x ont:director res:Alien` matches nothing: swapped, it names Ridley Scott (found by ASK first)."""
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Alien }")
    repaired = Repairer(kb, prefixes, index).repair([hypothesis], units=["ont:director", "res:Alien"])

    assert repaired.answered_in == 2
    assert repaired.answer is not None and repaired.answer.rows == (
        ("http://repair.test/resource/Ridley_Scott",),
    )
    assert repaired.rounds[0].attempts[0].outcome == EMPTY
    assert repaired.rounds[1].attempts == [repaired.rounds[1].attempts[-1]]  # only the matching rewrite ran
    assert repaired.rounds[1].attempts[0].source == "hypothesis 1: subject and object swapped"


def test_an_answer_of_the_wrong_kind_has_its_answer_pattern_rewritten(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Where ... born?" asks for a place: the birth date the model chose answers, but is a date."""
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?y ont:birthDate ?x }")
    units = ["res:Alien", "ont:director", "ont:birthDate", "ont:birthPlace"]
    repairer = Repairer(kb, prefixes, index)

    repaired = repairer.repair([hypothesis], units, question="Where was the director of Alien born?")

    assert repaired.rounds[0].attempts[0].outcome == WRONG_KIND
    assert repaired.answered_in == 2 and "ont:birthPlace" in repaired.tokens
    assert repaired.answer is not None and repaired.answer.rows == (
        ("http://repair.test/resource/South_Shields",),
    )
    # a question that says nothing of the kind keeps the first answer
    assert repairer.repair([hypothesis], units, question="").tokens == hypothesis


def test_the_first_hypothesis_of_the_kind_asked_wins_else_the_first_that_answers(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    year = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:releaseYear ?x }")
    director = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    ask = _tokens("ASK WHERE { res:Alien ont:director res:Ridley_Scott }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    assert repairer.repair([year, director], question="Who directed Alien?").tokens == director
    assert repairer.repair([ask, year], question="When was Alien released?").tokens == year
    assert repairer.repair([year, ask], question="Did Ridley Scott direct Alien?").tokens == ask
    kept = repairer.repair([year], question="Where was Alien filmed?")
    assert kept.tokens == year and kept.answered_in == 1
    assert "the first that answered is kept" in kept.rounds[0].notes[-1]


def test_a_superlative_is_not_answered_by_several_answers_without_a_ranking(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    every = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    top = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    repaired = repairer.repair([every, top], question="What is Ridley Scott's newest film?")
    assert repaired.tokens == top
    assert "the top one" in repaired.rounds[0].attempts[0].detail
    assert repairer.repair([every, top], question="What did Ridley Scott direct?").tokens == every
    assert repairer.repair([every], question="What is Ridley Scott's newest film?").tokens == every  # ranks


def test_a_superlative_answered_without_a_ranking_is_ranked_by_a_measured_property_of_the_units(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    every = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    units = ["res:Ridley_Scott", "ont:director", "ont:birthPlace", "ont:releaseYear"]
    newest = repairer.repair([every], units=units, question="What is Ridley Scott's newest film?")
    assert newest.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v }"
        " ORDER BY DESC(?v) LIMIT 1"
    )  # birth place holds no numbers or dates; the newest: the latest year first
    assert newest.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    oldest = repairer.repair([every], units=units, question="the oldest film of ridley scott")
    assert oldest.answer.rows == (("http://repair.test/resource/Alien",),)


def test_a_superlative_ranked_by_a_measure_none_of_its_things_has_is_ranked_by_one_they_have(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Ridley Scott's oldest film" ordered by a birth date, which films lack: the films, by their year."""
    by_birth = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:birthDate ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    units = ["res:Ridley_Scott", "ont:director", "ont:birthDate", "ont:releaseYear"]
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [by_birth], units, "What is Ridley Scott's oldest film?"
    )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v }"
        " ORDER BY ASC(?v) LIMIT 1"
    )
    assert repaired.answered_in == 1 and "ranking dropped" in repaired.rounds[0].attempts[-1].source
    # a question that asks for no top one leaves the empty ranking alone
    plain = Repairer(kb, prefixes, index, max_rounds=1).repair([by_birth], units, "Ridley Scott films")
    assert not any("ranking dropped" in a.source for a in plain.rounds[0].attempts)


def test_the_things_a_ranking_orders_are_its_query_without_the_order_and_the_measure() -> None:
    prefixes = "repairtest"

    def dropped(query: str) -> str | None:
        tokens = _tokens(query)
        left = ranking_dropped(tokens, token_types(tokens, prefixes))
        return None if left is None else detokenize(left, prefixes).split(" where ", 1)[-1]

    assert dropped("SELECT ?x WHERE { ?x ont:director res:R . ?x ont:year ?v } ORDER BY ASC(?v) LIMIT 1") == (
        "{ ?x ont:director res:R }"
    )
    assert dropped(
        "SELECT ?x WHERE { ?x ont:year ?v . ?x ont:director res:R } ORDER BY DESC(?v) LIMIT 1"
    ) == ("{ ?x ont:director res:R }")
    assert dropped("SELECT ?x WHERE { ?x ont:year ?v } ORDER BY ASC(?v) LIMIT 1") is None  # nothing left
    assert dropped("SELECT ?x WHERE { ?x ont:director res:R . ?x ont:year ?v } ORDER BY ASC(?v)") is None
    assert (
        dropped(
            "SELECT ?x WHERE { ?x ont:director res:R . ?x ont:year ?v FILTER(?v > 1980) } ORDER BY ASC(?v) LIMIT 1"
        )
        is None
    )  # the value is read again: a bound the question set


def test_an_entity_given_as_the_value_of_a_measure_tries_the_facts_it_takes_part_in(
    kb: Recording, prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Ridley Scott's newest film" decoded with `?x ont:releaseYear res:Ridley_Scott`, a year's property
    with a person for its value, and no unit for the director: the KB's facts of Ridley Scott say who
    directs his films. A property whose values are things is no such slip: it is left to the units."""
    facts = [
        ("res:Alien", "ont:director", "res:Ridley_Scott"),
        ("res:Ridley_Scott", "ont:birthPlace", "res:South_Shields"),
    ]
    ranked = "?x ont:releaseYear ?v } ORDER BY DESC(?v) LIMIT 1"
    units = ["res:Ridley_Scott", "ont:releaseYear"]
    directed = _tokens(f"SELECT DISTINCT ?x WHERE {{ ?x ont:director res:Ridley_Scott . {ranked}")
    with KBIndex.build(tmp_path / "index.sqlite", ENTRIES, facts=facts) as index:
        repairer = Repairer(kb, prefixes, index, max_rounds=2)
        year = _tokens(f"SELECT DISTINCT ?x WHERE {{ ?x ont:releaseYear res:Ridley_Scott . {ranked}")
        repaired = repairer.repair([year], units, "What is Ridley Scott's newest film?")
        assert repaired.tokens == directed
        assert repaired.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
        born = _tokens(f"SELECT DISTINCT ?x WHERE {{ ?x ont:birthPlace res:Ridley_Scott . {ranked}")
        assert repairer.repair([born], units, "What is Ridley Scott's newest film?").tokens != directed


def test_an_answer_that_is_only_an_entity_the_question_names_and_the_query_does_not_gives_way(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    scott = "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear"
    named = _tokens(f"{scott} 1979 }}")  # answers Alien
    later = _tokens(f"{scott} ?v FILTER(?v > 1979) }}")
    units = ["res:Ridley_Scott", "res:Alien", "ont:director", "ont:releaseYear"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    repaired = repairer.repair([named, later], units, "Name a film Ridley Scott made after Alien")
    assert repaired.tokens == later
    assert repaired.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    assert repaired.rounds[0].attempts[0].outcome == WRONG_KIND
    # a question that offers a choice may be answered by what it names, and so may a query that matches
    # the question's words as text
    choice = repairer.repair([named, later], units, "Which is older, Alien or Blade Runner")
    assert choice.tokens == named
    text = _tokens(f'{scott} 1979 . ?x rdfs:label ?l FILTER(CONTAINS(?l, "Alien")) }}')
    question = "Name a film of Ridley Scott with Alien in its name"
    said = Said(question, index)
    answer = kb.query(detokenize(named, prefixes))  # what the text query answers on a KB with labels
    assert answer.rows == (("http://repair.test/resource/Alien",),)
    assert not repairer.answers_what_it_names(text, answer, said, units, question)
    assert repairer.answers_what_it_names(named, answer, said, units, question)


def test_a_superlative_kept_by_a_limit_and_no_order_is_ranked_by_the_measure_it_binds(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    any_one = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v } LIMIT 1"
    )
    units = ["res:Ridley_Scott", "ont:director", "ont:releaseYear"]
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [any_one], units, "What is Ridley Scott's oldest film?"
    )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v }"
        " ORDER BY ASC(?v) LIMIT 1"
    )  # the year the query binds is what it is ranked by, not a second copy of it
    assert repaired.answer.rows == (("http://repair.test/resource/Alien",),)


def test_an_entity_the_question_names_and_the_query_leaves_out_restricts_the_answer(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    newest = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v } ORDER BY DESC(?v) LIMIT 1")
    units = ["res:Ridley_Scott", "ont:releaseYear"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    repaired = repairer.repair([newest], units, "What is the newest release by Ridley Scott?")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . ?x ont:director res:Ridley_Scott }"
        " ORDER BY DESC(?v) LIMIT 1"
    )  # not the 1990 newsreel: Ridley Scott's newest
    assert repaired.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    # a restriction that keeps the same answers changes nothing; nor does one the query already has
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film }")
    assert repairer.named_left_out(films, "Which films did Ridley Scott direct?", units) is None
    directed = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    assert repairer.named_left_out(directed, "What did Ridley Scott direct?", units) is None

    # no fact joins a release to South Shields: the two that join them through its director do
    released = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v }")
    question = "What was released by someone born in South Shields?"
    through = repairer.named_left_out(released, question, ["res:South_Shields", "ont:releaseYear"])
    assert through is not None and through[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . ?x ont:director ?_m . ?_m ont:birthPlace res:South_Shields }"
    )
    assert {row[0].rsplit("/", 1)[1] for row in through[1].rows} == {"Alien", "Blade_Runner"}


def test_a_number_the_question_says_and_the_query_leaves_out_restricts_the_answer(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "How many films came out in 1979?" decoded as every film counted: the number the question says
    is a value of the answer (`?x ont:releaseYear 1979` added); a number the query already uses, one
    within the name of an element it uses, or the bound of a comparison restricts nothing."""
    every = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Film }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    dated = repairer.named_left_out(every, "How many films came out in 1979?", ["ont:Film", "1979"])
    assert dated is not None and dated[0] == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Film . ?x ont:releaseYear 1979 }"
    )
    assert dated[1].rows == (("1",),)
    used = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear 1979 }")
    assert repairer.named_left_out(used, "Which films came out in 1979?", ["ont:Film", "1979"]) is None
    assert repairer.named_left_out(every, "How many films are there?", ["ont:Film", "1979"]) is None  # unsaid
    # the bound of a comparison is no value the answer has ("before 1980": `_compared` makes it)
    assert (
        repairer.named_left_out(every, "How many films came out before 1979?", ["ont:Film", "1979"]) is None
    )


def test_an_empty_pattern_reaches_its_entity_through_one_element_between(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Films directed from South Shields": no film's director is a town; its director was born there."""
    wrong = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:South_Shields }")
    units = ["ont:Film", "ont:director", "res:South_Shields"]
    repaired = Repairer(kb, prefixes, index, max_rounds=2).repair(
        [wrong], units, "Which films were directed by someone from South Shields?"
    )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director ?_m . ?_m ont:birthPlace res:South_Shields }"
    )
    assert {row[0].rsplit("/", 1)[1] for row in repaired.answer.rows} == {"Alien", "Blade_Runner"}
    # another entity of the question in the wrong one's place, reached through one element between
    elsewhere = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Alien }")
    repaired = Repairer(kb, prefixes, index, max_rounds=2).repair(
        [elsewhere], [*units, "res:Alien"], "Which films were directed by someone from South Shields?"
    )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director ?_m . ?_m ont:birthPlace res:South_Shields }"
    )
    # a property with no element between (a year) is replaced by the one that reaches the entity
    measured = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear res:South_Shields }")
    repaired = Repairer(kb, prefixes, index, max_rounds=2).repair(
        [measured],
        ["ont:Film", "ont:releaseYear", "res:South_Shields"],
        "Which films come from South Shields?",
    )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director ?_m . ?_m ont:birthPlace res:South_Shields }"
    )


def test_a_place_adjective_that_names_an_element_the_query_uses_is_not_left_out(
    tmp_path: Path, prefixes: PrefixMap
) -> None:
    """ "written in German" asks for the language German, not for Germany, which "German" also names;
    "Which films are German?" answered over every film is restricted to Germany, when linked."""
    ttl = tmp_path / "kb.ttl"
    ttl.write_text(
        "@prefix res: <http://repair.test/resource/> .\n@prefix ont: <http://repair.test/ontology/> .\n"
        "res:Das_Boot a ont:Film ; ont:language res:German ; ont:country res:Germany .\n"
        "res:M a ont:Film ; ont:language res:German ; ont:country res:Germany .\n"
        "res:Heidi a ont:Film ; ont:language res:German ; ont:country res:Switzerland ; ont:genre res:Drama .\n"
        "res:Alien a ont:Film ; ont:language res:English .\n",
        encoding="utf-8",
    )
    entries = [
        Entry("res:German", "entity", ("German",)),
        Entry("res:Germany", "entity", ("Germany",)),
        Entry("ont:Film", "class", ("film",)),
        Entry("ont:language", "property", ("language",)),
        Entry("res:Drama", "entity", ("drama",)),
    ]
    units = ["ont:Film", "ont:language", "res:German", "res:Germany"]
    with (
        EmbeddedStore([ttl], prefixes=prefixes, timeout_s=10) as store,
        KBIndex.build(tmp_path / "index.sqlite", entries) as index,
    ):
        repairer = Repairer(Recording(store), prefixes, index, max_rounds=1)
        written = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:language res:German }")
        assert repairer.named_left_out(written, "films written in German", units) is None
        films = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film }")
        german = repairer.named_left_out(films, "Which films are German?", ["ont:Film", "res:Germany"])
        assert german is not None and "res:Germany" in german[0]
        # a common noun named by its plural is named in full, though no adjective names it
        dramas = repairer.named_left_out(films, "Which films are dramas?", ["ont:Film", "res:Drama"])
        assert dramas is not None and dramas[1].rows == (("http://repair.test/resource/Heidi",),)


def test_a_place_adjective_and_a_plural_name_an_entity_whole(tmp_path: Path) -> None:
    """ "american physicists" names the United States as "Dutch painters" names the Netherlands, and
    the occupation physicist by its plural: a query that leaves either out is restricted to it
    (`named_left_out`); a name's plural names no one ("Frances")."""
    places = [
        Entry("res:United_States", "entity", ("United States",)),
        Entry("res:France", "entity", ("France",)),
        Entry("res:Physicist", "entity", ("physicist",)),
    ]
    with KBIndex.build(tmp_path / "places.sqlite", places) as index:
        said = Said("how many American physicists are there?", index)
        assert said.names_whole("res:United_States") and not said.names_whole("res:France")
        assert said.names_whole("res:Physicist")
        assert not Said("Which Frances are there?", index).names_whole("res:France")
        assert Said("Which French painters are there?", index).names_whole("res:France")


def test_a_comparison_the_query_leaves_out_is_added_as_a_filter(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    directed = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    units = ["res:Ridley_Scott", "ont:director", "ont:releaseYear", "1980"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    after = repairer.repair([directed], units, "Ridley Scott films released after 1980")
    assert after.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v . FILTER(?v > 1980) }"
    )
    assert after.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    before = repairer.repair([directed], units, "films by Ridley Scott from before 1980")
    assert before.answer.rows == (("http://repair.test/resource/Alien",),)
    # no comparative word, or no number linked: nothing is added
    assert (
        repairer.comparison_left_out(directed, "What did Ridley Scott direct after Alien?", units[:3]) is None
    )
    assert repairer.comparison_left_out(directed, "What did Ridley Scott direct in 1980?", units) is None
    # compared with an entity the question names after its comparing word: that entity's value
    named = ["res:Ridley_Scott", "ont:director", "ont:releaseYear", "res:Alien"]
    later = repairer.comparison_left_out(
        directed, "Which films did Ridley Scott direct later than Alien?", named
    )
    assert later is not None and later[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v ."
        " res:Alien ont:releaseYear ?_than . FILTER(?v > ?_than) }"
    )
    assert later[1].rows == (("http://repair.test/resource/Blade_Runner",),)
    after = repairer.comparison_left_out(directed, "What did Ridley Scott direct after Alien?", named)
    assert after is not None and after[1].rows == later[1].rows


def test_a_superlative_no_unit_measures_is_ranked_by_the_one_measure_of_its_class(
    kb: Recording, prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "the first film by Ridley Scott": no word names the release year, the films' only measure."""
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott }")
    facts = [
        (f, p, o)
        for f in ("res:Alien", "res:Blade_Runner")
        for p, o in (("a", "ont:Film"), ("ont:releaseYear", MEASURED))
    ]
    units = ["res:Ridley_Scott", "ont:director", "ont:Film"]
    with KBIndex.build(tmp_path / "index.sqlite", ENTRIES, facts=facts) as index:
        repairer = Repairer(kb, prefixes, index, max_rounds=1)
        first = repairer.repair([films], units, "the first film by Ridley Scott")
        assert first.answer.rows == (("http://repair.test/resource/Alien",),)
        last = repairer.repair([films], units, "Which Ridley Scott film came out last?")
        assert last.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    two = facts + [("res:Alien", "ont:runtime", MEASURED), ("res:Blade_Runner", "ont:runtime", MEASURED)]
    with KBIndex.build(tmp_path / "two.sqlite", ENTRIES, facts=two) as index:
        ranked = Repairer(kb, prefixes, index, max_rounds=1).repair(
            [films], units, "the first film by Ridley Scott"
        )
        assert "order" not in ranked.tokens  # two measures and no word for either: no ranking is guessed


def test_a_typed_variables_value_is_rewritten_to_a_measured_property_of_its_class(
    kb: Recording, prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which film came first?" decoded with a birth date: films have a release year."""
    facts = [
        (f, p, o)
        for f in ("res:Alien", "res:Blade_Runner")
        for p, o in (("a", "ont:Film"), ("ont:releaseYear", MEASURED))
    ]
    with KBIndex.build(tmp_path / "index.sqlite", ENTRIES, facts=facts) as index:
        born = _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:birthDate ?v } ORDER BY ASC(?v) LIMIT 1"
        )
        repaired = Repairer(kb, prefixes, index).repair(
            [born], ["ont:Film", "ont:birthDate"], "Which film came first?"
        )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    assert repaired.answer is not None and repaired.answer.rows == (("http://repair.test/resource/Alien",),)


def test_an_answer_of_the_wrong_kind_from_an_entity_tries_the_other_facts_it_takes_part_in(
    kb: Recording, prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Who made Alien?" decoded with its release year: no unit names the director, the KB's facts do."""
    facts = [("res:Alien", "ont:releaseYear", MEASURED), ("res:Alien", "ont:director", "res:Ridley_Scott")]
    year = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:releaseYear ?x }")
    with KBIndex.build(tmp_path / "index.sqlite", ENTRIES, facts=facts) as index:
        repaired = Repairer(kb, prefixes, index).repair(
            [year], ["res:Alien", "ont:releaseYear"], "Who made Alien?"
        )
        assert repaired.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
        # an answer of the kind asked for stays as it is
        when = Repairer(kb, prefixes, index).repair(
            [year], ["res:Alien", "ont:releaseYear"], "When was Alien made?"
        )
        assert when.tokens == year
        # no answer at all from the entity: a film has no birth place, its facts say who made it
        born = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:birthPlace ?x }")
        made = Repairer(kb, prefixes, index).repair(
            [born], ["res:Alien", "ont:birthPlace"], "Who made Alien?"
        )
        assert made.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    with KBIndex.build(tmp_path / "bare.sqlite", ENTRIES) as bare:  # no facts: nothing else to try
        kept = Repairer(kb, prefixes, bare).repair(
            [year], ["res:Alien", "ont:releaseYear"], "Who made Alien?"
        )
        assert kept.tokens == year


ELEMENTS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Hydrogen a ont:ChemicalElement ; ont:atomicNumber 1 ; ont:discoveryYear 1766 .
res:Francium a ont:ChemicalElement ; ont:atomicNumber 87 ; ont:discoveryYear 1939 .
res:Uranium a ont:ChemicalElement ; ont:atomicNumber 92 ; ont:discoveryYear 1789 .
"""


def test_a_query_answering_with_an_entity_it_names_gives_way(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Which films did Alien's director make?" decoded as `res:Alien ont:director ?y . ?x ont:director
    ?y . ?x a ont:Film` answers Alien too: fine. Decoded so that it answers Alien alone, its answer is
    the question's own entity, not what it asks for; the next hypothesis goes."""
    films = _tokens(
        "SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?x ont:director ?y . ?x a ont:Film }"
    )
    own = _tokens(
        "SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?x ont:director ?y . ?x ont:releaseYear 1979 }"
    )
    born = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?y ont:birthPlace ?x }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    alien = Answer(kind="select", variables=("x",), rows=(("http://repair.test/resource/Alien",),))
    both = Answer(
        kind="select", variables=("x",), rows=(*alien.rows, ("http://repair.test/resource/Blade_Runner",))
    )
    assert repairer.answers_itself(films, token_types(films, prefixes), alien)
    assert not repairer.answers_itself(films, token_types(films, prefixes), both)
    town = Answer(kind="select", variables=("x",), rows=(("http://repair.test/resource/South_Shields",),))
    assert not repairer.answers_itself(born, token_types(born, prefixes), town)
    # a property there and back ("Alien's director's films" as the director's director's ...) echoes too
    back = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?y ont:director ?x }")
    assert repairer.answers_itself(back, token_types(back, prefixes), alien)
    assert not repairer.answers_itself(back, token_types(back, prefixes), both)

    repaired = repairer.repair([own, born], question="Which film of Alien's director came out in 1979?")
    assert repaired.tokens == born
    [tried] = [a for a in repaired.rounds[0].attempts if a.sparql == detokenize(own, prefixes)]
    assert tried.outcome == WRONG_KIND and tried.detail == "its answers are entities the query itself names"


def test_a_superlative_of_size_ordered_by_a_year_is_rewritten_to_a_measure(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "the heaviest chemical element" ordered by discovery year: four-digit years look like any number,
    but the index names the property by a time word and the question asks for a size."""
    (tmp_path / "kb.ttl").write_text(ELEMENTS_TTL, encoding="utf-8")
    entries = [
        Entry("ont:ChemicalElement", "class", ("chemical element",)),
        Entry("ont:atomicNumber", "property", ("atomic number",)),
        Entry("ont:discoveryYear", "property", ("discovery year",)),
    ]
    by_year = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:discoveryYear ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    units = ["ont:ChemicalElement", "ont:discoveryYear", "ont:atomicNumber"]
    with (
        EmbeddedStore([tmp_path / "kb.ttl"], prefixes=prefixes, timeout_s=10) as store,
        KBIndex.build(tmp_path / "index.sqlite", entries) as index,
    ):
        repairer = Repairer(Recording(store), prefixes, index, max_rounds=2)
        heaviest = repairer.repair([by_year], units, "What is the heaviest chemical element?")
        assert "ont:atomicNumber" in heaviest.tokens and "ont:discoveryYear" not in heaviest.tokens
        assert heaviest.answer is not None and heaviest.answer.rows == (
            ("http://repair.test/resource/Uranium",),
        )
        for question in (
            "Which chemical element was discovered last?",
            "the element with the highest discovery year",
        ):
            assert repairer.repair([by_year], units, question).tokens == by_year


def test_a_query_whose_patterns_fall_apart_gives_way_to_one_joined_to_its_answer(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """`?x a ont:Film . res:Alien ont:director ?y`: every film, whoever directed Alien."""
    apart = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . res:Alien ont:director ?y }")
    joined = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    chain = _tokens("SELECT DISTINCT ?x WHERE { ?y ont:director ?z . res:Alien ont:director ?z . ?y a ?x }")
    assert falls_apart(apart, token_types(apart, prefixes))
    assert not falls_apart(chain, token_types(chain, prefixes))  # joined through ?y, then ?z
    than = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . res:Alien ont:releaseYear ?w . FILTER(?v > ?w) }"
    )
    assert not falls_apart(than, token_types(than, prefixes))  # a comparison joins what it compares
    ask = _tokens("ASK WHERE { res:Alien ont:director ?y . res:Blade_Runner ont:director ?z }")
    assert not falls_apart(ask, token_types(ask, prefixes))
    each = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Person . VALUES ?k { res:Alien res:Blade_Runner res:Prometheus } ?k ont:director ?x }"
    )
    assert not falls_apart(each, token_types(each, prefixes))  # a VALUES block is no pattern
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    repaired = repairer.repair([apart, joined], question="Which film did Alien's director make?")
    assert repaired.tokens == joined
    assert "joined to the answer by no variable" in repaired.rounds[0].attempts[0].detail
    assert repairer.repair([apart], question="Which films are there?").tokens == apart  # only ranks


def test_a_query_that_writes_one_pattern_twice_gives_way_to_the_next_hypothesis(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Did Alien and Blade Runner have the same director?" decoded with Alien's pattern written twice
    is true of Alien alone; the hypothesis that names both films answers."""
    twice = _tokens("ASK WHERE { res:Alien ont:director ?y . res:Alien ont:director ?y }")
    both = _tokens("ASK WHERE { res:Alien ont:director ?y . res:Blade_Runner ont:director ?y }")
    assert repeats_a_pattern(twice, token_types(twice, prefixes))
    assert not repeats_a_pattern(both, token_types(both, prefixes))
    for harmless in (
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x a ont:Film }",  # the films, whatever the copy
        "ASK WHERE { res:Alien a ont:Film . res:Alien a ont:Film }",  # still asks whether Alien is one
    ):
        assert not repeats_a_pattern(_tokens(harmless), token_types(_tokens(harmless), prefixes)), harmless
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    question = "Did Alien and Blade Runner have the same director?"
    alone = repairer.repair([twice], question=question)
    assert "written twice" in alone.rounds[0].attempts[0].detail
    assert alone.answered_in is None and alone.answer is not None and not alone.answer.ok  # no "yes"
    assert repairer.repair([twice, both], question=question).tokens == both


def test_a_query_that_falls_apart_is_joined_by_a_property_of_the_units(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which film is based on Philip Dick's novel?" decoded as `?x a ont:Film . ?y ont:author
    res:Philip_Dick`: every film; the unit the query leaves out joins the two parts."""
    (tmp_path / "kb.ttl").write_text(
        TTL + "res:Androids_Novel ont:author res:Philip_Dick .\n", encoding="utf-8"
    )
    apart_query = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?y ont:author res:Philip_Dick }")
    types = token_types(apart_query, prefixes)
    assert apart(apart_query, types) == ("?x", ["?y"])
    joined = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?y ont:author res:Philip_Dick . ?x ont:basedOn ?y }"
    )
    with EmbeddedStore([tmp_path / "kb.ttl"], prefixes=prefixes, timeout_s=10) as store:
        repairer = Repairer(Recording(store), prefixes, None, max_rounds=1)
        units = ["ont:Film", "ont:basedOn", "res:Philip_Dick", "ont:author"]
        repaired = repairer.repair([apart_query], units, "Which film is based on Philip Dick's novel?")
        assert repaired.tokens == joined
        assert repaired.answer is not None
        assert repaired.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
        assert repairer.repair([apart_query], units[:1] + units[2:], "Which film?").tokens == apart_query


def test_braces_are_the_first_opening_and_the_last_closing_one() -> None:
    tokens = _tokens("SELECT ?x WHERE { ?x ont:director ?y . FILTER ( ?y IN ( res:Alien ) ) }")
    open_at, close_at = braces(tokens)
    assert tokens[open_at] == "{" and close_at == len(tokens) - 1 and tokens[open_at - 1] == "where"
    assert braces(["select", "?x"]) is None


def test_an_order_or_filter_over_a_variable_no_pattern_binds_gives_way(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """`order by desc ( ?v )` without `?x ... ?v`: any film comes first, so the next hypothesis goes."""
    unbound = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott } ORDER BY DESC(?v) LIMIT 1"
    )
    ranked = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v }"
        " ORDER BY DESC(?v) LIMIT 1"
    )
    filtered = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . FILTER(?v > 1980) }")
    named = _tokens(
        "SELECT ?x (COUNT(?y) AS ?n) WHERE { ?y ont:director ?x } GROUP BY ?x ORDER BY DESC(?n) LIMIT 1"
    )
    assert reads_unbound(unbound, token_types(unbound, prefixes))
    assert reads_unbound(filtered, token_types(filtered, prefixes))
    assert not reads_unbound(ranked, token_types(ranked, prefixes))
    assert not reads_unbound(named, token_types(named, prefixes))  # ?n is named by AS
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [unbound, ranked], question="the newest film of ridley scott"
    )
    assert repaired.tokens == ranked
    assert "no triple pattern binds" in repaired.rounds[0].attempts[0].detail


def test_a_period_or_year_the_query_leaves_out_dates_its_answers(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "ridley scott's 80s films" decoded as all his films: the question dates its answers, so they
    are kept by their one dated measure (release year) within the decade; "before 1980" compares with
    the year. A question that dates nothing, or a query that compares already, is left as it is."""
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    eighties = repairer.repair([films], ["res:Ridley_Scott", "ont:Film"], "ridley scott's 80s films")
    assert eighties.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v . "
        "FILTER(?v >= 1980 && ?v < 1990) }"
    )
    assert eighties.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    # a period said "or earlier" keeps its end only
    question = "ridley scott films of the 80s or earlier"
    earlier = repairer.repair([films], ["res:Ridley_Scott", "ont:Film"], question)
    assert earlier.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v . "
        "FILTER(?v < 1990) }"
    )
    assert {row[0].rsplit("/", 1)[1] for row in earlier.answer.rows} == {"Alien", "Blade_Runner"}
    before = repairer.repair([films], ["res:Ridley_Scott", "ont:Film"], "ridley scott films before 1980")
    assert before.answer.rows == (("http://repair.test/resource/Alien",),)
    said = Said("ridley scott films", index)
    assert repairer.bound_left_out(films, "ridley scott films", said) is None
    compared = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v FILTER(?v > 1980) }"
    )
    assert repairer.bound_left_out(compared, "ridley scott films before 1980", said) is None


LOLITA_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Lolita_1962 a ont:Film ; ont:basedOn res:Lolita .
res:Nabokov ont:notableWork res:Lolita ; ont:almaMater res:Trinity_College .
res:Trinity_College ont:foundingYear 1546 .
"""


def test_a_year_within_a_name_dates_nothing(prefixes: PrefixMap, tmp_path: Path) -> None:
    """ "the alma mater of the author known for the source of lolita (1962 film)": 1962 is part of the
    film's name, so the answers are not kept by a year (here "mater" reads as a misspelt "later")."""
    entries = [Entry("res:Lolita_1962", "entity", ("Lolita (1962 film)",))]
    gold = _tokens(
        "SELECT DISTINCT ?x WHERE { ?y ont:almaMater ?x . ?y ont:notableWork ?z . res:Lolita_1962 ont:basedOn ?z }"
    )
    question = "universities that are the alma mater of the author that is known for the source of lolita (1962 film)"
    with _repairer_on(tmp_path, prefixes, LOLITA_TTL, entries) as repairer:
        assert repairer.index is not None
        assert repairer.bound_left_out(gold, question, Said(question, repairer.index)) is None


def test_a_filter_that_tests_one_term_alone_gives_way(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """`filter ( ?v )` keeps every film with a release year: "films released after 1980" lost its number,
    which the FILTER is given back (`bound_compared`); with no number said, the query gives way."""
    bare = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v FILTER(?v) }"
    )
    compared = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v FILTER(?v > 1980) }"
    )
    bound = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . FILTER(BOUND(?x)) }")
    assert filters_nothing(bare, token_types(bare, prefixes))
    assert not filters_nothing(compared, token_types(compared, prefixes))
    assert not filters_nothing(bound, token_types(bound, prefixes))
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [bare, compared], question="films of ridley scott released after 1980"
    )
    assert repaired.tokens == compared
    assert repaired.rounds[0].attempts[0].source.endswith("made a bound (> 1980, as the question says)")
    later = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [bare, compared], question="films of ridley scott released later on"
    )
    assert later.tokens == compared
    assert "compares nothing" in later.rounds[0].attempts[0].detail


def test_a_how_many_question_answered_by_a_list_is_counted(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "How many films did Ridley Scott direct?" decoded as the list of his films: the list, counted."""
    listed = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    repaired = repairer.repair([listed], question="How many films did Ridley Scott direct?")
    assert repaired.tokens[:10] == ["select", "(", "count", "(", "distinct", "?x", ")", "as", "?count", ")"]
    assert repaired.tokens[10:] == listed[3:]
    films = kb.query(detokenize(listed, prefixes))
    assert repaired.answer is not None and repaired.answer.number() == len(films.rows) > 1
    assert repairer.repair([listed], question="Which films did Ridley Scott direct?").tokens == listed


def test_an_ask_false_only_because_its_property_takes_no_such_object_gives_way(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Did Ridley Scott direct Alien?" decoded with a release year: years are no people."""
    year = _tokens("ASK WHERE { res:Alien ont:releaseYear res:Ridley_Scott }")
    directed = _tokens("ASK WHERE { res:Alien ont:director res:Ridley_Scott }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    question = "Did Ridley Scott make Alien?"  # says neither property: the hypotheses keep their order
    repaired = repairer.repair([year, directed], ["ont:releaseYear", "ont:director"], question)
    assert repaired.tokens == directed and repaired.answer is not None and repaired.answer.boolean is True
    assert [a.outcome for a in repaired.rounds[0].attempts] == [EMPTY, ANSWERED]
    no = _tokens("ASK WHERE { res:Alien ont:director res:South_Shields }")  # a "no" of the right form stands
    kept = repairer.repair([no, directed], ["ont:director"], "Did South Shields direct Alien?")
    assert kept.tokens == no and kept.answer is not None and kept.answer.boolean is False


def test_an_ask_setting_a_value_that_is_no_measure_equal_to_a_number_is_repaired_before_a_select(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Was Alien released in 1979?" decoded as a SELECT of the year and as an ASK that sets the director
    equal to 1979: no person is a number, so the ASK's "no" says nothing, and the ASK, of the form asked
    for, is the one rewritten first."""
    year = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:releaseYear ?x }")
    equal = _tokens("ASK WHERE { res:Alien ont:director ?v FILTER(?v = 1979) }")
    types = token_types(equal, prefixes)
    repairer = Repairer(kb, prefixes, index, max_rounds=2)
    assert repairer.ruled_out(equal, types)
    repaired = repairer.repair(
        [year, equal], ["res:Alien", "ont:director", "ont:releaseYear"], "Was Alien released in 1979?"
    )
    assert repaired.tokens == _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v = 1979) }")
    assert repaired.answer.boolean is True
    named = _tokens("ASK WHERE { res:Alien ont:director ?v FILTER(?v = res:Ridley_Scott) }")
    assert not repairer.ruled_out(named, token_types(named, prefixes))  # equal to a thing: no measure needed


def test_an_ask_written_backwards_is_turned_by_the_kbs_use_of_the_property(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    backwards = _tokens("ASK WHERE { res:Ridley_Scott ont:director res:Alien }")
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [backwards], question="Did Scott direct Alien?"
    )

    assert repaired.answer is not None and repaired.answer.boolean is True
    assert repaired.tokens == _tokens("ASK WHERE { res:Alien ont:director res:Ridley_Scott }")
    # a false ASK whose subject does use the property stays as it is, and false
    other = _tokens("ASK WHERE { res:Blade_Runner ont:director res:South_Shields }")
    kept = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [other], question="Did South Shields direct it?"
    )
    assert kept.tokens == other and kept.answer is not None and kept.answer.boolean is False


def test_the_order_a_superlative_asks_for_is_set_before_the_query_runs(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "the oldest film" orders release years (dates) from the lowest; "the newest" from the highest."""
    latest_first = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    oldest = repairer.repair([latest_first], question="What is the oldest film?")
    assert oldest.answer is not None and oldest.answer.rows == (("http://repair.test/resource/Alien",),)
    assert "order turned to asc ('oldest')" in oldest.rounds[0].attempts[0].source
    newest = repairer.repair([latest_first], question="What is the newest film?")
    assert newest.tokens == latest_first and newest.rounds[0].attempts[0].source == "hypothesis 1"


def test_a_superlative_ordered_by_values_that_are_no_measure_gives_way(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "the oldest film" cannot be ordered by its director (an IRI): the release-year hypothesis wins."""
    by_director = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    by_year = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [by_director, by_year], question="the oldest film"
    )

    assert repaired.tokens == by_year
    assert repaired.rounds[0].attempts[0].detail == "a superlative ordered by values that are no measure"
    repairer = Repairer(kb, prefixes, index)
    by_subject = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Person . ?v ont:director ?x } ORDER BY ASC(?v) LIMIT 1"
    )
    assert repairer.orders_by_no_measure(by_subject, "the oldest director")  # subjects are IRIs
    assert not repairer.orders_by_no_measure(by_year, "the oldest film")


def test_an_order_by_values_that_are_no_measure_is_rewritten_to_a_measured_property_of_the_units(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """Alone, the order by director is rewritten at the ordered pattern: the release year of the units."""
    by_director = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    repaired = Repairer(kb, prefixes, index).repair(
        [by_director], units=["ont:Film", "ont:releaseYear"], question="the oldest film"
    )
    assert "ont:releaseYear" in repaired.tokens and "ont:director" not in repaired.tokens
    assert repaired.answered_in == 2


def test_a_rewrite_that_orders_by_values_that_are_no_measure_is_rewritten_next(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """Films have no birth date; the rewrite to director answers, ordered by people: the next round
    rewrites that ordered pattern rather than giving up on it."""
    by_birth = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:birthDate ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    repaired = Repairer(kb, prefixes, index, max_rounds=3).repair(
        [by_birth], units=["ont:director"], question="the oldest film"
    )
    assert repaired.rounds[1].attempts[0].outcome == "wrong kind of answer"
    assert repaired.rounds[2].target == "hypothesis 1: ont:birthDate -> ont:director"
    assert repaired.rounds[2].notes[-1].startswith("pattern 2 (?x ont:director ?v)")


def test_a_class_written_as_the_object_of_a_property_is_tried_as_a_type(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director ont:Film . ?x ont:releaseYear ?v }")
    repaired = Repairer(kb, prefixes, index).repair([hypothesis], ["ont:Film", "ont:releaseYear"])

    assert repaired.answered_in == 2
    assert repaired.tokens == _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear ?v }")


def test_an_answer_is_typed_by_the_class_the_question_asks_for(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Which films ...": the director's advert is no film; a question that names no class keeps all."""
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    units = ["ont:Film", "ont:director", "res:Ridley_Scott"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    films = repairer.repair([hypothesis], units, question="Which films did Ridley Scott direct?")
    assert films.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott }"
    )
    assert films.answer is not None and len(films.answer.rows) == 2
    anything = repairer.repair([hypothesis], units, question="What did Ridley Scott direct?")
    assert anything.tokens == hypothesis and anything.answer is not None and len(anything.answer.rows) == 3
    modified = repairer.repair([hypothesis], units, question="List the famous films of Ridley Scott")
    assert modified.tokens == films.tokens  # one word before the class's name


def test_a_superlative_is_typed_by_the_class_it_ranks(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "What's the newest film?": the newest thing with a release year is a newsreel."""
    newest = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v } ORDER BY DESC(?v) LIMIT 1")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    film = repairer.repair([newest], ["ont:Film", "ont:releaseYear"], question="What's the newest film?")
    assert film.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    assert film.answer is not None and film.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    anything = repairer.repair([newest], ["ont:Film", "ont:releaseYear"], question="What came out last?")
    assert anything.tokens == newest


def test_an_answer_with_nothing_of_the_class_asked_for_gives_way_to_the_next_hypothesis(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    place = _tokens("SELECT DISTINCT ?x WHERE { res:Ridley_Scott ont:birthPlace ?x }")
    directed = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    units = ["ont:Film", "ont:director", "ont:birthPlace", "res:Ridley_Scott"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    # the question names both properties ("born", "direct"), so neither goes first by its words
    question = "Which films did Ridley Scott, born in England, direct?"
    films = repairer.repair([place, directed], units, question=question)
    outcomes = [a.outcome for a in films.rounds[0].attempts]
    assert outcomes[0] == WRONG_KIND and ANSWERED in outcomes[1:]
    assert films.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott }"
    )
    # with no other hypothesis, the first answer stands
    assert repairer.repair([place], units, question=question).tokens == place


def test_a_rewrite_that_answers_with_nothing_of_the_class_asked_for_is_passed_over(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """The swap comes first (Ridley Scott's birth place), but a place is no film: the next rewrite wins."""
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthPlace res:Ridley_Scott }")
    units = ["ont:Film", "ont:director", "res:Ridley_Scott"]

    repaired = Repairer(kb, prefixes, index).repair(
        [hypothesis], units, question="Which films did Ridley Scott direct?"
    )

    assert repaired.answered_in == 2
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott }"
    )
    assert any(
        a.detail == "none of its answers is of the class asked for" for a in repaired.rounds[1].attempts
    )


def test_an_answer_of_another_class_is_taken_one_hop_further_to_the_class_asked_for(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Which town ...": Alien's director is no town; his birth place, one hop further, is."""
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    units = ["ont:Town", "res:Alien", "ont:birthPlace"]  # the director unlinked: no reading of the question

    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [hypothesis], units, question="Which town was the director of Alien born in?"
    )

    # "born" says birth place: the hop further is taken for it, then typed by the class asked for
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Town . res:Alien ont:director ?h . ?h ont:birthPlace ?x }"
    )
    assert repaired.answer is not None and repaired.answer.rows == (
        ("http://repair.test/resource/South_Shields",),
    )
    # said by no word of the question, birth place is taken only to reach the class asked for
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [hypothesis], units, question="Which town is the home of the director of Alien?"
    )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Alien ont:director ?h . ?h ont:birthPlace ?x . ?x a ont:Town }"
    )


def test_a_filter_on_nothing_the_query_binds_is_removed_when_the_question_compares_nothing(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "How many films are there?" decoded with `filter ( ?v )`: that filter empties the answer and
    the question asks for no condition; "after 1980" asks for one, so the filter stays to be blamed."""
    lone = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Film . FILTER(?v) }")
    unbound = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Film . FILTER(?v > 1980) }")
    bound = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Film . ?x ont:releaseYear ?v . FILTER(?v > 1980) }"
    )
    films = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Film }")
    assert idle_filters(bound, token_types(bound, prefixes)) == []
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    for hypothesis in (lone, unbound):
        repaired = repairer.repair([hypothesis], question="How many films are there?")
        assert repaired.tokens == films and repaired.answered_in == 1
        assert repaired.answer is not None and repaired.answer.rows == (("2",),)
    asked = repairer.repair([unbound], question="How many films came out after 1980?")
    assert asked.tokens == unbound and asked.answered_in is None


def test_an_answer_typed_by_another_class_is_taken_one_hop_further_to_the_class_asked_for(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """The query types its answer itself, by a class the question does not ask for (a person for
    "Which town ..."): typed by both, it answers nothing; one hop further reaches a town."""
    hypothesis = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Person . res:Alien ont:director ?x }")
    units = ["ont:Town", "res:Alien", "ont:birthPlace"]  # the director unlinked: no reading of the question

    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [hypothesis], units, question="Which town is the home of the director of Alien?"
    )

    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?h a ont:Person . res:Alien ont:director ?h . ?h ont:birthPlace ?x ."
        " ?x a ont:Town }"
    )
    assert repaired.answer is not None and repaired.answer.rows == (
        ("http://repair.test/resource/South_Shields",),
    )
    person = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [hypothesis], [*units, "ont:Person"], question="Which person directed Alien?"
    )
    assert person.tokens == hypothesis  # typed by the class asked for already


def test_a_hypothesis_with_the_property_the_question_names_goes_first(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    year = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:releaseYear ?x }")
    director = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    assert repairer.repair([year, director], question="What is the director of Alien?").tokens == director
    assert repairer.repair([year, director], question="What about Alien?").tokens == year
    # a verb names the property too: the index knows "directed" as a form of "director"
    assert "directed" in index.names("ont:director")
    assert (
        repairer.repair([year, director], question="What about the man who directed Alien?").tokens
        == director
    )


def test_a_hypothesis_that_keeps_an_entity_the_question_names_goes_first(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Alien" is named whole: the hypothesis that keeps it goes before one that says more words without it."""
    every = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director ?y . ?y ont:birthPlace ?x }")
    alien = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    units = ["res:Alien", "ont:director", "ont:birthPlace"]
    question = "who directed alien and where was he born"
    assert repairer.repair([every, alien], units=units, question=question).rounds[0].attempts[0].source == (
        "hypothesis 2"
    )
    # without the entity among the units, the model's order stands
    first = repairer.repair([every, alien], units=["ont:director"], question=question).rounds[0].attempts[0]
    assert first.source == "hypothesis 1"


def test_a_hypothesis_that_says_more_of_the_question_goes_first(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """Two hops that name both properties the question says go before one hop that names one of them;
    but not before a hypothesis that keeps an entity the longer one drops, nor for an unsaid element."""
    one_hop = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    two_hops = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?y ont:birthPlace ?x }")
    dated = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?y ont:birthDate ?x }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    question = "What is the birth place of the director of Alien?"
    assert repairer.repair([one_hop, two_hops], question=question).tokens == two_hops
    # "birth date" is not said: the model's order stands
    assert repairer.repair([one_hop, dated], question=question).tokens == one_hop
    # the longer hypothesis says no more of the question's words than the entity it loses
    typed = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Ridley_Scott }")
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film }")
    assert repairer.repair([typed, films], question="Which films did Ridley Scott direct?").tokens == typed


RIVERS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Elbe ont:flowsThrough res:Germany, res:Czechia, res:Dresden .
res:Germany a ont:Country . res:Czechia a ont:Country .
res:Dresden ont:country res:Germany .
"""


def test_of_two_hypotheses_that_say_the_same_words_the_one_with_fewer_patterns_goes_first(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many countries does the Elbe cross?" says "countries" once: for the class (the countries
    it flows through) or for a chain through the property country (the countries of the places it
    flows through, only Germany). Both say the same words; the one that reads no more into them goes
    first, whatever the model's order; so does one that leaves the class out, since repair types its
    answer by the class asked for."""
    entries = [
        Entry("res:Elbe", "entity", ("Elbe",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:country", "property", ("country",)),
        Entry("ont:flowsThrough", "property", ("flows through",)),
    ]
    chain = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { res:Elbe ont:flowsThrough ?y . ?y ont:country ?x }"
    )
    typed = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { ?x a ont:Country . res:Elbe ont:flowsThrough ?x }"
    )
    units = ["ont:Country", "ont:country", "res:Elbe", "ont:flowsThrough"]
    with _repairer_on(tmp_path, prefixes, RIVERS_TTL, entries, max_rounds=1) as repairer:
        repaired = repairer.repair([chain, typed], units, "How many countries does the Elbe flow through?")
        assert repaired.tokens == typed and repaired.answer.number() == 2
        cities = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { res:Elbe ont:flowsThrough ?x }")
        said = repairer.repair([chain, cities], units, "How many countries does the Elbe flow through?")
        # "countries" names the class asked for, which repair types any answer by: the one pattern goes
        # first and counts the countries
        assert said.rounds[0].attempts[0].source == "hypothesis 2" and said.answer.number() == 2


def test_a_property_the_question_says_and_the_query_leaves_out_takes_the_answer_one_hop_further(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    director = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    units = ["res:Alien", "ont:director", "ont:birthPlace"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    born = repairer.repair([director], units, question="Where was the director of Alien born?")
    assert born.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Alien ont:director ?h . ?h ont:birthPlace ?x }"
    )
    # the question does not say birth place: a candidate of the linker is no reason to go further
    assert repairer.repair([director], units, question="Who directed Alien?").tokens == director
    # an ASK or a COUNT is not taken further
    count = _tokens("SELECT ( COUNT ( ?x ) AS ?n ) WHERE { res:Alien ont:director ?x }")
    said = repairer.repair([count], units, question="How many directors born somewhere did Alien have?")
    assert said.tokens == count
    # a measure the question compares by is no hop: "release year after 1980" filters the films
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    question = "Ridley Scott films with a release year after 1980"
    after = repairer.repair(
        [films], ["res:Ridley_Scott", "ont:director", "ont:releaseYear", "1980"], question
    )
    assert after.answer.rows == (("http://repair.test/resource/Blade_Runner",),)


def test_a_measure_of_the_things_asked_for_is_not_the_answer_the_things_are(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Which films were released after 1980?" decoded as the films' release years: the films are the
    answer, and the comparison is then made of them."""
    years = _tokens("SELECT DISTINCT ?x WHERE { ?h a ont:Film . ?h ont:releaseYear ?x }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    swapped = repairer.measured_thing_asked(years, "ont:Film")
    assert swapped is not None and swapped[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:releaseYear ?h }"
    )
    assert repairer.measured_thing_asked(years, "ont:Town") is None  # not the things asked for
    units = ["ont:Film", "ont:releaseYear", "1980"]
    after = repairer.repair([years], units, "Which films were released after 1980?")
    assert after.answer.rows == (("http://repair.test/resource/Blade_Runner",),)


def test_an_empty_chain_is_tried_with_its_two_properties_the_other_way_round_after_every_hypothesis(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """Birth place first, director second matches nothing; the other way round is a place, as asked."""
    date_first = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:birthDate ?y . ?y ont:director ?x }")
    place_first = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:birthPlace ?y . ?y ont:director ?x }")
    units = ["res:Alien", "ont:director", "ont:birthDate", "ont:birthPlace"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    question = "Where was the director of Alien born?"

    repaired = repairer.repair([date_first, place_first], units, question=question)

    right = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?y . ?y ont:birthPlace ?x }")
    assert repaired.answered_in == 1 and repaired.tokens == right
    outcomes = [(a.source, a.outcome) for a in repaired.rounds[0].attempts]
    assert outcomes[:2] == [("hypothesis 1", EMPTY), ("hypothesis 2", EMPTY)]  # the model's own go first
    assert ("hypothesis 1: the chain's two properties the other way round", WRONG_KIND) in outcomes  # a date
    assert outcomes[-1] == ("hypothesis 2: the chain's two properties the other way round", ANSWERED)
    # read from its other end: the answer at the chain's start, Alien at its end
    backwards = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthPlace ?y . ?y ont:director res:Alien }")
    repaired = repairer.repair([backwards], units, question=question)
    assert repaired.rounds[0].attempts[-1].source == "hypothesis 1: the chain read from its other end"
    assert repaired.answer is not None and repaired.answer.rows == (
        ("http://repair.test/resource/South_Shields",),
    )
    # the selected variable joins no chain: `?x P ?y . ?y Q E` is only read through ?y
    assert (
        repairer._chain_swaps(_tokens("SELECT ?y WHERE { res:Alien ont:director ?y . ?y ont:birthPlace ?x }"))
        == []
    )


def test_an_empty_chain_is_tried_with_one_of_its_patterns_turned(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "When did Ridley Scott's films come out?" decoded with the director's pattern backwards: neither
    property exchanged nor the chain read from its other end answers; the first pattern turned does."""
    backwards = _tokens(
        "SELECT DISTINCT ?x WHERE { res:Ridley_Scott ont:director ?y . ?y ont:releaseYear ?x }"
    )
    units = ["res:Ridley_Scott", "ont:director", "ont:releaseYear"]
    repaired = Repairer(kb, prefixes, index, max_rounds=1).repair(
        [backwards], units, "When did Ridley Scott's films come out?"
    )
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?y ont:director res:Ridley_Scott . ?y ont:releaseYear ?x }"
    )
    assert repaired.rounds[0].attempts[-1].source == "hypothesis 1: the chain with its first pattern turned"
    assert sorted(repaired.answer.rows) == [("1979",), ("1982",)]


def test_repair_gives_up_after_five_rounds_and_says_why(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    broken = ["select", "distinct", "?x", "where", "{", "res:Alien", "ont:director"]
    empty = [_tokens(f"SELECT ?x WHERE {{ ?x ont:releaseYear {year} }}") for year in range(1900, 1906)]
    repaired = Repairer(kb, prefixes, index).repair([broken, *empty])

    assert repaired.answered_in is None and len(repaired.rounds) == MAX_ROUNDS
    assert repaired.gave_up == f"no answer within {MAX_ROUNDS} round(s)"
    assert repaired.tokens == broken  # the model's best query is kept, with the reason it has no answer
    assert repaired.answer is not None and str(repaired.answer.error).startswith("parse error: ")
    outcomes = [a.outcome for a in repaired.rounds[0].attempts]
    assert outcomes == [PARSE_ERROR] + [EMPTY] * 6
    assert repaired.rounds[0].attempts[0].detail  # the parser's message
    for rnd, year in zip(repaired.rounds[1:], range(1900, 1904)):
        assert rnd.target == f"hypothesis {year - 1898}"
        assert rnd.notes and "checked by ASK" in rnd.notes[-1]
    assert rounds_histogram([repaired]) == {"1": 0, "2": 0, "3": 0, "4": 0, "5": 0, "gave up": 1}


def test_a_refused_query_is_never_sent_to_the_kb(kb: Recording, index: KBIndex, prefixes: PrefixMap) -> None:
    service = _tokens("SELECT ?x WHERE { SERVICE <http://10.0.0.5/sparql> { ?x ont:director ?y } }")
    good = _tokens("SELECT ?x WHERE { res:Alien ont:releaseYear ?x }")
    repaired = Repairer(kb, prefixes, index).repair([service, good])

    first = repaired.rounds[0].attempts
    assert [a.outcome for a in first] == [REFUSED, ANSWERED] and "10.0.0.5" in first[0].detail
    assert repaired.tokens == good and repaired.answered_in == 1
    assert kb.sent and not any("10.0.0.5" in q for q in kb.sent)
    with pytest.raises(UnsafeQueryError):  # the KB itself refuses it too: repair adds no way around the check
        kb.query(first[0].sparql)


def test_execution_guided_is_the_first_round_of_repair() -> None:
    assert repair_rounds({"execution_guided": True}) == 1
    assert repair_rounds({"repair": True}) == MAX_ROUNDS
    assert repair_rounds({"repair": True, "repair_rounds": 3, "execution_guided": True}) == 3
    assert repair_rounds({}) == 0
    with pytest.raises(ValueError, match="repair_rounds"):
        repair_rounds({"repair": True, "repair_rounds": 9})


def test_the_report_shows_the_empty_answer_rate_and_the_rounds(tmp_path: Path) -> None:
    empty = Answer(kind="select", variables=("x",), rows=())
    some = Answer(kind="select", variables=("x",), rows=(("a",),))
    records = [
        PredictionRecord("1", ["a"], ["a"], "generic", some, some),
        PredictionRecord("2", ["a"], ["b"], "generic", some, empty),
        PredictionRecord("3", ["a"], ["b"], "generic", some, Answer.failed("timeout")),
        PredictionRecord("4", ["a"], ["b"], "generic", some, None),
    ]
    metrics = evaluate_predictions(records)
    assert metrics["empty_answer"] == pytest.approx(100 / 3)
    repairs = [Repaired([], some, [], 1), Repaired([], some, [], 3), Repaired([], None, [], None, "why")]
    metrics["repair"] = {"rounds": 5, "answered_in": rounds_histogram(repairs)}
    report = write_report(tmp_path, metrics, None, "t")["markdown"].read_text(encoding="utf-8")
    assert "| empty answers (%) | 33.3 |" in report
    assert "| round 1 | 1 |" in report and "| round 3 | 1 |" in report and "| gave up | 1 |" in report


def test_a_number_the_question_compares_with_that_a_pattern_takes_as_its_value_becomes_a_filter(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Was Alien released before 1980?" decoded as `res:Alien ont:releaseYear 1980` asks whether it came
    out in 1980: false, for the wrong reason. The question's word compares: the value is compared."""
    exact = _tokens("ASK WHERE { res:Alien ont:releaseYear 1980 }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair(
        [exact], ["res:Alien", "ont:releaseYear", "1980"], "Was Alien released before 1980?"
    )

    assert repaired.tokens == _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v < 1980) }")
    assert repaired.answer is not None and repaired.answer.boolean is True
    assert repairer.value_compared(exact, "Was Alien released after 1980?") == (
        _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v > 1980) }"),
        "the value 1980 made a comparison ('after')",
    )
    # no comparing word, a number the question does not say, or a query that compares already
    assert repairer.value_compared(exact, "Was Alien released in 1980?") is None
    assert repairer.value_compared(exact, "Was Alien released before 1990?") is None
    compared = _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v < 1980) }")
    assert repairer.value_compared(compared, "Was Alien released before 1980?") is None
    # a bound said to include its number: the comparison includes it ("in 1980 or later")
    inclusive = repairer.value_compared(exact, "Was Alien released in 1980 or later?")
    assert inclusive is not None
    assert inclusive[0] == _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v >= 1980) }")


def test_a_value_compared_but_read_by_no_measure_is_read_by_the_one_measure_the_word_compares(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Did Alien come out before 1980?" decoded as `res:Alien a ?v . FILTER(?v < 1980)` compares a class
    with a year: always false. The entity's one measure that "before" compares (its release year) reads
    the value instead, as a year where the values are dates ("born before 1940": a birth date)."""
    typed = _tokens("ASK WHERE { res:Alien a ?v . FILTER(?v < 1980) }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair([typed], ["res:Alien", "1980"], "Did Alien come out before 1980?")

    assert repaired.tokens == _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v < 1980) }")
    assert repaired.answer is not None and repaired.answer.boolean is True
    placed = _tokens("ASK WHERE { res:Ridley_Scott ont:birthPlace ?v . FILTER(?v < 1940) }")
    dated = repairer.measure_of_compared(placed, "Was Ridley Scott born before 1940?")
    assert dated is not None
    assert dated[0] == _tokens("ASK WHERE { res:Ridley_Scott ont:birthDate ?v . FILTER(year(?v) < 1940) }")
    # a measure read already, or a question that compares nothing
    measured = _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v < 1980) }")
    assert repairer.measure_of_compared(measured, "Did Alien come out before 1980?") is None
    assert repairer.measure_of_compared(typed, "Is Alien a film of 1980?") is None


def test_a_count_of_a_measures_values_asks_for_the_values_and_a_count_of_years_for_nothing(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many protons has uranium?" decoded as a count of the atomic number's values counts 1: the
    number itself is what "how many" asks for. A year answers no "how many" ("How many people
    discovered uranium?" decoded over its discovery year): that count is the wrong kind, and the next
    hypothesis answers. A count of entities stays a count."""
    (tmp_path / "kb.ttl").write_text(
        ELEMENTS_TTL + "res:Uranium ont:discoverer res:Klaproth .\n", encoding="utf-8"
    )
    counted = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { res:Uranium ont:atomicNumber ?x }")
    years = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { res:Uranium ont:discoveryYear ?x }")
    people = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { res:Uranium ont:discoverer ?x }")
    with EmbeddedStore([tmp_path / "kb.ttl"], prefixes=prefixes, timeout_s=10) as store:
        repairer = Repairer(Recording(store), prefixes, None, max_rounds=1)
        assert repairer.measure_not_counted(counted) == (
            _tokens("SELECT DISTINCT ?x WHERE { res:Uranium ont:atomicNumber ?x }"),
            "a count of a measure's values asks for the values",
        )
        assert repairer.measure_not_counted(people) is None
        assert repairer.measure_not_counted(years) is None
        without_where = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?count) { res:Uranium ont:atomicNumber ?x }")
        assert repairer.measure_not_counted(without_where) == repairer.measure_not_counted(counted)
        asked = repairer.repair([counted], question="How many protons has uranium?")
        assert asked.answer is not None and asked.answer.rows == (("92",),)
        founders = repairer.repair([years, people], question="How many people discovered uranium?")
        assert founders.tokens == people
        assert "counts the values of a measure" in founders.rounds[0].attempts[0].detail


BANDS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Queen a ont:Band ; ont:hometown res:London .
res:Freddie a ont:Person ; ont:birthPlace res:London .
res:A_Night_at_the_Opera a ont:Album ; ont:artist res:Queen .
res:Mr_Bad_Guy a ont:Album ; ont:artist res:Freddie .
"""


def test_an_answer_taken_one_hop_further_passes_through_the_class_the_question_names(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "albums by bands from London" decoded as `?x ont:birthPlace res:London`: one hop further by
    artist reaches the albums of people born there. The question names what is between (bands): that
    hop is typed by it, so it is empty, and the property that binds the answer is rewritten instead."""
    entries = [
        Entry("res:London", "entity", ("London",)),
        Entry("ont:Band", "class", ("band",)),
        Entry("ont:Album", "class", ("album",)),
        Entry("ont:Person", "class", ("person",)),
        Entry("ont:hometown", "property", ("hometown",)),
        Entry("ont:birthPlace", "property", ("birth place",)),
        Entry("ont:artist", "property", ("artist",)),
    ]
    born = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthPlace res:London }")
    units = ["ont:Album", "ont:Band", "res:London", "ont:artist", "ont:birthPlace", "ont:hometown"]
    with _repairer_on(tmp_path, prefixes, BANDS_TTL, entries) as repairer:
        repaired = repairer.repair([born], units, "albums by bands from London")
        assert repaired.answer is not None and repaired.answer.rows == (
            ("http://repair.test/resource/A_Night_at_the_Opera",),
        )
        assert "ont:hometown" in repaired.tokens and "ont:Band" in repaired.tokens
        # a question that names no class between: the first hop that answers stands
        anyone = repairer.repair([born], units, "albums by artists from London")
        assert anyone.answer is not None and anyone.answer.rows == (
            ("http://repair.test/resource/Mr_Bad_Guy",),
        )


WAILERS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:The_Wailers a ont:Band ; ont:bandMember res:Bob_Marley ; ont:genre res:Reggae ; ont:hometown res:Kingston .
res:Bob_Marley a ont:Person .
"""


def test_an_answer_that_is_the_thing_talked_of_goes_one_hop_further(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "What kind of music did Bob Marley's band play?" decoded as his band: the question names the band
    after a possessive and asks on, so the answer goes one hop further by the property of the units the
    query leaves out (genre). Not when the query reads it by more than one fact, nor when the band is what it asks for ("Which band ...", "What is Bob
    Marley's band?", "the band of Bob Marley", "Show me the band ...")."""
    entries = [
        Entry("res:Bob_Marley", "entity", ("Bob Marley",)),
        Entry("ont:Band", "class", ("band",)),
        Entry("ont:bandMember", "property", ("band member",)),
        Entry("ont:genre", "property", ("genre",)),
    ]
    facts = [("res:The_Wailers", "a", "ont:Band"), ("res:Bob_Marley", "a", "ont:Person")]
    band = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:bandMember res:Bob_Marley }")
    units = ["res:Bob_Marley", "ont:bandMember", "ont:genre", "ont:Band"]
    with _repairer_on(tmp_path, prefixes, WAILERS_TTL, entries, facts=facts) as repairer:
        music = repairer.repair([band], units, "What kind of music did Bob Marley's band play?")
        assert music.answer is not None and music.answer.rows == (("http://repair.test/resource/Reggae",),)
        chain = _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:bandMember res:Bob_Marley . ?x ont:hometown res:Kingston }"
        )
        reached = repairer.repair([chain], units, "What kind of music did Bob Marley's band play?")
        assert reached.tokens == chain  # read by two facts: the query's own reading stands
        for question in (
            "Which band did Bob Marley play in?",
            "What is Bob Marley's band?",
            "What is the band of Bob Marley?",
            "Show me the band Bob Marley played in",
        ):
            asked = repairer.repair([band], units, question)
            assert asked.answer is not None and asked.answer.rows == (
                ("http://repair.test/resource/The_Wailers",),
            )


EXODUS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Exodus a ont:Album ; ont:artist res:The_Wailers .
res:Catch_a_Fire a ont:Album ; ont:artist res:Bob_Marley .
res:The_Wailers a ont:Band ; ont:bandMember res:Bob_Marley ; ont:hometown res:Kingston ; ont:formationYear 1963 .
res:Bob_Marley a ont:Person ; ont:birthDate "1945-02-06"^^<http://www.w3.org/2001/XMLSchema#date> ;
    ont:birthPlace res:Nine_Mile .
res:Kingston a ont:City .
res:Nine_Mile a ont:City .
"""


def test_the_thing_talked_of_asked_where_or_when_goes_by_its_one_place_or_date(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "where is the band that recorded exodus from" answered by the band, the question saying no
    property: the one place the KB gives the band (its hometown); "the band behind exodus, when did
    they form" by its one date. Not for a person, whose one date in the KB is not the only one a person
    has ("the man who made catch a fire, when did he die"), nor for things the question does not talk of
    after "the"."""
    entries = [
        Entry("res:Exodus", "entity", ("Exodus",)),
        Entry("res:Catch_a_Fire", "entity", ("Catch a Fire",)),
        Entry("ont:Band", "class", ("band",)),
        Entry("ont:Person", "class", ("person", "man")),
        Entry("ont:City", "class", ("city",)),
        Entry("ont:artist", "property", ("artist",)),
    ]
    facts = [
        ("res:The_Wailers", "a", "ont:Band"),
        ("res:Bob_Marley", "a", "ont:Person"),
        ("res:Kingston", "a", "ont:City"),
        ("res:Nine_Mile", "a", "ont:City"),
    ]
    band = _tokens("SELECT DISTINCT ?x WHERE { res:Exodus ont:artist ?x }")
    units = ["res:Exodus", "ont:artist"]
    with _repairer_on(tmp_path, prefixes, EXODUS_TTL, entries, facts=facts) as repairer:
        assert repairer.placing_properties("res:The_Wailers") == ["ont:hometown"]
        where = repairer.repair([band], units, "where is the band that recorded exodus from")
        assert where.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Exodus ont:artist ?h . ?h ont:hometown ?x }"
        )
        assert where.answer.rows == (("http://repair.test/resource/Kingston",),)
        when = repairer.repair([band], units, "the band behind exodus, when did they form")
        assert when.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Exodus ont:artist ?h . ?h ont:formationYear ?x }"
        )
        assert when.answer.rows == (("1963",),)
        assert repairer.repair([band], units, "exodus, when did they form").tokens == band
        person = _tokens("SELECT DISTINCT ?x WHERE { res:Catch_a_Fire ont:artist ?x }")
        died = repairer.repair(
            [person], ["res:Catch_a_Fire", "ont:artist"], "the man who made catch a fire, when did he die"
        )
        assert died.tokens == person


def test_a_value_nothing_else_reads_is_what_the_question_asks_for(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Where was Alien's director born?" decoded as the director with some birth place: the birth
    place, which the question says and nothing else in the query reads, is the answer."""
    director = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x . ?x ont:birthPlace ?v }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair(
        [director], ["res:Alien", "ont:director", "ont:birthPlace"], "Where was Alien's director born?"
    )

    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?v WHERE { res:Alien ont:director ?x . ?x ont:birthPlace ?v }"
    )
    assert repaired.answer is not None and repaired.answer.rows == (
        ("http://repair.test/resource/South_Shields",),
    )
    # a value something reads (an order, a filter, another pattern), or a question that asks for a class
    ordered = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v } ORDER BY ?v LIMIT 1")
    read = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director ?y . ?y ont:birthPlace ?v . ?v a ont:Town }")
    said = Said("Where was the director of this film born?", index)
    assert repairer.dangling_value_asked(ordered, said) is None
    assert repairer.dangling_value_asked(read, said) is None
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott . ?x ont:releaseYear ?v }")
    kept = repairer.repair([films], ["ont:Film", "res:Ridley_Scott"], "Which films did Ridley Scott direct?")
    assert kept.tokens[:3] == ["select", "distinct", "?x"]


def test_an_entity_named_by_a_name_within_its_label_or_its_misspelling_restricts_the_answer(
    kb: Recording, index: KBIndex, prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "What did Scot release?" names Ridley Scott by his surname, misspelt: a query that leaves him out
    is restricted to him, as for his whole name; a word that names a class names no entity in part."""
    released = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v }")
    units = ["res:Ridley_Scott", "ont:releaseYear"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    for question in ("What did Scott release?", "what did scot release"):
        restricted = repairer.named_left_out(released, question, units)
        assert restricted is not None, question
        assert restricted[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . ?x ont:director res:Ridley_Scott }"
        )
    assert Said("What did Scot release?", index).part_words("res:Ridley_Scott") == {"scot"}
    assert Said("What did Ridley Scott release?", index).part_words("res:South_Shields") == frozenset()
    with KBIndex.build(
        tmp_path / "index.sqlite",
        [Entry("res:Film_Studio", "entity", ("Film Studio",)), Entry("ont:Film", "class", ("film",))],
    ) as studios:
        assert Said("Which films were made?", studios).part_words("res:Film_Studio") == frozenset()
        assert Said("Who owns the studio?", studios).part_words("res:Film_Studio") == {"studio"}


def test_a_value_compared_with_an_entity_is_compared_with_the_entitys_value(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "What came out after Alien?" decoded as `filter ( ?v > res:Alien )`: an IRI is no number, so the
    filter compares the release year with Alien's."""
    later = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . FILTER(?v > res:Alien) }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair([later], ["ont:releaseYear", "res:Alien"], "What came out after Alien?")

    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . res:Alien ont:releaseYear ?_than . FILTER(?v > ?_than) }"
    )
    assert {row[0].rsplit("/", 1)[1] for row in repaired.answer.rows} == {"Blade_Runner", "Pathe_Newsreel"}
    # a comparison of two variables, or with a number, is left as it is
    numbers = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . FILTER(?v > 1980) }")
    assert repairer.entity_compared(numbers) is None
    # a value that is no number or date compares with nothing: the property is wrong, not the filter
    places = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthPlace ?v . FILTER(?v > res:Alien) }")
    assert repairer.entity_compared(places) is None


def test_an_ask_that_reads_a_value_and_tests_nothing_compares_it_as_the_question_does(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Was Blade Runner released after Alien?" decoded as `ask { res:Blade_Runner ont:releaseYear ?v }`
    is true of any film with a release year: the value is compared with Alien's, or with the number."""
    year = _tokens("ASK WHERE { res:Blade_Runner ont:releaseYear ?v }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    units = ["res:Blade_Runner", "ont:releaseYear", "res:Alien"]

    after = repairer.repair([year], units, "Was Blade Runner released after Alien?")
    before = repairer.repair([year], units, "Was Blade Runner released before Alien?")

    assert after.tokens == _tokens(
        "ASK WHERE { res:Blade_Runner ont:releaseYear ?v . res:Alien ont:releaseYear ?_than . FILTER(?v > ?_than) }"
    )
    assert after.answer.boolean is True and before.answer.boolean is False
    number = repairer.ask_compared(year, "Was Blade Runner out before 1980?", [*units[:2], "1980"])
    assert number is not None and number[0] == _tokens(
        "ASK WHERE { res:Blade_Runner ont:releaseYear ?v . FILTER(?v < 1980) }"
    )
    # a bound said to include its number ("1982 or later"): the comparison includes it
    inclusive = repairer.ask_compared(year, "Was Blade Runner out in 1982 or later?", [*units[:2], "1982"])
    assert inclusive is not None and inclusive[0] == _tokens(
        "ASK WHERE { res:Blade_Runner ont:releaseYear ?v . FILTER(?v >= 1982) }"
    )
    # a question that compares nothing, or a query that tests its value already
    assert repairer.ask_compared(year, "Was Blade Runner released?", units) is None
    tested = _tokens("ASK WHERE { res:Blade_Runner ont:releaseYear ?v . FILTER(?v < 1980) }")
    assert repairer.ask_compared(tested, "Was Blade Runner out before 1980?", [*units[:2], "1980"]) is None


def test_a_count_that_leaves_out_the_comparison_asked_for_is_filtered(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    counted = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { ?x ont:director res:Ridley_Scott }")
    units = ["res:Ridley_Scott", "ont:director", "ont:releaseYear", "1980"]
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair([counted], units, "How many films did Ridley Scott direct after 1980?")

    assert repaired.tokens == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { ?x ont:director res:Ridley_Scott ."
        " ?x ont:releaseYear ?v . FILTER(?v > 1980) }"
    )
    assert repaired.answer.rows[0][0] in (1, "1")


def test_a_class_the_question_names_and_the_query_leaves_out_types_a_variable_between(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "What was directed by a person?" decoded as anything with a director: the director, which the
    query leaves untyped, is typed by the class the question names."""
    directed = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director ?v }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    units = ["ont:director", "ont:Person"]

    typed = repairer.class_left_out(directed, "What was directed by a person?", units)

    assert typed is not None and typed[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:director ?v . ?v a ont:Person }"
    )
    assert {row[0].rsplit("/", 1)[1] for row in typed[1].rows} == {"Alien", "Blade_Runner", "Hovis_Advert"}
    # the class asked for is the answer's, not the one between; a class the question does not name
    assert repairer.class_left_out(directed, "Which persons directed something?", units) is None
    assert repairer.class_left_out(directed, "What was directed by someone?", units) is None


def test_an_ask_that_fails_holds_by_a_property_the_question_says_alike(
    kb: Recording, prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Was Alien made by Ridley Scott?": when two properties of the units are said by the same words,
    a "no" by one of them is no answer while the other holds; a "no" by both stands."""
    entries = [
        Entry("res:Alien", "entity", ("Alien",)),
        Entry("res:Ridley_Scott", "entity", ("Ridley Scott",)),
        Entry("res:South_Shields", "entity", ("South Shields",)),
        Entry("ont:director", "property", ("director", "made by")),
        Entry("ont:birthPlace", "property", ("birth place", "made by")),
        Entry("ont:releaseYear", "property", ("release year",)),
    ]
    with KBIndex.build(tmp_path / "index.sqlite", entries) as alike:
        repairer = Repairer(kb, prefixes, alike, max_rounds=1)
        units = ["res:Alien", "ont:birthPlace", "ont:director", "ont:releaseYear", "res:Ridley_Scott"]
        wrong = _tokens("ASK WHERE { res:Alien ont:birthPlace res:Ridley_Scott }")

        repaired = repairer.repair([wrong], units, "Was Alien made by Ridley Scott?")

        assert repaired.tokens == _tokens("ASK WHERE { res:Alien ont:director res:Ridley_Scott }")
        assert repaired.answer.boolean is True
        said = Said("Was Alien made by Ridley Scott?", alike)
        assert [change for _, change in repairer.said_alike(wrong, said, units)] == [
            "ont:birthPlace -> ont:director, said alike"
        ]
        nowhere = _tokens("ASK WHERE { res:Alien ont:birthPlace res:South_Shields }")
        stands = repairer.repair([nowhere], units, "Was Alien made by South Shields?")
        assert stands.answer.boolean is False


def test_a_yes_no_question_whose_only_reading_the_kb_allows_is_false_answers_no(
    kb: Recording, prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Was the Pathe Newsreel made by Ridley Scott?": the model's ASK reads the release year, whose values
    cannot be a person, and its SELECT answers a year. The ASK by the property the question says alike is
    false and the KB's values allow it: "no" is the answer, not the year."""
    entries = [
        Entry("res:Pathe_Newsreel", "entity", ("Pathe Newsreel",)),
        Entry("res:Ridley_Scott", "entity", ("Ridley Scott",)),
        Entry("ont:director", "property", ("director", "made by")),
        Entry("ont:releaseYear", "property", ("release year", "made")),
    ]
    with KBIndex.build(tmp_path / "index.sqlite", entries) as alike:
        repairer = Repairer(kb, prefixes, alike, max_rounds=1)
        units = ["res:Pathe_Newsreel", "ont:releaseYear", "ont:director", "res:Ridley_Scott"]
        ruled_out = _tokens("ASK WHERE { res:Pathe_Newsreel ont:releaseYear res:Ridley_Scott }")
        year = _tokens("SELECT DISTINCT ?x WHERE { res:Pathe_Newsreel ont:releaseYear ?x }")

        repaired = repairer.repair([ruled_out, year], units, "Was the Pathe Newsreel made by Ridley Scott?")

        assert repaired.tokens == _tokens("ASK WHERE { res:Pathe_Newsreel ont:director res:Ridley_Scott }")
        assert repaired.answer.boolean is False
        asked_what = repairer.repair([ruled_out, year], units, "When was the Pathe Newsreel made?")
        assert asked_what.tokens == year


def test_a_property_replaced_in_one_of_two_like_patterns_is_replaced_in_both(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "countries where french and german are both official" decoded as `?x ont:country res:French . ?x
    ont:country res:German`: the two patterns say one thing of two languages, so the official language
    replaces the country in both at once (one at a time, each half-rewritten query is empty)."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Switzerland a ont:Country ; ont:officialLanguage res:French, res:German .
res:France a ont:Country ; ont:officialLanguage res:French .
res:Austria a ont:Country ; ont:officialLanguage res:German .
res:Paris ont:country res:France .
"""
    entries = [
        Entry("res:French", "entity", ("French",)),
        Entry("res:German", "entity", ("German",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:country", "property", ("country",)),
        Entry("ont:officialLanguage", "property", ("official language",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=2) as repairer:
        wrong = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:country res:French . ?x ont:country res:German }")
        units = ["ont:country", "res:French", "res:German", "ont:officialLanguage", "ont:Country"]

        repaired = repairer.repair([wrong], units, "countries where french and german are both official")

        assert repaired.answer.rows == (("http://repair.test/resource/Switzerland",),)
        assert " ".join(repaired.tokens).count("ont:officialLanguage") == 2


def test_a_count_the_question_does_not_ask_for_answers_with_what_it_counts(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "How would you name the man who directed Alien?" decoded as a count of Alien's directors: "how"
    and an auxiliary ask for no count, so the answer is the directors the query counts."""
    counted = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { res:Alien ont:director ?x }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair(
        [counted], ["res:Alien", "ont:director"], "How would you name the man who directed Alien?"
    )

    assert repaired.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    assert repaired.answer.rows == (("http://repair.test/resource/Ridley_Scott",),)
    asked = repairer.repair([counted], ["res:Alien", "ont:director"], "How many directors did Alien have?")
    assert asked.tokens == counted


def test_two_patterns_that_meet_at_a_variable_both_end_in_are_read_as_a_chain(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Where was the man who directed Alien born?" decoded as `?x ont:birthPlace ?y . res:Alien
    ont:director ?y`: two patterns that end in ?y join nothing; turned, the first makes the chain from
    Alien to its director's birth place. Both turned is a reading too (`?y ont:birthPlace ?x . ?y
    ont:director res:Alien`)."""
    wrong = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthPlace ?y . res:Alien ont:director ?y }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair(
        [wrong], ["res:Alien", "ont:director", "ont:birthPlace"], "Where was the man who directed Alien born?"
    )

    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?y ont:birthPlace ?x . res:Alien ont:director ?y }"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/South_Shields",),)
    both = _tokens("SELECT DISTINCT ?x WHERE { ?y ont:birthPlace ?x . ?y ont:director res:Alien }")
    assert both in [new for new, _ in repairer._chain_swaps(wrong)]


def test_an_ask_that_leaves_out_an_entity_the_question_names_joins_it(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Is Tosca an opera by Verdi?" decoded as whether Tosca is an opera: yes, but the question asks it
    of Verdi too. No fact links Tosca to Verdi, so he is joined by the property that links Tosca to
    composers: "no". Aida and Verdi are linked by a fact: "yes". "did verdi compose tosca" decoded as
    whether Verdi composed anything asks it of Tosca, in the place of the variable nothing else reads;
    not where the variable's place holds no things of Tosca's kind (a year)."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Tosca a ont:MusicalWork ; ont:genre res:Opera ; ont:composer res:Giacomo_Puccini ; ont:premiereYear 1900 .
res:Aida a ont:MusicalWork ; ont:genre res:Opera ; ont:composer res:Giuseppe_Verdi .
res:Giacomo_Puccini a ont:Composer .
res:Giuseppe_Verdi a ont:Composer .
"""
    entries = [
        Entry("res:Tosca", "entity", ("Tosca",)),
        Entry("res:Aida", "entity", ("Aida",)),
        Entry("res:Opera", "entity", ("opera",)),
        Entry("res:Giuseppe_Verdi", "entity", ("Giuseppe Verdi",)),
        Entry("res:Giacomo_Puccini", "entity", ("Giacomo Puccini",)),
        Entry("ont:genre", "property", ("genre",)),
        Entry("ont:composer", "property", ("composer",)),
    ]
    facts = [
        ("res:Tosca", "ont:genre", "res:Opera"),
        ("res:Tosca", "ont:composer", "res:Giacomo_Puccini"),
        ("res:Aida", "ont:genre", "res:Opera"),
        ("res:Aida", "ont:composer", "res:Giuseppe_Verdi"),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=1, facts=facts) as repairer:
        units = ["res:Tosca", "res:Aida", "ont:genre", "res:Opera", "res:Giuseppe_Verdi"]
        tosca = repairer.repair(
            [_tokens("ASK WHERE { res:Tosca ont:genre res:Opera }")], units, "Is Tosca an opera by Verdi?"
        )
        assert tosca.tokens == _tokens(
            "ASK WHERE { res:Tosca ont:genre res:Opera . res:Tosca ont:composer res:Giuseppe_Verdi }"
        )
        assert tosca.answer.boolean is False
        aida = repairer.repair(
            [_tokens("ASK WHERE { res:Aida ont:genre res:Opera }")], units, "Is Aida an opera by Verdi?"
        )
        assert aida.answer.boolean is True and "res:Giuseppe_Verdi" in aida.tokens
        alone = repairer.repair(
            [_tokens("ASK WHERE { res:Tosca ont:genre res:Opera }")], units, "Is Tosca an opera?"
        )
        assert alone.tokens == _tokens("ASK WHERE { res:Tosca ont:genre res:Opera }")
        anything = _tokens("ASK WHERE { ?x ont:composer res:Giuseppe_Verdi }")
        said = repairer.repair([anything], units, "did verdi compose tosca")
        assert said.tokens == _tokens("ASK WHERE { res:Tosca ont:composer res:Giuseppe_Verdi }")
        assert said.answer.boolean is False
        assert repairer.index is not None
        read = repairer.named_left_out_of_ask(
            anything, Said("did verdi compose tosca", repairer.index), units
        )
        assert read is not None and read[0] == said.tokens
        year = _tokens("ASK WHERE { res:Aida ont:premiereYear ?y }")
        read = repairer.named_left_out_of_ask(
            year, Said("did aida premiere before tosca", repairer.index), units
        )
        assert read is None or "?y" in read[0]


def test_with_no_answer_of_the_kind_asked_for_an_answer_of_the_form_asked_for_is_kept(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Which town is Alien based on?" with no hypothesis of the class asked for: a list (of the wrong
    class) is nearer the question than a yes/no answer, whatever their order."""
    ask = _tokens("ASK WHERE { res:Alien ont:director res:Ridley_Scott }")
    directors = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x }")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)

    repaired = repairer.repair(
        [ask, directors], ["res:Alien", "ont:director", "ont:Town"], "Which town made Alien?"
    )

    assert repaired.tokens == directors


def test_a_ranking_that_leaves_out_a_property_the_question_says_ranks_the_answers_that_have_it(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Of the releases based on something, which is the newest?" decoded as the newest release: the
    ranking keeps the answers that have the property the question says by its name."""
    newest = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v } ORDER BY DESC(?v) LIMIT 1")
    repairer = Repairer(kb, prefixes, index, max_rounds=1)
    units = ["ont:releaseYear", "ont:basedOn"]

    repaired = repairer.repair([newest], units, "Of the releases based on something, which is the newest?")

    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v . ?x ont:basedOn ?_w } ORDER BY DESC(?v) LIMIT 1"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/Blade_Runner",),)
    # a question that does not say it, or a query that is no ranking
    assert repairer.class_left_out(newest, "Which is the newest release?", units) is None
    released = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:releaseYear ?v }")
    assert repairer.class_left_out(released, "Which releases are based on something?", units) is None


def test_a_comparison_of_values_that_are_no_measure_is_blamed_on_their_pattern(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Was Alien released before 1980?" decoded as `res:Alien ont:director ?v . filter ( ?v < 1980 )`:
    a director compared with a year holds of nothing, so its "no" says nothing; the compared pattern is
    rewritten to a measured property, never to another one that is no measure."""
    director = _tokens("ASK WHERE { res:Alien ont:director ?v . FILTER(?v < 1980) }")
    types = token_types(director, prefixes)
    repairer = Repairer(kb, prefixes, index, max_rounds=3)

    assert repairer.compared_unmeasured(director, types) == 0 and repairer.ruled_out(director, types)
    repaired = repairer.repair(
        [director], ["res:Alien", "ont:director", "ont:releaseYear"], "Was Alien released before 1980?"
    )

    assert repaired.tokens == _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v < 1980) }")
    assert repaired.answer.boolean is True
    year = _tokens("ASK WHERE { res:Alien ont:releaseYear ?v . FILTER(?v < 1980) }")
    assert repairer.compared_unmeasured(year, token_types(year, prefixes)) is None


def test_a_ranking_by_another_measure_than_the_unit_the_question_names_takes_the_units(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which country has the most people?" ranked by area: people counted are a population, the
    measure whose label says so; "square kilometres" is an area. A question with no unit keeps its
    measure, and a ranking by the unit's own measure stays."""
    (tmp_path / "kb.ttl").write_text(
        """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:India a ont:Country ; ont:area 3287263 ; ont:population 1428000000 .
res:Russia a ont:Country ; ont:area 17098246 ; ont:population 146000000 .
res:Canada a ont:Country ; ont:area 9984670 ; ont:population 40000000 .
""",
        encoding="utf-8",
    )
    entries = [
        Entry("res:Canada", "entity", ("Canada",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:area", "property", ("area",)),
        Entry("ont:population", "property", ("population",)),
    ]
    facts = [("res:India", "ont:area", MEASURED), ("res:India", "ont:population", MEASURED)]
    by_area = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:area ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    by_people = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:population ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    larger = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:population ?v . FILTER(?v > 5000000) }"
    )
    with (
        EmbeddedStore([tmp_path / "kb.ttl"], prefixes=prefixes, timeout_s=10) as store,
        KBIndex.build(tmp_path / "index.sqlite", entries, facts=facts) as index,
    ):
        repairer = Repairer(Recording(store), prefixes, index, max_rounds=1)
        assert repairer.measure_of_unit(by_area, "Which country has the most people?") == (
            by_people,
            "ont:area -> ont:population (the question's unit measures population)",
        )
        most = repairer.repair([by_area], ["ont:Country", "ont:area"], "Which country has the most people?")
        assert most.answer is not None and most.answer.rows == (("http://repair.test/resource/India",),)
        assert repairer.measure_of_unit(by_people, "Which country has the most people?") is None
        assert repairer.measure_of_unit(by_area, "Which country is the largest?") is None
        than = _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:area ?v . res:India ont:area ?w . FILTER(?v > ?w) }"
        )
        more = repairer.measure_of_unit(than, "Which countries have more people than India?")
        assert more is not None and more[0] == [t.replace("ont:area", "ont:population") for t in than]
        squared = repairer.measure_of_unit(larger, "countries larger than 5 million square kilometres")
        assert squared is not None and "ont:area" in squared[0] and "ont:population" not in squared[0]
        # a measure read as the answer, counted or not ("How big is Canada in square kilometres?")
        people = _tokens("SELECT DISTINCT ?x WHERE { res:Canada ont:population ?x }")
        big = repairer.repair([people], ["res:Canada"], "How big is Canada in square kilometres?")
        assert big.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:Canada ont:area ?x }")
        assert big.answer.rows == (("9984670",),)
        counted = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { res:Canada ont:population ?x }")
        assert repairer.measure_of_unit(counted, "How many square kilometres is Canada?") == (
            [t.replace("ont:population", "ont:area") for t in counted],
            "ont:population -> ont:area (the question's unit measures area)",
        )
        assert repairer.measure_of_unit(people, "How many people live in Canada?") is None
        every = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Country }")  # the comparison left out
        units = ["ont:Country", "ont:area", "res:Canada"]
        compared = repairer.repair([every], units, "countries with more people than Canada")
        assert "ont:population" in compared.tokens and "ont:area" not in compared.tokens
        assert {row[0].rsplit("/", 1)[1] for row in compared.answer.rows} == {"India", "Russia"}


PLACES_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Oxford a ont:City .
res:University_of_Oxford a ont:University ; ont:city res:Oxford ; ont:foundingYear 1096 .
res:Oxford_Brookes_University a ont:University ; ont:city res:Oxford ; ont:foundingYear 1865 .
res:Edwin_Hubble a ont:Person ; ont:almaMater res:University_of_Oxford .
res:Bolero a ont:MusicalWork ; ont:composer res:Maurice_Ravel .
res:Maurice_Ravel a ont:Person .
res:War_and_Peace a ont:Novel ; ont:author res:Leo_Tolstoy .
"""
PLACES = [
    Entry("res:Oxford", "entity", ("Oxford",)),
    Entry("res:University_of_Oxford", "entity", ("University of Oxford",)),
    Entry("res:Oxford_Brookes_University", "entity", ("Oxford Brookes University",)),
    Entry("res:Edwin_Hubble", "entity", ("Edwin Hubble",)),
    Entry("res:Bolero", "entity", ("Bolero",)),
    Entry("res:Maurice_Ravel", "entity", ("Maurice Ravel",)),
    Entry("ont:University", "class", ("university",)),
    Entry("ont:almaMater", "property", ("alma mater",)),
    Entry("ont:author", "property", ("author", "written by")),
    Entry("ont:composer", "property", ("composer",)),
    Entry("ont:foundingYear", "property", ("founding year", "founded")),
]


@pytest.fixture
def places(tmp_path: Path, prefixes: PrefixMap) -> Iterator[Repairer]:
    """A repairer over a KB of towns and their universities, whose index knows the KB's facts."""
    path = tmp_path / "places.ttl"
    path.write_text(PLACES_TTL, encoding="utf-8")
    facts = [
        ("res:University_of_Oxford", "ont:city", "res:Oxford"),
        ("res:Oxford_Brookes_University", "ont:city", "res:Oxford"),
        ("res:Edwin_Hubble", "ont:almaMater", "res:University_of_Oxford"),
        ("res:Bolero", "ont:composer", "res:Maurice_Ravel"),
    ]
    with (
        EmbeddedStore([path], prefixes=prefixes, timeout_s=10) as store,
        KBIndex.build(tmp_path / "places.sqlite", PLACES, facts=facts) as index,
    ):
        yield Repairer(store, prefixes, index, max_rounds=1)


def test_an_ask_no_by_an_entity_that_cannot_take_its_place_holds_by_the_one_named_like_it(
    places: Repairer,
) -> None:
    """ "Did Edwin Hubble study at Oxford?": nobody studied at the city; the university named by the
    same word can take that place, and the question's words pick one of two."""
    city = _tokens("ASK WHERE { res:Edwin_Hubble ont:almaMater res:Oxford }")
    units = ["res:Edwin_Hubble", "ont:almaMater", "res:Oxford"]

    repaired = places.repair([city], units, "Did Edwin Hubble study at Oxford?")

    assert repaired.tokens == _tokens("ASK WHERE { res:Edwin_Hubble ont:almaMater res:University_of_Oxford }")
    assert repaired.answer.boolean is True
    backwards = _tokens("ASK WHERE { res:Oxford ont:almaMater res:Edwin_Hubble }")  # neither end fits
    turned = places.repair([backwards], units, "Did Edwin Hubble study at Oxford?")
    assert turned.tokens == repaired.tokens and turned.answer.boolean is True
    # the question names the other one, which nobody in the KB attended: the "no" stands
    brookes = places.repair([city], units, "Did Edwin Hubble study at Oxford Brookes?")
    assert brookes.tokens == city and brookes.answer.boolean is False
    # an entity that can take its place stands, "no" and all
    university = _tokens("ASK WHERE { res:Maurice_Ravel ont:almaMater res:University_of_Oxford }")
    assert places.entity_alike(university, Said("Did Ravel study at Oxford?", places.index)) == []


def test_an_ask_no_by_a_property_neither_end_takes_part_in_holds_by_the_one_linking_them(
    places: Repairer,
) -> None:
    """ "Was Bolero written by Ravel?" decoded with the author: the piece has none and Ravel wrote no
    book, so "no" says nothing; the KB links the two by the composer."""
    author = _tokens("ASK WHERE { res:Bolero ont:author res:Maurice_Ravel }")

    repaired = places.repair(
        [author], ["res:Bolero", "ont:author", "res:Maurice_Ravel"], "Was Bolero written by Ravel?"
    )

    assert repaired.tokens == _tokens("ASK WHERE { res:Bolero ont:composer res:Maurice_Ravel }")
    assert repaired.answer.boolean is True
    # written the other way round, the property could hold: nothing to link otherwise
    turned = _tokens("ASK WHERE { res:Maurice_Ravel ont:composer res:Bolero }")
    assert places.linked_otherwise(turned) == []


MOONS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Saturn a ont:Planet . res:Mars a ont:Planet . res:Venus a ont:Planet .
res:Mimas a ont:Moon ; ont:orbits res:Saturn ; ont:discoverer res:William_Herschel ; ont:discoveryYear 1789 .
res:William_Herschel ont:birthDate "1738-11-15"^^<http://www.w3.org/2001/XMLSchema#date> .
res:Phobos a ont:Moon ; ont:orbits res:Mars .
"""
MOON_ENTRIES = [
    Entry("res:Saturn", "entity", ("Saturn",)),
    Entry("res:Mars", "entity", ("Mars",)),
    Entry("res:Mimas", "entity", ("Mimas",)),
    Entry("res:Phobos", "entity", ("Phobos",)),
    Entry("res:William_Herschel", "entity", ("William Herschel",)),
    Entry("ont:Moon", "class", ("moon",)),
    Entry("ont:Planet", "class", ("planet",)),
    Entry("ont:orbits", "property", ("orbits",)),
    Entry("ont:discoverer", "property", ("discoverer",)),
    Entry("ont:discoveryYear", "property", ("discovery year",)),
    Entry("ont:birthDate", "property", ("birth date", "born")),
]
MOON_FACTS = [
    ("res:Mimas", "ont:orbits", "res:Saturn"),
    ("res:Mimas", "ont:discoverer", "res:William_Herschel"),
    ("res:Phobos", "ont:orbits", "res:Mars"),
]


def test_an_ask_typing_one_named_by_the_class_of_the_other_asks_the_fact_between_them(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Is Mimas one of Saturn's moons?" decoded as whether Saturn is a moon: that "no" answers nothing;
    the fact that links the moon the question names to Saturn does. With no such fact the "no" stands."""
    units = ["res:Mimas", "res:Saturn", "ont:Moon", "ont:orbits"]
    with _repairer_on(tmp_path, prefixes, MOONS_TTL, MOON_ENTRIES, facts=MOON_FACTS) as moons:
        saturn = _tokens("ASK WHERE { res:Saturn a ont:Moon }")
        repaired = moons.repair([saturn], units, "Is Mimas one of Saturn's moons?")
        assert repaired.tokens == _tokens("ASK WHERE { res:Mimas ont:orbits res:Saturn }")
        assert repaired.answer.boolean is True
        other = ["res:Phobos", "res:Saturn", "ont:Moon", "ont:orbits"]
        question = "Is Phobos one of Saturn's moons?"
        assert moons.member_of_named(saturn, Said(question, moons.index), other) == []
        assert moons.repair([saturn], other, question).answer.boolean is False
        # the class typed is the named moon's own: what the query asks stands
        mimas = _tokens("ASK WHERE { res:Mimas a ont:Moon }")
        assert moons.member_of_named(mimas, Said("Is Mimas one of Saturn's moons?", moons.index), units) == []


def test_a_yes_no_question_about_two_named_asks_whether_the_kb_links_them(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Does Mimas orbit Saturn?" decoded without Saturn: the fact between the two answers "yes";
    "Does Phobos orbit Saturn?": no fact links them, so the property that links Phobos to planets asks
    it, "no". A hypothesis that asks of both is the model's own reading and stays. A statement with a
    question mark asks the same, a noun phrase does not."""
    units = ["res:Mimas", "res:Phobos", "res:Saturn", "ont:orbits"]
    with _repairer_on(tmp_path, prefixes, MOONS_TTL, MOON_ENTRIES, facts=MOON_FACTS) as moons:
        mimas = moons.repair(
            [_tokens("ASK WHERE { res:Mimas a ont:Moon }")], units, "Does Mimas orbit Saturn?"
        )
        assert mimas.tokens == _tokens("ASK WHERE { res:Mimas ont:orbits res:Saturn }")
        assert mimas.answer.boolean is True
        phobos = moons.repair(
            [_tokens("ASK WHERE { res:Phobos a ont:Moon }")], units, "Does Phobos orbit Saturn?"
        )
        assert phobos.tokens == _tokens("ASK WHERE { res:Phobos ont:orbits res:Saturn }")
        assert phobos.answer.boolean is False
        both = _tokens("ASK WHERE { res:Phobos ont:discoverer res:Saturn }")
        said = Said("Does Phobos orbit Saturn?", moons.index)
        assert moons.asked_of_the_two([both], said, units) is None
        # a chain the KB's shape rules out ("false for its form") is no reading of the two
        chain = _tokens("ASK WHERE { res:Saturn ont:orbits ?y . ?y ont:orbits res:Mimas }")
        assert moons.repair([chain], units, "Is Mimas one of Saturn's moons?").tokens == mimas.tokens
        # a statement asked as a question: yes or no, whatever the model decoded
        found = _tokens("SELECT DISTINCT ?x WHERE { res:Mimas ont:discoverer ?x }")
        stated = moons.repair([found], units, "mimas orbits saturn?")
        assert stated.tokens == mimas.tokens and stated.answer.boolean is True
        assert moons.repair([found], units, "phobos goes around saturn?").answer.boolean is False
        for phrase in (
            "saturn moons?",
            "mimas orbits saturn",
            "which moon orbits saturn, mimas?",
            "mimas orbits saturn, waht?",
        ):
            assert not moons.stated_of_two(phrase, Said(phrase, moons.index), units)


def test_things_the_question_names_by_a_propertys_name_are_its_values(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which capital cities does the Tigris flow through?": "capital cities" names the values of
    `ont:capital`, so the places the Tigris flows through are restricted to those; "Which places ..."
    names none."""
    through = _tokens("SELECT DISTINCT ?x WHERE { res:Tigris ont:flowsThrough ?x }")
    units = ["res:Tigris", "ont:flowsThrough", "ont:capital"]
    with _repairer_on(tmp_path, prefixes, CAPITALS_TTL, CAPITAL_ENTRIES) as capitals:
        question = "Which capital cities does the Tigris flow through?"
        capital = capitals.repair([through], units, question)
        assert capital.answer.rows == (("http://repair.test/resource/Baghdad",),)
        assert (
            len(capitals.repair([through], units, "Which places does the Tigris flow through?").answer.rows)
            == 3
        )


def test_a_date_asked_of_one_named_by_a_property_unsaid_is_the_date_of_the_other_it_acted_on(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "When did William Herschel find Mimas?" decoded as Herschel's birth date: what happened is his
    finding Mimas, so the date is the moon's; "When was William Herschel born?" says his own."""
    units = ["res:William_Herschel", "res:Mimas", "ont:birthDate", "ont:discoveryYear"]
    born = _tokens("SELECT DISTINCT ?x WHERE { res:William_Herschel ont:birthDate ?x }")
    with _repairer_on(tmp_path, prefixes, MOONS_TTL, MOON_ENTRIES, facts=MOON_FACTS) as moons:
        found = moons.repair([born], units, "When did William Herschel find Mimas?")
        assert found.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:Mimas ont:discoveryYear ?x }")
        assert found.answer.rows == (("1789",),)
        assert moons.repair([born], units, "When was William Herschel born, who found Mimas?").tokens == born
        found = _tokens("SELECT DISTINCT ?x WHERE { res:Mimas ont:discoveryYear ?x }")
        assert moons.repair([found], units, "When did William Herschel find Mimas?").tokens == found
        assert moons.repair([found], units, "Mimas, found by William Herschel, in what year?").tokens == found


def test_a_class_the_question_names_and_the_query_leaves_out_joins_the_answer_to_its_things(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many planets have at least one moon?" decoded as every planet: the moons the question names
    join the planets as the KB joins them (what orbits them), and two of the three have one."""
    every = _tokens("SELECT ( COUNT ( DISTINCT ?x ) AS ?c ) WHERE { ?x a ont:Planet }")
    units = ["ont:Planet", "ont:Moon", "ont:orbits"]
    with _repairer_on(tmp_path, prefixes, MOONS_TTL, MOON_ENTRIES, facts=MOON_FACTS) as moons:
        repaired = moons.repair([every], units, "How many planets have at least one moon?")
        assert repaired.answer.rows == (("2",),)
        assert moons.repair([every], units[:1], "How many planets are there?").answer.rows == (("3",),)


def test_when_nothing_answers_the_class_asked_for_is_joined_to_each_entity_named(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many of Saturn's moons did William Herschel find?" with no hypothesis that answers: the moons
    joined to Saturn and to Herschel as the KB joins moons to each."""
    wrong = _tokens("SELECT ( COUNT ( DISTINCT ?x ) AS ?c ) WHERE { ?y ont:orbits res:William_Herschel }")
    units = ["ont:Moon", "res:Saturn", "res:William_Herschel", "ont:discoverer", "ont:orbits"]
    facts = [*MOON_FACTS, ("res:Titan", "ont:orbits", "res:Saturn"), ("res:Mimas", "a", "ont:Moon")]
    facts.append(("res:Titan", "a", "ont:Moon"))
    ttl = MOONS_TTL + "res:Titan a ont:Moon ; ont:orbits res:Saturn .\n"
    with _repairer_on(tmp_path, prefixes, ttl, MOON_ENTRIES, max_rounds=1, facts=facts) as moons:
        repaired = moons.repair([wrong], units, "How many of Saturn's moons did William Herschel find?")
        assert repaired.tokens == _tokens(
            "SELECT ( COUNT ( DISTINCT ?x ) AS ?count ) WHERE"
            " { ?x a ont:Moon . ?x ont:orbits res:Saturn . ?x ont:discoverer res:William_Herschel }"
        )
        assert repaired.answer.rows == (("1",),)


def test_a_hop_by_a_verb_the_question_asks_with_goes_to_the_verbs_subject(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "What orbits the planet William Herschel discovered?": the planet, then what orbits it (Titania),
    not what it orbits (the Sun); "What does the planet William Herschel discovered orbit?" the other way."""
    ttl = MOONS_TTL + (
        "res:Uranus a ont:Planet ; ont:discoverer res:William_Herschel ; ont:orbits res:Sun .\n"
        "res:Titania a ont:Moon ; ont:orbits res:Uranus .\n"
    )
    planet = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Planet . ?x ont:discoverer res:William_Herschel }")
    units = ["ont:Planet", "ont:discoverer", "res:William_Herschel", "ont:orbits"]
    with _repairer_on(tmp_path, prefixes, ttl, MOON_ENTRIES, max_rounds=1) as moons:
        repaired = moons.repair([planet], units, "What orbits the planet William Herschel discovered?")
        assert repaired.answer.rows == (("http://repair.test/resource/Titania",),)
        other = moons.repair([planet], units, "What does the planet William Herschel discovered orbit?")
        assert other.answer.rows == (("http://repair.test/resource/Sun",),)


CAPITALS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Iraq a ont:Country ; ont:capital res:Baghdad .
res:Syria a ont:Country ; ont:capital res:Damascus .
res:Tigris a ont:River ; ont:flowsThrough res:Iraq , res:Baghdad , res:Syria .
res:Euphrates a ont:River ; ont:flowsThrough res:Iraq .
res:Queen_Victoria ont:spouse res:Prince_Albert ; ont:birthDate "1819-05-24" .
res:Prince_Albert ont:birthDate "1819-08-26" .
"""
CAPITAL_ENTRIES = [
    Entry("res:Iraq", "entity", ("Iraq",)),
    Entry("res:Baghdad", "entity", ("Baghdad",)),
    Entry("res:Tigris", "entity", ("Tigris",)),
    Entry("res:Euphrates", "entity", ("Euphrates",)),
    Entry("res:Queen_Victoria", "entity", ("Queen Victoria",)),
    Entry("res:Prince_Albert", "entity", ("Prince Albert",)),
    Entry("ont:River", "class", ("river",)),
    Entry("ont:capital", "property", ("capital", "capital city", "capital cities")),
    Entry("ont:flowsThrough", "property", ("flows through",)),
    Entry("ont:spouse", "property", ("spouse", "husband")),
    Entry("ont:birthDate", "property", ("birth date", "date of birth")),
]


def test_an_entity_read_where_the_question_reads_its_property_is_read_through_it(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which rivers flow through the capital of Iraq?" decoded as the rivers of Iraq: the question says
    the capital of Iraq, so Iraq's capital takes its place; "Queen Victoria's husband - date of birth"
    asks his, not hers. A question that says the property of nothing the query reads changes nothing."""
    with _repairer_on(tmp_path, prefixes, CAPITALS_TTL, CAPITAL_ENTRIES) as capitals:
        iraq = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:River . ?x ont:flowsThrough res:Iraq }")
        units = ["ont:River", "ont:flowsThrough", "ont:capital", "res:Iraq"]
        repaired = capitals.repair([iraq], units, "Which rivers flow through the capital of Iraq?")
        assert repaired.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:River . ?x ont:flowsThrough ?_o . res:Iraq ont:capital ?_o }"
        )
        assert repaired.answer.rows == (("http://repair.test/resource/Tigris",),)
        hers = _tokens("SELECT DISTINCT ?x WHERE { res:Queen_Victoria ont:birthDate ?x }")
        question = "Queen Victoria's husband - date of birth"
        his = capitals.repair([hers], ["res:Queen_Victoria", "ont:spouse", "ont:birthDate"], question)
        assert his.answer.rows == (("1819-08-26",),)
        said = Said("Which rivers flow through Iraq, and what is the capital?", capitals.index)
        assert capitals.possessed_read(iraq, said, units) is None


def test_an_entity_taken_as_a_measured_value_is_compared_by_its_own_value(places: Repairer) -> None:
    """ "Was Oxford Brookes founded after the University of Oxford?" decoded with one university as the
    other's founding year: the two founding years are compared, the one named after the comparing word
    on the right, whichever end the query put it at."""
    question = "Was Oxford Brookes University founded after the University of Oxford?"
    units = ["res:Oxford_Brookes_University", "ont:foundingYear", "res:University_of_Oxford"]
    backwards = _tokens(
        "ASK WHERE { res:University_of_Oxford ont:foundingYear res:Oxford_Brookes_University }"
    )

    repaired = places.repair([backwards], units, question)

    assert repaired.tokens == _tokens(
        "ASK WHERE { res:Oxford_Brookes_University ont:foundingYear ?v . "
        "res:University_of_Oxford ont:foundingYear ?_than . FILTER(?v > ?_than) }"
    )
    assert repaired.answer.boolean is True
    assert places.entity_as_value(backwards, "Was Oxford Brookes University founded?", units) is None


def test_a_period_the_question_names_filters_the_answers_by_their_years(places: Repairer) -> None:
    """ "Which universities were founded in the 11th century?": the answers kept are those whose
    founding year lies in 1000-1099."""
    universities = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:University }")
    units = ["ont:University", "ont:foundingYear"]

    repaired = places.repair([universities], units, "Which universities were founded in the 11th century?")

    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:University . ?x ont:foundingYear ?v . "
        "FILTER(?v >= 1000 && ?v < 1100) }"
    )
    assert [row[0].rsplit("/", 1)[1] for row in repaired.answer.rows] == ["University_of_Oxford"]
    unchanged = places.repair([universities], units, "Which universities were founded?")
    assert unchanged.tokens == universities


def test_a_property_is_rewritten_to_the_one_joining_the_entity_to_what_the_rest_of_the_query_says(
    kb: Recording, index: KBIndex, prefixes: PrefixMap
) -> None:
    """ "Who is the youngest of Alien's makers?" decoded as the film's birth date, ranked by its birth
    date: the film has none; what has a birth date and is joined to the film is its director."""
    born = _tokens(
        "SELECT DISTINCT ?x WHERE { res:Alien ont:birthDate ?x . ?x ont:birthDate ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    repairer = Repairer(kb, prefixes, index)

    repaired = repairer.repair(
        [born], ["res:Alien", "ont:birthDate"], "Who is the youngest of Alien's makers?"
    )

    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Alien ont:director ?x . ?x ont:birthDate ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    assert repaired.answer.rows[0][0].endswith("Ridley_Scott")
    assert repairer._joined_as_the_rest_says(born, (5, 6, 7)) == ["ont:director"]
    alone = _tokens("SELECT DISTINCT ?x WHERE { res:Alien ont:birthDate ?x }")  # nothing else says what ?x is
    assert repairer._joined_as_the_rest_says(alone, (5, 6, 7)) == []


NATIONS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Godard a ont:FilmDirector ; ont:nationality res:France .
res:Truffaut a ont:FilmDirector ; ont:nationality res:France .
res:Jacques_Brel a ont:FilmDirector ; ont:nationality res:Belgium .
res:France ont:officialLanguage res:French .
res:Belgium ont:officialLanguage res:French .
res:Sorbonne a ont:University ; ont:city res:Paris ; ont:foundingYear 1257 .
res:Leuven a ont:University ; ont:city res:Leuven_City ; ont:foundingYear 1425 .
res:Paris ont:country res:France .
res:Leuven_City ont:country res:Belgium .
res:Godard ont:almaMater res:Leuven .
res:Les_Miserables a ont:Novel ; ont:language res:French .
res:Oppenheimer a ont:Film ; ont:releaseYear 2023 .
res:Casablanca a ont:Film ; ont:releaseYear 1942 .
res:France a ont:Country ; ont:continent res:Europe ; ont:area 550000 .
res:Iceland a ont:Country ; ont:population 370000 ; ont:area 103000 .
res:Malta a ont:Country ; ont:population 500000 ; ont:area 316 .
res:Peru a ont:Country ; ont:continent res:South_America .
res:Ghana a ont:Country ; ont:continent res:Africa .
res:Francium a ont:ChemicalElement ; ont:namedAfter res:France ; ont:atomicNumber 87 .
res:Curium a ont:ChemicalElement ; ont:namedAfter res:Marie_Curie ; ont:atomicNumber 96 .
res:Oganesson a ont:ChemicalElement ; ont:atomicNumber 118 .
res:Pink_Floyd ont:bandMember res:Syd_Barrett, res:Roger_Waters .
res:Syd_Barrett ont:birthDate "1946-01-06"^^<http://www.w3.org/2001/XMLSchema#date> .
res:Roger_Waters ont:birthDate "1943-09-06"^^<http://www.w3.org/2001/XMLSchema#date> .
res:Alien ont:director res:Ridley_Scott ; ont:releaseYear 1979 .
res:Hovis_Advert ont:director res:Ridley_Scott .
res:Godard ont:occupation res:Critic .
res:Truffaut ont:occupation res:Critic ; ont:almaMater res:Sorbonne .
res:Polonium ont:discoverer res:Marie_Curie .
res:Nile ont:length 6650 .
res:Amazon_River ont:length 6400 .
res:Amazon ont:foundingYear 1994 .
"""
NATION_ENTRIES = [
    Entry("res:Nile", "entity", ("Nile",)),
    Entry("res:Amazon", "entity", ("Amazon",)),
    Entry("res:Amazon_River", "entity", ("Amazon River",)),
    Entry("ont:length", "property", ("length",)),
    Entry("res:South_America", "entity", ("South America",)),
    Entry("res:Iceland", "entity", ("Iceland",)),
    Entry("res:Malta", "entity", ("Malta",)),
    Entry("res:Syd_Barrett", "entity", ("Syd Barrett",)),
    Entry("res:Roger_Waters", "entity", ("Roger Waters",)),
    Entry("ont:Country", "class", ("country",)),
    Entry("ont:ChemicalElement", "class", ("chemical element", "element")),
    Entry("ont:namedAfter", "property", ("named after",)),
    Entry("ont:atomicNumber", "property", ("atomic number",)),
    Entry("ont:country", "property", ("country",)),
    Entry("ont:continent", "property", ("continent",)),
    Entry("ont:population", "property", ("population",)),
    Entry("ont:area", "property", ("area",)),
    Entry("res:France", "entity", ("France",)),
    Entry("res:French", "entity", ("French",)),
    Entry("res:Belgium", "entity", ("Belgium",)),
    Entry("res:Oppenheimer", "entity", ("Oppenheimer",)),
    Entry("res:Marie_Curie", "entity", ("Marie Curie",)),
    Entry("res:Polonium", "entity", ("Polonium",)),
    Entry("ont:notableWork", "property", ("notable work",)),
    Entry("res:Leuven", "entity", ("KU Leuven",)),
    Entry("res:Leuven_City", "entity", ("Leuven",)),
    Entry("res:Sorbonne", "entity", ("Sorbonne",)),
    Entry("res:Critic", "entity", ("critic",)),
    Entry("ont:almaMater", "property", ("alma mater",)),
    Entry("ont:occupation", "property", ("occupation",)),
    Entry("ont:FilmDirector", "class", ("film director",)),
    Entry("ont:University", "class", ("university",)),
    Entry("ont:Novel", "class", ("novel",)),
    Entry("ont:Language", "class", ("language",)),
    Entry("ont:Film", "class", ("film",)),
    Entry("ont:nationality", "property", ("nationality",)),
    Entry("ont:officialLanguage", "property", ("official language",)),
    Entry("ont:language", "property", ("language",)),
    Entry("ont:releaseYear", "property", ("release year",)),
]


@pytest.fixture
def nations(prefixes: PrefixMap, tmp_path: Path) -> Iterator[Repairer]:
    with _repairer_on(tmp_path, prefixes, NATIONS_TTL, NATION_ENTRIES, max_rounds=1) as repairer:
        yield repairer


def test_a_place_s_possessive_before_a_class_reads_the_place(prefixes: PrefixMap, tmp_path: Path) -> None:
    """ "belgium's oldest university" decoded with Belgium as a founding year: the possessive of a place
    (the index types Belgium a country) before the class is read as "in Belgium": a university in a city
    of Belgium. A possessive of no place ("marie curie's universities") is no place."""
    facts = [("res:Belgium", "a", "ont:Country"), ("res:Marie_Curie", "a", "ont:Person")]
    units = ["res:Belgium", "ont:University", "ont:foundingYear", "res:Marie_Curie"]
    with _repairer_on(tmp_path, prefixes, NATIONS_TTL, NATION_ENTRIES, max_rounds=1, facts=facts) as repairer:
        assert repairer.index is not None
        wrong = _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:University . ?x ont:foundingYear res:Belgium . "
            "?x ont:foundingYear ?v } ORDER BY ASC(?v) LIMIT 1"
        )
        question = "belgium's oldest university"
        read = repairer.place_adjective_read(wrong, question, units, Said(question, repairer.index))
        assert read is not None
        assert read[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:University . ?x ont:city ?_in . ?_in ont:country res:Belgium . "
            "?x ont:foundingYear ?v } ORDER BY ASC(?v) LIMIT 1"
        )
        person = _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:University . ?x ont:foundingYear res:Marie_Curie }"
        )
        question = "marie curie's universities"
        assert repairer.place_adjective_read(person, question, units, Said(question, repairer.index)) is None


def test_a_place_adjective_before_the_class_asked_for_reads_the_place(nations: Repairer) -> None:
    """ "french film directors" are directors of French nationality, not of a French-speaking country
    (Belgium's Brel); "Belgian universities", and universities "in Belgium", are in a city of Belgium,
    by the university's own facts (not by where an alumnus comes from)."""
    units = ["res:French", "res:France", "ont:officialLanguage", "ont:FilmDirector", "ont:nationality"]
    spoken = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:FilmDirector . ?x ont:nationality ?m . ?m ont:officialLanguage res:French }"
    )
    repaired = nations.repair([spoken], units, "french film directors")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:FilmDirector . ?x ont:nationality res:France }"
    )
    assert {row[0].rsplit("/", 1)[1] for row in repaired.answer.rows} == {"Godard", "Truffaut"}
    old = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:nationality res:Belgium . ?x ont:foundingYear ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    belgian = nations.place_adjective_read(
        old,
        "Which Belgian university is the oldest?",
        ["res:Belgium", "ont:University"],
        Said("Which Belgian university is the oldest?", nations.index),
    )
    assert belgian is not None and belgian[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:University . ?x ont:city ?_in . ?_in ont:country res:Belgium . ?x ont:foundingYear ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    question = "the oldest university in belgum"  # the place named after the class, misspelt
    after = nations.place_adjective_read(
        old, question, ["res:Belgium", "ont:University"], Said(question, nations.index)
    )
    assert after is not None and after[0] == belgian[0]


def test_a_place_adjective_of_a_language_or_another_class_is_left_as_it_is(nations: Repairer) -> None:
    """ "French-speaking", "written in French", a language that joins the class's members itself
    ("French novels"), and a class that is not the one asked for ("films by French directors") keep
    the query."""
    units = ["res:French", "res:France", "ont:FilmDirector", "ont:Novel", "ont:Film", "ont:officialLanguage"]
    speaking = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:FilmDirector . ?x ont:nationality ?m . ?m ont:officialLanguage res:French }"
    )
    novels = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Novel . ?x ont:language res:French }")
    films = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director ?d . ?d ont:nationality ?m . ?m ont:officialLanguage res:French }"
    )
    for tokens, question in [
        (speaking, "film directors from French-speaking countries"),
        (speaking, "film directors of countries where people speak in French"),
        (novels, "French novels"),
        (novels, "novels written in French"),
        (films, "films by french film directors"),
    ]:
        assert nations.place_adjective_read(tokens, question, units, Said(question, nations.index)) is None, (
            question
        )


def test_the_class_after_one_the_question_opens_with_is_the_one_asked_for(nations: Repairer) -> None:
    units = ["res:Russian", "ont:Language", "ont:Novel", "ont:FilmDirector", "ont:Film"]
    assert nations.asked_class("russian-language novels", units) == "ont:Novel"
    assert nations.asked_class("Which languages are spoken in France?", units) == "ont:Language"
    assert nations.asked_class("french film directors", units) == "ont:FilmDirector"  # the longest label
    assert nations.asked_class("Sorbonne-educated novels", units) == "ont:Novel"  # after two modifying words
    # the class after "what", not the possessor's ("film")
    assert nations.asked_class("mount teide's film uses what language", units) == "ont:Language"
    assert nations.asked_class("mount teide's film - what about it", units) is None
    assert (
        nations.asked_class("The Jurassic Park novel became a film - who wrote it?", units) is None
    )  # a topic
    later = "Truffaut studied at which present-day university?"  # the words after "which"
    assert nations.asked_class(later, [*units, "ont:University"]) == "ont:University"
    # the head of one class's name of two words: "range" for mountain range; "film" stays the film's
    assert (
        nations.asked_class("What range is Mont Blanc in?", [*units, "ont:MountainRange"])
        == "ont:MountainRange"
    )
    assert nations.asked_class("Which film did Truffaut make?", units) == "ont:Film"
    # a misspelt class noun English does not know names its class; a word English knows does not
    assert nations.asked_class("which langauges are spoken in France", units) == "ont:Language"
    assert nations.asked_class("which navel did Truffaut see", units) is None


def test_an_ask_whose_part_names_nothing_asks_it_of_the_entity_it_names(nations: Repairer) -> None:
    """ "Did the Oppenheimer movie come out before 2020?" decoded as `res:Oppenheimer a ont:Film . ?x
    ont:releaseYear ?v . FILTER(?v < 2020)`: true of Casablanca, false of Oppenheimer."""
    apart_ask = _tokens(
        "ASK WHERE { res:Oppenheimer a ont:Film . ?x ont:releaseYear ?v . FILTER(?v < 2020) }"
    )
    repaired = nations.repair(
        [apart_ask],
        ["res:Oppenheimer", "ont:Film", "ont:releaseYear", "2020"],
        "Did the Oppenheimer movie come out before 2020?",
    )
    assert repaired.tokens == _tokens(
        "ASK WHERE { res:Oppenheimer a ont:Film . res:Oppenheimer ont:releaseYear ?v . FILTER(?v < 2020) }"
    )
    assert repaired.answer.boolean is False
    joined = _tokens("ASK WHERE { res:Oppenheimer ont:releaseYear ?v . FILTER(?v < 2020) }")
    assert nations.ask_about_the_named(joined) is None
    two = _tokens(
        "ASK WHERE { res:Oppenheimer a ont:Film . res:Casablanca a ont:Film . ?x ont:releaseYear ?v }"
    )
    assert nations.ask_about_the_named(two) is None  # which of two entities: not for this rule to say


def test_a_class_as_the_value_of_a_property_the_question_says_is_a_value_of_that_class(
    nations: Repairer,
) -> None:
    """ "named after countries" as `?x ont:namedAfter ont:Country`: an element named after a country;
    "How many countries" as `?x ont:country ont:Country` says the property only by the class's word."""
    named = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ont:namedAfter ont:Country }")
    question = "How many elements are named after countries?"
    repaired = nations.repair([named], ["ont:ChemicalElement", "ont:namedAfter", "ont:Country"], question)
    assert repaired.tokens == _tokens(  # typed by the class "elements" names, the head of its label
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:namedAfter ?_c1 ."
        " ?_c1 a ont:Country }"
    )
    assert repaired.answer.rows == (("1",),)
    countries = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ont:country ont:Country }")
    said = Said("How many countries are there?", nations.index)
    assert nations.class_as_value_typed(countries, said) is None


def test_two_words_name_a_place_as_one_adjective(nations: Repairer) -> None:
    """ "South American" names South America (not South Africa): the countries on that continent."""
    said = Said("How many South American countries are there?", nations.index)
    assert said.place_words("res:South_America") == ["south american"]
    every = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ont:country res:South_America }")
    read = nations.place_adjective_read(
        every, said.text, ["res:South_America", "ont:Country", "ont:country"], said
    )
    assert read is not None and read[0] == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Country . ?x ont:continent res:South_America }"
    )


def test_what_a_unit_measures_and_the_direction_asked_both_hold(nations: Repairer) -> None:
    """ "the fewest people" decoded as the largest area: the population, and the fewest first."""
    largest = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:area ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    units = ["ont:Country", "ont:area", "ont:population"]
    repaired = nations.repair([largest], units, "Which country has the fewest people?")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:population ?v } ORDER BY ASC(?v) LIMIT 1"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/Iceland",),)


def test_a_superlative_with_no_class_is_ranked_by_the_one_measure_its_answers_have(
    nations: Repairer,
) -> None:
    """ "the eldest of the Pink Floyd members": no class, and a birth date the only measure every member
    has; countries with a population and an area, or answers not all measured, are not ranked."""
    members = _tokens("SELECT DISTINCT ?x WHERE { res:Pink_Floyd ont:bandMember ?x }")
    eldest = nations.repair(
        [members], ["res:Pink_Floyd", "ont:bandMember"], "Who's the eldest of the Pink Floyd members?"
    )
    assert eldest.answer.rows == (("http://repair.test/resource/Roger_Waters",),)
    assert "ont:birthDate" in eldest.tokens
    countries = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:population ?p }")
    biggest = nations.repair([countries], [], "which is the biggest of them?")
    assert "order" not in biggest.tokens
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Ridley_Scott }")
    newest = nations.repair([films], [], "Which is the newest of Ridley Scott's works?")
    assert "order" not in newest.tokens


def test_a_measure_put_in_by_repair_compares_with_the_entitys_value(nations: Repairer) -> None:
    """ "Which countries are bigger than Malta?" decoded as continents compared with Malta itself: the
    rewrite to the area compares with Malta's area."""
    compared = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:continent ?v . FILTER(?v > res:Malta) }"
    )
    units = ["ont:Country", "ont:continent", "ont:area", "res:Malta"]
    repairer = Repairer(nations.kb, nations.prefixes, nations.index, max_rounds=2)
    repaired = repairer.repair([compared], units, "Which countries are bigger than Malta?")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:area ?v . res:Malta ont:area ?_than . FILTER(?v > ?_than) }"
    )
    assert {row[0].rsplit("/", 1)[1] for row in repaired.answer.rows} == {"France", "Iceland"}


def test_an_entity_taken_as_a_value_is_compared_by_the_measure_the_question_says(nations: Repairer) -> None:
    """ "Which countries cover more area than Malta?" decoded with Malta as a population, the area read
    too: the comparison is by area, the measure the question says, not by the population it does not."""
    taken = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:population res:Malta . ?x ont:area ?v }"
    )
    units = ["ont:Country", "ont:population", "ont:area", "res:Malta"]
    compared = nations.entity_as_value(taken, "Which countries cover more area than Malta?", units)
    assert compared is not None and compared[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:area ?_value . res:Malta ont:area ?_than ."
        " ?x ont:area ?v . FILTER ( ?_value > ?_than ) }"
    )
    people = nations.entity_as_value(taken, "Which countries have more people than Malta?", units)
    assert people is not None and "ont:population" in people[0] and people[0].count("ont:area") == 1


PEAKS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Everest a ont:Mountain ; ont:elevation 8849 ; ont:country res:Nepal ; ont:mountainRange res:Himalayas .
res:Kangchenjunga a ont:Mountain ; ont:elevation 8586 ; ont:country res:India ; ont:mountainRange res:Himalayas .
res:Mont_Blanc a ont:Mountain ; ont:elevation 4806 ; ont:country res:France ; ont:mountainRange res:Alps .
res:Himalayas a ont:MountainRange .
res:Alps a ont:MountainRange .
res:Nile a ont:River ; ont:length 6650 .
"""
PEAK_ENTRIES = [
    Entry("ont:Mountain", "class", ("mountain",)),
    Entry("ont:MountainRange", "class", ("mountain range",)),
    Entry("ont:River", "class", ("river",)),
    Entry("ont:elevation", "property", ("elevation", "metres", "m", "higher")),
    Entry("ont:length", "property", ("length", "km", "longer")),
    Entry("ont:mountainRange", "property", ("mountain range",)),
    Entry("ont:country", "property", ("country",)),
    Entry("res:India", "entity", ("India",)),
]
PEAK_FACTS = [
    ("res:Everest", "a", "ont:Mountain"),
    ("res:Everest", "ont:elevation", MEASURED),
    ("res:Nile", "a", "ont:River"),
    ("res:Nile", "ont:length", MEASURED),
    ("res:Himalayas", "a", "ont:MountainRange"),
]


def test_a_non_measure_compared_with_a_number_becomes_the_measure_its_unit_names(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "number of peaks over 8000 m" decoded comparing mountain ranges with 8000: "m" after the number
    names one measure, elevation. A measure compared already, or no unit after the number, stays."""
    ranges = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ont:mountainRange ?v . FILTER(?v > 8000) }"
    )
    with _repairer_on(tmp_path, prefixes, PEAKS_TTL, PEAK_ENTRIES, facts=PEAK_FACTS) as repairer:
        high = repairer.compared_by_its_unit(ranges, "number of peaks over 8000 m")
        assert high is not None and high[0] == _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ont:elevation ?v . FILTER(?v > 8000) }"
        )
        assert repairer.compared_by_its_unit(ranges, "number of peaks over 8,000 metres") is not None
        assert repairer.compared_by_its_unit(ranges, "number of peaks over 8000") is None
        assert repairer.compared_by_its_unit(high[0], "number of peaks over 8000 m") is None


def test_a_class_whose_things_lack_the_said_measure_becomes_the_class_whose_things_have_it(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "india has how many peaks above 8000 metres" decoded with mountain ranges, which have no
    elevation: mountains, the one class of that name whose things have one. Not for a class the
    question names ("mountain ranges"), nor a measure it does not say."""
    ranges = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:MountainRange . ?x ont:elevation ?v ."
        " FILTER(?v > 8000) . ?x ont:country res:India }"
    )
    with _repairer_on(tmp_path, prefixes, PEAKS_TTL, PEAK_ENTRIES, facts=PEAK_FACTS) as repairer:
        question = "india has how many peaks above 8000 metres"
        peaks = repairer.typed_by_its_measure(ranges, Said(question, repairer.index))
        assert peaks is not None and peaks[0] == [
            t if t != "ont:MountainRange" else "ont:Mountain" for t in ranges
        ]
        question = "how many mountain ranges in india rise above 8000 metres"
        assert repairer.typed_by_its_measure(ranges, Said(question, repairer.index)) is None
        question = "india has how many peaks above 8000"
        assert repairer.typed_by_its_measure(ranges, Said(question, repairer.index)) is None
        repaired = repairer.repair(
            [ranges],
            ["res:India", "ont:MountainRange", "ont:elevation"],
            "india has how many peaks above 8000 metres",
        )
        assert repaired.answer.rows == (("1",),)


def test_a_choice_between_two_named_entities_ranks_the_two_by_the_measure_asked(nations: Repairer) -> None:
    """ "Who is older, Syd Barrett or Roger Waters?": the two by birth date, the earliest; the measure is
    the one both have when no unit names it. The choice may come first, before a question word, and
    there "and" and "vs" join the two too. No graded word, no choice."""
    units = ["res:Syd_Barrett", "res:Roger_Waters"]
    older = nations.repair(
        [_tokens("SELECT DISTINCT ?x WHERE { res:Syd_Barrett ont:birthDate ?x }")],
        units,
        "Who is older, Syd Barrett or Roger Waters?",
    )
    assert older.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:birthDate ?v . FILTER(?x = res:Syd_Barrett || ?x = res:Roger_Waters) } ORDER BY ASC(?v) LIMIT 1"
    )
    assert older.answer.rows == (("http://repair.test/resource/Roger_Waters",),)
    younger = nations.choice_between("who was born later, syd barett or roger waters", units)  # misspelt
    assert younger is not None and "desc" in younger.query
    the = nations.choice_between("Who is the oldest, the Syd Barrett or the Roger Waters?", units)
    assert the is not None and the.query == older.tokens  # articles before the names
    assert nations.choice_between("Who sang, Syd Barrett or Roger Waters?", units) is None
    surnames = nations.choice_between("who was born first, barrett or waters?", units)  # a name within each
    assert surnames is not None and surnames.query == older.tokens
    assert nations.choice_between("Who is older than Syd Barrett?", units) is None
    first = nations.choice_between("Syd Barrett or Roger Waters: who is older?", units)  # the choice first
    assert first is not None and first.query == older.tokens
    joined = nations.choice_between("between syd barrett and roger waters, which one was born first", units)
    assert joined is not None and joined.query == older.tokens
    versus = nations.choice_between("Barrett vs Waters - who was born later", units)
    assert versus is not None and "desc" in versus.query
    assert nations.choice_between("Syd Barrett and Roger Waters are older than whom?", units) is None


def test_a_choice_ranks_by_the_measure_a_unit_names_and_reads_its_graded_word_before_a_comma(
    nations: Repairer,
) -> None:
    """ "which country has more inhabitants, iceland or malta" with the area linked: people counted are
    a population, whatever the linker proposed. "who was born first, floyd's syd barrett or roger waters"
    reads its graded word before the comma: the words left before the choice end with an owner the
    index does not know, and "first" ranks only at the end."""
    units = ["ont:area", "res:Iceland", "res:Malta"]
    people = nations.choice_between("which country has more inhabitants, iceland or malta", units)
    assert people is not None and "ont:population" in people.query and "desc" in people.query
    area = nations.choice_between("which country is larger, iceland or malta", units)
    assert area is not None and "ont:area" in area.query
    people = ["res:Syd_Barrett", "res:Roger_Waters"]
    lead = nations.choice_between("who was born first, floyd's syd barrett or roger waters", people)
    assert lead is not None and "ont:birthDate" in lead.query and "asc" in lead.query


def test_a_choice_between_three_named_entities_of_one_kind_ranks_the_three(nations: Repairer) -> None:
    """ "Which is smallest: France, Iceland or Malta?": three countries by area, the choice last or first;
    a name before the choice of a kind other than the two chosen is no third choice."""
    units = ["res:France", "res:Iceland", "res:Malta", "ont:area"]
    smallest = nations.choice_between("Which is smallest: France, Iceland or Malta?", units)
    assert smallest is not None and smallest.query == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:area ?v . FILTER(?x = res:France || ?x = res:Iceland || ?x = res:Malta) }"
        " ORDER BY ASC(?v) LIMIT 1"
    )
    biggest = nations.repair([smallest.query], units, "France, Iceland or Malta - which one is the biggest?")
    assert biggest.answer.rows == (("http://repair.test/resource/France",),)
    people = ["res:Iceland", "res:Syd_Barrett", "res:Roger_Waters"]
    two = nations.choice_between("Who is older in Iceland, Syd Barrett or Roger Waters?", people)
    assert two is not None and "res:Iceland" not in two.query


def test_a_choice_may_follow_of_or_the_verb_that_opens_the_question(nations: Repairer) -> None:
    """ "Of France, Iceland and Malta, which is smallest": a choice after "of"; "Is Iceland or Malta the
    bigger one?" opens with a verb and asks for one of the two, not a yes or no; after a verb only "or"
    joins them ("Is Iceland and Malta's ..." chooses nothing)."""
    units = ["res:France", "res:Iceland", "res:Malta", "ont:area"]
    of = nations.choice_between("Of France, Iceland and Malta, which is smallest", units)
    assert of is not None and of.query == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:area ?v . FILTER(?x = res:France || ?x = res:Iceland || ?x = res:Malta) }"
        " ORDER BY ASC(?v) LIMIT 1"
    )
    fact = _tokens("ASK WHERE { res:Iceland ont:continent res:Malta }")
    bigger = nations.repair([fact], units, "Is Iceland or Malta the bigger one?")
    assert bigger.answer.rows == (("http://repair.test/resource/Iceland",),)
    assert nations.choice_between("Is Iceland and Malta the bigger one?", units) is None


def test_a_choice_may_be_a_bare_list_an_owned_name_or_end_with_and_after_of(nations: Repairer) -> None:
    """People list a choice without a joining word ("France, Iceland, Malta - which is smallest?"), after
    "out of", with "and" after "of" ("the biggest of france, iceland and malta"), and with an owner's
    possessive before a name ("floyd's barrett or waters"); "and" elsewhere joins no choice ("films by
    France and Malta" ranks nothing), nor do names listed before no question word."""
    units = ["res:France", "res:Iceland", "res:Malta", "ont:area"]
    smallest = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:area ?v . FILTER(?x = res:France || ?x = res:Iceland || ?x = res:Malta) }"
        " ORDER BY ASC(?v) LIMIT 1"
    )
    listed = nations.choice_between("France, Iceland, Malta - which is smallest?", units)
    assert listed is not None and listed.query == smallest
    of = nations.choice_between("the smallest of france, iceland and malta", units)
    assert of is not None and of.query == smallest
    assert nations.choice_between("the smallest country near france, iceland and malta", units) is None
    assert nations.choice_between("France, Iceland, Malta smallest", units) is None
    out = nations.choice_between("out of iceland and malta, which is the bigger country", units)
    assert out is not None and "res:France" not in out.query and "desc" in out.query
    people = ["res:Syd_Barrett", "res:Roger_Waters"]
    owned = nations.choice_between("floyd's barrett or waters: who was born first", people)
    assert owned is not None and "ont:birthDate" in owned.query and "asc" in owned.query


def test_a_yes_no_choice_asks_whether_the_one_it_names_is_the_top(nations: Repairer) -> None:
    """ "Iceland vs Malta - is Malta the bigger one?" asks of Malta: an ASK comparing its area with
    Iceland's ("no"), not the name of the bigger; a yes/no choice that names neither after it ("Is
    Iceland or Malta the bigger one?") still asks for one of the two."""
    units = ["res:Iceland", "res:Malta", "ont:area"]
    fact = _tokens("ASK WHERE { res:Iceland ont:continent res:Malta }")
    asked = nations.repair([fact], units, "Iceland vs Malta - is Malta the bigger one?")
    assert asked.tokens == _tokens(
        "ASK WHERE { res:Malta ont:area ?v . res:Iceland ont:area ?_o0 . FILTER(?v > ?_o0) }"
    )
    assert asked.answer.boolean is False
    correct = nations.repair([fact], units, "iceland vs malta - iceland is the bigger of the two, correct?")
    assert correct.answer.boolean is True
    bigger = nations.repair([fact], units, "Is Iceland or Malta the bigger one?")
    assert bigger.answer.rows == (("http://repair.test/resource/Iceland",),)


PLANETS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Mercury a ont:Planet ; ont:orderFromSun 1 .
res:Venus a ont:Planet ; ont:orderFromSun 2 .
res:Earth a ont:Planet ; ont:orderFromSun 3 .
res:Mars a ont:Planet ; ont:orderFromSun 4 .
res:Jupiter a ont:Planet ; ont:orderFromSun 5 .
res:Saturn a ont:Planet ; ont:orderFromSun 6 ; ont:discoveryYear 1610 .
res:France a ont:Country ; ont:area 640 .
res:Germany a ont:Country ; ont:area 357 .
res:Rhine a ont:River ; ont:flowsThrough res:France, res:Germany .
"""


def test_two_compared_by_the_measure_the_word_grades_and_not_the_thing_its_name_holds(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Is Uranus farther from the sun than Neptune?" names the Sun within the measure ("from the sun"):
    Uranus is compared with Neptune, by the measure "farther" grades (the order from the Sun), not by
    the discovery year both also have."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Uranus ont:orderFromSun 7 ; ont:discoveryYear 1781 .
res:Neptune ont:orderFromSun 8 ; ont:discoveryYear 1846 .
"""
    entries = [Entry(f"res:{n}", "entity", (n,)) for n in ("Uranus", "Neptune", "Sun")]
    entries += [
        Entry("ont:discoveryYear", "property", ("discovery year",)),
        Entry("ont:orderFromSun", "property", ("order from the Sun", "far")),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=1) as repairer:
        assert repairer.index is not None
        units = ["res:Uranus", "ont:discoveryYear", "ont:orderFromSun", "res:Sun", "res:Neptune"]
        question = "Is Uranus farther from the sun than Neptune?"
        said = Said(question, repairer.index)
        compared = repairer.pair_compared(question, units, repairer.named_entities(said, units), said)
        assert compared is not None and compared[0] == _tokens(
            "ASK WHERE { res:Uranus ont:orderFromSun ?v . res:Neptune ont:orderFromSun ?_than . FILTER ( ?v > ?_than ) }"
        )


def test_the_one_in_a_place_compared_with_is_the_thing_named_alike(nations: Repairer) -> None:
    """ "Is the Sorbonne older than the one in Leuven?": "the one in Leuven" is the university named
    after the town, the thing named alike that has a founding year, not the town."""
    assert nations.index is not None
    units = ["res:Sorbonne", "res:Leuven_City", "ont:foundingYear"]
    question = "Is the Sorbonne older than the one in Leuven?"
    said = Said(question, nations.index)
    compared = nations.pair_compared(question, units, ["res:Sorbonne", "res:Leuven_City"], said)
    assert compared is not None and compared[0] == _tokens(
        "ASK WHERE { res:Sorbonne ont:foundingYear ?v . res:Leuven ont:foundingYear ?_than . FILTER ( ?v < ?_than ) }"
    )


def test_things_placed_between_or_beyond_named_ones_of_their_kind_are_compared_by_its_measure(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many planets lie between Venus and Saturn?" decoded as anything: the planets whose order
    from the sun lies between theirs, the one measure both have; the two said in either order; "beyond"
    one, or ahead of one ("precede"). Not when the named things are not of the kind the question says
    ("rivers between France and Germany"), nor when they are places, which lie between others on a map,
    nor when the question names another thing, which restricts them too, unless the measure's name holds
    it ("from the Sun"). "right after" one asks for the nearest past it alone."""
    names = {"Venus": "Venus", "Saturn": "Saturn", "Mars": "Mars", "France": "France", "Germany": "Germany"}
    names["Sun"] = "Sun"
    entries = [Entry(f"res:{n}", "entity", (label,)) for n, label in names.items()]
    entries += [Entry(f"ont:{c}", "class", (c.lower(),)) for c in ("Planet", "Country", "River")]
    facts = [(f"res:{n}", "a", "ont:Planet") for n in ("Venus", "Saturn", "Mars")]
    facts += [("res:France", "a", "ont:Country"), ("res:Germany", "a", "ont:Country")]
    with _repairer_on(tmp_path, prefixes, PLANETS_TTL, entries, facts=facts) as repairer:
        wrong = _tokens("SELECT ( COUNT ( DISTINCT ?x ) AS ?c ) WHERE { ?x ont:orbits res:Venus }")
        units = ["res:Venus", "res:Saturn", "ont:Planet", "ont:orbits"]
        between = repairer.repair([wrong], units, "how many planets lie between venus and saturn")
        assert between.tokens == _tokens(
            "SELECT ( COUNT ( DISTINCT ?x ) AS ?c ) WHERE { ?x a ont:Planet . res:Venus ont:orderFromSun ?a ."
            " ?x ont:orderFromSun ?n . res:Saturn ont:orderFromSun ?b . FILTER ( ?n > ?a && ?n < ?b ) }"
        )
        assert between.answer.rows == (("3",),)
        question = "Which planets sit between Saturn and Venus?"
        listed = repairer.placed_between(question, units, Said(question, repairer.index), False)
        assert listed is not None and listed[0][:3] == ["select", "distinct", "?x"]
        assert listed[0].index("res:Venus") < listed[0].index("res:Saturn")  # the lower one first
        beyond = repairer.repair(
            [wrong], ["res:Mars", "ont:Planet"], "Beyond Mars, how many planets are there?"
        )
        assert beyond.answer.rows == (("2",),)
        ahead = repairer.repair([wrong], ["res:Mars", "ont:Planet"], "How many planets precede Mars?")
        assert "<" in ahead.tokens and ahead.answer.rows == (("3",),)
        wrong_list = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:orbits res:Mars }")
        for question, planet in (
            ("Which planet comes right after Mars?", "Jupiter"),
            ("the planet just before mars", "Earth"),
        ):
            nearest = repairer.repair(
                [wrong_list], ["res:Mars", "ont:Planet"], question
            )  # the one next to it
            assert nearest.tokens[-2:] == ["limit", "1"]
            assert nearest.answer.rows == ((f"http://repair.test/resource/{planet}",),)
        question = "Going out from the Sun, how many planets come before Mars?"  # the Sun names the order
        outward = repairer.repair([wrong], ["res:Sun", "res:Mars", "ont:Planet"], question)
        assert outward.answer.rows == (("3",),)
        for question, named in (
            ("Which rivers flow between France and Germany?", ["res:France", "res:Germany", "ont:River"]),
            ("how many planets lie between venus and france", ["res:Venus", "res:France", "ont:Planet"]),
            ("planets between venus and saturn seen from mars", ["res:Venus", "res:Saturn", "res:Mars"]),
            ("how many countries lie between France and Germany", ["res:France", "res:Germany"]),  # places
        ):
            assert repairer.placed_between(question, named, Said(question, repairer.index), True) is None


def test_things_bounded_by_two_sides_or_compared_with_a_named_one_are_placed_by_its_measure(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "beyond venus but before saturn", "from mars upwards" (Mars too), "further out than Mars",
    "larger than germany's but smaller than france's" (by the area the question says; countries are
    places, but a comparative places them by a measure, not on a map), "germany is big, but how many
    countries beat it for area" ("it": the one country named). Not "older than mars": a time word says
    nothing of an order from the sun."""
    ttl = PLANETS_TTL + "res:Spain a ont:Country ; ont:area 506 .\nres:Italy a ont:Country ; ont:area 301 .\n"
    names = ["Venus", "Saturn", "Mars", "France", "Germany", "Spain", "Italy"]
    entries = [Entry(f"res:{n}", "entity", (n,)) for n in names]
    entries += [Entry(f"ont:{c}", "class", (c.lower(),)) for c in ("Planet", "Country")]
    entries += [
        Entry("ont:area", "property", ("area",)),
        Entry("ont:orderFromSun", "property", ("order from the Sun",)),
    ]
    facts = [(f"res:{n}", "a", "ont:Planet") for n in ("Venus", "Saturn", "Mars")]
    facts += [(f"res:{n}", "a", "ont:Country") for n in ("France", "Germany", "Spain", "Italy")]
    planets, countries = (
        ["res:Venus", "res:Saturn", "res:Mars", "ont:Planet"],
        ["res:Germany", "res:France", "ont:Country"],
    )
    with _repairer_on(tmp_path, prefixes, ttl, entries, facts=facts) as repairer:
        assert repairer.index is not None
        for question, units, counted, rows in (
            ("name the planets that lie beyond venus but before saturn", planets, False, 3),
            ("how many planets are there from mars upwards", planets, True, 3),
            ("Which planets orbit further out than Mars does?", planets, False, 2),
            ("countries with an area larger than germany's but smaller than france's", countries, False, 1),
            ("germany is big, but how many countries beat it for area", countries, True, 2),
        ):
            placed = repairer.placed_between(question, units, Said(question, repairer.index), counted)
            assert placed is not None, question
            answer = repairer.kb.query(detokenize(placed[0], prefixes))
            found = int(answer.rows[0][0]) if counted else len(answer.rows)
            assert found == rows, question
        question = "which planets are older than mars"
        assert repairer.placed_between(question, planets, Said(question, repairer.index), False) is None


FLOYD_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
res:Pink_Floyd a ont:Band ; ont:bandMember res:Syd_Barrett, res:Roger_Waters, res:David_Gilmour .
res:Syd_Barrett ont:birthDate "1946-01-06"^^xsd:date .
res:Roger_Waters ont:birthDate "1943-09-06"^^xsd:date .
res:David_Gilmour ont:birthDate "1946-03-06"^^xsd:date .
res:Freddie_Mercury ont:birthDate "1946-09-05"^^xsd:date .
"""


def test_things_linked_to_a_named_one_as_another_is_are_compared_with_that_one(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which Pink Floyd members are older than David Gilmour?": the band's members (the fact that links
    Gilmour to the band, his place made the answer's) born before him, by the one measure he has; counted
    for "how many". Not without a second named entity to be linked to."""
    members = ("Syd_Barrett", "Roger_Waters", "David_Gilmour")
    entries = [Entry(f"res:{n}", "entity", (n.replace("_", " "),)) for n in ("Pink_Floyd", *members)]
    entries += [Entry("ont:bandMember", "property", ("band member",))]
    facts = [("res:Pink_Floyd", "ont:bandMember", f"res:{m}") for m in members]
    wrong = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthDate ?v }")
    units = ["res:Pink_Floyd", "res:David_Gilmour", "ont:bandMember"]
    with _repairer_on(tmp_path, prefixes, FLOYD_TTL, entries, facts=facts) as repairer:
        older = repairer.repair([wrong], units, "Which Pink Floyd members are older than David Gilmour?")
        assert older.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Pink_Floyd ont:bandMember ?x . ?x ont:birthDate ?v ."
            " res:David_Gilmour ont:birthDate ?_than . FILTER ( ?v < ?_than ) }"
        )
        assert {row[0].rsplit("/", 1)[1] for row in older.answer.rows} == {"Syd_Barrett", "Roger_Waters"}
        question = "How many Pink Floyd members were born before Syd Barrett?"
        units = ["res:Pink_Floyd", "res:Syd_Barrett"]
        assert repairer.repair([wrong], units, question).answer.rows == (("1",),)
        question = "Who is older than David Gilmour?"
        assert (
            repairer.kin_compared(question, ["res:David_Gilmour"], Said(question, repairer.index), False)
            is None
        )


def test_an_ordinal_names_a_place_in_the_one_order_things_of_its_kind_have(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "which planet is sixth from the sun?": the planet whose order from the sun is 6, the class's one
    measure of whole numbers (a discovery year is a date); "Is Saturn the sixth planet from the sun?" asks
    it of Saturn, and "Which number planet from the sun is Mars?" asks for Mars's place. Not for a
    ranking by a graded word ("the second largest planet"), nor when the question asks for another class or
    a count."""
    planets = ("Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn")
    entries = [Entry(f"res:{n}", "entity", (n,)) for n in planets]
    entries += [Entry("ont:Planet", "class", ("planet",)), Entry("ont:Moon", "class", ("moon",))]
    facts = [(f"res:{n}", "a", "ont:Planet") for n in planets]
    facts += [(f"res:{n}", "ont:orderFromSun", MEASURED) for n in planets]
    facts += [("res:Saturn", "ont:discoveryYear", MEASURED)]
    wrong = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Planet . ?x ont:orbits res:Sun }")
    with _repairer_on(tmp_path, prefixes, PLANETS_TTL, entries, facts=facts) as repairer:
        sixth = repairer.repair([wrong], ["ont:Planet"], "which planet is sixth from the sun?")
        assert sixth.tokens == _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Planet . ?x ont:orderFromSun 6 }")
        assert sixth.answer.rows == (("http://repair.test/resource/Saturn",),)
        fact = _tokens("ASK WHERE { res:Sun ont:orbits res:Saturn }")
        units = ["res:Saturn", "ont:Planet"]
        asked = repairer.repair([fact], units, "Is Saturn the sixth planet from the sun?")
        assert asked.tokens == _tokens("ASK WHERE { res:Saturn ont:orderFromSun 6 }") and asked.answer.boolean
        third = "Is Saturn the 3rd planet?"
        assert repairer.repair([fact], units, third).tokens == _tokens(
            "ASK WHERE { res:Saturn ont:orderFromSun 3 }"
        )
        for question, named in (
            ("the second largest planet", ["ont:Planet"]),
            ("moons of the sixth planet", ["ont:Moon", "ont:Planet"]),
            ("how many planets lie past the fourth planet", ["ont:Planet"]),
        ):
            assert repairer.placed_at(question, named, Said(question, repairer.index), False) is None
        counted = _tokens("SELECT ( COUNT ( DISTINCT ?x ) AS ?c ) WHERE { ?x a ont:Planet }")
        place = repairer.repair(
            [counted], ["res:Mars", "ont:Planet"], "Which number planet from the sun is Mars?"
        )
        assert place.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:Mars ont:orderFromSun ?x }")
        assert place.answer.rows == (("4",),)
        question = "mars is the how-manyth planet from the sun"
        manyth = repairer.place_of(question, ["res:Mars", "ont:Planet"], Said(question, repairer.index))
        assert manyth is not None and manyth[0] == place.tokens
        question = "what is the number of planets beyond Mars"  # a count, no place
        assert repairer.place_of(question, ["res:Mars"], Said(question, repairer.index)) is None


PHOBOS_TTL = (
    PLANETS_TTL
    + """res:Phobos a ont:Moon ; ont:orbits res:Mars .
res:Titan a ont:Moon ; ont:orbits res:Saturn .
res:Mars ont:orbits res:Sun . res:Saturn ont:orbits res:Sun .
"""
)


def test_a_place_is_asked_of_the_one_thing_of_a_kind_a_named_thing_is_linked_to(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Phobos's planet is number what from the sun?": Phobos has no place from the sun, the planet it
    orbits has. Not when the named thing is linked to several things of the kind ("the Sun's planet":
    every planet orbits it)."""
    entries = [Entry(f"res:{n}", "entity", (n,)) for n in ("Phobos", "Titan", "Mars", "Saturn", "Sun")]
    entries += [Entry("ont:Planet", "class", ("planet",)), Entry("ont:Moon", "class", ("moon",))]
    facts = [(f"res:{n}", "a", "ont:Planet") for n in ("Mars", "Saturn")]
    facts += [(f"res:{n}", "ont:orderFromSun", MEASURED) for n in ("Mars", "Saturn")]
    facts += [("res:Phobos", "a", "ont:Moon"), ("res:Titan", "a", "ont:Moon")]
    facts += [("res:Phobos", "ont:orbits", "res:Mars"), ("res:Titan", "ont:orbits", "res:Saturn")]
    facts += [("res:Mars", "ont:orbits", "res:Sun"), ("res:Saturn", "ont:orbits", "res:Sun")]
    wrong = _tokens("SELECT ( COUNT ( DISTINCT ?x ) AS ?c ) WHERE { res:Phobos ont:orbits ?x }")
    with _repairer_on(tmp_path, prefixes, PHOBOS_TTL, entries, facts=facts) as repairer:
        units = ["res:Phobos", "ont:Planet", "ont:orbits"]
        place = repairer.repair([wrong], units, "Phobos's planet is number what from the sun?")
        assert place.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Phobos ont:orbits ?y . ?y a ont:Planet . ?y ont:orderFromSun ?x }"
        )
        assert place.answer.rows == (("4",),)
        question = "the Sun's planet is number what"
        units = ["res:Sun", "ont:Planet", "ont:orbits"]
        assert repairer.place_of(question, units, Said(question, repairer.index)) is None


NAMESAKES_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
res:Wolfgang_Amadeus_Mozart a ont:Person ; ont:birthDate "1756-01-27"^^xsd:date ; ont:spouse res:Constanze_Mozart .
res:Constanze_Mozart a ont:Person ; ont:birthDate "1762-01-05"^^xsd:date .
res:Don_Giovanni ont:composer res:Wolfgang_Amadeus_Mozart .
res:The_Magic_Flute ont:composer res:Wolfgang_Amadeus_Mozart .
res:Requiem ont:composer res:Wolfgang_Amadeus_Mozart .
res:Cosi_fan_tutte ont:composer res:Wolfgang_Amadeus_Mozart .
res:Charles_Darwin a ont:Person ; ont:birthDate "1809-02-12"^^xsd:date .
res:Marie_Curie a ont:Person ; ont:birthDate "1867-11-07"^^xsd:date ; ont:spouse res:Pierre_Curie .
res:Pierre_Curie a ont:Person ; ont:birthDate "1859-05-15"^^xsd:date ; ont:spouse res:Marie_Curie .
res:Cambridge a ont:City .
res:University_of_Cambridge a ont:University ; ont:city res:Cambridge .
res:Isaac_Newton a ont:Person ; ont:almaMater res:University_of_Cambridge .
res:Alan_Turing a ont:Person ; ont:almaMater res:University_of_Cambridge .
"""


def test_a_name_two_of_a_kind_share_names_the_far_better_known(prefixes: PrefixMap, tmp_path: Path) -> None:
    """ "Mozart" names Wolfgang Amadeus, of whom the KB says far more than of his wife Constanze, in a
    question and in a choice ("Who was born first, Mozart or Darwin?"); "Curie" names neither Marie nor
    Pierre, of whom it says as much; the name within "University of Cambridge" does not name the
    university, a thing of another kind than the city, however much more is said of it."""
    names = ("Wolfgang_Amadeus_Mozart", "Constanze_Mozart", "Charles_Darwin", "Marie_Curie", "Pierre_Curie")
    names += ("Cambridge", "University_of_Cambridge")
    entries = [Entry(f"res:{n}", "entity", (n.replace("_", " "),)) for n in names]
    mozarts = ["res:Wolfgang_Amadeus_Mozart", "res:Constanze_Mozart"]
    with _repairer_on(tmp_path, prefixes, NAMESAKES_TTL, entries) as repairer:
        question = "Which operas did Mozart compose?"
        assert repairer.named_entities(Said(question, repairer.index), mozarts) == mozarts[:1]
        choice = repairer.choice_between(
            "Who was born first, Mozart or Darwin?", [*mozarts, "res:Charles_Darwin"]
        )
        assert choice is not None and "res:Wolfgang_Amadeus_Mozart" in choice.query
        curies = ["res:Marie_Curie", "res:Pierre_Curie"]
        assert repairer.named_entities(Said("What did Curie discover?", repairer.index), curies) == []
        places = ["res:Cambridge", "res:University_of_Cambridge"]
        cambridge = repairer.named_entities(Said("Who studied at Cambridge?", repairer.index), places)
        assert cambridge == ["res:Cambridge"]  # by its whole label; the university not by the name within


EUROZONE_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Malta a ont:Country ; ont:currency res:Euro ; ont:area 316 ; ont:population 520000 .
res:San_Marino a ont:Country ; ont:currency res:Euro ; ont:area 61 ; ont:population 34000 .
res:Vatican_City a ont:Country ; ont:currency res:Euro ; ont:area 1 ; ont:population 50000 .
res:Monaco a ont:Country ; ont:currency res:Euro ; ont:area 2 ; ont:population 800 .
res:Andorra a ont:Country ; ont:currency res:Euro ; ont:area 468 ; ont:population 80000 .
"""


def test_a_superlative_left_unranked_is_ranked_by_the_measure_its_unit_names_first(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which euro country has the fewest people?" decoded as every euro country: ranked by population,
    which "people" counts, before area, which the units list first."""
    entries = [Entry("res:Euro", "entity", ("euro",)), Entry("ont:Country", "class", ("country",))]
    entries += [Entry(f"ont:{p}", "property", (p,)) for p in ("currency", "area", "population")]
    every = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:currency res:Euro }")
    units = ["ont:Country", "res:Euro", "ont:currency", "ont:area", "ont:population"]
    with _repairer_on(tmp_path, prefixes, EUROZONE_TTL, entries) as repairer:
        fewest = repairer.repair([every], units, "Which euro country has the fewest people?")
        assert fewest.answer.rows == (("http://repair.test/resource/Monaco",),)
        assert "ont:population" in fewest.tokens
        smallest = repairer.repair([every], units, "Which euro country is the smallest?")
        assert smallest.answer.rows == (("http://repair.test/resource/Vatican_City",),)


def test_a_yes_no_question_comparing_two_named_compares_their_values(nations: Repairer) -> None:
    """ "Is Iceland bigger than Malta?" decoded as a fact between the two: the question compares their
    values of the measure of the units both have, the one after "than" on the right."""
    units = ["res:Iceland", "res:Malta", "ont:area", "ont:continent"]
    fact = _tokens("ASK WHERE { res:Iceland ont:continent res:Malta }")
    bigger = nations.repair([fact], units, "Is Iceland bigger than Malta?")
    assert bigger.tokens == _tokens(
        "ASK WHERE { res:Iceland ont:area ?v . res:Malta ont:area ?_than . FILTER(?v > ?_than) }"
    )
    assert bigger.answer.boolean is True
    assert nations.repair([fact], units, "Is Malta bigger than Iceland?").answer.boolean is False
    said = Said("Is Iceland in Europe?", nations.index)
    assert nations.pair_compared("Is Iceland in Europe?", units, ["res:Iceland", "res:Malta"], said) is None


def test_a_choice_between_two_reads_an_entity_without_the_measure_as_one_named_alike_or_gives_up(
    nations: Repairer,
) -> None:
    """ "Which is longer, the Nile or the Amazon?" with the company Amazon linked: the river named alike
    has a length and is compared. "Who was born first, Marie Curie or Roger Waters?" with no birth date
    of Curie's: any answer would be a guess (Waters, the only one with a date, or another query's), so
    repair gives up and says why."""
    rivers = nations.repair(
        [_tokens("SELECT DISTINCT ?x WHERE { res:Nile ont:length ?x }")],
        ["ont:length", "res:Nile", "res:Amazon"],
        "Which is longer, the Nile or the Amazon?",
    )
    assert rivers.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:length ?v . FILTER(?x = res:Nile || ?x = res:Amazon_River) } ORDER BY DESC(?v) LIMIT 1"
    )
    assert rivers.answer.rows == (("http://repair.test/resource/Nile",),)
    question = "Who was born first, Marie Curie or Roger Waters?"
    units = ["ont:birthDate", "res:Marie_Curie", "res:Roger_Waters"]
    guess = nations.repair(
        [_tokens("SELECT DISTINCT ?x WHERE { res:Roger_Waters ont:birthDate ?x }")], units, question
    )
    assert guess.answered_in is None and "res:Marie_Curie" in (guess.gave_up or "")
    assert guess.answer is not None and guess.answer.is_empty()


WORKS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Impression_Sunrise ont:painter res:Claude_Monet ; ont:yearCompleted 1872 .
res:Le_Dejeuner_sur_lherbe ont:painter res:Edouard_Manet ; ont:yearCompleted 1863 .
res:Treasure_Island ont:author res:Robert_Louis_Stevenson ; ont:publicationYear 1883 .
res:Strange_Case_of_Dr_Jekyll_and_Mr_Hyde ont:author res:Robert_Louis_Stevenson ; ont:publicationYear 1886 .
"""


def test_a_choice_names_a_thing_by_the_tail_of_its_label_and_after_its_owner_s_name(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "which came first, monet's impression sunrise or manet's dejeuner sur l'herbe": each work after
    its painter's possessive, the second by its label without its article; "treasure island or dr jekyll
    and mr hyde - which did stevenson publish earlier": the second by the tail of its title that a name
    opens. Both ranked by the one year the two have; and a comparison with the work after "than" and its
    owner's possessive."""
    entries = [
        Entry("res:Impression_Sunrise", "entity", ("Impression, Sunrise",)),
        Entry("res:Le_Dejeuner_sur_lherbe", "entity", ("Le Déjeuner sur l'herbe",)),
        Entry("res:Claude_Monet", "entity", ("Claude Monet",)),
        Entry("res:Edouard_Manet", "entity", ("Édouard Manet",)),
        Entry("res:Treasure_Island", "entity", ("Treasure Island",)),
        Entry(
            "res:Strange_Case_of_Dr_Jekyll_and_Mr_Hyde", "entity", ("Strange Case of Dr Jekyll and Mr Hyde",)
        ),
        Entry("res:Robert_Louis_Stevenson", "entity", ("Robert Louis Stevenson",)),
        Entry("ont:yearCompleted", "property", ("year completed",)),
        Entry("ont:publicationYear", "property", ("publication year", "published")),
    ]
    with _repairer_on(tmp_path, prefixes, WORKS_TTL, entries) as repairer:
        units = [
            "res:Claude_Monet",
            "res:Impression_Sunrise",
            "res:Edouard_Manet",
            "res:Le_Dejeuner_sur_lherbe",
        ]
        first = repairer.choice_between(
            "which came first, monet's impression sunrise or manet's dejeuner sur l'herbe", units
        )
        assert first is not None and first.query == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:yearCompleted ?v . FILTER(?x = res:Impression_Sunrise ||"
            " ?x = res:Le_Dejeuner_sur_lherbe) } ORDER BY ASC(?v) LIMIT 1"
        )
        units = ["res:Treasure_Island", "res:Strange_Case_of_Dr_Jekyll_and_Mr_Hyde", "ont:publicationYear"]
        question = "treasure island or dr jekyll and mr hyde - which did stevenson publish earlier"
        earlier = repairer.repair(
            [_tokens("SELECT DISTINCT ?x WHERE { res:Treasure_Island ont:publicationYear ?x }")],
            units,
            question,
        )
        assert earlier.answer.rows == (("http://repair.test/resource/Treasure_Island",),)
        assert (
            repairer.choice_between("which came first, monet's impression sunrise or manet's", units) is None
        )
        question = "is monet's impression sunrise older than manet's dejeuner sur l'herbe"
        units = [
            "res:Claude_Monet",
            "res:Impression_Sunrise",
            "ont:yearCompleted",
            "res:Le_Dejeuner_sur_lherbe",
        ]
        owner = _tokens("ASK WHERE { res:Impression_Sunrise ont:yearCompleted res:Claude_Monet }")
        older = repairer.entity_as_value(owner, question, units)  # the painting after "than", not its painter
        assert older is not None and older[0] == _tokens(
            "ASK WHERE { res:Impression_Sunrise ont:yearCompleted ?v . res:Le_Dejeuner_sur_lherbe ont:yearCompleted"
            " ?_than . FILTER ( ?v < ?_than ) }"
        )


def test_a_ranking_that_leaves_out_a_said_property_and_class_ranks_only_answers_with_both(
    nations: Repairer,
) -> None:
    """ "Of the elements named after countries, which has the highest atomic number?" decoded as every
    element by atomic number: named after something keeps Curium first, named after a country does not."""
    every = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber ?v } ORDER BY DESC(?v) LIMIT 1"
    )
    units = ["ont:ChemicalElement", "ont:namedAfter", "ont:Country", "ont:atomicNumber"]
    question = "Of the elements named after countries, which has the highest atomic number?"
    repaired = nations.repair([every], units, question)
    assert repaired.answer.rows == (("http://repair.test/resource/Francium",),)
    assert "ont:namedAfter ?_w . ?_w a ont:Country" in " ".join(repaired.tokens)


def test_a_yes_no_question_naming_a_period_asks_it_of_the_value_a_select_reads(nations: Repairer) -> None:
    """ "Did Oppenheimer come out in the 2020s?" decoded as a SELECT of its release year: whether that
    year is in the decade. Not for an entity with no such value: its "no" would say nothing."""
    year = _tokens("SELECT DISTINCT ?x WHERE { res:Oppenheimer ont:releaseYear ?x }")
    units = ["res:Oppenheimer", "ont:releaseYear"]
    asked = nations.ask_compared(year, "Did Oppenheimer come out in the 2020s?", units)
    assert asked is not None
    assert asked[0] == _tokens(
        "ASK WHERE { res:Oppenheimer ont:releaseYear ?x . FILTER(?x >= 2020 && ?x < 2030) }"
    )
    assert nations.repair([year], units, "Did Oppenheimer come out in the 2020s?").answer.boolean is True
    old = nations.repair([year], units, "Did Oppenheimer come out in the nineteenth century?")
    assert old.answer.boolean is False
    none = _tokens("SELECT DISTINCT ?x WHERE { res:Iceland ont:releaseYear ?x }")
    assert nations.ask_compared(none, "Did Iceland come out in the 2020s?", ["res:Iceland"]) is None
    assert nations.ask_compared(year, "When did Oppenheimer come out in the 2020s?", units) is None


def test_a_range_said_by_its_two_ends_replaces_the_comparison_a_query_makes(nations: Repairer) -> None:
    """ "How many elements have atomic numbers from 85 to 100?" decoded as `> 100`, "numbered 85 through
    100" as `= 100`: the count is of the numbers from one end to the other (Francium 87, Curium 96)."""
    units = ["ont:ChemicalElement", "ont:atomicNumber", "85", "100"]
    for question, compared in (
        ("How many elements have atomic numbers from 85 to 100?", "?v > 100"),
        ("count the elements numbered 85 through 100", "?v = 100"),
    ):
        wrong = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber ?v . "
            f"FILTER({compared}) }}"
        )
        repaired = nations.repair([wrong], units, question)
        assert repaired.tokens == _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber ?v . "
            "FILTER(?v >= 85 && ?v <= 100) }"
        )
        assert repaired.answer.rows == (("2",),)
        assert nations.span_compared(wrong, "How many elements have atomic numbers above 100?") is None
    # a pattern that takes one end as its value ("from 85 to 100" decoded as `?x ont:atomicNumber 100`)
    end = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber 100 }"
    )
    ranged = nations.repair([end], units, "How many elements have atomic numbers from 85 to 100?")
    assert ranged.tokens == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber ?v . "
        "FILTER(?v >= 85 && ?v <= 100) }"
    )
    assert ranged.answer.rows == (("2",),)
    assert nations.span_compared(end, "How many elements have atomic number 100?") is None


def test_a_number_the_question_bounds_is_compared_with_not_matched(nations: Repairer) -> None:
    """ "how many countries exceed 100 thousand km² in area" decoded with the number as the area
    itself (`?x ont:area 100000`, no country has it): the area is kept past the number (France and
    Iceland). A query that also reads the measure into a variable compares that one ("come after 90"
    with `?x ont:atomicNumber 90 . ?x ont:atomicNumber ?v`), and a FILTER on the variable alone is given
    the comparison; a number said with no comparing word ("atomic number 96") stays a value. A query
    that leaves the bound out is kept by the measure the unit names (`bound_left_out`)."""
    units = ["ont:Country", "ont:area", "100000"]
    question = "how many countries exceed 100 thousand km² in area?"
    matched = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Country . ?x ont:area 100000 }")
    repaired = nations.repair([matched], units, question)
    assert repaired.tokens == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Country . ?x ont:area ?v . FILTER(?v > 100000) }"
    )
    assert repaired.answer.rows == (("2",),)
    alone = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Country . ?x ont:area ?v . FILTER(?v) }"
    )
    assert nations.bound_compared(alone, question) == (
        repaired.tokens,
        "its FILTER on ?v alone made a bound (> 100000, as the question says)",
    )
    both = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber 90 . "
        "?x ont:atomicNumber ?v }"
    )
    after = nations.repair(
        [both], ["ont:ChemicalElement", "ont:atomicNumber", "90"], "count the elements after 90"
    )
    assert after.tokens == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber ?v . "
        "FILTER(?v > 90) }"
    )
    assert after.answer.rows == (("2",),)
    filtered = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x ont:atomicNumber 90 . ?x ont:atomicNumber ?v . FILTER(?v >= 90) }"
    )
    dropped = nations.bound_compared(filtered, "elements numbered 90 or more")
    assert dropped is not None
    assert dropped[0] == _tokens("SELECT DISTINCT ?x WHERE { ?x ont:atomicNumber ?v . FILTER(?v >= 90) }")
    valued = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:atomicNumber 96 }")
    assert nations.bound_compared(valued, "which element has atomic number 96") is None
    # a bound the query leaves out, kept by the measure its unit names ("square kilometres": area)
    countries = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Country }")
    big = nations.repair([countries], ["ont:Country"], "countries bigger than 200,000 square kilometres")
    assert big.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:area ?v . FILTER(?v > 200000) }"
    )
    assert big.answer.rows == (("http://repair.test/resource/France",),)


def test_a_decade_of_numbers_or_a_year_of_dates_filters_the_answers(nations: Repairer) -> None:
    """ "an atomic number in the 90s" is 90 to 99 (Curium); "members born in 1943" have a birth date in
    that year (Roger Waters, not Syd Barrett)."""
    every = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber ?v }"
    )
    nineties = nations.repair(
        [every],
        ["ont:ChemicalElement", "ont:atomicNumber"],
        "How many elements have an atomic number in the 90s?",
    )
    assert nineties.tokens == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:ChemicalElement . ?x ont:atomicNumber ?v . "
        "FILTER(?v >= 90 && ?v < 100) }"
    )
    assert nineties.answer.rows == (("1",),)
    members = _tokens("SELECT DISTINCT ?x WHERE { res:Pink_Floyd ont:bandMember ?x }")
    born = nations.repair([members], ["ont:bandMember", "1943"], "which pink floyd members were born in 1943")
    assert born.answer.rows == (("http://repair.test/resource/Roger_Waters",),)
    assert born.tokens[-10:] == ["filter", "(", "year", "(", "?v", ")", "=", "1943", ")", "}"]


def test_a_yes_no_question_about_one_named_entity_and_a_range_asks_its_one_measure(nations: Repairer) -> None:
    """ "did oppenheimer come out in the 2020s" decoded as whether it is a film: the question asks whether
    the film's one measure, its release year, is in the decade, or the one year it says ("in 2023").
    Not with two named entities."""
    typed = _tokens("ASK WHERE { res:Oppenheimer a ont:Film }")
    units = ["res:Oppenheimer", "ont:Film"]
    recent = nations.repair([typed], units, "did oppenheimer come out in the 2020s")
    assert recent.tokens == _tokens(
        "ASK WHERE { res:Oppenheimer ont:releaseYear ?v . FILTER(?v >= 2020 && ?v < 2030) }"
    )
    assert recent.answer.boolean is True
    assert nations.repair([typed], units, "did oppenheimer come out in the 90s").answer.boolean is False
    year = nations.repair([typed], units, "Oppenheimer came out in 2023, correct?")
    assert year.tokens == _tokens("ASK WHERE { res:Oppenheimer ont:releaseYear ?v . FILTER(?v = 2023) }")
    assert year.answer.boolean is True
    assert nations.repair([typed], units, "did oppenheimer come out in 1999").answer.boolean is False
    said = Said("did oppenheimer come out in iceland in the 2020s", nations.index)
    assert nations.span_of_named(said.text, said, [*units, "res:Iceland"]) is None


def test_when_nothing_answers_the_class_asked_for_is_compared_with_the_one_entity_named(
    nations: Repairer,
) -> None:
    """ "Which countries are bigger than Iceland?" decoded with Iceland as an official language: no
    hypothesis answers, so every country is compared by area with Iceland's. Not when the question names
    something else the comparison would drop (South America)."""
    language = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:officialLanguage res:Iceland }")
    units = ["ont:Country", "ont:area", "res:Iceland", "ont:officialLanguage"]
    repaired = nations.repair([language], units, "Which countries are bigger than Iceland?")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:area ?v . res:Iceland ont:area ?_than . FILTER(?v > ?_than) }"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/France",),)
    south = nations.repair(
        [language], [*units, "res:South_America"], "Which countries in South America are bigger than Iceland?"
    )
    assert south.answered_in is None


def test_a_name_two_entities_share_is_something_else_the_question_names_besides_the_comparison(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which novels Dickens wrote came out after 1850?": "Dickens" names Charles or Catherine, which
    every novel compared with 1850 would drop, so the class alone is not compared."""
    dickens = [Entry("res:Charles_Dickens", "entity", ("Charles Dickens",))]
    dickens.append(Entry("res:Catherine_Dickens", "entity", ("Catherine Dickens",)))
    ttl = NATIONS_TTL + "res:Bleak_House a ont:Novel ; ont:releaseYear 1853 .\n"
    query = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Novel . ?x ont:spouse res:Catherine_Dickens }")
    units = ["ont:Novel", "ont:releaseYear", "1850", "res:Charles_Dickens", "res:Catherine_Dickens"]
    with _repairer_on(tmp_path, prefixes, ttl, [*NATION_ENTRIES, *dickens], max_rounds=1) as repairer:
        question = "Which novels Dickens wrote came out after 1850?"
        assert repairer.repair([query], units, question).answered_in is None
        alone = repairer.repair([query], units[:3], "Which novels came out after 1850?")
        assert alone.answer.rows == (("http://repair.test/resource/Bleak_House",),)


def test_a_pattern_read_by_nothing_whose_property_the_question_does_not_say_is_removed(
    nations: Repairer,
) -> None:
    """`?x ont:population ?v`, left by a ranking the question never asked for, only keeps the countries
    that have a population; it goes unless the question says population."""
    tokens = _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:population ?v . ?x ont:continent res:South_America }"
    )
    removed = nations.unsaid_dangling_removed(
        tokens, Said("Which countries are in South America?", nations.index)
    )
    assert removed is not None and removed[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:continent res:South_America }"
    )
    said = Said("Which countries in South America have a population?", nations.index)
    assert nations.unsaid_dangling_removed(tokens, said) is None


def test_two_entities_said_by_the_same_words_are_one_reading_left_out_or_kept(nations: Repairer) -> None:
    """ "Is French an official language in Belgium?": "French" says the language and, as a place
    adjective, France. A hypothesis with France and French leaves out Belgium; one with Belgium and
    French leaves out nothing, France being the other reading of "French", so it goes first."""
    france = _tokens("ASK WHERE { res:France ont:officialLanguage res:French }")
    belgium = _tokens("ASK WHERE { res:Belgium ont:officialLanguage res:French }")
    units = ["res:French", "res:France", "ont:officialLanguage", "res:Belgium"]
    repaired = nations.repair([france, belgium], units, "Is French an official language in Belgium?")
    assert repaired.rounds[0].attempts[0].source == "hypothesis 2" and repaired.tokens == belgium


def test_a_measure_the_graded_word_does_not_grade_gives_way_to_the_one_it_does(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which countries are bigger than Malta?" compared by population: "bigger" grades area, whose names
    hold "biggest", and no name of population; a question that names the population keeps it."""
    entries = [
        Entry("ont:area", "property", ("area", "biggest", "large")) if e.token == "ont:area" else e
        for e in NATION_ENTRIES
    ]
    by = "SELECT DISTINCT ?x WHERE { ?x a ont:Country . ?x ont:%s ?v . res:Malta ont:%s ?_than . FILTER(?v > ?_than) }"
    people = _tokens(by % ("population", "population"))
    units = ["ont:Country", "ont:population", "ont:area", "res:Malta"]
    with _repairer_on(tmp_path, prefixes, NATIONS_TTL, entries) as repairer:
        question = "Which countries are bigger than Malta?"
        graded = repairer.measure_of_graded_word(people, question, units, Said(question, repairer.index))
        assert graded is not None and graded[0] == _tokens(by % ("area", "area"))
        named = "Which countries have a bigger population than Malta?"
        assert repairer.measure_of_graded_word(people, named, units, Said(named, repairer.index)) is None


def test_the_entity_compared_with_may_be_named_by_a_name_within_its_label(nations: Repairer) -> None:
    """ "longer than the Amazon" names the Amazon River by "Amazon" when no other unit has that name."""
    question = "Which rivers are longer than the Amazon?"
    assert nations._compared_with(question, ["res:Nile", "res:Amazon_River"], "longer") == "res:Amazon_River"
    assert nations._compared_with("Which rivers are longer?", ["res:Amazon_River"], "longer") is None
    misspelt = nations._compared_with(
        "rivers longer than the amazn", ["res:Nile", "res:Amazon_River"], "longer"
    )
    assert misspelt == "res:Amazon_River"


def test_an_empty_query_asks_its_pattern_of_an_entity_the_question_names_and_it_leaves_out(
    nations: Repairer,
) -> None:
    """ "When was KU Leuven founded?" decoded about the city of Leuven, which has no founding year: the
    university the question names, left out, takes the city's place, and answers with a year."""
    city = _tokens("SELECT DISTINCT ?x WHERE { res:Leuven_City ont:foundingYear ?x }")
    units = ["res:Leuven", "res:Leuven_City", "ont:foundingYear"]
    repaired = nations.repair([city], units, "When was KU Leuven founded?")
    assert repaired.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:Leuven ont:foundingYear ?x }")
    assert repaired.answered_in == 1 and repaired.answer.rows == (("1425",),)
    # one common word in lower case names no entity to put in ("sap has its main office": no river Main)
    for question, swaps in (("when was the critic hired", 0), ("When was the Critic hired", 1)):
        said = Said(question, nations.index)
        assert len(list(nations._named_swaps(city, said, ["res:Critic", *units], question))) == swaps


def test_an_ask_that_joins_an_entity_to_itself_is_false_for_its_form(nations: Repairer) -> None:
    itself = _tokens("ASK WHERE { res:France ont:namedAfter res:France }")
    assert nations.ruled_out(itself, token_types(itself, nations.prefixes))


def test_an_ask_whose_shape_the_kb_never_matches_is_false_for_its_form(nations: Repairer) -> None:
    """ "Is French one of Belgium's official languages?" decoded as a chain of official languages: no
    language has one, whatever the two named, so `false` says nothing and the next hypothesis answers."""
    chain = _tokens("ASK WHERE { res:Belgium ont:officialLanguage ?y . ?y ont:officialLanguage res:French }")
    assert nations.ruled_out(chain, token_types(chain, nations.prefixes))
    direct = _tokens("ASK WHERE { res:Belgium ont:officialLanguage res:French }")
    question = "Is French one of Belgium's official languages?"
    repaired = nations.repair(
        [chain, direct], ["res:Belgium", "ont:officialLanguage", "res:French"], question
    )
    assert repaired.tokens == direct and repaired.answer.boolean is True
    # a chain the KB has (a director's nationality's language) is false for the fact, not the form
    spoken = _tokens("ASK WHERE { res:Godard ont:nationality ?y . ?y ont:officialLanguage res:Dutch }")
    assert not nations.ruled_out(spoken, token_types(spoken, nations.prefixes))


def test_a_variable_one_pattern_alone_reads_is_the_entity_named_and_left_out(nations: Repairer) -> None:
    """ "Which element is named after Marie Curie?" decoded without her: `?v` says only "something"."""
    question = "Which element is named after Marie Curie?"
    some = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:namedAfter ?v }")
    units = ["res:Marie_Curie", "ont:ChemicalElement", "ont:namedAfter"]
    filled = nations.named_fills_dangling(some, Said(question, nations.index), units)
    assert filled is not None and filled[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:namedAfter res:Marie_Curie }"
    )
    assert nations.repair([some], units, question).answer.rows == (("http://repair.test/resource/Curium",),)
    # no element is named after Oppenheimer: the variable stays
    other = Said("Which element is named after Oppenheimer?", nations.index)
    assert nations.named_fills_dangling(some, other, ["res:Oppenheimer", "ont:namedAfter"]) is None


def test_an_entity_named_only_within_anothers_name_is_not_named_by_itself(nations: Repairer) -> None:
    """ "KU Leuven" names the university, not the city Leuven too; misspelt by a word, still in full."""
    units = ["res:Leuven", "res:Leuven_City"]
    assert nations.named_entities(Said("Who studied at KU Leuven?", nations.index), units) == ["res:Leuven"]
    assert nations.named_entities(Said("Who studied at KU Lueven?", nations.index), units) == ["res:Leuven"]
    both = Said("Who from Leuven studied at KU Leuven?", nations.index)
    assert nations.named_entities(both, units) == units


def test_an_answer_is_restricted_to_the_entity_named_before_it_is_taken_a_hop_further(
    nations: Repairer,
) -> None:
    """ "Which critic has the Sorbonne as alma mater?" answered by every critic: the one whose alma mater
    is the Sorbonne, not the alma maters of every critic."""
    critics = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:occupation res:Critic }")
    units = ["res:Critic", "ont:occupation", "ont:almaMater", "res:Sorbonne"]
    repaired = nations.repair([critics], units, "Which critic has the Sorbonne as alma mater?")
    assert repaired.answer.rows == (("http://repair.test/resource/Truffaut",),)


def test_a_named_entity_restricts_the_answer_through_an_element_it_points_to(nations: Repairer) -> None:
    """ "Which element is named after the discoverer of polonium?": Polonium's discoverer is what the
    element is named after (`?x ont:namedAfter ?_m . res:Polonium ont:discoverer ?_m`)."""
    elements = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:namedAfter ?v }")
    units = ["ont:ChemicalElement", "ont:namedAfter", "res:Polonium"]
    repaired = nations.repair([elements], units, "Which element is named after the discoverer of polonium?")
    assert repaired.answer.rows == (("http://repair.test/resource/Curium",),)


def test_the_value_a_query_reads_is_not_the_answer_when_its_answer_has_the_class_asked_for(
    nations: Repairer,
) -> None:
    """ "Which element is named after ...": `?x a ont:ChemicalElement` answers with the elements, not
    with what they are named after; "What are elements named after?" asks for that value."""
    elements = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:namedAfter ?v }")
    which = Said("Which element is named after a country?", nations.index)
    assert nations.dangling_value_asked(elements, which) is None
    what = nations.dangling_value_asked(elements, Said("What are elements named after?", nations.index))
    assert what is not None and what[0][:3] == ["select", "distinct", "?v"]


def test_the_noun_a_question_asks_for_names_the_element_whose_label_it_heads(nations: Repairer) -> None:
    """ "How many works ...": the head of "notable work"; a verb "work", or a noun nobody asks for, no."""
    assert Said("How many works is Hemingway known for?", nations.index).asked_head("ont:notableWork") == {
        "works"
    }
    assert not Said("Where does Hemingway work?", nations.index).asked_head("ont:notableWork")
    assert not Said("How many works is Hemingway known for?", nations.index).asked_head("ont:population")


KINDS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
res:Blade_Runner a ont:Film ; ont:basedOn res:Androids ; ont:director res:Ridley_Scott .
res:Androids a ont:Novel ; rdfs:label "Do Androids Dream of Electric Sheep?" ; ont:author res:Dick ;
    ont:publicationYear 1968 ; ont:genre res:Science_Fiction .
res:Exegesis a ont:Book ; rdfs:label "The Exegesis" ; ont:author res:Dick ; ont:publicationYear 2011 .
res:Saturn a ont:Planet ; rdfs:label "Saturn" ; ont:orbits res:Sun ; ont:orderFromSun 6 .
res:Titan a ont:Moon ; rdfs:label "Titan" ; ont:orbits res:Saturn .
"""


def test_an_answer_of_a_class_the_kb_says_all_of_a_books_of_stands_for_a_book(
    tmp_path: Path, prefixes: PrefixMap
) -> None:
    """No class hierarchy: a novel is a kind of book by what the KB says of it (an author, a year); a moon
    is no planet (planets have an order from the sun), a film no book."""
    (tmp_path / "kb.ttl").write_text(KINDS_TTL, encoding="utf-8")
    entries = [
        Entry("res:Blade_Runner", "entity", ("Blade Runner",)),
        Entry("ont:Book", "class", ("book",)),
        Entry("ont:basedOn", "property", ("based on",)),
    ]
    # the classes of the answers come from the index's facts
    types = [
        ("res:Blade_Runner", "a", "ont:Film"),
        ("res:Androids", "a", "ont:Novel"),
        ("res:Exegesis", "a", "ont:Book"),
        ("res:Saturn", "a", "ont:Planet"),
        ("res:Titan", "a", "ont:Moon"),
    ]
    with (
        EmbeddedStore([tmp_path / "kb.ttl"], prefixes=prefixes, timeout_s=10) as store,
        KBIndex.build(tmp_path / "index.sqlite", entries, facts=types) as index,
    ):
        repairer = Repairer(Recording(store), prefixes, index)

        def answer(*names: str) -> Answer:
            rows = tuple((f"http://repair.test/resource/{n}",) for n in names)
            return Answer(kind="select", variables=("x",), rows=rows)

        assert repairer.of_a_kind_of(answer("Androids"), "ont:Book")
        assert not repairer.of_a_kind_of(answer("Titan"), "ont:Planet")
        assert not repairer.of_a_kind_of(answer("Blade_Runner"), "ont:Book")
        assert not repairer.of_a_kind_of(answer("Androids", "Blade_Runner"), "ont:Book")
        # the KB says of moons here their name and what they orbit: too little to tell a kind of moon by
        assert not repairer.of_a_kind_of(answer("Saturn"), "ont:Moon")

        based_on = _tokens("SELECT DISTINCT ?x WHERE { res:Blade_Runner ont:basedOn ?x }")
        units = ["ont:Book", "ont:basedOn", "res:Blade_Runner"]
        repaired = repairer.repair([based_on], units, question="Which book is Blade Runner based on?")
        assert repaired.rounds[0].attempts[0].outcome == ANSWERED  # not the wrong kind: the answer stands
        assert repaired.tokens == based_on and repaired.answer is not None
        assert repaired.answer.rows == (("http://repair.test/resource/Androids",),)


BIRTHPLACES_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Elvis_Presley a ont:Person ; ont:birthPlace res:Tupelo ; ont:nationality res:United_States .
res:Tupelo a ont:City ; ont:locatedIn res:Mississippi ; ont:country res:United_States .
res:Mississippi a ont:State ; ont:country res:United_States .
res:United_States a ont:Country .
res:Ulm a ont:City ; ont:country res:Germany .
res:Albert_Einstein a ont:Person ; ont:birthPlace res:Ulm ; ont:nationality res:Germany .
res:Germany a ont:Country .
res:Mississippi a ont:Place . res:United_States a ont:Place .
res:Mississippi ont:locatedIn res:United_States . res:United_States ont:capital res:Washington .
res:Washington a ont:City . res:Tupelo a ont:City .
"""


def test_the_thing_of_the_kind_asked_that_a_said_place_lies_in_is_read_from_the_question(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which state was Elvis born in?" with no hypothesis near it: the state his birthplace, what
    "born" says, lies in. Not when the said property gives a thing of that kind itself ("Which country is
    Elvis a citizen of?" by nationality) or a thing of that kind has the named one as its value by it
    ("Which cities are located in Mississippi?"), nor when two facts lead on from the place (a city's
    country and its state both lead to places)."""
    entries = [
        Entry("res:Elvis_Presley", "entity", ("Elvis Presley", "Elvis")),
        Entry("res:Albert_Einstein", "entity", ("Albert Einstein", "Einstein")),
        Entry("ont:State", "class", ("state",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:Place", "class", ("place",)),
        Entry("ont:birthPlace", "property", ("birth place", "born")),
        Entry("ont:nationality", "property", ("nationality", "citizen")),
        Entry("res:Mississippi", "entity", ("Mississippi",)),
        Entry("ont:City", "class", ("city",)),
        Entry("ont:locatedIn", "property", ("located in",)),
    ]
    wrong = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:locatedIn res:United_States }")
    with _repairer_on(tmp_path, prefixes, BIRTHPLACES_TTL, entries) as repairer:
        units = ["res:Elvis_Presley", "ont:State", "ont:birthPlace"]
        state = repairer.repair([wrong], units, "Which state was Elvis born in?")
        assert state.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Elvis_Presley ont:birthPlace ?y . ?y ont:locatedIn ?x . ?x a ont:State }"
        )
        assert state.answer.rows == (("http://repair.test/resource/Mississippi",),)
        country = repairer.repair(
            [wrong],
            ["res:Albert_Einstein", "ont:Country", "ont:birthPlace"],
            "Which country was Einstein born in?",
        )
        assert country.answer.rows == (("http://repair.test/resource/Germany",),)
        question = "Which country is Elvis a citizen of?"
        units = ["res:Elvis_Presley", "ont:Country", "ont:nationality"]
        assert repairer.place_past_said(units, Said(question, repairer.index), "ont:Country") is None
        question = "Which place was Elvis born in?"  # his birthplace's state and country are both places
        units = ["res:Elvis_Presley", "ont:Place", "ont:birthPlace"]
        assert repairer.place_past_said(units, Said(question, repairer.index), "ont:Place") is None
        question = "Which cities are located in Mississippi?"  # a city is, by the said property itself
        units = ["res:Mississippi", "ont:City", "ont:locatedIn"]
        assert repairer.place_past_said(units, Said(question, repairer.index), "ont:City") is None


NIGER_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Niger a ont:Country ; ont:area 1267000 .
res:Niger_River a ont:River ; ont:length 4180 ; ont:flowsThrough res:Niger .
res:Nile a ont:River ; ont:length 6650 .
res:Rhine a ont:River ; ont:length 1230 .
"""


def test_an_entity_compared_with_by_a_measure_it_lacks_is_read_as_its_namesake_that_has_it(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Name the rivers that are longer than the Niger": the country Niger has no length, the Niger
    River has; the comparison reads the river's, whether a rule made it or the query took the entity as
    the value."""
    entries = [
        Entry("res:Niger", "entity", ("Niger",)),
        Entry("res:Niger_River", "entity", ("Niger River",)),
        Entry("ont:River", "class", ("river",)),
        Entry("ont:length", "property", ("length", "longer")),
    ]
    with _repairer_on(tmp_path, prefixes, NIGER_TTL, entries) as repairer:
        question = "Name the rivers that are longer than the Niger"
        units = ["ont:River", "ont:length", "res:Niger"]
        taken = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:River . ?x ont:length res:Niger }")
        longer = repairer.entity_as_value(taken, question, units)
        assert longer is not None and longer[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:River . ?x ont:length ?v . res:Niger_River ont:length ?_than ."
            " FILTER ( ?v > ?_than ) }"
        )
        every = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:River }")
        repaired = repairer.repair([every], units, question)
        assert repaired.answer.rows == (("http://repair.test/resource/Nile",),)


GROHL_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Nirvana a ont:Band ; ont:bandMember res:Dave_Grohl, res:Kurt_Cobain ; ont:hometown res:Aberdeen .
res:Dave_Grohl a ont:Person . res:Kurt_Cobain a ont:Person .
res:Aberdeen a ont:City .
"""


def test_a_where_question_is_not_answered_by_people(prefixes: PrefixMap, tmp_path: Path) -> None:
    """ "Where is Dave Grohl's band from?" decoded as the band's members: people answer no "where", so
    that reading is not kept; a "who" question keeps it."""
    entries = [
        Entry("res:Dave_Grohl", "entity", ("Dave Grohl",)),
        Entry("ont:Person", "class", ("person",)),
        Entry("ont:bandMember", "property", ("band member",)),
        Entry("ont:hometown", "property", ("hometown", "from")),
    ]
    facts = [("res:Dave_Grohl", "a", "ont:Person"), ("res:Kurt_Cobain", "a", "ont:Person")]
    members = _tokens("SELECT DISTINCT ?x WHERE { ?y ont:bandMember ?x . ?y ont:bandMember res:Dave_Grohl }")
    from_where = _tokens("SELECT DISTINCT ?x WHERE { ?y ont:bandMember res:Dave_Grohl . ?y ont:hometown ?x }")
    units = ["res:Dave_Grohl", "ont:bandMember", "ont:hometown"]
    with _repairer_on(tmp_path, prefixes, GROHL_TTL, entries, facts=facts) as repairer:
        where = repairer.repair([members, from_where], units, "Where is Dave Grohl's band from?")
        assert where.tokens != members and "Kurt_Cobain" not in str(where.answer.rows)
        who = repairer.repair([members, from_where], units, "Who played in Dave Grohl's band?")
        assert who.tokens == members


EURO_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:France a ont:Country ; ont:currency res:Euro ; ont:population 68000000 .
res:Malta a ont:Country ; ont:currency res:Euro ; ont:population 520000 .
res:Japan a ont:Country ; ont:currency res:Yen ; ont:population 124000000 .
"""


def test_a_chain_taken_one_hop_back_to_several_things_is_ranked_for_a_superlative(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which country that uses the euro has the fewest people?" decoded as the currencies of the
    countries that use the euro: one hop back it gives the countries, several of them, which the
    superlative ranks by the measure its unit names."""
    entries = [
        Entry("res:Euro", "entity", ("euro",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:currency", "property", ("currency", "uses")),
        Entry("ont:population", "property", ("population",)),
    ]
    there_and_back = _tokens("SELECT DISTINCT ?x WHERE { ?y ont:currency ?x . ?y ont:currency res:Euro }")
    units = ["res:Euro", "ont:Country", "ont:currency"]
    with _repairer_on(tmp_path, prefixes, EURO_TTL, entries) as repairer:
        fewest = repairer.repair(
            [there_and_back], units, "Which country that uses the euro has the fewest people?"
        )
        assert fewest.answer.rows == (("http://repair.test/resource/Malta",),)
        assert fewest.tokens[-4:] == ["(", "?v", ")", "limit", "1"][-4:]


TOPIC_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
res:Jaws a ont:Novel ; ont:author res:Peter_Benchley .
res:Jaws_film a ont:Film ; ont:basedOn res:Jaws ; ont:musicComposer res:John_Williams .
res:John_Williams a ont:Person ; ont:birthPlace res:Floral_Park ; ont:birthDate "1932-02-08"^^xsd:date .
res:Peter_Benchley a ont:Person ; ont:birthPlace res:New_York_City .
res:Ernest_Rutherford a ont:Person ; ont:nationality res:New_Zealand ; ont:birthPlace res:Brightwater .
res:New_Zealand a ont:Country ; ont:capital res:Wellington .
"""


def test_a_topic_before_the_question_names_the_thing_its_pronoun_points_back_to(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Jaws's composer - where was he born?": the composer of Jaws (the film: the novel has none),
    then his birthplace, the fact the question proper says that gives a place; "Ernest Rutherford's
    native country - what's its capital city?": the country the KB links him to, then its capital. Not
    without a pronoun pointing back to the topic."""
    entries = [
        Entry("res:Jaws", "entity", ("Jaws",)),
        Entry("res:Jaws_film", "entity", ("Jaws (film)",)),
        Entry("res:Ernest_Rutherford", "entity", ("Ernest Rutherford",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:musicComposer", "property", ("music composer", "composer")),
        Entry("ont:birthPlace", "property", ("birth place", "born")),
        Entry("ont:birthDate", "property", ("birth date", "born")),
        Entry("ont:capital", "property", ("capital", "capital city")),
        Entry("ont:nationality", "property", ("nationality",)),
    ]
    facts = [
        ("res:Ernest_Rutherford", "ont:nationality", "res:New_Zealand"),
        ("res:New_Zealand", "a", "ont:Country"),
    ]
    wrong = _tokens("ASK WHERE { res:Jaws_film ont:basedOn res:Jaws }")
    with _repairer_on(tmp_path, prefixes, TOPIC_TTL, entries, facts=facts) as repairer:
        units = ["res:Jaws", "res:Jaws_film", "ont:musicComposer", "ont:birthDate", "ont:birthPlace"]
        born = repairer.repair([wrong], units, "Jaws's composer - where was he born?")
        assert born.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Jaws_film ont:musicComposer ?y . ?y ont:birthPlace ?x }"
        )
        units = ["res:Ernest_Rutherford", "ont:Country", "ont:capital"]
        question = "Ernest Rutherford's native country - what's its capital city?"
        capital = repairer.topic_read(question, units, expected_of(question))
        assert capital is not None and capital[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Ernest_Rutherford ont:nationality ?y . ?y a ont:Country ."
            " ?y ont:capital ?x }"
        )
        question = "Ernest Rutherford's native country - what's the capital city?"
        assert repairer.topic_read(question, units, expected_of(question)) is None


def test_a_fact_of_the_wrong_kind_is_replaced_by_one_of_the_same_event(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "the guy behind the Jaws soundtrack was born where" decoded with his birth date, and no birth
    place linked: the property whose label opens with the same word ("birth place") gives the place."""
    entries = [
        Entry("res:Jaws_film", "entity", ("Jaws (film)",)),
        Entry("ont:musicComposer", "property", ("music composer", "soundtrack")),
        Entry("ont:birthDate", "property", ("birth date", "born")),
        Entry("ont:birthPlace", "property", ("birth place", "born")),
        Entry("ont:capital", "property", ("capital",)),
    ]
    dated = _tokens("SELECT DISTINCT ?x WHERE { res:Jaws_film ont:musicComposer ?y . ?y ont:birthDate ?x }")
    with _repairer_on(tmp_path, prefixes, TOPIC_TTL, entries) as repairer:
        units = ["res:Jaws_film", "ont:musicComposer", "ont:birthDate"]
        born = repairer.repair([dated], units, "the guy behind the Jaws soundtrack was born where")
        assert born.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Jaws_film ont:musicComposer ?y . ?y ont:birthPlace ?x }"
        )
        assert repairer._siblings("ont:birthDate") == ["ont:birthPlace"]
        assert repairer._siblings("ont:capital") == []  # a label of one word has none


SIBLING_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
res:Queen a ont:Band ; ont:bandMember res:Freddie_Mercury , res:Brian_May , res:John_Deacon .
res:Freddie_Mercury a ont:Person ; ont:birthPlace res:Zanzibar_City ; ont:birthDate "1946-09-05"^^xsd:date .
res:Brian_May a ont:Person ; ont:birthPlace res:London ; ont:birthDate "1947-07-19"^^xsd:date .
res:John_Deacon a ont:Person ; ont:birthPlace res:Leicester ; ont:birthDate "1951-08-19"^^xsd:date .
"""


def test_a_hop_to_the_place_of_an_event_the_question_dates_is_a_filter_on_its_date(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many members of Queen were born in the 1940s?" decoded as their birth places: the question
    dates the births, so it counts the members whose birth date (the birth place's sibling) is in the
    decade, or before a year; decoded as their birth dates, it counts the members too. A question naming
    no period or year asks the places."""
    entries = [
        Entry("res:Queen", "entity", ("Queen",)),
        Entry("ont:bandMember", "property", ("band member", "member")),
        Entry("ont:birthDate", "property", ("birth date", "born")),
        Entry("ont:birthPlace", "property", ("birth place", "born")),
    ]
    placed = _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { ?m ont:birthPlace ?x . res:Queen ont:bandMember ?m }"
    )
    listed = _tokens("SELECT DISTINCT ?x WHERE { res:Queen ont:bandMember ?m . ?m ont:birthPlace ?x }")
    with _repairer_on(tmp_path, prefixes, SIBLING_TTL, entries) as repairer:
        units = ["res:Queen", "ont:bandMember", "ont:birthPlace"]
        question = "How many members of Queen were born in the 1940s?"
        dated = repairer.dated_by_the_sibling(placed, question, Said(question, repairer.index))
        assert dated is not None and dated[0] == _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { res:Queen ont:bandMember ?x . ?x ont:birthDate ?v ."
            " FILTER(YEAR(?v) >= 1940 && YEAR(?v) < 1950) }"
        )
        assert repairer.repair([placed], units, question).answer.rows == (("2",),)
        deacon = repairer.repair([listed], units, "which members of queen were born in 1951")
        assert deacon.answer.rows == (("http://repair.test/resource/John_Deacon",),)
        before = repairer.repair([listed], units, "which members of queen were born before 1947")
        assert before.answer.rows == (("http://repair.test/resource/Freddie_Mercury",),)
        dates = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?count) WHERE { res:Queen ont:bandMember ?m . ?m ont:birthDate ?x }"
        )
        after = repairer.repair([dates], units, "how many members of queen were born after 1946")
        assert after.answer.rows == (("2",),)  # the members, not their birth dates, counted
        when = "when were the members of queen born"
        assert repairer.dated_by_the_sibling(dates, when, Said(when, repairer.index)) is None
        where = "Where were the members of Queen born?"
        assert repairer.dated_by_the_sibling(listed, where, Said(where, repairer.index)) is None
        # a year the question gives another event ("came out in 1979") dates no birth
        came = "Which member of Queen came out in 1979?"
        assert repairer.dated_by_the_sibling(listed, came, Said(came, repairer.index)) is None


def test_the_class_asked_for_is_joined_to_the_named_through_one_thing_when_no_fact_joins_them(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Intel's home city is in which US state?" when no hypothesis answers: no fact joins a state to
    Intel, so the states are joined to it by the path the KB most often takes between the two (the city a
    state holds, that is Intel's headquarters)."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Intel a ont:Company ; ont:headquarters res:Santa_Clara ; ont:founder res:Gordon_Moore .
res:Santa_Clara a ont:City ; ont:locatedIn res:California .
res:California a ont:State .
res:Gordon_Moore a ont:Person ; ont:birthPlace res:San_Francisco .
"""
    facts = [
        ("res:Intel", "ont:headquarters", "res:Santa_Clara"),
        ("res:Intel", "ont:founder", "res:Gordon_Moore"),
        ("res:Santa_Clara", "ont:locatedIn", "res:California"),
        ("res:California", "a", "ont:State"),
        ("res:Santa_Clara", "a", "ont:City"),
    ]
    entries = [Entry("res:Intel", "entity", ("Intel",)), Entry("ont:State", "class", ("state",))]
    with _repairer_on(tmp_path, prefixes, ttl, entries, facts=facts) as repairer:
        question = "Intel's home city is in which US state?"
        said = Said(question, repairer.index)
        joined = repairer.class_joined_to_named("ont:State", said, ["res:Intel", "ont:State"], False)
        assert joined == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:State . ?_j0 ont:locatedIn ?x . res:Intel ont:headquarters ?_j0 }"
        )
        empty = _tokens("SELECT DISTINCT ?x WHERE { res:Intel ont:hometown ?y . ?y ont:locatedIn ?x }")
        repaired = repairer.repair([empty], ["res:Intel", "ont:State"], question)
        assert repaired.answer.rows == (("http://repair.test/resource/California",),)


def test_an_ask_no_by_a_property_neither_end_can_take_the_other_place_of_holds_by_a_linked_one(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "enzo ferrari was a racing driver too, wasn't he" decoded as the job's birth place, Ferrari: no
    birth place is a person or a job, either way round, and the question says no birth, so the property
    the linker read that links the two (occupation) asks it. A question that says the property keeps
    its "no" ("Did Enzo Ferrari study in Modena?": he studied, not in a town)."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Enzo_Ferrari a ont:Person ; ont:occupation res:Racing_driver ; ont:birthPlace res:Modena ;
    ont:almaMater res:Politecnico_di_Milano .
res:Racing_driver a ont:Occupation .
res:Modena a ont:City .
"""
    facts = [
        ("res:Enzo_Ferrari", "ont:occupation", "res:Racing_driver"),
        ("res:Enzo_Ferrari", "ont:birthPlace", "res:Modena"),
    ]
    entries = [
        Entry("res:Enzo_Ferrari", "entity", ("Enzo Ferrari",)),
        Entry("res:Racing_driver", "entity", ("racing driver",)),
        Entry("res:Modena", "entity", ("Modena",)),
        Entry("ont:occupation", "property", ("occupation",)),
        Entry("ont:birthPlace", "property", ("birth place", "born")),
        Entry("ont:almaMater", "property", ("alma mater", "study")),
    ]
    backwards = _tokens("ASK WHERE { res:Racing_driver ont:birthPlace res:Enzo_Ferrari }")
    with _repairer_on(tmp_path, prefixes, ttl, entries, facts=facts) as repairer:
        units = ["res:Enzo_Ferrari", "res:Racing_driver", "ont:occupation", "ont:birthPlace"]
        question = "enzo ferrari was a racing driver too, wasn't he"
        repaired = repairer.repair([backwards], units, question)
        assert repaired.tokens == _tokens("ASK WHERE { res:Enzo_Ferrari ont:occupation res:Racing_driver }")
        assert repaired.answer.boolean is True
        unlinked = [u for u in units if u != "ont:occupation"]  # no property the linker read links them
        assert repairer.linked_otherwise(backwards, unlinked, Said(question, repairer.index)) == []
        studied = _tokens("ASK WHERE { res:Modena ont:almaMater res:Enzo_Ferrari }")
        said = Said("Did Enzo Ferrari study in Modena?", repairer.index)
        assert repairer.linked_otherwise(studied, [*units, "ont:almaMater"], said) == []


IDIOM_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Marie_Curie a ont:Person ; ont:occupation res:Physicist , res:Chemist .
res:Queen a ont:Band ; ont:bandMember res:Roger_Taylor ; ont:genre res:Rock_music .
res:Roger_Taylor a ont:Person ; ont:occupation res:Drummer .
res:Messiah a ont:MusicalWork ; ont:genre res:Oratorio .
"""


def test_a_property_asked_for_by_an_idiom_is_read_from_the_question(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "What did Marie Curie do for a living?": no name of the occupation is said, the idiom asks for it;
    "What do the members of Queen do for a living?" asks it of the things the one property the question
    says links the band to, else the one the KB has; "What kind of musical work is the Messiah?" asks for
    a genre. Not without an idiom, nor of an entity that lacks the property with nothing leading to one
    that has it."""
    entries = [
        Entry("res:Marie_Curie", "entity", ("Marie Curie",)),
        Entry("res:Queen", "entity", ("Queen",)),
        Entry("res:Roger_Taylor", "entity", ("Roger Taylor",)),
        Entry("res:Messiah", "entity", ("Messiah",)),
        Entry("ont:occupation", "property", ("occupation", "job")),
        Entry("ont:genre", "property", ("genre",)),
        Entry("ont:bandMember", "property", ("band member", "member", "members")),
    ]
    facts = [
        ("res:Queen", "ont:bandMember", "res:Roger_Taylor"),
        ("res:Messiah", "ont:genre", "res:Oratorio"),
    ]
    facts += [("res:Roger_Taylor", "ont:occupation", "res:Drummer")]
    with _repairer_on(tmp_path, prefixes, IDIOM_TTL, entries, facts=facts) as repairer:

        def read(question: str, units: list[str]) -> list[str] | None:
            found = repairer.idiom_read(question, units, Said(question, repairer.index))
            return None if found is None else found[0]

        living = "What did Marie Curie do for a living?"
        assert read(living, ["res:Marie_Curie"]) == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Marie_Curie ont:occupation ?x }"
        )
        trade = "roger taylor from queen, what's his trade"
        assert read(trade, ["res:Roger_Taylor", "res:Queen"]) == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Roger_Taylor ont:occupation ?x }"
        )
        members = "What do the members of Queen do for a living?"
        assert read(members, ["res:Queen", "ont:bandMember"]) == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Queen ont:bandMember ?y . ?y ont:occupation ?x }"
        )
        assert read("What does the Messiah do for a living?", ["res:Messiah"]) is None
        # no property said: the one property of the KB that leads from the band to people with jobs
        assert read("What do Queen do for a living?", ["res:Queen"]) == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Queen ont:bandMember ?y . ?y ont:occupation ?x }"
        )
        assert read("What kind of musical work is the Messiah?", ["res:Messiah"]) == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Messiah ont:genre ?x }"
        )
        assert read("Who was Marie Curie married to?", ["res:Marie_Curie"]) is None
        wrong = _tokens("SELECT DISTINCT ?x WHERE { res:Marie_Curie ont:genre ?x }")
        repaired = repairer.repair([wrong], ["res:Marie_Curie", "ont:genre"], living)
        assert set(repaired.answer.rows) == {
            ("http://repair.test/resource/Physicist",),
            ("http://repair.test/resource/Chemist",),
        }


CLAUSE_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Lego a ont:Company ; ont:founder res:Ole_Kirk_Christiansen ; ont:foundingYear 1932 ; ont:industry res:Toys .
res:Ole_Kirk_Christiansen a ont:Person .
res:Jane_Goodall a ont:Person ; ont:almaMater res:Newnham_College .
res:Newnham_College a ont:University ; ont:foundingYear 1871 .
res:Uranus a ont:Planet ; ont:discoverer res:William_Herschel ; ont:orbits res:Sun .
res:Titania a ont:Moon ; ont:orbits res:Uranus .
res:Pink_Floyd a ont:Band ; ont:bandMember res:Syd_Barrett ; ont:formationYear 1965 .
res:Pico_de_Orizaba ont:country res:Mexico .
res:Mexico a ont:Country ; ont:currency res:Mexican_peso ; ont:capital res:Mexico_City .
res:Mexican_peso a ont:Currency .
"""


def test_a_thing_a_relative_clause_names_is_the_thing_the_question_asks_about(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "When was the university Jane Goodall attended founded?": the university the KB links her to,
    then its founding year; "What does the company Ole Kirk Christiansen founded make?": the company he
    founded, then the one fact of it the question says nothing else of (its industry; "founded" says the
    founder, not the founding year); "moons orbiting the planet William Herschel discovered": the fact
    the other way round, the moons that orbit it. Not without "the" and the class right before the named
    entity."""
    entries = [
        Entry("res:Jane_Goodall", "entity", ("Jane Goodall",)),
        Entry("res:Ole_Kirk_Christiansen", "entity", ("Ole Kirk Christiansen",)),
        Entry("ont:University", "class", ("university",)),
        Entry("ont:Company", "class", ("company",)),
        Entry("ont:almaMater", "property", ("alma mater", "attended")),
        Entry("ont:foundingYear", "property", ("founding year", "founded")),
        Entry("ont:founder", "property", ("founder", "founded")),
        Entry("ont:industry", "property", ("industry",)),
        Entry("res:William_Herschel", "entity", ("William Herschel",)),
        Entry("ont:Planet", "class", ("planet",)),
        Entry("ont:Moon", "class", ("moon",)),
        Entry("ont:orbits", "property", ("orbits", "orbiting")),
        Entry("ont:discoverer", "property", ("discoverer", "discovered")),
        Entry("res:Syd_Barrett", "entity", ("Syd Barrett",)),
        Entry("ont:Band", "class", ("band",)),
        Entry("ont:bandMember", "property", ("band member",)),
        Entry("ont:formationYear", "property", ("formation year", "formed")),
        Entry("res:Pico_de_Orizaba", "entity", ("Pico de Orizaba",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:Currency", "class", ("currency", "money")),
        Entry("ont:country", "property", ("country",)),
        Entry("ont:currency", "property", ("currency",)),
        Entry("ont:capital", "property", ("capital",)),
    ]
    facts = [
        ("res:Pink_Floyd", "ont:bandMember", "res:Syd_Barrett"),
        ("res:Pink_Floyd", "a", "ont:Band"),
        ("res:Pink_Floyd", "ont:formationYear", MEASURED),
        ("res:Pico_de_Orizaba", "ont:country", "res:Mexico"),
        ("res:Mexico", "a", "ont:Country"),
        ("res:Mexican_peso", "a", "ont:Currency"),
        ("res:Uranus", "ont:discoverer", "res:William_Herschel"),
        ("res:Uranus", "a", "ont:Planet"),
        ("res:Jane_Goodall", "ont:almaMater", "res:Newnham_College"),
        ("res:Newnham_College", "a", "ont:University"),
        ("res:Lego", "ont:founder", "res:Ole_Kirk_Christiansen"),
        ("res:Lego", "a", "ont:Company"),
    ]
    with _repairer_on(tmp_path, prefixes, CLAUSE_TTL, entries, facts=facts) as repairer:
        question = "When was the university Jane Goodall attended founded?"
        units = ["ont:University", "res:Jane_Goodall", "ont:almaMater", "ont:foundingYear"]
        wrong = _tokens("SELECT DISTINCT ?x WHERE { res:Jane_Goodall ont:foundingYear ?x }")
        founded = repairer.repair([wrong], units, question)
        assert founded.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Jane_Goodall ont:almaMater ?y . ?y a ont:University ."
            " ?y ont:foundingYear ?x }"
        )
        assert founded.answer.rows == (("1871",),)
        question = "What does the company Ole Kirk Christiansen founded make?"
        units = [
            "ont:Company",
            "res:Ole_Kirk_Christiansen",
            "ont:founder",
            "ont:foundingYear",
            "ont:industry",
        ]
        made = repairer.clause_read(question, units, Said(question, repairer.index), expected_of(question))
        assert made is not None and made[0][-4:] == ["?y", "ont:industry", "?x", "}"]
        question = "moons orbiting the planet William Herschel discovered"  # the moons are the subjects
        units = ["ont:Moon", "ont:Planet", "res:William_Herschel", "ont:orbits", "ont:discoverer"]
        moons = repairer.clause_read(question, units, Said(question, repairer.index), expected_of(question))
        assert moons is not None and moons[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?y ont:discoverer res:William_Herschel . ?y a ont:Planet ."
            " ?x ont:orbits ?y . ?x a ont:Moon }"
        )
        question = "The band Syd Barrett helped start was formed in which year?"  # a measure of bands
        units = ["ont:Band", "res:Syd_Barrett", "ont:founder", "ont:foundingYear"]
        formed = repairer.clause_read(question, units, Said(question, repairer.index), expected_of(question))
        assert formed is not None and formed[0][-4:] == ["?y", "ont:formationYear", "?x", "}"]
        question = "what money is used in the country that's home to pico de orizaba"  # words between
        units = [
            "ont:currency",
            "ont:Country",
            "ont:country",
            "res:Pico_de_Orizaba",
            "ont:Currency",
            "ont:capital",
        ]
        money = repairer.clause_read(question, units, Said(question, repairer.index), expected_of(question))
        assert money is not None and money[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { res:Pico_de_Orizaba ont:country ?y . ?y a ont:Country ."
            " ?y ont:currency ?x . ?x a ont:Currency }"
        )
        question = "When was a university Jane Goodall liked founded?"
        units = ["ont:University", "res:Jane_Goodall", "ont:foundingYear"]
        assert (
            repairer.clause_read(question, units, Said(question, repairer.index), expected_of(question))
            is None
        )


READINGS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Vltava a ont:River ; ont:flowsThrough res:Czechia .
res:Czechia a ont:Country ; ont:population 10900000 ; ont:area 78871 ; ont:officialLanguage res:Czech ;
    ont:capital res:Prague .
res:Latvia a ont:Country ; ont:population 1900000 ; ont:area 64589 ; ont:officialLanguage res:English .
res:Canada a ont:Country ; ont:population 38000000 ; ont:area 9984670 ; ont:officialLanguage res:English ;
    ont:capital res:Ottawa .
res:India a ont:Country ; ont:population 1400000000 ; ont:area 3287263 ; ont:officialLanguage res:English ;
    ont:capital res:New_Delhi .
res:Mumbai a ont:City ; ont:country res:India .
res:Ottawa a ont:City ; ont:country res:Canada .
res:New_Delhi a ont:City ; ont:country res:India .
res:Germany a ont:Country .
res:Germanium a ont:ChemicalElement ; ont:namedAfter res:Germany .
res:Einsteinium a ont:ChemicalElement ; ont:namedAfter res:Albert_Einstein .
res:Albert_Einstein a ont:Person ; ont:nationality res:Germany .
res:Stanley_Kubrick a ont:Person .
res:Spartacus a ont:Film ; ont:director res:Stanley_Kubrick ; ont:releaseYear 1960 .
res:A_Space_Odyssey a ont:Film ; ont:director res:Stanley_Kubrick ; ont:releaseYear 1968 .
res:The_Shining a ont:Film ; ont:director res:Stanley_Kubrick ; ont:releaseYear 1980 .
res:Lolita_film a ont:Film ; ont:director res:Stanley_Kubrick ; ont:basedOn res:Lolita .
res:Lolita a ont:Novel ; ont:author res:Vladimir_Nabokov ; ont:language res:English .
"""
READING_ENTRIES = [
    Entry("res:Vltava", "entity", ("Vltava",)),
    Entry("res:Latvia", "entity", ("Latvia",)),
    Entry("res:English", "entity", ("English",)),
    Entry("res:Germany", "entity", ("Germany",)),
    Entry("res:Stanley_Kubrick", "entity", ("Stanley Kubrick", "Kubrick")),
    Entry("res:A_Space_Odyssey", "entity", ("2001: A Space Odyssey (film)",)),
    Entry("res:Lolita_film", "entity", ("Lolita (1962 film)",)),
    Entry("res:Lolita", "entity", ("Lolita",)),
    Entry("ont:Country", "class", ("country",)),
    Entry("ont:City", "class", ("city",)),
    Entry("ont:ChemicalElement", "class", ("chemical element", "element")),
    Entry("ont:Film", "class", ("film",)),
    Entry("ont:flowsThrough", "property", ("flows through",)),
    Entry("ont:population", "property", ("population",)),
    Entry("ont:area", "property", ("area",)),
    Entry("ont:officialLanguage", "property", ("official language",)),
    Entry("ont:capital", "property", ("capital", "capital city")),
    Entry("ont:country", "property", ("country",)),
    Entry("ont:namedAfter", "property", ("named after",)),
    Entry("ont:nationality", "property", ("nationality",)),
    Entry("ont:director", "property", ("director",)),
    Entry("ont:releaseYear", "property", ("release year", "came out")),
    Entry("ont:basedOn", "property", ("based on",)),
    Entry("ont:author", "property", ("author", "written", "wrote")),
    Entry("ont:language", "property", ("language",)),
]


@pytest.fixture
def readings(prefixes: PrefixMap, tmp_path: Path) -> Iterator[Repairer]:
    with _repairer_on(tmp_path, prefixes, READINGS_TTL, READING_ENTRIES) as repairer:
        yield repairer


def test_an_idiom_that_asks_how_many_people_live_somewhere_asks_for_a_population(readings: Repairer) -> None:
    """ "How many people live in Latvia?" asks for its population, not a count of people, and so does
    "how many people live in the country the vltava flows through", through the property it says; the
    idiom is read only of a question that asks how many."""

    def read(question: str, units: list[str], counted: bool = True) -> list[str] | None:
        found = readings.idiom_read(question, units, Said(question, readings.index), counted)
        return None if found is None else found[0]

    assert read("How many people live in Latvia?", ["res:Latvia"]) == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Latvia ont:population ?x }"
    )
    river = "how many people live in the country the vltava flows through"
    assert read(river, ["res:Vltava", "ont:Country", "ont:country", "ont:flowsThrough"]) == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Vltava ont:flowsThrough ?y . ?y ont:population ?x }"
    )
    assert read("How many people live in Latvia?", ["res:Latvia"], counted=False) is None
    assert read("How many countries border Latvia?", ["res:Latvia"]) is None


def test_a_place_named_by_its_people_is_read_as_people_of_that_nationality(readings: Repairer) -> None:
    """ "How many elements are named after Germans?" decoded as named after Germany: named after people
    whose nationality is Germany. Not when the question names the country itself."""
    decoded = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:namedAfter res:Germany }")
    question = "Which elements are named after Germans?"
    read = readings.people_of_place(decoded, Said(question, readings.index))
    assert read is not None and read[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:ChemicalElement . ?x ont:namedAfter ?_n ."
        " ?_n ont:nationality res:Germany }"
    )
    assert (
        readings.people_of_place(decoded, Said("Which elements are named after Germany?", readings.index))
        is None
    )
    units = ["ont:ChemicalElement", "ont:namedAfter", "res:Germany"]
    repaired = readings.repair([decoded], units, question)
    assert repaired.answer.rows == (("http://repair.test/resource/Einsteinium",),)


def test_a_superlative_by_a_measure_it_names_after_by_is_not_ordered_by_another(readings: Repairer) -> None:
    """ "the largest country by area where English is official" ordered by population is ordered by
    no measure it asks for; ordered by area it is."""
    question = "What's the largest country by area where English is an official language?"
    by = "SELECT DISTINCT ?x WHERE {{ ?x ont:officialLanguage res:English . ?x ont:{} ?v }} ORDER BY DESC(?v) LIMIT 1"
    assert readings.orders_by_no_measure(_tokens(by.format("population")), question)
    assert not readings.orders_by_no_measure(_tokens(by.format("area")), question)
    assert not readings.orders_by_no_measure(
        _tokens(by.format("population")), "the largest english speaking country"
    )
    units = ["ont:population", "ont:Country", "ont:area", "res:English", "ont:officialLanguage"]
    wrong = _tokens(by.format("officialLanguage"))
    assert readings.repair([wrong], units, question).answer.rows == (("http://repair.test/resource/Canada",),)


def test_a_number_within_the_name_of_the_thing_compared_with_is_no_value_to_compare(
    readings: Repairer,
) -> None:
    """ "Which Kubrick films came out after 2001: A Space Odyssey?": 2001 is the film's name, so the
    films are compared with the film's release year, not with the year 2001."""
    question = "Which Kubrick films came out after 2001: A Space Odyssey?"
    units = ["res:Stanley_Kubrick", "ont:Film", "ont:releaseYear", "2001", "res:A_Space_Odyssey"]
    decoded = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Stanley_Kubrick }")
    found = readings.comparison_left_out(decoded, question, units)
    assert found is not None
    assert "res:A_Space_Odyssey" in found[0] and "2001" not in found[0]
    assert found[1].rows == (("http://repair.test/resource/The_Shining",),)
    films = readings.comparison_left_out(
        decoded, "Which Kubrick films came out after 1965?", [*units[:3], "1965"]
    )
    assert films is not None and "1965" in films[0]


def test_a_question_after_a_topic_asks_first_for_the_fact_its_noun_names(readings: Repairer) -> None:
    """ "Kubrick's Lolita is based on a novel - what language was it written in?": "written" says the
    author, but the question asks for a language."""
    question = "Kubrick's Lolita is based on a novel - what language was it written in?"
    units = [
        "res:Stanley_Kubrick",
        "res:Lolita",
        "res:Lolita_film",
        "ont:basedOn",
        "ont:author",
        "ont:language",
    ]
    read = readings.topic_read(question, units, expected_of(question))
    assert read is not None and read[0] == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Lolita_film ont:basedOn ?y . ?y ont:language ?x }"
    )


def test_things_of_the_wrong_class_go_one_hop_first_by_the_property_the_asked_noun_names(
    readings: Repairer,
) -> None:
    """ "How many capital cities do the countries where English is official have between them?" answered
    by the countries: one hop further by the capital ("capital cities"), before the cities in them."""
    question = "English is official in several countries. How many capital cities do they have between them?"
    units = ["res:English", "ont:Country", "ont:country", "ont:officialLanguage", "ont:capital", "ont:City"]
    decoded = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ont:officialLanguage res:English }")
    repaired = readings.repair([decoded], units, question)
    assert "ont:capital" in repaired.tokens and repaired.answer.rows == (("2",),)


def test_the_class_joined_to_the_named_is_ranked_when_the_question_asks_for_the_top_one(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Highest mountain in a country that uses the euro" when no hypothesis answers: the mountains
    joined to the euro through their country, ranked by their one measure."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Mont_Blanc a ont:Mountain ; ont:country res:France ; ont:elevation 4808 .
res:Zugspitze a ont:Mountain ; ont:country res:Germany ; ont:elevation 2962 .
res:Everest a ont:Mountain ; ont:country res:Nepal ; ont:elevation 8849 .
res:France a ont:Country ; ont:currency res:Euro .
res:Germany a ont:Country ; ont:currency res:Euro .
res:Nepal a ont:Country ; ont:currency res:Nepalese_rupee .
"""
    facts = [
        ("res:Mont_Blanc", "ont:country", "res:France"),
        ("res:Zugspitze", "ont:country", "res:Germany"),
        ("res:Everest", "ont:country", "res:Nepal"),
        ("res:France", "ont:currency", "res:Euro"),
        ("res:Germany", "ont:currency", "res:Euro"),
        ("res:Nepal", "ont:currency", "res:Nepalese_rupee"),
        *((m, "a", "ont:Mountain") for m in ("res:Mont_Blanc", "res:Zugspitze", "res:Everest")),
        *((m, "ont:elevation", MEASURED) for m in ("res:Mont_Blanc", "res:Zugspitze", "res:Everest")),
    ]
    entries = [
        Entry("res:Euro", "entity", ("Euro",)),
        Entry("ont:Mountain", "class", ("mountain",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:country", "property", ("country",)),
        Entry("ont:currency", "property", ("currency",)),
        Entry("ont:elevation", "property", ("elevation", "highest")),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, facts=facts, max_rounds=1) as repairer:
        question = "Highest mountain in a country that uses the euro"
        decoded = _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:country res:Euro . ?x ont:currency ?v } ORDER BY DESC(?v) LIMIT 1"
        )
        units = ["ont:elevation", "ont:Mountain", "ont:Country", "ont:country", "ont:currency", "res:Euro"]
        repaired = repairer.repair([decoded], units, question)
        assert repaired.answer.rows == (("http://repair.test/resource/Mont_Blanc",),)


def test_things_of_two_classes_asked_for_are_not_typed_by_one(prefixes: PrefixMap, tmp_path: Path) -> None:
    """ "Which planets and moons were discovered in 1846?" decoded as planets alone: the question asks
    for things of both classes, so neither types the answer; one class alone still does."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Neptune a ont:Planet ; ont:discoveryYear 1846 .
res:Triton a ont:Moon ; ont:discoveryYear 1846 .
res:Uranus a ont:Planet ; ont:discoveryYear 1781 .
"""
    entries = [
        Entry("ont:Planet", "class", ("planet",)),
        Entry("ont:Moon", "class", ("moon",)),
        Entry("ont:discoveryYear", "property", ("discovery year", "discovered")),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries) as repairer:
        units = ["ont:Planet", "ont:Moon", "ont:discoveryYear", "1846"]
        question = "Which planets and moons were discovered in 1846?"
        assert repairer.asked_classes(question, units) == ["ont:Planet", "ont:Moon"]
        assert repairer.asked_class(question, units) is None
        assert repairer.asked_class("Which planets were discovered in 1846?", units) == "ont:Planet"
        decoded = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Planet . ?x ont:discoveryYear 1846 }")
        assert repairer.untyped_for_two(decoded, question, units) == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:discoveryYear 1846 }"
        )
        repaired = repairer.repair([decoded], units, question)
        assert set(repaired.answer.rows) == {
            ("http://repair.test/resource/Neptune",),
            ("http://repair.test/resource/Triton",),
        }
        assert repairer.untyped_for_two(decoded, "Which planets were discovered in 1846?", units) is None


@pytest.mark.parametrize("with_instruments", [False, True])
def test_what_instrument_asks_for_an_occupation_unless_the_kb_has_instruments(
    prefixes: PrefixMap, tmp_path: Path, with_instruments: bool
) -> None:
    """ "What instrument did Roger Taylor play?" in a KB whose people have occupations and no instrument
    property: his occupation (the drummer); a KB with an instrument property answers it by that."""
    entries = [
        Entry("res:Roger_Taylor", "entity", ("Roger Taylor",)),
        Entry("ont:occupation", "property", ("occupation",)),
        *([Entry("ont:instrument", "property", ("instrument",))] if with_instruments else []),
    ]
    with _repairer_on(tmp_path, prefixes, IDIOM_TTL, entries) as repairer:
        question = "What instrument did Roger Taylor play?"
        read = repairer.idiom_read(question, ["res:Roger_Taylor"], Said(question, repairer.index))
        if with_instruments:
            assert read is None
        else:
            assert read is not None and read[0] == _tokens(
                "SELECT DISTINCT ?x WHERE { res:Roger_Taylor ont:occupation ?x }"
            )


def test_a_class_apart_from_the_rest_is_first_read_as_the_thing_the_rest_names(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "the countries on the mekong use how many currencies between them" decoded as `?x a ont:Country .
    res:Mekong ont:flowsThrough ?y`: the countries are the things it flows through, not the countries of
    those things (its cities' countries leave out the countries it crosses with no city named)."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Mekong a ont:River ; ont:flowsThrough res:Laos , res:Cambodia , res:Phnom_Penh .
res:Laos a ont:Country ; ont:currency res:Kip .
res:Cambodia a ont:Country ; ont:currency res:Riel .
res:Thailand a ont:Country ; ont:currency res:Baht .
res:Phnom_Penh a ont:City ; ont:country res:Thailand .
res:Kip a ont:Currency .
res:Riel a ont:Currency .
res:Baht a ont:Currency .
"""
    entries = [
        Entry("res:Mekong", "entity", ("Mekong",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:Currency", "class", ("currency",)),
        Entry("ont:country", "property", ("country",)),
        Entry("ont:flowsThrough", "property", ("flows through",)),
        Entry("ont:currency", "property", ("currency",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries) as repairer:
        question = "the countries on the mekong use how many currencies between them"
        units = [
            "ont:Country",
            "ont:country",
            "res:Mekong",
            "ont:flowsThrough",
            "ont:currency",
            "ont:Currency",
        ]
        decoded = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Country . res:Mekong ont:flowsThrough ?y }"
        )
        repaired = repairer.repair([decoded], units, question)
        assert "ont:currency" in repaired.tokens and repaired.answer.rows == (("2",),)


SHOES_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Adidas a ont:Company ; ont:headquarters res:Herzogenaurach ; ont:founder res:Adolf_Dassler .
res:Puma a ont:Company ; ont:headquarters res:Herzogenaurach ; ont:founder res:Rudolf_Dassler .
res:Nike a ont:Company ; ont:headquarters res:Beaverton ; ont:founder res:Phil_Knight .
res:Herzogenaurach a ont:Town .
res:Beaverton a ont:Town .
res:Adolf_Dassler a ont:Person .
res:Rudolf_Dassler a ont:Person .
res:Phil_Knight a ont:Person .
"""
SHOES = [
    Entry("res:Adidas", "entity", ("Adidas",)),
    Entry("res:Puma", "entity", ("Puma",)),
    Entry("res:Nike", "entity", ("Nike",)),
    Entry("res:Herzogenaurach", "entity", ("Herzogenaurach",)),
    Entry("res:Adolf_Dassler", "entity", ("Adolf Dassler",)),
    Entry("ont:headquarters", "property", ("headquarters", "based")),
    Entry("ont:founder", "property", ("founder", "founded")),
    Entry("ont:Company", "class", ("company",)),
]


def test_two_things_asked_to_have_the_same_value_are_asked_whether_they_share_one(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Are Adidas and Puma based in the same town?" decoded as whether Puma's headquarters is Adidas:
    the question asks whether the two have one value of the property, and "same ... as" asks for the
    things with the named one's value, the named one left out."""
    with _repairer_on(tmp_path, prefixes, SHOES_TTL, SHOES, max_rounds=1) as repairer:
        units = ["res:Adidas", "res:Puma", "ont:headquarters"]
        one_in_the_other = _tokens("ASK WHERE { res:Puma ont:headquarters res:Adidas }")
        same = repairer.repair([one_in_the_other], units, "Are Adidas and Puma based in the same town?")
        assert same.tokens == _tokens(
            "ASK WHERE { res:Puma ont:headquarters ?_same . res:Adidas ont:headquarters ?_same }"
        )
        assert same.answer.boolean is True
        units = ["res:Nike", "res:Puma", "ont:headquarters"]
        other = repairer.repair(
            [_tokens("ASK WHERE { res:Nike ont:headquarters res:Puma }")],
            units,
            "is nike based in the same town as puma",
        )
        assert other.answer.boolean is False and "?_same" in other.tokens
        # a value the property takes is no second thing asked of: the fact may hold as it is
        founded = _tokens("ASK WHERE { res:Adidas ont:founder res:Adolf_Dassler }")
        question = "did adidas and adolf dassler start the same year"
        said = Said(question, repairer.index)
        assert repairer.shared_value(founded, question, said, ["res:Adidas", "res:Adolf_Dassler"]) is None
        # without "same", the query is the model's
        plain = repairer.repair([one_in_the_other], ["res:Adidas", "res:Puma"], "Is Puma based in Adidas?")
        assert plain.tokens == one_in_the_other
        valued = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:headquarters res:Adidas }")
        alike = repairer.repair(
            [valued], ["res:Adidas"], "which companies are based in the same town as adidas"
        )
        assert alike.answer.rows == (("http://repair.test/resource/Puma",),)
        value_of = _tokens("SELECT DISTINCT ?x WHERE { res:Adidas ont:headquarters ?x }")
        asked = repairer.repair([value_of], ["res:Adidas"], "which company is in the same town as adidas")
        assert asked.answer.rows == (("http://repair.test/resource/Puma",),)


def test_the_same_year_is_asked_of_a_property_of_time_and_full_dates_by_their_years(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "did phobos and deimos get discovered in the same year" decoded by discoverer asks of the
    discovery years; "who was born the same year as einstein" decoded by spouse asks for people whose
    birth date falls in Einstein's birth year, Einstein left out."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
res:Phobos a ont:Moon ; ont:discoverer res:Asaph_Hall ; ont:discoveryYear "1877"^^xsd:integer .
res:Deimos a ont:Moon ; ont:discoverer res:Asaph_Hall ; ont:discoveryYear "1877"^^xsd:integer .
res:Asaph_Hall a ont:Person ; ont:birthDate "1829-10-15"^^xsd:date .
res:Albert_Einstein a ont:Person ; ont:birthDate "1879-03-14"^^xsd:date ; ont:spouse res:Mileva_Maric .
res:Otto_Hahn a ont:Person ; ont:birthDate "1879-03-08"^^xsd:date .
res:Mileva_Maric a ont:Person ; ont:birthDate "1875-12-19"^^xsd:date ; ont:spouse res:Albert_Einstein .
"""
    entries = [
        Entry("res:Phobos", "entity", ("Phobos",)),
        Entry("res:Deimos", "entity", ("Deimos",)),
        Entry("res:Albert_Einstein", "entity", ("Albert Einstein",)),
        Entry("ont:discoverer", "property", ("discoverer", "discovered")),
        Entry("ont:discoveryYear", "property", ("discovery year", "discovered")),
        Entry("ont:birthDate", "property", ("birth date", "born")),
        Entry("ont:spouse", "property", ("spouse",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=1) as repairer:
        moons = ["res:Phobos", "res:Deimos", "ont:discoverer", "ont:discoveryYear"]
        by_whom = _tokens("ASK WHERE { res:Phobos ont:discoverer res:Deimos }")
        same = repairer.repair([by_whom], moons, "did phobos and deimos get discovered in the same year")
        assert same.tokens == _tokens(
            "ASK WHERE { res:Phobos ont:discoveryYear ?_same . res:Deimos ont:discoveryYear ?_same }"
        )
        assert same.answer.boolean is True
        people = ["res:Albert_Einstein", "ont:birthDate", "ont:spouse"]
        spouse = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:spouse res:Albert_Einstein }")
        born = repairer.repair([spouse], people, "who was born the same year as einstein")
        assert born.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:birthDate ?_a . res:Albert_Einstein ont:birthDate ?_b "
            "FILTER ( YEAR ( ?_a ) = YEAR ( ?_b ) && ?x != res:Albert_Einstein ) }"
        )
        assert list(born.answer.rows) == [("http://repair.test/resource/Otto_Hahn",)]


def test_a_fact_of_one_of_things_named_side_by_side_is_read_of_each(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "who founded adidas and puma" decoded with Adidas alone: the founders of each of the two, when they
    share a class and Puma has a founder; "both", "same" or "between" ask for what the two share instead,
    and two named apart ("adidas, founded by whom, and puma") are not side by side."""
    with _repairer_on(tmp_path, prefixes, SHOES_TTL, SHOES, max_rounds=1) as repairer:
        units = ["res:Adidas", "res:Puma", "ont:founder"]
        one = _tokens("SELECT DISTINCT ?x WHERE { res:Adidas ont:founder ?x }")
        each = repairer.repair([one], units, "who founded adidas and puma")
        assert each.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { VALUES ?_each { res:Adidas res:Puma } ?_each ont:founder ?x }"
        )
        assert sorted(each.answer.rows) == [
            ("http://repair.test/resource/Adolf_Dassler",),
            ("http://repair.test/resource/Rudolf_Dassler",),
        ]
        other = _tokens("SELECT DISTINCT ?x WHERE { res:Puma ont:founder ?x }")
        assert "?_each" in repairer.repair([other], units, "who founded adidas and puma").tokens
        assert repairer.repair([one], units, "who founded both adidas and puma").tokens == one
        apart = repairer.repair([one], units, "who founded adidas in the year puma was")
        assert apart.tokens == one
        three = repairer.repair([one], [*units, "res:Nike"], "who founded nike, adidas plus puma")
        assert three.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { VALUES ?_each { res:Nike res:Adidas res:Puma } ?_each ont:founder ?x }"
        )


def test_values_asked_of_things_named_side_by_side_are_pooled_unless_they_must_share_them(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "belgium and switzerland together - how many official languages" decoded as the languages both
    have (`res:Belgium ont:officialLanguage ?x . res:Switzerland ont:officialLanguage ?x`), or with one
    pattern written twice: the languages of each, pooled; "share", "both", "same" or "common" ask for
    the ones they have in common."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Belgium a ont:Country ; ont:officialLanguage res:French, res:Dutch, res:German .
res:Switzerland a ont:Country ; ont:officialLanguage res:French, res:German, res:Italian, res:Romansh .
"""
    entries = [
        Entry("res:Belgium", "entity", ("Belgium",)),
        Entry("res:Switzerland", "entity", ("Switzerland",)),
        Entry("ont:officialLanguage", "property", ("official language",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=1) as repairer:
        units = ["res:Belgium", "res:Switzerland", "ont:officialLanguage"]
        both = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { res:Belgium ont:officialLanguage ?x . "
            "res:Switzerland ont:officialLanguage ?x }"
        )
        pooled = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { VALUES ?_each { res:Belgium res:Switzerland } "
            "?_each ont:officialLanguage ?x }"
        )
        together = repairer.repair(
            [both], units, "belgium and switzerland together - how many official languages"
        )
        assert together.tokens == pooled and together.answer.rows == (("5",),)
        twice = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { res:Belgium ont:officialLanguage ?x . "
            "res:Belgium ont:officialLanguage ?x }"
        )
        assert (
            repairer.repair(
                [twice], units, "how many official languages do belgium and switzerland have"
            ).tokens
            == pooled
        )
        shared = repairer.repair(
            [both], units, "how many official languages do belgium and switzerland share"
        )
        assert shared.tokens == both and shared.answer.rows == (("2",),)


def test_a_yes_no_question_about_things_named_side_by_side_asks_it_of_each(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "are nike and adidas both based in herzogenaurach" decoded of Adidas alone asks it of Nike too (no);
    decoded with one company as the other's headquarters, which no company is, asks each of the town
    the question names (yes for Adidas and Puma)."""
    with _repairer_on(tmp_path, prefixes, SHOES_TTL, SHOES, max_rounds=1) as repairer:
        units = ["res:Nike", "res:Adidas", "res:Puma", "res:Herzogenaurach", "ont:headquarters"]
        adidas = _tokens("ASK WHERE { res:Adidas ont:headquarters res:Herzogenaurach }")
        each = repairer.repair([adidas], units, "are nike and adidas both based in herzogenaurach")
        assert each.tokens == _tokens(
            "ASK WHERE { res:Adidas ont:headquarters res:Herzogenaurach . "
            "res:Nike ont:headquarters res:Herzogenaurach }"
        )
        assert each.answer.boolean is False
        inside = _tokens("ASK WHERE { res:Adidas ont:headquarters res:Puma }")
        both = repairer.repair([inside], units, "are adidas and puma both based in herzogenaurach")
        assert both.tokens == _tokens(
            "ASK WHERE { res:Adidas ont:headquarters res:Herzogenaurach . "
            "res:Puma ont:headquarters res:Herzogenaurach }"
        )
        assert both.answer.boolean is True


def test_an_entity_that_never_takes_its_place_gives_way_to_one_named_alike_that_does(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many writers went to Cambridge?" decoded with the city as an alma mater, which nobody has:
    the University of Cambridge is named alike and is one, and the hypothesis so read answers before the
    next one (birth place) does; a name's qualifier aside, the film Oppenheimer gives way to the man."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Cambridge a ont:City .
res:Cambridge_Massachusetts a ont:City .
res:University_of_Cambridge a ont:University ; ont:city res:Cambridge .
res:Douglas_Adams a ont:Writer ; ont:almaMater res:University_of_Cambridge ; ont:birthPlace res:Cambridge .
res:Zadie_Smith a ont:Writer ; ont:almaMater res:University_of_Cambridge .
res:J_Robert_Oppenheimer a ont:Person ; ont:almaMater res:University_of_Cambridge .
res:Oppenheimer_film a ont:Film .
res:Opera a ont:Genre .
res:A_Night_at_the_Opera a ont:Album ; ont:genre res:Rock .
res:Tosca ont:genre res:Opera .
"""
    entries = [
        Entry("res:Cambridge", "entity", ("Cambridge",)),
        Entry("res:Cambridge_Massachusetts", "entity", ("Cambridge, Massachusetts",)),
        Entry("res:University_of_Cambridge", "entity", ("University of Cambridge",)),
        Entry("res:J_Robert_Oppenheimer", "entity", ("J. Robert Oppenheimer",)),
        Entry("res:Oppenheimer_film", "entity", ("Oppenheimer (film)",)),
        Entry("ont:almaMater", "property", ("alma mater", "went to", "studied")),
        Entry("ont:birthPlace", "property", ("birth place",)),
        Entry("ont:Writer", "class", ("writer",)),
        Entry("ont:University", "class", ("university",)),
        Entry("res:Opera", "entity", ("opera",)),
        Entry("res:A_Night_at_the_Opera", "entity", ("A Night at the Opera",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=1) as repairer:
        units = ["ont:Writer", "res:Cambridge", "ont:almaMater", "ont:birthPlace"]
        city = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Writer . ?x ont:almaMater res:Cambridge }"
        )
        born = _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Writer . ?x ont:birthPlace res:Cambridge }"
        )
        repaired = repairer.repair([city, born], units, "How many writers went to Cambridge?")
        assert "res:University_of_Cambridge" in repaired.tokens and repaired.answer.rows == (("2",),)
        film = _tokens("SELECT DISTINCT ?x WHERE { res:Oppenheimer_film ont:almaMater ?x }")
        studied = repairer.repair(
            [film], ["res:Oppenheimer_film", "ont:almaMater"], "where did oppenheimer study"
        )
        assert studied.answer.rows == (("http://repair.test/resource/University_of_Cambridge",),)
        genre = _tokens("SELECT DISTINCT ?x WHERE { res:Opera ont:genre ?x }")
        assert repairer.misplaced_named(genre, Said("operas of the night", repairer.index)) == []


def test_a_question_asking_of_some_of_a_named_things_members_reads_its_members(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many of the Beatles were born in Liverpool?" decoded as the birth places of Liverpool: the
    band's members (by the property it most often has of things with a birth place) born there."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:The_Beatles a ont:Band ; ont:hometown res:Liverpool ;
    ont:bandMember res:John_Lennon, res:Paul_McCartney, res:Ringo_Starr .
res:John_Lennon a ont:Person ; ont:birthPlace res:Liverpool .
res:Paul_McCartney a ont:Person ; ont:birthPlace res:Liverpool .
res:Ringo_Starr a ont:Person ; ont:birthPlace res:Dingle .
res:Cilla_Black a ont:Person ; ont:birthPlace res:Liverpool .
res:Liverpool a ont:City .
res:Dingle a ont:City .
"""
    entries = [
        Entry("res:The_Beatles", "entity", ("The Beatles",)),
        Entry("res:Liverpool", "entity", ("Liverpool",)),
        Entry("ont:birthPlace", "property", ("birth place", "born")),
        Entry("ont:bandMember", "property", ("band member",)),
        Entry("ont:hometown", "property", ("hometown",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=1) as repairer:
        units = ["res:The_Beatles", "res:Liverpool", "ont:birthPlace"]
        backwards = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { res:Liverpool ont:birthPlace ?x }")
        members = repairer.repair([backwards], units, "How many of the Beatles were born in Liverpool?")
        assert members.tokens == _tokens(
            "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { res:The_Beatles ont:bandMember ?x . "
            "?x ont:birthPlace res:Liverpool }"
        )
        assert members.answer.rows == (("2",),)
        born = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x ont:birthPlace res:Liverpool }")
        everyone = repairer.repair(
            [born], ["res:Liverpool", "ont:birthPlace"], "How many people were born in Liverpool?"
        )
        assert everyone.tokens == born and everyone.answer.rows == (("3",),)


def test_a_comparing_word_within_a_title_the_question_says_compares_nothing(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Which films did the director of After Hours make?": "after" is a word of the title, not a
    comparison with it, so no filter by release year is added."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:After_Hours a ont:Film ; ont:director res:Martin_Scorsese ; ont:releaseYear 1985 .
res:Taxi_Driver a ont:Film ; ont:director res:Martin_Scorsese ; ont:releaseYear 1976 .
res:Goodfellas a ont:Film ; ont:director res:Martin_Scorsese ; ont:releaseYear 1990 .
"""
    entries = [
        Entry("res:After_Hours", "entity", ("After Hours",)),
        Entry("res:Martin_Scorsese", "entity", ("Martin Scorsese",)),
        Entry("ont:director", "property", ("director",)),
        Entry("ont:releaseYear", "property", ("release year",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries, max_rounds=1) as repairer:
        units = ["res:Martin_Scorsese", "ont:director", "ont:releaseYear", "res:After_Hours"]
        directed = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:director res:Martin_Scorsese }")
        title = "Which films did the director of After Hours make?"
        assert repairer.comparison_left_out(directed, title, units) is None
        later = repairer.comparison_left_out(
            directed, "Which Scorsese films came out after After Hours?", units
        )
        assert later is not None and later[1].rows == (("http://repair.test/resource/Goodfellas",),)


ARTISTS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Goya a ont:Painter ; ont:nationality res:Spain ; ont:birthPlace res:Fuendetodos .
res:Picasso a ont:Painter ; ont:nationality res:Spain ; ont:birthPlace res:Malaga .
res:Fuendetodos a ont:City ; ont:country res:Spain .
res:Malaga a ont:City ; ont:country res:Spain .
res:Tolstoy a ont:Writer ; ont:birthPlace res:Tula .
res:Gagarin a ont:Person ; ont:birthPlace res:Klushino .
res:Tula a ont:City ; ont:country res:Russia .
res:Klushino a ont:City ; ont:country res:Russia .
res:War_and_Peace a ont:Novel ; ont:author res:Tolstoy .
"""
ARTIST_ENTRIES = [
    Entry("res:Spain", "entity", ("Spain",)),
    Entry("res:Russia", "entity", ("Russia",)),
    Entry("ont:Painter", "class", ("painter",)),
    Entry("ont:Writer", "class", ("writer",)),
    Entry("ont:City", "class", ("city",)),
    Entry("ont:nationality", "property", ("nationality",)),
    Entry("ont:birthPlace", "property", ("birth place", "born")),
    Entry("ont:country", "property", ("country",)),
    Entry("ont:author", "property", ("author", "authors", "written by")),
]


def test_an_answer_of_the_class_asked_for_goes_no_hop_further_by_a_property_said(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "which painters were born in spain" answered by the Spanish painters, typed as asked: "born"
    says birth place, but their birthplaces are no painters, so the answer stays; "Where were the
    painters of Spain born?" asks for no class and goes the hop."""
    spanish = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Painter . ?x ont:nationality res:Spain }")
    units = ["ont:Painter", "ont:birthPlace", "res:Spain", "ont:nationality"]
    with _repairer_on(tmp_path, prefixes, ARTISTS_TTL, ARTIST_ENTRIES) as artists:
        painters = artists.repair([spanish], units, "which painters were born in spain")
        assert painters.tokens == spanish
        assert {row[0].rsplit("/", 1)[1] for row in painters.answer.rows} == {"Goya", "Picasso"}
        places = artists.repair([spanish], units, "Where were the painters of Spain born?")
        assert {row[0].rsplit("/", 1)[1] for row in places.answer.rows} == {"Fuendetodos", "Malaga"}


def test_things_the_question_names_by_the_plural_of_a_propertys_label_are_its_values(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "which authors were born in russia" answered by everyone born there: "authors" names the values
    of `ont:author` (no class of the units is named so), so the answer is restricted to those, not taken
    a hop further to the works they wrote; "Who was born in Russia?" names none."""
    born = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthPlace ?m . ?m ont:country res:Russia }")
    units = ["ont:author", "ont:birthPlace", "res:Russia", "ont:Writer"]
    with _repairer_on(tmp_path, prefixes, ARTISTS_TTL, ARTIST_ENTRIES) as artists:
        authors = artists.repair([born], units, "which authors were born in russia")
        assert authors.answer.rows == (("http://repair.test/resource/Tolstoy",),)
        everyone = artists.repair([born], units, "Who was born in Russia?")
        assert {row[0].rsplit("/", 1)[1] for row in everyone.answer.rows} == {"Tolstoy", "Gagarin"}


def test_what_asked_as_the_subject_of_a_verb_naming_the_property_is_its_subject(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "What orbits Saturn?" decoded as what Saturn orbits: the question's first word is the subject of
    "orbits", a name of `ont:orbits`, so the answer is the pattern's subject (Mimas); "What does Mimas
    orbit?" and a property named by a noun ("Who discovered Mimas?": discoverer) keep their way."""
    what_it_orbits = _tokens("SELECT DISTINCT ?x WHERE { res:Saturn ont:orbits ?x }")
    units = ["res:Saturn", "ont:orbits"]
    with _repairer_on(tmp_path, prefixes, MOONS_TTL, MOON_ENTRIES, facts=MOON_FACTS) as moons:
        turned = moons.repair([what_it_orbits], units, "What orbits Saturn?")
        assert turned.tokens == _tokens("SELECT DISTINCT ?x WHERE { ?x ont:orbits res:Saturn }")
        assert turned.answer.rows == (("http://repair.test/resource/Mimas",),)
        said = Said("What does Saturn orbit?", moons.index)
        assert moons.subject_of_the_verb(what_it_orbits, said) is None
        found = _tokens("SELECT DISTINCT ?x WHERE { res:Mimas ont:discoverer ?x }")
        assert moons.subject_of_the_verb(found, Said("Who discovered Mimas?", moons.index)) is None


ROLES_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Curie ont:occupation res:Chemist ; ont:nationality res:France .
res:Pasteur ont:occupation res:Chemist ; ont:nationality res:France .
res:Davy ont:occupation res:Chemist ; ont:nationality res:United_Kingdom .
res:Hugo ont:occupation res:Poet ; ont:nationality res:France .
res:France a ont:Country ; ont:officialLanguage res:French .
res:United_Kingdom a ont:Country .
"""
ROLE_ENTRIES = [
    Entry("res:Chemist", "entity", ("chemist",)),
    Entry("res:France", "entity", ("France",)),
    Entry("res:French", "entity", ("French",)),
    Entry("ont:Country", "class", ("country",)),
    Entry("ont:Chemist", "class", ("chemist",)),
    Entry("ont:occupation", "property", ("occupation",)),
    Entry("ont:nationality", "property", ("nationality",)),
    Entry("ont:officialLanguage", "property", ("official language",)),
]


def test_a_role_named_in_the_plural_after_a_place_adjective_is_read_as_people_of_that_place(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "French chemists" decoded as what speaks French: "chemists" names res:Chemist in the plural, the
    value most things have by `ont:occupation`, and "French" France, which chemists are joined to by
    nationality; "how many ..." counts them; "chemists" alone places nothing, nor does a singular, and a
    class the question's units name "chemist" is the kind asked for instead."""
    spoken = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:officialLanguage res:French }")
    units = ["res:French", "res:France", "res:Chemist", "ont:nationality", "ont:occupation"]
    facts = [("res:France", "a", "ont:Country"), ("res:United_Kingdom", "a", "ont:Country")]
    with _repairer_on(tmp_path, prefixes, ROLES_TTL, ROLE_ENTRIES, facts=facts) as roles:
        french = roles.repair([spoken], units, "French chemists")
        assert french.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:occupation res:Chemist . ?x ont:nationality res:France }"
        )
        assert {row[0].rsplit("/", 1)[1] for row in french.answer.rows} == {"Curie", "Pasteur"}
        counted = roles.repair([spoken], units, "how many french chemsts are there")  # a typo too
        assert counted.answer.rows == (("2",),)
        assert roles.role_of_place(units, Said("chemists", roles.index), False) is None
        assert (
            roles.role_of_place(units, Said("which french chemist found radium", roles.index), False) is None
        )
        # a class named by the word is the kind asked for, read by `place_adjective_read`
        assert (
            roles.role_of_place([*units, "ont:Chemist"], Said("French chemists", roles.index), False) is None
        )


MAKERS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Don_Giovanni ont:genre res:Opera ; ont:composer res:Wolfgang_Mozart .
res:The_Magic_Flute ont:genre res:Opera ; ont:composer res:Wolfgang_Mozart .
res:Jupiter_Symphony ont:genre res:Symphony ; ont:composer res:Wolfgang_Mozart .
res:Aida ont:genre res:Opera ; ont:composer res:Giuseppe_Verdi .
res:Paths_of_Glory ont:genre res:War_film ; ont:director res:Stanley_Kubrick .
res:The_Shining ont:genre res:Horror_film ; ont:director res:Stanley_Kubrick .
res:Wolfgang_Mozart ont:spouse res:Constanze_Mozart .
"""
MAKER_ENTRIES = [
    Entry("res:Opera", "entity", ("opera",)),
    Entry("res:War_film", "entity", ("war film",)),
    Entry("res:Wolfgang_Mozart", "entity", ("Wolfgang Amadeus Mozart",)),
    Entry("res:Constanze_Mozart", "entity", ("Constanze Mozart",)),
    Entry("res:Giuseppe_Verdi", "entity", ("Giuseppe Verdi",)),
    Entry("res:Stanley_Kubrick", "entity", ("Stanley Kubrick",)),
    Entry("ont:genre", "property", ("genre",)),
    Entry("ont:composer", "property", ("composer",)),
    Entry("ont:director", "property", ("director",)),
    Entry("ont:spouse", "property", ("spouse",)),
]


def test_a_kind_named_in_the_plural_after_a_makers_name_is_read_as_the_makers_things_of_that_kind(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Show me Mozart's operas" decoded as his spouse: "operas" names res:Opera in the plural, the value
    things hold by `ont:genre`, and "mozart" names two people, of whom only Wolfgang has operas, joined
    to him by `ont:composer`; a label of two words ("kubrick's war films") and a misspelt name ("verdy
    operas") read the same, "how many" counts; a noun phrase that does not end the question, a
    singular and a maker with no such things read nothing."""
    spouse = _tokens("SELECT DISTINCT ?x WHERE { res:Wolfgang_Mozart ont:spouse ?x }")
    units = ["res:Wolfgang_Mozart", "res:Constanze_Mozart", "res:Opera", "ont:spouse", "ont:genre"]
    with _repairer_on(tmp_path, prefixes, MAKERS_TTL, MAKER_ENTRIES) as makers:
        operas = makers.repair([spouse], units, "Show me Mozart's operas")
        assert operas.tokens == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:genre res:Opera . ?x ont:composer res:Wolfgang_Mozart }"
        )
        assert {row[0].rsplit("/", 1)[1] for row in operas.answer.rows} == {"Don_Giovanni", "The_Magic_Flute"}
        war = makers.kind_by_maker(
            ["res:Stanley_Kubrick", "res:War_film"], Said("kubrick's war films", makers.index), False
        )
        assert war is not None and war[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:genre res:War_film . ?x ont:director res:Stanley_Kubrick }"
        )
        verdi = ["res:Giuseppe_Verdi", "res:Opera"]
        counted = makers.kind_by_maker(verdi, Said("how many verdy operas", makers.index), True)
        assert counted is not None and counted[0][:3] == ["select", "(", "count"]
        assert (
            makers.kind_by_maker(units, Said("Mozart's operas premiered where?", makers.index), False) is None
        )
        assert makers.kind_by_maker(units, Said("Mozart's opera", makers.index), False) is None
        assert (
            makers.kind_by_maker(
                ["res:Constanze_Mozart", "res:Opera"], Said("constanze mozart's operas", makers.index), False
            )
            is None
        )


SHORT_KIND_TTL = (
    MAKERS_TTL
    + """res:Psycho ont:genre res:Thriller_film ; ont:director res:Alfred_Hitchcock .
res:Vertigo ont:genre res:Thriller_film ; ont:director res:Alfred_Hitchcock .
res:The_Firm ont:genre res:Thriller_novel ; ont:author res:John_Grisham .
res:Alien a ont:Film .
"""
)
SHORT_KIND_ENTRIES = [
    *MAKER_ENTRIES,
    Entry("res:Horror_film", "entity", ("horror film",)),
    Entry("res:Thriller_film", "entity", ("thriller film",)),
    Entry("res:Thriller_novel", "entity", ("thriller novel",)),
    Entry("res:Alfred_Hitchcock", "entity", ("Alfred Hitchcock",)),
    Entry("res:John_Grisham", "entity", ("John Grisham",)),
    Entry("ont:author", "property", ("author",)),
    Entry("ont:Film", "class", ("film", "movie")),
]


def test_a_kind_shortened_or_named_by_its_class_s_other_name_is_read_after_a_makers_name(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "kubrick war movies": "movie", another name of the class that "film" labels, stands for the last
    word of "war film"; "hitchcok thrillers": the words before "film" alone (lemminflect does not know
    "thriller": its plural by spelling rules), the thriller film, not the thriller novel that no
    Hitchcock film holds; a class's other name never stands for a word it does not label ("novel")."""
    war = ["res:Stanley_Kubrick", "res:War_film", "res:Horror_film"]
    thrillers = ["res:Alfred_Hitchcock", "res:Thriller_novel", "res:Thriller_film"]
    with _repairer_on(tmp_path, prefixes, SHORT_KIND_TTL, SHORT_KIND_ENTRIES) as makers:
        movies = makers.kind_by_maker(war, Said("kubrick war movies", makers.index), False)
        assert movies is not None and movies[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:genre res:War_film . ?x ont:director res:Stanley_Kubrick }"
        )
        short = makers.kind_by_maker(thrillers, Said("hitchcok thrillers", makers.index), False)
        assert short is not None and short[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x ont:genre res:Thriller_film . ?x ont:director res:Alfred_Hitchcock }"
        )
        assert makers.kind_by_maker(thrillers, Said("hitchcock thriller movies", makers.index), False)
        assert makers.kind_by_maker(thrillers, Said("hitchcock thriller novels", makers.index), False) is None
        assert makers.kind_by_maker(war, Said("kubrick war movie", makers.index), False) is None


def test_a_name_the_kb_lacks_with_no_entity_linked_gives_up_rather_than_answer_another(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "what instruments did Jimi Hendrix play": no label holds "Jimi" or "Hendrix" and no entity was
    linked, so the plays the model read "play" as are no answer: repair gives up and says why. In lower
    case, two such words in a row are a name too. Not a name the KB holds misspelt ("Kubrik"), a word
    English knows ("Alpine"), an abbreviation ("HQ"), a hyphenated part the KB holds, one capitalised
    word of a title, one unknown word in lower case ("frontman"), nor when an entity was linked (the
    name may only be said in passing)."""
    plays = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:genre res:Opera }")
    with _repairer_on(tmp_path, prefixes, MAKERS_TTL, MAKER_ENTRIES) as makers:
        lacking = makers.repair([plays], ["ont:genre"], "what instruments did Jimi Hendrix play")
        assert lacking.answered_in is None and lacking.answer is not None and lacking.answer.rows == ()
        assert lacking.gave_up == "the KB has nothing named 'Jimi Hendrix'"
        assert names_the_kb_lacks("what instruments did jimi hendrix play", makers.index) == ["jimi hendrix"]
        for question in (
            "which films did Stanley Kubrik direct",
            "which Alpine operas are there",
            "where do Verdi operas have their HQ",
            "which Verdi-like operas are there",
            "Which Instruments Did Hendrix Play",
            "who is the frontman of verdi's band",
        ):
            assert names_the_kb_lacks(question, makers.index) == [], question
        passing = makers.repair(
            [plays], ["res:Opera", "ont:genre"], "I heard Jimi Hendrix liked operas: list them"
        )
        assert passing.answered_in == 1


ORIGINS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:AC_DC ont:hometown res:Sydney ; ont:genre res:Hard_rock ; ont:bandMember res:Angus_Young .
res:Angus_Young ont:birthPlace res:Glasgow ; ont:nationality res:Australia .
res:Sydney a ont:City .
res:Glasgow a ont:City .
res:Australia a ont:Country .
res:Hard_rock a ont:Genre .
"""
ORIGIN_ENTRIES = [
    Entry("res:AC_DC", "entity", ("AC/DC",)),
    Entry("res:Angus_Young", "entity", ("Angus Young",)),
    Entry("ont:City", "class", ("city",)),
    Entry("ont:Country", "class", ("country",)),
    Entry("ont:Genre", "class", ("genre",)),
    Entry("ont:hometown", "property", ("hometown",)),
    Entry("ont:genre", "property", ("genre",)),
]
ORIGIN_FACTS = [
    ("res:Sydney", "a", "ont:City"),
    ("res:Glasgow", "a", "ont:City"),
    ("res:Australia", "a", "ont:Country"),
    ("res:Hard_rock", "a", "ont:Genre"),
]


def test_where_one_named_thing_is_from_is_its_one_property_with_a_place_as_its_value(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "Where are AC/DC from?" decoded as the band's genre: the KB places the band by one property, its
    hometown, so that is what "where ... from" asks; a thing the KB places by two (a person's
    birthplace and nationality), more named than the one thing ("Where is Angus Young's band from?")
    and a question that does not end with "from" read nothing."""
    genre = _tokens("SELECT DISTINCT ?x WHERE { res:AC_DC ont:genre ?x }")
    units = ["res:AC_DC", "ont:genre", "ont:hometown"]
    with _repairer_on(tmp_path, prefixes, ORIGINS_TTL, ORIGIN_ENTRIES, facts=ORIGIN_FACTS) as places:
        origin = places.repair([genre], units, "Where are AC/DC from?")
        assert origin.tokens == _tokens("SELECT DISTINCT ?x WHERE { res:AC_DC ont:hometown ?x }")
        assert origin.answer.rows == (("http://repair.test/resource/Sydney",),)
        come = places.origin_asked(units, Said("where do ac/dc originally come from", places.index))
        assert come is not None and come[0] == origin.tokens
        person = ["res:Angus_Young", "res:AC_DC"]
        assert places.origin_asked(person, Said("Where is Angus Young from?", places.index)) is None
        assert places.origin_asked(person, Said("Where is Angus Young's band from?", places.index)) is None
        assert places.origin_asked(units, Said("Where did AC/DC play?", places.index)) is None


SPOUSES_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Frida_Kahlo ont:spouse res:Diego_Rivera ; ont:birthPlace res:Coyoacan .
res:Diego_Rivera ont:spouse res:Frida_Kahlo ; ont:birthPlace res:Guanajuato .
res:Titan ont:orbits res:Saturn .
res:Saturn ont:orbits res:Sun .
"""
SPOUSE_ENTRIES = [
    Entry("res:Frida_Kahlo", "entity", ("Frida Kahlo",)),
    Entry("res:Titan", "entity", ("Titan",)),
    Entry("ont:spouse", "property", ("spouse",)),
    Entry("ont:birthPlace", "property", ("birth place",)),
    Entry("ont:orbits", "property", ("orbits",)),
]


def test_two_hops_by_a_property_the_kb_holds_both_ways_are_one(prefixes: PrefixMap, tmp_path: Path) -> None:
    """ "where was frida kahlo's husband born" decoded as her spouse's spouse's birthplace: the KB holds
    `ont:spouse` both ways for her, so the second hop comes back to her and is dropped; a chain of a
    property it does not hold so ("what does the planet Titan orbits orbit": the Sun) keeps both."""
    twice = _tokens(
        "SELECT DISTINCT ?v WHERE { res:Frida_Kahlo ont:spouse ?x . ?x ont:spouse ?h . ?h ont:birthPlace ?v }"
    )
    units = ["res:Frida_Kahlo", "ont:spouse", "ont:birthPlace"]
    with _repairer_on(tmp_path, prefixes, SPOUSES_TTL, SPOUSE_ENTRIES) as spouses:
        once = spouses.repair([twice], units, "where was frida kahlo's husband born")
        assert once.tokens == _tokens(
            "SELECT DISTINCT ?v WHERE { res:Frida_Kahlo ont:spouse ?x . ?x ont:birthPlace ?v }"
        )
        assert once.answer.rows == (("http://repair.test/resource/Guanajuato",),)
        back = _tokens("SELECT DISTINCT ?x WHERE { ?y ont:spouse res:Frida_Kahlo . ?x ont:spouse ?y }")
        assert spouses.there_and_back_removed(back) == (
            _tokens("SELECT DISTINCT ?y WHERE { ?y ont:spouse res:Frida_Kahlo }"),
            "ont:spouse there and back from res:Frida_Kahlo dropped",
        )
        chain = _tokens("SELECT DISTINCT ?x WHERE { res:Titan ont:orbits ?y . ?y ont:orbits ?x }")
        assert spouses.there_and_back_removed(chain) is None


HOPS_TTL = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Tesla a ont:Person ; ont:birthPlace res:Smiljan .
res:Smiljan a ont:City ; ont:country res:Croatia .
res:Zagreb a ont:City ; ont:country res:Croatia .
res:Croatia a ont:Country ; ont:capital res:Zagreb ; ont:continent res:Europe .
res:Dodoma a ont:City ; ont:country res:Tanzania .
res:Zanzibar_City a ont:City ; ont:country res:Tanzania .
res:Tanzania a ont:Country ; ont:capital res:Dodoma ; ont:continent res:Africa .
res:Vienna a ont:City ; ont:country res:Austria .
res:Austria a ont:Country ; ont:capital res:Vienna ; ont:continent res:Europe .
res:Hungary a ont:Country .
res:Danube ont:flowsThrough res:Croatia, res:Hungary, res:Vienna .
res:Lego a ont:Company ; ont:headquarters res:Billund .
res:Billund a ont:City ; ont:country res:Denmark .
res:Denmark a ont:Country ; ont:continent res:Europe .
res:Europe a ont:Continent .
res:Africa a ont:Continent .
res:Jaws_film a ont:Film ; ont:director res:Spielberg ; ont:basedOn res:Jaws_novel .
res:ET a ont:Film ; ont:director res:Spielberg .
"""
HOP_ENTRIES = [
    Entry("res:Tesla", "entity", ("Tesla",)),
    Entry("res:Tanzania", "entity", ("Tanzania",)),
    Entry("res:Danube", "entity", ("Danube",)),
    Entry("res:Lego", "entity", ("Lego",)),
    Entry("ont:City", "class", ("city",)),
    Entry("ont:Country", "class", ("country",)),
    Entry("ont:Continent", "class", ("continent",)),
    Entry("ont:capital", "property", ("capital", "capital city")),
    Entry("ont:country", "property", ("country",)),
    Entry("ont:continent", "property", ("continent",)),
    Entry("ont:birthPlace", "property", ("birth place", "place of birth", "place")),
    Entry("ont:flowsThrough", "property", ("flows through",)),
    Entry("ont:headquarters", "property", ("headquarters",)),
    Entry("res:Spielberg", "entity", ("Spielberg",)),
    Entry("ont:Film", "class", ("film",)),
    Entry("ont:director", "property", ("director",)),
    Entry("ont:basedOn", "property", ("based on",)),
]


@pytest.fixture
def hops(prefixes: PrefixMap, tmp_path: Path) -> Iterator[Repairer]:
    with _repairer_on(tmp_path, prefixes, HOPS_TTL, HOP_ENTRIES, max_rounds=2) as repairer:
        yield repairer


def test_a_said_property_the_query_leaves_out_takes_its_answer_one_hop_further(hops: Repairer) -> None:
    """ "capital of the country where Tesla was born" answered by the country: its capital."""
    country = _tokens("SELECT DISTINCT ?x WHERE { res:Tesla ont:birthPlace ?y . ?y ont:country ?x }")
    units = ["ont:capital", "ont:Country", "ont:country", "res:Tesla", "ont:birthPlace"]
    repaired = hops.repair([country], units, "capital of the country where Tesla was born")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Tesla ont:birthPlace ?y . ?y ont:country ?h . ?h ont:capital ?x }"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/Zagreb",),)


def test_a_said_property_the_query_leaves_out_joins_its_answers_to_the_entity_it_names(
    hops: Repairer,
) -> None:
    """ "which city is the capital of Tanzania" answered by every city of Tanzania: the one Tanzania has as
    its capital; "which countries have their capital on the Danube" answered by the countries on it: the
    capital put between the countries and the river; films "based on novels", those based on something."""
    cities = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:City . ?x ont:country res:Tanzania }")
    units = ["ont:City", "ont:capital", "res:Tanzania", "ont:country"]
    repaired = hops.repair([cities], units, "which city is the capital of Tanzania")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:City . ?x ont:country res:Tanzania . res:Tanzania ont:capital ?x }"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/Dodoma",),)
    on_it = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Country . res:Danube ont:flowsThrough ?x }")
    units = ["res:Danube", "ont:Country", "ont:capital", "ont:flowsThrough"]
    repaired = hops.repair([on_it], units, "on the danube, which countries have their capital")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Country . res:Danube ont:flowsThrough ?_m . ?x ont:capital ?_m }"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/Austria",),)
    # a COUNT of them, typed first by the class asked for
    counted = _tokens("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { res:Danube ont:flowsThrough ?x }")
    repaired = hops.repair([counted], units, "How many countries have their capital on the Danube?")
    assert repaired.tokens == _tokens(
        "SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x a ont:Country . res:Danube ont:flowsThrough ?_m ."
        " ?x ont:capital ?_m }"
    )
    assert repaired.answer.rows == (("1",),)
    # else the answers that have the property: "spielberg films based on novels"
    films = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Spielberg }")
    units = ["res:Spielberg", "ont:Film", "ont:director", "ont:basedOn"]
    repaired = hops.repair([films], units, "spielberg films based on novels")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { ?x a ont:Film . ?x ont:director res:Spielberg . ?x ont:basedOn ?_m }"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/Jaws_film",),)
    # a question that says no capital keeps every city
    said_not = hops.repair(
        [cities], ["ont:City", "res:Tanzania", "ont:country"], "which cities are in Tanzania"
    )
    assert said_not.tokens == cities


def test_a_hop_to_the_class_asked_goes_through_one_element_between_when_no_hop_answers(
    hops: Repairer,
) -> None:
    """ "lego's headquarters are on which continent": a city has no continent; its country has."""
    city = _tokens("SELECT DISTINCT ?x WHERE { res:Lego ont:headquarters ?x }")
    units = ["res:Lego", "ont:headquarters", "ont:Continent", "ont:continent"]
    repaired = hops.repair([city], units, "lego's headquarters are on which continent")
    assert repaired.tokens == _tokens(
        "SELECT DISTINCT ?x WHERE { res:Lego ont:headquarters ?h . ?h ont:country ?_m . ?_m ont:continent ?x ."
        " ?x a ont:Continent }"
    )
    assert repaired.answer.rows == (("http://repair.test/resource/Europe",),)


def test_a_class_in_a_period_is_read_from_the_question_when_no_query_answers(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "How many bands were formed in the 1960s?" with every hypothesis empty and nothing named: the
    bands, dated by the one formation year the question says ("formed"), counted. With no period or
    bound to keep them by, every band would be a guess: not tried."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:The_Beatles a ont:Band ; ont:formationYear 1960 .
res:Pink_Floyd a ont:Band ; ont:formationYear 1965 .
res:Radiohead a ont:Band ; ont:formationYear 1985 .
"""
    entries = [
        Entry("ont:Band", "class", ("band",)),
        Entry("ont:formationYear", "property", ("formation year", "formed")),
        Entry("ont:genre", "property", ("genre",)),
    ]
    facts = [(f"res:{n}", "a", "ont:Band") for n in ("The_Beatles", "Pink_Floyd", "Radiohead")]
    facts += [(f"res:{n}", "ont:formationYear", MEASURED) for n in ("The_Beatles", "Pink_Floyd", "Radiohead")]
    with _repairer_on(tmp_path, prefixes, ttl, entries, facts=facts, max_rounds=1) as repairer:
        broken = _tokens(
            "SELECT ( COUNT ( DISTINCT ?x ) AS ?c ) WHERE { ?x ont:formationYear ?y . ?y a ont:Band }"
        )
        units = ["ont:Band", "ont:formationYear", "ont:genre"]
        dated = repairer.repair([broken], units, "How many bands were formed in the 1960s?")
        assert dated.answer.rows == (("2",),)
        assert "ont:formationYear" in dated.tokens and "filter" in dated.tokens
        unbounded = repairer.repair([broken], units, "How many bands play rock?")
        assert unbounded.answer.rows != (("3",),)


def test_the_thing_a_clause_dates_is_read_as_one_of_its_class(prefixes: PrefixMap, tmp_path: Path) -> None:
    """ "what does the moon discovered in 1978 orbit": the moon whose discovery year is 1978 (the class
    "the moon" names, not the Moon the linker also finds), then what it orbits; typed when the question
    asks for a class ("orbits which planet"). Not without a year after "the moon", nor for a year no
    moon was discovered in."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Charon a ont:Moon ; ont:discoveryYear 1978 ; ont:orbits res:Pluto .
res:Triton a ont:Moon ; ont:discoveryYear 1846 ; ont:orbits res:Neptune .
res:Moon a ont:Moon ; ont:orbits res:Earth .
res:Neptune a ont:Planet .
"""
    entries = [
        Entry("ont:Moon", "class", ("moon",)),
        Entry("ont:Planet", "class", ("planet",)),
        Entry("res:Moon", "entity", ("Moon",)),
        Entry("ont:discoveryYear", "property", ("discovery year", "discovered")),
        Entry("ont:orbits", "property", ("orbits", "orbit")),
    ]
    facts = [
        ("res:Charon", "a", "ont:Moon"),
        ("res:Triton", "a", "ont:Moon"),
        ("res:Charon", "ont:discoveryYear", MEASURED),
    ]
    units = ["ont:Moon", "res:Moon", "ont:discoveryYear", "ont:orbits", "ont:Planet"]
    with _repairer_on(tmp_path, prefixes, ttl, entries, facts=facts) as repairer:
        assert repairer.index is not None
        for question, found in (
            ("what does the moon discovered in 1978 orbit", "Pluto"),
            ("the moon that was discovered in 1846 orbits which planet", "Neptune"),
        ):
            read = repairer.dated_clause_read(
                question, units, Said(question, repairer.index), expected_of(question)
            )
            assert read is not None, question
            assert repairer.kb.query(detokenize(read[0], prefixes)).rows == (
                (f"http://repair.test/resource/{found}",),
            )
        for question in ("what does the moon orbit", "what does the moon discovered in 1950 orbit"):
            said = Said(question, repairer.index)
            assert repairer.dated_clause_read(question, units, said, expected_of(question)) is None


def test_a_place_no_fact_has_as_a_value_is_read_as_what_the_values_lie_in(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "writers born in ireland" decoded as `?x ont:birthPlace res:Ireland`: birth places are cities,
    so the writers born in a city of Ireland. Not when the question does not say the property, nor when
    the place is a value of it already, nor when nothing joins its values to the place (no nationality
    lies in Dublin)."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Oscar_Wilde a ont:Writer ; ont:birthPlace res:Dublin ; ont:nationality res:Ireland .
res:Bram_Stoker a ont:Writer ; ont:birthPlace res:Dublin .
res:Dublin ont:country res:Ireland .
"""
    entries = [
        Entry("res:Ireland", "entity", ("Ireland",)),
        Entry("res:Dublin", "entity", ("Dublin",)),
        Entry("ont:Writer", "class", ("writer",)),
        Entry("ont:birthPlace", "property", ("birth place", "born")),
        Entry("ont:nationality", "property", ("nationality",)),
        Entry("ont:Country", "class", ("country",)),
        Entry("ont:City", "class", ("city",)),
    ]
    facts = [("res:Ireland", "a", "ont:Country"), ("res:Dublin", "a", "ont:City")]
    with _repairer_on(tmp_path, prefixes, ttl, entries, facts=facts) as repairer:
        assert repairer.index is not None
        born = _tokens("SELECT DISTINCT ?x WHERE { ?x a ont:Writer . ?x ont:birthPlace res:Ireland }")
        said = Said("writers born in ireland", repairer.index)
        within = repairer.within_the_place(born, said)
        assert within is not None and within[0] == _tokens(
            "SELECT DISTINCT ?x WHERE { ?x a ont:Writer . ?x ont:birthPlace ?_in . ?_in ont:country res:Ireland }"
        )
        assert len(repairer.kb.query(detokenize(within[0], prefixes)).rows) == 2
        assert repairer.within_the_place(born, Said("irish writers", repairer.index)) is None
        in_dublin = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:birthPlace res:Dublin }")
        assert repairer.within_the_place(in_dublin, Said("writers born in dublin", repairer.index)) is None
        citizens = _tokens("SELECT DISTINCT ?x WHERE { ?x ont:nationality res:Dublin }")
        assert (
            repairer.within_the_place(citizens, Said("writers of dublin nationality", repairer.index)) is None
        )


def test_things_of_the_class_asked_for_reached_again_by_the_property_that_reached_the_answer(
    prefixes: PrefixMap, tmp_path: Path
) -> None:
    """ "list the movies by whoever directed blue velvet" decoded as Blue Velvet's director: no other
    property the question says leads on to films, so the films of that director, Blue Velvet among
    them."""
    ttl = """@prefix res: <http://repair.test/resource/> .
@prefix ont: <http://repair.test/ontology/> .
res:Blue_Velvet a ont:Film ; ont:director res:David_Lynch ; ont:genre res:Thriller .
res:Eraserhead a ont:Film ; ont:director res:David_Lynch .
res:Alien a ont:Film ; ont:director res:Ridley_Scott .
res:David_Lynch a ont:Person .
"""
    entries = [
        Entry("res:Blue_Velvet", "entity", ("Blue Velvet",)),
        Entry("ont:Film", "class", ("film", "movie")),
        Entry("ont:director", "property", ("director", "directed")),
        Entry("ont:genre", "property", ("genre",)),
    ]
    with _repairer_on(tmp_path, prefixes, ttl, entries) as repairer:
        director = _tokens("SELECT DISTINCT ?x WHERE { res:Blue_Velvet ont:director ?x }")
        units = ["ont:Film", "ont:director", "res:Blue_Velvet", "ont:genre"]
        films = repairer.repair([director], units, "list the movies by whoever directed blue velvet")
        assert sorted(films.answer.rows) == [
            ("http://repair.test/resource/Blue_Velvet",),
            ("http://repair.test/resource/Eraserhead",),
        ]
