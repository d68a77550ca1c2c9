"""Grammar-constrained decoding (ours, `decode.grammar`): every query a word-level model writes parses.

A pushdown automaton reads the canonical token sequence of `sparql.tokens.tokenize` (lower-case
keywords, `a`, one token per IRI, literal or variable, no `.` before `}`) and, at each step, masks
every target id (vocabulary ids and copy slots) that cannot continue a valid query. The language is
the subset of SPARQL 1.1 the datasets use: SELECT [DISTINCT] with variables, `*` or `(AGG/expression
AS ?v)`, ASK, [WHERE] groups of triple patterns (`a`, `;`, `,`, property paths `/ | ^ * +`), FILTER
with comparisons, boolean operators, arithmetic, `IN`, built-in functions and (NOT) EXISTS, OPTIONAL,
UNION, MINUS, then GROUP BY / HAVING / ORDER BY / LIMIT / OFFSET.

It keeps the kind rules of the former `decode.typed_triples`: a subject is no property and no
literal, a predicate no entity, class or literal, the object of `a` a class (or a variable or an
IRI of unknown kind), any other object no property. Beyond the grammar it enforces what the
engines check after parsing (pyoxigraph's rules): a variable bound by `AS` is used nowhere in the
WHERE clause, a grouped query groups by its projected variables (GROUP BY lists them in order),
aggregates only in the projection, HAVING and a grouped ORDER BY.

Termination: each example gets a length cap `LENGTH_PER_SOURCE_TOKEN * source length +
LENGTH_SLACK` (at most `max_len`), and each automaton state knows the fewest tokens that finish a
query from it, so a token is allowed only if the query can still be finished within the cap (when
the budget runs out only closing tokens remain, then EOS). After `MAX_TRIPLES` triple patterns the
tokens that would start another one are masked too, softly (unless nothing else is left), and so are
the tokens that open a bracket past MAX_DEPTH nested ones (rdflib's parser overflows the stack).

The automaton is an LL(1) parser over token classes (a keyword, a variable, an IRI or literal kind):
a state is its stack of grammar symbols plus the projection facts above. States are interned; each
one's row of "tokens needed to finish after this class" is computed once and cached on the device,
so a decoding step is one gather and a comparison, plus a dictionary look-up per row.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import pyoxigraph as ox
import torch
from rdflib.plugins.sparql.parser import parseQuery

from nmt_sparql.sparql.prefixes import PrefixMap, prefix_map
from nmt_sparql.sparql.tokens import detokenize
from nmt_sparql.tokenization.kbmask import typed_mask
from nmt_sparql.tokenization.vocab import EOS

INF = 1 << 20
LENGTH_PER_SOURCE_TOKEN = 3
LENGTH_SLACK = 20
MAX_TRIPLES = 10
# rdflib's recursive-descent parser overflows Python's stack on deeply nested brackets: past this depth
# the tokens that open one more are masked (softly, like MAX_TRIPLES).
MAX_DEPTH = 6
MAX_STATES = 200_000  # interned states kept across calls before the caches start afresh

# Classes of tokens that are not keywords: a variable's class is the variable itself.
ENTITY, PROPERTY, CLASS, OTHER_IRI = "iri:entity", "iri:property", "iri:class", "iri:other"
CAST = "iri:cast"  # an XSD datatype, also a function: `xsd:double ( ?b )`
STRING, INTEGER, DECIMAL, BOOLEAN = "lit:string", "lit:int", "lit:decimal", "lit:bool"
TERM_CLASSES = (ENTITY, PROPERTY, CLASS, OTHER_IRI, CAST, STRING, INTEGER, DECIMAL, BOOLEAN)
XSD = "http://www.w3.org/2001/XMLSchema#"
CASTS = frozenset(
    XSD + t for t in ("boolean", "double", "float", "decimal", "integer", "dateTime", "date", "string")
)
VAR = "var"
_NEVER, _EOS = "<never>", "<eos>"

SUBJECT = frozenset({VAR, ENTITY, CLASS, OTHER_IRI, CAST})
PREDICATE = frozenset({PROPERTY, OTHER_IRI, CAST})
OBJECT = frozenset({VAR, ENTITY, CLASS, OTHER_IRI, CAST, STRING, INTEGER, DECIMAL, BOOLEAN})
CLASS_OBJECT = frozenset({VAR, CLASS, OTHER_IRI, CAST})
EXPRESSION_TERM = (OBJECT | {PROPERTY}) - {CAST}  # an IRI followed by `(` is a function call

# Built-in functions: name -> (fewest, most) arguments, -1: any number.
FUNCTIONS: dict[str, tuple[int, int]] = {
    **dict.fromkeys(
        ["str", "lang", "datatype", "iri", "uri", "abs", "ceil", "floor", "round", "strlen", "ucase", "lcase",
         "encode_for_uri", "year", "month", "day", "hours", "minutes", "seconds", "timezone", "tz", "md5",
         "sha1", "sha256", "sha384", "sha512", "isiri", "isuri", "isblank", "isliteral", "isnumeric"],
        (1, 1),
    ),
    **dict.fromkeys(
        ["langmatches", "contains", "strstarts", "strends", "strbefore", "strafter", "strlang", "strdt",
         "sameterm"],
        (2, 2),
    ),
    **dict.fromkeys(["now", "rand", "uuid", "struuid"], (0, 0)),
    "concat": (1, -1), "coalesce": (1, -1), "if": (3, 3), "regex": (2, 3), "substr": (2, 3),
    "replace": (3, 4),
}  # fmt: skip
AGGREGATES = ("count", "sum", "min", "max", "avg", "sample")
COMPARISONS = ("=", "!=", "<", ">", "<=", ">=")
KEYWORDS = frozenset(
    {"select", "distinct", "where", "ask", "{", "}", "(", ")", ".", ";", ",", "a", "*", "+", "-", "/", "|",
     "^", "!", "&&", "||", "filter", "optional", "union", "minus", "as", "in", "not", "exists", "bound",
     "group", "by", "having", "order", "asc", "desc", "limit", "offset", *COMPARISONS, *AGGREGATES,
     *FUNCTIONS}
)  # fmt: skip
# Tokens that open another triple pattern: masked (softly) once a query has MAX_TRIPLES of them.
_MORE_TRIPLES = (".", ";", ",", "{", "optional", "union", "minus")
_OPENERS = frozenset({"{", "(", "optional", "union", "minus", "filter", "exists", "not", "in", "bound",
                      *FUNCTIONS, *AGGREGATES})  # fmt: skip


@dataclass(frozen=True)
class Term:
    """One token of the `kinds` (term classes, VAR, or keywords), read in `role` (what it may be)."""

    kinds: frozenset[str]
    role: str


@dataclass(frozen=True)
class Act:
    """A zero-width step that updates the projection facts (or pushes what comes after them)."""

    name: str


Symbol = str | Term | Act | tuple
State = tuple[tuple[Symbol, ...], tuple]  # (stack, top last; facts: needs, as_bound, aggregated, star)
_START_FACTS: tuple = ((), frozenset(), False, False)

_VAR = re.compile(r"^\?[A-Za-z_][A-Za-z0-9_]*$")
_INTEGER = re.compile(r"^\d+$")
_DECIMAL = re.compile(r"^(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?$")
_SIMPLE_STRING = re.compile(r'^"(?:[ -!#-\[\]-~]|\\[tbnrf"\'\\])*"(?:@[A-Za-z]+(?:-[A-Za-z0-9]+)*)?$')
_SAFE_PNAME = re.compile(r"^[A-Za-z][A-Za-z0-9_\-]*:[A-Za-z0-9_][A-Za-z0-9_\-]*$")
_CHECKED: dict[tuple[str, str], bool] = {}


def _writes_as_a_term(token: str, pm: PrefixMap, position: str) -> bool:
    """Whether `token` detokenizes to a term both parsers read at `position` (checked once per token)."""
    key = (token, pm.name)
    if key not in _CHECKED:
        try:
            query = detokenize(position.replace("TERM", token).split(), pm)
            ox.Store().query(query)
            parseQuery(query)
            _CHECKED[key] = True
        except Exception:  # noqa: BLE001 - detokenize, pyoxigraph and rdflib raise many kinds
            _CHECKED[key] = False
    return _CHECKED[key]


def token_class(token: str, pm: PrefixMap) -> str:
    """The class of a target token: a keyword, a variable, a term kind, or `<never>`."""
    if token in KEYWORDS:
        return token
    if token.startswith("?"):
        ok = _VAR.match(token) or _writes_as_a_term(token, pm, "ask { TERM ?p ?o }")
        return token if ok else _NEVER
    if token in ("true", "false"):
        return BOOLEAN
    if _INTEGER.match(token):
        return INTEGER
    if _DECIMAL.match(token):
        return DECIMAL
    if token.startswith('"'):
        ok = _SIMPLE_STRING.match(token) or _writes_as_a_term(token, pm, "ask { ?s ?p TERM }")
        return STRING if ok else _NEVER
    if token.startswith("<") or ":" in token:
        safe = _SAFE_PNAME.match(token) and token.split(":", 1)[0] in pm.prefixes
        if not (safe or _writes_as_a_term(token, pm, "ask { ?s ?p TERM }")):
            return _NEVER
        if _iri_of(token, pm) in CASTS:
            return CAST
        kind = typed_mask(token)
        return {"<kb:entity>": ENTITY, "<kb:property>": PROPERTY, "<kb:class>": CLASS}.get(kind, OTHER_IRI)
    return _NEVER


def _iri_of(token: str, pm: PrefixMap) -> str:
    if token.startswith("<"):
        return token[1:-1]
    prefix, local = token.split(":", 1)
    return pm.prefixes.get(prefix, "") + local


def _kind(cls: str) -> str:
    return VAR if cls.startswith("?") else cls


def _n(*parts: object) -> tuple:
    return tuple(parts)


_BODY_ROLES = ("body", "obj", "cobj", "pred", "subj", "having")
_CONTEXT_ROLE = {"filter": "body", "pexpr": "pexpr", "pagg": "pagg", "having": "having",
                 "having_in": "having", "order": "order", "order_g": "order"}  # fmt: skip
_AGGREGATE_INNER = {"having": "having_in", "order_g": "order"}  # contexts whose expressions may aggregate


def _alternatives(nt: tuple) -> list[tuple[Symbol, ...]]:
    """The productions of nonterminal `nt` (name, *parameters), LL(1) over token classes."""
    name, *p = nt
    ctx = p[0] if p else None
    if name == "Query":
        return [("select", _n("SelMod"), _n("Projection"), Act("end_projection")),
                ("ask", _n("WhereKw"), _n("Group"))]  # fmt: skip
    if name == "SelMod":
        return [(), ("distinct",)]
    if name == "Projection":
        return [("*", Act("star")), (_n("ProjItem"), _n("ProjRest"))]
    if name == "ProjRest":
        return [(), (_n("ProjItem"), _n("ProjRest"))]
    if name == "ProjItem":
        return [
            (Term(frozenset({VAR}), "proj"),),
            (Term(frozenset({"("}), "open_as"), _n("ProjExpr"), "as", Term(frozenset({VAR}), "as"), ")"),
        ]
    if name == "ProjExpr":  # an aggregate stands alone (detokenize rewrites `count (` elsewhere)
        return [*_aggregates("pagg", True), (_n("Expr", "pexpr"),)]
    if name == "WhereKw":
        return [(), ("where",)]
    if name == "Group":
        return [("{", _n("Body"), "}")]
    if name == "Body":
        return [(_n("Triples"), _n("AfterTriples")), (_n("NotTriples"), _n("AfterNot"))]
    if name == "AfterTriples":
        return [(), (".", _n("AfterDot")), (_n("NotTriples"), _n("AfterNot"))]
    if name == "AfterDot":  # the tokenizer drops a `.` before `}`
        return [(_n("Triples"), _n("AfterTriples")), (_n("NotTriples"), _n("AfterNot"))]
    if name == "AfterNot":
        return [
            (),
            (".", _n("AfterDot")),
            (_n("Triples"), _n("AfterTriples")),
            (_n("NotTriples"), _n("AfterNot")),
        ]
    if name == "NotTriples":
        return [("filter", _n("Constraint", "filter")), ("optional", _n("Group")), ("minus", _n("Group")),
                (_n("Group"), _n("UnionRest"))]  # fmt: skip
    if name == "UnionRest":
        return [(), ("union", _n("Group"), _n("UnionRest"))]
    if name == "Triples":
        return [(Term(SUBJECT, "subj"), _n("VerbObjects"), _n("PropRest"))]
    if name == "PropRest":
        return [(), (";", _n("VerbObjects"), _n("PropRest"))]
    if name == "VerbObjects":
        return [("a", Term(CLASS_OBJECT, "cobj"), _n("ObjRest", "cobj")),
                (Term(frozenset({VAR}), "pred"), Term(OBJECT, "obj"), _n("ObjRest", "obj")),
                (_n("PathSeq"), _n("PathAlt"), Term(OBJECT, "obj"), _n("ObjRest", "obj"))]  # fmt: skip
    if name == "ObjRest":
        return [(), (",", Term(CLASS_OBJECT if ctx == "cobj" else OBJECT, ctx), _n("ObjRest", ctx))]
    if name == "PathAlt":
        return [(), ("|", _n("PathSeq"), _n("PathAlt"))]
    if name == "PathSeq":
        return [(_n("PathElt"), _n("PathSeqRest"))]
    if name == "PathSeqRest":
        return [(), ("/", _n("PathElt"), _n("PathSeqRest"))]
    if name == "PathElt":
        return [(Term(PREDICATE, "pred"), _n("PathMod")), ("^", Term(PREDICATE, "pred"), _n("PathMod"))]
    if name == "PathMod":
        return [(), ("*",), ("+",)]
    if name == "Constraint":
        return [("(", _n("Expr", ctx), ")"), *_calls(ctx)]
    if name == "Expr":
        return [(_n("And", ctx), _n("OrRest", ctx))]
    if name == "OrRest":
        return [(), ("||", _n("And", ctx), _n("OrRest", ctx))]
    if name == "And":
        return [(_n("Rel", ctx), _n("AndRest", ctx))]
    if name == "AndRest":
        return [(), ("&&", _n("Rel", ctx), _n("AndRest", ctx))]
    if name == "Rel":
        return [(_n("Add", ctx), _n("RelRest", ctx))]
    if name == "RelRest":
        return [(), *((op, _n("Add", ctx)) for op in COMPARISONS), ("in", _n("List", ctx)),
                ("not", "in", _n("List", ctx))]  # fmt: skip
    if name == "List":
        return [("(", _n("Expr", ctx), _n("More", ctx, -1), ")")]
    if name == "Add":
        return [(_n("Mul", ctx), _n("AddRest", ctx))]
    if name == "AddRest":
        return [(), ("+", _n("Mul", ctx), _n("AddRest", ctx)), ("-", _n("Mul", ctx), _n("AddRest", ctx))]
    if name == "Mul":
        return [(_n("Unary", ctx), _n("MulRest", ctx))]
    if name == "MulRest":
        return [(), ("*", _n("Unary", ctx), _n("MulRest", ctx)), ("/", _n("Unary", ctx), _n("MulRest", ctx))]
    if name == "Unary":  # one sign at most: rdflib refuses `! !` and `- -`
        return [(op, _n("Primary", ctx)) for op in ("!", "-", "+")] + [(_n("Primary", ctx),)]
    if name == "Primary":
        return [("(", _n("Expr", ctx), ")"), (Term(EXPRESSION_TERM, _CONTEXT_ROLE[ctx]),), *_calls(ctx),
                (Term(frozenset({CAST}), "cast"), _n("Args", ctx, 1, 1))]  # fmt: skip
    if name == "Args":
        fewest, most = p[1], p[2]
        if most == 0:
            return [("(", ")")]
        rest: tuple[Symbol, ...] = (",", _n("Expr", ctx)) * (fewest - 1)
        more = () if most == fewest else (_n("More", ctx, -1 if most < 0 else most - fewest),)
        return [("(", _n("Expr", ctx), *rest, *more, ")")]
    if name == "More":
        left = p[1]
        if left == 0:
            return [()]
        return [(), (",", _n("Expr", ctx), _n("More", ctx, -1 if left < 0 else left - 1))]
    if name == "Distinct":
        return [(), ("distinct",)]
    if name == "CountArg":
        return [("*",), (_n("Expr", ctx),)]
    if name == "Mods":
        needs, aggregated, star = p
        plain = (_n("Order", aggregated), _n("Limit"))
        if star or not needs:
            return [plain]
        grouped = ("group", "by", *needs, _n("Having"), _n("Order", True), _n("Limit"))
        return [grouped] if aggregated else [grouped, plain]
    if name == "Having":
        return [(), ("having", _n("Constraint", "having"))]
    if name == "Order":
        return [(), ("order", "by", _n("OrderCond", ctx), _n("OrderRest", ctx))]
    if name == "OrderRest":
        return [(), (_n("OrderCond", ctx), _n("OrderRest", ctx))]
    if name == "OrderCond":
        inner = "order_g" if ctx else "order"
        return [("asc", "(", _n("Expr", inner), ")"), ("desc", "(", _n("Expr", inner), ")"),
                (Term(frozenset({VAR}), "order"),), ("(", _n("Expr", inner), ")"), *_calls(inner)]  # fmt: skip
    if name == "Limit":
        number = Term(frozenset({INTEGER}), "number")
        return [(), ("limit", number, _n("OffsetOnly")), ("offset", number, _n("LimitOnly"))]
    if name == "OffsetOnly":
        return [(), ("offset", Term(frozenset({INTEGER}), "number"))]
    if name == "LimitOnly":
        return [(), ("limit", Term(frozenset({INTEGER}), "number"))]
    raise KeyError(f"no grammar rule {name}")


def _calls(ctx: str) -> list[tuple[Symbol, ...]]:
    """Built-in calls an expression of context `ctx` may make."""
    role = _CONTEXT_ROLE[ctx]
    out: list[tuple[Symbol, ...]] = [(f, _n("Args", ctx, *FUNCTIONS[f])) for f in FUNCTIONS]
    out.append(("bound", "(", Term(frozenset({VAR}), role), ")"))
    if ctx == "filter":
        out += [("exists", _n("Group")), ("not", "exists", _n("Group"))]
    if ctx in _AGGREGATE_INNER:
        out += _aggregates(_AGGREGATE_INNER[ctx], False)
    return out


def _aggregates(inner: str, projection: bool) -> list[tuple[Symbol, ...]]:
    mark = (Act("aggregate"),) if projection else ()
    out: list[tuple[Symbol, ...]] = [("count", *mark, "(", _n("Distinct"), _n("CountArg", inner), ")")]
    out += [(f, *mark, "(", _n("Distinct"), _n("Expr", inner), ")") for f in AGGREGATES[1:]]
    return out


_END_PROJECTION = Act("end_projection")


class QueryGrammar:
    """The automaton for one target vocabulary (word-level models: one id per SPARQL token)."""

    def __init__(
        self, vocabulary: Sequence[str], kb: str | PrefixMap, slot_classes: frozenset[str] = frozenset()
    ):
        """`slot_classes`: the term classes the examples' copy slots bring (a copy model's vocabulary
        holds no KB element: without them, no path through a property or an entity would be open)."""
        self.pm = prefix_map(kb) if isinstance(kb, str) else kb
        self.vocab_size = len(vocabulary)
        vocab_classes = [token_class(t, self.pm) for t in vocabulary]
        if EOS in vocabulary:
            vocab_classes[list(vocabulary).index(EOS)] = _EOS
        self.variables = frozenset(c for c in vocab_classes if c.startswith("?"))
        self.available = frozenset(vocab_classes) | {_kind(c) for c in vocab_classes} | slot_classes
        # Columns of the cost table: never, EOS, every term kind (copy slots may bring any), keywords, variables.
        keywords = sorted(c for c in set(vocab_classes) if c in KEYWORDS)
        self.classes = [_NEVER, _EOS, *TERM_CLASSES, *keywords, *sorted(self.variables)]
        self.column = {c: i for i, c in enumerate(self.classes)}
        self.vocab_columns = [self.column[c] for c in vocab_classes]
        self.vocab_column = torch.tensor(self.vocab_columns, dtype=torch.long)
        self.soft_ids = torch.tensor(
            [i for i, t in enumerate(vocabulary) if t in _MORE_TRIPLES], dtype=torch.long
        )
        self.opener_ids = torch.tensor(
            [
                i
                for i, t, c in zip(range(len(vocabulary)), vocabulary, vocab_classes)
                if t in _OPENERS or c == CAST
            ],
            dtype=torch.long,
        )
        self.depth_change = [(t in ("{", "(")) - (t in ("}", ")")) for t in vocabulary]
        self._first: dict[tuple, frozenset[str]] = {}
        self._nullable: dict[tuple, bool] = {}
        self._minlen: dict[tuple, int] = {}
        self._alt_first: dict[tuple, list[tuple[tuple[Symbol, ...], set[str], int]]] = {}
        self._lengths: dict[Symbol, int] = {}
        self._columns_of: dict[str, list[int]] = {}
        for col, cls in enumerate(self.classes[2:], start=2):
            self._columns_of.setdefault(cls, []).append(col)
            if cls.startswith("?"):
                self._columns_of.setdefault(VAR, []).append(col)
        self._reset_states()
        self.shortest = self.cost(self.start_state)
        if self.shortest >= INF:
            raise ValueError("the target vocabulary cannot write any query (no variable or no `{`?)")

    # -- grammar analysis ---------------------------------------------------------------------------
    def _analyse(self, root: tuple) -> None:
        """FIRST, nullable and fewest tokens of `root` and every nonterminal it reaches (a fixpoint)."""
        todo, stack = [], [root]
        seen = {root}
        while stack:
            nt = stack.pop()
            todo.append(nt)
            for alt in _alternatives(nt):
                for sym in alt:
                    if isinstance(sym, tuple) and sym not in seen and sym not in self._minlen:
                        seen.add(sym)
                        stack.append(sym)
        for nt in todo:
            self._first[nt], self._nullable[nt], self._minlen[nt] = frozenset(), False, INF
        changed = True
        while changed:
            changed = False
            for nt in todo:
                first, nullable, best = set(self._first[nt]), self._nullable[nt], self._minlen[nt]
                for alt in _alternatives(nt):
                    alt_first, alt_nullable, alt_len = self._sequence(alt)
                    first |= alt_first
                    nullable |= alt_nullable
                    best = min(best, alt_len)
                if (frozenset(first), nullable, best) != (
                    self._first[nt],
                    self._nullable[nt],
                    self._minlen[nt],
                ):
                    self._first[nt], self._nullable[nt], self._minlen[nt] = frozenset(first), nullable, best
                    changed = True
        for nt in todo:
            self._alt_first[nt] = [
                (alt, self._sequence(alt)[0], sum(self._length(sym) for sym in alt))
                for alt in _alternatives(nt)
            ]

    def _sequence(self, seq: Sequence[Symbol]) -> tuple[set[str], bool, int]:
        """FIRST, nullable and fewest tokens of a sequence of symbols."""
        first: set[str] = set()
        total, nullable = 0, True
        for sym in seq:
            if isinstance(sym, Act):
                if sym.name == "end_projection":  # what it pushes, at its cheapest (no GROUP BY)
                    total = min(
                        INF, total + self._symbol(("Group",))[2] + self._symbol(("Mods", (), False, False))[2]
                    )
                continue
            sym_first, sym_nullable, sym_len = self._symbol(sym)
            if nullable:
                first |= sym_first
            total = min(INF, total + sym_len)
            nullable = nullable and sym_nullable
        return first, nullable, total

    def _symbol(self, sym: Symbol) -> tuple[frozenset[str], bool, int]:
        if isinstance(sym, str):
            return frozenset({sym}), False, 1 if sym in self.available else INF
        if isinstance(sym, Term):
            return sym.kinds, False, 1 if sym.kinds & self.available else INF
        if sym not in self._minlen:
            self._analyse(sym)
        return self._first[sym], self._nullable[sym], self._minlen[sym]

    def _length(self, sym: Symbol) -> int:
        found = self._lengths.get(sym)
        if found is None:
            found = self._lengths[sym] = 0 if isinstance(sym, Act) else self._symbol(sym)[2]
        return found

    def cost(self, state: State) -> int:
        """The fewest vocabulary tokens that finish a query from `state` (INF: none can)."""
        stack, facts = state
        total = sum(self._length(sym) for sym in stack)
        if _END_PROJECTION in stack:
            total += self._length(("Group",)) + self._length(self._modifiers(facts))
        return min(total, INF)

    def _candidates(self, stack: tuple[Symbol, ...]) -> list[int]:
        """Columns of the classes that may come next (FIRST of the stack, before the role checks)."""
        first: set[str] = set()
        for sym in reversed(stack):
            if isinstance(sym, Act):
                if sym == _END_PROJECTION:
                    first |= {"where", "{"}
                    break
                continue
            sym_first, nullable, _ = self._symbol(sym)
            first |= sym_first
            if not nullable:
                break
        return sorted({col for f in first for col in self._columns_of.get(f, ())})

    # -- the automaton ----------------------------------------------------------------------------
    @staticmethod
    def _modifiers(facts: tuple) -> tuple:
        needs, _, aggregated, star = facts
        return ("Mods", needs, aggregated, star)

    def _act(self, act: Act, stack: list[Symbol], facts: tuple) -> tuple:
        needs, as_bound, aggregated, star = facts
        if act.name == "aggregate":
            return needs, as_bound, True, star
        if act.name == "star":
            return needs, as_bound, aggregated, True
        stack.extend([self._modifiers(facts), ("Group",), ("WhereKw",)])  # end_projection
        return (), as_bound, False, False

    def _role_allows(self, role: str, cls: str, facts: tuple) -> bool:
        needs, as_bound, _, _ = facts
        if not cls.startswith("?"):
            return role != "open_as" or self._can_alias(needs, as_bound)
        if role in _BODY_ROLES or role == "pagg":
            return cls not in as_bound
        if role == "proj":
            return cls not in needs and cls not in as_bound
        if role == "pexpr":
            return cls not in as_bound and (cls in needs or self._can_alias((*needs, cls), as_bound))
        if role == "as":
            return cls not in as_bound and cls not in needs and len(self.variables - as_bound - {cls}) >= 1
        return True  # order

    def _can_alias(self, needs: tuple, as_bound: frozenset) -> bool:
        """A fresh `AS ?v` stays possible, and a variable is left for the WHERE clause."""
        return len(self.variables - as_bound - set(needs)) >= 1 and len(self.variables - as_bound) >= 2

    @staticmethod
    def _role_effect(role: str, cls: str, facts: tuple) -> tuple:
        needs, as_bound, aggregated, star = facts
        if role == "proj" or (role == "pexpr" and cls.startswith("?") and cls not in needs):
            return (*needs, cls), as_bound, aggregated, star
        if role == "as":
            return needs, as_bound | {cls}, aggregated, star
        return facts

    def _step(self, state: State, cls: str, cost: int) -> tuple[State, bool, int] | None:
        """The state after a token of class `cls`, whether it was a triple's object, and the new state's
        cost (kept up to date from `cost`, the current one, as symbols are popped and pushed); None if
        `cls` cannot come."""
        stack, facts = list(state[0]), state[1]
        kind = _kind(cls)
        start_facts = facts
        while stack:
            top = stack.pop()
            if isinstance(top, Act):
                facts = self._act(top, stack, facts)  # end_projection pushes exactly what it counted
                continue
            if isinstance(top, str):
                if top != cls:
                    return None
                role = ""
                break
            if isinstance(top, Term):
                if kind not in top.kinds or not self._role_allows(top.role, cls, facts):
                    return None
                facts = self._role_effect(top.role, cls, facts)
                role = top.role
                break
            self._symbol(top)
            cost -= self._length(top)
            for alt, first, length in self._alt_first[top]:
                if cls in first or kind in first:
                    stack.extend(reversed(alt))
                    cost += length
                    if _END_PROJECTION in alt:
                        cost += self._length(("Group",)) + self._length(self._modifiers(facts))
                    break
            else:
                if not self._nullable[top]:
                    return None
        else:
            return None
        cost -= 1
        while stack and isinstance(stack[-1], Act):
            facts = self._act(stack.pop(), stack, facts)
        nxt = (tuple(stack), facts)
        if facts is not start_facts:  # the projection changed: what end_projection costs may have too
            cost = self.cost(nxt)
        return nxt, role in ("obj", "cobj"), min(cost, INF)

    # -- interned states and their cost rows ------------------------------------------------------
    def _reset_states(self) -> None:
        self.start_state: State = ((("Query",),), _START_FACTS)
        self._ids: dict[State, int] = {}
        self._states: list[State] = []
        self._costs: list[int] = []
        self._slot: list[int | None] = []  # row of each state in the cost table, once computed
        self._rows: list[list[int]] = []
        self._next: list[dict[int, tuple[int, bool]]] = []
        self._table = torch.zeros((0, len(self.classes)), dtype=torch.int32)
        self.start_id = self._intern(self.start_state)
        # A row that took a refused id (beam search, when fewer ids than candidates are allowed): its
        # terminal matches no class, so every id stays refused, EOS included.
        self.dead_id = self._intern(((_NEVER,), _START_FACTS))

    def _intern(self, state: State, cost: int | None = None) -> int:
        found = self._ids.get(state)
        if found is None:
            found = self._ids[state] = len(self._states)
            self._states.append(state)
            self._costs.append(self.cost(state) if cost is None else cost)
            self._slot.append(None)
            self._next.append({})
        return found

    def _row(self, sid: int) -> list[int]:
        """Tokens needed after each class (1 + the fewest to finish from the next state), INF if refused."""
        slot = self._slot[sid]
        if slot is None:
            state, cost = self._states[sid], self._costs[sid]
            row = [INF] * len(self.classes)
            row[self.column[_EOS]] = 0 if cost == 0 else INF
            for col in self._candidates(state[0]):
                found = self._step(state, self.classes[col], cost)
                if found is not None and found[2] < INF:
                    nxt, is_object, after = found
                    row[col] = 1 + after
                    self._next[sid][col] = (self._intern(nxt, after), is_object)
            self._slot[sid] = slot = len(self._rows)
            self._rows.append(row)
        return self._rows[slot]

    def accepts(self, tokens: Sequence[str]) -> bool:
        """Whether the automaton reads `tokens` (a canonical query) to the end, where EOS may come."""
        sid = self.start_id
        for token in tokens:
            col = self.column.get(token_class(token, self.pm), 0)
            if token.startswith("?") and token not in self.column:  # a variable the vocabulary lacks
                return False
            self._row(sid)
            step = self._next[sid].get(col)
            if step is None:
                return False
            sid = step[0]
        return self._row(sid)[self.column[_EOS]] == 0

    def table_rows(self, states: Sequence[int], device: torch.device) -> torch.Tensor:
        """(len(states), classes) cost rows of `states`, gathered from the table cached on `device`."""
        for sid in set(states):
            self._row(sid)
        slots = [self._slot[sid] for sid in states]
        return self._table_on(device)[torch.tensor(slots, dtype=torch.long, device=device)]

    def _table_on(self, device: torch.device) -> torch.Tensor:
        """The cost table on `device`: rows computed since the last call are copied over, not the rest."""
        if self._table.device != device:
            self._table = self._table.to(device)
        done = self._table.size(0)
        if done < len(self._rows):
            fresh = torch.tensor(self._rows[done:], dtype=torch.int32, device=device)
            self._table = torch.cat([self._table, fresh])
        return self._table

    def bind(self, slot_tokens: Sequence[Sequence[str]]) -> BoundGrammar:
        """This grammar with the copy slots of each example of a batch (`slot_tokens[e]`)."""
        return BoundGrammar(self, slot_tokens)


class BoundGrammar:
    """A grammar with a batch's copy slots: the decoders call `start` once per batch."""

    def __init__(self, grammar: QueryGrammar, slot_tokens: Sequence[Sequence[str]]):
        self.grammar = grammar
        width = max((len(s) for s in slot_tokens), default=0)
        self.slot_columns = [[grammar.column[token_class(t, grammar.pm)] for t in s] for s in slot_tokens]
        self.slot_column = torch.tensor(
            [c + [0] * (width - len(c)) for c in self.slot_columns], dtype=torch.long
        ).view(len(slot_tokens), width)

    def start(self, src_mask: torch.Tensor, max_len: int) -> GrammarRows:
        """Trackers for the examples of a batch, each capped from its source length."""
        g = self.grammar
        if len(g._states) > MAX_STATES:
            g._reset_states()
        if g.shortest > max_len:
            raise ValueError(
                f"max_len={max_len} is shorter than the shortest query the grammar allows ({g.shortest})"
            )
        lengths = src_mask.sum(dim=1).tolist()
        caps = [
            max(g.shortest, min(max_len, LENGTH_PER_SOURCE_TOKEN * int(n) + LENGTH_SLACK)) for n in lengths
        ]
        device = src_mask.device
        on_device = _OnDevice(
            device, torch.tensor(caps, device=device), g.vocab_column.to(device), g.soft_ids.to(device),
            g.opener_ids.to(device), self.slot_column.to(device),
        )  # fmt: skip
        n = len(caps)
        return GrammarRows(self, on_device, [g.start_id] * n, list(range(n)), [(0, 0)] * n)


