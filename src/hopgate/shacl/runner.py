"""Run compiled shapes (:mod:`hopgate.shacl.compiler`) inside a store; build the SHACL report.

Each check is one SELECT; its solutions become ``sh:result`` nodes of a
standard ``sh:ValidationReport`` graph, with the same terms pySHACL writes
(focus node, value, path, severity, source shape, source constraint
component, source constraint and messages), so one reader serves both
engines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

import pyoxigraph as ox
import rdflib
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH, XSD
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate.ahead import answered_ahead
from hopgate.errors import QueryError
from hopgate.shacl.compiler import Check
from hopgate.shacl.lexical import unwrite
from hopgate.store import Store

_TEMPLATE = re.compile(r"\{[?$](\w+)\}")
#: Components whose checks join more than one path (SPARQL, shapes of the values):
#: at 100k claims each took 5-60 s where the others took 1-6 s (bench/README.md).
_HEAVY = frozenset(
    {
        SH.SPARQLConstraintComponent,
        SH.OrConstraintComponent,
        SH.AndConstraintComponent,
        SH.XoneConstraintComponent,
        SH.NotConstraintComponent,
        SH.NodeConstraintComponent,
        SH.QualifiedMinCountConstraintComponent,
        SH.QualifiedMaxCountConstraintComponent,
    }
)


def _node(term: object) -> Node:
    """A pyoxigraph term as the rdflib term the data wrote (written literals restored)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        # normalize=False: rdflib would rewrite an ill-formed "2011-01-01"^^xsd:dateTime.
        if term.language:
            return Literal(term.value, lang=term.language, normalize=False)
        datatype = term.datatype.value
        # RDF 1.1: a simple literal is an xsd:string; rdflib writes it without the datatype.
        if datatype == str(XSD.string):
            return Literal(term.value, normalize=False)
        return unwrite(Literal(term.value, datatype=URIRef(datatype), normalize=False))
    raise TypeError(f"unexpected term {term!r}")


def _message(template: Literal, row: dict[str, Node]) -> Literal:
    def substitute(match: re.Match[str]) -> str:
        bound = row.get(match[1])
        return match[0] if bound is None else str(bound)

    return Literal(_TEMPLATE.sub(substitute, str(template)), lang=template.language)


def _copy_path(shapes: rdflib.Graph, report: rdflib.Graph, path: Node) -> Node:
    """Copy a property path into the report, read as the compiler reads it.

    A path node that is both a list and something else (W3C path-strange-001)
    is the list; the report copies only the triples of that reading.
    """
    if not isinstance(path, BNode):
        return path
    copy = BNode()
    if shapes.value(path, RDF.first) is not None:
        items = [_copy_path(shapes, report, p) for p in Collection(shapes, path)]
        Collection(report, copy, items)
        return copy
    for predicate in (
        SH.inversePath,
        SH.alternativePath,
        SH.zeroOrMorePath,
        SH.oneOrMorePath,
        SH.zeroOrOnePath,
    ):
        inner = shapes.value(path, predicate)
        if inner is not None:
            report.add((copy, predicate, _copy_path(shapes, report, inner)))
            return copy
    return copy


def _rows(store: Store, check: Check, *, union: bool) -> Iterator[dict[str, Node]]:
    try:
        solutions = store.query_terms(check.prologue + check.query, union=union)
    except SyntaxError as exc:
        raise QueryError(f"a compiled check does not parse: {exc}") from None
    assert isinstance(solutions, ox.QuerySolutions)
    names = [variable.value for variable in solutions.variables]
    try:
        for solution in solutions:
            yield {
                name: _node(term)
                for name, term in zip(names, solution, strict=True)
                if term is not None
            }
    finally:
        # Dropped by the thread that made it (hopgate.ahead answers in threads): an
        # error's traceback keeps this frame, and Oxigraph's solutions may not be
        # dropped on another thread.
        del solutions


def run_checks(
    store: Store, checks: Iterable[Check], shapes: rdflib.Graph, *, union: bool = True
) -> rdflib.Graph:
    """Answer every check in ``store``; return the ``sh:ValidationReport`` graph.

    With ``union`` the data is the union of the store's graphs (hopgate's
    store); without, the default graph only (named graphs hold the shapes).

    ``sh:conforms`` is true when no result is reported at all; callers that
    treat Warnings differently set it themselves.

    The checks are answered two at a time (:mod:`hopgate.ahead`): the engine
    answers a query without holding Python's lock, so the second core answers
    the next check while this one's rows become the report (at 10k claims the
    loads' checks took 11 s one at a time and 6.5 s two at a time).
    """
    checks = list(checks)
    report = rdflib.Graph()
    root = BNode()
    report.add((root, RDF.type, SH.ValidationReport))
    count = 0

    def rows(check: Check) -> Callable[[], Iterator[dict[str, Node]]]:
        return lambda: _rows(store, check, union=union)

    # The heavy checks first (SPARQL-based ones, the longest, before the others), so
    # that neither core waits alone for one at the end; not bounded, as the report
    # keeps every row anyway.
    ordered = sorted(
        checks,
        key=lambda c: (c.component != SH.SPARQLConstraintComponent, c.component not in _HEAVY),
    )
    with answered_ahead([rows(check) for check in ordered], bounded=False) as answered:
        for check, answer in zip(ordered, answered, strict=True):
            count += _report_rows(report, root, shapes, check, answer)
    report.add((root, SH.conforms, Literal(count == 0)))
    return report


def _report_rows(
    report: rdflib.Graph,
    root: BNode,
    shapes: rdflib.Graph,
    check: Check,
    rows: Iterable[dict[str, Node]],
) -> int:
    """Add one ``sh:result`` node per row of ``check`` to ``report``; return how many."""
    count = 0
    for row in rows:
        focus = row.get("this")
        if focus is None:
            continue
        result = BNode()
        count += 1
        report.add((root, SH.result, result))
        report.add((result, RDF.type, SH.ValidationResult))
        report.add((result, SH.focusNode, focus))
        report.add((result, SH.resultSeverity, check.severity))
        report.add((result, SH.sourceShape, check.source_shape))
        report.add((result, SH.sourceConstraintComponent, check.component))
        if check.constraint is not None:
            report.add((result, SH.sourceConstraint, check.constraint))
        value = row.get("value")
        if value is None and check.value_is_focus:
            value = focus
        if value is not None:
            report.add((result, SH.value, value))
        bound_path = row.get("path")
        if isinstance(bound_path, URIRef):
            report.add((result, SH.resultPath, bound_path))
        elif check.path is not None:
            report.add((result, SH.resultPath, _copy_path(shapes, report, check.path)))
        for template in check.messages:
            report.add((result, SH.resultMessage, _message(template, row)))
    return count


__all__ = ["run_checks"]
