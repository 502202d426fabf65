"""Pre-binding of ``$this`` in a SHACL-SPARQL ``sh:select``, done as a join where that is exact.

SHACL 1.0 (section 5.2 and its appendix on pre-binding) evaluates a
constraint's query once per focus node with ``$this`` replaced by that node
everywhere in the query. The compiled engine instead evaluates the query once,
with the focus nodes joined in as the first pattern of the query's top group.
The two agree exactly when every part of the query that *reads* ``?this``
(a FILTER, a BIND, an OPTIONAL's right side or condition, an EXISTS, a
grouping, a LIMIT) sees it bound by the patterns it is evaluated over; the
same holds for ``$shapesGraph`` and ``$currentShape``, joined in as constants.
This module checks that on the query's algebra:

- a query that breaks a restriction of section 5.2.1 (``MINUS``, ``VALUES``,
  ``SERVICE``, ``AS ?this``, a sub-select that does not return ``?this``)
  raises :class:`IllFormedShape`: a conforming engine refuses such shapes;
- a query whose join would differ from pre-binding (``$this`` read in a
  UNION branch, an inner group, a sub-select; a LIMIT or an aggregate not
  grouped by ``?this``) raises
  :class:`~hopgate.errors.UnsupportedShape`, and the caller falls back to
  pySHACL, which substitutes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rdflib.term import Variable

if TYPE_CHECKING:
    from rdflib.plugins.sparql.parserutils import CompValue
else:
    # Imported on first use: rdflib's SPARQL package is slow to import, and
    # every hopgate command imports this module.
    CompValue = None

from hopgate.errors import IllFormedShape

#: Stands for the pre-bound variables while the query is analysed; replaced by the focus nodes.
FOCUS_MARK = "?this <urn:hopgate:focus> ?shapesGraph , ?currentShape ."
_THIS = Variable("this")
#: The variables SHACL pre-binds in a ``sh:select`` (SHACL 1.0 5.2).
PREBOUND = frozenset({_THIS, Variable("shapesGraph"), Variable("currentShape")})


class NotJoinable(Exception):
    """The query reads ``?this`` where a join with the focus nodes is not pre-binding."""


def focus_mark(extra: Sequence[str] = ()) -> str:
    """The mark for the pre-bound variables: :data:`FOCUS_MARK` and ``extra`` (parameter names)."""
    return FOCUS_MARK + "".join(f" ?this <urn:hopgate:focus> ?{name} ." for name in extra)


def mark_focus(text: str, extra: Sequence[str] = ()) -> str:
    """``text`` with ``$this`` written ``?this`` and :func:`focus_mark` opening the top group."""
    out: list[str] = []
    index = 0
    quote: str | None = None
    opened = False
    while index < len(text):
        char = text[index]
        if quote is not None:
            if text.startswith(quote, index):
                out.append(quote)
                index += len(quote)
                quote = None
                continue
            if char == "\\":
                out.append(text[index : index + 2])
                index += 2
                continue
            out.append(char)
            index += 1
            continue
        if char == "#":
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
            out.append(text[index:end])
            index = end
            continue
        for delimiter in ('"""', "'''", '"', "'"):
            if text.startswith(delimiter, index):
                quote = delimiter
                out.append(delimiter)
                index += len(delimiter)
                break
        else:
            if text.startswith("$this", index) and not _word(text, index + 5):
                out.append("?this")
                index += 5
                continue
            out.append(char)
            index += 1
            if char == "{" and not opened and _after_select(text, index):
                out.append(" " + focus_mark(extra) + " ")
                opened = True
    if not opened:
        raise IllFormedShape("sh:select has no SELECT ... { } query")
    return "".join(out)


def _word(text: str, index: int) -> bool:
    return index < len(text) and (text[index].isalnum() or text[index] == "_")


def _after_select(text: str, index: int) -> bool:
    return "select" in text[:index].lower()


def check_joinable(
    marked: str, prefixes: Mapping[str, str], extra: Sequence[str] = ()
) -> list[str]:
    """Check a marked query (see :func:`mark_focus`); return its projected variable names.

    Answers are kept per query and prefixes: parsing a query with rdflib is
    slow, and the same shapes are compiled again on every validation.

    Raises:
        IllFormedShape: the query does not parse or breaks a pre-binding restriction.
        NotJoinable: joining the focus nodes would not give pre-binding's answer.
    """
    return list(_checked(marked, tuple(sorted(prefixes.items())), tuple(extra)))


