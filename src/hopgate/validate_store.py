"""Run compiled shapes (:mod:`hopgate.shacl_sparql`) inside a store; build the SHACL report.

Each check is one SELECT; its solutions become ``sh:result`` nodes of a
standard ``sh:ValidationReport`` graph, with the same terms pySHACL writes
(focus node, value, path, severity, source shape, source constraint
component, source constraint and messages), so one reader serves both
engines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import pyoxigraph as ox
import rdflib
from rdflib.namespace import RDF, SH, XSD
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate.errors import QueryError
from hopgate.shacl_sparql import Check
from hopgate.store import OxigraphStore
from hopgate.xsd_lexical import unwrite

_TEMPLATE = re.compile(r"\{[?$](\w+)\}")


def _node(term: object) -> Node:
    """A pyoxigraph term as the rdflib term the data wrote (written literals restored)."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        datatype = term.datatype.value
        # RDF 1.1: a simple literal is an xsd:string; rdflib writes it without the datatype.
        if datatype == str(XSD.string):
            return Literal(term.value)
        return unwrite(Literal(term.value, datatype=URIRef(datatype)))
    raise TypeError(f"unexpected term {term!r}")


def _message(template: Literal, row: dict[str, Node]) -> Literal:
    def substitute(match: re.Match[str]) -> str:
        bound = row.get(match[1])
        return match[0] if bound is None else str(bound)

    return Literal(_TEMPLATE.sub(substitute, str(template)), lang=template.language)


def _copy_path(shapes: rdflib.Graph, report: rdflib.Graph, path: Node) -> Node:
    """Copy a property path's nodes from the shapes graph into the report."""
    if not isinstance(path, BNode):
        return path
    copy = BNode()
    for predicate, obj in shapes.predicate_objects(path):
        report.add((copy, predicate, _copy_path(shapes, report, obj)))
    return copy


def _rows(store: OxigraphStore, check: Check) -> Iterator[dict[str, Node]]:
    try:
        solutions = store._store.query(
            check.prologue + check.query, use_default_graph_as_union=True
        )
    except SyntaxError as exc:
        raise QueryError(f"a compiled check does not parse: {exc}") from None
    assert isinstance(solutions, ox.QuerySolutions)
    names = [variable.value for variable in solutions.variables]
    for solution in solutions:
        yield {
            name: _node(term)
            for name, term in zip(names, solution, strict=True)
            if term is not None
        }


def run_checks(store: OxigraphStore, checks: Iterable[Check], shapes: rdflib.Graph) -> rdflib.Graph:
    """Answer every check in ``store``; return the ``sh:ValidationReport`` graph.

    ``sh:conforms`` is true when no result is reported at all; callers that
    treat Warnings differently set it themselves.
    """
    report = rdflib.Graph()
    root = BNode()
    report.add((root, RDF.type, SH.ValidationReport))
    count = 0
    for check in checks:
        for row in _rows(store, check):
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
    report.add((root, SH.conforms, Literal(count == 0)))
    return report


__all__ = ["run_checks"]
