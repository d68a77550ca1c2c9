"""The gold side of repair's question rules: on gold queries they must change nothing.

Repair (nmt_sparql/inference/repair.py) reads the question: the kind of answer it asks for
(inference/expected_answer.py; for "who", the classes training's answers have; no answer that is only
entities the query names, nor only entities the question names and the query does not; every pattern
joined to the answer variable and every variable an ORDER BY or FILTER reads bound, sparql/patterns.py), the direction of its superlative or comparative and whether it
asks for a ranking or a comparison at all (inference/asked_order.py), a number it compares with that a
pattern takes as its value, a value compared with an entity rather than its value, the measure a unit
names ("the most people": population), the one measure of an entity that a compared value read by no
measure stands for, a count of a measure's values, a value no other part of the
query reads (asked for when the question says its property, dropped when it does not), the class its
opening words name, a
property it says that the query leaves out (one hop further, or joining its answers to an entity the
query names or put between them, among the linker's candidates), an entity
it names that the query leaves out, by its label or a name within it (the answers restricted to it), a
class it names that the query leaves out (a variable between typed by it), a property it says that a
ranking leaves out (the ranked answers restricted to those that have it), a comparison it asks for that
the query leaves out (a filter added, to a SELECT, a COUNT or an ASK that reads the value; a period it
names; an entity taken as a measured value compared by its own), and whether an ASK's "no" comes from a
pattern the KB's values of its property rule out, or is a "yes" by a property the question says alike, by
an entity named alike that can take the place of one that cannot, or by the property that links two ends
that the query's property never takes; a place adjective before the class asked for read as the place,
a class as the value of a property the question says read as one of its members, an ASK part that names
nothing asked of the entity, a choice between two named entities ranked by the measure asked (its answer
must be the gold one), a yes/no question about two named entities read as whether the KB links them or
as their values compared (its answer must be the gold one), an entity read through a property the
question says of it, a measure the graded word grades, the measure a unit after a compared number
names and the class whose things have a said measure, a date of the other entity named, a measure's
value given way to the things asked for, answers restricted to values of a property the question names
them by, a range the question names by its two ends (a FILTER made it), of one named entity (its answer must
be the gold one), a bound said beside a variable reading the same measure, a bound, period or year left
out, an entity named and left out of an ASK (joined, its answer must be the gold one), things
placed between or beyond named ones by a measure or compared with one linked as they are, the place an
ordinal names in an order, the thing of the class asked for that a said place lies in, and the fact asked
of a topic's thing or of a thing a relative clause names, things of a kind named after their maker,
and where one named thing is from (their answers must be the gold one), an answer
that is the thing the question talks of taken one hop further, a place named by its people read as people
of its nationality (it must not answer), the answer turned to the subject of the verb the question asks
with, two hops by one property the KB holds both ways made one, and an answer untyped when the question asks for two classes (its
answer must be the gold one), two things asked to have the same value, a fact of two things named side by
side read of each, and a question asking of some of a named thing's members (their answers must be the gold
one). A rule that would reject
or rewrite a *gold* query is a rule that breaks right answers. This script runs each rule on every gold
query of a prepared dataset (and any JSONL files of {question, query}) against its KB and counts the
gold queries each rule would change: all counts should be 0.

    python scripts/check_repair_rules.py --data data/bundled/linked --kb embedded:bundled \\
        --extra benchmarks/natural_questions.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from nmt_sparql.annotation.annotator import Annotator
from nmt_sparql.annotation.linking.index import KBIndex
from nmt_sparql.annotation.units import units as units_of
from nmt_sparql.inference.asked_order import (
    nearest_kept,
    text_bound_removed,
    turned_to_question,
    unasked_bound_removed,
    unasked_comparison_made_equal,
    unasked_filter_removed,
    unasked_ranking_removed,
    unlimited_top,
    unordered_limit_removed,
)
from nmt_sparql.inference.expected_answer import YES_NO, fits
from nmt_sparql.inference.kb import open_kb
from nmt_sparql.inference.kb_reading import typed_by
from nmt_sparql.inference.repair import Repairer, Round, expected_of
from nmt_sparql.inference.said import Said
from nmt_sparql.sparql.patterns import falls_apart, reads_unbound
from nmt_sparql.sparql.prefixes import prefix_map
from nmt_sparql.sparql.tokens import detokenize, token_types, tokenize


def records(data: Path, extra: list[Path]) -> list[tuple[str, dict]]:
    out = []
    for split in ("train", "validation", "test"):
        path = data / f"{split}.jsonl"
        if path.is_file():
            out += [(split, json.loads(line)) for line in path.open(encoding="utf-8")]
    for path in extra:
        out += [(path.name, json.loads(line)) for line in path.open(encoding="utf-8")]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, required=True, help="a prepared dataset folder (train/validation/test.jsonl)"
    )
    parser.add_argument("--kb", default="embedded:bundled", help="the KB the gold queries run on")
    parser.add_argument("--prefixes", default="bundled", help="the KB's prefix map (dataset.kb)")
    parser.add_argument("--index", type=Path, help="KB index file (default: the index-*.sqlite in --data)")
    parser.add_argument("--extra", type=Path, nargs="*", default=[], help="JSONL files of {question, query}")
    parser.add_argument("--show", type=int, default=5, help="examples shown per rule")
    args = parser.parse_args()

    index_path = args.index or next(iter(sorted(args.data.glob("index-*.sqlite"))), None)
    kb = open_kb(args.kb, args.prefixes)
    assert kb is not None
    pm = prefix_map(args.prefixes)
    index = KBIndex.open(index_path) if index_path else None
    repairer = Repairer(kb, pm, index)
    annotator = Annotator.open("linked", index_path, None, 0) if index_path else None
    changed: dict[str, list[str]] = {
        "expected kind": [],
        "joined to the answer": [],
        "answers itself": [],
        "answers what it names": [],
        "order or comparison": [],
        "ranking": [],
        "value compared": [],
        "measure of a compared value": [],
        "entity compared": [],
        "measure counted": [],
        "unit's measure": [],
        "value left unread": [],
        "unread and unsaid": [],
        "class": [],
        "said but left out": [],
        "said and joined": [],
        "named but left out": [],
        "comparison left out": [],
        "ruled out": [],
        "said alike": [],
        "ask of the named": [],
        "class as a value": [],
        "place adjective": [],
        "choice between two": [],
        "named fills a variable": [],
        "ask compared": [],
        "two named": [],
        "read through its property": [],
        "graded measure": [],
        "unit after a number": [],
        "class of the measure": [],
        "date of the other": [],
        "dated by the sibling": [],
        "measured thing": [],
        "values of a property": [],
        "range of two ends": [],
        "bound compared": [],
        "bound left out": [],
        "range of one named": [],
        "named left out of an ask": [],
        "placed by a measure": [],  # or by an order, in a place, or as a topic, the question not yes/no
        "ordinal place": [],  # of a yes/no question
        "past the thing talked of": [],
        "people of a place": [],
        "two classes asked": [],
        "same value": [],
        "named side by side": [],
        "members asked": [],
        "verb's subject": [],
        "there and back": [],
    }
    checked = {key: 0 for key in changed}
    for source, record in records(args.data, args.extra):
        question, tokens = record["question"], tokenize(record["query"], pm)
        sparql = detokenize(tokens, pm)
        answer = kb.query(sparql)
        if not answer.ok or answer.is_empty():
            continue  # gold answers that are empty are discarded by the metrics too
        where = f"{source}: {question} | {record['query'].split('> ')[-1]}"
        checked["expected kind"] += 1
        expected = expected_of(question)
        if annotator is not None and expected.boolean is not True and question.rstrip().endswith("?"):
            said_first = Said(question, index)  # a statement about two named entities asked as a question
            if repairer.stated_of_two(question, said_first, units_of(annotator.question(question))):
                expected = YES_NO
        if not fits(expected, tokens, answer) or not repairer.of_answering_classes(answer, expected):
            changed["expected kind"].append(where)
        checked["joined to the answer"] += 1
        if falls_apart(tokens, token_types(tokens, pm)) or reads_unbound(tokens, token_types(tokens, pm)):
            changed["joined to the answer"].append(where)
        checked["answers itself"] += 1
        if repairer.answers_itself(tokens, token_types(tokens, pm), answer):
            changed["answers itself"].append(where)
        if "order" in tokens or "filter" in tokens:
            checked["order or comparison"] += 1
            if turned_to_question(
                tokens, question, repairer.values_are_dates
            ) is not None or repairer.orders_by_no_measure(tokens, question):
                changed["order or comparison"].append(where)
        if answer.boolean is False:  # a "no" stands unless its pattern is one the KB rules out
            checked["ruled out"] += 1
            if repairer.ruled_out(tokens, token_types(tokens, pm)):
                changed["ruled out"].append(where)
        checked["ranking"] += 1
        if (
            any(
                rule(tokens, question) is not None
                for rule in (
                    unasked_ranking_removed,
                    unordered_limit_removed,
                    unlimited_top,
                    unasked_comparison_made_equal,
                )
            )
            or unasked_filter_removed(tokens, token_types(tokens, pm), question) is not None
            or unasked_bound_removed(tokens, token_types(tokens, pm), question) is not None
            or text_bound_removed(tokens, token_types(tokens, pm)) is not None
            or nearest_kept(tokens, token_types(tokens, pm), question) is not None
        ):
            changed["ranking"].append(where)
        checked["value compared"] += 1
        if repairer.value_compared(tokens, question) is not None:
            changed["value compared"].append(where)
        checked["measure of a compared value"] += 1
        if repairer.measure_of_compared(tokens, question) is not None:
            changed["measure of a compared value"].append(where)
        checked["entity compared"] += 1
        if repairer.entity_compared(tokens) is not None:
            changed["entity compared"].append(where)
        checked["ask of the named"] += 1
        if repairer.ask_about_the_named(tokens) is not None:
            changed["ask of the named"].append(where)
        checked["unit's measure"] += 1
        if repairer.measure_of_unit(tokens, question) is not None:
            changed["unit's measure"].append(where)
        checked["measure counted"] += 1  # rewritten to its values, or the wrong kind (years)
        if repairer.counted_measure(tokens) is not None:
            changed["measure counted"].append(where)
        units = [t for t in tokens if ":" in t and not t.startswith(("?", '"'))]  # the gold query's elements
        cls = repairer.asked_class(question, units)
        checked["value left unread"] += 1
        said = Said(question, index) if index is not None else None
        if cls is None and repairer.dangling_value_asked(tokens, said) is not None:
            changed["value left unread"].append(where)
        checked["unread and unsaid"] += 1
        if repairer.unsaid_dangling_removed(tokens, said) is not None:
            changed["unread and unsaid"].append(where)
        if cls is not None:
            checked["class"] += 1
            typed = typed_by(tokens, cls, pm)
            again = kb.query(detokenize(typed, pm)) if typed is not None else answer
            if not again.ok or sorted(map(str, again.rows)) != sorted(map(str, answer.rows)):
                changed["class"].append(where)
        if annotator is not None:  # the linker's candidates, as the model reads them
            checked["said but left out"] += 1
            linked = units_of(annotator.question(question))
            if repairer.said_hop(tokens, question, linked) is not None:
                changed["said but left out"].append(where)
            checked["said and joined"] += 1
            if repairer.said_joined(tokens, answer, question, linked) is not None:
                changed["said and joined"].append(where)
            checked["class as a value"] += 1
            said_linked = Said(question, index)
            if repairer.class_as_value_typed(tokens, said_linked) is not None:
                changed["class as a value"].append(where)
            checked["place adjective"] += 1
            if repairer.place_adjective_read(tokens, question, linked, said_linked) is not None:
                changed["place adjective"].append(where)
            checked["named fills a variable"] += 1
            if repairer.named_fills_dangling(tokens, said_linked, linked) is not None:
                changed["named fills a variable"].append(where)
            checked["ask compared"] += 1
            if repairer.ask_compared(tokens, question, linked) is not None:
                changed["ask compared"].append(where)
            checked["answers what it names"] += 1
            if repairer.answers_what_it_names(tokens, answer, said_linked, linked, question):
                changed["answers what it names"].append(where)
            chosen = repairer.choice_between(question, linked)
            if chosen is not None:  # its answer must be the gold one, and it must not give up
                checked["choice between two"] += 1
                again = kb.query(detokenize(chosen.query, pm))
                if (
                    chosen.lacking is not None
                    or not again.ok
                    or sorted(map(str, again.rows)) != sorted(map(str, answer.rows))
                ):
                    changed["choice between two"].append(where)
            checked["named but left out"] += 1
            if (
                repairer.named_left_out(tokens, question, linked) is not None
                or repairer.class_left_out(tokens, question, linked) is not None
            ):
                changed["named but left out"].append(where)
            if answer.boolean is False:  # a "no" stands unless a property the question says alike holds
                checked["said alike"] += 1
                said = Said(question, index)
                others = [
                    *repairer.said_alike(tokens, said, linked),
                    *repairer.entity_alike(tokens, said),
                    *repairer.linked_otherwise(tokens, linked, said),
                    *repairer.member_of_named(tokens, said, linked),
                ]
                if any(kb.query(detokenize(alike, pm)).boolean for alike, _ in others):
                    changed["said alike"].append(where)
            checked["two named"] += 1  # a yes/no read of two named entities gives the gold answer
            yes_no = expected.boolean or repairer.stated_of_two(question, said_linked, linked)
            two = repairer.two_named([tokens], question, said_linked, linked) if yes_no else None
            if two is not None and kb.query(detokenize(two[0], pm)).boolean != answer.boolean:
                changed["two named"].append(where)
            checked["read through its property"] += 1
            if repairer.possessed_read(tokens, said_linked, linked) is not None:
                changed["read through its property"].append(where)
            checked["graded measure"] += 1
            if repairer.measure_of_graded_word(tokens, question, linked, said_linked) is not None:
                changed["graded measure"].append(where)
            checked["unit after a number"] += 1
            if repairer.compared_by_its_unit(tokens, question) is not None:
                changed["unit after a number"].append(where)
            checked["class of the measure"] += 1
            if repairer.typed_by_its_measure(tokens, said_linked) is not None:
                changed["class of the measure"].append(where)
            checked["date of the other"] += 1
            if repairer.date_of_the_other(tokens, said_linked, linked, expected) is not None:
                changed["date of the other"].append(where)
            checked["dated by the sibling"] += 1
            if repairer.dated_by_the_sibling(tokens, question, said_linked) is not None:
                changed["dated by the sibling"].append(where)
            checked["measured thing"] += 1
            if repairer.measured_thing_asked(tokens, repairer.asked_class(question, linked)) is not None:
                changed["measured thing"].append(where)
            checked["values of a property"] += 1
            if (
                repairer.asked_as_values(
                    tokens, answer, said_linked, linked, "query", Round(1, "check"), expected
                )
                is not None
            ):
                changed["values of a property"].append(where)
            checked["verb's subject"] += 1
            if repairer.subject_of_the_verb(tokens, said_linked) is not None:
                changed["verb's subject"].append(where)
            checked["there and back"] += 1
            if repairer.there_and_back_removed(tokens) is not None:
                changed["there and back"].append(where)
            checked["range of two ends"] += 1
            if repairer.span_compared(tokens, question) is not None:
                changed["range of two ends"].append(where)
            checked["bound compared"] += 1
            if repairer.bound_compared(tokens, question) is not None:
                changed["bound compared"].append(where)
            checked["bound left out"] += 1
            if repairer.bound_left_out(tokens, question, said_linked) is not None:
                changed["bound left out"].append(where)
            spanned = repairer.span_of_named(question, said_linked, linked) if expected.boolean else None
            if spanned is not None:  # its answer must be the gold one
                checked["range of one named"] += 1
                if kb.query(detokenize(spanned[0], pm)).boolean != answer.boolean:
                    changed["range of one named"].append(where)
            joined = repairer.named_left_out_of_ask(tokens, said_linked, linked) if answer.boolean else None
            if joined is not None:  # its answer must be the gold one
                checked["named left out of an ask"] += 1
                if not kb.query(detokenize(joined[0], pm)).boolean:
                    changed["named left out of an ask"].append(where)
            checked["people of a place"] += 1  # read as people of a nationality, it must not answer
            people = repairer.people_of_place(tokens, said_linked)
            if people is not None and not kb.query(detokenize(people[0], pm)).is_empty():
                changed["people of a place"].append(where)
            untyped = repairer.untyped_for_two(tokens, question, linked)
            if untyped is not None:  # its answer must be the gold one
                checked["two classes asked"] += 1
                again = kb.query(detokenize(untyped, pm))
                if not again.ok or sorted(map(str, again.rows)) != sorted(map(str, answer.rows)):
                    changed["two classes asked"].append(where)
            placed = repairer.placed(question, linked, said_linked, expected)
            ordinal = repairer.placed_at(question, linked, said_linked, True) if expected.boolean else None
            for key, made in (
                ("placed by a measure", placed),
                ("ordinal place", ordinal),
                ("same value", repairer.shared_value(tokens, question, said_linked, linked)),
                ("named side by side", repairer.coordinated(tokens, question, said_linked, linked)),
                ("members asked", repairer.members_asked(tokens, question, said_linked, linked)),
            ):
                if made is None:
                    continue
                checked[key] += 1  # its answer must be the gold one
                again = kb.query(detokenize(made[0], pm))
                rows = sorted(map(str, again.rows)) == sorted(map(str, answer.rows))
                if not again.ok or (again.boolean != answer.boolean if answer.kind == "ask" else not rows):
                    changed[key].append(where)
            checked["past the thing talked of"] += 1
            if (
                repairer.past_the_thing_talked_of(
                    tokens, answer, question, linked, "query", Round(1, "check"), expected
                )
                is not None
            ):
                changed["past the thing talked of"].append(where)
            checked["comparison left out"] += 1
            if (
                repairer.comparison_left_out(tokens, question, linked) is not None
                or repairer.ask_compared(tokens, question, linked) is not None
                or repairer.entity_as_value(tokens, question, linked) is not None
            ):
                changed["comparison left out"].append(where)
    for rule, found in changed.items():
        print(f"{rule:22s} gold queries checked {checked[rule]:6d}   changed {len(found)}")
        for line in found[: args.show]:
            print(f"    {line}")


if __name__ == "__main__":
    main()
