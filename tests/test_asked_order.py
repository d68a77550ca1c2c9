"""The direction a superlative or comparative question asks for (inference/asked_order.py)."""

from __future__ import annotations

import pytest

from nmt_sparql.inference.asked_order import (
    Asked,
    Span,
    ascending,
    ascending_in_order,
    asked,
    asked_orders,
    asked_period,
    asked_span,
    asks_for_a_ranking,
    asks_for_the_top,
    compares_with_a_bound,
    inclusive_bound,
    measured_by_unit,
    nearest_kept,
    period_opened,
    ranked_noun,
    text_bound_removed,
    turned_to_question,
    unasked_bound_removed,
    unasked_comparison_made_equal,
    unasked_ranking_removed,
    unlimited_top,
    unordered_limit_removed,
)
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import token_types


@pytest.mark.parametrize(
    ("question", "form", "sense"),
    [
        ("What is the smallest country by area?", "superlative", "low"),
        ("Which planet is closest to the sun?", "superlative", "low"),
        ("what is the heaviest chemical element", "superlative", "high"),
        ("Which is the most populous city?", "superlative", "high"),
        ("the least populous country", "superlative", "low"),
        ("Who is the youngest composer?", "superlative", "late"),
        ("the oldest university", "superlative", "early"),
        ("Which countries have more than 200 million inhabitants?", "comparative", "high"),
        ("rivers longer than 1000 km", "comparative", "high"),
        ("films released before 1980", "comparative", "early"),
        ("Which cities have fewer than 1000 people?", "comparative", "low"),
        ("Which films have at least 3 directors?", "comparative", "high"),
        ("how many elements are numbered past 100", "comparative", "high"),
        ("elements beyond 100 on the periodic table", "comparative", "high"),
        ("Count the elements whose atomic number exceeds 100", "comparative", "high"),
        ("which mountains surpass 8000 metres", "comparative", "high"),
        ("how many mountains top 8500 metres", "comparative", "high"),  # "top" as a verb
        ("nations whose population tops one billion", "comparative", "high"),
    ],
)
def test_a_graded_word_says_the_direction(question: str, form: str, sense: str) -> None:
    found = asked(question, form)  # type: ignore[arg-type]
    assert found is not None and found.sense == sense


@pytest.mark.parametrize(
    "question",
    ["Who directed Alien?", "the largest and the smallest city", "Which number is the «ont:Largest» class?"],
)
def test_no_direction_without_a_graded_word_or_with_words_that_disagree(question: str) -> None:
    assert asked(question, "superlative") is None


def test_the_past_as_a_time_compares_nothing() -> None:
    assert asked_orders("Which films were made in the past?") == []


def test_after_as_part_of_a_verb_compares_nothing() -> None:
    assert asked_orders("Which elements were named after a scientist?") == []
    assert asked_orders("Who takes after his father?") == []
    assert [a.word for a in asked_orders("What was named after Einstein after 1990?")] == ["after"]


def _q(body: str) -> list[str]:
    return f"select distinct ?x where {{ {body} }}".split()


def test_the_order_is_turned_only_where_it_goes_against_the_question() -> None:
    query = _q("?x a ont:River . ?x ont:length ?v") + ["order", "by", "desc", "(", "?v", ")", "limit", "1"]

    turned = turned_to_question(query, "What's the shortest river?", lambda p: False)
    assert turned is not None and turned[0][-7:] == ["by", "asc", "(", "?v", ")", "limit", "1"]
    assert turned_to_question(query, "What's the longest river?", lambda p: False) is None
    assert turned_to_question(query, "Which river flows through Paris?", lambda p: False) is None


def test_a_comparative_after_the_ranks_as_a_superlative() -> None:
    question = "Of the elements Marie Curie discovered, which has the higher atomic number?"
    assert asked_orders(question) == [Asked("superlative", "high", "higher")]
    assert asks_for_the_top(question) and asks_for_the_top("the more populous of the two cities")
    query = _q("?x ont:discoverer res:Marie_Curie . ?x ont:atomicNumber ?v") + [
        "order",
        "by",
        "asc",
        "(",
        "?v",
        ")",
        "limit",
        "1",
    ]
    turned = turned_to_question(query, question, lambda p: False)
    assert turned is not None and turned[0][-6:] == ["desc", "(", "?v", ")", "limit", "1"]
    # one that compares with something stays a comparison, the name between them left out or not
    assert not asks_for_the_top("Is the Nile longer than the Amazon?")
    assert asked_orders("Which is the higher peak than K2?")[0].form == "comparative"


