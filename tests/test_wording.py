"""The question grammar: wh-words from the answer's type, plurals, passives, bounded noise, seeds."""

from __future__ import annotations

import random
import re

import pyoxigraph as ox
import pytest
from test_synthesize import TOWN_TTL

from nmt_sparql.data.generate import KBGraph, load_store
from nmt_sparql.data.lexicon import Lexicon
from nmt_sparql.data.querygraph import Path, QueryGraph, Step
from nmt_sparql.data.synthesize import superclasses
from nmt_sparql.data.wording import (
    FAMILY_WEIGHTS,
    LEAD_IN_RATE,
    LEAD_INS,
    TYPO_RATE,
    Wording,
    derived_clauses,
    lead_in,
    number_words,
    plural,
    surface,
)

T, V = "http://example.org/town/", "http://example.org/vocab/"
AUTHOR_LEXICON = Lexicon(
    {V + "author": {"active": ("{o} wrote {s}",), "passive": ("{s} was written by {o}",)}}
)


@pytest.fixture(scope="module")
def wording(tmp_path_factory: pytest.TempPathFactory) -> Wording:
    path = tmp_path_factory.mktemp("kb") / "town.ttl"
    path.write_text(TOWN_TTL, encoding="utf-8")
    store = load_store(path)
    return Wording(KBGraph.read(store), superclasses(store), Lexicon())


def _questions(wording: Wording, graph: QueryGraph, answer: frozenset[str], n: int = 40) -> list[str]:
    return [wording.question(graph, answer, random.Random(i)) for i in range(n)]


def _one_hop(subject: str, prop: str) -> QueryGraph:
    return QueryGraph("select", (Path((Step(V + prop, False),), ox.NamedNode(T + subject)),))


def test_answer_types_follow_classes_and_datatypes(wording: Wording) -> None:
    assert wording.answer_type(frozenset({T + "Ann"})) == "person"  # a Writer, subclass of Person
    assert wording.answer_type(frozenset({T + "Rome"})) == "place"
    assert wording.answer_type(frozenset({'"1950-03-01"^^<http://www.w3.org/2001/XMLSchema#date>'})) == "date"
    assert wording.answer_type(frozenset({'"170"^^<http://www.w3.org/2001/XMLSchema#integer>'})) == "number"


def test_wh_word_comes_from_the_answer_type(wording: Wording) -> None:
    author = _questions(wording, _one_hop("Sea_Book", "author"), frozenset({T + "Ann"}))
    place = _questions(wording, _one_hop("Ann", "birthPlace"), frozenset({T + "Rome"}))
    date = _questions(
        wording,
        _one_hop("Ann", "birthDate"),
        frozenset({'"1950-03-01"^^<http://www.w3.org/2001/XMLSchema#date>'}),
    )
    year = _questions(
        wording,
        _one_hop("Sea_Book", "publicationYear"),
        frozenset({'"1990"^^<http://www.w3.org/2001/XMLSchema#integer>'}),
    )
    firsts = lambda qs: {q.split()[0].lower() for q in qs}  # noqa: E731
    assert "who" in firsts(author) and "where" not in firsts(author) and "when" not in firsts(author)
    assert "who" not in firsts(place)
    assert "who" not in firsts(date) | firsts(year)
    assert "how" not in firsts(author)


def test_count_questions_ask_how_many(wording: Wording) -> None:
    graph = QueryGraph("count", (Path((Step(V + "birthPlace", True),), ox.NamedNode(T + "Rome")),))
    questions = _questions(wording, graph, 2)  # type: ignore[arg-type]
    assert any(q.lower().startswith("how many") for q in questions)


def test_plurals_of_classes() -> None:
    assert plural("city") == "cities"
    assert plural("film director") == "film directors"
    assert plural("person") == "people"


def test_agent_nouns_verbs_and_participles_give_active_and_passive_clauses() -> None:
    assert derived_clauses("director") == ["{o} directed {s}", "{s} was directed by {o}"]
    assert derived_clauses("orbits") == ["{s} orbits {o}", "{o} is orbited by {s}"]
    assert derived_clauses("located in") == ["{s} is located in {o}"]
    assert derived_clauses("capital") == []


def test_passive_and_object_questions_are_worded(wording: Wording) -> None:
    w = Wording(wording.g, wording.supers, AUTHOR_LEXICON)
    by_ann = QueryGraph("select", (Path((Step(V + "author", True),), ox.NamedNode(T + "Ann")),))
    questions = _questions(w, by_ann, frozenset({T + "Sea_Book", T + "Sky_Book"}), n=200)
    lowered = {q.lower() for q in questions}
    assert any("<was written by> <ann lee>" in q or "<were written by> <ann lee>" in q for q in lowered)
    assert any("did <ann lee> <write>" in q for q in lowered)  # active, the object questioned
    assert any(q.startswith("<ann lee> <wrote> what") for q in lowered)  # the question word left in place


def test_each_family_of_phrasing_is_chosen_at_its_weight_however_many_phrasings_it_has(
    wording: Wording,
) -> None:
    """The noun gives one property many requests and noun questions, its verb one question: people's
    mix, not the count of phrasings, decides how often "who wrote <X>?" is trained on."""
    w = Wording(wording.g, wording.supers, AUTHOR_LEXICON)
    graph, answer = _one_hop("Sea_Book", "author"), frozenset({T + "Ann"})
    questions = [w.question(graph, answer, random.Random(i)).lower() for i in range(2000)]
    lead_ins = tuple(f"{w.lower()} " for kind in ("question", "request") for w in LEAD_INS[kind])
    heads = [next((q[len(w) :] for w in lead_ins if q.startswith(w)), q) for q in questions]
    verb = sum(bool(re.search(r"<wrote>|written by>", q) and re.search(r"\bwho\b", q)) for q in heads) / len(
        heads
    )
    requests = sum(q.startswith(("tell me", "give me", "list")) for q in heads) / len(heads)
    assert abs(verb - FAMILY_WEIGHTS["verb question"]) < 0.05  # every family has phrasings here
    assert abs(requests - FAMILY_WEIGHTS["request"]) < 0.05