@functools.lru_cache(maxsize=256)
def _checked(
    marked: str, prefixes: tuple[tuple[str, str], ...], extra: tuple[str, ...]
) -> tuple[str, ...]:
    global CompValue
    from rdflib.plugins.sparql import prepareQuery
    from rdflib.plugins.sparql.parserutils import CompValue

    try:
        query = prepareQuery(marked, initNs=dict(prefixes))
    except Exception as exc:  # pyparsing and rdflib raise several unrelated types
        raise IllFormedShape(f"sh:select does not parse: {exc}") from None
    algebra = query.algebra
    if algebra.name != "SelectQuery":
        raise IllFormedShape("sh:select is not a SELECT query")
    # A nested SELECT * returns only the variables its pattern binds (SPARQL 18.2.1).
    nested = marked[marked.index("{") :]
    star = re.search(r"\bSELECT\s+((DISTINCT|REDUCED)\s+)?\*", nested, re.I) is not None
    prebound = PREBOUND | {Variable(name) for name in extra}
    _Analysis(star=star, prebound=prebound).certain(algebra["p"], top=True)
    return tuple(str(v) for v in algebra["PV"])


def _variables(node: Any) -> Iterator[Variable]:
    if isinstance(node, Variable):
        yield node
    elif isinstance(node, CompValue):
        for key, value in node.items():
            if key != "_vars":
                yield from _variables(value)
    elif isinstance(node, list | tuple | set):
        for item in node:
            yield from _variables(item)