def test_a_comparative_with_all_the_others_ranks_as_a_superlative() -> None:
    """ "discovered before the others", "bigger than any other planet": the one ranked first of them all;
    "bigger than mars" and "before 1950" still compare."""
    assert asked_orders("dwarf planets - which one got discovered before the others") == [
        Asked("superlative", "early", "before")
    ]
    assert asked_orders("which planet is bigger than all the others") == [
        Asked("superlative", "high", "bigger")
    ]
    assert asked_orders("which is bigger than any other planet")[0].form == "superlative"
    assert asked_orders("which planet is bigger than mars")[0].form == "comparative"
    assert asked_orders("bands formed before 1950")[0].form == "comparative"


def test_an_order_without_a_direction_gets_one_in_brackets() -> None:
    query = _q("?x ont:population ?v") + ["order", "by", "?v", "limit", "1"]
    turned = turned_to_question(query, "the most populous city", lambda p: False)
    assert turned is not None and turned[0][-8:] == ["order", "by", "desc", "(", "?v", ")", "limit", "1"]


def test_old_orders_dates_from_the_earliest_and_ages_from_the_highest() -> None:
    query = _q("?x ont:born ?v") + ["order", "by", "desc", "(", "?v", ")", "limit", "1"]
    assert turned_to_question(query, "Who is the oldest person?", lambda p: True) is not None
    assert turned_to_question(query, "Who is the oldest person?", lambda p: False) is None
    assert turned_to_question(query, "Who is the youngest person?", lambda p: True) is None


def test_a_filter_comparison_is_turned_whichever_side_the_variable_stands() -> None:
    less = _q("?x ont:population ?v . filter ( ?v < 200 )")
    turned = turned_to_question(less, "countries with more than 200 people", lambda p: False)
    assert turned is not None and "?v > 200" in " ".join(turned[0])
    mirrored = _q("?x ont:population ?v . filter ( 200 < ?v )")
    assert turned_to_question(mirrored, "countries with more than 200 people", lambda p: False) is None
    year = _q("?x ont:releaseYear ?v . filter ( ?v > 1980 )")
    assert turned_to_question(year, "films released before 1980", lambda p: True) is not None


# `order by desc ( ?v ) limit 1`: the answer a measure ranks first
_TOP_ONE = ["order", "by", "desc", "(", "?v", ")", "limit", "1"]  # fmt: skip


def test_a_ranking_the_question_never_asks_for_is_removed() -> None:
    query = _q("?x ont:artist res:The_Beatles . ?x ont:releaseYear ?v") + _TOP_ONE

    removed = unasked_ranking_removed(query, "Which albums did the Beatles release?")
    assert removed is not None and removed[0] == _q("?x ont:artist res:The_Beatles . ?x ont:releaseYear ?v")
    for ranked in ("Which album did the Beatles release last?", "the Beatles' most recent album"):
        assert unasked_ranking_removed(query, ranked) is None


def test_a_comparison_with_a_bound_asks_for_every_answer_past_it_not_the_top_one() -> None:
    query = _q("?x ont:artist res:The_Beatles . ?x ont:releaseYear ?v") + _TOP_ONE
    for bound in ("Beatles albums newer than Abbey Road", "Beatles albums released after Help!"):
        removed = unasked_ranking_removed(query, bound)
        assert removed is not None and removed[0] == _q(
            "?x ont:artist res:The_Beatles . ?x ont:releaseYear ?v"
        )
    for chooses in ("Which is newer, Help! or Abbey Road?", "the top album newer than Help!"):
        assert unasked_ranking_removed(query, chooses) is None


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("Name the album with the eraliest release year.", "earliest"),
        ("the moost recent album", "most recent"),
    ],
)
def test_a_graded_word_misspelt_by_one_edit_is_still_read(question: str, word: str) -> None:
    found = asked(question, "superlative")
    assert found is not None and found.word == word


