"""The plain triple patterns of a query's canonical tokens, and the variable it answers with: what
repair rewrites and what the KB index learns the slots of "who" answers from."""

from __future__ import annotations

from collections.abc import Sequence

from nmt_sparql.sparql.tokens import NUMBER, TokenType

_TERMS = (TokenType.URI, TokenType.LITERAL, TokenType.VARIABLE)


def triple_patterns(tokens: Sequence[str], types: Sequence[TokenType]) -> list[tuple[int, int, int]]:
    """(subject, predicate, object) token positions of the plain triple patterns of a query, in order
    (`;` and `,` abbreviations expanded); FILTER, BIND, paths, VALUES blocks and the like are passed over."""
    free, subject, predicate, obj, end, values = range(6)
    state, depth, s, p = free, 0, -1, -1
    out: list[tuple[int, int, int]] = []
    for i, (tok, kind) in enumerate(zip(tokens, types)):
        term = kind in _TERMS
        if state == values or tok == "values":  # `values ?k { res:A res:B }` is no pattern `res:A res:B ...`
            state = subject if tok == "}" else values
        elif tok == "{":
            state, depth = subject, 0
        elif state == subject and term:
            s, state = i, predicate
        elif state == predicate and (term or tok == "a"):
            p, state = i, obj
        elif state == obj and term:
            out.append((s, p, i))
            state = end
        elif state == end and tok in (".", ";", ","):
            state = {".": subject, ";": predicate, ",": obj}[tok]
        elif state == free and tok in ("(", ")"):
            depth += 1 if tok == "(" else -1
        elif state == free and tok == "." and depth <= 0:
            state = subject
        else:
            state, depth = free, (1 if tok == "(" else 0)
    return out


def answer_variable(tokens: Sequence[str], types: Sequence[TokenType]) -> str | None:
    """The first variable a SELECT projects (`select distinct ?x`, `select ( count ( ?x ) ...`), or None."""
    if "select" not in tokens:
        return None
    for tok, kind in zip(tokens[tokens.index("select") + 1 :], types[tokens.index("select") + 1 :]):
        if kind == TokenType.VARIABLE:
            return tok
        if tok in ("where", "{"):
            return None
    return None


def _parts(tokens: Sequence[str], types: Sequence[TokenType]) -> tuple[str, list[set[str]]] | None:
    """A SELECT's answer variable and the variable sets of its triple patterns (and of its FILTERs that
    compare two variables) that no chain of shared variables joins to it; None for ASK and for a query
    without patterns or answer variable."""
    answer = answer_variable(tokens, types)
    patterns = [
        {tokens[i] for i in triple if types[i] == TokenType.VARIABLE}
        for triple in triple_patterns(tokens, types)
    ]
    if answer is None or not patterns:
        return None
    compared = [
        {tokens[i] for i in range(start, end) if types[i] == TokenType.VARIABLE}
        for start, end in _filter_spans(tokens)
    ]
    patterns += [variables for variables in compared if len(variables) > 1]
    joined, rest = {answer}, patterns
    while True:
        linked = [p for p in rest if p & joined]
        if not linked:
            return answer, rest
        rest = [p for p in rest if not p & joined]
        joined.update(*linked)


def falls_apart(tokens: Sequence[str], types: Sequence[TokenType]) -> bool:
    """Whether a SELECT holds a triple pattern that no chain of shared variables joins to its answer
    variable (`?x a ont:City . res:Germany ont:capital ?y`): the answer is then a cross product with
    a condition on something else, which no question asks for. A FILTER that compares two variables
    joins them (`?x ont:orderFromSun ?v . res:Earth ont:orderFromSun ?e . filter ( ?v > ?e )`). False
    for ASK and for a query without patterns or answer variable."""
    parts = _parts(tokens, types)
    return parts is not None and bool(parts[1])


def repeats_a_pattern(tokens: Sequence[str], types: Sequence[TokenType]) -> bool:
    """Whether an ASK writes one pattern with a variable twice (`res:Nvidia ont:headquarters ?y .
    res:Nvidia ont:headquarters ?y`): the second says nothing, so the query has lost what it stood for
    and is true of the one thing it still names ("is Nvidia based in the same city as Apple"). A
    SELECT's copy, or a pattern with no variable written twice, still asks what it asked."""
    if tokens[:1] != ["ask"]:
        return False
    written = [
        tuple(tokens[i] for i in triple)
        for triple in triple_patterns(tokens, types)
        if any(types[i] == TokenType.VARIABLE for i in triple)
    ]
    return len(set(written)) < len(written)


def apart(tokens: Sequence[str], types: Sequence[TokenType]) -> tuple[str, list[str]] | None:
    """A SELECT that falls apart (`falls_apart`): its answer variable and the variables of the patterns
    not joined to it, in the order they first stand; None when it does not, or they hold none."""
    parts = _parts(tokens, types)
    if parts is None or not parts[1]:
        return None
    rest = set().union(*parts[1])
    variables = [t for t in dict.fromkeys(tokens) if t in rest]
    return (parts[0], variables) if variables else None