class _Analysis:
    """Walks the algebra; :meth:`certain` returns the variables bound in every solution."""

    def __init__(self, *, star: bool, prebound: frozenset[Variable]) -> None:
        self.star = star
        self.prebound = prebound

    def _mentions(self, node: Any) -> frozenset[Variable]:
        """The pre-bound variables ``node`` mentions."""
        return frozenset(v for v in _variables(node) if v in self.prebound)

    def _require(self, node: Any, bound: set[Variable] | frozenset[Variable], where: str) -> None:
        missing = self._mentions(node) - bound
        if missing:
            names = ", ".join(sorted(f"${v}" for v in missing))
            raise NotJoinable(f"{names} is read {where} where it is not bound")

    def certain(
        self, node: Any, *, top: bool = False, seed: frozenset[Variable] = frozenset()
    ) -> set[Variable]:
        if not isinstance(node, CompValue):
            raise NotJoinable(f"unexpected algebra node {node!r}")
        name = node.name
        if name == "BGP":
            return {v for triple in node["triples"] for term in triple for v in _variables(term)}
        if name == "Join":
            return self.certain(node["p1"], seed=seed) | self.certain(node["p2"])
        if name == "LeftJoin":
            left = self.certain(node["p1"], seed=seed)
            self.certain(node["p2"])
            self._require([node["p2"], node.get("expr")], left | seed, "in an OPTIONAL")
            self._expression(node.get("expr"), left | seed)
            return left
        if name == "Union":
            return self.certain(node["p1"]) & self.certain(node["p2"])
        if name == "Filter":
            bound = self.certain(node["p"], seed=seed)
            self._expression(node["expr"], bound | seed)
            return bound
        if name == "Extend":
            bound = self.certain(node["p"], seed=seed)
            expression = node["expr"]
            internal = isinstance(expression, Variable) and str(expression).startswith("__agg_")
            if node["var"] in self.prebound and not internal:
                raise IllFormedShape(
                    f"SHACL 1.0 5.2.1: a query may not assign the pre-bound ?{node['var']}"
                )
            self._expression(expression, bound | seed)
            return bound
        if name == "Graph":
            bound = self.certain(node["p"])
            term = node["term"]
            return bound | ({term} if isinstance(term, Variable) else set())
        if name in ("Minus",):
            raise IllFormedShape("SHACL 1.0 5.2.1: a pre-bound query may not use MINUS")
        if name in ("ServiceGraphPattern",):
            raise IllFormedShape("SHACL 1.0 5.2.1: a pre-bound query may not use SERVICE")
        if name == "ToMultiSet":
            inner = node["p"]
            if inner.name == "values":
                raise IllFormedShape("SHACL 1.0 5.2.1: a pre-bound query may not use VALUES")
            return self._subselect(inner)
        if name in ("Project", "Distinct", "Reduced", "OrderBy") and not top:
            return self.certain(node["p"], seed=seed)
        if name in ("Project", "Distinct", "Reduced", "OrderBy"):
            return self.certain(node["p"], top=True, seed=seed)
        if name == "Slice":
            if top or self._mentions(node["p"]):
                raise NotJoinable("LIMIT or OFFSET over the focus nodes differs from pre-binding")
            return self.certain(node["p"], seed=seed)
        if name == "AggregateJoin":
            group = node["p"]
            inner = group["p"]
            bound = self.certain(inner, seed=seed)
            keys = [k for k in (group.get("expr") or []) if isinstance(k, Variable)]
            needed = self._mentions(inner)
            if not needed <= set(keys) or not needed <= bound | seed:
                raise NotJoinable("an aggregate over the focus nodes is not grouped by ?this")
            self._expression(node["A"], bound | seed)
            return bound & set(keys)
        if name == "values":
            raise IllFormedShape("SHACL 1.0 5.2.1: a pre-bound query may not use VALUES")
        raise NotJoinable(f"the compiled engine does not analyse {name}")

    def _subselect(self, project: CompValue) -> set[Variable]:
        projected = set(project.get("PV") or [])
        if _THIS not in projected:
            raise IllFormedShape("SHACL 1.0 5.2.1: a sub-select must return the pre-bound ?this")
        if self.star and _THIS not in _binds(project["p"]):
            # rdflib lists a variable read only in a FILTER among SELECT *'s; SPARQL does not.
            raise IllFormedShape(
                "SHACL 1.0 5.2.1: a sub-select must return the pre-bound ?this (SELECT * "
                "returns only the variables its pattern binds)"
            )
        bound = self.certain(project["p"])
        needed = self._mentions(project["p"])
        if not needed <= bound or not needed <= projected:
            raise NotJoinable("a sub-select reads a pre-bound variable it does not bind and return")
        return bound & projected

    def _expression(self, expression: Any, bound: set[Variable]) -> None:
        """An expression reads ?this only where ``bound`` holds it; EXISTS patterns are checked."""
        if expression is None:
            return
        exists = list(_exists_patterns(expression))
        self._require(_without_exists(expression), bound, "in an expression")
        from rdflib.plugins.sparql.algebra import translateGroupGraphPattern

        for graph in exists:
            pattern = (
                graph if graph.name != "GroupGraphPatternSub" else translateGroupGraphPattern(graph)
            )
            self.certain(pattern, seed=frozenset(bound))


def _binds(node: Any) -> set[Variable]:
    """The variables a pattern may bind (in its triples, BINDs, GRAPH names, sub-selects)."""
    found: set[Variable] = set()
    if isinstance(node, CompValue):
        if node.name == "BGP":
            return {v for triple in node["triples"] for term in triple for v in _variables(term)}
        if node.name == "Extend":
            found.add(node["var"])
        if node.name == "Graph" and isinstance(node["term"], Variable):
            found.add(node["term"])
        if node.name == "Project":
            return set(node.get("PV") or []) & _binds(node["p"])
        for key, value in node.items():
            if key not in ("_vars", "expr"):
                found |= _binds(value)
    elif isinstance(node, list | tuple):
        for item in node:
            found |= _binds(item)
    return found


def _without_exists(node: Any) -> Any:
    """The parts of an expression outside its EXISTS patterns."""
    if isinstance(node, CompValue):
        if node.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            return None
        return [_without_exists(v) for k, v in node.items() if k != "_vars"]
    if isinstance(node, list | tuple):
        return [_without_exists(item) for item in node]
    return node


def _exists_patterns(node: Any) -> Iterator[CompValue]:
    if isinstance(node, CompValue):
        if node.name in ("Builtin_EXISTS", "Builtin_NOTEXISTS"):
            yield node["graph"]
            return
        for key, value in node.items():
            if key != "_vars":
                yield from _exists_patterns(value)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _exists_patterns(item)


__all__ = ["PREBOUND", "FOCUS_MARK", "NotJoinable", "check_joinable", "focus_mark", "mark_focus"]