def test_a_comparing_preposition_misspelt_by_one_edit_is_still_read() -> None:
    befor = asked("which bands were formed befor 1965", "comparative")
    assert befor is not None and (befor.word, befor.sense) == ("before", "early")
    aftre = asked("novels published aftre 1900", "comparative")
    assert aftre is not None and aftre.sense == "late"


def test_a_superlative_outside_a_name_asks_for_the_top_answer() -> None:
    assert asks_for_the_top("Which planet is farthest from the Sun?")
    assert asks_for_the_top("Largest city of Japan?")  # opening the question
    assert asks_for_the_top("which album is the newest one")
    assert not asks_for_the_top("Who directed The Longest Day?")  # a superlative inside a name
    assert not asks_for_the_top("Mont Blanc sits on the border of which countries?")  # not a misspelt "most"
    assert not asks_for_the_top("Which countries have more than 200 million inhabitants?")
    assert not asks_for_the_top("Which rivers flow through Germany?")
    assert not asks_for_the_top("When did Pluto turn up in a telescope for the first time?")  # an idiom


def test_greatest_before_a_plural_is_fame_not_a_ranking() -> None:
    """ "puccini's greatest hits": the works he is known for, several, as "his most famous novels" is;
    "greatest" before a singular still ranks."""
    assert not asks_for_the_top("puccini's greatest hits on the opera stage")
    assert not asks_for_the_top("Tolstoy's greatest novels")
    assert asks_for_the_top("Which country has the greatest area?")
    assert asks_for_the_top("the country with the greatest population")


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("What's the newest university?", ["university"]),
        ("the higest mountain in the Alps", ["mountain", "in", "the"]),
        ("What is the most populous country?", ["country"]),
        ("Which planet is farthest from the Sun?", []),
        ("Which country has the highest population?", ["population"]),
        ("least populous country in south america", ["country", "in", "south"]),  # opening a noun phrase
        ("What was the Beatles' very first album?", ["album"]),  # after a possessive
        ("Who was the first to climb Everest?", ["to", "climb", "everest"]),
    ],
)
def test_the_words_a_superlative_ranks(question: str, noun: list[str]) -> None:
    assert ranked_noun(question) == noun


def test_a_word_one_edit_from_several_graded_words_still_asks_for_a_ranking() -> None:
    assert asks_for_a_ranking("the band with the latet year of formation")  # latest or later
    assert not asks_for_a_ranking("Who directed Alien?")


@pytest.mark.parametrize(
    ("question", "sense"),
    [
        ("the first album by the beatles", "early"),
        ("Which Kubrick film came out last?", "late"),
        ("Stanley Kubrick's final film", "late"),  # after a possessive
        ("her initial novel", "early"),
        ("What was the Beatles' debut album?", "early"),  # a noun ordinal, after a plural possessive
        ("the maiden voyage of the Titanic", "early"),
        ("the beatles' final album", "late"),  # after a plural's possessive
        ("the Beatles' very first album", "early"),  # "very" aside
    ],
)
def test_an_ordinal_ranks_by_time_after_the_or_a_possessive_or_at_the_end(question: str, sense: str) -> None:
    found = asked(question, "superlative")
    assert found is not None and found.sense == sense
    assert asks_for_the_top(question)
    assert ascending(found.sense, found.word, dates=True) is (sense == "early")
    assert ascending(found.sense, found.word, dates=False) is None  # "the first planet from the sun"


@pytest.mark.parametrize(
    ("question", "up"),
    [
        ("which comes later in the periodic table, tin or antimony", False),
        ("Which of them comes earliest in the periodic table?", True),
        ("the newest element", None),  # new, recent: of dates only
    ],
)
def test_early_and_late_are_a_place_in_an_order_of_numbers(question: str, up: bool | None) -> None:
    found = asked(question, "comparative") or asked(question, "superlative")
    assert found is not None and ascending_in_order(found.sense, found.word) is up
    assert ascending(found.sense, found.word, dates=False) is None  # where the measure is unknown


