"""A SPARQL query in plain English, with KB labels for its IRIs: what a user reads to check a query.

The explanation is built from rdflib's algebra of the query (the parser `validate.py` trusts), so
every query rdflib parses gets one: the forms the datasets use (SELECT/ASK/COUNT, DISTINCT, triple
patterns, `a` classes, FILTER, ORDER BY + LIMIT superlatives, OFFSET, UNION, OPTIONAL, MINUS,
GROUP BY/HAVING, BIND, VALUES, sub-queries, property paths, Wikidata statements and qualifiers) are
phrased as English, and any other expression falls back to its function name with its arguments.

The answer variable is the head of a noun phrase built from the triples around it ("every film whose
director is Ridley Scott"); a variable's noun is its class (`a dbo:Film`, `wdt:P31 wd:Q11424`), a
Wikidata statement's property, or its own name. What the phrase cannot hold (filters, unions,
optional parts, triples not connected to the answer) follows as conditions.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from rdflib import BNode, Literal, URIRef, Variable
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, Path, SequencePath
from rdflib.plugins.sparql.algebra import translateGroupGraphPattern, translateQuery
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue

from nmt_sparql.annotation.labels import local_name_label, read_label_file
from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map
from nmt_sparql.sparql.tokens import RDF_TYPE
from nmt_sparql.sparql.validate import standard_text, with_declarations

TokenLabel = Callable[[str], "str | None"]

_XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMERIC = {
    f"{_XSD}{t}" for t in ("integer", "decimal", "double", "float", "int", "long", "nonNegativeInteger")
}
_RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
_WIKIDATA_ID = re.compile(r"^[QP]\d+$")
_WIKIDATA_INSTANCE_OF = "P31"
_SUBCLASS = {"wdt:P279", "rdfs:subClassOf"}
# Variable names that say nothing about what they hold: their noun is "thing" (or "value").
_GENERIC_NAME = re.compile(
    r"^_*(?:[a-z]|uri|sbj|sub|subj|obj|ans|answer|answers|value|result|res|ent|item|than|other"
    r"|num|number|string|count|val|var)"
    r"(?:_?\d+)?$",
    re.IGNORECASE,
)
# `?sbj_label`: a generic prefix before the word that names the variable.
_GENERIC_PREFIX = re.compile(r"^(?:sbj|sub|subj|obj|ans|answer|ent|item|x|s|o)_(?=[A-Za-z])", re.IGNORECASE)
_PREPOSITION_END = re.compile(r"\b(?:of|in|by|for|to|at|on|from|with|as|into|than)$", re.IGNORECASE)
_VERB_START = re.compile(r"^(?:is|has|had|was|were|are|does|did|can)\b", re.IGNORECASE)
_LANGUAGES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "ru": "Russian", "nl": "Dutch", "tr": "Turkish", "zh": "Chinese", "ja": "Japanese", "ar": "Arabic",
    "pl": "Polish", "sv": "Swedish", "fa": "Persian", "hi": "Hindi", "ro": "Romanian", "uk": "Ukrainian",
}  # fmt: skip
_COMPARISON = {
    "=": "is",
    "!=": "is not",
    "<": "is less than",
    ">": "is greater than",
    "<=": "is at most",
    ">=": "is at least",
}
_AGGREGATE_WORDS = {
    "Aggregate_Sum": "the total",
    "Aggregate_Avg": "the average",
    "Aggregate_Min": "the smallest",
    "Aggregate_Max": "the largest",
    "Aggregate_GroupConcat": "the list of",
}
_UNARY_WORDS = {
    "Builtin_YEAR": "the year of",
    "Builtin_MONTH": "the month of",
    "Builtin_DAY": "the day of",
    "Builtin_HOURS": "the hour of",
    "Builtin_STRLEN": "the length of",
    "Builtin_LANG": "the language of",
    "Builtin_DATATYPE": "the datatype of",
    "Builtin_ABS": "the absolute value of",
    "Builtin_ROUND": "the rounded",
    "Builtin_CEIL": "the ceiling of",
    "Builtin_FLOOR": "the floor of",
}
_TESTS = {
    "Builtin_isIRI": "is an IRI",
    "Builtin_isURI": "is an IRI",
    "Builtin_isBLANK": "is a blank node",
    "Builtin_isLITERAL": "is a literal",
    "Builtin_isNUMERIC": "is a number",
    "Builtin_BOUND": "is known",
}
_STRING_TESTS = {
    "Builtin_CONTAINS": "contains",
    "Builtin_STRSTARTS": "starts with",
    "Builtin_STRENDS": "ends with",
}


class ExplainError(ValueError):
    """A query that cannot be explained because it does not parse; the message quotes the parser."""


class TermLabels:
    """The words for an IRI: a KB index's label, a label file's, else its readable local name.

    Wikidata ids keep their id next to the label ("Ridley Scott (Q56005)") so a user can look them
    up; a statement property (`p:P39`, `pq:P580`) takes the label of its id.
    """

    def __init__(
        self, kb: str | PrefixMap = "dbpedia", index: Any = None, label_files: Iterable[str] = ()
    ) -> None:
        self.prefixes = prefix_map(kb) if isinstance(kb, str) else kb
        self.index = index
        self.files: dict[str, str] = {}
        for path in label_files:
            self.files.update(read_label_file(path))

    def token(self, iri: str) -> str:
        """The model token of an IRI (`dbr:X`), as the KB index and label files key it."""
        found = self.prefixes.compact(iri)
        if found is None or not re.match(r"^[A-Za-z][\w\-]*$", found[0]):
            return f"<{iri}>"
        return f"{found[0]}:{found[1]}"

    def known(self, iri: str) -> str | None:
        """The label a source gives for `iri`, None when no source knows it."""
        token = self.token(iri)
        local = token.split(":", 1)[1] if ":" in token and not token.startswith("<") else ""
        keys = [token]
        if _WIKIDATA_ID.match(local):
            keys += [local, f"wd:{local}", f"wdt:{local}"]
        for key in keys:
            label = self.index.label(key) if self.index is not None else None
            if label:
                return label
            if key in self.files:
                return self.files[key]
        return None

    def __call__(self, iri: str) -> str:
        token = self.token(iri)
        local = token.split(":", 1)[1] if ":" in token and not token.startswith("<") else ""
        label = self.known(iri)
        if _WIKIDATA_ID.match(local):
            return f"{label} ({local})" if label else local
        return label or local_name_label(token) or iri

    def bare(self, iri: str) -> str:
        """The label without a Wikidata id: the words of a property or class inside a phrase."""
        label = self.known(iri)
        if label:
            return label
        token = self.token(iri)
        return local_name_label(token) or iri


def parse(query: str, kb: str | PrefixMap = "dbpedia") -> CompValue:
    """rdflib's algebra of a query (KB prefixes declared, Virtuoso's COUNT shorthand made standard)."""
    if not isinstance(query, str) or not query.strip():
        raise ExplainError("empty query: nothing to explain")
    pm = prefix_map(kb) if isinstance(kb, str) else kb
    try:
        return translateQuery(parseQuery(with_declarations(standard_text(query), pm))).algebra
    except Exception as err:  # rdflib raises pyparsing and its own exceptions alike
        raise ExplainError(f"the query does not parse, so it cannot be explained: {err}") from None


def explain(query: str, kb: str | PrefixMap = "dbpedia", labels: TermLabels | None = None) -> str:
    """One English sentence (or a few) saying what `query` asks; `ExplainError` if it does not parse."""
    pm = prefix_map(kb) if isinstance(kb, str) else kb
    algebra = parse(query, pm)
    try:
        return _Explainer(labels or TermLabels(pm)).query(algebra)
    except RecursionError:
        raise ExplainError("the query is nested too deeply to explain") from None


def _plural(noun: str) -> str:
    head, _, rest = noun.partition(" (")
    words = head.split(" ")
    last = words[-1]
    if re.search(r"(?:s|x|z|ch|sh)$", last):
        last += "es"
    elif re.search(r"[^aeiou]y$", last):
        last = last[:-1] + "ies"
    elif last:
        last += "s"
    words[-1] = last
    return " ".join(words) + (f" ({rest}" if rest else "")


def _common_noun(label: str) -> str:
    """A class label as a common noun: "Ethnic Group" -> "ethnic group"; acronyms ("NFL team") kept."""
    return " ".join(w.lower() if w[:1].isupper() and w[1:].islower() else w for w in label.split(" "))


def _article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _join(items: list[str], word: str = "and") -> str:
    if len(items) <= 2:
        return f" {word} ".join(items)
    return ", ".join(items[:-1]) + f", {word} " + items[-1]


@dataclass
class _Select:
    """A (sub-)query's modifiers, peeled off its algebra, and its graph pattern."""

    form: str
    pattern: Any
    projection: list[Variable] = field(default_factory=list)
    distinct: bool = False
    order: list[Any] = field(default_factory=list)
    offset: int = 0
    limit: int | None = None
    having: Any = None
    group: list[Any] = field(default_factory=list)
    computed: dict[Variable, Any] = field(default_factory=dict)