def reads_unbound(tokens: Sequence[str], types: Sequence[TokenType]) -> bool:
    """Whether an ORDER BY or a FILTER reads a variable that the WHERE clause binds nowhere else and no
    `AS` names (`?x a ont:Country . ?x ont:continent res:Africa } order by desc ( ?v )`): the order or
    the condition then says nothing, and "the biggest country in Africa" is any African country."""
    bound, read = set(), set()
    braces, ordered = 0, False
    filtering: int | None = None  # parenthesis depth inside a FILTER; None outside one
    for k, (token, kind) in enumerate(zip(tokens, types)):
        if token in ("{", "}"):
            braces += 1 if token == "{" else -1
        elif token == "filter":
            filtering = 0
        elif filtering is not None and token in ("(", ")"):
            filtering += 1 if token == "(" else -1
            filtering = None if filtering == 0 else filtering
        elif token == "order" and tokens[k + 1 : k + 2] == ["by"]:
            ordered = True
        elif kind == TokenType.VARIABLE:
            if filtering is not None or ordered:
                read.add(token)
            elif braces > 0 or (k and tokens[k - 1] == "as"):
                bound.add(token)
    return bool(read - bound)


def closing(tokens: Sequence[str], opening: int) -> int:
    """Where the parenthesis at `opening` closes (the last token when it does not)."""
    depth = 0
    for at in range(opening, len(tokens)):
        depth += {"(": 1, ")": -1}.get(tokens[at], 0)
        if depth == 0:
            return at
    return len(tokens) - 1


def _filter_spans(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """(start, end) token spans of each `filter ( ... )`, its closing parenthesis included."""
    return [
        (k, closing(tokens, k + 1) + 1)
        for k, token in enumerate(tokens)
        if token == "filter" and tokens[k + 1 : k + 2] == ["("]
    ]


def compared_variables(tokens: Sequence[str], types: Sequence[TokenType]) -> set[str]:
    """The variables a FILTER orders against something (`<`, `>`, `<=`, `>=`, also inside `year ( )`)
    or sets equal to a number (`?v = 1801`): values that must be numbers or dates for the comparison to
    hold of anything."""
    out: set[str] = set()
    for start, end in _filter_spans(tokens):
        span = range(start, end)
        ordered = any(tokens[i] in ("<", ">", "<=", ">=") for i in span)
        numbered = any(tokens[i] in ("=", "!=") for i in span) and any(
            types[i] == TokenType.LITERAL and NUMBER.fullmatch(tokens[i]) for i in span
        )
        if ordered or numbered:
            out.update(tokens[i] for i in span if types[i] == TokenType.VARIABLE)
    return out


def constant_comparisons(tokens: Sequence[str], types: Sequence[TokenType]) -> list[tuple[int, int]]:
    """(start, end) token spans of the FILTERs that order one variable against a constant (`filter ( ?v
    > 8000 )`, `filter ( ?v > "Alpine" )`), not two variables against each other."""
    return [
        (start, end)
        for start, end in _filter_spans(tokens)
        if any(tokens[i] in ("<", ">", "<=", ">=") for i in range(start, end))
        and len({tokens[i] for i in range(start, end) if types[i] == TokenType.VARIABLE}) == 1
    ]


def _alone(tokens: Sequence[str], types: Sequence[TokenType], span: tuple[int, int]) -> bool:
    """Whether a FILTER span tests one term alone (`filter ( ?v )`)."""
    start, end = span
    return end - start == 4 and tokens[end - 1] == ")" and types[start + 2] in _TERMS


def filters_nothing(tokens: Sequence[str], types: Sequence[TokenType]) -> bool:
    """Whether a FILTER tests one term alone (`filter ( ?v )`): legal SPARQL, the term's truth value, but
    no question means it; "mountains higher than 8000 metres" decoded so has lost its comparison."""
    return any(_alone(tokens, types, span) for span in _filter_spans(tokens))


def braces(tokens: Sequence[str]) -> tuple[int, int] | None:
    """The positions of a query's first opening and last closing brace, where its patterns stand; None
    without both."""
    if "{" not in tokens or "}" not in tokens:
        return None
    return tokens.index("{"), len(tokens) - 1 - tokens[::-1].index("}")


def idle_filters(tokens: Sequence[str], types: Sequence[TokenType]) -> list[tuple[int, int]]:
    """(start, end) token spans of the FILTERs that test one term alone (`filters_nothing`) or read a
    variable the WHERE clause binds nowhere else: conditions on nothing the query holds, which empty its
    answer or keep all of it, whatever the question asked."""
    found = braces(tokens)
    if found is None:
        return []
    spans = _filter_spans(tokens)
    body = range(found[0], found[1] + 1)
    inside = {i for start, end in spans for i in range(start, end)}
    bound = {tokens[i] for i in body if i not in inside and types[i] == TokenType.VARIABLE}
    return [
        (start, end)
        for start, end in spans
        if _alone(tokens, types, (start, end))
        or any(types[i] == TokenType.VARIABLE and tokens[i] not in bound for i in range(start, end))
    ]