def test_a_comparison_of_years_the_measure_of_which_is_unknown_is_not_turned() -> None:
    """ "born earlier than 1970" as `filter ( year ( ?v ) < 1970 )`: the property behind `year ( ?v )` is
    not read, so "earlier" must not be taken as an order of numbers and turn the comparison."""
    query = _q("?x a ont:Writer . ?x ont:birthDate ?v . filter ( year ( ?v ) < 1970 )")
    assert turned_to_question(query, "List every writer born earlier than 1970.", lambda p: False) is None


def test_most_before_a_word_of_fame_ranks_nothing() -> None:
    """ "albert camus's most famous novels": the works he is known for, not the one with the most of a
    measure; "the most populous city" still ranks."""
    assert asked_orders("albert camus's most famous novels") == []
    assert not asks_for_a_ranking("Which are the most celebrated operas by Verdi?")
    assert asked("the most populous city", "superlative") is not None


def test_a_bound_ranks_nothing() -> None:
    query = _q("?x a ont:Planet . ?x ont:orderFromSun ?v") + _TOP_ONE
    assert not asks_for_a_ranking("How many planets have at least one moon?")
    assert unasked_ranking_removed(query, "How many planets have at least one moon?") is not None
    assert asks_for_a_ranking("Which planet has the most moons, with at least one ring?")


def test_an_ordinal_adverb_asks_for_no_ranking() -> None:
    assert asked("In which year was Tosca first performed", "superlative") is None
    assert asked("When did Adele debut?", "superlative") is None  # a verb
    assert not asks_for_the_top("Which operas were first performed after 1900?")
    query = _q("res:Triton ont:discoveryYear ?x . ?x ont:orbits ?v") + _TOP_ONE
    for adverb in ("Triton, Neptune's big moon, was first seen in what year", "Who first climbed K2?"):
        assert not asks_for_a_ranking(adverb)
        assert unasked_ranking_removed(query, adverb) is not None
    for ranks in (
        "Orwell's first published novel",
        "the first recorded album",
        "Which came first, Led Zeppelin or Queen?",
    ):
        assert asks_for_a_ranking(ranks)


def test_a_limit_with_no_order_is_removed_when_the_question_asks_for_the_top_one() -> None:
    query = _q("?x a ont:Mountain . ?x ont:elevation ?v") + ["limit", "1"]
    removed = unordered_limit_removed(query, "What is the tallest mountain?")
    assert removed is not None and removed[0] == _q("?x a ont:Mountain . ?x ont:elevation ?v")
    assert unordered_limit_removed(query, "Name a mountain.") is None  # any one will do
    ordered = _q("?x a ont:Mountain . ?x ont:elevation ?v") + _TOP_ONE
    assert unordered_limit_removed(ordered, "What is the tallest mountain?") is None


def test_a_comparison_the_question_never_asks_for_becomes_an_equality() -> None:
    """ "Is gold's atomic number 79?" asks for 79, not more; a comparing word or another number keeps it."""
    ask = [
        "ask",
        "where",
        "{",
        "res:Gold",
        "ont:atomicNumber",
        "?v",
        ".",
        "filter",
        "(",
        "?v",
        ">",
        "79",
        ")",
        "}",
    ]
    equal = unasked_comparison_made_equal(ask, "Is gold's atomic number 79?")
    assert equal is not None and equal[0][equal[0].index("79") - 1] == "="
    assert unasked_comparison_made_equal(ask, "Is gold's atomic number above 79?") is None
    assert unasked_comparison_made_equal(ask, "Does gold's atomic number exceed 79?") is None
    assert unasked_comparison_made_equal(ask, "Is gold's atomic number 80?") is None
    assert (
        unasked_comparison_made_equal(
            ["ask", "where", "{", "res:Gold", "ont:atomicNumber", "79", "}"], "Is it 79?"
        )
        is None
    )


