"""Run compiled shapes (:mod:`hopgate.shacl_sparql`) inside a store; build the SHACL report.

Each check is one SELECT; its solutions become ``sh:result`` nodes of a
standard ``sh:ValidationReport`` graph, with the same terms pySHACL writes
(focus node, value, path, severity, source shape, source constraint
component, source constraint and messages), so one reader serves both
engines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import rdflib
from rdflib.namespace import RDF, SH, XSD
from rdflib.term import BNode, Literal, Node, URIRef

from hopgate.shacl_sparql import Check
from hopgate.store import IRI, Store, Value
from hopgate.store import BNode as StoreBNode

_TEMPLATE = re.compile(r"\{[?$](\w+)\}")


def _with_lexical(check: Check) -> str:
    # Query results lose a literal's datatype and language; recover them so the
    # report names the offending value exactly.
    return (
        check.prologue + "SELECT * WHERE { { " + check.query + " } "
        "BIND(STR(?value) AS ?_lex) BIND(DATATYPE(?value) AS ?_dt) BIND(LANG(?value) AS ?_lang) }"
    )


def _node(value: Value) -> Node:
    if isinstance(value, IRI):
        return URIRef(value)
    if isinstance(value, StoreBNode):
        return BNode(value)
    return Literal(value)


def _value(row: dict[str, Value]) -> Node | None:
    value = row.get("value")
    if value is None:
        return None
    if isinstance(value, IRI | StoreBNode):
        return _node(value)
    lexical = str(row.get("_lex"))
    if row.get("_lang"):
        return Literal(lexical, lang=str(row["_lang"]))
    datatype = row.get("_dt")
    # RDF 1.1: a simple literal is an xsd:string; rdflib writes it without the datatype.
    if not datatype or datatype == str(XSD.string):
        return Literal(lexical)
    return Literal(lexical, datatype=URIRef(str(datatype)))


def _message(template: Literal, row: dict[str, Value]) -> Literal:
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


def run_checks(store: Store, checks: Iterable[Check], shapes: rdflib.Graph) -> rdflib.Graph:
    """Answer every check in ``store``; return the ``sh:ValidationReport`` graph.

    ``sh:conforms`` is true when no result is reported at all; callers that
    treat Warnings differently set it themselves.
    """
    report = rdflib.Graph()
    root = BNode()
    report.add((root, RDF.type, SH.ValidationReport))
    count = 0
    for check in checks:
        for row in store.select(_with_lexical(check)):
            result = BNode()
            count += 1
            report.add((root, SH.result, result))
            report.add((result, RDF.type, SH.ValidationResult))
            report.add((result, SH.focusNode, _node(row["this"])))
            report.add((result, SH.resultSeverity, check.severity))
            report.add((result, SH.sourceShape, check.source_shape))
            report.add((result, SH.sourceConstraintComponent, check.component))
            if check.constraint is not None:
                report.add((result, SH.sourceConstraint, check.constraint))
            value = _value(row)
            if value is not None:
                report.add((result, SH.value, value))
            if check.path is not None:
                report.add((result, SH.resultPath, _copy_path(shapes, report, check.path)))
            for template in check.messages:
                report.add((result, SH.resultMessage, _message(template, row)))
    report.add((root, SH.conforms, Literal(count == 0)))
    return report


__all__ = ["run_checks"]
