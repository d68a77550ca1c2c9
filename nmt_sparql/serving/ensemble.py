"""Several exported models answer each question, and the answer most of them give is returned.

Models trained alike with other seeds answer different questions wrong (BENCHMARKS.md, "Session 45"):
one run's blind figure is partly luck. Members vote by the answer their query gets on the KB, not by
tokens, so any exports over one KB can be combined (other seeds, architectures, tokenizations,
annotations). Each member translates (and repairs) a question as it would alone; the answer with the
most votes wins, and a tie goes to the member listed first, so list the one best on validation first.
An empty or failed answer does not vote. Members are asked in order, and a question leaves once the
members still to ask could no longer change its winner: three members that mostly agree cost about
two translations, not three.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from nmt_sparql.execution.answer import Answer
from nmt_sparql.serving.translator import Translation, Translator
from nmt_sparql.sparql.prefixes import PrefixMap


def vote(answers: Sequence[dict[str, Any] | None]) -> tuple[int, int]:
    """(index of the chosen answer, its votes): the non-empty answer most of `answers` give, the first
    of them among ties; index 0 with no vote when none answers."""
    keys, counts = _tally(answers)
    if not counts:
        return 0, 0
    most = max(counts.values())
    chosen = next(i for i, key in enumerate(keys) if key is not None and counts[key] == most)
    return chosen, most


def decided(answers: Sequence[dict[str, Any] | None], remaining: int) -> bool:
    """Whether `remaining` more answers could not change the vote's winner: its lead over every other
    answer is larger than they could add."""
    ranked = [n for _, n in _tally(answers)[1].most_common(2)] + [0, 0]
    return ranked[0] > ranked[1] + remaining


def _tally(answers: Sequence[dict[str, Any] | None]) -> tuple[list[Any], Counter[Any]]:
    """Each answer's vote key (None: no vote) and the votes of each key."""
    keys = [_key(answer) for answer in answers]
    return keys, Counter(key for key in keys if key is not None)


def _key(answer: dict[str, Any] | None) -> tuple[Any, ...] | None:
    """What two members must agree on: the answer's kind and value set (the answer metric's view)."""
    if answer is None:
        return None
    parsed = Answer.from_json(answer)
    if not parsed.ok or parsed.is_empty():
        return None
    return parsed.kind, parsed.boolean, frozenset(parsed.values())


class Ensemble:
    """Exports that answer together over one KB: `translate` as `Translator.translate`, with answers."""

    def __init__(self, members: Sequence[Translator]):
        if len(members) < 2:
            raise ValueError(f"an ensemble needs two exports or more, got {len(members)}")
        if members[0].kb is None:
            raise ValueError("an ensemble votes by answer: give it a KB (kb=...)")
        self.members = list(members)
        self.kb = members[0].kb
        for member in self.members[1:]:
            if member.kb is not None and member.kb is not self.kb:
                member.kb.close()
            member.kb = self.kb  # one store for all: members read, never write

    @property
    def prefixes(self) -> PrefixMap:
        """The first member's prefixes: a question's «units» are checked against them."""
        return self.members[0].prefixes

    @property
    def name(self) -> str:
        """The members' model names, in the order they are asked."""
        return "+".join(member.name for member in self.members)

    @property
    def scheme(self) -> str:
        """The members' annotation schemes, one name when they all read questions alike."""
        return "+".join(dict.fromkeys(member.scheme for member in self.members))

    def explain(self, sparql: str) -> str:
        """The query in plain English, IRIs named by the first member's KB index (all are over one KB)."""
        return self.members[0].explain(sparql)

    @classmethod
    def from_command(cls, cfg: Mapping[str, Any]) -> Ensemble:
        """The members a command config lists in `export` (the first opens the KB the others share)."""
        members: list[Translator] = []
        try:
            for path in cfg["export"]:
                members.append(
                    Translator.from_command({**cfg, "export": path, "kb": None if members else cfg["kb"]})
                )
            return cls(members)
        except BaseException:
            for member in members:
                member.close()
            raise

    def translate(
        self,
        questions: Sequence[str],
        beam: int | None = None,
        annotate: bool = True,
        answers: bool = True,
        max_len: int | None = None,
        explain: bool = False,
        repair: bool = False,
    ) -> list[Translation]:
        """For each question, the translation (executed) whose answer most members give, with
        `ensemble`: the member chosen, its votes and how many members were asked (`decided`). Answers
        are always given."""
        del answers  # the vote needs them
        found: list[list[Translation]] = [[] for _ in questions]
        pending = list(range(len(questions)))
        for asked, member in enumerate(self.members, start=1):
            results = member.translate(
                [questions[i] for i in pending], beam=beam, annotate=annotate, answers=True, max_len=max_len,
                repair=repair,
            )  # fmt: skip
            for i, result in zip(pending, results, strict=True):
                found[i].append(result)
            remaining = len(self.members) - asked
            pending = [i for i in pending if not decided([r.answer for r in found[i]], remaining)]
            if not pending:
                break
        chosen = []
        for candidates in found:
            index, votes = vote([c.answer for c in candidates])
            result = candidates[index]
            result.ensemble = {
                "member": index, "votes": votes, "asked": len(candidates), "members": len(self.members)
            }  # fmt: skip
            if explain:
                result.explanation = self.members[index].explain(result.sparql)
            chosen.append(result)
        return chosen

    def close(self) -> None:
        self.members[0].close()
        for member in self.members[1:]:
            member.kb = None
            member.close()