@pytest.mark.parametrize(
    ("question", "decoded", "made"),
    [
        ("elements with an atomic number of 113 and up", "filter ( ?v > 113 )", "filter ( ?v >= 113 )"),
        (
            "Which Beatles were born in 1942 or later?",
            "filter ( year ( ?v ) = 1942 )",
            "filter ( year ( ?v ) >= 1942 )",
        ),
        ("films from 1990 onwards", "filter ( ?v > 1990 )", "filter ( ?v >= 1990 )"),
        ("planets with at least 14 moons", "filter ( 14 < ?v )", "filter ( 14 <= ?v )"),
        ("countries with 40 or fewer cities", "filter ( ?v < 40 )", "filter ( ?v <= 40 )"),
    ],
)
def test_a_bound_said_to_include_its_number_makes_the_comparison_inclusive(
    question: str, decoded: str, made: str
) -> None:
    """ "113 and up" asks for 113 too: `> 113` (or `= 1942` for "1942 or later") becomes `>= 113`."""
    body = "select distinct ?x where { ?x ont:p ?v . " + decoded + " }"
    changed = inclusive_bound(body.split(), question)
    assert changed is not None and " ".join(changed[0]) == body.replace(decoded, made)


def _bounded(op: str) -> list[str]:
    return f"select distinct ?x where {{ ?x ont:p ?v . filter ( ?v {op} 113 ) }}".split(" ")


def test_a_comparison_already_inclusive_or_with_no_bound_said_is_left_as_it_is() -> None:
    query = _bounded(">=")
    assert inclusive_bound(query, "elements with an atomic number of 113 and up") is None
    strict = _bounded(">")
    assert inclusive_bound(strict, "elements with an atomic number above 113") is None
    assert inclusive_bound(strict, "elements numbered 112 and up") is None  # a bound on another number


@pytest.mark.parametrize(
    ("question", "years"),
    [
        ("how many moons were discovered during the 17th century", (1600, 1700)),
        ("novels of the nineteenth century", (1800, 1900)),
        ("How many albums did the Beatles put out in the 1960s?", (1960, 1970)),
        ("books from the 1800s", (1800, 1900)),  # a hundred years, but the 2000s are a decade
        ("films of the 2000s", (2000, 2010)),
        ("how many michael jackson albums were released in the eighties", (1980, 1990)),
        ("they played nineties music", None),  # a decade in words after "the" only
        ("films released in 1960", None),
        ("the second century of the city", None),
        ("composers born in the 1830s or 1840s", (1830, 1850)),  # two decades that meet: one period
        ("bands formed in the sixties and seventies", (1960, 1980)),
        ("born in the 1830s or the 1860s", (1830, 1840)),  # apart: the first
    ],
)
def test_a_century_or_a_decade_is_the_years_it_spans(question: str, years: tuple[int, int] | None) -> None:
    assert asked_period(question) == years


@pytest.mark.parametrize(
    ("question", "dates", "span"),
    [
        ("How many elements have atomic numbers from 21 to 30?", False, Span(21, 30, True)),
        ("count the elements numbered 57 through 71", False, Span(57, 71, True)),
        ("films released between 1990 and 1999", True, Span(1990, 1999, True)),
        ("mountains between 4,000 and 5,000 metres", False, Span(4000, 5000, True)),
        ("How many elements have an atomic number in the 90s?", False, Span(90, 100, False)),
        ("elements with atomic numbers in the sixties", False, Span(60, 70, False)),  # a decade in words
        ("did radiohead form in the 90s", True, Span(1990, 2000, False)),  # a decade of years
        ("michael jackson's 80s albums", True, Span(1980, 1990, False)),  # after a possessive
        ("the 1960s", True, Span(1960, 1970, False)),  # four digits: not the sixties of "60s"
        ("how many beatles were born in 1940", False, None),  # a number said, no range
        ("novels of the nineteenth century", False, None),  # a period is of years
        ("Which peaks lie on the border between China and Nepal?", True, None),
        ("Einstein was born 1879-03-14", True, None),  # a date, no range
    ],
)
def test_a_range_is_its_two_ends_a_period_or_a_decade_by_two_digits(
    question: str, dates: bool, span: Span | None
) -> None:
    assert asked_span(question, dates) == span


