"""The kind of answer a question asks for (inference/expected_answer.py), and which answers fit it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from nmt_sparql.execution.answer import Answer
from nmt_sparql.inference.expected_answer import (
    ANY,
    COUNT,
    DATE,
    MEASURE,
    NOT_A_DATE,
    NOT_A_MEASURE,
    NOT_YES_NO,
    NOT_YES_NO_OR_COUNT,
    THING,
    YES_NO,
    asked_noun,
    expected_answer,
    fits,
    question_proper,
    refused_forms,
    value_kinds,
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Was Nikola Tesla an engineer?", YES_NO),
        ("Dooes Huawei have telecommunications as its sector?", YES_NO),
        ("Tell me whether Berlin is in Germany.", YES_NO),
        ("moby dick - orignally a french novel?", YES_NO),  # a thing said to be of a kind
        ("Kubrick - a list of his films?", NOT_YES_NO_OR_COUNT),
        ("Were is the city that Renault is based in?", ANY),  # a misspelt "where"
        ("Could you please count the rivers of Europe", COUNT),
        ("Can you tell me who wrote Dracula?", replace(THING, asks="who")),
        ("where was albert einstein born", replace(THING, asks="where")),
        ("Whose wife was Gala Dalí?", THING),  # "whose" may ask for things: "Whose director is ...?"
        ("Whose work is it?", replace(THING, asks="who")),  # a maker asked of a thing
        ("Las Meninas came off whose easel?", replace(THING, asks="who")),  # "whose" and a noun, at the end
        ("Which Beatles were born before 1942?", NOT_A_MEASURE),  # things named in the plural
        ("Which letters stand for antimony?", NOT_A_MEASURE),  # or their names: a symbol
        ("Which Alpine peaks are higher than the Jungfrau?", NOT_A_MEASURE),  # a plural after a modifier
        ("Which year was Alien released?", DATE),
        ("How many moons does Mars have?", COUNT),
        ("South Africa has how many capitals?", COUNT),
        ("How many km long is the Tiber?", MEASURE),
        ("how many meters high is mont blanc", MEASURE),
        ("How many km does the Tiber run for?", MEASURE),  # a unit, no dimension word
        ("how many square miles does Texas cover", MEASURE),
        ("How many people live in Berlin?", COUNT),
        ("count the albums by taylor swift", COUNT),
        ("number of countries the Danube flows through", COUNT),
        ("What is the number of moons of Mars?", COUNT),
        ("whats the number of moons of mars", COUNT),
        ("tally of nations where german shares official status with french", COUNT),
        ("planets sitting between earth and saturn - count them", COUNT),
        ("what's the count of elements named after a scientist", COUNT),
        ("Which country has the largest number of inhabitants?", NOT_A_DATE),  # a country
        ("How mny films did John Williams score?", COUNT),
        ("How tall is Mount Everest?", MEASURE),
        ("Counting from the Sun, what number planet is Saturn?", MEASURE),  # a value, not a count
        (
            "Mount Logan is part of which mountain range?",
            NOT_YES_NO_OR_COUNT,
        ),
        ("How did Mozart die?", NOT_YES_NO_OR_COUNT),
        ("How do chemists abbreviate iron?", NOT_YES_NO_OR_COUNT),  # "how" and an auxiliary: no count
        ("When was Nvidia founded?", DATE),
        ("In which year did the Titanic sink?", DATE),
        ("In which town was the man who founded Puma born?", THING),
        ("In which yera was Marilyn Diptych completed", DATE),  # a misspelt year, no thing
        ("on what continent is the Zambezi", THING),
        ("Anthony Burgess was born where?", replace(THING, asks="where")),  # the question word at the end
        ("Pluto was found by which astronomer?", NOT_A_MEASURE),  # "which" and the kind, at the end
        (
            "thom yorke's band plays what kind of music",
            NOT_YES_NO_OR_COUNT,
        ),
        ("google was founded by who", replace(THING, asks="who")),
        ("and Alien came out when?", DATE),
        ("The Son of Man by Magritte dates from what year?", DATE),
        ("Thom Yorke's band formed in what year?", DATE),  # a name one edit from "whom", then the end
        ("What's the nummber of official languages of Senegal", COUNT),  # a typo, and "what's" as "what is"
        ("Queen Victoria was born in London, right?", YES_NO),  # a statement with a tag
        ("Paris is the capital of France, isn't it", YES_NO),
        ("Einstein was German - is that true?", YES_NO),
        ("the moskva runs through moscow doesn't it", YES_NO),  # a negative tag, no comma
        ("portuguese is an official language in mozambique, yeah?", YES_NO),
        ("Never Let Me Go was written in Japanese, surely?", YES_NO),
        ("Leiden University is older than Edinburgh's, correct me if I'm wrong", YES_NO),
        ("Franklin studied at Cambridge, or am I mixing her up with someone else?", YES_NO),
        ("Steven Spielberg directed Star Wars, if I remember correctly", YES_NO),
        ("George Lucas directed Star Wars, if memory serves", YES_NO),
        ("Hergé was Belgian, as far as I know", YES_NO),
        ("Einstein was born in Ulm, if I'm not wrong", YES_NO),
        ("Keith Richards studied at the LSE - true or not?", YES_NO),
        ("aarhus is a norwegian city right", YES_NO),  # a tag with no comma, after a statement
        ("Which answer is correct", NOT_A_DATE),  # a question word first: no statement tagged
        ("the beatles came from liverpool?", YES_NO),  # a statement asked with a question mark
        ("Hamlet was written by Marlowe?", YES_NO),
        ("Curium - named after Marie Curie?", YES_NO),  # a verb's past after a topic
        ("books orwell wrote?", NOT_YES_NO_OR_COUNT),  # the verb ends a noun phrase
        ("paintings painted by dali?", NOT_YES_NO_OR_COUNT),  # a participle, no finite verb
        ("rivers that were dammed before 1960?", NOT_YES_NO_OR_COUNT),  # a relative clause
        ("the beatles came from liverpool or london?", NOT_YES_NO_OR_COUNT),  # a choice
        ("Whre is The Hobbit's writer a citizen of?", NOT_YES_NO_OR_COUNT),  # a misspelt "where"
        ("Name the planet on the right", NOT_YES_NO_OR_COUNT),
        ("Van Gogh's most famous canvases", NOT_A_MEASURE),  # things he has: no date of his
        ("puccini's greatest hits on the opera stage", NOT_A_MEASURE),
        ("Mozart's birth and death years", NOT_YES_NO_OR_COUNT),  # plurals of time: dates
        ("release years of bob dylan's albums", NOT_YES_NO_OR_COUNT),  # years "of" the things he has
        ("When's Greta Gerwig's birthday?", DATE),  # "when's" is "when", and opens no noun phrase
        ("Where's the band that made Rumours from?", replace(THING, asks="where")),
        ("the band behind kid a, when did they form", DATE),  # the question after a comma
        (
            "Just finished The Kite Runner - where was its author born?",
            replace(THING, asks="where"),
        ),  # the question proper
        ("Europa's planet is number what from the sun?", MEASURE),  # a place, no count
        ("True or false: Mars has two moons", YES_NO),
        ("Quick check: was the director of Rashomon born in Tokyo?", YES_NO),  # the question after a colon
        ("Curium is named after two scientists. Where were they born?", replace(THING, asks="where")),
        ("What is Apple Inc. known for?", NOT_YES_NO_OR_COUNT),  # no sentence ends at "Inc."
        ("Who composed the St. Matthew Passion?", replace(THING, asks="who")),  # no sentence ends at "St."
        ("Radiohead - were they formed after 1990?", YES_NO),  # the question after a dash
        ("the rhone, does any of it run through italy", YES_NO),  # the question after a comma
        ("How many moons, do you know?", COUNT),  # a question word first asks it
        ("Morocco's capital - is it Casablanca or somewhere else?", NOT_YES_NO_OR_COUNT),  # a choice
        (
            "Bohrium or dubnium: which has the bigger atomic number?",
            NOT_YES_NO,
        ),
        ("Which country is right next to Peru?", NOT_A_DATE),
        ("Which element is named after the city where Alfred Nobel was born?", NOT_A_DATE),  # no date
        ("which atomic number does tungsten have", NOT_A_DATE),  # a number may answer
        ("Table Mountain, the flat-topped one above Cape Town: its height in metres?", MEASURE),
        ("Mount Fuji's height in feet", MEASURE),  # a unit it is to be given in
        ("peaks over 4000 metres in height", NOT_YES_NO_OR_COUNT),  # no unit after "in": no measure
        ("", ANY),
        ("«res:Alien»", ANY),
    ],
)
def test_the_question_form_says_what_kind_of_answer_is_asked_for(question: str, expected: object) -> None:
    assert expected_answer(question) == expected


def test_a_question_neither_yes_no_nor_a_count_wants_no_ask_and_no_count() -> None:
    expected = expected_answer("Gold's chemical symbol?")
    assert not fits(expected, ["ask"], Answer(kind="ask", boolean=False))
    assert not fits(
        expected, ["select", "(", "count"], Answer(kind="select", variables=("c",), rows=(("3",),))
    )
    assert fits(expected, ["select"], Answer(kind="select", variables=("x",), rows=(("Au",),)))


def test_answer_values_have_kinds_and_a_year_is_both_a_number_and_a_date() -> None:
    assert value_kinds("1993") == {"date", "number"}
    assert value_kinds("1937-11-30") == {"date"}
    assert value_kinds("8848.86") == {"number"}
    assert value_kinds("http://nmt-sparql.org/resource/Ulm") == {"iri"}
    assert value_kinds("Au") == {"text"}


def test_a_place_is_an_iri_and_a_date_is_not() -> None:
    place = Answer(kind="select", variables=("x",), rows=(("http://nmt-sparql.org/resource/Ulm",),))
    born = Answer(kind="select", variables=("x",), rows=(("1879-03-14",),))
    assert fits(THING, ["select"], place) and not fits(THING, ["select"], born)
    assert fits(DATE, ["select"], born) and not fits(DATE, ["select"], place)
    assert fits(MEASURE, ["select"], Answer(kind="select", variables=("x",), rows=(("8848",),)))
    assert not fits(
        MEASURE, ["select", "(", "count"], Answer(kind="select", variables=("c",), rows=(("1",),))
    )


def test_a_superlative_is_not_answered_by_one_value_unranked() -> None:
    top = replace(NOT_YES_NO, top=True)
    year = Answer(kind="select", variables=("x",), rows=(("1960",),))
    member = Answer(
        kind="select", variables=("x",), rows=(("http://nmt-sparql.org/resource/George_Harrison",),)
    )
    unranked = ["select", "distinct", "?x", "where", "{", "res:The_Beatles", "ont:formationYear", "?x", "}"]
    ranked = [*unranked, "order", "by", "desc", "(", "?x", ")", "limit", "1"]
    assert not fits(top, unranked, year)  # "youngest of the beatles": the band's formation year
    assert fits(top, unranked, member) and fits(top, ranked, year)
    assert fits(NOT_YES_NO, unranked, year)


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("Which painters come from Spain?", ["painters", "come", "from"]),
        ("Can you tell me which films Ridley Scott directed?", ["films", "ridley", "scott"]),
        ("how many moons orbit jupiter", ["moons", "orbit", "jupiter"]),
        ("Give me all chemical elements", ["chemical", "elements"]),
        ("What kind of music is this?", ["music", "is", "this"]),
        ("In which cities are Obama's universities?", ["cities", "are", "obama's"]),
        ("Einstein's universities are in which city?", ["city"]),
        ("Who directed Alien?", []),
        ("albums from the band Dave Grohl was in", ["albums", "from", "the"]),
        ("the Dutch painters", ["dutch", "painters"]),
        ("number of countries the Danube flows through", ["countries", "the", "danube"]),
        ("What's the total number of moons of Mars?", ["moons", "of", "mars"]),
        ("what's the capital of France", []),
        ("Did Tolkien write novels?", []),
        ("I'd like a list of the cities in Massachusetts", ["cities", "in", "massachusetts"]),
        ("I want to see albums by Queen", ["albums", "by", "queen"]),
        ("Search for rivers in Asia", ["rivers", "in", "asia"]),
        ("a list of the novels of Tolkien", ["novels", "of", "tolkien"]),
        ("Which of Saturn's moons was found first?", ["moons", "was", "found"]),
        ("which of the planets is largest", ["planets", "is", "largest"]),
        ("how many of jupiter's moons did galileo discover", ["moons", "did", "galileo"]),
        ("the Nile flows through how many countries", ["countries"]),
        ("Philips is headquartered in what country?", ["country"]),
        ("The country whose capital is Ulaanbaatar uses what money?", ["money"]),  # after any word
        ("so what is the capital", []),
        ("the Nile flows through what countries", ["countries"]),
        ("the album back to black is by who", []),  # a statement asking at its end, no noun phrase
        ("What does the company Ole Kirk Christiansen founded make?", []),  # a verb after "what"
        (
            "I'm going up Table Mountain next week - what currency do they use there?",
            ["currency", "do", "they"],
        ),
    ],
)
def test_the_words_naming_what_a_question_asks_for(question: str, noun: list[str]) -> None:
    assert asked_noun(question) == noun


ASK_Q = ["ask", "where", "{", "res:Rome", "ont:country", "res:Italy", "}"]
SELECT_Q = ["select", "distinct", "?x", "where", "{", "?x", "ont:country", "res:Italy", "}"]
COUNT_Q = ["select", "(", "count", "(", "distinct", "?x", ")", "as", "?count", ")", "where", "{", "?x", "a", "ont:City", "}"]  # fmt: skip


@pytest.mark.parametrize(
    ("question", "hypotheses", "refused"),
    [
        ("Stanford alumni", [ASK_Q, ASK_Q], ((0, ("ask",)),)),
        ("Stanford alumni", [ASK_Q, SELECT_Q], ()),
        ("Did Mozart compose Carmen?", [SELECT_Q, COUNT_Q], ((0, ("select",)),)),
        ("Did Mozart compose Carmen?", [SELECT_Q, ASK_Q], ()),
        ("Which cities are in Italy?", [COUNT_Q], ((1, ("(",)),)),
        ("How many cities are in Italy?", [COUNT_Q], ()),
        ("How many cities are in Italy?", [], ()),
    ],
)
def test_a_form_the_question_rules_out_in_every_hypothesis_is_refused(
    question: str, hypotheses: list[list[str]], refused: tuple
) -> None:
    assert refused_forms(expected_answer(question), hypotheses) == refused


@pytest.mark.parametrize(
    ("question", "proper"),
    [
        ("the element named for alfred nobel - what's its symbol", "what's its symbol"),
        ("Malta: which languages are official there?", "which languages are official there?"),
        (
            "Radiohead - were they formed after 1990?",
            "Radiohead - were they formed after 1990?",
        ),  # no wh-word
        ("Which element is named for Alfred Nobel?", "Which element is named for Alfred Nobel?"),
    ],
)
def test_the_question_proper_follows_a_topic_when_a_question_word_opens_it(
    question: str, proper: str
) -> None:
    assert question_proper(question).strip() == proper