class _Explainer:
    """Phrases one query; variables' nouns and aggregates are set per query (and per sub-query)."""

    def __init__(self, labels: TermLabels):
        self.labels = labels
        self.nouns: dict[Variable, str] = {}
        self.aggregates: dict[Variable, CompValue] = {}
        self.computed: dict[Variable, Any] = {}
        # Variables named by the property that leads to them ("?obj" of `wdt:P2132` is a "nominal GDP").
        self.derived: dict[Any, Any] = {}
        self.answers: set[Variable] = set()
        self.optional: dict[Any, tuple[Any, Any]] = {}  # an answer given when the KB has it
        # Said in place ("the length of Rhine"), with no clause of its own.
        self.inlined: set[Variable] = set()

    # ---- query forms -------------------------------------------------------------------------

    def query(self, algebra: CompValue) -> str:
        select = self._peel(algebra)
        self._inline(select)
        self._name_variables(select.pattern)
        text = self._sentence(select).rstrip(".")
        return text[:1].upper() + text[1:] + "."

    def _peel(self, node: Any) -> _Select:
        name = getattr(node, "name", "")
        form = {"AskQuery": "ask", "ConstructQuery": "construct", "DescribeQuery": "describe"}.get(
            name, "select"
        )
        select = _Select(form, None)
        current = node.p if name.endswith("Query") else node
        while isinstance(current, CompValue):
            kind = current.name
            if kind == "Slice":
                select.offset, select.limit = int(current.start or 0), current.length
            elif kind in ("Distinct", "Reduced"):
                select.distinct = True
            elif kind == "Project":
                select.projection = list(current.PV)
            elif kind == "OrderBy":
                select.order = list(current.expr)
            elif kind == "Filter" and _has_aggregate_below(current.p):
                select.having = current.expr
            elif kind == "Extend" and _has_aggregate_below(current.p):
                select.computed[current.var] = current.expr
            elif kind == "AggregateJoin":
                for aggregate in current.A:
                    self.aggregates[aggregate.res] = aggregate
            elif kind == "Group":
                select.group = list(current.expr or [])
            else:
                break
            current = current.p
        select.pattern = current
        self.computed.update(select.computed)
        if form == "describe" and not select.projection:
            select.projection = [t for t in getattr(node, "PV", []) or [] if isinstance(t, Variable)]
        return select

    def _sentence(self, select: _Select) -> str:
        answers = [v for v in select.projection if not str(v).startswith("__")]
        self.answers = set(answers) if select.form == "select" else set()
        triples, conditions = self._split(select.pattern)
        triples = [t for t in triples if t[2] not in self.inlined]
        used: set[int] = set()
        if select.form == "ask" and not any(isinstance(t, (Variable, BNode)) for x in triples for t in x):
            clauses = [self._triple_clause(*t) for t in triples] + conditions
            return "check whether " + (_join(clauses) if clauses else "there is a result")
        if select.form == "ask":
            head = self._ask_head(triples, used)
        else:
            head = self._select_head(select, answers, triples, used)
        rest = [self._triple_clause(*t) for i, t in enumerate(triples) if i not in used]
        parts = [head]
        where = rest + conditions
        if select.group and select.having is None:
            parts.append("grouped by " + _join([self._expr(g) for g in select.group]))
        if select.having is not None:
            by = _join([self._expr(g) for g in select.group]) or "all results"
            parts.append(f"grouped by {by}, keeping the groups where {self._expr(select.having)}")
        if not where and head.startswith("check whether, for the "):
            parts[0] = "check whether there is a " + head.removeprefix("check whether, for the ")
        elif where and head.startswith("check whether, for "):
            parts.append(_join(where))
        elif where:
            parts.append("where " + _join(where))
        parts.append(self._ranking(select))
        return ", ".join(p for p in parts if p)

    def _ask_head(self, triples: list[tuple[Any, Any, Any]], used: set[int]) -> str:
        root = next(t for triple in triples for t in triple if isinstance(t, (Variable, BNode)))
        if isinstance(root, Variable) and (inverted := self._inverted(root, triples, used)) is not None:
            return f"check whether, for {inverted}"
        return "check whether there is " + _article(self._describe(root, triples, used, {root}))

    def _select_head(
        self, select: _Select, answers: list[Variable], triples: list[tuple[Any, Any, Any]], used: set[int]
    ) -> str:
        verb = {"construct": "build a graph from", "describe": "describe"}.get(select.form, "find")
        distinct = "distinct " if select.distinct else ""
        if not answers:
            return f"{verb} every result"
        first = answers[0]
        expression = select.computed.get(first, self.computed.get(first))
        others = [self._give(v, first, select, triples, used) for v in answers[1:]]
        if isinstance(expression, Variable) and expression in self.aggregates:
            head = self._aggregate_head(self.aggregates[expression], triples, used)
        elif expression is not None:
            head = f"{verb} {self._expr(expression)}"
        elif (inverted := self._inverted(first, triples, used)) is not None:
            head = f"{verb} {inverted}"
        else:
            head = f"{verb} every {distinct}{self._describe(first, triples, used, {first})}"
        return head + (", and give " + _join(others) if others else "")

    def _aggregate_head(
        self, aggregate: CompValue, triples: list[tuple[Any, Any, Any]], used: set[int]
    ) -> str:
        target = aggregate.vars
        distinct = "distinct " if aggregate.distinct else ""
        if not isinstance(target, Variable):
            return "count the results"
        if aggregate.name == "Aggregate_Sample":
            return "find every " + self._describe(target, triples, used, {target})
        if aggregate.name == "Aggregate_Count" and (inverted := self._inverted(target, triples, used, True)):
            return f"count {inverted}"
        described = self._describe(target, triples, used, {target}, plural=True)
        if aggregate.name == "Aggregate_Count":
            return f"count the {distinct}{described}"
        word = _AGGREGATE_WORDS.get(aggregate.name, aggregate.name.removeprefix("Aggregate_").lower() + " of")
        noun = self.nouns.get(target, "value")
        return f"find {word} {noun} over the {distinct}{described}"

    def _give(
        self,
        var: Variable,
        root: Variable,
        select: _Select,
        triples: list[tuple[Any, Any, Any]],
        used: set[int],
    ) -> str:
        expression = select.computed.get(var, self.computed.get(var))
        if isinstance(expression, Variable) and expression in self.aggregates:
            return self._aggregate(self.aggregates[expression])
        if expression is not None:
            return self._expr(expression)
        if var in self.optional:
            owner, p = self.optional[var]
            if owner == root:
                return f"its {self._property(p)} (if any)"
            return f"the {self._property(p)} of {self._side(owner)} (if any)"
        for i, (s, p, o) in enumerate(triples):
            if i in used or not isinstance(p, URIRef) or o != var:
                continue
            if s == root:
                used.add(i)
                return f"its {self._property(p)}"
            if isinstance(s, URIRef):
                used.add(i)
                return f"the {self._property(p)} of {self.labels(s)}"
        return self._ref(var)

    def _inverted(
        self, var: Variable, triples: list[tuple[Any, Any, Any]], used: set[int], plural: bool = False
    ) -> str | None:
        """`S p ?x` and nothing else about ?x: "the p of S" reads better than "every thing that is ..."."""
        touching = [i for i, t in enumerate(triples) if i not in used and var in (t[0], t[2])]
        if var in self.computed or len(touching) != 1:
            return None
        s, p, o = triples[touching[0]]
        if o != var or s == var or not isinstance(p, URIRef) or self._is_class(p):
            return None
        words = re.sub(r"^(?:has|have) ", "", self._property(p))  # "has part" -> "the part of ..."
        if _VERB_START.match(words) or _PREPOSITION_END.search(words):
            return None
        used.add(touching[0])
        if plural:
            unchanged = re.search(r"(?:ed|ing)$", words) or _WIKIDATA_ID.match(words)
            words = f"values of the {words}" if unchanged else _plural(words)
        if isinstance(s, (Variable, BNode)):
            return f"the {words} of every " + self._describe(s, triples, used, {var, s})
        return f"the {words} of {self._term(s)}"

    def _ranking(self, select: _Select) -> str:
        skip = f" after skipping the first {select.offset}" if select.offset else ""
        if select.order:
            keys = []
            for condition in select.order:
                descending = getattr(condition, "order", None) == "DESC"
                expr = condition.expr if getattr(condition, "name", "") == "OrderCondition" else condition
                keys.append((self._expr(expr), descending))
            text, descending = keys[0]
            if select.limit is not None:
                extreme = "largest" if descending else "smallest"
                which = "the one" if select.limit == 1 else f"the {select.limit}"
                return f"keeping {which} with the {extreme} {text.removeprefix('the ')}{skip}"
            order = _join([f"{t} ({'largest' if d else 'smallest'} first)" for t, d in keys])
            return f"sorted by {order}{skip}"
        if select.limit is not None:
            return f"at most {select.limit} results{skip}"
        return skip.strip()

    # ---- graph patterns ------------------------------------------------------------------------

    def _split(self, node: Any) -> tuple[list[tuple[Any, Any, Any]], list[str]]:
        """The triples of a conjunctive pattern, and the rest of it as conditions."""
        triples: list[tuple[Any, Any, Any]] = []
        conditions: list[str] = []
        self._collect(node, triples, conditions)
        return triples, conditions

    def _collect(self, node: Any, triples: list[tuple[Any, Any, Any]], conditions: list[str]) -> None:
        kind = getattr(node, "name", "")
        if kind == "BGP":
            triples.extend(tuple(t) for t in node.triples)
        elif kind == "Join":
            self._collect(node.p1, triples, conditions)
            self._collect(node.p2, triples, conditions)
        elif kind == "Filter":
            self._collect(node.p, triples, conditions)
            conditions.append(self._expr(node.expr))
        elif kind == "Extend":
            self._collect(node.p, triples, conditions)
            if node.var in self.answers:
                self.computed[node.var] = node.expr  # `BIND(... AS ?answer)`: the answer is the expression
            elif node.var not in self.computed:
                conditions.append(f"{self._ref(node.var)} is {self._expr(node.expr)}")
        elif kind == "LeftJoin":
            self._collect(node.p1, triples, conditions)
            found = node.p2.triples if getattr(node.p2, "name", "") == "BGP" else []
            plain = node.expr is None or getattr(node.expr, "name", "") == "TrueFilter"
            if plain and len(found) == 1 and found[0][2] in self.answers and isinstance(found[0][1], URIRef):
                self.optional[found[0][2]] = (found[0][0], found[0][1])  # `OPTIONAL { ?x p ?answer }`
                return
            optional = self._pattern(node.p2)
            if node.expr is not None and getattr(node.expr, "name", "") != "TrueFilter":
                optional += f" (when {self._expr(node.expr)})"
            conditions.append(f"optionally {optional}")
        elif kind == "Union":
            branches = [f"({self._pattern(b)})" for b in _union_branches(node)]
            conditions.append("either " + " or ".join(branches))
        elif kind == "Minus":
            self._collect(node.p1, triples, conditions)
            conditions.append(f"leaving out those where {self._pattern(node.p2)}")
        elif kind == "ToMultiSet":
            self._collect(node.p, triples, conditions)
        elif kind == "values":
            conditions.append(self._values(node.res))
        elif kind == "Graph":
            conditions.append(f"in the graph {self._term(node.term)}, {self._pattern(node.p)}")
        elif kind in ("Project", "Slice", "Distinct", "Reduced", "OrderBy", "AggregateJoin", "Group"):
            conditions.append(f"the results of a sub-query: {self._subquery(node)}")
        elif kind == "GroupGraphPatternSub":
            self._collect(translateGroupGraphPattern(node), triples, conditions)
        elif kind == "ServiceGraphPattern":
            conditions.append(f"a remote service {self._term(node.term)} answers a part of the query")
        elif kind:
            conditions.append(f"a {kind} pattern")

    def _subquery(self, node: Any) -> str:
        saved, answers = dict(self.nouns), self.answers
        select = self._peel(node)
        self._inline(select)
        self._name_variables(select.pattern)
        text = self._sentence(select)
        self.nouns, self.answers = {**self.nouns, **saved}, answers
        return f"[{text}]"

    def _pattern(self, node: Any) -> str:
        """A pattern as conditions joined with "and" (unions, optional and minus parts, EXISTS)."""
        self._name_variables(node)
        triples, conditions = self._split(node)
        clauses = [self._triple_clause(*t) for t in triples] + conditions
        return _join(clauses) if clauses else "nothing"

    def _values(self, rows: list[Mapping[Variable, Any]]) -> str:
        variables = list(dict.fromkeys(v for row in rows for v in row))
        if len(variables) == 1:
            options = [self._term(row[variables[0]]) for row in rows if variables[0] in row]
            return f"{self._ref(variables[0])} is one of {_join(options, 'or')}"
        combos = ["(" + ", ".join(self._term(row.get(v)) for v in variables) + ")" for row in rows]
        return f"({', '.join(self._ref(v) for v in variables)}) is one of {_join(combos, 'or')}"

    # ---- variables -----------------------------------------------------------------------------

    def _inline(self, select: _Select) -> None:
        """A constant's value that only a filter reads (`res:Rhine ont:length ?l . filter ( ?v > ?l )`) is
        said where the filter reads it, "the length of Rhine", rather than in a clause of its own."""
        triples = _all_triples(select.pattern)
        filtered = _filter_variables(select.pattern)
        answers = set(select.projection) if select.form == "select" else set()
        for s, p, o in triples:
            if (
                o in filtered
                and o not in answers
                and isinstance(s, URIRef)
                and isinstance(p, URIRef)
                and not self._is_class(p)
                and sum(o in (t[0], t[2]) for t in triples) == 1
            ):
                words = self._property(p)
                if not (_VERB_START.match(words) or _PREPOSITION_END.search(words)):
                    self.nouns[o] = f"{words} of {self._term(s)}"
                    self.inlined.add(o)

    def _name_variables(self, node: Any) -> None:
        """A noun for each variable of a pattern: its class, its Wikidata statement, or its name."""
        triples = _all_triples(node)
        for s, p, o in triples:
            if isinstance(s, (Variable, BNode)) and self._is_class(p) and isinstance(o, URIRef):
                self.nouns.setdefault(s, _common_noun(self.labels.bare(str(o))))
        for _, p, o in triples:
            if isinstance(o, (Variable, BNode)) and self._is_class(p):
                self.nouns.setdefault(o, "class")
            if isinstance(o, (Variable, BNode)) and isinstance(p, URIRef) and self._namespace(p) == "p":
                self.nouns.setdefault(o, f"{self._property(p)} statement")
        for _, p, o in triples:
            if (
                not isinstance(o, Variable)
                or o in self.nouns
                or not isinstance(p, URIRef)
                or self._is_class(p)
            ):
                continue
            # `?date` of a birth date, `?start` of a start time: the property says it better than the name.
            name = local_name_label(f"x:{_GENERIC_PREFIX.sub('', str(o))}").lower()
            said = f" {name} " in f" {self._property(p, plain=True).lower()} "
            if _GENERIC_NAME.match(str(o)) or said:
                words = self._property(p, plain=True)
                if not (_VERB_START.match(words) or _PREPOSITION_END.search(words)):
                    self.nouns[o] = words
                    self.derived[o] = p
        for term in (t for triple in triples for t in triple):
            if isinstance(term, Variable) and term not in self.nouns:
                name = _GENERIC_PREFIX.sub("", str(term))
                self.nouns[term] = "thing" if _GENERIC_NAME.match(name) else local_name_label(f"x:{name}")
            elif isinstance(term, BNode) and term not in self.nouns:
                self.nouns[term] = "thing"

    def _ref(self, var: Any) -> str:
        if var in self.aggregates:
            return self._aggregate(self.aggregates[var])
        noun = self.nouns.get(var, "value")
        if sum(1 for n in self.nouns.values() if n == noun) > 1 and isinstance(var, Variable):
            return f"the {noun} ?{var}"
        return f"the {noun}"

    def _aggregate(self, aggregate: CompValue) -> str:
        target = aggregate.vars
        distinct = "distinct " if aggregate.distinct else ""
        if not isinstance(target, Variable):
            return "the number of results"
        noun = self.nouns.get(target, "value")
        if aggregate.name == "Aggregate_Count":
            return f"the number of {distinct}{_plural(noun)}"
        if aggregate.name == "Aggregate_Sample":
            return self._ref(target)
        word = _AGGREGATE_WORDS.get(aggregate.name, aggregate.name.removeprefix("Aggregate_").lower() + " of")
        return f"{word} {noun}" if word != "the list of" else f"{word} {_plural(noun)}"

    # ---- triples -------------------------------------------------------------------------------

    def _namespace(self, iri: URIRef) -> str:
        token = self.labels.token(str(iri))
        return token.split(":", 1)[0] if ":" in token and not token.startswith("<") else ""

    def _is_class(self, p: Any) -> bool:
        """rdf:type, Wikidata's instance of, and `wdt:P31/wdt:P279*` (an instance of a subclass)."""
        if isinstance(p, SequencePath) and len(p.args) == 2 and isinstance(p.args[1], MulPath):
            return self._is_class(p.args[0]) and self.labels.token(str(p.args[1].path)) in _SUBCLASS
        if str(p) == RDF_TYPE:
            return True
        token = self.labels.token(str(p)) if isinstance(p, URIRef) else ""
        return token == f"wdt:{_WIKIDATA_INSTANCE_OF}"

    def _property(self, p: Any, plain: bool = False) -> str:
        """A property's words; a statement's main value (`ps:`) is its "value" unless `plain`."""
        if isinstance(p, URIRef):
            if str(p) == _RDFS_LABEL:
                return "label"
            label = self.labels.bare(str(p))
            return "value" if self._namespace(p) == "ps" and not plain else label
        if isinstance(p, Variable):
            return f"relation {self._ref(p).removeprefix('the ')}"
        return self._path(p)

    def _path(self, path: Path) -> str:
        if isinstance(path, SequencePath):
            return " of the ".join(self._path_step(a) for a in reversed(path.args))
        if isinstance(path, AlternativePath):
            return _join([self._path_step(a) for a in path.args], "or")
        return self._path_step(path)

    def _path_step(self, step: Any) -> str:
        if isinstance(step, URIRef):
            return "class" if self._is_class(step) else self._property(step)
        if isinstance(step, MulPath):
            base = self._path_step(step.path)
            return {"*": f"{base} (zero or more times)", "+": f"{base} (one or more times)"}.get(
                step.mod, f"{base} (optionally)"
            )
        if isinstance(step, InvPath):
            return f"inverse {self._path_step(step.arg)}"
        if isinstance(step, NegatedPath):
            return "any relation except " + _join([self._path_step(a) for a in step.args], "or")
        if isinstance(step, Path):
            return f"({self._path(step)})"
        return self._term(step)

    def _describe(
        self,
        var: Any,
        triples: list[tuple[Any, Any, Any]],
        used: set[int],
        visited: set[Any],
        plural: bool = False,
    ) -> str:
        """A noun phrase for `var` with every unused triple around it: "film whose director is X"."""
        noun = self.nouns.get(var, "thing")
        phrases: list[str] = []
        owner = ""
        for i, (s, p, o) in enumerate(triples):
            if i in used or var not in (s, o) or s == o:
                continue
            used.add(i)
            if s == var and self._is_class(p) and isinstance(o, URIRef):
                if _common_noun(self.labels.bare(str(o))) != noun:
                    phrases.append(f"that is {_article(self.labels(str(o)))}")
                continue
            if isinstance(p, URIRef) and self._namespace(p) == "p" and o == var and not owner:
                owner = f" of {self._node(s, triples, used, visited)}"
                continue
            if s == var and self._leaf(o, p, triples, used, visited):
                visited.add(o)
                phrases.append(f"that {'have' if plural else 'has'} {_article(self.nouns[o])}")
                continue
            if s == var:
                phrases.append(self._forward(p, self._node(o, triples, used, visited)))
            else:
                phrases.append(self._backward(p, self._node(s, triples, used, visited)))
        head = (_plural(noun) if plural else noun) + owner
        if plural:
            phrases = [re.sub(r"^that is\b", "that are", phrase) for phrase in phrases]
        if not phrases:
            return head
        return head + " " + " and ".join(phrases)

    def _leaf(
        self, term: Any, p: Any, triples: list[tuple[Any, Any, Any]], used: set[int], visited: set[Any]
    ) -> bool:
        """A variable named after the property `p` that leads to it, with nothing else said about it."""
        if term in visited or self.derived.get(term) != p:
            return False
        return not any(i not in used and term in (t[0], t[2]) for i, t in enumerate(triples))

    def _node(self, term: Any, triples: list[tuple[Any, Any, Any]], used: set[int], visited: set[Any]) -> str:
        """The text of the other end of a triple: a constant, a variable seen before, or a nested phrase."""
        if not isinstance(term, (Variable, BNode)):
            return self._term(term)
        if term in visited:
            return self._ref(term)
        visited.add(term)
        described = self._describe(term, triples, used, visited)
        return "(" + _article(described) + ")" if " and " in described else _article(described)

    def _forward(self, p: Any, target: str) -> str:
        """`?x p target` as a modifier of ?x."""
        if self._is_class(p):
            return f"that is an instance of {target}"
        words = self._property(p)
        if _VERB_START.match(words):
            return f"that {words} {target}"
        if _PREPOSITION_END.search(words):
            return f"that is {words} {target}"
        return f"whose {words} is {target}"

    def _backward(self, p: Any, source: str) -> str:
        """`source p ?x` as a modifier of ?x."""
        if self._is_class(p):
            return f"that is the class of {source}"
        words = self._property(p)
        if _VERB_START.match(words) or _PREPOSITION_END.search(words):
            return f"that {source} {words if _VERB_START.match(words) else 'is ' + words}"
        return f"that is the {words} of {source}"

    def _triple_clause(self, s: Any, p: Any, o: Any) -> str:
        """A triple as a clause of its own: "the director of the film is Ridley Scott"."""
        subject, value = self._side(s), self._side(o)
        if self._is_class(p):
            return (
                f"{subject} is {_article(value.removeprefix('the '))}"
                if isinstance(o, URIRef)
                else (f"{subject} is an instance of {value}")
            )
        words = self._property(p)
        if _VERB_START.match(words):
            return f"{subject} {words} {value}"
        if _PREPOSITION_END.search(words):
            return f"{subject} is {words} {value}"
        return f"the {words} of {subject} is {value}"

    def _side(self, term: Any) -> str:
        return self._ref(term) if isinstance(term, (Variable, BNode)) else self._term(term)

    # ---- terms and expressions -----------------------------------------------------------------

    def _term(self, term: Any) -> str:
        if isinstance(term, URIRef):
            return self.labels(str(term))
        if isinstance(term, Literal):
            if term.datatype is not None and str(term.datatype) in _NUMERIC:
                return str(term)
            if term.language and term.language.lower() != "en":
                language = _LANGUAGES.get(term.language.lower().split("-")[0], term.language)
                return f'"{term}" (in {language})'
            return f'"{term}"'
        if isinstance(term, (Variable, BNode)):
            return self._ref(term)
        if term is None:
            return "nothing"
        return self._expr(term)

    def _expr(self, e: Any) -> str:
        if not isinstance(e, CompValue):
            if isinstance(e, list):
                return _join([self._expr(x) for x in e])
            return self._term(e)
        name = e.name
        if name == "RelationalExpression":
            return self._comparison(e)
        if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
            word = "and" if name == "ConditionalAndExpression" else "or"
            return f" {word} ".join(self._expr(x) for x in [e.expr, *(e.other or [])])
        if name == "UnaryNot":
            return f"it is not true that {self._expr(e.expr)}"
        if name in ("AdditiveExpression", "MultiplicativeExpression"):
            words = {"+": "plus", "-": "minus", "*": "times", "/": "divided by"}
            text = self._expr(e.expr)
            for op, other in zip(e.op or [], e.other or []):
                text += f" {words.get(op, op)} {self._expr(other)}"
            return text
        if name == "UnaryMinus":
            return f"minus {self._expr(e.expr)}"
        if name == "UnaryPlus":
            return self._expr(e.expr)
        if name == "Builtin_REGEX":
            case = " (ignoring case)" if e.flags is not None and "i" in str(e.flags) else ""
            return f"{self._expr(e.text)} matches the pattern {self._term(e.pattern)}{case}"
        if name in _STRING_TESTS:
            return f"{self._expr(e.arg1)} {_STRING_TESTS[name]} {self._expr(e.arg2)}"
        if name in ("Builtin_LCASE", "Builtin_UCASE"):
            return f"{self._expr(e.arg)} in {'lower' if name == 'Builtin_LCASE' else 'upper'} case"
        if name == "Builtin_STR":
            return f"the text of {self._expr(e.arg)}"
        if name == "Builtin_LANGMATCHES":
            return self._language_test(e.arg1, e.arg2)
        if name in _UNARY_WORDS:
            return f"{_UNARY_WORDS[name]} {self._expr(e.arg)}"
        if name in _TESTS:
            return f"{self._expr(e.arg)} {_TESTS[name]}"
        if name == "Builtin_NOW":
            return "now"
        if name == "Builtin_EXISTS":
            return f"there is a case where {self._pattern(e.graph)}"
        if name == "Builtin_NOTEXISTS":
            return f"there is no case where {self._pattern(e.graph)}"
        if name == "Builtin_IF":
            return f"{self._expr(e.arg2)} if {self._expr(e.arg1)}, else {self._expr(e.arg3)}"
        if name == "Builtin_sameTerm":
            return f"{self._expr(e.arg1)} is the same as {self._expr(e.arg2)}"
        if name == "Builtin_COALESCE":
            return "the first known of " + _join([self._expr(a) for a in e.arg or []])
        if name == "Function":
            args = list(e.expr or [])
            if str(e.iri).startswith(_XSD) and len(args) == 1:
                return self._expr(args[0])
            return f"{self._term(e.iri)} of " + _join([self._expr(a) for a in args])
        if name.startswith("Aggregate_"):
            return self._aggregate(e)
        args = [self._expr(v) for k, v in e.items() if not k.startswith("_") and v is not None]
        return f"{name.removeprefix('Builtin_').lower()}({', '.join(args)})"

    def _comparison(self, e: CompValue) -> str:
        left = e.expr
        if getattr(left, "name", "") == "Builtin_LANG" and e.op == "=" and isinstance(e.other, Literal):
            return self._language_test(left, e.other)
        if e.op in ("IN", "NOT IN"):
            options = _join([self._expr(x) for x in e.other or []], "or")
            return f"{self._expr(left)} is {'not ' if e.op == 'NOT IN' else ''}one of {options}"
        return f"{self._expr(left)} {_COMPARISON.get(e.op, e.op)} {self._expr(e.other)}"

    def _language_test(self, lang: Any, code: Any) -> str:
        target = lang.arg if getattr(lang, "name", "") == "Builtin_LANG" else lang
        text = str(code).lower()
        language = _LANGUAGES.get(text.split("-")[0], f'"{code}"') if text != "*" else "any language"
        return f"{self._expr(target)} is in {language}"