@dataclass(frozen=True)
class _OnDevice:
    """A batch's tables on the device it decodes on (moved once per batch, not per step)."""

    device: torch.device
    caps: torch.Tensor
    vocab_column: torch.Tensor
    soft_ids: torch.Tensor
    opener_ids: torch.Tensor
    slot_column: torch.Tensor


class GrammarRows:
    """The automaton state of each decoder row (rows are named by their example index)."""

    def __init__(
        self,
        bound: BoundGrammar,
        tables: _OnDevice,
        states: list[int],
        examples: list[int],
        counts: list[tuple[int, int]],
    ):
        """`counts`: each row's triple patterns and bracket depth so far (the soft rules)."""
        self.bound, self.tables, self.states, self.examples = bound, tables, states, examples
        self.counts = counts
        self._example_index = torch.tensor(examples, dtype=torch.long, device=tables.device)

    def restrict(self, log_probs: torch.Tensor, emitted: int) -> torch.Tensor:
        """(rows, V + M) log-probs with every id that cannot continue a query within its cap at -inf."""
        g = self.bound.grammar
        t = self.tables
        costs = g.table_rows(self.states, t.device).long()
        m = log_probs.size(-1) - g.vocab_size
        slots = t.slot_column[self._example_index, :m]
        slots = torch.nn.functional.pad(slots, (0, m - slots.size(1)))
        needed = torch.cat([costs[:, t.vocab_column], costs.gather(1, slots)], dim=-1)
        forbidden = needed + emitted > t.caps[self._example_index].unsqueeze(1)
        many = [r for r, (n, _) in enumerate(self.counts) if n >= MAX_TRIPLES]
        deep = [r for r, (_, d) in enumerate(self.counts) if d >= MAX_DEPTH]
        if many or deep:
            soft = forbidden.clone()
            for rows, ids in ((many, t.soft_ids), (deep, t.opener_ids)):
                if rows and ids.numel():
                    index = torch.tensor(rows, dtype=torch.long, device=t.device)
                    soft[index.unsqueeze(1), ids.unsqueeze(0)] = True
            keep = soft.all(dim=-1, keepdim=True)  # nothing else left: the soft rules give way
            forbidden = torch.where(keep, forbidden, soft)
        return log_probs.masked_fill(forbidden, float("-inf"))

    def select(self, index: torch.Tensor) -> GrammarRows:
        """The rows at `index` (surviving rows of greedy, reordered beams), in that order."""
        picked = index.tolist()
        return GrammarRows(
            self.bound, self.tables, [self.states[i] for i in picked], [self.examples[i] for i in picked],
            [self.counts[i] for i in picked],
        )  # fmt: skip

    def advance(self, tokens: torch.Tensor) -> GrammarRows:
        """The states after each row emits its token (an id the mask refused leaves the row dead: it
        stays in place and every id stays refused, so beam search never finishes it)."""
        g = self.bound.grammar
        v, eos = g.vocab_size, g.column[_EOS]
        states, counts = [], []
        for row, token in enumerate(tokens.tolist()):
            sid, example = self.states[row], self.examples[row]
            if token < v:
                col = g.vocab_columns[token]
            else:
                columns = self.bound.slot_columns[example]
                col = columns[token - v] if token - v < len(columns) else 0
            g._row(sid)
            step = g._next[sid].get(col)
            triples, depth = self.counts[row]
            if col == eos or step is None:
                states.append(sid if col == eos else g.dead_id)
                counts.append((triples, depth))
            else:
                states.append(step[0])
                counts.append((triples + step[1], depth + (g.depth_change[token] if token < v else 0)))
        return GrammarRows(self.bound, self.tables, states, self.examples, counts)