def test_a_statement_with_a_check_after_it_asks_yes_or_no(wording: Wording) -> None:
    w = Wording(wording.g, wording.supers, AUTHOR_LEXICON)
    graph = QueryGraph("ask", (_one_hop("Sea_Book", "author").paths[0],), target=ox.NamedNode(T + "Ann"))
    lowered = {q.lower() for q in _questions(w, graph, True, n=200)}  # type: ignore[arg-type]
    assert any(re.fullmatch(r"<ann lee> <wrote> <the sea book>, (true|right|correct)\??", q) for q in lowered)


def test_surface_noise_rates_are_bounded_and_never_touch_marks() -> None:
    marked = "Which <books> were written by <Ann Lee> before the year <1990>?"
    rng = random.Random(0)
    outputs = [surface(marked, rng) for _ in range(3000)]
    lead_ins = tuple(f"{w.lower()} " for w in LEAD_INS["question"])
    led = [o for o in outputs if o.lower().startswith(lead_ins)]
    assert 0 < len(led) <= 2 * LEAD_IN_RATE * len(outputs)
    bodies = [
        o[len(next(w for w in lead_ins if o.lower().startswith(w))) :] if o in led else o for o in outputs
    ]
    typos = [o for o in bodies if re.sub(r"[?.]$", "", o.lower()) != marked.lower().rstrip("?")]
    assert 0 < len(typos) <= 2 * TYPO_RATE * len(outputs)
    assert all(re.findall(r"<[^>]*>", o.lower()) == ["<books>", "<ann lee>", "<1990>"] for o in outputs)
    assert any(o == o.lower() for o in outputs) and any(not o.endswith(("?", ".")) for o in outputs)


def test_same_seed_same_question(wording: Wording) -> None:
    graph = _one_hop("Sea_Book", "author")
    answer = frozenset({T + "Ann"})
    assert wording.question(graph, answer, random.Random(3)) == wording.question(
        graph, answer, random.Random(3)
    )


def test_large_round_numbers_are_sometimes_worded_with_a_scale() -> None:
    rng = random.Random(0)
    assert {number_words("200000000", rng) for _ in range(50)} == {"200000000", "200 million"}
    assert {number_words("1500000", rng) for _ in range(50)} == {"1500000", "1.5 million"}
    assert {number_words("1234567", rng) for _ in range(20)} == {"1234567"}  # not round: as it is


def test_lead_ins_fit_a_question_a_request_and_a_noun_phrase_but_not_a_statement_that_asks() -> None:
    rng = random.Random(0)
    question = {lead_in("Who wrote <The Sea Book>?", rng) for _ in range(100)}
    assert {q.split(" who ")[0] for q in question} == set(LEAD_INS["question"])
    assert all(q.endswith(" who wrote <The Sea Book>?") for q in question)
    assert {lead_in("List the <books>.", rng).split(" list ")[0] for _ in range(100)} == set(
        LEAD_INS["request"]
    )
    phrases = {lead_in("<Ann Lee> <books>", rng) for _ in range(100)}
    assert {p.removesuffix(" <Ann Lee> <books>") for p in phrases} == set(LEAD_INS["phrase"])
    assert lead_in("<Ann Lee> <wrote> what?", rng) == "<Ann Lee> <wrote> what?"  # a statement that asks


def test_a_node_between_answer_and_anchor_is_named_by_its_class(wording: Wording) -> None:
    # the birth place of the writer of The Sea Book: the writer (Ann) is no element of the query
    path = Path((Step(V + "birthPlace", False), Step(V + "author", False)), ox.NamedNode(T + "Sea_Book"))
    questions = [
        q.lower() for q in _questions(wording, QueryGraph("select", (path,)), frozenset({T + "Rome"}))
    ]
    named = [q for q in questions if "writer" in q]
    assert named and all("<writer>" not in q for q in named)
    assert any("the sea book>'s writer" in q for q in named)  # only `author` joins a book to a writer


def test_the_anchor_and_the_class_say_the_property(wording: Wording) -> None:
    by_ann = Path((Step(V + "author", True),), ox.NamedNode(T + "Ann"))
    books = QueryGraph("select", (by_ann,), answer_class=V + "Book")
    lists = [q.lower() for q in _questions(wording, books, frozenset({T + "Sea_Book", T + "Sky_Book"}))]
    assert any("<ann lee>'s <books>" in q for q in lists) and any("the <ann lee> <books>" in q for q in lists)
    earliest = QueryGraph(
        "superlative", (by_ann,), answer_class=V + "Book", value_prop=V + "publicationYear", op="ASC"
    )
    tops = [q.lower() for q in _questions(wording, earliest, frozenset({T + "Sea_Book"}))]
    assert any(re.search(r"the <(earliest|oldest)> <ann lee> <book>", q) for q in tops)
    # the answer as the object: "Rome's writers" is worded, "the Rome writers" is not
    born = QueryGraph("select", (Path((Step(V + "birthPlace", False),), ox.NamedNode(T + "Ann")),))
    places = [q.lower() for q in _questions(wording, born, frozenset({T + "Rome"}))]
    assert any("<ann lee>'s cit" in q for q in places) and not any("<ann lee> cit" in q for q in places)
