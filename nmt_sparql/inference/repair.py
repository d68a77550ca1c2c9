"""Execution feedback and repair of decoded queries (`decode.repair`, issue #16; InteracSPARQL, GRASP).

A model's best query often fails in a way the KB can see: it does not parse, names an IRI the KB
does not hold, or matches nothing. Within at most `max_rounds` rounds (5, as InteracSPARQL) the
repairer looks for a query that answers:

- round 1 (the old `decode.execution_guided`): the n-best hypotheses in order; the first that parses,
  names only IRIs the KB holds (`KnowledgeBase.exists`) and gets a non-empty answer of the kind the
  question asks for (inference/expected_answer.py: a place for "where", yes/no for "Is ...") wins;
- rounds 2..: one failed hypothesis at a time (best first): its offending triple pattern (the first that
  names an unknown IRI, else the first whose conjunction with the patterns before it matches nothing,
  by ASK) is rewritten: each KB element replaced by candidates of the kind its position takes (entity,
  property after the subject, class after `a`) -- the question's linked units of that kind first, then
  the KB index's nearest elements by label -- and subject and object swapped; a class written as the
  object of a property (`?x ont:country ont:Country`) gets `a` as a predicate to try. A rewrite is run only
  when a cheap ASK says the rewritten pattern, joined with the patterns before it, matches something
  (the domains and ranges the KB holds). A rewrite that parses and runs but is still empty is repaired
  first in the next round (a second wrong pattern). A hypothesis that answers with the wrong kind has
  the pattern that binds its answer variable rewritten ("where ... born": birth date -> birth place),
  before any empty hypothesis is: the KB matches its patterns.
- a question that opens by naming a class ("Which painters ...", "How many moons ...", "Count the Dutch
  painters", "albums by bands from London") or ranks one ("the newest university") types the answer
  of a query that lacks the type (`?x a ont:Painter` added) when the typed query still answers; an
  answer with nothing of that class is taken one hop further by a property of the question's units
  ("Einstein's universities are in which city?": his alma maters, then their city), else counts as an
  answer of the wrong kind, in any round.
- when no query gives the kind asked for, the first that answered is kept: the kind rules only rank.
- round 1 tries the n-best in order, but for what the question says: a hypothesis whose properties and
  classes the question names more of (by their names in the KB index), and leaves fewer unsaid, goes
  before an earlier one.
- a SELECT that leaves out an entity the question names (its label, the plural of a common noun:
  "physicists", a place adjective: "american", or a name within its label or a misspelling of one that
  no other unit's label holds: "Verdi", "Pucini") is restricted to it by the property that joins most
  of its answers to it, else, when no fact joins them, through one element between ("the longest river
  in Asia": a river that flows through a country of Asia); a place adjective that names an element the
  query uses ("written in German": the language) names no place left out. A class the question names
  and the query leaves out types a variable between ("elements named after scientists": `?v a
  ont:Scientist`) when that changes the answer. A property the question says and a query typed as
  asked leaves out joins its answers to an entity it names, goes between them, or keeps those that
  have it ("which city is the capital of Tanzania", "countries that have their capital on the Danube",
  "kubrick films based on novels"); a hop to the class asked for that finds nothing goes through one
  element between ("lego's headquarters are on which continent").
- a comparison with an entity is made with its value: `filter ( ?v > res:Danube )` compares with
  `res:Danube ont:length ?_than`; an ASK that reads a value and tests nothing ("Is the Thames longer
  than the Tiber?") compares it with the entity's, or the number's, the question says; a SELECT or COUNT
  that leaves out the comparison it asks for is filtered by a measured property of the units.
- an empty pattern `?x P E` is also read through one element between (`?x P ?_m . ?_m Q E`, Q from
  the KB), after the rewrites of one change ("rivers that flow through Europe").
- a query that answers, or answers with the wrong kind, but leaves out a property the question says by a
  name of its own is taken one hop further by it ("where were Google's founders born": the founders,
  then their birth places); a ranking that leaves out such a property ranks only the answers that have
  it ("Of the elements named after a country, which has the lowest atomic number?": `?x ont:namedAfter
  ?_w`).
- a superlative ("Which planet is farthest from the Sun?") is not answered by a SELECT with several
  answers and no ranking; such a query is ranked by a measured property of the units (the one most
  of its answers have first: order from the Sun), in the direction the question's word asks for.
- a SELECT with a triple pattern that no shared variable joins to its answer (`?x a ont:City .
  res:Germany ont:capital ?y`) answers with the wrong kind: a cross product no question asks for.
- so does a query whose ORDER BY or FILTER reads a variable that no triple pattern binds (`order by
  desc ( ?v )` with no `?x ont:area ?v`): its order or condition says nothing.
- a "who" question is not answered by an entity of a class that no slot of training's "who" answers
  holds (`KBIndex.answer_classes`: "Who wrote X?" is not answered by X's language).
- before it runs, a hypothesis whose ORDER BY direction or FILTER comparison goes against the question's
  superlative or comparative ("the smallest", "more than", "before") is turned to it, and an ORDER BY
  ... LIMIT the question never asks for is dropped, and a FILTER comparison with a number the question
  says, in a question that compares nothing, becomes an equality (inference/asked_order.py): one word of
  the question says so, the same on any KB. A superlative ordered by values that are no numbers or dates
  (`order by ?v` over `?x ont:country ?v`) is an answer of the wrong kind, and its rewrite starts
  at the ordered pattern (another property of the units: "closest to the sun", order from the Sun).
- an ASK that answers `false` because a pattern names an IRI where the KB's values of its property are
  literals (or a literal where they are IRIs), or because a FILTER compares values of a property that
  are no numbers or dates ("painted before 1600" as the painter), counts as empty: `false` says nothing
  of the fact. Such a compared pattern is the one an empty query's repair rewrites, to a measured
  property only.
- a hypothesis that matches nothing and joins two properties in a chain (`A P ?y . ?y Q ?x`) is tried,
  after every hypothesis, with the two the other way round (`A Q ?y . ?y P ?x`), read from its other
  end (`?x Q ?y . ?y P A`), and both, each kept only when it answers with the kind asked for: "Where
  was the director of Alien born?" decoded with birth place first and director second.
- an ASK that answers `false` is checked for direction: a pattern `s p o` whose subject never has `p`
  in the KB while its object does, and whose object never is a value of `p` while its subject is, is
  turned round (`Freddie_Mercury bandMember Queen` -> `Queen bandMember Freddie_Mercury`); the turned
  query's answer, true or false, stands, since the KB's domain and range, not the answer, chose it.
  A `false` by a property that another of the units shares the question's words with ("compose":
  composer, music composer) gives way to that property's `true`.
- when no query gives the kind asked for, one of the form asked for (a list for "which book", with
  answers of another class) is kept before one that is not (a yes/no).

- before it runs, a place adjective before the class the question asks for ("french film directors",
  "Which German university is the oldest?", "South American countries") is read as the place: the
  pattern, or chain, that joins the answer to the place or its language becomes the link the KB most
  often joins that class's members to the place by, through the members' own facts (nationality; a
  city's country), unless the word is a language's ("Spanish-speaking", "written in French") or the
  language joins the class's members itself. A class written as the value of a property the question
  names (`?x ont:namedAfter ont:Person`) becomes a value of that class; an ASK with a part that names
  nothing (`res:Oppenheimer_film a ont:Film . ?x ont:releaseYear ?v`) asks it of the entity it names.
  These rules and the ones above apply in turn, each to what the one before made.
- a superlative with no class to go by ("the eldest of the Pink Floyd members") is ranked by the one
  measure every answer has (birth date); a measure a rewrite puts into a comparison with an entity
  compares with that entity's value; a comparative with "than" and no choice ("European countries
  bigger than Germany") asks for every answer past the bound, so a ranking is dropped and the bound
  restricts nothing.

- a variable that one pattern alone reads (`?x ont:discoverer ?v`) is the entity the question names and the
  query leaves out, when the patterns still match ("the moon Christiaan Huygens discovered"); an entity the
  question names only within another's name ("Dublin" of "Trinity Collage Dublin", one word misspelt or not)
  is not named by itself; an answer is restricted to an entity the question names before it is taken one
  hop further ("Which astronomer discovered Enceladus?"), also through an element the entity points to ("the
  element named after the people who discovered polonium"); the noun a question asks for names the element
  whose label it heads ("How many works ...": notable work); a yes/no question that names a period ("Does
  Philips date back to the 19th century?") asks it of the value a SELECT reads, and a pattern that joins an
  entity to itself makes a "no" that says nothing.
- a choice between two ("Which is longer, the Nile or the Amazon?") reads an entity the KB gives no value of
  the measure as one named alike that has one (the river, not the company); when none has, repair gives up
  and says which lacks it ("Who was born first, Newton or Einstein?" with no birth date of Newton's): any
  answer would be a guess. A number the question says and the query leaves out restricts the answer by the
  property that has that value ("the moons found in 1610"); a FILTER that orders a value against words
  (`filter ( ?v > "Alpine" )`) is removed, whatever the question, and the comparison made anew.
- a yes/no question about two named entities that no hypothesis asks of both ("Is Mount Teide in
  Portugal?" decoded as whether Teide has a label) asks whether the KB links the two, by a fact between
  them, else by the property that links one to things of the other's kind ("no"); a statement about the
  two with a question mark ("mimas goes around jupiter?") is such a question. An ASK that types one named
  entity by a class it is not of while the question names another of that class ("Is Mimas one of
  Saturn's moons?" as `res:Saturn a ont:Moon`) gives way to the fact between the two, when there is one.
- before it runs, a query that reads a named entity where the question reads a property of it ("the
  capital of Iraq", "Queen Victoria's husband") reads the entity's value by that property in its place,
  when the query so read answers; a measure that the question's graded word does not grade ("bigger":
  area, not population) gives way to the one measure of the units it grades; a date asked of one named
  entity by a property the question does not say, when it names another the KB links the first to
  ("When did Grant Wood finish American Gothic?"), is the other's date; a measure's value selected
  where the question asks for things of a class ("Andes mountains over 6000 metres") gives way to the
  things.
- a yes/no question comparing two named entities ("Was Harvard founded earlier than Yale?") compares
  their values of a measure, the one after the comparing word on the right.
- answers the question names by a name of a property the query leaves out ("Which capital cities lie on
  the Danube?") are restricted to that property's values; a measure the question compares by ("over
  6000 metres") takes no answer one hop further, and a hop by a property whose name is the verb the
  question asks with ("What orbits the planet Herschel discovered?") goes to that verb's subject first.
- when no query gives the kind asked for, before the first that answered is kept, the things of the class
  the question asks for joined to each entity it names as the KB most often joins them ("How many of
  Saturn's moons were found by William Herschel?") are tried.

- before it runs, a query for two things asked to have the same value ("Are Adidas and Puma based in the
  same town?" decoded as `res:Puma ont:headquarters res:Adidas`) asks whether they share one, and one for
  things with the same value as a named one ("films from the same year as Alien") reads them, "the same
  year" by a property of time; a fact of one of things named side by side ("the founders of Adidas and
  Puma", "the currencies of denmark, norway and sweden") is read of each, and so is a yes/no question's
  ("are huawei and tencent both based in shenzhen"); a question asking of some of a named group's members
  ("How many of the Beatles were born in Liverpool?") reads the group's members. An empty SELECT's entity
  that never takes its place with its property gives way, before the next hypothesis, to another sense of
  its name that does (the University of Cambridge for "went to Cambridge"). An ASK that writes a pattern
  with a variable twice has lost what the copy stood for and answers nothing.
- an answer typed by the class the question asks with ("which painters were born in spain") goes no hop
  further by a property the question says; "which authors ..." names the values of the property labelled
  author (no class of the units is named so), which restrict the answer rather than take it a hop; before
  it runs, "What orbits the Earth?" read as what the Earth orbits is turned: the question's first word is
  the subject of the verb that names the property; a measure read where the question's unit names another
  ("How big is Iceland in square kilometres?": its population) gives way to the unit's.

- a choice may be a bare list before a question word ("Siemens, Nokia, Nestlé - which was founded earliest?"),
  follow "out of" or "the oldest of", and a yes/no choice asked of one of its things is an ASK whether that one
  is the top ("Kinabalu vs Fuji - is Kinabalu the taller peak?"); an ASK's variable that one pattern alone
  reads takes the place of the one named entity it leaves out ("did herschel discover titan"); things named
  side by side given one shared value by a SELECT are read each ("belgium and switzerland together - how many
  official languages"), unless the question says they share it.
- things of a kind placed by a measure against named ones of that kind, read from the question alone:
  between two ("beyond earth but before saturn", "heavier than lead but lighter than uranium"), from one on
  ("from rutherfordium upwards"), past one by a comparative or a verb of outdoing ("further out than Mars",
  "how many countries beat it for area"); "the moon discovered in 1978" is a moon of that discovery year,
  not the Moon; a class in a period the question says ("How many bands were formed in the 1960s?") when no
  query answers and the question names nothing; a place no fact has as a value of a property the question
  says, read through what its values lie in ("writers born in ireland": a city of Ireland); a hop to the
  class asked for by the property that reached the answer from a thing of that class, again ("the movies by
  whoever directed blue velvet").

The rules that compare and rank by a measure are inference/comparisons.py, the reading of place
adjectives inference/place_reading.py, yes/no questions about two named entities and questions of two
named things' values inference/named_pairs.py, the cached KB reads they share inference/kb_reading.py,
and what a question says of KB elements inference/said.py; `Repairer` runs them in rounds.

Every query, ASK checks included, goes through `KnowledgeBase.query` (safety checks, the KB's timeout);
a hypothesis that the safety check refuses is recorded as refused and never sent. Each round records
what it tried and why each attempt failed, so a user (or a report) sees how the answer was found.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from nmt_sparql.annotation.linking.index import QUALIFIER, KBIndex, Kind, normalize
from nmt_sparql.annotation.linking.linker import STOPWORDS
from nmt_sparql.annotation.linking.sources import token_of
from nmt_sparql.annotation.linking.wordforms import (
    head_plurals,
    inflections,
    is_common_noun,
    is_dictionary_word,
    is_verb_form,
)
from nmt_sparql.annotation.units import units
from nmt_sparql.execution.answer import Answer
from nmt_sparql.execution.base import ExistenceCheckError, KnowledgeBase
from nmt_sparql.execution.safety import UnsafeQueryError, query_form
from nmt_sparql.inference.asked_order import (
    DETERMINERS,
    Span,
    ascending,
    asked,
    asked_orders,
    asked_span,
    asks_for_the_nearest,
    asks_for_the_top,
    compares_with_a_bound,
    inclusive_bound,
    measured_by_unit,
    nearest_kept,
    ordered_variable,
    period_opened,
    ranking_dropped,
    ranks_by_size,
    said_bounds,
    text_bound_removed,
    turned_to_question,
    unasked_bound_removed,
    unasked_comparison_made_equal,
    unasked_filter_removed,
    unasked_ranking_removed,
    unlimited_top,
    unordered_limit_removed,
    without_positions,
)
from nmt_sparql.inference.comparisons import Comparisons, before_close, fresh_value, uncounted
from nmt_sparql.inference.expected_answer import (
    ANY,
    AUXILIARIES,
    COUNT,
    DATE,
    QUESTION_WORDS,
    THING,
    TIME_NOUNS,
    YES_NO,
    Expected,
    asked_noun,
    expected_answer,
    fits,
    question_proper,
    value_kinds,
)
from nmt_sparql.inference.idioms import IdiomReading
from nmt_sparql.inference.kb_reading import ANSWERS_READ, answer_head, element_name, typed_by
from nmt_sparql.inference.kind_reading import KindReading
from nmt_sparql.inference.named_pairs import NamedPairs
from nmt_sparql.inference.said import Said, names_the_kb_lacks
from nmt_sparql.inference.topics import TopicReading
from nmt_sparql.sparql.patterns import (
    answer_variable,
    apart,
    braces,
    compared_variables,
    falls_apart,
    filters_nothing,
    reads_unbound,
    repeats_a_pattern,
    triple_patterns,
)
from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map
from nmt_sparql.sparql.tokens import NUMBER, TokenType, detokenize, token_types
from nmt_sparql.sparql.validate import query_parse_error

MAX_ROUNDS = 5
# A year a question says ("born before 1942").
_YEAR = re.compile(r"\b(1\d{3}|20\d{2})\b")
ANSWERED, PARSE_ERROR, EMPTY, UNKNOWN_IRI, REFUSED, KB_ERROR, WRONG_KIND = (
    "answered", "parse error", "empty", "unknown IRI", "refused", "KB error", "wrong kind of answer",
)  # fmt: skip
# Query shapes whose triple patterns are not one conjunction: an empty answer cannot be blamed on one.
_NOT_CONJUNCTIVE = {"union", "optional", "minus", "not", "exists"}
# The readings of an empty chain tried after the hypotheses, (read from its other end, properties
# exchanged) -> what the attempt's source says, in the order they are tried.
_CHAIN_READINGS = {
    (False, True): "the chain's two properties the other way round",
    (True, False): "the chain read from its other end",
    (True, True): "the chain read from its other end, its properties the other way round",
}
# The properties of an entity's facts a pattern from it may take instead of its own (`_rewrites`).
_ENTITY_FACTS = 12


@dataclass
class Attempt:
    """One query tried: where it came from, its text, and how it ended (`outcome`, with `detail`)."""

    source: str
    sparql: str
    outcome: str
    detail: str = ""


@dataclass
class Round:
    """One round: what it worked on (`target`), the queries it ran, and targets it had to pass over."""

    number: int
    target: str
    attempts: list[Attempt] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class Repaired:
    """The chosen query and answer; `answered_in`: the round that found an answer (None: gave up, the
    best hypothesis is kept and `gave_up` says why)."""

    tokens: list[str]
    answer: Answer | None
    rounds: list[Round]
    answered_in: int | None
    gave_up: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "answered_in": self.answered_in,
            "gave_up": self.gave_up,
            "rounds": [asdict(r) for r in self.rounds],
        }


@dataclass
class _Target:
    tokens: list[str]
    label: str
    unknown: frozenset[str] = frozenset()
    wrong_kind: bool = False


def repair_rounds(decode_cfg: Any) -> int:
    """The rounds a decode config asks for: `repair` (its `repair_rounds`, default 5), else 1 for the
    alias `execution_guided` (the first round: the first hypothesis that answers), else 0 (off)."""
    if decode_cfg.get("repair", False):
        rounds = int(decode_cfg.get("repair_rounds", MAX_ROUNDS) or MAX_ROUNDS)
        if not 1 <= rounds <= MAX_ROUNDS:
            raise ValueError(f"decode.repair_rounds must be within 1..{MAX_ROUNDS}, got {rounds}")
        return rounds
    return 1 if decode_cfg.get("execution_guided", False) else 0


def _is_empty(tokens: Sequence[str], answer: Answer) -> bool:
    """No answer to give: no row, or a COUNT of nothing (`0` is what a count over no match returns)."""
    return answer.is_empty() or ("count" in tokens and answer.number() == 0)


def expected_of(question: str) -> Expected:
    """What `question` asks for (inference/expected_answer.py), and whether a superlative asks for the
    top answer only (inference/asked_order.py)."""
    expected = expected_answer(question)
    if asks_for_the_top(question):
        return replace(expected, name=f"{expected.name}, the top one", top=True)
    return expected


class Repairer(Comparisons, KindReading, NamedPairs, TopicReading, IdiomReading):
    """Repairs the n-best hypotheses of questions on one KB (see the module docstring).

    `index`: the KB index the annotator uses (None: replacements come from the question's units only);
    `per_element`: replacements per KB element; `max_checks` / `max_runs`: ASK checks and full queries
    per round, which bound the KB queries a question costs.
    """

    def __init__(
        self,
        kb: KnowledgeBase,
        prefixes: PrefixMap,
        index: KBIndex | None = None,
        max_rounds: int = MAX_ROUNDS,
        per_element: int = 4,
        max_checks: int = 24,
        max_runs: int = 8,
    ):
        if not 1 <= max_rounds <= MAX_ROUNDS:
            raise ValueError(f"repair rounds must be within 1..{MAX_ROUNDS}, got {max_rounds}")
        super().__init__(kb, prefixes, index, per_element)
        self.max_rounds, self.max_checks, self.max_runs = max_rounds, max_checks, max_runs
        self._known: dict[str, bool] = {}
        self._by_first_word: dict[str, list[str]] | None = None  # `_siblings`: properties by first word

    # -- one query -------------------------------------------------------------------------------

    def _unknown(self, tokens: Sequence[str]) -> tuple[frozenset[str], str]:
        """The URI tokens of a query the KB does not hold (and a note when the KB cannot tell)."""
        uris = {t for t, k in zip(tokens, token_types(list(tokens), self.prefixes)) if k == TokenType.URI}
        todo = uris - self._known.keys()
        if todo:
            try:
                found = self.kb.exists(todo)
            except ExistenceCheckError as err:
                return frozenset(), f"existence check failed: {err}"
            self._known.update((t, t in found) for t in todo)
        return frozenset(t for t in uris if not self._known[t]), ""

    def _try(
        self, tokens: list[str], source: str, expected: Expected = ANY
    ) -> tuple[Attempt, Answer | None, frozenset[str]]:
        """Parse, safety check, existence check, then run one query; refused text never reaches the KB.
        An answer that is not of the `expected` kind is `WRONG_KIND`."""
        sparql = detokenize(tokens, self.prefixes)
        error = query_parse_error(sparql)
        if error is not None:
            return Attempt(source, sparql, PARSE_ERROR, error.splitlines()[0][:200]), None, frozenset()
        try:
            query_form(sparql, self.kb.allow_hosts)
        except UnsafeQueryError as err:
            return Attempt(source, sparql, REFUSED, str(err)), None, frozenset()
        unknown, note = self._unknown(tokens)
        if unknown:
            return Attempt(source, sparql, UNKNOWN_IRI, " ".join(sorted(unknown))), None, unknown
        types = token_types(tokens, self.prefixes)
        if repeats_a_pattern(tokens, types):  # its answer is kept by nothing
            detail = "a triple pattern is written twice: the second says nothing"
            return Attempt(source, sparql, WRONG_KIND, detail), None, unknown
        answer = self._query(sparql)
        if not answer.ok:
            return Attempt(source, sparql, KB_ERROR, str(answer.error)[:200]), answer, unknown
        if _is_empty(tokens, answer):
            return Attempt(source, sparql, EMPTY, note), answer, unknown
        if answer.boolean is False and self.ruled_out(tokens, types):
            detail = "false because the KB's values of a property rule out its pattern's object"
            return Attempt(source, sparql, EMPTY, detail), answer, unknown
        if falls_apart(tokens, types):
            detail = "a triple pattern is joined to the answer by no variable"
            return Attempt(source, sparql, WRONG_KIND, detail), answer, unknown
        if reads_unbound(tokens, types):
            detail = "an ORDER BY or FILTER reads a variable no triple pattern binds"
            return Attempt(source, sparql, WRONG_KIND, detail), answer, unknown
        if filters_nothing(tokens, types):
            detail = "a FILTER tests one term alone and compares nothing"
            return Attempt(source, sparql, WRONG_KIND, detail), answer, unknown
        if self.counted_measure(tokens) is not None:
            detail = "it counts the values of a measure, which is 1 whatever the question asked"
            return Attempt(source, sparql, WRONG_KIND, detail), answer, unknown
        if self.answers_itself(tokens, types, answer):
            detail = "its answers are entities the query itself names"
            return Attempt(source, sparql, WRONG_KIND, detail), answer, unknown
        if not fits(expected, tokens, answer):
            return (
                Attempt(source, sparql, WRONG_KIND, f"the question asks for {expected.name}"),
                answer,
                unknown,
            )
        if not self.of_answering_classes(answer, expected):
            detail = f"no answer is of a class that answers '{expected.asks}' questions"
            return Attempt(source, sparql, WRONG_KIND, detail), answer, unknown
        return Attempt(source, sparql, ANSWERED, note), answer, unknown

    def answers_itself(self, tokens: Sequence[str], types: Sequence[TokenType], answer: Answer) -> bool:
        """Whether a SELECT answers with the entity it names, by a pattern that repeats the one naming it
        with the answer in the entity's place (`?y ont:founder res:Phil_Knight . ?y ont:founder ?x`
        answers Phil Knight) or follows its property there and back (`res:Anna_Magdalena_Bach
        ont:spouse ?y . ?y ont:spouse ?x`): a question does not ask for what it says. (An answer that is a named entity
        by another path can be right: the things whose capital is in Croatia include Croatia.)"""
        if answer.kind == "ask":
            return False
        var = answer_variable(tokens, types)
        triples = [tuple(tokens[i] for i in t) for t in triple_patterns(tokens, types)]
        echoed: set[str] = set()  # entities in the place the answer takes in a copy of their pattern
        for s, p, o in triples:
            for s2, p2, o2 in triples:
                if p == p2 and s == s2 and o2 == var != o:
                    echoed.add(o)
                if p == p2 and o == o2 and s2 == var != s:
                    echoed.add(s)
                if p == p2 and o == s2 and o2 == var != s:  # the property there and back: a spouse's spouse
                    echoed.add(s)
                if p == p2 and s == o2 and s2 == var != o:
                    echoed.add(o)
        return bool(echoed) and self._only_entities(answer, echoed)

    def of_answering_classes(self, answer: Answer, expected: Expected) -> bool:
        """Whether an answer to a "who" question holds an entity of a class such questions' answers
        have in training (`KBIndex.answer_classes`), or an entity the KB gives no class: "Who wrote
        The Alchemist?" answered by Portuguese, a language, is not; whether a "where" question's holds
        anything but people. True when training taught nothing."""
        if expected.asks is None or self.index is None:
            return True
        if expected.asks == "where":  # "Where is Dave Grohl's band from?" is not answered by its members
            return not self._only_people(answer)
        asked = self.index.answer_classes(expected.asks)
        if not asked:
            return True
        entities = [v for v in answer.cells() if value_kinds(v) == {"iri"}]
        for value in entities[:ANSWERS_READ]:
            token = token_of(value, self.prefixes)
            classes = self.index.classes(token) if token else frozenset()
            if not classes or classes & asked:
                return True
        return not entities

    def _only_people(self, answer: Answer) -> bool:
        """Whether an answer's entities (the first few read) are all people: of a class named "person"."""
        assert self.index is not None
        entities = [
            token_of(v, self.prefixes) for v in answer.cells()[:ANSWERS_READ] if value_kinds(v) == {"iri"}
        ]
        return bool(entities) and all(
            e and any(self.named_by_head(c, "person") for c in self.index.classes(e)) for e in entities
        )

    def _matches(self, tokens: Sequence[str], patterns: Sequence[tuple[int, int, int]]) -> bool:
        """ASK: does the conjunction of these triple patterns of `tokens` match anything in the KB?"""
        body: list[str] = []
        for s, p, o in patterns:
            body += [tokens[s], tokens[p], tokens[o], "."]
        answer = self._query(detokenize(["ask", "where", "{", *body, "}"], self.prefixes))
        return answer.ok and bool(answer.boolean)

    def _turned(self, tokens: list[str]) -> list[str] | None:
        """`tokens` with each plain `s p o` pattern of three IRIs that the KB's usage of `p` says is
        written backwards turned round (module docstring), or None when none is."""
        types = token_types(tokens, self.prefixes)
        new = list(tokens)
        for s, p, o in triple_patterns(tokens, types):
            if {types[s], types[p], types[o]} != {TokenType.URI}:
                continue
            subject, prop, obj = tokens[s], tokens[p], tokens[o]
            as_subject = [[t, prop, "?_v"] for t in (subject, obj)]
            as_object = [["?_v", prop, t] for t in (obj, subject)]
            if (
                not self._holds(as_subject[0])
                and self._holds(as_subject[1])
                and not self._holds(as_object[0])
                and self._holds(as_object[1])
            ):
                new[s], new[o] = obj, subject
        return None if new == tokens else new

    def _fact_patterns(self, tokens: list[str]) -> list[tuple[int, int, int]]:
        """An ASK's patterns of three IRIs other than a type (`res:Alien ont:director res:Ridley_Scott`):
        the facts whose "no" the rules below question; [] for another query form."""
        if tokens[:1] != ["ask"]:
            return []
        types = token_types(tokens, self.prefixes)
        return [
            (s, p, o)
            for s, p, o in triple_patterns(tokens, types)
            if {types[s], types[p], types[o]} == {TokenType.URI} and tokens[p] != "a"
        ]

    def said_alike(
        self, tokens: list[str], said: Said | None, units: Sequence[str]
    ) -> list[tuple[list[str], str]]:
        """An ASK's patterns of three IRIs with their property replaced by another of the units that the
        question says by the same words ("did Sibelius compose Finlandia": composer and music composer
        both say "compose"), with what changed: the question's word does not tell them apart, so a "no"
        of one is no answer while the other holds."""
        if said is None:
            return []
        out = []
        for _, p, _ in self._fact_patterns(tokens):
            words = said.words(tokens[p])
            for unit in dict.fromkeys(units):
                if unit != tokens[p] and self._kind(unit) == "property" and words & said.words(unit):
                    out.append(([*tokens[:p], unit, *tokens[p + 1 :]], f"{tokens[p]} -> {unit}, said alike"))
        return out

    def entity_alike(self, tokens: list[str], said: Said | None) -> list[tuple[list[str], str]]:
        """An ASK's patterns of three IRIs with an entity that never takes its place with the property in
        the KB (`res:Edwin_Hubble ont:almaMater res:Oxford`: nobody studied at the city) replaced by one
        that does, named alike (`named_alike`), with what changed: a "no" of an entity that cannot take
        that place is no answer while the other holds. A pattern neither end of which can take its place
        is read the other way round too (`res:Oxford ont:almaMater res:Edwin_Hubble`)."""
        if said is None:
            return []
        out = []
        for s, p, o in self._fact_patterns(tokens):
            prop, readings = tokens[p], [tokens]
            if not self._holds([tokens[s], prop, "?_v"]) and not self._holds(["?_v", prop, tokens[o]]):
                turned = list(tokens)
                turned[s], turned[o] = tokens[o], tokens[s]
                readings.append(turned)
            for reading in readings:
                for at in (s, o):
                    found = self.named_alike(reading[at], prop, at == s, said)
                    if found is not None:
                        new = [*reading[:at], found, *reading[at + 1 :]]
                        out.append((new, f"{reading[at]} -> {found}, which takes that place with {prop}"))
        return out

    def misplaced_named(self, tokens: list[str], said: Said | None) -> list[tuple[list[str], str]]:
        """A SELECT's entity that never takes its place with its pattern's property in the KB (`?x
        ont:almaMater res:Cambridge`: nobody studied at the city) replaced, wherever the query names it, by
        one named alike that does (`named_alike`: the University of Cambridge), with what changed: the
        model read the question's words right and the linker's first sense of the name wrong, so this is
        tried before the hypotheses after it, which read other words."""
        if said is None or tokens[:1] != ["select"]:
            return []
        types = token_types(tokens, self.prefixes)
        out = []
        for s, p, o in triple_patterns(tokens, types):
            if tokens[p] == "a" or types[p] != TokenType.URI:
                continue
            for at in (s, o):
                found = (
                    self.named_alike(tokens[at], tokens[p], at == s, said)
                    if types[at] == TokenType.URI
                    else None
                )
                if found is not None and found not in tokens and self._a_sense_of(tokens[at], found):
                    new = [found if t == tokens[at] else t for t in tokens]
                    out.append((new, f"{tokens[at]} -> {found}, which takes that place with {tokens[p]}"))
        return out

    def _a_sense_of(self, name: str, other: str) -> bool:
        """Whether `other` is another sense of the name `name`: a name of `name`'s label qualified
        ("Oppenheimer (film)": J. Robert Oppenheimer), or its label with only words of class labels added
        ("Cambridge": the University of Cambridge). Not of a kind of thing ("opera": A Night at the Opera),
        nor a name grown by a name ("Botswana": Botswana pula; "Queen": Queen Victoria)."""
        assert self.index is not None
        label = self.index.label(name) or ""
        if not label or is_common_noun(label):
            return False
        if QUALIFIER.search(label):
            return True
        added = set(normalize(self.index.label(other) or "").split()) - set(normalize(label).split())
        return all(w in self.index.class_words() or w in STOPWORDS for w in added)

    def linked_otherwise(
        self, tokens: list[str], units: Sequence[str] = (), said: Said | None = None
    ) -> list[tuple[list[str], str]]:
        """An ASK's patterns of three IRIs whose property neither end ever takes part in ("Was Boléro
        written by Ravel?" as `res:Bolero ont:author res:Maurice_Ravel`: the KB knows no author of the
        piece, and Ravel wrote no book, either way round) with the property the KB most often links the
        two with instead (`ont:composer`), with what changed: a "no" by a property that could not hold of
        either is no answer. Where one end takes part but neither can take the other place, either way
        round ("enzo ferrari was a racing driver too" as `res:Racing_driver ont:birthPlace
        res:Enzo_Ferrari`: no birth place is a person or a job), and the question does not say the
        property (`said`: "Did Brian May study in London?" asks of his studies, not of his birth), only a
        property among `units` (what the linker read) links them."""
        if self.index is None:
            return []
        out = []
        for s, p, o in self._fact_patterns(tokens):
            subject, prop, obj = tokens[s], tokens[p], tokens[o]
            subjects = [self._holds([e, prop, "?_v"]) for e in (subject, obj)]
            objects = [self._holds(["?_v", prop, e]) for e in (subject, obj)]
            if any(subjects) and any(objects):
                continue  # `res:Maurice_Ravel ont:composer res:Bolero`: written the other way round, it could
            linked = [r for r in self.index.relations(subject, obj) if r != prop]
            why = "neither end takes part in"
            if any(subjects) or any(objects):
                if said is None or said.words(prop):
                    continue
                linked, why = [r for r in linked if r in units], "neither end can take the other's place in"
            if not linked:
                continue
            ends = (subject, obj) if self._holds([subject, linked[0], obj]) else (obj, subject)
            new = [*tokens[:s], ends[0], linked[0], ends[1], *tokens[o + 1 :]]
            out.append((new, f"{prop} -> {linked[0]}: {why} {prop}"))
        return out

    def two_named(
        self, hypotheses: Sequence[Sequence[str]], question: str, said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """What a yes/no question about two named entities asks, before any hypothesis runs: their values
        compared (`pair_compared`), else whether the KB links them (`asked_of_the_two`), given the
        hypotheses an ASK false for its form does not rule out ("Is Titan one of Saturn's moons?")."""
        if said is None:
            return None
        compared = self.pair_compared(question, units, self.named_entities(said, units), said)
        if compared is not None:
            return compared
        standing = [
            h
            for h in hypotheses
            if h[:1] != ["ask"] or not self.ruled_out(list(h), token_types(list(h), self.prefixes))
        ]
        return self.asked_of_the_two(standing, said, units)

    def class_joined_to_named(
        self, cls: str | None, said: Said | None, units: Sequence[str], count: bool
    ) -> list[str] | None:
        """The things of the class the question asks for joined to each entity it names as the KB most
        often joins that class's members to it ("How many of Saturn's moons were found by William
        Herschel?": moons that orbit Saturn and that Herschel discovered), through one other thing when
        no fact joins them (`KBIndex.paths`: the state of Intel's headquarters), counted for a question that
        asks how many: what repair tries when no query gave the kind of answer asked for. None without a
        class, a named entity, or a join for each."""
        if cls is None or said is None or self.index is None:
            return None
        named = self.named_entities(said, units)
        body = ["?x", "a", cls]
        for n, entity in enumerate(named):
            links = self.index.relations(cls, entity, k=1)
            if links:
                way = ["?x", links[0], entity]
                body += [".", *(way if self._holds([*body, ".", *way]) else [entity, links[0], "?x"])]
                continue
            path = self.index.paths(cls, entity, k=1)  # "Intel's home city is in which US state?"
            if len(path) != 2:
                return None
            between = f"?_j{n}"
            ways = [
                [*first, ".", *second]
                for first in (["?x", path[0], between], [between, path[0], "?x"])
                for second in ([between, path[1], entity], [entity, path[1], between])
            ]
            held = next((w for w in ways if self._holds([*body, ".", *w])), None)
            if held is None:
                return None
            body += [".", *held]
        if not named:
            return None
        return [*answer_head(count), "where", "{", *body, "}"]

    def _chain_swaps(self, tokens: Sequence[str]) -> list[tuple[list[str], str]]:
        """Readings of each chain `A P ?y . ?y Q B` (through a variable the query does not select) the
        other way round, with what changed: its two properties exchanged (`A Q ?y . ?y P B`: "Where was
        the director of Alien born?" decoded as `res:Alien ont:birthPlace ?y . ?y ont:director ?x`), the
        chain read from its other end (`B Q ?y . ?y P A`: "What languages do people speak in the
        country whose capital is Lima", `?x ont:officialLanguage ?y . ?y ont:country res:Lima`), both;
        then one of its two patterns turned ("When was the band Bono sings for formed?" decoded as
        `res:Bono ont:bandMember ?y . ?y ont:formationYear ?x`); and two patterns that meet at a variable
        they both end in (or both start from) with one turned, or both that end in it."""
        types = token_types(tokens, self.prefixes)
        answer_var = answer_variable(tokens, types)
        patterns = [pt for pt in triple_patterns(tokens, types) if tokens[pt[1]] != "a"]
        out = []
        for (s1, p1, o1), (s2, p2, o2) in itertools.permutations(patterns, 2):
            if not (
                types[o1] == TokenType.VARIABLE
                and tokens[o1] == tokens[s2]
                and tokens[o1] != answer_var
                and types[p1] == types[p2] == TokenType.URI
                and TokenType.LITERAL not in (types[s1], types[o2])
            ):
                continue
            for (reverse, exchange), change in _CHAIN_READINGS.items():
                if exchange and tokens[p1] == tokens[p2]:
                    continue  # exchanging one property for itself changes nothing
                new = list(tokens)
                if exchange:
                    new[p1], new[p2] = tokens[p2], tokens[p1]
                if reverse:
                    new[s1], new[o1], new[s2], new[o2] = tokens[o1], tokens[s1], tokens[o2], tokens[s2]
                out.append((new, change))
            for (s, o), change in (
                ((s1, o1), "its first pattern turned"),
                ((s2, o2), "its second pattern turned"),
            ):
                if types[s] != TokenType.LITERAL and types[o] != TokenType.LITERAL:
                    new = list(tokens)
                    new[s], new[o] = tokens[o], tokens[s]
                    out.append((new, f"the chain with {change}"))
        # two patterns that meet at a variable both end in, or both start from ("Soichiro Honda's company
        # has its head office in which city" as `?x ont:headquarters ?y . res:Soichiro_Honda ont:founder
        # ?y`): one of them turned reads as a chain; both turned, two that end in it read as two facts of
        # one thing (the company's head office and founder), not the other way round (two things that
        # share a value, which few questions ask)
        for (s1, p1, o1), (s2, p2, o2) in itertools.combinations(patterns, 2):
            ends_in = tokens[o1] == tokens[o2]
            met = {tokens[o1]} & {tokens[o2]} or {tokens[s1]} & {tokens[s2]}
            if (
                not met
                or not next(iter(met)).startswith("?")
                or answer_var in met
                or types[p1] != TokenType.URI
                or types[p2] != TokenType.URI
                or TokenType.LITERAL in (types[s1], types[o1], types[s2], types[o2])
            ):
                continue
            for turned, change in (
                ((s1, o1), "its first pattern turned"),
                ((s2, o2), "its second pattern turned"),
                *([((s1, o1, s2, o2), "both its patterns turned")] if ends_in else []),
            ):
                new = list(tokens)
                for a, b in zip(turned[::2], turned[1::2], strict=True):
                    new[a], new[b] = tokens[b], tokens[a]
                out.append((new, f"the two patterns that meet at {next(iter(met))} with {change}"))
        return out

    def compared_unmeasured(self, tokens: Sequence[str], types: Sequence[TokenType]) -> int | None:
        """The position among the triple patterns of one whose value a FILTER compares while the KB's
        values of its property are no numbers or dates ("Was the Mona Lisa painted before 1600?" as
        `res:Mona_Lisa ont:painter ?v . filter ( ?v < 1600 )`): a comparison that holds of nothing."""
        compared = compared_variables(tokens, types)
        for k, (_, p, o) in enumerate(triple_patterns(tokens, types)):
            if (
                tokens[o] in compared
                and types[p] == TokenType.URI
                and self._value_kinds(tokens[p])
                and not self._measured_values(tokens[p])
            ):
                return k
        return None

    def ruled_out(self, tokens: Sequence[str], types: Sequence[TokenType]) -> bool:
        """Whether a pattern has an IRI object where the KB's values of its property are all literals,
        or a literal where they are all IRIs ("did Picasso paint Guernica" as `res:Guernica
        ont:yearCompleted res:Pablo_Picasso`), or a FILTER compares values that are no numbers or dates
        (`compared_unmeasured`), or a pattern joins an entity to itself (`res:Nokia ont:founder
        res:Nokia`), or the KB holds nothing of the query's shape (`_shape_holds`): an ASK false for its
        form, not for the fact."""
        if self.compared_unmeasured(tokens, types) is not None or not self._shape_holds(tokens, types):
            return True
        for s, p, o in triple_patterns(tokens, types):
            if types[s] == TokenType.URI and tokens[s] == tokens[o]:
                return True
            if (
                tokens[p] == "a"
                or types[p] != TokenType.URI
                or types[o] not in (TokenType.URI, TokenType.LITERAL)
            ):
                continue
            kinds = self._value_kinds(tokens[p])
            if kinds and (types[o] == TokenType.URI) != any("iri" in k for k in kinds):
                return True
        return False

    def _shape_holds(self, tokens: Sequence[str], types: Sequence[TokenType]) -> bool:
        """Whether the KB matches the query's triple patterns with each named entity or value made a
        variable of the entity's class (properties and the classes after `a` kept). No match: the
        patterns are false whatever they name ("Is Tamil one of Singapore's official languages?" as
        `res:Singapore ont:officialLanguage ?y . ?y ont:officialLanguage res:Tamil`: no language has
        official languages, nor is the language one, of any country's). An entity a pattern types
        (`res:Pluto a ont:Planet`) keeps no class of its own: that is what the query asks."""
        patterns = triple_patterns(tokens, types)
        if len(patterns) < 2:
            return True  # "Did South Shields direct Alien?": a "no" of one pattern is the question's own
        typed = {tokens[s] for s, p, _ in patterns if tokens[p] == "a"}
        named: dict[str, str] = {}
        classes: list[str] = []

        def term(i: int) -> str:
            if types[i] not in (TokenType.URI, TokenType.LITERAL) or tokens[i - 1 : i] == ["a"]:
                return tokens[i]
            if tokens[i] not in named:
                named[tokens[i]] = var = f"?_n{len(named)}"
                if (
                    types[i] == TokenType.URI
                    and tokens[i] not in typed
                    and self._holds([tokens[i], "a", "?_t"])
                ):
                    classes.extend((var, "a", f"{var}_t", ".", tokens[i], "a", f"{var}_t", "."))
            return named[tokens[i]]

        shape = [t for s, p, o in patterns for t in (term(s), tokens[p], term(o), ".")]
        return not named or self._holds([*shape, *classes][:-1])

    def orders_by_no_measure(self, tokens: Sequence[str], question: str) -> bool:
        """A superlative question answered by ordering on values that are no numbers or dates
        ("the smallest country" ordered by `ont:country`): the order cannot be what it asks for."""
        if not question or asked(question, "superlative") is None:
            return False
        patterns = triple_patterns(tokens, token_types(tokens, self.prefixes))
        return self._ordered_by_no_measure(tokens, patterns, question) is not None

    def _ordered_by_no_measure(
        self, tokens: Sequence[str], patterns: list[tuple[int, int, int]], question: str = ""
    ) -> int | None:
        """The pattern whose values an ORDER BY sorts, when they are no numbers or dates (the KB's values
        of its property are not; or the variable is only ever a subject, an IRI), or when they are times
        and `question` asks for a size (`_timed_for_a_size`) or names another measure after "by"
        (`_ranked_by_another`): the pattern to rewrite towards a measured
        property of the question's units."""
        variable = ordered_variable(tokens)
        if variable is None:
            return None
        as_object = [k for k, (_, _, o) in enumerate(patterns) if tokens[o] == variable]
        if not as_object:
            as_subject = [k for k, (s, _, _) in enumerate(patterns) if tokens[s] == variable]
            return as_subject[-1] if as_subject else None
        prop = tokens[patterns[as_object[-1]][1]]
        kinds = self._value_kinds(prop)
        if kinds and not any(k & {"number", "date"} for k in kinds):
            return as_object[-1]
        wrong = self._timed_for_a_size(prop, question) or self._ranked_by_another(prop, question)
        return as_object[-1] if kinds and wrong else None

    def _ranked_by_another(self, prop: str, question: str) -> bool:
        """Whether the question names, right after "by", a measure other than `prop` ("the largest
        country by area" ordered by population)."""
        words = normalize(question).split()
        for at in (i + 1 for i, w in enumerate(words) if w == "by"):
            for phrase in {" ".join(words[at : at + n]) for n in (1, 2)}:
                named = self.properties_named(phrase)
                if (
                    named
                    and prop not in named
                    and any(k & {"number", "date"} for k in self._value_kinds(named[0]))
                ):
                    return True
        return False

    def _timed_for_a_size(self, prop: str, question: str) -> bool:
        """Whether a superlative of size or amount ("the heaviest element", "closest to the sun") is
        ordered by a property the index names by a time word ("discovery year"), while the question says
        none: a size is no date, and a year's values look like any four-digit number."""
        if not question or self.index is None or not ranks_by_size(question):
            return False
        said = set(re.findall(r"\w+", question.lower()))
        named = set(re.findall(r"\w+", (self.index.label(prop) or "").lower()))
        return bool(named & TIME_NOUNS) and not said & TIME_NOUNS

    # -- replacements ----------------------------------------------------------------------------

    def _replacements(self, token: str, kind: Kind, units: Sequence[str]) -> list[str]:
        """Elements of `kind` to put in place of `token`: the question's units, then the index's nearest."""
        found = [u for u in units if u != token and self._kind(u) == kind]
        if self.index is not None:
            found += [
                h.token
                for h in self.index.lookup(element_name(token, self.index), [kind], self.per_element + 1)
            ]
        found = [t for t in dict.fromkeys(found) if t != token][: self.per_element]
        return found + [q for q in self._siblings(token) if q not in found] if kind == "property" else found

    def _siblings(self, prop: str) -> list[str]:
        """The properties whose label of two words or more opens with the same word as `prop`'s ("birth
        place" for "birth date", "death date" for "death place"): the same event, another of its facts,
        which a question asking "where" or "when" may want instead."""
        if self.index is None:
            return []
        if self._by_first_word is None:
            self._by_first_word = {}
            for token, _, label in self.index.elements(["property"]):
                words = normalize(label).split()
                if len(words) > 1:
                    self._by_first_word.setdefault(words[0], []).append(token)
        words = normalize(self.index.label(prop) or "").split()
        return [q for q in self._by_first_word.get(words[0], []) if q != prop] if len(words) > 1 else []

    def _rewrites(
        self, target: _Target, pattern: tuple[int, int, int], units: Sequence[str]
    ) -> Iterator[tuple[list[str], str]]:
        """Rewrites of one triple pattern, fewest changes first: elements replaced (a property from an
        entity also by the other properties of its facts), subject and object swapped; after those of
        one change, its entity (or another in its place) reached through one element between
        (`_through`: "the oldest German university", `?x ont:city res:German`, is one in a city of
        Germany)."""
        tokens = target.tokens
        types = token_types(tokens, self.prefixes)
        s, p, o = pattern
        kinds: dict[int, Kind] = {p: "property"} if tokens[p] != "a" else {o: "class"}
        for i in (s, o):
            if i not in kinds:
                kinds[i] = "class" if self._kind(tokens[i]) == "class" else "entity"
        options: list[list[str]] = []
        for i in (s, p, o):
            keep = [] if tokens[i] in target.unknown else [tokens[i]]
            element = types[i] == TokenType.URI  # variables and literals stay as they are
            options.append(keep + (self._replacements(tokens[i], kinds[i], units) if element else []))
        if tokens[p] != "a" and kinds[o] == "class":  # `?x ont:country ont:Country`: a class is a type
            options[1].insert(0 if tokens[p] in target.unknown else 1, "a")  # right after the kept property
        if tokens[p] != "a" and types[o] == TokenType.VARIABLE and self.index is not None:
            # a value of a typed variable: its class's measured properties ("What novel came out first?":
            # novels have a publication year, no release year)
            for c in self._types_of(tokens, types, tokens[s]):
                options[1] += [a for a in self.index.attributes(c, self.per_element) if a not in options[1]]
        if tokens[p] != "a" and types[s] == TokenType.URI and types[o] == TokenType.VARIABLE:
            options[1] += [q for q in self._joined_as_the_rest_says(tokens, pattern) if q not in options[1]]
            if self.index is not None:
                # no answer, or one of the wrong kind, from the entity ("Who first spotted Europa?"
                # decoded with its discovery year, "the artist behind Liberty Leading the People" with
                # `ont:artist`, which paintings lack): the other facts it takes part in, the one of the
                # kind asked for (the most used first: a hub's are many)
                options[1] += [
                    q for q in self.index.properties(tokens[s])[:_ENTITY_FACTS] if q not in options[1]
                ]
        if (
            tokens[p] != "a"
            and types[s] == TokenType.VARIABLE
            and types[o] == TokenType.URI
            and kinds[o] == "entity"
            and self.index is not None
            and self._measured_values(tokens[p])
        ):
            # the same for an entity given as the value of a measure, which never takes one ("the oldest
            # beatle" decoded as `?x ont:formationYear res:The_Beatles`): the pattern says only that the
            # answer is joined to the entity; the facts the entity takes part in, either way round (the
            # swap below turns `?x ont:bandMember res:The_Beatles`)
            options[1] += [q for q in self.index.properties(tokens[o])[:_ENTITY_FACTS] if q not in options[1]]
        compared = compared_variables(tokens, types)
        if tokens[o] in compared:  # a FILTER compares its value: a measure's
            options[1] = [q for q in options[1] if q == tokens[p] or q != "a" and self._measured_values(q)]
        swappable = (
            tokens[p] != "a"
            and TokenType.LITERAL not in (types[s], types[o])
            and not {tokens[s], tokens[o]} & compared
        )
        ranked: list[tuple[int, int, list[str], str]] = []
        for orientation in (False, True) if swappable else (False,):
            for choice in itertools.product(*(range(len(opt)) for opt in options)):
                terms = [options[k][c] for k, c in enumerate(choice)]
                changes = [f"{tokens[i]} -> {t}" for i, t in zip((s, p, o), terms) if t != tokens[i]]
                if orientation:
                    terms[0], terms[2] = terms[2], terms[0]
                    changes.append("subject and object swapped")
                if not changes:
                    continue
                new = list(tokens)
                new[s], new[p], new[o] = terms
                ranked.append((len(changes), sum(choice), new, ", ".join(changes)))
        ranked.sort(key=lambda r: (r[0], r[1]))
        single = sum(1 for r in ranked if r[0] == 1)
        rewrites = [(new, change) for _, _, new, change in ranked]
        yield from rewrites[:single]
        yield from self._through(tokens, pattern)  # looked up only when no rewrite of one change settled
        for new, change in rewrites[:single]:
            if new[o] != tokens[o] and new[s] == tokens[s] and new[p] == tokens[p]:  # another entity
                yield from ((t, f"{change}, {c}") for t, c in self._through(new, pattern))
        yield from rewrites[single:]

    def _like_patterns_rewritten(
        self, tokens: Sequence[str], pattern: tuple[int, int, int], units: Sequence[str]
    ) -> list[tuple[list[str], str]]:
        """The property of a pattern replaced in it and in each pattern of the same variable and property
        with another entity (`?x P A . ?x P B`: "countries where French and German are both official"
        decoded with `ont:country` twice): such patterns say one thing of two, so one property replaced
        alone leaves the query empty. Empty when the query has no such pattern."""
        types = token_types(list(tokens), self.prefixes)
        s, p, o = pattern
        if types[s] != TokenType.VARIABLE or types[o] != TokenType.URI or tokens[p] == "a":
            return []
        alike = [
            q
            for s2, q, o2 in triple_patterns(tokens, types)
            if q != p
            and (tokens[s2], tokens[q]) == (tokens[s], tokens[p])
            and types[o2] == TokenType.URI
            and tokens[o2] != tokens[o]
        ]
        if not alike:
            return []
        return [
            (
                [other if i in (p, *alike) else t for i, t in enumerate(tokens)],
                f"{tokens[p]} -> {other} in each pattern like it",
            )
            for other in self._replacements(tokens[p], "property", units)
            if other not in (tokens[p], "a")
        ]

    def _blame(self, target: _Target, question: str = "") -> tuple[int, list[tuple[int, int, int]]] | str:
        """The position of the offending triple pattern among the query's patterns, or why none is found."""
        types = token_types(target.tokens, self.prefixes)
        patterns = triple_patterns(target.tokens, types)
        if not patterns:
            return "no plain triple pattern to repair"
        if target.wrong_kind:
            ordered = self._ordered_by_no_measure(target.tokens, patterns, question)
            if ordered is not None:  # "closest to the sun" ordered by `?x ont:orbits ?v`
                return ordered, patterns
            answer_var = answer_variable(target.tokens, types)
            binding = [
                k for k, pattern in enumerate(patterns) if answer_var in (target.tokens[i] for i in pattern)
            ]
            if answer_var is None or not binding or target.tokens[0] == "ask" or "count" in target.tokens:
                return "its form (ASK, COUNT) or no pattern binding its answer gives the wrong kind"
            return binding[-1], patterns
        if target.unknown:
            for k, pattern in enumerate(patterns):
                if any(target.tokens[i] in target.unknown for i in pattern):
                    return k, patterns
            return "its unknown IRIs stand outside the triple patterns"
        if _NOT_CONJUNCTIVE & set(target.tokens):
            return "UNION/OPTIONAL/MINUS/NOT: no single pattern to blame for the empty answer"
        for k in range(len(patterns)):
            if not self._matches(target.tokens, patterns[: k + 1]):
                return k, patterns
        compared = self.compared_unmeasured(target.tokens, types)
        if compared is not None:  # "painted before 1600" compared the painter
            return compared, patterns
        return "every triple pattern matches: the empty answer comes from a FILTER, ORDER or LIMIT"

    def _repair_round(
        self,
        rnd: Round,
        target: _Target,
        k: int,
        patterns: list[tuple[int, int, int]],
        units: Sequence[str],
        expected: Expected,
        question: str,
        kept: list[tuple[list[str], Answer, int]],
        said: Said | None = None,
    ) -> tuple[list[str], Answer] | _Target | None:
        """Rewrite the target's pattern `k`: the answering rewrite, else the first empty one (or one that
        orders by values that are no measure) to go on with; rewrites that answer with nothing of the
        class asked for go to `kept`."""
        checks = runs = 0
        follow_up: _Target | None = None
        like = self._like_patterns_rewritten(target.tokens, patterns[k], units)
        for n, (tokens, change) in enumerate(
            itertools.chain(like, self._rewrites(target, patterns[k], units))
        ):
            if checks >= self.max_checks or runs >= self.max_runs:
                break
            checks += 1
            goes_on = n >= len(like)  # a rewrite of like patterns counts only if it answers
            new_patterns = triple_patterns(tokens, token_types(tokens, self.prefixes))
            added = len(new_patterns) - len(patterns)  # 1: through an element between (`_through`)
            if added not in (0, 1) or not self._matches(tokens, new_patterns[: k + 1 + added]):
                continue
            runs += 1
            compared = self.entity_compared(tokens)  # a measure put in now compares with the entity's
            if compared is not None:
                tokens, change = compared[0], f"{change}, {compared[1]}"
            attempt, answer, unknown = self._try(tokens, f"{target.label}: {change}", expected)
            rnd.attempts.append(attempt)
            settled = self._settled(tokens, answer, attempt, rnd, question, units, expected, said)
            if settled is not None:
                return settled
            if attempt.outcome == ANSWERED and answer is not None:
                kept.append((tokens, answer, rnd.number))
            if follow_up is None and attempt.outcome in (EMPTY, UNKNOWN_IRI) and goes_on:
                follow_up = _Target(tokens, f"{target.label}: {change}", unknown)
            elif (
                follow_up is None
                and attempt.outcome == WRONG_KIND
                and self._ordered_by_no_measure(tokens, new_patterns, question) is not None
            ):  # its ordered pattern is the next to rewrite
                follow_up = _Target(tokens, f"{target.label}: {change}", unknown, wrong_kind=True)
        rnd.notes.append(
            f"pattern {k + 1} ({' '.join(target.tokens[i] for i in patterns[k])}): "
            f"{checks} rewrite(s) checked by ASK, {runs} matched and ran"
        )
        return follow_up

    def _settled(
        self,
        tokens: list[str],
        answer: Answer | None,
        attempt: Attempt,
        rnd: Round,
        question: str,
        units: Sequence[str],
        expected: Expected,
        said: Said | None,
    ) -> tuple[list[str], Answer] | None:
        """What an attempt settles on, if anything: an answer accepted as it is; for an answer of the
        wrong kind, the query ranked by the measure the question orders by, counted for a "how many"
        question, taken one hop further along a property the question says ("who wrote the book
        Blade Runner is based on": the book, then its author), its parts joined (`_joined`), or taken
        one hop back (`_hop_back`), either then accepted as an answering attempt is (`_accept`), or
        ranked when it answers several things a superlative picks from."""
        if answer is None:
            return None
        if attempt.outcome == ANSWERED:
            return self._accept(tokens, answer, attempt, rnd, question, units, expected, said)
        if attempt.outcome == EMPTY and expected.top and answer.boolean is None:
            # a ranking that found nothing to rank ordered by a measure none of its things has: the
            # things, ranked anew by one they have
            things = ranking_dropped(tokens, token_types(tokens, self.prefixes))
            if things is not None:
                source = f"{attempt.source}: its ranking dropped (nothing it ranks has that measure)"
                ranked = self._ranked(things, units, question, source, rnd, expected, said)
                if ranked is not None:
                    return ranked
        if attempt.outcome == WRONG_KIND and expected.top:
            ranked = self._ranked(tokens, units, question, attempt.source, rnd, expected, said)
            if ranked is not None:
                return ranked
        if attempt.outcome == WRONG_KIND and expected.count:
            counted = self._counted(tokens, attempt.source, rnd, expected, question, units, said)
            if counted is not None:
                return counted
        listed = uncounted(tokens) if attempt.outcome == WRONG_KIND and not expected.count else None
        if listed is not None:  # "how would i write molybdenum in a formula" decoded as a count
            source = f"{attempt.source}: the things it counts (the question asks for no count)"
            listed_attempt, answer, _ = self._try(listed, source, expected)
            rnd.attempts.append(listed_attempt)
            if listed_attempt.outcome == ANSWERED and answer is not None:
                return self._accept(listed, answer, listed_attempt, rnd, question, units, expected, said)
        if attempt.outcome != WRONG_KIND:
            return None
        if said is not None and (
            hopped := self._said_hop(tokens, said, units, attempt.source, rnd, expected)
        ):
            return hopped
        own = self._one_place_or_date(tokens, answer, question, attempt.source, rnd, expected)
        if own is not None:  # "the band behind kid a, when did they form" answered by the band
            return self._accept(*own, rnd.attempts[-1], rnd, question, units, expected, said)
        for rewritten in (
            self._joined(tokens, units, attempt.source, rnd, expected),
            self._hop_back(tokens, attempt.source, rnd, expected),
        ):
            if rewritten is not None and rewritten[2].outcome == WRONG_KIND and rewritten[1] is not None:
                own = self._one_place_or_date(
                    rewritten[0], rewritten[1], question, rewritten[2].source, rnd, expected
                )
                if own is not None:  # "the band that recorded exodus - when did they get together"
                    return self._accept(*own, rnd.attempts[-1], rnd, question, units, expected, said)
            if rewritten is not None and rewritten[2].outcome == WRONG_KIND:
                # "Which country that uses the euro has the fewest people?": its countries, then ranked
                ranked = self._ranked(rewritten[0], units, question, rewritten[2].source, rnd, expected, said)
                if ranked is not None:
                    return ranked
            elif rewritten is not None:
                return self._accept(*rewritten, rnd, question, units, expected, said)
        return None

    def _counted(
        self,
        tokens: list[str],
        source: str,
        rnd: Round,
        expected: Expected,
        question: str,
        units: Sequence[str],
        said: Said | None,
    ) -> tuple[list[str], Answer] | None:
        """A "how many" question answered by the things it counts ("How many mountains are higher than
        8000 metres?" as the list of those mountains): the same SELECT, counted, when that answers."""
        if (
            tokens[:1] != ["select"]
            or "where" not in tokens
            or {"count", "order", "limit", "group"} & set(tokens)
        ):
            return None
        var = answer_variable(tokens, token_types(tokens, self.prefixes))
        if var is None:
            return None
        where = tokens.index("where")
        counted = ["select", "(", "count", "(", "distinct", var, ")", "as", "?count", ")", *tokens[where:]]
        attempt, answer, _ = self._try(counted, f"{source}: counted", expected)
        rnd.attempts.append(attempt)
        if attempt.outcome != ANSWERED or answer is None:
            return None
        return self._accept(counted, answer, attempt, rnd, question, units, expected, said)

    def _named_first(
        self,
        hypotheses: Sequence[Sequence[str]],
        said: Said | None,
        units: Sequence[str] = (),
        asked: str | None = None,
    ) -> list[tuple[int, Sequence[str]]]:
        """The n-best, numbered, in the model's order but for what the question says: a hypothesis goes
        before an earlier one that it beats on the question's words -- it covers at least as many of
        them (the words of its properties' and classes' names that the question says: label,
        inflection such as "directed", a span training aligned with it, the head of its label when the
        question asks for things of that noun: "What range", "How many works"; one for each entity or literal,
        which the linker matched) and holds at most as many properties and classes that the question
        does not say, one of the two strictly ("what nationality is the director of Parasite":
        director and nationality before director alone; "did Picasso paint Guernica": painter before
        year completed). Two elements named by the same words cover them once, and the words of the
        class the question asks for (`asked`) count for every hypothesis, since repair types an answer by
        it. Of two that cover the same words and leave the same elements unsaid, the one with fewer
        property patterns goes first: "How many countries does the Elbe cross?" says "countries" once,
        for the class or for a chain through the property country, and the one pattern reads no more
        into it than it says. Before all that, a
        hypothesis goes first that leaves out fewer of the entities the question names by their whole
        label, unambiguously ("the tallest mountain in the Alps": the Alps, reached by an unsaid mountain
        range, before every mountain; not "The Godfather", both a novel and a film, nor "composer", an
        occupation and a class); of two said by the same words, keeping one leaves out neither ("Is
        Portuguese an official language in Paraguay?": the language, or Portugal, and Paraguay)."""
        numbered = list(enumerate(hypotheses, 1))
        if said is None:
            return numbered
        named = self.named_entities(said, units)
        places = {u: said.positions(u) for u in named}

        def left_out(tokens: Sequence[str]) -> int:
            """The named entities a query leaves out, but for one said at the place of one it keeps."""
            kept = [u for u in named if u in tokens]
            return sum(u not in tokens and not any(places[u] & places[k] for k in kept) for u in named)

        def covered(token: str) -> frozenset[str] | None:
            """The question's words a property or class says (None: none), or the entity or literal
            itself; empty for other tokens."""
            kind = self._kind(token)
            if kind not in ("property", "class"):
                return frozenset({token}) if kind == "entity" or token.startswith('"') else frozenset()
            return (said.words(token) | said.asked_head(token)) or None

        # the class the question asks for: repair types an answer by it, so every hypothesis says its words
        typed = (covered(asked) or frozenset()) if asked is not None else frozenset()
        Score = tuple[int, int, int, int, frozenset[str], frozenset[str]]

        def score(tokens: Sequence[str]) -> Score:
            found = {t: covered(t) for t in set(tokens)}
            words = frozenset().union(typed, *(f for f in found.values() if f))
            unsaid = frozenset(t for t, f in found.items() if f is None)
            hops = sum(
                tokens[p] != "a" for _, p, _ in triple_patterns(tokens, token_types(tokens, self.prefixes))
            )
            return left_out(tokens), len(words), len(unsaid), hops, words, unsaid

        def beats(a: Score, b: Score) -> bool:
            if a[0] != b[0]:
                return a[0] < b[0]
            if a[1:3] == b[1:3]:
                return a[4:] == b[4:] and a[3] < b[3]
            return a[1] >= b[1] and a[2] <= b[2]

        scored = [(n, hyp, score(hyp)) for n, hyp in numbered]
        ordered = []
        while scored:
            first = next(i for i, (*_, s) in enumerate(scored) if not any(beats(o, s) for *_, o in scored))
            n, hyp, _ = scored.pop(first)
            ordered.append((n, hyp))
        return ordered

    def named_left_out(
        self, tokens: list[str], question: str, units: Sequence[str]
    ) -> tuple[list[str], Answer] | None:
        """The query restricted to an entity the question names and it leaves out (`_narrowed`), when
        that answers with the kind the question asks for; else None."""
        if self.index is None or not question:
            return None
        rnd = Round(1, "named but left out")
        said, answer = Said(question, self.index), self._query(detokenize(tokens, self.prefixes))
        return self._narrowed(tokens, answer, said, units, "query", rnd, expected_of(question))

    def _narrowed(
        self,
        tokens: list[str],
        answer: Answer,
        said: Said,
        units: Sequence[str],
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """A SELECT that leaves out an entity the question names (`named_entities`) restricted to it by the
        property that joins most of its answers to it, either way ("the biggest country in Africa"
        answered over every country: `?x ont:continent res:Africa` added), else, when no fact joins any
        answer to it, by the two that join them through one element between ("the longest river in
        Asia": `?x ont:flowsThrough ?_m . ?_m ont:continent res:Asia`; "the element named after the
        people who discovered polonium": `?x ont:namedAfter ?_m . res:Polonium ont:discoverer ?_m`,
        when no element joins it the other way); the first restriction that
        answers with the kind asked for and changes the answer (every planet orbits the Sun: "the
        planet closest to the Sun" needs no such pattern). An entity named inside the name of an
        element the query uses is part of that name, not left out; so is a place named by an adjective
        that is the name of an element the query uses, or in it ("German" of "novels written in German",
        "Swiss" of "countries that pay with Swiss francs"). What the question compares with ("bigger
        than Germany") restricts nothing. A number the question says and the query leaves out restricts
        the answer to that value of the property that has it most often ("the moons found in 1610")."""
        used = said.names_used(tokens)
        bound = self._compared_with(said.text, units, "than")
        left = [
            u
            for u in self.named_entities(said, units)
            if u not in tokens
            and u != bound
            and not said.inside(u, used)
            and (
                said.names_in_full(u)
                or not all(
                    any(f" {w} " in name for name in used)
                    for w in (*said.place_words(u), *said.part_words(u))
                )
            )
        ]
        # a number the question says and the query leaves out: a value of the answer ("the moons found
        # in 1610": `?x ont:discoveryYear 1610`), not the bound of a comparison ("before 1960": `_compared`)
        numbers = [
            u
            for u in dict.fromkeys(units)
            if NUMBER.fullmatch(u) and u not in tokens and f" {u} " in said.text and not said.inside(u, used)
        ]
        if numbers and any(a.form == "comparative" for a in asked_orders(said.text)):
            numbers = []
        parts = self._answer_body(tokens)
        if not (left or numbers) or parts is None or tokens[0] != "select":
            return None
        var, close, body = parts

        def restrictions() -> Iterator[tuple[list[str], str]]:
            for number in numbers[: self.per_element]:
                for pattern in self._joining(body, var, [var, "?_p", number], ("?_p",)):
                    yield (
                        [*tokens[:close], ".", *pattern, *tokens[close:]],
                        f"{source}: restricted to the value {number} (said, left out) by {' '.join(pattern)}",
                    )
            for entity in left[: self.per_element]:
                found = [
                    joined
                    for pattern in ([var, "?_p", entity], [entity, "?_p", var])
                    for joined in self._joining(body, var, pattern, ("?_p",))
                ]
                for last in (["?_m", "?_q", entity], [entity, "?_q", "?_m"]):
                    if not found:  # through an element between: its two properties join things, not labels
                        between = self._joining(body, var, [var, "?_p", "?_m", ".", *last], ("?_p", "?_q"))
                        found = [j for j in between if all(self._takes_things(j[k]) for k in (1, 5))]
                for pattern in found:
                    yield (
                        [*tokens[:close], ".", *pattern, *tokens[close:]],
                        f"{source}: restricted to {entity} (named, left out) by {' '.join(pattern)}",
                    )

        return self._first_change(restrictions(), answer, rnd, expected)

    def possessed_read(
        self, tokens: Sequence[str], said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """A query that reads a named entity where the question reads a property of it ("Which rivers
        flow through the capital of Iraq?" as `?x ont:flowsThrough res:Iraq`; "Queen Victoria's husband
        - date of birth" as `res:Queen_Victoria ont:birthDate ?x`) with the entity's value by that
        property in its place (`res:Iraq ont:capital ?_o . ?x ont:flowsThrough ?_o`), with what changed:
        when the question says the property right before "of" and the entity, or right after the
        entity's possessive, the query uses that property nowhere, and the query so read answers."""
        parts = braces(tokens)
        if said is None or parts is None or "?_o" in tokens:
            return None
        open_at, close_at = parts
        words = said.text.split()
        props = [u for u in dict.fromkeys(units) if self._kind(u) == "property" and u not in tokens]
        for entity in dict.fromkeys(t for t in tokens[open_at:close_at] if self._kind(t) == "entity"):
            for start, end in said.spans_in_full(entity):
                of = start - 2 if words[start - 1 : start] == ["the"] else start - 1
                # "Portugal's capital" ("portugal s capital" once normalized), "the Beatles' drummer"
                owner = (
                    end + 1 if words[end : end + 1] == ["s"] else end if words[end - 1].endswith("s") else -1
                )
                near = set(words[owner : owner + 1] if owner > 0 else ())
                if of > 0 and words[of] == "of":  # "the capital of Iraq"
                    near.add(words[of - 1])
                for prop in props:
                    if not said.words(prop) & near:
                        continue
                    for hop in ([entity, prop, "?_o"], ["?_o", prop, entity]):
                        body = [
                            *("?_o" if t == entity else t for t in tokens[open_at + 1 : close_at]),
                            ".",
                            *hop,
                        ]
                        if self._holds(body):
                            new = [*tokens[: open_at + 1], *body, *tokens[close_at:]]
                            return new, f"{entity} -> its {prop} (said of it)"
        return None

    def date_of_the_other(
        self, tokens: Sequence[str], said: Said | None, units: Sequence[str], expected: Expected
    ) -> tuple[list[str], str] | None:
        """A date asked of a named entity by a property the question does not say, while it names another
        entity the KB links the first to ("When did Grant Wood finish American Gothic?" as Grant Wood's
        birth date; "when did radiohead put out kid a?" as the band's formation year): the date of the
        other, by its one date property among the units, else in the KB, with what changed. The verb
        says what happened to the other; a date of the first would be said ("born", "formed"). The other
        is named after the first, as the verb's object, not as an agent after "by" ("The Son of Man by
        Magritte"), and is the subject of the fact that links them (the painting, of its painter): the
        date of a moon stays its own when the question names the planet it orbits."""
        if said is None or self.index is None or expected != DATE:
            return None
        types = token_types(list(tokens), self.prefixes)
        patterns = triple_patterns(tokens, types)
        var = answer_variable(tokens, types)
        if len(patterns) != 1 or tokens[:1] != ["select"] or "count" in tokens:
            return None
        s, p, o = patterns[0]
        entity, prop = tokens[s], tokens[p]
        if tokens[o] != var or not self.values_are_dates(prop) or said.words(prop):
            return None
        words = said.text.split()

        def at(u: str) -> int:  # where the question first names it, in full or by a name within
            names = said.names_within(u)
            starts = [a for a, _ in said.spans_in_full(u)] + [i for i, w in enumerate(words) if w in names]
            return min(starts, default=-1)

        others = [  # what the first made, found, ...: named after it, not as the agent ("by Magritte")
            u
            for u in self.named_entities(said, units)
            if u != entity
            and at(u) > at(entity) >= 0
            and words[at(u) - 1 : at(u)] != ["by"]
            and any(self._holds([u, r, entity]) for r in self.index.relations(entity, u))
        ]
        if len(others) != 1:
            return None
        other = others[0]
        dated = [u for u in dict.fromkeys(units) if self._kind(u) == "property" and self.values_are_dates(u)]
        found = [u for u in dated if self._holds([other, u, "?_v"])]
        found = found or [u for u in self._literal_measures(other) if self.values_are_dates(u)]
        if len(found) != 1:
            return None
        new = [*tokens[:s], other, found[0], *tokens[o:]]
        return new, f"{entity} {prop} -> {other} {found[0]} (the date of what the question says {entity} did)"

    def dated_by_the_sibling(
        self, tokens: Sequence[str], question: str, said: Said | None
    ) -> tuple[list[str], str] | None:
        """A hop to what is no date (`?m ont:birthPlace ?x`) whose answer a question saying the property
        dates by a period or a year ("How many members of Queen were born in the 1940s?", "which beatles
        were born in 1940") or compares with a year ("born before 1942"): those before the hop, filtered
        by the sibling property's date (`_siblings`: birth date for birth place) within the span
        (`asked_span`) or compared with the year (`value_compared`). The question asks which of them the
        event dates, not where it took place. So too a hop to the dates themselves, when the question
        asks for no date ("how many members of queen were born after 1946" as their birth dates counted).
        None when nothing fits."""
        if said is None or "filter" in tokens or {"order", "group"} & set(tokens):
            return None
        span = asked_span(question, True, one_year=True)
        years = set(_YEAR.findall(question))
        types = token_types(list(tokens), self.prefixes)
        var = answer_variable(tokens, types)
        if var is None or (span is None and (len(years) != 1 or asked(question, "comparative") is None)):
            return None
        hops = [
            (s, p, o)
            for s, p, o in triple_patterns(tokens, types)
            if tokens[o] == var and types[s] == TokenType.VARIABLE and types[p] == TokenType.URI
        ]
        if len(hops) != 1 or tokens.count(var) != 2:
            return None
        s, p, o = hops[0]
        prop, before = tokens[p], tokens[s]
        if not said.words(prop):
            return None
        if self.values_are_dates(prop):  # "how many members of queen were born after 1946": not dates asked
            dated = [prop] if expected_of(question) != DATE else []
        elif not self._measured_values(prop):
            dated = [q for q in self._siblings(prop) if self.values_are_dates(q)]
        else:
            dated = []
        if len(dated) != 1:
            return None
        kept = without_positions([var if t == before else t for t in tokens], set(range(s, o + 1)))
        change = f"{before} {prop} {var} -> {var} {dated[0]}"
        if span is not None:
            value = fresh_value(tokens)
            new = before_close(kept, [".", var, dated[0], value, ".", *self.span_test(dated[0], value, span)])
            return new, f"{change} in {span} (the question dates the event)"
        compared = self.value_compared(before_close(kept, [".", var, dated[0], *years]), question)
        if compared is None:
            return None
        return compared[0], f"{change}: {compared[1]} (the question dates the event)"

    def bound_left_out(
        self, tokens: Sequence[str], question: str, said: Said | None
    ) -> tuple[list[str], str] | None:
        """A query that compares nothing and leaves out the period, year or bound the question keeps its
        answers by ("michael jackson's 80s albums", "Austen novels that came out before 1815?", "Asian
        countries bigger than 1,000,000 square kilometres" decoded as his albums, her novels, the
        countries): its answers kept by a measure of theirs within the span (`asked_span`) or past the
        number (`value_compared`). For a period or a year, the answers' one dated measure, or the one of
        several the question says ("born"); for another number, the measure the question names, by its
        label or the word its unit stands for (`measured_by_unit`: "area"). A number within the name of an
        entity the query names dates nothing ("the source of lolita (1962 film)"). None when the query uses
        the number, or not one measure fits."""
        if (
            said is None
            or "filter" in tokens
            or {"order", "group", "ask"} & set(tokens)
            or self.index is None
        ):
            return None
        named = [t for t in tokens if self._kind(t) == "entity"]  # "lolita (1962 film)": a year of a name
        years = {y for y in _YEAR.findall(question) if not self._within_a_name(y, question, named)}
        span = asked_span(question, True, one_year=True) if years or not _YEAR.search(question) else None
        bounds = [
            n for n in said_bounds(question) if n not in years and not self._within_a_name(n, question, named)
        ]
        dated = span is not None or len(years) == 1
        if not dated and len(bounds) != 1 or (years | set(bounds)) & set(tokens):
            return None
        types = token_types(list(tokens), self.prefixes)
        var, found = answer_variable(tokens, types), braces(tokens)
        if var is None or found is None:
            return None
        measures = self._literal_measures(var, tokens[found[0] + 1 : found[1]])
        if dated:
            dates = [p for p in measures if self.values_are_dates(p)]
            chosen = [p for p in dates if said.words(p)] or dates
        else:
            unit = measured_by_unit(question)
            chosen = [
                p
                for p in measures
                if not self.values_are_dates(p)
                and (
                    said.words(p)
                    or (unit is not None and unit in normalize(self.index.label(p) or "").split())
                )
            ]
        if len(chosen) != 1:
            return None
        prop = chosen[0]
        if span is not None:
            value = fresh_value(tokens)
            test, how = self._span_as_said(prop, value, span, question)
            new = before_close(tokens, [".", var, prop, value, ".", *test])
            return new, f"its answers' {prop} in {how} (the question keeps them so)"
        number = next(iter(years)) if dated else bounds[0]
        compared = self.value_compared(before_close(tokens, [".", var, prop, number]), question)
        if compared is None:
            return None
        return compared[0], f"its answers' {prop}: {compared[1]} (the question keeps them so)"

    def _span_as_said(self, prop: str, value: str, span: Span, question: str) -> tuple[list[str], str]:
        """The FILTER keeping `value` of `prop` within `span` (`span_test`), kept open at one end when the
        question says the period "or later" or "or earlier" (`period_opened`), and what it keeps."""
        test = self.span_test(prop, value, span)
        opened = period_opened(test, question)  # "premiered in the 1870s or later"
        return (opened[0], f"{span}, {opened[1]}") if opened else (test, str(span))

    def named_fills_dangling(
        self, tokens: Sequence[str], said: Said | None, units: Sequence[str]
    ) -> tuple[list[str], str] | None:
        """`tokens` with a variable that one pattern alone reads (`?x ont:discoverer ?v`: "the moon
        Christiaan Huygens discovered", decoded without him) made an entity the question names and the
        query leaves out, when the query's patterns still match: the variable says only "something",
        the entity what. None when no such entity and variable fit."""
        if said is None or "{" not in tokens:
            return None
        types = token_types(list(tokens), self.prefixes)
        count = Counter(tokens)
        left = [u for u in self.named_entities(said, units) if u not in tokens]
        patterns = triple_patterns(tokens, types)
        dangling = [
            tokens[i]
            for s, p, o in patterns
            for i in (s, o)
            if types[i] == TokenType.VARIABLE and count[tokens[i]] == 1 and types[p] == TokenType.URI
        ]
        for var in dangling:
            for entity in left[: self.per_element]:
                new = [entity if t == var else t for t in tokens]
                if self._matches(new, patterns):
                    return new, f"{var}, which nothing else reads, is {entity} (named, left out)"
        return None

    def _takes_things(self, prop: str) -> bool:
        """Whether some of the KB's values of `prop` are IRIs: things an element between can be."""
        return any("iri" in kind for kind in self._value_kinds(prop))

    def _first_change(
        self, rewrites: Iterable[tuple[list[str], str]], answer: Answer, rnd: Round, expected: Expected
    ) -> tuple[list[str], Answer] | None:
        """The first of `rewrites` (a query, what its attempt says) that answers with the kind asked for
        and changes `answer`, each attempt recorded in `rnd`: a restriction that keeps the same answers
        says nothing. The rewrites after it are never built or run."""
        for new, source in rewrites:
            attempt, found, _ = self._try(new, source, expected)
            rnd.attempts.append(attempt)
            if attempt.outcome == ANSWERED and found is not None and found.rows != answer.rows:
                return new, found
        return None

    def asked_as_values(
        self,
        tokens: list[str],
        answer: Answer,
        said: Said,
        units: Sequence[str],
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """A SELECT whose answers the question names by a name of a property of the units it leaves out
        ("Which capital cities lie on the Danube?": "capital cities" names `ont:capital`'s values)
        restricted to values of that property (`?_w ont:capital ?x`), the first that answers and
        changes the answer; else None."""
        parts = self._answer_body(tokens)
        props = self._naming_the_asked(tokens, said, units)
        if parts is None or not props or tokens[:1] != ["select"]:
            return None
        var, close, _ = parts
        return self._first_change(
            (
                (
                    [*tokens[:close], ".", "?_w", prop, var, *tokens[close:]],
                    f"{source}: its answers {prop} values (said)",
                )
                for prop in props[: self.per_element]
            ),
            answer,
            rnd,
            expected,
        )

    def _naming_the_asked(self, tokens: Sequence[str], said: Said, units: Sequence[str]) -> list[str]:
        """The properties of the units the query leaves out that a name of two or more words of theirs
        says as the noun the question asks for ("capital cities": `ont:capital`), or the plural of their
        one-word label does when no class of the units is named by it ("which authors": `ont:author`; not
        "which composers", things of the class composer)."""
        noun = said.asked_noun()
        return [
            u
            for u in dict.fromkeys(units)
            if noun
            and u not in tokens
            and self._kind(u) == "property"
            and (
                any(len(n.split()) > 1 and noun[: len(n.split())] == n.split() for n in self.index.names(u))
                or self._named_by_plural(u, said, units)
            )
        ]

    def _named_by_plural(self, prop: str, said: Said, units: Sequence[str]) -> bool:
        """Whether the noun the question asks with is the plural of the property's one-word label and names
        no class of the units ("which authors": `ont:author`'s values; "which composers": the class)."""
        noun = said.asked_noun()[:1]
        label = (self.index.label(prop) if self.index is not None else None) or ""
        classes = [u for u in units if self._kind(u) == "class"]
        return (
            bool(noun)
            and " " not in label
            and noun[0] in head_plurals(label)
            and not any(self.named_by_head(c, noun[0]) for c in classes)
        )

    def _said_restricted(
        self,
        tokens: list[str],
        answer: Answer,
        said: Said | None,
        units: Sequence[str],
        source: str,
        rnd: Round,
        expected: Expected,
        question: str = "",
    ) -> tuple[list[str], Answer] | None:
        """A ranked SELECT that leaves out a property the question says by a name of its own (`said_but_
        left_out`, ranked: "Of the elements named after a country, which has the lowest atomic number?"
        decoded as every element by atomic number) ranking only the answers that have it (`?x
        ont:namedAfter ?_w`, either way), also with what they have typed by a class the question names
        and the query leaves out (`?_w a ont:Country`), the first that answers and changes the answer;
        else None."""
        parts = self._answer_body(tokens)
        if said is None or parts is None:
            return None
        var, close, _ = parts
        classes = self._classes_left_out(tokens, said, units, question)[: self.per_element]
        return self._first_change(
            (
                (
                    [*tokens[:close], ".", *pattern, *typed, *tokens[close:]],
                    f"{source}: restricted to answers with {prop} (said){' ' if typed else ''}{' '.join(typed)}",
                )
                for prop in self.said_but_left_out(tokens, said, units, ranked=True)[: self.per_element]
                for pattern in ([var, prop, "?_w"], ["?_w", prop, var])
                for typed in ([], *([".", "?_w", "a", c] for c in classes))
            ),
            answer,
            rnd,
            expected,
        )

    def _classes_left_out(
        self, tokens: Sequence[str], said: Said, units: Sequence[str], question: str
    ) -> list[str]:
        """The classes among the units that the question names in full and does not ask for, and that
        the query leaves out; a class whose label is in the name of an element the query uses is named
        by it ("whose job is politician": the occupation `res:Politician`, not the class)."""
        asked_for = self.asked_class(question, units) if question else None
        used = said.names_used(tokens)
        return [
            u
            for u in dict.fromkeys(units)
            if u not in tokens
            and u != asked_for
            and self._kind(u) == "class"
            and said.names_in_full(u)
            and not said.inside(u, used)
        ]

    def class_left_out(
        self, tokens: list[str], question: str, units: Sequence[str]
    ) -> tuple[list[str], Answer] | None:
        """The query restricted to answers with a property the question says and a ranking leaves out
        (`_said_restricted`), or with a variable between typed by a class the question names and the
        query leaves out (`_typed_between`), when that answers; else None."""
        if self.index is None or not question:
            return None
        rnd, said, expected = Round(1, "left out"), Said(question, self.index), expected_of(question)
        answer = self._query(detokenize(tokens, self.prefixes))
        return self._said_restricted(
            tokens, answer, said, units, "query", rnd, expected, question
        ) or self._typed_between(tokens, answer, said, units, question, "query", rnd, expected)

    def _typed_between(
        self,
        tokens: list[str],
        answer: Answer,
        said: Said | None,
        units: Sequence[str],
        question: str,
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """A query that leaves out a class the question names in full and does not ask for, with a
        variable other than the answer that a property leads to and nothing types ("How many elements
        are named after scientists?" decoded as `?x ont:namedAfter ?v`): that variable typed by the
        class (`?v a ont:Scientist`); with no such variable, the answer joined to a thing of the class as
        the KB most often joins them ("How many planets have at least one moon?": `?_y a ont:Moon . ?_y
        ont:orbits ?x`); the first that answers and changes the answer; else None. A class whose label is
        in the name of an element the query uses is named by it ("whose job is politician": the
        occupation `res:Politician`, not the class)."""
        if said is None or tokens[:1] != ["select"]:
            return None
        classes = self._classes_left_out(tokens, said, units, question)
        types = token_types(tokens, self.prefixes)
        var = answer_variable(tokens, types)
        if not classes or var is None or "}" not in tokens:
            return None
        patterns = triple_patterns(tokens, types)
        typed = {tokens[s] for s, p, _ in patterns if tokens[p] == "a"}
        between = [
            tokens[o]
            for _, p, o in patterns
            if tokens[p] != "a" and types[o] == TokenType.VARIABLE and tokens[o] not in (var, *typed)
        ]
        close = len(tokens) - 1 - tokens[::-1].index("}")
        body = self._answer_body(tokens)

        def rewrites() -> Iterator[tuple[list[str], str]]:
            for cls, variable in itertools.product(classes[: self.per_element], dict.fromkeys(between)):
                yield (
                    [*tokens[:close], ".", variable, "a", cls, *tokens[close:]],
                    f"{source}: {variable} typed {cls} (named, left out)",
                )
            if between or body is None:
                return
            for cls in classes[: self.per_element]:  # "How many planets have at least one moon?"
                if self._holds([*body[2], ".", var, "a", cls]):
                    continue  # "What are The Beatles's musicians?": the class names the answers
                for link in (["?_y", "?_p", var], [var, "?_p", "?_y"]):
                    for joined in self._joining(body[2], var, ["?_y", "a", cls, ".", *link], ("?_p",))[:1]:
                        yield (
                            [*tokens[:close], ".", *joined, *tokens[close:]],
                            f"{source}: joined to a {cls} (named, left out)",
                        )

        return self._first_change(rewrites(), answer, rnd, expected)

    def _joining(
        self, body: list[str], var: str, pattern: list[str], slots: Sequence[str]
    ) -> list[list[str]]:
        """`pattern` with its property `slots` filled in by the properties that join the most answers of
        `body` (the answer variable `var`) that way, at most `per_element` of them."""
        joins = [
            "select", *slots, "(", "count", "(", "distinct", var, ")", "as", "?_n", ")", "where", "{",
            *body, *(["."] if body else []), *pattern, "}", "group", "by", *slots, "order", "by", "desc",
            "(", "?_n", ")", "limit", str(self.per_element),
        ]  # fmt: skip
        found = self._query(detokenize(joins, self.prefixes))
        out = []
        for row in found.rows if found.ok else ():
            props = dict(zip(slots, (token_of(str(v), self.prefixes) for v in row)))
            if all(props.values()):
                out.append([props.get(t) or t for t in pattern])
        return out

    def _joined_as_the_rest_says(self, tokens: list[str], pattern: tuple[int, int, int]) -> list[str]:
        """For a pattern `E P ?y` whose value the query's other patterns say more of, the properties
        that join the entity to the most values of which those patterns hold ("the youngest of the
        Rolling Stones" decoded as `res:The_Rolling_Stones ont:formationYear ?x . ?x ont:birthDate ?v`:
        what has a birth date and is joined to the band is a member, `ont:bandMember`); [] when no
        other pattern reads the value."""
        s, p, o = pattern
        found = braces(tokens)
        if found is None:
            return []
        open_at, close_at = found
        rest = [t for i, t in enumerate(tokens[open_at + 1 : close_at], open_at + 1) if i not in (s, p, o)]
        rest = [t for t, after in zip(rest, [*rest[1:], ""]) if not (t == "." and after in (".", ""))]
        rest = rest[1:] if rest[:1] == ["."] else rest
        if tokens[o] not in rest:
            return []
        joined = self._joining(rest, tokens[o], [tokens[s], "?_p", tokens[o]], ["?_p"])
        return [found[1] for found in joined if found[1] != tokens[p]]

    def _through(self, tokens: list[str], pattern: tuple[int, int, int]) -> list[tuple[list[str], str]]:
        """A pattern `?x P E` with an entity for object, read through one element between (`?x P ?_m .
        ?_m Q E`: "rivers that flow through Europe" are those that flow through a country of Europe),
        by the properties Q that join the most answers of the query's other patterns that way; when
        none does, `?x` is the answer and other patterns bind it, by the two properties that do (`?x
        ont:length res:Europe` for "the longest river in Europe": `?x ont:flowsThrough ?_m . ?_m
        ont:continent res:Europe`)."""
        types = token_types(tokens, self.prefixes)
        s, p, o = pattern
        if (
            types[s] != TokenType.VARIABLE
            or tokens[p] == "a"
            or types[p] != TokenType.URI
            or types[o] != TokenType.URI
            or self._kind(tokens[o]) != "entity"
            or "?_m" in tokens
        ):
            return []
        others = [
            t for k in triple_patterns(tokens, types) if k != pattern for t in (*(tokens[i] for i in k), ".")
        ]
        found = self._joining(
            others[:-1], tokens[s], [tokens[s], tokens[p], "?_m", ".", "?_m", "?_q", tokens[o]], ("?_q",)
        )
        if not found and others and tokens[s] == answer_variable(tokens, types):
            found = self._joining(
                others[:-1],
                tokens[s],
                [tokens[s], "?_p", "?_m", ".", "?_m", "?_q", tokens[o]],
                ("?_p", "?_q"),
            )
        return [
            (
                [*tokens[:p], joined[1], "?_m", ".", "?_m", joined[5], *tokens[o:]],
                f"{tokens[o]} reached through ?_m {joined[5]}"
                + ("" if joined[1] == tokens[p] else f" ({tokens[p]} -> {joined[1]})"),
            )
            for joined in found
        ]

    def said_but_left_out(
        self, tokens: Sequence[str], said: Said, units: Sequence[str], ranked: bool = False
    ) -> list[str]:
        """The properties among the question's units that say words of the question no element of a
        plain SELECT says by a name of their own (`Said.words`, specific) ("what nationality is the
        director of Parasite" answered by the director: nationality); none for an ASK, a COUNT, an
        order or a filter (`ranked`: for a SELECT ranked by ORDER BY ... LIMIT only), nor for a property
        whose words an element of the query already says ("Who wrote X?": author says "wrote", so
        language, which training also aligned with "wrote", is not left out) or a class of the units
        says ("Which city was X born in?": "city" is the class asked for, not the property city)."""
        shape = set(tokens)
        if not tokens or tokens[0] != "select" or {"count", "filter", "group"} & shape:
            return []
        if ({"order", "limit"} <= shape) != ranked or (not ranked and "order" in shape):
            return []
        classes = [u for u in units if self._kind(u) == "class"]
        used = set().union(*(said.words(t) for t in {*(t for t in tokens if ":" in t), *classes}))
        return [
            u
            for u in dict.fromkeys(units)
            if u not in tokens
            and self._kind(u) == "property"
            and said.words(u, specific=True)
            and not said.words(u) & used
        ]

    def _accept(
        self,
        tokens: list[str],
        answer: Answer,
        attempt: Attempt,
        rnd: Round,
        question: str,
        units: Sequence[str],
        expected: Expected,
        said: Said | None = None,
    ) -> tuple[list[str], Answer] | None:
        """The query to keep for an answering attempt: a place the question names by its people read as
        people of that nationality (`people_of_place`), its answer untyped when the question asks for
        two classes (`untyped_for_two`), each when that answers; restricted to an entity the question
        names and it leaves out (`_narrowed`: "Which astronomer discovered Enceladus?" answered by every
        astronomer),
        then one hop further by a property the question says and the query leaves out, when that
        answers ("the nationality of the director of Parasite");
        typed by the class the question asks for, when it lacks the type and the typed query still
        answers ("Which painters come from Spain?": `?x a ont:Painter` added); when nothing of the
        answer is of that class ("Which city ..." answered by a university), the answer one hop
        further, else None with the attempt marked as the wrong kind."""
        if self.orders_by_no_measure(tokens, question):
            attempt.outcome, attempt.detail = (
                WRONG_KIND,
                "a superlative ordered by values that are no measure",
            )
            return None
        if said is not None and self.answers_what_it_names(tokens, answer, said, units, question):
            attempt.outcome, attempt.detail = WRONG_KIND, "it answers with an entity the question names"
            return None
        joined = self.named_left_out_of_ask(tokens, said, units) if answer.boolean else None
        if joined is not None:  # "Is Tosca an opera by Verdi?" asked of Tosca and opera alone
            checked, held, _ = self._try(joined[0], f"{attempt.source}: {joined[1]}", expected)
            rnd.attempts.append(checked)
            if checked.outcome == ANSWERED and held is not None:
                return joined[0], held
        people = self.people_of_place(tokens, said) if said is not None else None
        untyped = self.untyped_for_two(tokens, question, units) if question else None
        for read in (
            people,  # "elements named after Germans" decoded as named after Germany
            None if untyped is None else (untyped, "its answer untyped (the question asks for two classes)"),
        ):
            if read is None:
                continue
            checked, held, _ = self._try(read[0], f"{attempt.source}: {read[1]}", expected)
            rnd.attempts.append(checked)
            if checked.outcome == ANSWERED and held is not None:
                tokens, answer = read[0], held
        narrowed = (
            self._narrowed(tokens, answer, said, units, attempt.source, rnd, expected) if said else None
        )
        if narrowed is not None:
            tokens, answer = narrowed
        valued = (
            self.asked_as_values(tokens, answer, said, units, attempt.source, rnd, expected) if said else None
        )
        if valued is not None:
            tokens, answer = valued
        joined_by = (
            self._joined_by_said(tokens, answer, said, question, units, attempt.source, rnd, expected)
            if said
            else None
        )
        if joined_by is not None:
            tokens, answer = joined_by
        further = (
            self._said_hop(tokens, said, units, attempt.source, rnd, expected)
            if said and not self.typed_as_asked(tokens, said, question, units)
            else None
        )
        if further is None and question:
            further = self.past_the_thing_talked_of(
                tokens, answer, question, units, attempt.source, rnd, expected
            )
        if further is not None:
            tokens, answer = further
        restricted = self._said_restricted(
            tokens, answer, said, units, attempt.source, rnd, expected, question
        )
        if restricted is not None:
            tokens, answer = restricted
        classed = self._typed_between(tokens, answer, said, units, question, attempt.source, rnd, expected)
        if classed is not None:
            tokens, answer = classed
        compared = self._compared(tokens, answer, units, question, attempt.source, rnd, expected)
        if compared is not None:
            tokens, answer = compared
        sibling = self.dated_by_the_sibling(tokens, question, said)
        if sibling is not None:  # "which beatles were born in the 1940s" read a hop further by birth place
            checked, held, _ = self._try(sibling[0], f"{attempt.source}: {sibling[1]}", expected)
            rnd.attempts.append(checked)
            if checked.outcome == ANSWERED and held is not None:
                tokens, answer = sibling[0], held
        dated = self._in_span(tokens, answer, units, question, attempt.source, rnd, expected)
        if dated is not None:
            tokens, answer = dated
        cls = self.asked_class(question, units) if question else None
        typed = typed_by(tokens, cls, self.prefixes)
        if cls is None or typed is None:
            return tokens, answer
        checked, typed_answer, _ = self._try(
            typed, f"{attempt.source}: its answer typed {cls} (the question asks for it)", expected
        )
        rnd.attempts.append(checked)
        if checked.outcome == ANSWERED and typed_answer is not None:
            joined_by = (  # "How many countries have their capital on the Danube?", once typed
                self._joined_by_said(
                    typed, typed_answer, said, question, units, attempt.source, rnd, expected
                )
                if said
                else None
            )
            return joined_by or (typed, typed_answer)
        if checked.outcome != EMPTY:
            return tokens, answer
        # the thing between is of another class the question names ("albums by London bands": a band)
        between = [
            u
            for u in units
            if u not in (cls, *tokens)
            and self._kind(u) == "class"
            and said is not None
            and said.names_in_full(u)
        ]
        first = self._naming_the_asked(tokens, said, units) if said is not None else []  # "capital cities"
        further = self._one_hop_further(
            tokens, cls, list(dict.fromkeys([*first, *units])), attempt.source, rnd, expected, between[:1]
        )
        if further is not None:
            return further
        if self.of_a_kind_of(answer, cls):
            attempt.detail = f"its answers are of a kind of {cls}: the KB says of them all it says of {cls}"
            return tokens, answer
        attempt.outcome, attempt.detail = WRONG_KIND, "none of its answers is of the class asked for"
        return None

    def typed_by_the_noun_asked(
        self, tokens: Sequence[str], said: Said, question: str, units: Sequence[str]
    ) -> bool:
        """Whether the query types its answer by the class the question asks for, named by one of the
        two words it asks with ("on the niger river, which countries have their capital", "which nigerian
        city ..."), no question word after it ("The country whose capital is Ulaanbaatar uses what
        money?"); not by a noun of what the question talks of ("What orbits the planet ...")."""
        cls = self.asked_class(question, units) if question else None
        noun = said.asked_noun()[:2]
        words = said.text.split()
        at = next((i for i, w in enumerate(words) if w in noun and cls and self.named_by_head(cls, w)), None)
        if at is None or QUESTION_WORDS & set(words[at + 1 :]):
            return False
        return self._answer_typed(tokens, cls)

    def typed_as_asked(self, tokens: list[str], said: Said, question: str, units: Sequence[str]) -> bool:
        """Whether the query types its answer by the one class the question asks for by the noun it asks
        with: its answer is what is asked, so no property the question says takes it a hop further
        ("which painters were born in spain" answered by Spanish painters, not by their birthplaces;
        "Records by bands from Dublin" asks for records, not the bands); a question word after the noun
        asks for something else."""
        cls = self.asked_class(question, units) if question else None
        noun = said.asked_noun()[:1]
        words = said.text.split()
        if words[:1] != ["which"] and QUESTION_WORDS & set(words[1:]):
            return False  # "The country whose capital is Ulaanbaatar uses what money?": the noun is its topic
        if cls is None or not noun or not self.named_by_head(cls, noun[0]):
            return False
        return self._answer_typed(tokens, cls)

    def _answer_typed(self, tokens: Sequence[str], cls: str | None) -> bool:
        """Whether the query's answer variable is typed `cls`."""
        types = token_types(tokens, self.prefixes)
        var = answer_variable(tokens, types)
        return var is not None and cls in self._types_of(tokens, types, var)

    def said_hop(
        self, tokens: list[str], question: str, units: Sequence[str]
    ) -> tuple[list[str], Answer] | None:
        """The query one hop further by a property `question` says and the query leaves out
        (`said_but_left_out`), when that answers with the kind the question asks for; else None."""
        if self.index is None or not question:
            return None
        rnd = Round(1, "said but left out")
        return self._said_hop(tokens, Said(question, self.index), units, "query", rnd, expected_of(question))

    def said_joined(
        self, tokens: list[str], answer: Answer, question: str, units: Sequence[str]
    ) -> tuple[list[str], Answer] | None:
        """The query restricted by a property `question` says and the query leaves out
        (`_joined_by_said`), when it types its answer as the question asks; else None."""
        if self.index is None or not question:
            return None
        rnd = Round(1, "said but left out")
        said, expected = Said(question, self.index), expected_of(question)
        return self._joined_by_said(tokens, answer, said, question, units, "query", rnd, expected)

    def _ranked(
        self,
        tokens: list[str],
        units: Sequence[str],
        question: str,
        source: str,
        rnd: Round,
        expected: Expected,
        said: Said | None,
    ) -> tuple[list[str], Answer] | None:
        """A superlative answered by several answers and no ranking ("which planet is closest to the
        sun": every planet of the Sun) ranked by a measured property of the units, else the one measure of
        the class the answers have or the question asks for ("the first album by the Beatles": release year):
        the one the question's unit names ("the fewest people": population), else those most of the
        answers have, in the direction the question's word asks for; the first
        that answers and fits (`said`: and is restricted as an answering attempt is, `_accept`)."""
        wanted = asked(question, "superlative") if question else None
        parts = self._answer_body(tokens)
        if wanted is None or parts is None or {"order", "limit", "count", "group"} & set(tokens):
            return None
        var, close, body = parts
        rank = "?v" if "?v" not in tokens else "?_rank"
        bound = self._bound_values(tokens, var)
        measures = [prop for _, prop in self._measures(tokens, var, body, rank, units, question)]
        for prop in measures[: self.per_element]:
            up = ascending(wanted.sense, wanted.word, self.values_are_dates(prop))
            if up is None:
                continue
            by = bound.get(prop, rank)
            order = f"order by {'asc' if up else 'desc'} ( {by} ) limit 1".split()
            ranked = [*tokens[:close], *([] if prop in bound else [".", var, prop, rank]), "}", *order]
            attempt, answer, _ = self._try(ranked, f"{source}: ranked by {prop} ({wanted.word})", expected)
            rnd.attempts.append(attempt)
            if attempt.outcome == ANSWERED and answer is not None:
                accepted = self._accept(ranked, answer, attempt, rnd, question, units, expected, said)
                if accepted is not None:
                    return accepted
        return None

    def _within_a_name(self, word: str, question: str, units: Sequence[str]) -> bool:
        """Whether the question says `word` only within names of entities among `units` that it says whole
        ("the director of After Hours"; not "came out after After Hours")."""
        assert self.index is not None
        said = f" {normalize(question)} "
        for unit in units:
            name = normalize(self.index.label(unit) or "") if self._kind(unit) == "entity" else ""
            if word in name.split():
                said = said.replace(f" {name} ", " ")
        return f" {word} " not in said and f" {word} " in f" {normalize(question)} "

    def comparison_left_out(
        self, tokens: list[str], question: str, units: Sequence[str]
    ) -> tuple[list[str], Answer] | None:
        """The query filtered by the comparison or the period its question asks for and it leaves out
        (`_compared`, `_in_span`), when that answers; else None."""
        if not question:
            return None
        rnd, answer = Round(1, "comparison left out"), self._query(detokenize(tokens, self.prefixes))
        expected = expected_of(question)
        return self._compared(tokens, answer, units, question, "query", rnd, expected) or self._in_span(
            tokens, answer, units, question, "query", rnd, expected
        )

    def _compared(
        self,
        tokens: list[str],
        answer: Answer,
        units: Sequence[str],
        question: str,
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """A SELECT that leaves out the comparison its question asks for ("films by Kubrick from before
        1960": the number linked, no filter) filtered by a measured property of the units, else the one
        measure of the class it asks for, in the direction the question's word says (`year ( ?v )` for
        dates); the first that answers and changes the answer. Without a number, the entity the
        comparison is made with ("planets farther from the sun than Earth": `res:Earth
        ont:orderFromSun ?_than . filter ( ?v > ?_than )`), and with it when the number is a word of
        its name ("came out after 2001: A Space Odyssey")."""
        wanted = asked(question, "comparative") if question else None
        if wanted is not None and self._within_a_name(wanted.word, question, units):
            return None  # "Twenty Thousand Leagues Under the Seas": a title's word compares nothing
        numbers = [u for u in units if NUMBER.fullmatch(u) and u not in tokens]
        than = self._compared_with(question, units, wanted.word) if wanted else None
        if than is not None:  # "came out after 2001: A Space Odyssey": the number names the film
            name = normalize(self.index.label(than) or "").split()
            numbers = [n for n in numbers if n not in name]
        than = than if len(numbers) != 1 else None
        if wanted is None or (len(numbers) != 1 and than is None):
            return None
        sense, word = wanted.sense, wanted.word

        def compare(prop: str, value: str) -> tuple[list[str], list[str], str] | None:
            dates = self.values_are_dates(prop)
            low = ascending(sense, word, dates)
            if low is None:
                return None
            other, test = self._comparison(
                prop, value, dates, low, numbers[0] if than is None else None, than, question
            )
            return other, test, f"{source}: compared by {prop} ({word})"

        return self._filtered_by_measures(tokens, answer, units, question, rnd, expected, compare)

    def _named_swaps(
        self, tokens: Sequence[str], said: Said | None, units: Sequence[str], question: str
    ) -> Iterator[tuple[list[str], str]]:
        """`tokens` with an entity the question names in full and the query leaves out put in place of
        one the query uses: "Edward Hopper finished Nighthawks in which year?" decoded as
        `res:Edward_Hopper ont:yearCompleted ?x`, which a painter has not, asks it of Nighthawks. Not an
        entity named by a place adjective ("South American" also says the United States), nor by one
        common word the question writes in lower case ("sap has its main office": no river Main)."""
        if said is None:
            return
        written = {normalize(w) for w in question.split() if w[:1].isupper()}

        def named_apart(u: str) -> bool:  # not "main", a common word in lower case
            label = normalize(said.index.label(u) or "")
            return said.names_in_full(u) and (label in written or not is_dictionary_word(label))

        left = [u for u in self.named_entities(said, units) if u not in tokens and named_apart(u)]
        entities = [t for t in dict.fromkeys(tokens) if self._kind(t) == "entity"]
        for used, named in itertools.product(entities, left):
            yield [named if t == used else t for t in tokens], f"{used} -> {named} (named, left out)"

    def _class_compared(
        self,
        cls: str | None,
        answered: tuple[list[str], Answer] | None,
        units: Sequence[str],
        question: str,
        said: Said | None,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """When no hypothesis answered, the things of the class a question asks for compared with the
        one entity it names, or a number (`_compared`): "Which countries are bigger than India?" decoded
        with India as an official language or a continent is every country, then those whose area is
        larger than India's. None when the question names anything else, even ambiguously ("Dickens"),
        which such a query would drop."""
        if cls is None or answered is not None or said is None or not compares_with_a_bound(question):
            return None
        wanted = asked(question, "comparative")
        than = self._compared_with(question, units, wanted.word) if wanted else None
        entities = [u for u in units if u != than and self._kind(u) == "entity"]
        if any(said.names_whole(e) or said.part_words(e) for e in entities):  # "Dickens", whichever
            return None
        every = f"select distinct ?x where {{ ?x a {cls} }}".split()
        attempt, answer, _ = self._try(every, f"the question: every {cls}", expected)
        if attempt.outcome != ANSWERED or answer is None:
            return None
        return self._compared(every, answer, units, question, f"the question: every {cls}", rnd, expected)

    def _in_span(
        self,
        tokens: list[str],
        answer: Answer,
        units: Sequence[str],
        question: str,
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """A SELECT that leaves out the range its question names ("moons discovered in the 17th
        century", "albums of the 1960s", "elements numbered 57 through 71": `asked_span`) filtered to it by
        a measured property (`_measures`, `year ( ?v )` for dates), a period said "or later" or "or
        earlier" by one end of it (`period_opened`); the first that answers and changes the answer."""
        if not question or not any(asked_span(question, dates, one_year=True) for dates in (True, False)):
            return None

        def within(prop: str, value: str) -> tuple[list[str], list[str], str] | None:
            span = asked_span(question, self.values_are_dates(prop), one_year=True)
            if span is None:
                return None
            test, how = self._span_as_said(prop, value, span, question)
            return [], test, f"{source}: {how} by {prop}"

        return self._filtered_by_measures(tokens, answer, units, question, rnd, expected, within)

    def _filtered_by_measures(
        self,
        tokens: list[str],
        answer: Answer,
        units: Sequence[str],
        question: str,
        rnd: Round,
        expected: Expected,
        test: Callable[[str, str], tuple[list[str], list[str], str] | None],
    ) -> tuple[list[str], Answer] | None:
        """A SELECT with no filter, ranking or grouping filtered by each measured property of its answers
        (`_measures`) in turn: `test(property, the variable of its value)` gives the patterns to read
        first, the FILTER and what changed, or None to pass the property. The first that answers and
        changes the answer (`_first_change`)."""
        parts = self._answer_body(tokens)
        if parts is None or tokens[:1] != ["select"] or {"filter", "order", "group"} & set(tokens):
            return None
        var, close, body = parts
        fresh = fresh_value(tokens)
        bound = self._bound_values(tokens, var)

        def rewrites() -> Iterator[tuple[list[str], str]]:
            for _, prop in self._measures(tokens, var, body, fresh, units, question)[: self.per_element]:
                value = bound.get(prop, fresh)
                made = test(prop, value)
                if made is None:
                    continue
                other, check, change = made
                read = [] if prop in bound else [".", var, prop, value]
                before = [".", *other] if other else []
                yield [*tokens[:close], *read, *before, ".", *check, *tokens[close:]], change

        return self._first_change(rewrites(), answer, rnd, expected)

    def subject_of_the_verb(self, tokens: Sequence[str], said: Said | None) -> tuple[list[str], str] | None:
        """`tokens` with the answer as the subject of the one pattern `E P ?x` it has, when the question
        asks with its first word as the subject of a verb that names P ("What orbits the Earth?",
        "what flows through vienna": `?x ont:orbits res:Earth`); a property named by a noun ("Who
        directed Alien?": director) keeps its way. None otherwise."""
        verb = self._verb_asked(said) if said is not None else None
        parts = self._answer_body(tokens)
        if verb in AUXILIARIES or verb is None or parts is None or {"order", "filter", "count"} & set(tokens):
            return None
        var, _, _ = parts
        types = token_types(list(tokens), self.prefixes)
        patterns = triple_patterns(tokens, types)
        if len(patterns) != 1:
            return None
        s, p, o = patterns[0]
        if tokens[o] != var or types[s] != TokenType.URI or verb not in self._verb_forms(tokens[p]):
            return None
        turned = list(tokens)
        turned[s], turned[o] = tokens[o], tokens[s]
        return turned, f"{tokens[s]} {tokens[p]} {var} turned (the question asks for what {verb} it)"

    def there_and_back_removed(self, tokens: Sequence[str]) -> tuple[list[str], str] | None:
        """`tokens` without the second of two hops in a row by one property that the KB holds both ways
        for the entity they start from (`res:Frida_Kahlo ont:spouse ?y . ?y ont:spouse ?h . ?h
        ont:birthPlace ?x`: her husband's spouse is herself, so "where was Frida Kahlo's husband born"
        asks it of `?y`), the variable after them read as the one between; None when no chain goes so."""
        types = token_types(list(tokens), self.prefixes)
        patterns = triple_patterns(tokens, types)
        for first, second in itertools.permutations(patterns, 2):
            prop = tokens[first[1]]
            if types[first[1]] != TokenType.URI or tokens[second[1]] != prop:
                continue
            # E P ?a . ?a P ?b, or ?a P E . ?b P ?a: from E to ?a and on to ?b by P the same way
            forward = tokens[first[2]] == tokens[second[0]]
            entity, between, after = (
                (first[0], first[2], second[2]) if forward else (first[2], first[0], second[0])
            )
            if not forward and tokens[second[2]] != tokens[first[0]]:
                continue
            var, end = tokens[between], tokens[after]
            if (
                types[entity] != TokenType.URI
                or types[between] != TokenType.VARIABLE
                or types[after] != TokenType.VARIABLE
                or var == end
                or tokens.count(var) != 2
                or not self._holds([tokens[entity], prop, "?_a", ".", "?_a", prop, tokens[entity]])
            ):
                continue
            kept = without_positions(tokens, set(second))
            return [
                var if t == end else t for t in kept
            ], f"{prop} there and back from {tokens[entity]} dropped"
        return None

    def unsaid_dangling_removed(
        self, tokens: Sequence[str], said: Said | None
    ) -> tuple[list[str], str] | None:
        """`tokens` without a pattern `?x P ?v` whose `?v` nothing else reads and whose property the
        question does not say, in a query of several patterns ("European countries bigger than Germany"
        left with `?x ont:population ?v` once its unasked ranking went): it only keeps the answers that
        have some value of P, which the question never asked; None when there is none."""
        if said is None or "where" not in tokens:
            return None
        types = token_types(list(tokens), self.prefixes)
        patterns = triple_patterns(tokens, types)
        counts = Counter(tokens)
        for s, p, o in patterns:
            if (
                len(patterns) > 1
                and types[s] == TokenType.VARIABLE
                and types[p] == TokenType.URI
                and types[o] == TokenType.VARIABLE
                and counts[tokens[o]] == 1
                and not said.words(tokens[p])
                and not said.asked_head(tokens[p])
            ):
                return without_positions(tokens, {s, p, o}), (
                    f"{tokens[s]} {tokens[p]} {tokens[o]} removed (read by nothing, not said)"
                )
        return None

    def dangling_value_asked(self, tokens: Sequence[str], said: Said | None) -> tuple[list[str], str] | None:
        """`tokens` answering with the value of a pattern `?x P ?v` whose `?v` nothing else reads, in a
        SELECT of `?x` with no order, filter or count, when the question says P by a name of its own
        ("Where are the companies Steve Wozniak co-founded headquartered?" decoded as `?x ont:founder
        res:Steve_Wozniak . ?x ont:headquarters ?v`): such a pattern only says that the answers have
        some value, which no question asks; the value it names is what it asks for. (Repair asks it of
        questions that open with no class: "Which companies ..." asks for the companies.) Not when the
        query types its answer by a class whose label ends with the noun the question asks for ("Which
        element ..." and `?x a ont:ChemicalElement`)."""
        if tokens[:1] != ["select"] or {"order", "filter", "count", "group", "limit"} & set(tokens):
            return None
        types = token_types(list(tokens), self.prefixes)
        var = answer_variable(tokens, types)
        if var is None or "where" not in tokens or said is None:
            return None
        noun = said.asked_noun()[:1]
        heads = {element_name(c, self.index).lower().split()[-1] for c in self._types_of(tokens, types, var)}
        if noun and heads & set(inflections(noun[0], ("NOUN",))):
            return None
        where = tokens.index("where")
        if [t for t in tokens[1:where] if t != "distinct"] != [var]:
            return None
        counts = Counter(tokens)
        dangling = [
            tokens[o]
            for s, p, o in triple_patterns(tokens, types)
            if tokens[s] == var and types[p] == TokenType.URI and tokens[o] != var
            and types[o] == TokenType.VARIABLE and counts[tokens[o]] == 1
            and said.words(tokens[p], specific=True)
        ]  # fmt: skip
        if len(dangling) != 1:
            return None
        distinct = ["distinct"] if "distinct" in tokens[1:where] else []
        asked_for = ["select", *distinct, dangling[0], *tokens[where:]]
        return asked_for, f"the value {dangling[0]} nothing else reads is the answer"

    def measured_thing_asked(self, tokens: Sequence[str], cls: str | None) -> tuple[list[str], str] | None:
        """`tokens` answering with the thing of the class the question asks for (`cls`: "Andes mountains
        over 6000 metres") where it answers with that thing's value of a measure (`?h a ont:Mountain .
        ?h ont:elevation ?x`): a measure's values are no things of a class, and a comparison the
        question makes is then made of the things."""
        if cls is None or tokens[:1] != ["select"] or {"count", "group"} & set(tokens):
            return None
        types = token_types(list(tokens), self.prefixes)
        var = answer_variable(tokens, types)
        patterns = triple_patterns(tokens, types)
        measured = [
            tokens[s]
            for s, p, o in patterns
            if tokens[o] == var and types[s] == TokenType.VARIABLE and self._measured_values(tokens[p])
        ]
        if (
            var is None
            or len(measured) != 1
            or Counter(tokens)[var] != 2
            or cls not in self._types_of(tokens, types, measured[0])
        ):
            return None
        thing, where = measured[0], tokens.index("where")
        swapped = [
            *tokens[:where],
            *(var if t == thing else thing if t == var else t for t in tokens[where:]),
        ]
        return swapped, f"the {cls} {thing}, not its measure {var}, is the answer"

    def class_as_value_typed(self, tokens: Sequence[str], said: Said | None) -> tuple[list[str], str] | None:
        """`tokens` with a class written as the value of a property the question names by words of
        its own (`?x ont:namedAfter ont:Person`: "the elements named after people") read as a value
        of that class (`?x ont:namedAfter ?_c1 . ?_c1 a ont:Person`). A property that the question
        says only by the class's words ("How many countries ...": `ont:country ont:Country`) is left
        for repair to read as a type (`a`)."""
        if said is None:
            return None
        types = token_types(list(tokens), self.prefixes)
        new, changed = list(tokens), []
        for _, p, o in reversed(triple_patterns(tokens, types)):
            prop, cls = tokens[p], tokens[o]
            if (
                prop == "a"
                or self._kind(cls) != "class"
                or not said.words(prop, specific=True) - said.words(cls)
            ):
                continue
            var = f"?_c{len(changed) + 1}"
            new[o : o + 1] = [var, ".", var, "a", cls]
            changed.append(f"{prop} {cls}")
        return (
            (new, f"a class as a value read as one of its members ({', '.join(changed)})")
            if changed
            else None
        )

    def ask_about_the_named(self, tokens: Sequence[str]) -> tuple[list[str], str] | None:
        """An ASK whose patterns fall apart, one part naming an entity and another naming none ("Did
        the Oppenheimer movie come out before 2020?" decoded as `res:Oppenheimer_film a ont:Film . ?x
        ont:releaseYear ?v . filter ( ?v < 2020 )`: whether anything came out before 2020), with the
        unnamed part's subject made that entity, when the entity has the property it reads."""
        if tokens[:1] != ["ask"]:
            return None
        types = token_types(list(tokens), self.prefixes)
        patterns = triple_patterns(tokens, types)
        entities = {tokens[i] for t in patterns for i in (t[0], t[2]) if self._kind(tokens[i]) == "entity"}
        if len(entities) != 1:
            return None
        named = next(iter(entities))
        parts: list[tuple[set[str], list[tuple[int, int, int]]]] = []
        for triple in patterns:
            variables = {tokens[i] for i in triple if types[i] == TokenType.VARIABLE}
            joined = [part for part in parts if part[0] & variables]
            parts = [part for part in parts if not part[0] & variables]
            parts.append(
                (variables.union(*(j[0] for j in joined)), [t for j in joined for t in j[1]] + [triple])
            )
        unnamed = [
            part
            for part in parts
            if part[0] and not any(named in (tokens[t[0]], tokens[t[2]]) for t in part[1])
        ]
        if len(parts) < 2 or len(unnamed) != 1:
            return None
        for s, p, _ in unnamed[0][1]:
            if types[s] == TokenType.VARIABLE and self._holds([named, tokens[p], "?_v"]):
                var = tokens[s]
                return [
                    named if t == var else t for t in tokens
                ], f"{var} of a part that names nothing is {named}"
        return None

    def _joined_by_said(
        self,
        tokens: list[str],
        answer: Answer,
        said: Said,
        question: str,
        units: Sequence[str],
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """A SELECT that types its answer as the question asks (`typed_by_the_noun_asked`) and leaves out a
        property the question says (`said_but_left_out`), restricted to the answers an entity it names is
        joined to by that property, either way ("which city is the capital of Tanzania" answered by the
        cities of Tanzania: `res:Tanzania ont:capital ?x` added); else with that property put between the
        answer and the entity a pattern joins it to ("countries that have their capital on the Danube"
        answered by the countries on it: `res:Danube ont:flowsThrough ?_m . ?x ont:capital ?_m`), when
        another pattern says what the answers are (else that is a hop further, `_said_hop`'s); else
        restricted to the answers that have it ("kubrick films based on novels": `?x ont:basedOn ?_m`).
        A COUNT is read as the list it counts. The first rewrite that answers and changes the answer, else
        None."""
        parts = self._answer_body(tokens)
        if (
            parts is None
            or "?_m" in tokens
            or not self.typed_by_the_noun_asked(tokens, said, question, units)
        ):
            return None
        var, close, _ = parts
        props = [  # of a COUNT, those of the list it counts ("How many countries have their capital on ...")
            p
            for p in self.said_but_left_out(uncounted(tokens) or tokens, said, units)
            if self._takes_things(p) and not self._named_by_plural(p, said, units)
        ]
        types = token_types(tokens, self.prefixes)
        entity_at = {
            i for i, k in enumerate(types) if k == TokenType.URI and self._kind(tokens[i]) == "entity"
        }
        entities = [tokens[i] for i in sorted(entity_at)]

        def restrictions() -> Iterator[tuple[list[str], str]]:
            for prop, entity in itertools.product(props[: self.per_element], dict.fromkeys(entities)):
                for pattern in ([entity, prop, var], [var, prop, entity]):
                    yield (
                        [*tokens[:close], ".", *pattern, *tokens[close:]],
                        f"{source}: its answers joined to {entity} by {prop} (said, left out)",
                    )
            patterns = triple_patterns(tokens, types)
            joining = [  # patterns joining the answer to an entity: `res:Danube ont:flowsThrough ?x`
                (at, p)
                for s, p, o in patterns
                for at, other in ((s, o), (o, s))
                if tokens[at] == var and tokens[p] != "a" and other in entity_at
            ]
            if sum(var in (tokens[s], tokens[o]) for s, _, o in patterns) < 2:
                joining = []  # the answer said of by that pattern alone: a hop further (`_said_hop`)
            for prop, (at, p) in itertools.product(props[: self.per_element], joining):
                moved = [*tokens[:at], "?_m", *tokens[at + 1 :]]
                for between in ([var, prop, "?_m"], ["?_m", prop, var]):
                    yield (
                        [*moved[:close], ".", *between, *moved[close:]],
                        f"{source}: {prop} (said, left out) between its answers and {tokens[p]}",
                    )
            for prop in props[: self.per_element]:  # "kubrick films based on novels": those that have it
                for having in ([var, prop, "?_m"], ["?_m", prop, var]):
                    yield (
                        [*tokens[:close], ".", *having, *tokens[close:]],
                        f"{source}: its answers that have {prop} (said, left out)",
                    )

        return self._first_change(restrictions(), answer, rnd, expected)

    def _said_hop(
        self,
        tokens: list[str],
        said: Said,
        units: Sequence[str],
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        props = [  # a property whose label's plural names the answers ("which authors") takes no hop
            p
            for p in self.said_but_left_out(tokens, said, units)
            if not self._named_by_plural(p, said, units)
        ]
        if asked(said.text, "comparative") is not None:  # "over 6000 metres": the measure compares
            props = [p for p in props if not self._measured_values(p)]
        props = props[: self.per_element]
        if not props:
            return None
        return self._one_hop_further(
            tokens, None, props, source, rnd, expected, subject=self._verb_asked(said)
        )

    def past_the_thing_talked_of(
        self,
        tokens: list[str],
        answer: Answer,
        question: str,
        units: Sequence[str],
        source: str,
        rnd: Round,
        expected: Expected,
    ) -> tuple[list[str], Answer] | None:
        """The query one hop further by a property of the units it leaves out, when it answers with the
        thing the question talks of rather than asks for: of a class the question names right after a
        possessive or "the", followed by more of the question, and not the class it asks for ("What kind
        of music did Bob Marley's band play?" answered by the band; "What money would I need in the
        country where Kilimanjaro is?" by Tanzania; "the element named for alfred nobel - what's its
        symbol"), to the class it asks for when it names one. The query must read it by one fact: a
        chain's end is what the question asks for ("the capital of the country of the city that Led
        Zeppelin comes from"). A "where" or "when" question whose units give no such property goes by the
        one place or date the KB gives the thing ("where is the band that recorded hotel california
        from": its hometown). None otherwise."""
        if tokens[:1] != ["select"] or {"count", "order", "filter"} & set(tokens) or self.index is None:
            return None
        types = token_types(tokens, self.prefixes)
        facts = [p for _, p, _ in triple_patterns(tokens, types) if tokens[p] != "a"]
        if len(facts) != 1:  # the thing talked of is named by one fact ("Bob Marley's band"), not a chain
            return None
        first = next((v for v in answer.cells() if value_kinds(v) == {"iri"}), None)
        entity = token_of(first, self.prefixes) if first else None
        if entity is None:
            return None
        asked_for = self.asked_class(question, units)
        noun = asked_noun(question_proper(question))[:1]  # "Show me the elements ...": asked for
        words = normalize(question).split()
        talked_of = [
            c
            for c in self.index.classes(entity)
            if c != asked_for
            and not (noun and self.named_by_head(c, noun[0]))
            and self._named_after_the(words, c)
        ]
        if not talked_of:
            return None
        label = f"{source}: past the {talked_of[0]} talked of"
        further = (
            self._one_hop_further(  # to the class asked for, if any ("the band ... was from which city")
                tokens, asked_for, units, label, rnd, expected
            )
        )
        if further is not None:
            return further
        # "where is the band that recorded hotel california from", the question saying no property
        return self._one_place_or_date(tokens, answer, question, label, rnd, expected)

    def _one_place_or_date(
        self, tokens: list[str], answer: Answer, question: str, source: str, rnd: Round, expected: Expected
    ) -> tuple[list[str], Answer] | None:
        """A query answering a "where" or "when" question with the thing it talks of (of a class named
        after "the": a band, not its hometown or when it formed) taken one hop further by the one place or date property the KB gives its first
        answer (`placing_properties`, or its dated measures); None when it gives none or several, or the question asks for
        something else. Never of people: a person has a birth and a death, and a KB that holds one of
        them only does not make it what was asked ("when did they get together" answered by a member)."""
        if self.index is None or not (expected.asks == "where" or expected.values == {"date"}):
            return None
        if self._only_people(answer):
            return None
        first = next((v for v in answer.cells() if value_kinds(v) == {"iri"}), None)
        entity = token_of(first, self.prefixes) if first else None
        words = normalize(question).split()
        if entity is None or not any(self._named_after_the(words, c) for c in self.index.classes(entity)):
            return None
        own = (
            self.placing_properties(entity)
            if expected.asks == "where"
            else [p for p in self._literal_measures(entity) if self.values_are_dates(p)]
        )
        if len(own) != 1:
            return None
        return self._one_hop_further(tokens, None, own, f"{source}, to its one {own[0]}", rnd, expected)

    def _named_after_the(self, words: Sequence[str], cls: str) -> bool:
        """Whether `words` name a thing of `cls` by its label's head (`named_by_head`) right after "the" or a
        possessive, with more of the question after it than "of" and a name."""
        return any(
            words[at - 1] in DETERMINERS and words[at + 1] != "of" and self.named_by_head(cls, words[at])
            for at in range(1, len(words) - 1)
        )

    def _one_hop_further(
        self,
        tokens: list[str],
        cls: str | None,
        units: Sequence[str],
        source: str,
        rnd: Round,
        expected: Expected,
        between: Sequence[str] = (),
        subject: str | None = None,
    ) -> tuple[list[str], Answer] | None:
        """The query's answer taken one hop further, to the class the question asks for (`cls`; None:
        any): `?x` becomes an inner variable and `?inner P ?x [. ?x a cls]` (or `?x P ?inner`) is
        added, for each property of the question's units the query does not use ("Einstein's
        universities are in which city?": his alma maters, then their city). The first that answers
        wins; none when that one answers only with entities the query names (a hop back to where it
        started: "What is Cormac McCarthy known for writing?", his works' author). `between`: a class
        the inner variable must have too (`?inner a ont:Band`). `subject`: the word the question asks
        with as the subject of a verb ("What orbits ..."): the answer is the subject of the property
        whose name that verb is, so that way goes first. With a class asked for and no hop answering,
        the hop goes through one element between, by the property that joins the most answers that way
        ("lego's headquarters are on which continent": its city's country's); with none either, by the
        property that reached it from a named entity of that class, again ("the movies by whoever directed
        blue velvet": `res:Blue_Velvet ont:director ?h . ?x ont:director ?h`)."""
        types = token_types(tokens, self.prefixes)
        var = answer_variable(tokens, types)
        found = braces(tokens)
        if var is None or found is None:
            return None
        open_at, close_at = found
        inner = next(v for v in ("?h", "?h1", "?h2", "?h3") if v not in tokens)
        body = [inner if t == var else t for t in tokens[open_at + 1 : close_at]]
        body += [t for c in between for t in (".", inner, "a", c)]
        props = self._unused_properties(tokens, units)
        for prop in props:
            ways = [([inner, prop, var], "from"), ([var, prop, inner], "to")]
            if subject is not None and subject in self._verb_forms(prop):
                ways.reverse()
            for pattern, way in ways:
                typed = [".", var, "a", cls] if cls is not None else []
                new = [*tokens[: open_at + 1], *body, ".", *pattern, *typed, *tokens[close_at:]]
                attempt, answer, _ = self._try(
                    new, f"{source}: one hop further, {way} its answer by {prop}", expected
                )
                rnd.attempts.append(attempt)
                if attempt.outcome != ANSWERED or answer is None:
                    continue
                if self._only_entities(answer, tokens):  # the query's path read backwards: no hop asked
                    attempt.outcome, attempt.detail = WRONG_KIND, "the hop leads back to an entity it names"
                    return None
                return new, answer
        if cls is None:
            return None
        # "lego's headquarters are on which continent": a city's, through its country
        for prop in [] if "?_m" in tokens else props[: self.per_element]:
            path = [inner, "?_q", "?_m", ".", "?_m", prop, var, ".", var, "a", cls]
            for joined in self._joining(body, inner, path, ("?_q",)):
                if joined[1] in tokens:  # a new property between: `?h ont:nationality ?_m` again is no way on
                    continue
                new = [*tokens[: open_at + 1], *body, ".", *joined, *tokens[close_at:]]
                attempt, answer, _ = self._try(
                    new, f"{source}: one hop further by {prop}, through {joined[1]}", expected
                )
                rnd.attempts.append(attempt)
                if (
                    attempt.outcome == ANSWERED
                    and answer is not None
                    and not self._only_entities(answer, tokens)
                ):
                    return new, answer
        reaching = [  # from a thing of the class asked for: its director's films, not Kenosha's country's
            tokens[p]
            for s, p, o in triple_patterns(tokens, types)
            if tokens[o] == var and types[s] == TokenType.URI and self._holds([tokens[s], "a", cls])
        ]
        for prop in dict.fromkeys(reaching):  # "the movies by whoever directed blue velvet": its director's
            again = [var, prop, inner, ".", var, "a", cls]
            new = [*tokens[: open_at + 1], *body, ".", *again, *tokens[close_at:]]
            attempt, answer, _ = self._try(
                new, f"{source}: one hop further, to its answer by {prop} again", expected
            )
            rnd.attempts.append(attempt)
            if attempt.outcome == ANSWERED and answer is not None and not self._only_entities(answer, tokens):
                return new, answer
        return None

    def _verb_asked(self, said: Said) -> str | None:
        """The verb right after the word a question opens with ("What orbits the planet ...": orbits),
        a third person or a past; None when a noun or anything else follows."""
        words = said.text.split()
        verb = words[1] if len(words) > 1 and words[0] in ("what", "which", "who") else ""
        return verb if is_verb_form(verb, ("VBZ", "VBD")) else None

    def _verb_forms(self, prop: str) -> frozenset[str]:
        """The one-word names of a property whose label opens with a verb that are forms of that verb
        ("orbits": orbit, orbited; "founder": foundered, not "founded", a name it has as founder)."""
        assert self.index is not None
        label = (self.index.label(prop) or "").lower().split()
        if not label or not is_verb_form(label[0], ("VB", "VBZ", "VBD", "VBP")):
            return frozenset()
        forms = inflections(label[0], ("VERB",))
        return frozenset(n for n in self.index.names(prop) if " " not in n and n in forms)

    def answers_what_it_names(
        self, tokens: Sequence[str], answer: Answer, said: Said, units: Sequence[str], question: str
    ) -> bool:
        """Whether a SELECT answers only with entities the question names unambiguously (`named_entities`), not
        only by a place adjective, and the query does not use: a question does not ask for what it
        says ("Which Beatles are older than Paul McCartney?" answered by the band, `?x ont:bandMember
        res:Paul_McCartney`), unless it offers a choice ("Which is longer, the Nile or the Amazon?") or
        the query matches words as text ("industries with food in their names": Food). A place
        adjective names a language as well as the place ("What has Bulgarian as its official
        language?": Bulgaria)."""
        if tokens[:1] != ["select"] or "count" in tokens or re.search(r"\bor\b", question, re.I):
            return False
        if any(t.startswith('"') for t in tokens):  # it matches the question's words as text ("food")
            return False
        named = [
            u
            for u in self.named_entities(said, units)
            if u not in tokens and (said.names_in_full(u) or not said.place_words(u))
        ]
        return bool(named) and self._only_entities(answer, named)

    def _only_entities(self, answer: Answer, tokens: Collection[str]) -> bool:
        """Whether the answer has values and every one is an entity among `tokens`."""
        values = answer.cells()
        return bool(values) and all(
            value_kinds(v) == {"iri"} and token_of(v, self.prefixes) in tokens for v in values
        )

    def _unused_properties(self, tokens: Sequence[str], units: Sequence[str]) -> list[str]:
        """The properties among the question's units that the query does not use, up to `per_element`."""
        return [u for u in units if u not in tokens and self._kind(u) == "property"][: self.per_element]

    def _joined(
        self, tokens: list[str], units: Sequence[str], source: str, rnd: Round, expected: Expected
    ) -> tuple[list[str], Answer, Attempt] | None:
        """A query whose patterns fall apart (`?x a ont:ChemicalElement . res:Niels_Bohr ont:birthPlace
        ?y`: every element, whatever Bohr's birthplace) joined: its answer variable and a variable of
        the rest one thing ("the countries on the mekong": `?x a ont:Country . res:Mekong ont:flowsThrough
        ?y`, the things it flows through that are countries), else linked by a property of the question's
        units the query does not use, either way round ("Which element is named for Niels Bohr's
        birthplace?": `?x ont:namedAfter ?y`); the first that answers."""
        types = token_types(tokens, self.prefixes)
        parts, found = apart(tokens, types), braces(tokens)
        if parts is None or found is None:
            return None
        var, rest = parts
        close = found[1]
        props = self._unused_properties(tokens, units)
        for other in rest[:2]:
            same = [var if t == other else t for t in tokens]
            attempt, answer, _ = self._try(same, f"{source}: {other} read as {var}", expected)
            rnd.attempts.append(attempt)
            if attempt.outcome == ANSWERED and answer is not None:
                return same, answer, attempt
            for prop in props:
                for pattern in ([var, prop, other], [other, prop, var]):
                    new = [*tokens[:close], ".", *pattern, *tokens[close:]]
                    attempt, answer, _ = self._try(
                        new, f"{source}: {var} joined to {other} by {prop}", expected
                    )
                    rnd.attempts.append(attempt)
                    if attempt.outcome == ANSWERED and answer is not None:
                        return new, answer, attempt
        return None

    def _hop_back(
        self, tokens: list[str], source: str, rnd: Round, expected: Expected
    ) -> tuple[list[str], Answer, Attempt] | None:
        """A chain that goes there and back by one property taken one hop back ("Who wrote the poem
        The Raven?" decoded as `?x ont:author ?y . res:The_Raven ont:author ?y`: the other works of its
        author, not a who): the one pattern that reaches the answer variable from the variable between,
        by the property another pattern reaches that variable by, is dropped with the answer's classes,
        and that variable answers. Only for a SELECT of one variable and plain patterns; returned when it
        answers, or answers several things a superlative is to rank."""
        types = token_types(tokens, self.prefixes)
        var, found = answer_variable(tokens, types), braces(tokens)
        if (
            var is None
            or found is None
            or tokens[: found[0]] not in (["select", "distinct", var, "where"], ["select", var, "where"])
        ):
            return None
        open_at, close_at = found
        patterns = triple_patterns(tokens, types)
        if close_at - open_at != 4 * len(patterns) or tokens[close_at + 1 :]:
            return None  # more than plain patterns joined by "."
        reaching = [t for t in patterns if var in (tokens[t[0]], tokens[t[2]])]
        facts = [t for t in reaching if tokens[t[1]] != "a"]
        if len(facts) != 1 or len(reaching) == len(patterns):
            return None
        s, p, o = facts[0]
        inner, at = (tokens[o], 2) if tokens[s] == var else (tokens[s], 0)
        back = any(t[1] != p and tokens[t[1]] == tokens[p] and tokens[t[at]] == inner for t in patterns)
        if not inner.startswith("?") or inner == var or not back:
            return None
        kept = [[var if tokens[i] == inner else tokens[i] for i in t] for t in patterns if t not in reaching]
        body = [tok for k, triple in enumerate(kept) for tok in ([] if k == 0 else ["."]) + triple]
        new = [*tokens[: open_at + 1], *body, *tokens[close_at:]]
        attempt, answer, _ = self._try(new, f"{source}: its answer one hop back, at {inner}", expected)
        rnd.attempts.append(attempt)
        ranks = attempt.outcome == WRONG_KIND and expected.top  # several things a ranking may pick from
        return (
            (new, answer, attempt) if (attempt.outcome == ANSWERED or ranks) and answer is not None else None
        )

    # -- one question ----------------------------------------------------------------------------

    def placed(
        self, question: str, units: Sequence[str], said: Said, expected: Expected
    ) -> tuple[list[str], str] | None:
        """The query a question that places things by a measure or an order, or in a place, or that
        sets a topic, or asks for a property by an idiom, for a role of a place, a kind of a maker or
        where one thing is from, asks, read from it alone (`placed_between`, `role_of_place`,
        `kind_by_maker`, `origin_asked`, `kin_compared`, `placed_at`, `place_of`, `place_past_said`
        unless it asks how many, `topic_read`, `clause_read`, `dated_clause_read`, `idiom_read`),
        counted when it asks how many ("Name the planets between ..." is a list, though a count may answer
        it); None for a yes/no question or one that places nothing."""
        if expected.boolean:
            return None
        counted = expected == COUNT
        return (
            self.placed_between(question, units, said, counted)
            or self.role_of_place(units, said, counted)
            or self.kind_by_maker(units, said, counted)
            or (None if counted else self.origin_asked(units, said))
            or self.kin_compared(question, units, said, counted)
            or self.placed_at(question, units, said, False)
            or self.place_of(question, units, said)
            or (None if counted else self.place_past_said(units, said, self.asked_class(question, units)))
            or self.topic_read(question, units, expected)
            or self.clause_read(question, units, said, expected)
            or self.dated_clause_read(question, units, said, expected)
            or self.idiom_read(question, units, said, counted)
        )

    def _question_read(
        self, read: tuple[list[str], str], expected: Expected, rnd: Round, seen: set[tuple[str, ...]]
    ) -> Answer | None:
        """The answer of a query read from the question itself (with its note), tried before any
        hypothesis; None when it does not answer as the question asks."""
        query, note = read
        attempt, answer, _ = self._try(query, f"the question: {note}", expected)
        rnd.attempts.append(attempt)
        seen.add(tuple(query))
        return answer if attempt.outcome == ANSWERED else None

    def repair(
        self, hypotheses: Sequence[Sequence[str]], units: Sequence[str] = (), question: str = ""
    ) -> Repaired:
        """The first query of up to `max_rounds` rounds that answers (module docstring), with the rounds.

        `hypotheses`: the question's n-best query tokens, best first; `units`: the KB tokens of the
        model input (the linker's candidates), tried first as replacements; `question`: what the user
        asked, whose form says which kind of answer fits (empty: any).
        """
        if not hypotheses:
            raise ValueError("repair needs at least one hypothesis")
        first = Round(1, f"{len(hypotheses)} hypothesis(es) in order")
        rounds = [first]
        targets: list[_Target] = []
        seen: set[tuple[str, ...]] = set()
        fallback: tuple[list[str], Answer | None] | None = None
        # the first answer of the wrong kind, one of the form asked for (a list for "which book") first
        answered: tuple[list[str], Answer] | None = None
        # rewrites that answered with nothing of the class asked for, with their round
        kept: list[tuple[list[str], Answer, int]] = []
        # a rewrite of a ruled-out ASK that the KB's values allow and that is false: the answer "no" to a
        # yes/no question when no reading says yes and no query of the form asked for answers otherwise
        plain_no: tuple[list[str], Answer] | None = None
        expected = expected_of(question)
        said = Said(question, self.index) if question and self.index is not None else None
        asks_class = self.asked_class(question, units) if question else None
        linked_entity = any(self._kind(u) == "entity" for u in units)
        lacking = names_the_kb_lacks(question, self.index) if said is not None and not linked_entity else []
        if lacking:
            # "what instruments did Jimi Hendrix play": any answer would be about something else
            names = ", ".join(f"'{name}'" for name in lacking)
            return Repaired(
                list(hypotheses[0]),
                Answer("select", ("x",)),
                rounds,
                None,
                f"the KB has nothing named {names}",
            )
        choice = self.choice_between(question, units, said) if question else None
        if choice is not None and choice.lacking is not None:  # any answer would be a guess
            reason = f"{choice.note}, but the KB gives {choice.lacking} no value to choose by"
            return Repaired(choice.query, Answer("select", ("x",)), rounds, None, reason)
        if choice is not None:
            # "Is the Po or the Tiber the longer river": a choice asks for one of them, not a yes or no,
            # unless the question asks it of one ("Kinabalu vs Fuji - is Kinabalu the taller peak?")
            chosen = expected if choice.query[:1] == ["ask"] else THING if expected.boolean else expected
            answer = self._question_read((choice.query, choice.note), chosen, first, seen)
            if answer is not None:
                return Repaired(choice.query, answer, rounds, 1)
        placed = self.placed(question, units, said, expected) if said is not None else None
        answer = self._question_read(placed, expected, first, seen) if placed is not None else None
        if placed is not None and answer is not None:
            return Repaired(placed[0], answer, rounds, 1)
        if expected.boolean is not True and self.stated_of_two(question, said, units):
            expected = YES_NO
        two = self.two_named(hypotheses, question, said, units) if expected.boolean else None
        if two is None and expected.boolean and said is not None:
            two = self.span_of_named(question, said, units) or self.placed_at(question, units, said, True)
        answer = self._question_read(two, expected, first, seen) if two is not None else None
        if two is not None and answer is not None:
            return Repaired(two[0], answer, rounds, 1)
        nearest = asks_for_the_nearest(question)
        for n, hyp in self._named_first(hypotheses, said, units, asks_class):
            tokens, source = list(hyp), f"hypothesis {n}"
            if question:
                for rule in (
                    lambda t: self.measured_thing_asked(t, asks_class),
                    lambda t: self.measure_of_unit(t, question),
                    lambda t: turned_to_question(t, question, self.values_are_dates),
                    lambda t: self.shared_value(t, question, said, units),
                    lambda t: self.coordinated(t, question, said, units),
                    lambda t: self.members_asked(t, question, said, units),
                    lambda t: unasked_ranking_removed(t, question),
                    lambda t: self.bound_compared(t, question),
                    lambda t: self.unsaid_dangling_removed(t, said),
                    lambda t: self.subject_of_the_verb(t, said),
                    self.there_and_back_removed,
                    lambda t: unordered_limit_removed(t, question),
                    lambda t: unlimited_top(t, question),
                    lambda t: nearest_kept(t, token_types(t, self.prefixes), question) if nearest else None,
                    lambda t: unasked_comparison_made_equal(t, question),
                    lambda t: inclusive_bound(t, question),
                    lambda t: period_opened(t, question),
                    lambda t: self.span_compared(t, question),
                    lambda t: self.within_the_place(t, said),
                ):  # each reads what the one before it made
                    change = rule(tokens)
                    if change is not None:
                        tokens, source = change[0], f"{source}: {change[1]}"
                for compare in (
                    lambda t: self.measure_of_compared(t, question),
                    lambda t: self.value_compared(t, question),
                    lambda t: self.entity_as_value(t, question, units),
                    self.entity_compared,
                    lambda t: self.ask_compared(t, question, units),
                ):
                    compared = compare(tokens)
                    if compared is not None:
                        tokens, source = compared[0], f"{source}: {compared[1]}"
                united = self.compared_by_its_unit(tokens, question)
                if united is not None:
                    tokens, source = united[0], f"{source}: {united[1]}"
                retyped = self.typed_by_its_measure(tokens, said)
                if retyped is not None:
                    tokens, source = retyped[0], f"{source}: {retyped[1]}"
                graded = self.measure_of_graded_word(tokens, question, units, said)
                if graded is not None:
                    tokens, source = graded[0], f"{source}: {graded[1]}"
                dated = self.date_of_the_other(tokens, said, units, expected)
                if dated is not None:
                    tokens, source = dated[0], f"{source}: {dated[1]}"
                possessed = self.possessed_read(tokens, said, units)
                if possessed is not None:
                    tokens, source = possessed[0], f"{source}: {possessed[1]}"
                filled = self.named_fills_dangling(tokens, said, units)
                if filled is not None:
                    tokens, source = filled[0], f"{source}: {filled[1]}"
                valued = self.class_as_value_typed(tokens, said)
                if valued is not None:
                    tokens, source = valued[0], f"{source}: {valued[1]}"
                joined = self.ask_about_the_named(tokens)
                if joined is not None:
                    tokens, source = joined[0], f"{source}: {joined[1]}"
                placed = self.place_adjective_read(tokens, question, units, said)
                if placed is not None:
                    tokens, source = placed[0], f"{source}: {placed[1]}"
                counted_values = self.measure_not_counted(tokens) if expected.count else None
                if counted_values is not None:
                    tokens, source = counted_values[0], f"{source}: {counted_values[1]}"
                for unasked in (
                    lambda t, kinds, _: text_bound_removed(t, kinds),
                    unasked_filter_removed,
                    unasked_bound_removed,
                ):
                    unfiltered = (
                        unasked(tokens, token_types(tokens, self.prefixes), question)
                        if "filter" in tokens
                        else None
                    )
                    if unfiltered is not None:
                        tokens, source = unfiltered[0], f"{source}: {unfiltered[1]}"
                dangling = self.dangling_value_asked(tokens, said) if asks_class is None else None
                if dangling is not None:
                    tokens, source = dangling[0], f"{source}: {dangling[1]}"
                for dating in (self.dated_by_the_sibling, self.bound_left_out):
                    dated = dating(tokens, question, said)
                    if dated is not None:
                        tokens, source = dated[0], f"{source}: {dated[1]}"
            if tuple(tokens) in seen:
                continue
            seen.add(tuple(tokens))
            attempt, answer, unknown = self._try(tokens, source, expected)
            first.attempts.append(attempt)
            turned = self._turned(tokens) if answer is not None and answer.boolean is False else None
            if turned is not None and tuple(turned) not in seen:
                seen.add(tuple(turned))
                source = f"hypothesis {n}: subject and object turned to fit the KB's use of the property"
                attempt, answer, unknown = self._try(turned, source, expected)
                first.attempts.append(attempt)
                tokens = turned
            for alike, change in self.misplaced_named(tokens, said) if attempt.outcome == EMPTY else ():
                if tuple(alike) in seen:
                    continue
                seen.add(tuple(alike))
                checked, held, found = self._try(alike, f"hypothesis {n}: {change}", expected)
                first.attempts.append(checked)
                if checked.outcome == ANSWERED:
                    tokens, attempt, answer, unknown = alike, checked, held, found
                    break
            for alike, change in (
                [
                    *self.said_alike(tokens, said, units),
                    *self.entity_alike(tokens, said),
                    *self.linked_otherwise(tokens, units, said),
                    *self.member_of_named(tokens, said, units),
                ]
                if answer and answer.boolean is False
                else ()
            ):
                if tuple(alike) in seen:
                    continue
                seen.add(tuple(alike))
                checked, held, _ = self._try(alike, f"hypothesis {n}: {change}", expected)
                first.attempts.append(checked)
                if held is not None and held.boolean:
                    tokens, attempt, answer = alike, checked, held
                    break
                if (
                    plain_no is None
                    and held is not None
                    and checked.outcome == ANSWERED
                    and attempt.outcome != ANSWERED
                ):
                    plain_no = (alike, held)
            if fallback is None:
                fallback = (tokens, answer)
            settled = self._settled(tokens, answer, attempt, first, question, units, expected, said)
            if settled is not None:
                return Repaired(*settled, rounds, 1)
            if (
                attempt.outcome == WRONG_KIND
                and answer is not None
                and (answered is None or (not fits(expected, *answered) and fits(expected, tokens, answer)))
            ):
                answered = (tokens, answer)
            if attempt.outcome in (EMPTY, UNKNOWN_IRI, WRONG_KIND):
                targets.append(_Target(tokens, f"hypothesis {n}", unknown, attempt.outcome == WRONG_KIND))
        # After the model's own queries, each empty one's chains read the other way round (`_chain_swaps`),
        # and its named entity put in place of one the question names and it leaves out (`_named_swaps`),
        # kept when that gives the kind of answer asked for (an answer of another kind proves nothing).
        for target in targets:
            if target.wrong_kind or target.unknown:  # not an empty answer
                continue
            for swapped, change in [
                *self._chain_swaps(target.tokens),
                *self._named_swaps(target.tokens, said, units, question),
            ]:
                if tuple(swapped) in seen:
                    continue
                seen.add(tuple(swapped))
                attempt, answer, _ = self._try(swapped, f"{target.label}: {change}", expected)
                first.attempts.append(attempt)
                if attempt.outcome in (ANSWERED, EMPTY):  # empty: a ranking may find its things
                    settled = self._settled(swapped, answer, attempt, first, question, units, expected, said)
                    if settled is not None:
                        return Repaired(*settled, rounds, 1)
        compared = self._class_compared(asks_class, answered, units, question, said, first, expected)
        if compared is not None:
            return Repaired(*compared, rounds, 1)
        # A query of the form asked for (an ASK for "Was ...?") is repaired first: a rewrite of another
        # form answers with the wrong kind whatever it finds. Then an answer of the wrong kind, from a
        # query whose patterns the KB matches: nearer the question than an empty one (stable otherwise).
        targets.sort(
            key=lambda t: (
                expected.boolean is not None and (t.tokens[:1] == ["ask"]) != expected.boolean,
                not t.wrong_kind,
            )
        )
        passed: list[str] = []  # targets with nothing to rewrite: they do not use up a round
        while len(rounds) < self.max_rounds and targets:
            target = targets.pop(0)
            blamed = self._blame(target, question)
            if isinstance(blamed, str):
                passed.append(f"{target.label}: {blamed}")
                continue
            rnd = Round(len(rounds) + 1, target.label, notes=passed)
            passed = []
            rounds.append(rnd)
            outcome = self._repair_round(rnd, target, *blamed, units, expected, question, kept, said)
            if isinstance(outcome, tuple):
                return Repaired(*outcome, rounds, rnd.number)
            if outcome is not None:
                targets.insert(0, outcome)
        rounds[-1].notes += passed
        joined = self.class_joined_to_named(asks_class, said, units, expected == COUNT)
        label = f"the question: {joined[-2]} things joined to what it names" if joined is not None else ""
        alone = None  # "How many bands were formed in the 1960s?" when it names nothing: the class, dated
        if (
            joined is None
            and asks_class is not None
            and said is not None
            and not any(  # "Which novels Dickens wrote ...": a name within two names still names one
                self._kind(u) == "entity" and (said.names_whole(u) or said.part_words(u)) for u in units
            )
        ):
            alone = [*answer_head(expected == COUNT), "where", "{", "?x", "a", asks_class, "}"]
            label = f"the question: {asks_class} things"
        base = joined if joined is not None else alone
        dated = self.bound_left_out(base, question, said) if base is not None else None
        if dated is not None:  # "Austen novels that came out before 1815?": her novels, then dated
            joined, label = dated[0], f"{label}: {dated[1]}"
        if joined is not None and tuple(joined) not in seen:
            attempt, answer, _ = self._try(joined, label, expected)
            first.attempts.append(attempt)
            if attempt.outcome == ANSWERED and answer is not None:
                by_said = (  # "which city is the capital of Tanzania": its cities, then its capital
                    self._joined_by_said(joined, answer, said, question, units, label, first, expected)
                    if said is not None
                    else None
                )
                return Repaired(*(by_said or (joined, answer)), rounds, 1)
            ranked = (  # "Highest mountain in a country that uses the euro": the mountains, ranked
                self._ranked(joined, units, question, attempt.source, first, expected, said)
                if attempt.outcome == WRONG_KIND
                else None
            )
            if ranked is not None:
                return Repaired(*ranked, rounds, 1)
        if plain_no is not None and expected.boolean:
            first.notes.append("no reading says yes; a false ASK the KB's values allow says no")
            return Repaired(*plain_no, rounds, 1)
        if answered is not None or kept:
            tokens, answer, number = (*answered, 1) if answered is not None else kept[0]
            first.notes.append(f"no query gave {expected.name}: the first that answered is kept")
            return Repaired(tokens, answer, rounds, number)
        reason = (
            f"no answer within {self.max_rounds} round(s)"
            if targets
            else f"nothing left to try after {len(rounds)} round(s)"
        )
        assert fallback is not None
        tokens, answer = fallback
        best = first.attempts[0]
        if answer is None:  # what the best hypothesis answers without repair; a refused text is not sent
            sent = best.outcome == UNKNOWN_IRI
            answer = self._query(best.sparql) if sent else Answer.failed(f"{best.outcome}: {best.detail}")
        return Repaired(tokens, answer, rounds, None, reason)


def rounds_histogram(repairs: Sequence[Repaired]) -> dict[str, int]:
    """How many questions were answered in round 1, 2, ..., and how many gave up."""
    histogram = {str(n): 0 for n in range(1, MAX_ROUNDS + 1)}
    histogram["gave up"] = 0
    for r in repairs:
        histogram["gave up" if r.answered_in is None else str(r.answered_in)] += 1
    return histogram


def repair_all(
    kb: KnowledgeBase,
    prefixes: str | PrefixMap,
    nbest: Sequence[Sequence[Sequence[str]]],
    inputs: Sequence[str],
    rounds: int = MAX_ROUNDS,
    index: str | Path | None = None,
    progress: bool = True,
    questions: Sequence[str] | None = None,
) -> list[Repaired]:
    """Repair each question's n-best (`inputs`: the annotated texts the model read, whose units are the
    first replacements; `questions`: the questions as asked, whose form says the answer's kind), with
    the KB index file `index` when given (evaluate)."""
    pm = prefix_map(prefixes) if isinstance(prefixes, str) else prefixes
    kb_index = KBIndex.open(index) if index is not None else None
    try:
        repairer = Repairer(kb, pm, kb_index, rounds)
        asked = questions if questions is not None else [""] * len(inputs)
        items = tqdm(
            zip(nbest, inputs, asked), total=len(inputs), desc="repair", disable=not progress, unit="q"
        )
        return [repairer.repair(hyps, units(text), question) for hyps, text, question in items]
    finally:
        if kb_index is not None:
            kb_index.close()