def test_one_year_is_a_range_of_dates_only_when_asked_for() -> None:
    assert asked_span("how many beatles were born in 1940", True, one_year=True) == Span(1940, 1940, True)
    assert asked_span("how many beatles were born in 1940", True) is None
    assert asked_span("how many beatles were born in 1940", False, one_year=True) is None
    # a year the question bounds is no year the date is in: "in 1942 or later" asks from 1942 on
    assert asked_span("Which Beatles were born in 1942 or later?", True, one_year=True) is None


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        ("Which Asian country has the most people?", "population"),
        ("countries with over 50 million people", "population"),
        ("Which countries have more people than Japan?", "population"),
        ("Portuguese-speaking countries larger than a million square kilometres", "area"),
        ("How big is Iceland in km²?", "area"),
        ("films directed by people born in Chicago", None),  # people, not counted
        ("How many people founded Intel?", None),  # a count of people
        ("Of the elements named after people, which has the lowest atomic number?", None),
        ("How many kilometres long is the Po?", None),  # a length: the words already say it
    ],
)
def test_a_unit_names_the_measure_it_counts(question: str, measure: str | None) -> None:
    assert measured_by_unit(question) == measure


def test_a_bound_no_word_of_a_superlative_question_sets_is_removed() -> None:
    """ "Which Alpine mountain is the lowest?" decoded with `filter ( ?v > "Alpine" )`."""
    query = _q('?x ont:mountainRange res:Alps . ?x ont:elevation ?v . filter ( ?v > "Alpine" )')
    types = token_types(query, prefix_map("bundled"))
    removed = unasked_bound_removed(query, types, "Which Alpine mountain is the lowest?")
    assert removed is not None and removed[0] == _q("?x ont:mountainRange res:Alps . ?x ont:elevation ?v")
    for bounded in (
        "the lowest Alpine mountain higher than 4000 m",
        "Which is the lowest mountain over 4000 m?",
    ):
        assert unasked_bound_removed(query, types, bounded) is None
    assert unasked_bound_removed(query, types, "Which Alpine mountains are there?") is None  # no top one


def test_a_bound_of_words_is_removed_whatever_the_question_compares() -> None:
    """ "Which Alpine mountains are taller than the Eiger?" decoded with `filter ( ?v > "Alpine" )`: words
    bound no measure (the comparison with the Eiger is made anew); numbers and dates do."""
    query = _q('?x ont:mountainRange res:Alps . ?x ont:elevation ?v . filter ( ?v > "Alpine"@en )')
    types = token_types(query, prefix_map("bundled"))
    removed = text_bound_removed(query, types)
    assert removed is not None and removed[0] == _q("?x ont:mountainRange res:Alps . ?x ont:elevation ?v")
    for bound in ("4000", '"4000"', '"1990-01-01"^^xsd:date'):
        bounded = _q(f"?x ont:elevation ?v . filter ( ?v > {bound} )")
        assert text_bound_removed(bounded, token_types(bounded, prefix_map("bundled"))) is None


def test_an_order_without_a_limit_is_kept_to_the_top_one_a_superlative_asks_for() -> None:
    """`order by asc ( ?v ) ?v`: a decoding that lost its `limit 1`."""
    lost = _q("?x a ont:Country . ?x ont:population ?v") + ["order", "by", "asc", "(", "?v", ")", "?v"]
    kept = unlimited_top(lost, "least populous country")
    assert kept is not None and kept[0] == _q("?x a ont:Country . ?x ont:population ?v") + [
        "order", "by", "asc", "(", "?v", ")", "limit", "1",
    ]  # fmt: skip
    assert unlimited_top(lost, "countries by population") is None  # no top one asked for


def test_a_comparison_with_a_named_things_value_keeps_the_nearest_when_the_one_right_next_is_asked() -> None:
    """ "which element comes right after oxygen" decoded as every element past it: ordered from the
    nearest, kept to it; "before" orders the other way; "which elements come after neon" asks for all."""
    past = _q(
        "?x a ont:ChemicalElement . res:Oxygen ont:atomicNumber ?a . ?x ont:atomicNumber ?n . filter ( ?n > ?a )"
    )
    types = token_types(past, prefix_map("bundled"))
    kept = nearest_kept(past, types, "which element comes right after oxygen")
    assert kept is not None and kept[0] == [*past, "order", "by", "asc", "(", "?n", ")", "limit", "1"]
    ahead = _q(
        "?x a ont:Planet . res:Jupiter ont:orderFromSun ?a . ?x ont:orderFromSun ?n . filter ( ?a > ?n )"
    )
    kept = nearest_kept(
        ahead, token_types(ahead, prefix_map("bundled")), "the planet immediately before jupiter"
    )
    assert kept is not None and kept[0][-6:-2] == ["desc", "(", "?n", ")"]
    assert nearest_kept(past, types, "what's the next element after oxygen") is not None
    assert nearest_kept(past, types, "the next element up the table after oxygen") is not None
    assert nearest_kept(past, types, "which elements come after neon") is None