def _has_aggregate_below(node: Any) -> bool:
    while isinstance(node, CompValue):
        if node.name == "AggregateJoin":
            return True
        if node.name not in ("Filter", "Extend", "OrderBy"):
            return False
        node = node.p
    return False


def _union_branches(node: Any) -> list[Any]:
    if getattr(node, "name", "") == "Union":
        return _union_branches(node.p1) + _union_branches(node.p2)
    return [node]


def _filter_variables(node: Any) -> set[Variable]:
    """The variables that the FILTER expressions anywhere under `node` read."""
    return {v for current in _nodes(node) if current.name == "Filter" for v in _variables_in(current.expr)}


def _variables_in(expr: Any) -> set[Variable]:
    if isinstance(expr, Variable):
        return {expr}
    if isinstance(expr, CompValue):
        return {v for k, value in expr.items() if not k.startswith("_") for v in _variables_in(value)}
    if isinstance(expr, (list, tuple)):
        return {v for value in expr for v in _variables_in(value)}
    return set()


def _nodes(node: Any) -> Iterator[CompValue]:
    """Every algebra node under `node`, `node` included, breadth first and in order."""
    queue = deque([node])
    while queue:
        current = queue.popleft()
        if isinstance(current, CompValue):
            yield current
            queue.extend(v for k, v in current.items() if not k.startswith("_"))
        elif isinstance(current, (list, tuple)):
            queue.extend(current)


def _all_triples(node: Any) -> list[tuple[Any, Any, Any]]:
    """Every triple anywhere under `node` (sub-patterns included), for naming variables; breadth first,
    in order: the first triple naming a variable names it."""
    found: list[tuple[Any, Any, Any]] = []
    for current in _nodes(node):
        if current.name == "BGP":
            found.extend(tuple(t) for t in current.triples)
        elif current.name == "TriplesBlock":
            for block in current.triples or []:
                found.extend(tuple(block[i : i + 3]) for i in range(0, len(block) - 2, 3))
    return found
