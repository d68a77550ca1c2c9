"""Things of a kind named after the one who made them, for repair (inference/repair.py).

A question may name things by a common noun that the KB holds as a value, not as a class (a genre:
"operas", "westerns", "war films"), after the name of the one who made them ("Mozart's operas", "sergio
leone westerns", "Hitchcok thrillers"). It asks for the things with that value (`?x ont:genre
res:Opera`) that the KB joins to the named one, by the property it most often joins such things to
it by (`?x ont:composer res:Wolfgang_Amadeus_Mozart`).
"""

from __future__ import annotations

from collections.abc import Sequence

from nmt_sparql.annotation.linking.index import misspelt, normalize
from nmt_sparql.annotation.linking.wordforms import any_plurals, head_plurals, is_common_noun, is_noun_lemma
from nmt_sparql.inference.expected_answer import asked_noun
from nmt_sparql.inference.kb_reading import answer_head
from nmt_sparql.inference.place_reading import PlaceReading
from nmt_sparql.inference.said import Said

# Words `kind_by_maker` reads of the noun phrase a question asks with: a maker's name of up to three
# words, a possessive, and a kind of up to two.
_NOUN_PHRASE = 6


class KindReading(PlaceReading):
    """Kinds of things read with their maker's name (see the module docstring)."""

    def kind_by_maker(self, units: Sequence[str], said: Said, counted: bool) -> tuple[list[str], str] | None:
        """The things a question that ends with a maker's name and the plural of a kind asks for ("Show
        me Mozart's operas", "kubrick's war films"): those with the kind's entity (a common noun, the
        value of the property most things hold it by) that the one named holds by one fact, as the KB
        most often joins such things to it, counted when the question asks how many. None unless one
        entity of the units is named so, by its label or by names within it, misspelt or not."""
        words = asked_noun(said.text, _NOUN_PHRASE)
        if len(words) < 2 or self.index is None or said.text.split()[-len(words) :] != words:
            return None  # the noun phrase must end the question: "Mozart's operas premiered where?" asks on
        entities = [u for u in dict.fromkeys(units) if self._kind(u) == "entity"]
        for kind in entities:
            at = self._said_last(kind, words)
            if at is None:
                continue
            named = words[: at - 1] if words[at - 1] == "s" else words[:at]  # "mozart s": a possessive
            holder = self._held_by(kind) if named else None
            if holder is None:
                continue
            linked = [
                (maker, made_by)
                for maker in entities
                if maker != kind and self._names(maker, named, said)
                for made_by in [self._made_by(holder, kind, maker)]
                if made_by is not None
            ]
            if len(linked) != 1:
                continue
            maker, made_by = linked[0]
            head = answer_head(counted)
            body = ["where", "{", "?x", holder, kind, ".", "?x", made_by, maker, "}"]
            return [*head, *body], f"{' '.join(words[at:])} ({kind}) of {maker} ('{' '.join(named)}')"
        return None

    def _said_last(self, kind: str, words: Sequence[str]) -> int | None:
        """Where the plural of the entity's label (a common noun: "war films") or of a short form of it
        (`_said_forms`), misspelt or not, starts when it ends `words` after at least one other word; None
        otherwise, or for a singular."""
        label = self.index.label(kind) if self.index is not None else None
        if not label or not is_common_noun(label):
            return None
        forms = self._said_forms(normalize(label))
        for plural in (p for _, plurals in forms for p in plurals):
            form = normalize(plural).split()
            at = len(words) - len(form)
            said = words[at:]
            if at >= 1 and all(map(misspelt, said, form)) and all(said != s.split() for s, _ in forms):
                return at  # the plural or a misspelling of it, not the singular ("Mozart's last opera")
        return None

    def _said_forms(self, label: str) -> list[tuple[str, list[str]]]:
        """(singular, its plurals) of the label ("war film"), and, when its last word is a class's label,
        of the label with that class's other one-word names in its place ("war movie") and of the words
        before it alone ("thriller" for "thriller film"): the kind named as people shorten it."""
        *rest, head = label.split()
        forms = [(label, head_plurals(label))]
        classes = self.index.exact(head, ("class",)) if rest and self.index is not None else []
        if len(classes) != 1 or normalize(classes[0].label) != head:
            return forms
        names = [n for n in self.index.names(classes[0].token) if n != head and is_noun_lemma(n)]
        forms += [(s, head_plurals(s)) for s in (" ".join([*rest, n]) for n in names)]
        return [*forms, (" ".join(rest), any_plurals(" ".join(rest)))]

    def _names(self, maker: str, named: Sequence[str], said: Said) -> bool:
        """Whether each of the words names the entity, within its label (a proper name, not a common
        noun): "sergio leone", "mozart", "hitchcok"."""
        label = self.index.label(maker) if self.index is not None else None
        if not label or is_common_noun(label):
            return False
        return set(named) <= said.part_words(maker)

    def _made_by(self, holder: str, kind: str, maker: str) -> str | None:
        """The one property that joins most things holding the kind (by `holder`) to the maker; None when
        the KB joins none so by one fact."""
        link = self._place_link("?x", (holder, kind), maker)
        return link[1] if link is not None and len(link) == 3 else None