def test_top_before_a_number_after_a_determiner_ranks_and_bounds_nothing() -> None:
    """ "the top 5 rivers", "Kubrick's top films": a ranking, no comparison; "mountains top 8500 metres"
    compares with a bound."""
    for question in ("the top 5 rivers", "Kubrick's top films", "which are the top 2 mountains"):
        assert asked(question, "comparative") is None and asks_for_a_ranking(question)
    assert compares_with_a_bound("how many mountains top 8500 metres")
    assert not compares_with_a_bound("the top 5 rivers longer than 1000 km")


def test_pre_and_post_before_a_number_compare_as_before_and_after() -> None:
    """ "born pre-1950" is born before 1950; "post-punk" compares nothing."""
    assert asked_orders("how many people in Queen were born pre-1950") == [
        Asked("comparative", "early", "before")
    ]
    assert asked_orders("films released post-2000") == [Asked("comparative", "late", "after")]
    assert asked_orders("post-punk bands from Manchester") == []


def test_a_comparative_asked_of_several_things_with_no_choice_named_is_a_superlative() -> None:
    """ "Floyd members born in Cambridge - which one is older?" ranks them; a comparison with a bound or a
    choice between named things does not."""
    assert asks_for_the_top("Floyd members born in Cambridge - which one is older?")
    assert asks_for_the_top("of the two, which was taller")
    assert not asks_for_the_top("Which is older, Yale or Harvard?")
    assert not asks_for_the_top("Which mountains are higher than K2?")


def test_an_ordinal_that_opens_a_question_ranks_unless_a_past_follows_it() -> None:
    assert asks_for_the_top("first LP the beatles ever released")
    assert asks_for_the_top("last film kubrick directed")
    assert not asks_for_the_top("first performed in 1876, which opera is it")


def test_verbs_of_beating_compare() -> None:
    assert asked_orders("would the tiber beat the thames on length") == [Asked("comparative", "high", "beat")]
    assert asked("Himalayan mountains that beat K2 for height", "comparative") == Asked(
        "comparative", "high", "beat"
    )


def test_a_number_after_from_with_no_end_of_a_range_is_a_value_not_a_bound() -> None:
    """ "films from 1957" were released in 1957; "from 1957 to 1960" and "from 1957 onwards" bound."""
    text = "select distinct ?x where { ?x a ont:Film . ?x ont:releaseYear ?v . filter ( ?v > 1957 ) }"
    query = text.split(" ")
    equal = unasked_comparison_made_equal(query, "films from 1957")
    assert equal is not None and equal[0][equal[0].index("1957") - 1] == "="
    assert unasked_comparison_made_equal(query, "films from 1957 onwards") is None
    assert unasked_comparison_made_equal(query, "films from 1957 to 1960") is None


def test_two_numbers_joined_by_to_are_the_ends_of_a_range() -> None:
    assert asked_span("Elements numbered 110 to 113?", False) == Span(110, 113, True)
    assert asked_span("Elements numbered 113 to 110?", False) is None


def test_a_period_said_with_or_later_or_earlier_keeps_one_end_of_its_filter() -> None:
    """ "premiered in the 1870s or later" is from 1870 on; "or earlier" before 1880; the period alone stays."""
    text = "select distinct ?x where { ?x ont:premiereYear ?v . filter ( ?v >= 1870 && ?v < 1880 ) }"
    query = text.split(" ")
    later = period_opened(query, "ballets that premiered in the 1870s or later")
    assert later is not None and " ".join(later[0]).endswith("filter ( ?v >= 1870 ) }")
    earlier = period_opened(query, "ballets that premiered in the 1870s or earlier")
    assert earlier is not None and " ".join(earlier[0]).endswith("filter ( ?v < 1880 ) }")
    assert period_opened(query, "ballets that premiered in the 1870s") is None
